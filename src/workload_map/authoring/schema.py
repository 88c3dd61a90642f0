"""Reading a CRD's openAPIV3Schema for what a definition needs: pod definitions, counts, suspend, status.

The walk is structural, never by framework name: a PodSpec is an object with a ``containers`` list of
container-shaped objects; a PodTemplateSpec is an object whose ``spec`` is a PodSpec; lists and maps
on the way (``workerGroupSpecs[]``, ``pytorchReplicaSpecs{}``) make one instance per item. What the
schema hides (``x-kubernetes-preserve-unknown-fields``) is left to the samples (``samples.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from workload_map.authoring.evidence import ARRAY, MAP, Segments, schema_path

# Integer fields beside a pod definition that count its pods, most telling first.
REPLICA_NAMES = ("replicas", "replicaCount", "numReplicas", "numWorkers", "workers", "count", "size")
MIN_NAMES = ("minReplicas", "minAvailable", "minMember", "minSize", "minWorkers")
MAX_NAMES = ("maxReplicas", "maxSize", "maxWorkers")
# Multiplies the replica count: one pod per host of a multi-host replica (KubeRay's numOfHosts).
HOSTS_NAMES = ("numOfHosts", "hostsPerReplica", "numHosts")
ID_NAMES = ("name", "groupName", "replicaName", "taskName", "roleName")
SUSPEND_BOOLEANS = ("suspend", "suspended", "paused", "stopped", "stop")
READY_NAMES = ("readyReplicas", "availableReplicas", "readyWorkers", "readyPods")
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
    metadata: bool = False  # a PodSpec with an ObjectMeta beside it (``metadata`` sibling of ``spec``)

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


def _props(node: Any) -> dict[str, Any]:
    if not isinstance(node, dict):
        return {}
    props = node.get("properties")
    return props if isinstance(props, dict) else {}


def is_container(node: Any) -> bool:
    props = _props(node)
    return "image" in props and ("name" in props or "command" in props or "args" in props)


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


def _fill_counts(site: Site, schema: dict[str, Any]) -> None:
    """Counts beside the pod definition: on the role object, else on the innermost collection item."""
    # A template object with fields of its own (Dask's worker: {replicas, spec}) holds its counts itself.
    candidates = [site.segments, site.role] if site.form == "template" else [site.role]
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
    if last_collection >= 0 and site.segments[last_collection] == ARRAY:
        item = site.segments[: last_collection + 1]
        site.instance_id = _first(_node_at(schema, item), item, ID_NAMES, ("string",))


def _job_template(schema: dict[str, Any], segments: Segments) -> Segments | None:
    """The JobTemplateSpec a pod template sits in (``<x>.template.spec.template``), if any."""
    if len(segments) >= 3 and segments[-2:] == ("spec", "template"):
        job_spec = _node_at(schema, segments[:-1])
        if {"parallelism", "completions"} & set(_props(job_spec)):
            return segments[:-2]
    return None


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
            if site.job is not None:
                site.role = site.job[:-1]
            found.append(site)
            return
        if is_pod_spec(node):
            found.append(Site(segments, "podspec", source, role=segments[:-1]))
            return
        if node.get("type") == "array" and is_container(node.get("items")):
            found.append(Site(segments, "containers", source, role=segments[:-1]))
            return
        for child_segments, child, _required in _children(node, segments):
            walk(child, child_segments, depth + 1)

    walk(_node_at(schema, start), start, 0)
    for site in found:
        _fill_counts(site, schema)
    return found


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


def _suspend_fields(spec: dict[str, Any]) -> list[tuple[Field, str, str]]:
    out: list[tuple[Field, str, str]] = []
    for found in _walk_fields(spec, ("spec",)):
        name = found.segments[-1]
        if found.schema.get("type") == "boolean" and name in SUSPEND_BOOLEANS:
            out.append((found, "true", "false"))
        elif found.schema.get("type") == "string" and found.enum:
            stop = [v for v in found.enum if v.lower() in ("suspended", "suspend", "stopped", "paused")]
            run = [v for v in found.enum if v.lower() in ("running", "run", "started", "active")]
            if stop and run:
                out.append((found, f'"{stop[0]}"', f'"{run[0]}"'))
    # Shallowest first: `.spec.suspend` before `.spec.runPolicy.suspend`.
    return sorted(out, key=lambda entry: len(entry[0].segments))


def _status_fields(facts: SchemaFacts, status: dict[str, Any]) -> None:
    for found in _walk_fields(status, ("status",)):
        name = found.segments[-1]
        schema = found.schema
        if name == "conditions" and schema.get("type") == "array" and facts.conditions is None:
            items = schema.get("items") or {}
            type_schema = _props(items).get("type")
            if isinstance(type_schema, dict):
                facts.conditions = found
                enum = type_schema.get("enum")
                facts.condition_types = [str(v) for v in enum] if isinstance(enum, list) else []
        elif schema.get("type") == "integer" and len(found.segments) == 2 and name in READY_NAMES:
            facts.ready_counts.append(found)
        elif (
            schema.get("type") == "string"
            and "conditions" not in found.segments
            and (name in PHASE_NAMES or name.endswith(("Phase", "State", "Status")))
        ):
            facts.phases.append(found)
    facts.phases.sort(key=lambda f: (len(f.segments), not f.enum))


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
    )
    facts.sites = find_sites(schema)
    root_spec = _props(schema).get("spec") or {}
    facts.suspend = _suspend_fields(root_spec)
    facts.replicas_at_root = _first(root_spec, ("spec",), ("replicas",), ("integer",))
    _status_fields(facts, _props(schema).get("status") or {})
    for part in ("spec", "status"):
        node = _props(schema).get(part)
        if not isinstance(node, dict) or (node.get("x-kubernetes-preserve-unknown-fields") and not _props(node)):
            facts.untyped.append(f".{part}")
    if not schema:
        facts.untyped = [".spec", ".status"]
    return facts
