"""What the live model keeps of each object.

Pods are most of a cluster's objects and most of each pod is never read: volumes, env, probes, commands,
managed fields, image digests. A pod keeps the fields resolution, trees, gang plans and effective requests
read (``resolve/pods.py``, ``resolve/resources.py``, ``gang/``): identity and ownership, scheduling fields,
per-container resources, and the status the pod state is computed from. Only pods with an owner are
projected: a bare pod is a workload whose tree shows the whole pod (a pod whose owner is gone from the
cluster shows its projected form there). Workload objects are kept whole
but for ``managedFields`` and kubectl's last-applied annotation, because definitions read arbitrary paths
of them. ``tests/live/test_projection.py`` checks that every tree is the same with projected objects.
"""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]

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
    "generation",
    "generateName",
)
_POD_SPEC = (
    "nodeName",
    "schedulerName",
    "priorityClassName",
    "priority",
    "nodeSelector",
    "affinity",
    "tolerations",
    "overhead",
    "restartPolicy",
    "resourceClaims",
    "resources",
    "runtimeClassName",
    "hostname",
    "subdomain",
)
_CONTAINER = ("name", "resources", "restartPolicy")
_POD_STATUS = ("phase", "reason", "message", "nominatedNodeName", "startTime", "qosClass", "resize")
_CONDITION = ("type", "status", "reason", "message", "lastTransitionTime")
_CONTAINER_STATUS = ("name", "ready", "started", "restartCount", "state", "lastState", "allocatedResources")


def _pick(source: Any, keys: tuple[str, ...]) -> Obj:
    if not isinstance(source, dict):
        return {}
    return {key: source[key] for key in keys if key in source}


def _metadata(obj: Obj) -> Obj:
    metadata = _pick(obj.get("metadata"), _METADATA)
    annotations = metadata.get("annotations")
    if isinstance(annotations, dict) and LAST_APPLIED in annotations:
        metadata["annotations"] = {k: v for k, v in annotations.items() if k != LAST_APPLIED}
    return metadata


def _list_of(source: Any, keys: tuple[str, ...]) -> list[Obj]:
    return [_pick(item, keys) for item in source] if isinstance(source, list) else []


def project_pod(pod: Obj) -> Obj:
    """The fields of a pod that resolution reads (see the module docstring)."""
    raw_spec, raw_status = pod.get("spec"), pod.get("status")
    spec: Obj = raw_spec if isinstance(raw_spec, dict) else {}
    status: Obj = raw_status if isinstance(raw_status, dict) else {}
    out_spec = _pick(spec, _POD_SPEC)
    for key in ("containers", "initContainers"):
        if key in spec:
            out_spec[key] = _list_of(spec[key], _CONTAINER)
    out_status = _pick(status, _POD_STATUS)
    if "conditions" in status:
        out_status["conditions"] = _list_of(status["conditions"], _CONDITION)
    for key in ("containerStatuses", "initContainerStatuses"):
        if key in status:
            out_status[key] = _list_of(status[key], _CONTAINER_STATUS)
    return {
        "apiVersion": pod.get("apiVersion", "v1"),
        "kind": pod.get("kind", "Pod"),
        "metadata": _metadata(pod),
        "spec": out_spec,
        "status": out_status,
    }


def project(obj: Obj) -> Obj:
    """A pod that has an owner projected; any other object (a bare pod is a workload of its own, whose
    tree shows the pod as its template) without its managed fields and last-applied annotation."""
    metadata = obj.get("metadata")
    owned = isinstance(metadata, dict) and bool(metadata.get("ownerReferences"))
    if owned and obj.get("kind") == "Pod" and obj.get("apiVersion") in ("v1", None):
        return project_pod(obj)
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict) or not (
        "managedFields" in metadata or LAST_APPLIED in (metadata.get("annotations") or {})
    ):
        return obj
    out = dict(obj)
    trimmed = {k: v for k, v in metadata.items() if k != "managedFields"}
    annotations = trimmed.get("annotations")
    if isinstance(annotations, dict) and LAST_APPLIED in annotations:
        trimmed["annotations"] = {k: v for k, v in annotations.items() if k != LAST_APPLIED}
    out["metadata"] = trimmed
    return out
