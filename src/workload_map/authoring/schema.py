"""Reading a CRD's openAPIV3Schema for what a definition needs: pod definitions, counts, suspend, status.

The walk is structural, never by framework name: a PodSpec is an object with a ``containers`` list of
container-shaped objects; a PodTemplateSpec is an object whose ``spec`` is a PodSpec; lists and maps
on the way (``workerGroupSpecs[]``, ``pytorchReplicaSpecs{}``) make one instance per item. What the
schema hides (``x-kubernetes-preserve-unknown-fields``) is left to the samples (``samples.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from workload_map.authoring.evidence import ARRAY, MAP, Segments, schema_path
from workload_map.authoring.gosource import switch_annotation as gosource_switch

# Integer fields beside a pod definition that count its pods, most telling first.
REPLICA_NAMES = ("replicas", "replicaCount", "numReplicas", "numWorkers", "workers", "instances", "count", "size")
MIN_NAMES = ("minReplicas", "minAvailable", "minMember", "minSize", "minWorkers")
MAX_NAMES = ("maxReplicas", "maxSize", "maxWorkers")
# Multiplies the replica count: one pod per host of a multi-host replica (KubeRay's numOfHosts).
# A count of pods in one group (a leader and its workers), itself counted by the group's holder.
GROUP_SIZE_NAMES = ("size", "groupSize")
HOSTS_NAMES = ("numOfHosts", "hostsPerReplica", "numHosts")
# Shards beside a count of replicas of each shard: the pods are their product (a Prometheus' shards x replicas).
SHARD_NAMES = ("shards", "shardCount", "shardsCount", "numShards", "numberOfShards")
SHARD_PRODUCT = re.compile(r"multipl|\b(each|every|per) shard\b|\bshards? (x|times)\b", re.I)
ID_NAMES = ("name", "groupName", "replicaName", "taskName", "roleName")
SUSPEND_BOOLEANS = ("suspend", "suspended", "pause", "paused", "stopped", "stop", "hibernate", "hibernated", "shutdown")
# Booleans right under .spec whose false stops the workload (a VM's running, a workspace's started).
INVERSE_BOOLEANS = ("started", "running", "enabled", "active", "start", "run")
# Words of an operating mode's values (runStrategy, operatingMode...): which stop it, which run it.
STOP_VALUES = ("suspended", "suspend", "stopped", "stop", "paused", "halted", "off", "disabled", "inactive")
# The values of a switch spelt as strings, for yes and for no.
TRUTHY = ("true", "yes", "on", "1", "enabled", "enable")
FALSY = ("false", "no", "off", "0", "disabled", "disable")
RUN_VALUES = ("running", "run", "started", "active", "always", "on", "enabled", "rerunonfailure", "once")
# A field description that says an integer counts pods: "replicas is the number of desired pods", "the
# desired number of cluster nodes" (two words may name what the pods are).
COUNT_DESCRIPTION = re.compile(
    r"\b(number|count) of (the )?(desired |requested )?(\w+ ){0,2}?"
    r"(replicas|pods|instances|workers|nodes|copies|hosts|members)\b",
    re.I,
)
# A description that says an object (typed or free-form) is a pod's template or spec.
POD_DESCRIPTION = re.compile(
    r"\b(pod ?template|template (for|of|describes|that describes) (the )?pods?|podspec|pod spec)\b", re.I
)
TEMPLATE_NAMES = ("template", "podTemplate", "podTemplateSpec", "podSpec")
AUXILIARY_CONTAINERS = ("initContainers", "ephemeralContainers")
# A parent field that schedules runs: a switch under it stops the schedule, not the object's own pods.
SCHEDULE_PARENT = re.compile(r"(?i)cron|schedul")
# Any other count of ready or available members: ``availableNodes``, ``readyInstances``.
# ``readyMembers``; ``numberReady`` as a DaemonSet counts, a role's too (``workerNumberReady``; its
# ``numberAvailable`` is a second name for the same pods, left out: a role's counts come first).
READY_COUNT = re.compile(r"^(ready|available)(?:[A-Z][a-z]+)+$|^(?:[a-z]\w*N|n)umberReady$")
# A status object counting the members by state (``.status.replicas.ready``).
MEMBER_NAMES = ("replicas", "pods", "instances", "workers", "nodes")
READY_NAMES = ("readyReplicas", "availableReplicas", "readyWorkers", "readyPods")
# An integer `.status.ready` (or `available`): the object's ready pods, summed over its parts.
TOTAL_READY = ("ready", "available")
PHASE_NAMES = ("phase", "state", "lifecycleState", "jobState", "clusterState", "status")


@dataclass(frozen=True)
class Field:
    """One schema field found: where, its schema (type, enum, default) and whether its parent requires it."""

    segments: Segments
    schema: dict[str, Any]
    required: bool = False

    @property
    def path(self) -> str:
        return schema_path(self.segments)

    @property
    def enum(self) -> list[str]:
        values = self.schema.get("enum")
        return [str(v) for v in values] if isinstance(values, list) else []

    @property
    def default(self) -> Any:
        return self.schema.get("default")


@dataclass
class Site:
    """One pod definition in the object: a template, a bare PodSpec, a container list or one container."""

    segments: Segments
    form: str  # template | podspec | containers | container
    source: str  # "schema" or a sample's location
    role: Segments = ()  # the object that holds the pod definition and its counts
    replicas: Field | None = None
    min_replicas: Field | None = None
    max_replicas: Field | None = None
    hosts: Field | None = None
    instance_id: Field | None = None  # per item of the innermost collection
    job: Segments | None = None  # a batch/v1 JobTemplateSpec on the way (JobSet-like): its segments
    bare_job: bool = False  # ``job`` is a bare JobSpec (no metadata/spec around it): the operator wraps it
    metadata: bool = False  # a PodSpec with an ObjectMeta beside it (``metadata`` sibling of ``spec``)
    free_form: str | None = None  # why an open object (no typed containers) is taken for a pod definition
    embeds: str | None = None  # the built-in kind whose spec the role object is (Deployment, StatefulSet)
    alternative: Segments | None = None  # an optional object of the list item, beside others holding pods
    # Counts of the list items above the object that counts the pods (a role's replicas over the size of
    # each replica's group): the pods are the product.
    instances: list[Field] = field(default_factory=list)

    @property
    def path(self) -> str:
        return schema_path(self.segments)

    @property
    def collections(self) -> int:
        return sum(1 for s in self.segments if s in (ARRAY, MAP))


@dataclass
class SchemaFacts:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    sites: list[Site] = field(default_factory=list)
    suspend: list[tuple[Field, str, str]] = field(default_factory=list)  # field, suspend value, resume value
    conditions: Field | None = None
    condition_types: list[str] = field(default_factory=list)
    phases: list[Field] = field(default_factory=list)
    untyped: list[str] = field(default_factory=list)  # paths the schema leaves open
    ready_counts: list[Field] = field(default_factory=list)  # .status.readyReplicas and the like
    replicas_at_root: Field | None = None
    count_at_root: Field | None = None
    through_replicasets: bool = False  # a DeploymentSpec-shaped .spec: pods are owned through ReplicaSets
    # What the printer columns (kubectl get) show: (condition type, column), (status field, column).
    printer_conditions: list[tuple[str, str]] = field(default_factory=list)
    printer_phases: list[tuple[Segments, str]] = field(default_factory=list)
    printer_ready: list[tuple[Segments, str]] = field(default_factory=list)
    status_paths: set[Segments] = field(default_factory=set)  # every field the status schema declares
    # Values the operator's Go API types declare (--api-source): (field, value) or ("conditions", type) -> where.
    api_evidence: dict[tuple[Segments, str], str] = field(default_factory=dict)
    # What a value the controller writes means where its words do not say (gosource.ApiValues.meanings).
    api_meanings: dict[tuple[Segments, str], tuple[str, str, str]] = field(default_factory=dict)
    api_conditions: list[tuple[str, str]] = field(default_factory=list)  # (condition type, where declared)
    api_ready_counts: list[tuple[Segments, str]] = field(default_factory=list)  # (field, where the controller fills it)
    # Annotations that pause the object (described in the schema, or declared in the API types): (key, where).
    annotation_switches: list[tuple[str, str]] = field(default_factory=list)
    annotation_values: dict[str, str] = field(default_factory=dict)  # key -> the value that suspends
    # A switch of the spec the Go types say pauses only the operator (--api-source): (path, where), if any.
    operator_pause: tuple[str, str] | None = None
    batch_fields: list[str] = field(default_factory=list)  # fields only run-to-completion kinds have
    serving_fields: list[str] = field(default_factory=list)  # fields only long-running services have
    schema: dict[str, Any] = field(default_factory=dict, repr=False)  # the version's openAPIV3Schema

    def field_at(self, segments: Segments) -> Field | None:
        """The schema's field at ``segments`` (``[]`` an item of a list), None where it declares none."""
        node = _node_at(self.schema, segments)
        return Field(segments, node) if node else None


def _props(node: Any) -> dict[str, Any]:
    if not isinstance(node, dict):
        return {}
    props = node.get("properties")
    return props if isinstance(props, dict) else {}


# A count of pods no container has: an object with one beside its image describes a workload the operator
# builds (a compute group with its image and replicas), not a container.
POD_COUNT_NAMES = ("replicas", "replicaCount", "numReplicas", "instances", "minReplicas", "maxReplicas")


def is_container(node: Any) -> bool:
    props = _props(node)
    image = props.get("image")
    # An image that is an object (a devfile's image-build component) is not a container's image reference.
    if not isinstance(image, dict) or image.get("type") not in ("string", None) or _props(image):
        return False
    if any(name in props for name in POD_COUNT_NAMES):
        return False
    return "name" in props or "command" in props or "args" in props


def is_pod_spec(node: Any) -> bool:
    containers = _props(node).get("containers")
    return isinstance(containers, dict) and containers.get("type") == "array" and is_container(containers.get("items"))


def _children(node: dict[str, Any], segments: Segments) -> Iterator[tuple[Segments, Any, bool]]:
    required = set(node.get("required") or [])
    for key, child in _props(node).items():
        yield (*segments, key), child, key in required
    items = node.get("items")
    if isinstance(items, dict):
        yield (*segments, ARRAY), items, False
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and (_props(extra) or extra.get("items")):
        yield (*segments, MAP), extra, False


def _node_at(root: dict[str, Any], segments: Segments) -> dict[str, Any]:
    node: Any = root
    for segment in segments:
        if segment == ARRAY:
            node = node.get("items") or {}
        elif segment == MAP:
            node = node.get("additionalProperties") or {}
        else:
            node = _props(node).get(segment) or {}
    return node if isinstance(node, dict) else {}


def _first(node: dict[str, Any], segments: Segments, names: tuple[str, ...], types: tuple[str, ...]) -> Field | None:
    props = _props(node)
    required = set(node.get("required") or [])
    for name in names:
        child = props.get(name)
        if isinstance(child, dict) and (child.get("type") in types or child.get("x-kubernetes-int-or-string")):
            return Field((*segments, name), child, name in required)
    return None


def described_count(node: dict[str, Any], segments: Segments) -> Field | None:
    """An integer whose description says it counts pods ("the number of desired replicas"), whatever its name;
    min/max bounds are not counts."""
    for name, child in _props(node).items():
        if not isinstance(child, dict) or child.get("type") != "integer" or name in MIN_NAMES + MAX_NAMES:
            continue
        text = str(child.get("description") or "")
        # A replication factor counts copies of the data (partitions, shards) over the pods, not pods.
        if "replicationfactor" in name.lower():
            continue
        if COUNT_DESCRIPTION.search(text) and not re.search(r"\b(min|max)(imum)?\b", name + " " + text[:60], re.I):
            return Field((*segments, name), child)
    return None


def free_form_pod(name: str, node: Any) -> str | None:
    """Why an object without typed containers is a pod definition: its name (``template``) or its description
    ("template describes the pods"), when the schema leaves it open; None when it is not one."""
    if not isinstance(node, dict) or _props(node) or node.get("type") not in ("object", None):
        return None
    values = node.get("additionalProperties")
    if isinstance(values, dict) and values.get("type") in ("string", "integer", "number", "boolean"):
        return None  # a map of scalars (a node selector, labels) is no pod, whatever its description says
    if not (node.get("x-kubernetes-preserve-unknown-fields") or node.get("type") == "object"):
        return None
    description = str(node.get("description") or "")
    if POD_DESCRIPTION.search(description):
        return f"its description says so ({description.strip()[:80]!r})"
    if name in TEMPLATE_NAMES:
        return f"an open object named {name!r}"
    return None


def _fill_counts(site: Site, schema: dict[str, Any]) -> None:
    """Counts beside the pod definition: on the role object, else on the innermost collection item."""
    # A template object with fields of its own (Dask's worker: {replicas, spec}) holds its counts itself; so
    # does an object taken for a PodSpec that has a count (no PodSpec has one: it is a role's spec).
    candidates = [site.segments, site.role] if site.form in ("template", "podspec") else [site.role]
    last_collection = max((i for i, s in enumerate(site.segments) if s in (ARRAY, MAP)), default=-1)
    if last_collection >= 0 and site.segments[: last_collection + 1] not in candidates:
        candidates.append(site.segments[: last_collection + 1])
    if site.job is not None:
        # JobSet-like: the JobTemplateSpec's parent counts Jobs; the Job's own spec counts pods per Job.
        candidates = [site.job[:-1], *candidates]
    for segments in candidates:
        node = _node_at(schema, segments)
        site.replicas = site.replicas or _first(node, segments, REPLICA_NAMES, ("integer",))
        site.min_replicas = site.min_replicas or _first(node, segments, MIN_NAMES, ("integer",))
        site.max_replicas = site.max_replicas or _first(node, segments, MAX_NAMES, ("integer",))
        site.hosts = site.hosts or _first(node, segments, HOSTS_NAMES, ("integer",))
    for segments in candidates:
        site.replicas = site.replicas or described_count(_node_at(schema, segments), segments)
    _multiply_groups(site, schema, candidates)
    _multiply_shards(site, schema)
    if site.replicas is not None and site.job is None:
        holder = site.replicas.segments[:-1]
        for index, segment in enumerate(site.segments[: len(holder)]):
            item = site.segments[: index + 1]
            count = _first(_node_at(schema, item), item, REPLICA_NAMES, ("integer",)) if segment == ARRAY else None
            if count is not None and count.segments != site.replicas.segments:
                site.instances.append(count)
    if site.role:
        site.embeds = embedded_kind(site.role[-1], _node_at(schema, site.role))
    if last_collection >= 0 and site.segments[last_collection] == ARRAY:
        item = site.segments[: last_collection + 1]
        site.instance_id = _first(_node_at(schema, item), item, ID_NAMES, ("string",))


def _multiply_shards(site: Site, schema: dict[str, Any]) -> None:
    """A count of shards beside the replicas, when either's description says the replicas are of each shard
    or that one multiplies the other ("replicas of each shard", "multiplied by this value"): the operator runs
    the replicas once per shard, so the shards multiply the count as hosts do."""
    if site.replicas is None or site.hosts is not None:
        return
    holder = site.replicas.segments[:-1]
    shards = _first(_node_at(schema, holder), holder, SHARD_NAMES, ("integer",))
    said = " ".join(str(f.schema.get("description") or "") for f in (site.replicas, shards) if f is not None)
    if shards is not None and SHARD_PRODUCT.search(said):
        site.hosts = shards


def _multiply_groups(site: Site, schema: dict[str, Any], candidates: list[Segments]) -> None:
    """A group's size beside the pod definition (``pattern.size``) and a count of such groups further out
    (``roles[].replicas``): the pods are the groups times their size, so the outer count is the replicas and
    the size multiplies it (as pods per host of a multi-host replica do)."""
    if site.replicas is None or site.replicas.segments[-1] not in GROUP_SIZE_NAMES or site.hosts is not None:
        return
    inner = site.replicas.segments[:-1]
    for segments in candidates:
        if len(segments) >= len(inner) or segments != inner[: len(segments)]:
            continue  # only a count on an object that holds the group counts its groups
        names = tuple(n for n in REPLICA_NAMES if n not in GROUP_SIZE_NAMES)
        outer = _first(_node_at(schema, segments), segments, names, ("integer",))
        if outer is not None:
            site.replicas, site.hosts = outer, site.replicas
            return


def _job_template(schema: dict[str, Any], segments: Segments) -> Segments | None:
    """The JobTemplateSpec a pod template sits in (``<x>.template.spec.template``), if any."""
    if len(segments) >= 3 and segments[-2:] == ("spec", "template"):
        job_spec = _node_at(schema, segments[:-1])
        if {"parallelism", "completions"} & set(_props(job_spec)):
            return segments[:-2]
    return None


def is_job_spec(props: dict[str, Any]) -> bool:
    """A batch/v1 JobSpec's shape: a pod template, a count and a field only Jobs have (a retry limit...)."""
    return (
        "template" in props
        and bool({"parallelism", "completions"} & set(props))
        and bool({"backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished", "completionMode"} & set(props))
    )


def _bare_job(schema: dict[str, Any], segments: Segments) -> Segments | None:
    """The bare JobSpec a pod template sits in below the root's spec (``.spec.jobTargetRef.template``): the
    operator makes Jobs of it. The root's own spec of that shape is the kind's own (it runs the pods)."""
    if len(segments) >= 3 and segments[-1] == "template" and is_job_spec(_props(_node_at(schema, segments[:-1]))):
        return segments[:-1]
    return None


# The spec fields that tell the built-in controllers' specs apart when a CRD embeds one (a role object that is
# a DeploymentSpec or StatefulSetSpec: the operator creates that object, which creates the pods).
EMBEDDED_SPECS = (
    ("StatefulSet", ("serviceName", "volumeClaimTemplates", "podManagementPolicy")),
    ("Deployment", ("strategy", "progressDeadlineSeconds", "minReadySeconds", "revisionHistoryLimit")),
)
KIND_NAMES = {"deployment": "Deployment", "statefulset": "StatefulSet"}


def _rollout_spec(props: dict[str, Any]) -> bool:
    """A DeploymentSpec-like object: a pod template, a selector and a rollout strategy."""
    return "template" in props and "selector" in props and "strategy" in props


def rolls_out_through_replicasets(schema: dict[str, Any]) -> bool:
    """The root's .spec is a DeploymentSpec's shape: its controller rolls pods out through ReplicaSets."""
    return _rollout_spec(_props(_props(schema).get("spec")))


def embedded_kind(name: str, node: dict[str, Any]) -> str | None:
    """The built-in kind a role object is the spec of: by its fields (a template plus a Deployment's
    ``strategy`` or a StatefulSet's ``serviceName``), or by its name (``deployment``, ``statefulSetSpec``)."""
    props = _props(node)
    if "template" in props and "selector" in props:
        for kind, marks in EMBEDDED_SPECS:
            if any(m in props for m in marks):
                return kind
    key = re.sub(r"(spec|template)$", "", name.lower())
    return KIND_NAMES.get(key)


def find_sites(schema: dict[str, Any], start: Segments = ("spec",), source: str = "schema") -> list[Site]:
    found: list[Site] = []

    def walk(node: Any, segments: Segments, depth: int) -> None:
        if not isinstance(node, dict) or depth > 40:
            return
        props = _props(node)
        if "spec" in props and is_pod_spec(props["spec"]):
            site = Site(segments, "template", source, role=segments[:-1])
            if "metadata" not in props:
                site = Site((*segments, "spec"), "podspec", source, role=segments)
            site.job = _job_template(schema, segments)
            if site.job is None and (bare := _bare_job(schema, segments)) is not None:
                site.job, site.bare_job = bare, True
            if site.job is not None:
                site.role = site.job[:-1]
            found.append(site)
            return
        if is_pod_spec(node):
            found.append(Site(segments, "podspec", source, role=segments[:-1]))
            return
        if node.get("type") == "array" and is_container(node.get("items")):
            # Init and ephemeral containers run in a pod whose main containers are elsewhere: never a pod alone.
            if segments[-1] not in AUXILIARY_CONTAINERS:
                found.append(Site(segments, "containers", source, role=segments[:-1]))
            return
        if "metadata" in props and "spec" in props and segments[-1] != "spec":
            # A PodTemplateSpec whose spec the schema leaves open (metadata + an open spec the description
            # calls a PodSpec): the object is the template, not its spec.
            why = free_form_pod("podSpec", props["spec"])
            if why is not None and "description" in why:
                found.append(Site(segments, "template", source, role=segments[:-1], free_form=why))
                return
        for child_segments, child, _required in _children(node, segments):
            why = free_form_pod(child_segments[-1], child) if child_segments[-1] not in (ARRAY, MAP) else None
            if why is not None and depth < 6:
                form = "podspec" if child_segments[-1].lower() == "podspec" else "template"
                found.append(Site(child_segments, form, source, role=segments, free_form=why))
                continue
            walk(child, child_segments, depth + 1)

    walk(_node_at(schema, start), start, 0)
    for site in found:
        _fill_counts(site, schema)
    _mark_alternatives(found, schema)
    return found


def _mark_alternatives(sites: list[Site], schema: dict[str, Any]) -> None:
    """Pod definitions under different optional objects of the same list item (``roles[].standalone`` and
    ``roles[].leaderWorker``) are alternatives: an item makes the pods of the one it sets, none of the others."""
    by_item: dict[Segments, set[str]] = {}
    for site in sites:
        last = max((i for i, s in enumerate(site.segments) if s in (ARRAY, MAP)), default=-1)
        if last >= 0 and len(site.role) > last + 1:
            by_item.setdefault(site.segments[: last + 1], set()).add(site.role[last + 1])
    for site in sites:
        last = max((i for i, s in enumerate(site.segments) if s in (ARRAY, MAP)), default=-1)
        item = site.segments[: last + 1]
        if last < 0 or len(by_item.get(item, ())) < 2 or len(site.role) <= last + 1:
            continue
        key = site.role[last + 1]
        if key not in (_node_at(schema, item).get("required") or []):
            site.alternative = (*item, key)


def _walk_fields(node: Any, segments: Segments, depth: int = 0) -> Iterator[Field]:
    """Every field outside pod definitions and collections (suspend and status live at fixed paths)."""
    if not isinstance(node, dict) or depth > 12 or is_pod_spec(node) or is_pod_spec(_props(node).get("spec")):
        return
    required = set(node.get("required") or [])
    for key, child in _props(node).items():
        if not isinstance(child, dict):
            continue
        yield Field((*segments, key), child, key in required)
        if child.get("type") == "object":
            yield from _walk_fields(child, (*segments, key), depth + 1)


def spec_roots(schema: dict[str, Any]) -> list[str]:
    """Where the desired state is: ``spec``, or, for a kind without one (fields at the top, as some operators
    declare them), every top-level object but metadata and status."""
    props = _props(schema)
    if "spec" in props or not props:
        return ["spec"]
    return [k for k, v in props.items() if k not in ("metadata", "status") and isinstance(v, dict) and _props(v)]


# A switch described as pausing the operator's reconcile, not the pods (MariaDB's and Grafana's `suspend`:
# "disabling the reconciliation prevents the operator from interfering"), unless it also says what happens
# to the pods (deleted, scaled down, hibernated).
RECONCILE_ONLY = re.compile(
    r"\breconcil\w*|\bsynchroni[sz]\w*|\bstops? managing\b|\bno longer manag\w*|\bunmanaged\b"
    r"|\bprevents? (?:the )?(?:operator|controllers?) from\b",
    re.I,
)
STOPS_PODS = re.compile(r"\bpods?\b|delet|\bscal|terminat|shut ?down|hibernat|\bstops? (the )?(workload|process)", re.I)


def _feature_switch(siblings: dict[str, Any]) -> bool:
    """The fields around a switch are an optional feature's (an ``enabled`` boolean beside it): its pause stops
    the feature, not the object's pods."""
    enabled = siblings.get("enabled")
    return isinstance(enabled, dict) and enabled.get("type") == "boolean"


def _suspend_fields(spec: dict[str, Any], root: str = "spec") -> list[tuple[Field, str, str]]:
    """Switches that stop the workload: (field, value that suspends, value that resumes), best first.

    A boolean named suspend/paused/stopped (true stops); a boolean right under .spec named started/running/
    enabled (an inverse switch: false stops); a string enum, an operating mode (runStrategy, operatingMode...),
    with a stopping value (Halted, Stopped...) and a running one (Always, Running...)."""
    out: list[tuple[int, Field, str, str]] = []
    for found in _walk_fields(spec, (root,)):
        name = found.segments[-1]
        parents = [
            _props(_node_at({"properties": {root: spec}}, found.segments[:i])) for i in range(1, len(found.segments))
        ]
        if any(_rollout_spec(p) for p in parents) or any(
            s.lower().endswith(("strategy", "rollingupdate")) for s in found.segments[:-1]
        ):
            # A Deployment-like spec's `paused` (or one under an update strategy) halts a rollout, not the pods.
            continue
        if name == "paused" and any(
            "template" in p and any(k.lower().endswith("strategy") for k in p) for p in parents[-1:]
        ):
            continue  # beside a template and its update strategy, `paused` halts the rollout of a new template
        if any(is_job_spec(p) for p in parents[1:]):
            continue  # an embedded JobSpec's suspend is the Jobs' the operator makes of it, not the object's
        if any(SCHEDULE_PARENT.search(s) for s in found.segments[1:-1]):
            continue  # under a schedule (cronPolicy, schedule): it stops the next runs, not this object's pods
        if len(found.segments) > 2 and _feature_switch(parents[-1]):
            continue  # beside the `enabled` of an optional feature (archiving, backups): it pauses that feature
        if RECONCILE_ONLY.search(str(found.schema.get("description") or "")) and not STOPS_PODS.search(
            str(found.schema.get("description") or "")
        ):
            continue  # it pauses the operator's reconcile ("disabling the reconciliation"): the pods run on
        if found.schema.get("type") == "boolean" and name in SUSPEND_BOOLEANS:
            out.append((0, found, "true", "false"))
        elif found.schema.get("type") == "boolean" and name in INVERSE_BOOLEANS and len(found.segments) == 2:
            out.append((2, found, "false", "true"))
        elif found.schema.get("type") == "string" and found.enum and name in SUSPEND_BOOLEANS:
            # A switch spelt as strings (`stop: "yes"`): its yes stops, its no resumes.
            stop = [v for v in found.enum if v.lower() in TRUTHY]
            run = [v for v in found.enum if v.lower() in FALSY]
            if stop and run:
                out.append((0, found, f'"{stop[0]}"', f'"{run[0]}"'))
        elif found.schema.get("type") == "string" and found.enum:
            stop = [v for v in found.enum if v.lower() in STOP_VALUES]
            run = [v for v in found.enum if v.lower() in RUN_VALUES]
            if stop and run:
                # The default running value, when the schema has one, is what a resumed object had.
                default = found.default if found.default in run else run[0]
                out.append((1, found, f'"{stop[0]}"', f'"{default}"'))
    # Named switches before modes before inverse booleans; shallowest first (`.spec.suspend` before
    # `.spec.runPolicy.suspend`).
    out.sort(key=lambda entry: (len(entry[1].segments), entry[0]))
    return [(f, on, off) for _, f, on, off in out]


# A printer column's JSONPath: a condition's status (`.status.conditions[?(@.type=="Ready")].status`) or a field.
_CONDITION_COLUMN = re.compile(r"^\.status\.conditions\[\?\(@\.type\s*==\s*['\"]([^'\"]+)['\"]\)\]")
_FIELD_COLUMN = re.compile(r"^\.status((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$")


def _printer_columns(facts: SchemaFacts, columns: Any) -> None:
    """What ``kubectl get`` shows is what the operator's authors deem the status: condition types, phases,
    ready counts."""
    for column in columns if isinstance(columns, list) else []:
        if not isinstance(column, dict):
            continue
        path, name = str(column.get("jsonPath") or ""), str(column.get("name") or "")
        condition = _CONDITION_COLUMN.match(path)
        plain = _FIELD_COLUMN.match(path)
        if condition:
            facts.printer_conditions.append((condition.group(1), name))
        elif plain:
            segments = ("status", *plain.group(1).strip(".").split("."))
            if column.get("type") == "integer" and (
                segments[-1] in READY_NAMES or name.lower() in ("ready", "available")
            ):
                facts.printer_ready.append((segments, name))
            elif column.get("type") == "string" and (
                segments[-1] in PHASE_NAMES
                or segments[-1].endswith(("Phase", "State", "Status"))
                or name.lower() in ("status", "phase", "state")
            ):
                facts.printer_phases.append((segments, name))


BATCH_FIELDS = (
    "completions",
    "backoffLimit",
    "ttlSecondsAfterFinished",
    "activeDeadlineSeconds",
    "runPolicy",
    "minAvailable",
    "minMember",
    "successPolicy",
    "failurePolicy",
    "maxRestarts",
    "cleanPodPolicy",
)
SERVING_FIELDS = (
    "minReplicas",
    "maxReplicas",
    "autoscaling",
    "scaleTarget",
    "canaryTrafficPercent",
    "traffic",
    "predictors",
    "endpoint",
    "ports",
    "strategy",
    "rollingUpdate",
    "revisionHistoryLimit",
)


def _kind_markers(facts: SchemaFacts, spec: dict[str, Any]) -> None:
    """Fields under .spec that only run-to-completion kinds, or only long-running services, have."""
    for found in _walk_fields(spec, ("spec",)):
        name = found.segments[-1]
        if name in BATCH_FIELDS:
            facts.batch_fields.append(found.path)
        elif name in SERVING_FIELDS:
            facts.serving_fields.append(found.path)


def _status_fields(facts: SchemaFacts, status: dict[str, Any], roles: frozenset[str] = frozenset()) -> None:
    for found in _walk_fields(status, ("status",)):
        facts.status_paths.add(found.segments)
        name = found.segments[-1]
        schema = found.schema
        if name == "conditions" and schema.get("type") == "array" and facts.conditions is None:
            items = schema.get("items") or {}
            type_schema = _props(items).get("type")
            if isinstance(type_schema, dict):
                facts.conditions = found
                enum = type_schema.get("enum")
                facts.condition_types = [str(v) for v in enum] if isinstance(enum, list) else []
        elif schema.get("type") == "integer" and (
            (len(found.segments) == 2 and (name in (*READY_NAMES, *TOTAL_READY) or READY_COUNT.match(name)))
            or (len(found.segments) == 3 and found.segments[1] in MEMBER_NAMES and name in ("ready", "available"))
            or (len(found.segments) == 3 and found.segments[1].endswith("Status") and name in READY_NAMES)
            or (len(found.segments) == 3 and found.segments[1] in roles and name in READY_NAMES)
        ):
            facts.ready_counts.append(found)
        elif (
            schema.get("type") == "string"
            and "conditions" not in found.segments
            and (name in PHASE_NAMES or name.endswith(("Phase", "State", "Status")))
        ):
            facts.phases.append(found)
    facts.phases.sort(key=lambda f: (len(f.segments), not f.enum))


# An annotation key in a description: ``example.com/paused``, quoted or not.
_DESCRIBED_KEY = re.compile(r"(?<![\w./-])((?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?\.)+[a-z]{2,}/[A-Za-z0-9][-A-Za-z0-9_.]*)")


def _described_annotations(schema: dict[str, Any]) -> list[tuple[str, str]]:
    """Pause/hibernation annotation keys the schema's descriptions name beside the word annotation."""
    out: dict[str, str] = {}

    def walk(node: Any, segments: Segments, depth: int) -> None:
        if not isinstance(node, dict) or depth > 12 or is_pod_spec(node):
            return
        description = str(node.get("description") or "")
        if "annotation" in description.lower():
            for key in _DESCRIBED_KEY.findall(description):
                if gosource_switch(key.rstrip(".")):
                    out.setdefault(key.rstrip("."), f"the description of {schema_path(segments) or 'the kind'}")
        for key, child in _props(node).items():
            if key != "status":
                walk(child, (*segments, key), depth + 1)

    walk(schema, (), 0)
    return list(out.items())


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def choose_version(crd: dict[str, Any], version: str | None = None) -> dict[str, Any]:
    spec = _mapping(crd.get("spec"))
    listed = spec.get("versions")
    versions = [v for v in listed if isinstance(v, dict)] if isinstance(listed, list) else []
    if version is not None:
        for entry in versions:
            if entry.get("name") == version:
                return entry
        raise ValueError(f"the CRD has no version {version!r} (it has {[v.get('name') for v in versions]})")
    for entry in versions:
        if entry.get("storage"):
            return entry
    served = [v for v in versions if v.get("served", True)]
    if not served:
        raise ValueError("the CRD lists no served version (.spec.versions)")
    return served[0]


def read_crd(crd: dict[str, Any], version: str | None = None) -> SchemaFacts:
    """Everything the schema of one CRD version says; ValueError when it is not a CRD."""
    if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
        raise ValueError(f"not a CustomResourceDefinition (kind {crd.get('kind') if isinstance(crd, dict) else crd!r})")
    spec = _mapping(crd.get("spec"))
    names = _mapping(spec.get("names"))
    if not spec.get("group") or not names.get("kind"):
        raise ValueError("the CRD has no .spec.group or .spec.names.kind")
    entry = choose_version(crd, version)
    holder = entry.get("schema")
    schema = holder.get("openAPIV3Schema") if isinstance(holder, dict) else None
    schema = schema if isinstance(schema, dict) else {}
    facts = SchemaFacts(
        group=str(spec["group"]),
        version=str(entry.get("name")),
        kind=str(names["kind"]),
        plural=str(names.get("plural") or ""),
        namespaced=spec.get("scope", "Namespaced") == "Namespaced",
        schema=schema,
    )
    roots = spec_roots(schema)
    facts.sites = [site for root in roots for site in find_sites(schema, (root,))]
    root_spec = _props(schema).get("spec") or {}
    facts.suspend = [entry for root in roots for entry in _suspend_fields(_props(schema).get(root) or {}, root)]
    facts.through_replicasets = rolls_out_through_replicasets(schema)
    facts.replicas_at_root = _first(root_spec, ("spec",), ("replicas",), ("integer",))
    # Where no pod definition is found, a count under .spec still says how many pods (a VM pool, a node set).
    facts.count_at_root = _first(root_spec, ("spec",), REPLICA_NAMES, ("integer",)) or described_count(
        root_spec, ("spec",)
    )
    # A role the spec configures as an object of its own (``.spec.frontend``) may have its own status beside it.
    roles = frozenset(name for name, node in _props(root_spec).items() if isinstance(node, dict) and _props(node))
    _status_fields(facts, _props(schema).get("status") or {}, roles)
    facts.annotation_switches = _described_annotations(schema)
    _printer_columns(facts, entry.get("additionalPrinterColumns") or spec.get("additionalPrinterColumns"))
    _kind_markers(facts, root_spec)
    for part in ("spec", "status"):
        node = _props(schema).get(part)
        if not isinstance(node, dict) or (node.get("x-kubernetes-preserve-unknown-fields") and not _props(node)):
            facts.untyped.append(f".{part}")
    if not schema:
        facts.untyped = [".spec", ".status"]
    return facts


def add_api_values(
    facts: SchemaFacts, phases: dict[Segments, list[tuple[str, str]]], conditions: list[tuple[str, str]]
) -> list[str]:
    """Add what the operator's API types declare (gosource.py) to what the schema says: the values of each
    status field the schema has (as if it enumerated them, with where each is declared) and the condition
    types. Returns a warning per declared field the CRD's status does not have (another version's types?)."""
    warnings = []
    open_status = ".status" in facts.untyped
    for segments, values in phases.items():
        if segments not in facts.status_paths and not open_status:
            warnings.append(f"the API types declare {schema_path(segments)}, which the CRD's status does not have")
            continue
        known = next((f for f in facts.phases if f.segments == segments), None)
        if known is not None and known.enum:
            listed = set(known.enum)
            facts.api_evidence.update(((segments, v), where) for v, where in values if v in listed)
            continue
        schema: dict[str, Any] = dict(known.schema) if known is not None else {"type": "string"}
        schema["enum"] = list(dict.fromkeys(v for v, _ in values))
        if known is not None:
            facts.phases.remove(known)
        facts.phases.append(Field(segments, schema))
        facts.api_evidence.update(((segments, v), where) for v, where in values)
    facts.phases.sort(key=lambda f: (len(f.segments), not f.enum))
    facts.api_conditions = [c for c in conditions if c[0] not in facts.condition_types]
    return warnings
