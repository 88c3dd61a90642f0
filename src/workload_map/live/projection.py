"""What the live model keeps of each object.

Pods are most of a cluster's objects and most of each pod is never read: volumes, env, probes, commands,
tolerations, managed fields, image digests. An owned pod keeps what the code above the store reads of it
(``resolve/pods.py``'s state and placement, ``resolve/resources.py``'s requests, ``gang/``'s priority
class, ``tree``'s pod rows): identity, labels, annotations and ownership, the node, per-container resources,
and the status the pod state is computed from; plus whatever the definitions' own pod expressions (pod
selectors, gang filters and group keys) may read, found statically by ``jq.reads.input_reads``. When one
of them may read anything (``tojson``, ``..``), pods are kept whole. The built-in catalog's expressions
read only labels, annotations and the name.

Only pods with an owner are projected: a bare pod is a workload whose tree shows the whole pod (a pod
whose owner is gone from the cluster shows its projected form there). Workload objects are kept whole
but for ``managedFields`` and kubectl's last-applied annotation, because definitions read arbitrary paths
of them. ``tests/live_model/test_projection.py`` checks that every tree is the same with projected objects.
"""

from __future__ import annotations

import pathlib
import sys
from collections.abc import Callable, Iterable
from types import GenericAlias
from typing import TYPE_CHECKING, Any, TypedDict

from workload_map.base import cache
from workload_map.base.model import Model
from workload_map.definition.expressions import Target, iter_expressions
from workload_map.jq.reads import input_reads

if TYPE_CHECKING:
    from workload_map.definition.model import LoadedDefinition

from workload_map.base.objects import Obj

Path = tuple[str, ...]  # a path in an object: keys from its root

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_METADATA = (
    "name",
    "namespace",
    "uid",
    "labels",
    "annotations",
    "ownerReferences",
    "creationTimestamp",
    "deletionTimestamp",
    "resourceVersion",
)
_POD_SPEC = ("nodeName", "priorityClassName", "overhead", "resources", "resourceClaims")
_CONTAINER = ("name", "resources", "restartPolicy")
_POD_STATUS = ("phase", "reason", "message")
_CONDITION = ("type", "status", "reason", "message")
_CONDITION_TYPES = ("Ready", "PodScheduled")  # the pod state reads no other
_CONTAINER_STATUS = ("name", "restartCount", "state", "lastState")
_TERMINATED = ("reason", "exitCode", "finishedAt", "message")
# What the base projection builds from parts of a value: a pod expression reading these gets them whole.
_PARTIAL = frozenset(
    {
        ("spec", "containers"),
        ("spec", "initContainers"),
        ("status", "conditions"),
        ("status", "containerStatuses"),
    }
)


def _pick(source: Any, keys: tuple[str, ...]) -> Obj:
    if not isinstance(source, dict):
        return {}
    return {key: _interned(source[key]) if key not in _UNIQUE else source[key] for key in keys if key in source}


# Texts of one object alone: interning them would only fill the intern table.
_UNIQUE = frozenset({"name", "uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "message"})


def _interned(value: Any) -> Any:
    """Short texts shared across pods (namespaces, condition types and reasons, label values of one
    workload, owner references, quantities) as one string each: a pod's projection was ~1/3 strings."""
    kind = type(value)
    if kind is str:
        return sys.intern(value) if len(value) <= 64 else value
    if kind is dict:
        return {k: _interned(v) for k, v in value.items()}
    if kind is list:
        return [_interned(v) for v in value]
    return value


def _metadata(obj: Obj) -> Obj:
    metadata = _pick(obj.get("metadata"), _METADATA)
    annotations = metadata.get("annotations")
    if isinstance(annotations, dict) and LAST_APPLIED in annotations:
        metadata["annotations"] = {k: v for k, v in annotations.items() if k != LAST_APPLIED}
    return metadata


def _list_of(source: Any, keys: tuple[str, ...]) -> list[Obj]:
    return [_pick(item, keys) for item in source] if isinstance(source, list) else []


def _container_status(status: Any) -> Obj:
    out = _pick(status, _CONTAINER_STATUS)
    # Only a waiting container's reason and message and how a container ended are read (the pod's problem).
    for where in ("state", "lastState"):
        state = out.get(where)
        if isinstance(state, dict):
            kept: Obj = {}
            if "waiting" in state and where == "state":
                kept["waiting"] = state["waiting"]
            if isinstance(state.get("terminated"), dict):
                kept["terminated"] = _pick(state["terminated"], _TERMINATED)
            out[where] = kept
    return out


def project_pod(pod: Obj, extra: Iterable[Path] = ()) -> Obj:
    """The fields of a pod that resolution reads (see the module docstring), plus the ``extra`` paths
    (whole) that pod expressions read."""
    raw_spec, raw_status = pod.get("spec"), pod.get("status")
    spec: Obj = raw_spec if isinstance(raw_spec, dict) else {}
    status: Obj = raw_status if isinstance(raw_status, dict) else {}
    out_spec = _pick(spec, _POD_SPEC)
    for key in ("containers", "initContainers"):
        if key in spec:
            out_spec[key] = _list_of(spec[key], _CONTAINER)
    out_status = _pick(status, _POD_STATUS)
    conditions = status.get("conditions")
    if isinstance(conditions, list):
        kept = [c for c in conditions if isinstance(c, dict) and c.get("type") in _CONDITION_TYPES]
        out_status["conditions"] = _list_of(kept, _CONDITION)
    statuses = status.get("containerStatuses")
    if isinstance(statuses, list):
        out_status["containerStatuses"] = [_container_status(s) for s in statuses]
    out = {
        "apiVersion": pod.get("apiVersion", "v1"),
        "kind": pod.get("kind", "Pod"),
        "metadata": _metadata(pod),
        "spec": out_spec,
        "status": out_status,
    }
    for path in extra:
        section = path[0]
        source = pod.get(section)
        if len(path) == 1:
            if section == "metadata":
                out[section] = _trimmed(pod)["metadata"]
            elif section in pod:
                out[section] = source
        elif isinstance(source, dict) and path[1] in source:
            target = out.setdefault(section, {})
            if isinstance(target, dict):
                target[path[1]] = source[path[1]]
    return out


def _trimmed(obj: Obj) -> Obj:
    """The object without its managed fields and last-applied annotation."""
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        return obj
    annotations = metadata.get("annotations")
    if not ("managedFields" in metadata or (isinstance(annotations, dict) and LAST_APPLIED in annotations)):
        return obj
    out = dict(obj)
    trimmed = {k: v for k, v in metadata.items() if k != "managedFields"}
    if isinstance(annotations, dict) and LAST_APPLIED in annotations:
        trimmed["annotations"] = {k: v for k, v in annotations.items() if k != LAST_APPLIED}
    out["metadata"] = trimmed
    return out


def _owned_pod(obj: Obj) -> bool:
    metadata = obj.get("metadata")
    owned = isinstance(metadata, dict) and bool(metadata.get("ownerReferences"))
    return owned and obj.get("kind") == "Pod" and obj.get("apiVersion") in ("v1", None)


class Projection(Model, kw_only=False):
    """What to keep of each object, for one set of definitions (``projection_for``)."""

    whole_pods: bool = False  # a pod expression may read any part of a pod
    extra: frozenset[Path] = frozenset()  # pod paths pod expressions read beyond the base projection

    def __call__(self, obj: Obj) -> Obj:
        """An owned pod projected; any other object (a bare pod is a workload of its own, whose tree shows
        the pod as its template) without its managed fields and last-applied annotation."""
        if _owned_pod(obj) and not self.whole_pods:
            return project_pod(obj, self.extra)
        return _trimmed(obj)

    def whole(self, obj: Obj) -> Obj:
        """The object without its managed fields and last-applied annotation, a pod too."""
        return _trimmed(obj)


def pod_decoder(projection: Projection) -> Callable[[bytes | memoryview], Obj | None] | None:
    """``projection`` of an owned pod straight from its JSON text: the text parsed by msgspec into only
    the fields the projection keeps (a TypedDict per level; every other field is skipped, never built),
    then projected as ``project_pod`` does. None when pods are kept whole; the function gives None for a
    pod it cannot take (a bare pod, a field of an unexpected type, text that is not one JSON object): the
    caller then parses the text whole and projects it as before.

    Measured on the generated 1,000-workload dump (18,881 pods, 58 MB of the 91 MB): orjson + project_pod
    1.01-1.11 s CPU, msgspec into these types 0.31-0.35 s, + project_pod 0.66 s; orjson has no way to skip
    fields. msgspec reads numbers and strings as orjson does (big integers exact); a dump with a long
    integer is read by the exact path, never through here."""
    if projection.whole_pods:
        return None
    import msgspec  # noqa: PLC0415 (only when a large JSON dump is read: ~10 ms of imports (typing_extensions, decimal))

    decoder = msgspec.json.Decoder(_pod_type(projection.extra))
    extra = projection.extra
    error = msgspec.MsgspecError

    def decode(text: bytes | memoryview) -> Obj | None:
        try:
            pod = decoder.decode(text)
        except error:
            return None
        if not _owned_pod(pod):
            return None
        return project_pod(pod, extra) if extra else _project_decoded(pod)

    return decode


def typed_dict(name: str, fields: dict[str, Any]) -> Any:
    """A TypedDict class made at run time (msgspec then parses only these keys); every key optional."""
    make: Any = TypedDict  # mypy checks only literal TypedDict calls; these fields are computed
    return make(name, fields, total=False)


def _project_decoded(pod: Obj) -> Obj:
    """``project_pod(pod)`` (no extra paths) of a pod parsed into ``_pod_type``: its dicts hold only the
    kept keys already, so it is done in place (about half of project_pod's time, which builds every dict
    anew): short texts interned, conditions other than those the pod state reads dropped, kubectl's
    last-applied annotation dropped."""
    metadata = pod.setdefault("metadata", {})
    for key, value in metadata.items():
        if key not in _UNIQUE:
            metadata[key] = _interned_in_place(value)
    annotations = metadata.get("annotations")
    if isinstance(annotations, dict):
        annotations.pop(LAST_APPLIED, None)
    spec = pod.setdefault("spec", {})
    for key, value in spec.items():
        if key in ("containers", "initContainers"):
            for container in value:
                _intern_values(container)
        else:
            spec[key] = _interned_in_place(value)
    status = pod.setdefault("status", {})
    for key, value in status.items():
        if key == "conditions":
            status[key] = [_intern_values(c) for c in value if c.get("type") in _CONDITION_TYPES]
        elif key == "containerStatuses":
            for container_status in value:
                _intern_values(container_status)
        else:
            status[key] = _interned_in_place(value)
    pod.setdefault("apiVersion", "v1")
    pod.setdefault("kind", "Pod")
    return pod


def _intern_values(item: Obj) -> Obj:
    """_pick's interning, in place, of a dict that holds only kept keys."""
    for key, value in item.items():
        if key not in _UNIQUE:
            item[key] = _interned_in_place(value)
    return item


def _interned_in_place(value: Any) -> Any:
    """``_interned`` without copying: for values parsed just now, that nothing else holds."""
    kind = type(value)
    if kind is str:
        return sys.intern(value) if len(value) <= 64 else value
    if kind is dict:
        for key, child in value.items():
            value[key] = _interned_in_place(child)
    elif kind is list:
        for index, child in enumerate(value):
            value[index] = _interned_in_place(child)
    return value


def _pod_type(extra: frozenset[Path]) -> Any:
    """The TypedDict of what project_pod reads of a pod, with the ``extra`` paths whole."""
    whole: dict[str, Any] = {}

    def typed(name: str, keys: Iterable[str], nested: dict[str, Any] | None = None) -> Any:
        fields = {key: (nested or {}).get(key, Any) for key in keys}
        for path in extra:
            if path[0] == name and len(path) >= 2:
                fields[path[1]] = Any  # read whole by a pod expression
        return typed_dict(f"Pod_{name}", fields)

    container = typed_dict("Container", dict.fromkeys(_CONTAINER, Any))
    condition = typed_dict("Condition", dict.fromkeys(_CONDITION, Any))
    # Of a container's state only what _container_status keeps: a waiting reason, how it ended.
    terminated = typed_dict("Terminated", dict.fromkeys(_TERMINATED, Any))
    states = {
        "state": typed_dict("ContainerState", {"waiting": Any, "terminated": terminated}),
        "lastState": typed_dict("LastState", {"terminated": terminated}),
    }
    container_status = typed_dict("ContainerStatus", dict.fromkeys(_CONTAINER_STATUS, Any) | states)
    sections = {
        "metadata": typed("metadata", _METADATA),
        "spec": typed(
            "spec",
            (*_POD_SPEC, "containers", "initContainers"),
            {"containers": GenericAlias(list, container), "initContainers": GenericAlias(list, container)},
        ),
        "status": typed(
            "status",
            (*_POD_STATUS, "conditions", "containerStatuses"),
            {"conditions": GenericAlias(list, condition), "containerStatuses": GenericAlias(list, container_status)},
        ),
    }
    for path in extra:
        if len(path) == 1 or path[0] not in sections:
            whole[path[0]] = Any  # project_pod picks its part
    fields = {"apiVersion": Any, "kind": Any, **sections, **whole}
    return typed_dict("Pod", fields)


def pod_expressions(definitions: Iterable[LoadedDefinition]) -> list[str]:
    """Every jq expression of the definitions that runs on pods: pod selectors, gang filters and keys."""

    return [ref.expression for d in definitions for ref in iter_expressions(d.karta) if ref.target is Target.POD]


def _kept(path: Path) -> bool:
    """Whether the base projection keeps ``path`` whole."""
    if path in (("apiVersion",), ("kind",)):
        return True
    if len(path) < 2 or path in _PARTIAL:
        return False
    section, key = path[0], path[1]
    if section == "metadata":
        return key in _METADATA
    if section == "spec":
        return key in _POD_SPEC
    return section == "status" and key in _POD_STATUS


def projection_for(definitions: Iterable[LoadedDefinition]) -> Projection:
    """The projection that keeps what ``definitions``' pod expressions read; remembered in the on-disk
    cache by the expressions' texts, so a one-shot command never loads the jq parser for it."""
    from workload_map.definition.compiled import fingerprint  # noqa: PLC0415 (the compiled-definition cache only when definitions load)

    expressions = sorted(set(pod_expressions(definitions)))
    here = pathlib.Path(__file__).resolve()
    code = [f"{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in (here, here.parent.parent / "jq" / "reads.py")]
    key = cache.key_of("pod-projection-1", fingerprint(), *code, *expressions)
    hit = cache.load(key)
    if isinstance(hit, Projection):
        return hit
    projection = _projection(expressions)
    cache.store(key, projection)
    return projection


def _projection(expressions: Iterable[str]) -> Projection:
    extra: set[Path] = set()
    for expression in expressions:
        reads = input_reads(expression)
        if reads is None or () in reads:
            return Projection(whole_pods=True)
        extra.update(path for path in reads if not _kept(path))
    return Projection(extra=frozenset(extra))


# What the built-in catalog needs (its pod expressions read labels, annotations and the name); a model
# with other definitions uses projection_for(its definitions).
project = Projection()
