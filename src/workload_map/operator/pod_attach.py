"""The pod attachment webhook (opt-in per namespace, beside the gang controller).

The webhook (``/mutate-pod``, every replica) attaches a pod being created to its group: it resolves the
pod's owners with the API (controller references, bounded depth, cached), computes the pod's group with the
same library on the pod object of the AdmissionReview, and adds the label/annotation the scheduler reads
(and ``schedulerName: volcano`` for Volcano when the pod asks for the default scheduler).
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from workload_map import LoadedDefinition, emit_pod_groups
from workload_map.operator.admission import response
from workload_map.operator.cluster_definitions import GroupKind
from workload_map.operator.gang import DEFAULT_SCHEDULER, MAX_OWNER_DEPTH, _controller_ref, _meta, scheduler_for
from workload_map.ports.definitions import DefinitionRegistry
from workload_map.ports.gang import VOLCANO, WorkloadGangs
from workload_map.ports.kube import (
    ClusterError,
    Connection,
    Discovery,
    ServedResource,
    discover,
    gang_root_kinds,
    resource_path,
)
from workload_map.ports.objects import group_of

# The gang controller's logger: these parts were one module and log consumers filter on its name.
log = logging.getLogger("workload_map.operator.gang")


class PodAttacher:
    """``/mutate-pod``: adds the label/annotation that attaches a new pod to its gang's PodGroup."""

    def __init__(
        self,
        conn: Connection,
        definitions: Iterable[LoadedDefinition],
        *,
        default_scheduler: str = VOLCANO,
        ttl: float = 30.0,
        cache_size: int = 2048,
    ) -> None:
        self.conn = conn
        self._definitions: tuple[DefinitionRegistry, set[GroupKind]] = (DefinitionRegistry([]), set())
        self.set_definitions(list(definitions), set())
        self.default_scheduler = default_scheduler
        self.ttl = ttl
        self.cache_size = cache_size
        self._objects: OrderedDict[str, tuple[float, dict[str, Any]]] = OrderedDict()
        self._namespaces: dict[str, tuple[float, dict[str, Any]]] = {}
        self._discovery: tuple[float, Discovery] | None = None
        self._lock = threading.Lock()

    def set_definitions(self, definitions: list[LoadedDefinition], changed: set[GroupKind] | None = None) -> None:
        """Use new effective definitions (built-in + cluster Kartas; a :class:`ClusterDefinitions` listener)."""
        registry = DefinitionRegistry(definitions)
        # one assignment: requests in flight see one or the other
        self._definitions = (registry, gang_root_kinds(registry.definitions))

    @property
    def registry(self) -> DefinitionRegistry:
        return self._definitions[0]

    @property
    def gang_kinds(self) -> set[GroupKind]:
        return self._definitions[1]

    def _cached(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            hit = self._objects.get(key)
            if hit is None or time.monotonic() - hit[0] > self.ttl:
                return None
            self._objects.move_to_end(key)
            return hit[1]

    def _remember(self, key: str, obj: dict[str, Any]) -> None:
        with self._lock:
            self._objects[key] = (time.monotonic(), obj)
            self._objects.move_to_end(key)
            while len(self._objects) > self.cache_size:
                self._objects.popitem(last=False)

    def _served(self, group: str, kind: str) -> ServedResource | None:
        with self._lock:
            cached = self._discovery
        if cached is None or (cached[1].resource(group, kind) is None and time.monotonic() - cached[0] > self.ttl):
            cached = (time.monotonic(), discover(self.conn))
            with self._lock:
                self._discovery = cached
        return cached[1].resource(group, kind)

    def _namespace_scheduler(self, namespace: str) -> str | None:
        with self._lock:
            hit = self._namespaces.get(namespace)
        if hit is None or time.monotonic() - hit[0] > self.ttl:
            ns = self.conn.request("GET", f"/api/v1/namespaces/{namespace}", what=f"namespace {namespace}")
            hit = (time.monotonic(), ns)
            with self._lock:
                self._namespaces[namespace] = hit
        return scheduler_for(_meta(hit[1]).get("labels"), self.default_scheduler)

    def owner(self, namespace: str, ref: dict[str, Any]) -> dict[str, Any] | None:
        """GET an owner by reference (cached by uid); None when it is gone or not what the reference says."""
        uid = str(ref.get("uid") or "")
        obj = self._cached(uid)
        if obj is not None:
            return obj
        api_version = str(ref.get("apiVersion") or "")
        group, version = api_version.rsplit("/", 1) if "/" in api_version else ("", api_version)
        res = self._served(group, str(ref.get("kind") or ""))
        if res is None or not res.namespaced:
            return None
        try:
            obj = self.conn.request(
                "GET",
                resource_path(group, version, res.plural, namespace, str(ref.get("name") or "")),
                what=f"owner {ref.get('kind')}/{ref.get('name')}",
            )
        except ClusterError as exc:
            # 403: a kind the operator's role does not read is, by construction of that role
            # (workload_map.sources.kube.access), neither a gang workload nor on the owner chain of one.
            if exc.status in (403, 404):
                return None
            raise
        if _meta(obj).get("uid") != uid:
            return None
        obj.setdefault("apiVersion", api_version)
        obj.setdefault("kind", ref.get("kind"))
        self._remember(uid, obj)
        return dict(obj)

    def owners(self, namespace: str, pod: dict[str, Any]) -> list[dict[str, Any]]:
        chain: list[dict[str, Any]] = []
        current = pod
        for _ in range(MAX_OWNER_DEPTH):
            ref = _controller_ref(current)
            if ref is None:
                break
            owner = self.owner(namespace, ref)
            if owner is None:
                break
            chain.append(owner)
            current = owner
        return chain

    def attachment_for(self, namespace: str, pod: dict[str, Any], scheduler: str) -> Any:
        """The attachment of the pod's group, or None (not in a gang workload, or the pod cannot be grouped)."""
        registry, gang_kinds = self._definitions
        chain = self.owners(namespace, pod)
        covered = [o for o in chain if (group_of(str(o.get("apiVersion") or "")), o.get("kind")) in gang_kinds]
        if not covered:
            return None
        workload = covered[-1]
        gangs = WorkloadGangs(registry, [*chain, pod])
        found = gangs.find(_meta(workload).get("uid"))
        if found is None:
            return None
        plan = gangs.plan(found)
        name = _meta(pod)["name"]
        emission = emit_pod_groups(plan, scheduler)
        attachment = next((a for a in emission.attachments if name in a.pods), None)
        if attachment is None:
            reasons = [e.message for e in plan.errors] or emission.warnings or plan.warnings
            log.info("pod not attached", extra={"namespace": namespace, "pod": name, "reasons": reasons[:5]})
        return attachment

    def mutate(self, request: dict[str, Any]) -> dict[str, Any]:
        uid = str(request.get("uid", ""))
        if request.get("operation") != "CREATE" or (request.get("kind") or {}).get("kind") != "Pod":
            return response(uid, True)
        namespace = str(request.get("namespace") or "")
        obj = request.get("object") or {}
        try:
            scheduler = self._namespace_scheduler(namespace)
            if scheduler is None:
                return response(uid, True)
            pod = copy.deepcopy(obj)
            meta = pod.setdefault("metadata", {})
            meta["namespace"] = namespace
            # Not created yet: no name when generateName is used, no uid.
            meta["name"] = meta.get("name") or f"{meta.get('generateName') or 'pod-'}<new>"
            meta["uid"] = f"admission-{uid}"
            pod.setdefault("status", {})["phase"] = "Pending"
            attachment = self.attachment_for(namespace, pod, scheduler)
        except Exception as exc:  # never block a pod: the configuration's failurePolicy is Ignore anyway
            log.warning("pod webhook failed", extra={"namespace": namespace, "error": str(exc)})
            return response(uid, True, warnings=[f"workload-map: pod not attached to a gang: {exc}"[:256]])
        if attachment is None:
            return response(uid, True)
        patch = pod_patch(obj, attachment.labels, attachment.annotations, attachment.spec)
        log.info("pod attached", extra={"namespace": namespace, "pod": meta["name"], "podgroup": attachment.group})
        return response(uid, True, patch=patch)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def pod_patch(
    pod: dict[str, Any], labels: dict[str, str], annotations: dict[str, str], spec: dict[str, Any]
) -> list[dict[str, Any]]:
    """JSON patch adding labels/annotations and the scheduler name (only over the default scheduler)."""
    ops: list[dict[str, Any]] = []
    meta = _meta(pod)
    for field_name, values in (("labels", labels), ("annotations", annotations)):
        if not values:
            continue
        current = meta.get(field_name)
        if not isinstance(current, dict):
            ops.append({"op": "add", "path": f"/metadata/{field_name}", "value": dict(values)})
            continue
        for k, v in values.items():
            if current.get(k) != v:
                ops.append({"op": "add", "path": f"/metadata/{field_name}/{_escape(k)}", "value": v})
    scheduler = spec.get("schedulerName")
    current_scheduler = (pod.get("spec") or {}).get("schedulerName")
    if scheduler and current_scheduler in (None, "", DEFAULT_SCHEDULER) and "spec" in pod:
        ops.append({"op": "add", "path": "/spec/schedulerName", "value": scheduler})
    return ops
