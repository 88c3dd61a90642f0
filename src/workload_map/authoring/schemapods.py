"""The pod definitions of a CRD's schema (schema.py) and the counts beside them.

The walk is structural, never by framework name: a PodSpec is an object with a ``containers`` list of
container-shaped objects; a PodTemplateSpec is an object whose ``spec`` is a PodSpec; lists and maps
on the way (``workerGroupSpecs[]``, ``pytorchReplicaSpecs{}``) make one instance per item. What the
schema hides (``x-kubernetes-preserve-unknown-fields``) is left to the samples (``samples.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from workload_map.authoring.evidence import ARRAY, MAP, Segments
from workload_map.authoring.schemafacts import (
    GROUP_SIZE_NAMES,
    HOSTS_NAMES,
    ID_NAMES,
    MAX_NAMES,
    MIN_NAMES,
    REPLICA_NAMES,
    SHARD_NAMES,
    SHARD_PRODUCT,
    Field,
    Site,
    _node_at,
    _props,
)

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
