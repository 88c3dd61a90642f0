"""The gang controller (opt-in per namespace).

A namespace opts in with the label ``workload-map.run.ai/gang-controller: volcano|coscheduling`` (``true``
or an empty value picks the operator's default scheduler). For every top-level workload of a kind the
definitions cover (with ``gangScheduling`` instructions; bare pods excepted) in such a namespace, the
controller computes the pod groups with :mod:`workload_map.gang` and server-side applies the Volcano or
scheduler-plugins coscheduling ``PodGroup`` objects (field manager ``workload-map``), owned by the workload
(``ownerReferences`` with its uid: the cluster's garbage collector deletes them with the workload). It also
deletes the groups it made that it no longer wants: a workload that is gone (so groups go away even where no
garbage collector runs), a group renamed by a changed key, a namespace that opted out or changed scheduler.

Watches (list + watch, per opted-in namespace): the covered workload kinds, the kinds between them and their
pods, the pods, and the PodGroups it manages. Events are debounced per workload (one reconcile per workload
per ``debounce`` seconds at most); a reconcile plans over the namespace's cached objects
(``ports.gang.WorkloadGangs``), so it costs no API read.
The pod webhook that attaches new pods to these groups is :mod:`workload_map.operator.pod_attach`.
"""

from __future__ import annotations

import copy
import json
import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from workload_map import LoadedDefinition, emit_pod_groups
from workload_map.operator.cluster_definitions import ClusterDefinitions, GroupKind
from workload_map.operator.controller import WorkQueue
from workload_map.operator.kube import NAMESPACES, list_watch
from workload_map.ports.definitions import FIELD_MANAGER, DefinitionRegistry
from workload_map.ports.gang import COSCHEDULING, VOLCANO, WorkloadGangs, gang_definitions
from workload_map.ports.kube import (
    ClusterError,
    Connection,
    ServedResource,
    discover,
    gang_root_kinds,
    plan_lists,
    resource_path,
    unlisted,
)
from workload_map.ports.objects import group_of

log = logging.getLogger("workload_map.operator.gang")

NAMESPACE_LABEL = "workload-map.run.ai/gang-controller"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY = "workload-map"
WORKLOAD_UID_LABEL = "workload-map.run.ai/workload-uid"
SCHEDULERS = (VOLCANO, COSCHEDULING)
POD_GROUP_APIS = {VOLCANO: ("scheduling.volcano.sh", "v1beta1"), COSCHEDULING: ("scheduling.x-k8s.io", "v1alpha1")}
APPLY_PATCH = "application/apply-patch+yaml"
MAX_OWNER_DEPTH = 6
DEFAULT_SCHEDULER = "default-scheduler"


def scheduler_for(labels: dict[str, Any] | None, default: str) -> str | None:
    """The scheduler a namespace's opt-in label asks for; None when it does not opt in (or names no
    supported scheduler)."""
    value = (labels or {}).get(NAMESPACE_LABEL)
    if value is None:
        return None
    value = str(value).strip().lower()
    if value in ("", "true"):
        return default
    return value if value in SCHEDULERS else None


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    m = obj.get("metadata")
    return m if isinstance(m, dict) else {}


def _controller_ref(obj: dict[str, Any]) -> dict[str, Any] | None:
    refs = [r for r in _meta(obj).get("ownerReferences") or [] if isinstance(r, dict) and r.get("uid")]
    return next((r for r in refs if r.get("controller")), refs[0] if refs else None)


def desired_objects(emission_objects: list[dict[str, Any]], uid: str) -> list[dict[str, Any]]:
    """The emitted PodGroups with the labels the controller finds its own objects by."""
    out = []
    for emitted in emission_objects:
        obj = copy.deepcopy(emitted)
        labels = obj["metadata"].setdefault("labels", {})
        labels[MANAGED_BY_LABEL] = MANAGED_BY
        labels[WORKLOAD_UID_LABEL] = uid
        out.append(obj)
    return out


def plan_groups(
    registry: DefinitionRegistry, objects: list[dict[str, Any]], uid: str, scheduler: str
) -> tuple[list[dict[str, Any]], list[str]]:
    """The PodGroups a workload (by uid) of ``objects`` needs; none unless it is a top-level gang workload."""
    gangs = WorkloadGangs(registry, objects)
    workload = gangs.find(uid)
    if workload is None or _meta(workload).get("deletionTimestamp") or not gangs.is_top_level(workload):
        return [], []
    definition, _ = registry.for_object(workload)
    if definition is None or not gang_definitions([definition]):
        return [], []
    plan = gangs.plan(workload)
    emission = emit_pod_groups(plan, scheduler)
    notes = [*plan.warnings, *emission.warnings, *(f"{e.pod}: {e.message}" for e in plan.errors)]
    return desired_objects(emission.objects, uid), notes


def prune_to_schema(value: Any, schema: dict[str, Any] | None, path: str, dropped: list[str]) -> Any:
    """``value`` without the fields the CRD's structural schema does not declare (server-side apply refuses
    them, where a create would prune them); the dropped paths are appended to ``dropped``."""
    if not isinstance(schema, dict) or schema.get("x-kubernetes-preserve-unknown-fields"):
        return value
    if isinstance(value, dict):
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        if props is None and extra is None:
            return value
        out = {}
        for key, item in value.items():
            if props is not None and key in props:
                out[key] = prune_to_schema(item, props[key], f"{path}.{key}", dropped)
            elif isinstance(extra, dict):
                out[key] = prune_to_schema(item, extra, f"{path}.{key}", dropped)
            elif extra is True:
                out[key] = item
            else:
                dropped.append(f"{path}.{key}")
        return out
    if isinstance(value, list):
        return [prune_to_schema(item, schema.get("items"), f"{path}[]", dropped) for item in value]
    return value


@dataclass
class _Namespace:
    name: str
    scheduler: str
    stop: threading.Event = field(default_factory=threading.Event)
    objects: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)  # apiVersion, kind, name
    groups: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # apiVersion, name
    watched: set[str] = field(default_factory=set)
    pending: set[str] = field(default_factory=set)  # watches whose first list has not arrived yet
    lock: threading.Lock = field(default_factory=threading.Lock)

    def by_uid(self) -> dict[str, dict[str, Any]]:
        return {str(_meta(o).get("uid")): o for o in self.objects.values()}


class GangController:
    """Reconciles PodGroups of the workloads in opted-in namespaces (run on the leader)."""

    def __init__(
        self,
        conn: Connection,
        definitions: Iterable[LoadedDefinition],
        *,
        default_scheduler: str = VOLCANO,
        debounce: float = 1.0,
        rediscover: float = 60.0,
        workers: int = 2,
        watch_seconds: int = 300,
        cluster_definitions: ClusterDefinitions | None = None,
        definitions_timeout: float = 60.0,
    ) -> None:
        self.conn = conn
        self.definitions = list(definitions)
        self.registry = DefinitionRegistry(self.definitions)
        self.cluster_definitions = cluster_definitions
        self.definitions_timeout = definitions_timeout
        self._changed: set[GroupKind] = set()  # kinds whose definition changed, not re-planned yet
        self._rediscover_now = threading.Event()
        self.default_scheduler = default_scheduler
        self.debounce = debounce
        self.rediscover = rediscover
        self.workers = workers
        self.watch_seconds = watch_seconds
        self.queue = WorkQueue()
        self.namespaces: dict[str, _Namespace] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._resources: list[ServedResource] = []
        self._applied: dict[tuple[str, str, str], str] = {}  # (apiVersion, ns, name) -> last body sent
        self._schemas: dict[str, dict[str, Any] | None] = {}  # PodGroup apiVersion -> CRD spec schema
        self._pruned_reported: set[str] = set()
        self._namespaces_listed = threading.Event()
        self.synced = threading.Event()  # first sync done: namespaces listed and their caches filled
        self.applies = 0
        self.deletes = 0

    # -- definitions (built-in + cluster Kartas)
    def set_definitions(self, definitions: list[LoadedDefinition], changed: set[GroupKind]) -> None:
        """New effective definitions (a cluster Karta changed): re-discover what to watch and re-plan the
        workloads of the changed kinds and the workloads above their objects (on the controller's thread)."""
        with self._lock:
            self.definitions = list(definitions)
            self.registry = DefinitionRegistry(self.definitions)
            self._changed |= changed
        self._rediscover_now.set()

    def _replan_changed(self) -> None:
        with self._lock:
            changed, self._changed = self._changed, set()
            states = list(self.namespaces.values())
        if not changed:
            return
        for state in states:
            with state.lock:
                hits = [
                    o
                    for o in state.objects.values()
                    if (group_of(str(o.get("apiVersion") or "")), str(o.get("kind") or "")) in changed
                ]
            for obj in hits:
                self._enqueue_owners(state, obj, delay=0.0)
        kinds = sorted(f"{k}.{g}" if g else k for g, k in changed)
        log.info("gang controller: definitions changed, re-planning", extra={"kinds": kinds})

    def is_synced(self) -> bool:
        """True once the opted-in namespaces were listed and every watch of each of them has had its first
        list (latched: namespaces opting in later do not make the controller unready)."""
        if self.synced.is_set():
            return True
        if not self._namespaces_listed.is_set():
            return False
        with self._lock:
            states = list(self.namespaces.values())
        for state in states:
            with state.lock:
                if state.pending:
                    return False
        self.synced.set()
        return True

    # -- discovery: what to watch in each namespace
    def _discover(self) -> None:
        discovery = discover(self.conn)
        with self._lock:
            definitions, registry = self.definitions, self.registry
        plan = plan_lists(registry, discovery, kinds=gang_root_kinds(definitions))
        resources = [*plan.workloads, *plan.children, *([plan.pods] if plan.pods else [])]
        for scheduler in SCHEDULERS:
            group, version = POD_GROUP_APIS[scheduler]
            res = next((r for r in discovery.served(group, "PodGroup") if r.version == version), None)
            if res is not None:
                resources.append(res)
                self._schemas[res.api_version] = self._spec_schema(group, version)
        self._resources = [r for r in resources if r.namespaced and r.can("watch")]

    def _spec_schema(self, group: str, version: str) -> dict[str, Any] | None:
        try:
            crd = self.conn.request(
                "GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/podgroups.{group}", what="CRD"
            )
        except ClusterError as exc:
            log.warning("cannot read the PodGroup CRD schema", extra={"group": group, "error": str(exc)})
            return None
        for v in (crd.get("spec") or {}).get("versions") or []:
            if v.get("name") == version:
                schema = ((v.get("schema") or {}).get("openAPIV3Schema") or {}).get("properties") or {}
                spec = schema.get("spec")
                return spec if isinstance(spec, dict) else None
        return None

    def _is_group_resource(self, res: ServedResource) -> bool:
        return (res.group, res.version) in POD_GROUP_APIS.values() and res.kind == "PodGroup"

    # -- namespaces
    def _sync_namespaces(self, items: list[dict[str, Any]]) -> None:
        wanted = {}
        for ns in items:
            scheduler = scheduler_for(_meta(ns).get("labels"), self.default_scheduler)
            if scheduler is not None:
                wanted[str(_meta(ns)["name"])] = scheduler
        with self._lock:
            current = {n: s.scheduler for n, s in self.namespaces.items()}
        for name in set(current) - set(wanted):
            self._opt_out(name)
        for name, scheduler in wanted.items():
            if current.get(name) != scheduler:
                self._opt_in(name, scheduler)
        self._namespaces_listed.set()

    def _namespace_event(self, event: str, obj: dict[str, Any]) -> None:
        name = str(_meta(obj).get("name"))
        scheduler = None if event == "DELETED" else scheduler_for(_meta(obj).get("labels"), self.default_scheduler)
        with self._lock:
            state = self.namespaces.get(name)
        if scheduler is None:
            if state is not None:
                self._opt_out(name)
        elif state is None or state.scheduler != scheduler:
            self._opt_in(name, scheduler)

    def _opt_in(self, name: str, scheduler: str) -> None:
        with self._lock:
            old = self.namespaces.pop(name, None)
        if old is not None:
            old.stop.set()
        state = _Namespace(name, scheduler)
        with self._lock:
            self.namespaces[name] = state
        log.info("gang controller: namespace opted in", extra={"namespace": name, "scheduler": scheduler})
        # Groups for another scheduler (the label changed) are no longer wanted.
        self._delete_managed(name, keep_api=POD_GROUP_APIS[scheduler])
        self._start_watches(state)

    def _opt_out(self, name: str) -> None:
        with self._lock:
            state = self.namespaces.pop(name, None)
        if state is not None:
            state.stop.set()
        log.info("gang controller: namespace opted out", extra={"namespace": name})
        self._delete_managed(name, keep_api=None)

    def _delete_managed(self, namespace: str, keep_api: tuple[str, str] | None) -> None:
        for group, version in POD_GROUP_APIS.values():
            if (group, version) == keep_api:
                continue
            path = resource_path(group, version, "podgroups", namespace)
            try:
                doc = self.conn.request("GET", path, {"labelSelector": f"{MANAGED_BY_LABEL}={MANAGED_BY}"})
            except ClusterError as exc:
                if exc.status not in (403, 404):
                    log.warning("cannot list podgroups", extra={"namespace": namespace, "error": str(exc)})
                continue
            for item in doc.get("items") or []:
                self._delete(f"{group}/{version}", namespace, str(_meta(item)["name"]))

    def _start_watches(self, state: _Namespace) -> None:
        for res in self._resources:
            if res.display in state.watched:
                continue
            state.watched.add(res.display)
            with state.lock:
                state.pending.add(res.display)
            selector = f"{MANAGED_BY_LABEL}={MANAGED_BY}" if self._is_group_resource(res) else None
            stop = _Either(state.stop, self._stop)
            threading.Thread(
                target=list_watch,
                name=f"gang-watch-{state.name}-{res.display}",
                daemon=True,
                args=(
                    self.conn,
                    unlisted(res, state.name, label_selector=selector),
                    lambda items, res=res: self._synced(state, res, items),
                    lambda event, obj, res=res: self._event(state, res, event, obj),
                    stop,
                    f"{state.name}/{res.display}",
                    self.watch_seconds,
                ),
            ).start()

    # -- the namespace cache
    def _synced(self, state: _Namespace, res: ServedResource, items: list[dict[str, Any]]) -> None:
        if state.stop.is_set():
            return
        for item in items:
            item.setdefault("apiVersion", res.api_version)
            item.setdefault("kind", res.kind)
        with state.lock:
            if self._is_group_resource(res):
                old = [v for k, v in state.groups.items() if k[0] == res.api_version]
                state.groups = {k: v for k, v in state.groups.items() if k[0] != res.api_version}
                state.groups.update({(res.api_version, str(_meta(i)["name"])): i for i in items})
            else:
                old = [v for k, v in state.objects.items() if k[:2] == (res.api_version, res.kind)]
                state.objects = {k: v for k, v in state.objects.items() if k[:2] != (res.api_version, res.kind)}
                state.objects.update({(res.api_version, res.kind, str(_meta(i)["name"])): i for i in items})
            state.pending.discard(res.display)
        for obj in [*old, *items]:
            self._enqueue_for(state, obj, res)

    def _event(self, state: _Namespace, res: ServedResource, event: str, obj: dict[str, Any]) -> None:
        if state.stop.is_set():
            return
        obj.setdefault("apiVersion", res.api_version)
        obj.setdefault("kind", res.kind)
        name = str(_meta(obj).get("name"))
        with state.lock:
            if self._is_group_resource(res):
                if event == "DELETED":
                    state.groups.pop((res.api_version, name), None)
                else:
                    state.groups[(res.api_version, name)] = obj
            elif event == "DELETED":
                state.objects.pop((res.api_version, res.kind, name), None)
            else:
                state.objects[(res.api_version, res.kind, name)] = obj
        if self._is_group_resource(res) and event == "DELETED":
            self._applied.pop((res.api_version, state.name, name), None)
        self._enqueue_for(state, obj, res)

    def _enqueue_for(self, state: _Namespace, obj: dict[str, Any], res: ServedResource) -> None:
        """Queue the workloads an object's change can affect: itself and its owners (debounced)."""
        if self._is_group_resource(res):
            uid = (_meta(obj).get("labels") or {}).get(WORKLOAD_UID_LABEL)
            if uid:
                self.queue.add(f"{state.name}/{uid}", self.debounce)
            return
        self._enqueue_owners(state, obj, self.debounce)

    def _enqueue_owners(self, state: _Namespace, obj: dict[str, Any], delay: float) -> None:
        """Queue ``obj`` (when a covered kind) and its covered owners, following controller references."""
        with state.lock:
            by_uid = state.by_uid()
        registry = self.registry
        current: dict[str, Any] | None = obj
        for _ in range(MAX_OWNER_DEPTH + 1):
            if current is None:
                return
            meta = _meta(current)
            if (
                current.get("kind") != "Pod"
                and registry.covers(group_of(str(current.get("apiVersion") or "")), str(current.get("kind") or ""))
                and meta.get("uid")
            ):
                self.queue.add(f"{state.name}/{meta['uid']}", delay)
            ref = _controller_ref(current)
            current = by_uid.get(str(ref["uid"])) if ref else None

    # -- reconcile one workload
    def reconcile(self, key: str) -> None:
        namespace, uid = key.split("/", 1)
        with self._lock:
            state = self.namespaces.get(namespace)
        if state is None:
            return
        with state.lock:
            objects = list(state.objects.values())
            existing = [
                g for g in state.groups.values() if (_meta(g).get("labels") or {}).get(WORKLOAD_UID_LABEL) == uid
            ]
        with self._lock:
            registry = self.registry
        desired, notes = plan_groups(registry, objects, uid, state.scheduler)
        if notes:
            log.info("gang plan notes", extra={"namespace": namespace, "workload_uid": uid, "notes": notes[:10]})
        wanted = {(o["apiVersion"], o["metadata"]["name"]) for o in desired}
        for obj in desired:
            self._apply(obj)
        for group in existing:
            name = str(_meta(group)["name"])
            if (str(group.get("apiVersion")), name) not in wanted:
                self._delete(str(group.get("apiVersion")), namespace, name)

    def _apply(self, obj: dict[str, Any]) -> None:
        api_version, meta = obj["apiVersion"], obj["metadata"]
        dropped: list[str] = []
        obj = {**obj, "spec": prune_to_schema(obj.get("spec") or {}, self._schemas.get(api_version), "spec", dropped)}
        if dropped and api_version not in self._pruned_reported:
            self._pruned_reported.add(api_version)
            log.warning(
                "the PodGroup CRD does not declare some fields; they are left out",
                extra={"apiVersion": api_version, "fields": sorted(set(dropped))},
            )
        key = (api_version, meta["namespace"], meta["name"])
        body = json.dumps(obj, sort_keys=True)
        if self._applied.get(key) == body:
            return
        group, version = api_version.split("/")
        path = resource_path(group, version, "podgroups", meta["namespace"], meta["name"])
        self.conn.request(
            "PATCH",
            path,
            {"fieldManager": FIELD_MANAGER, "force": "true", "fieldValidation": "Ignore"},
            body=body.encode(),
            content_type=APPLY_PATCH,
            what=f"podgroup {meta['namespace']}/{meta['name']}",
        )
        self._applied[key] = body
        self.applies += 1
        log.info(
            "podgroup applied",
            extra={
                "podgroup": f"{meta['namespace']}/{meta['name']}",
                "apiVersion": api_version,
                "minMember": obj["spec"].get("minMember"),
            },
        )

    def _delete(self, api_version: str, namespace: str, name: str) -> None:
        group, version = api_version.split("/")
        try:
            self.conn.request(
                "DELETE",
                resource_path(group, version, "podgroups", namespace, name),
                what=f"podgroup {namespace}/{name}",
            )
        except ClusterError as exc:
            if exc.status != 404:
                raise
        self._applied.pop((api_version, namespace, name), None)
        self.deletes += 1
        log.info("podgroup deleted", extra={"podgroup": f"{namespace}/{name}", "apiVersion": api_version})

    # -- run
    def _wait_for_definitions(self, stop: threading.Event) -> None:
        """Plan with the cluster's Kartas from the start (not built-in only, then again); take what is there
        after ``definitions_timeout`` (e.g. the Karta CRD is missing) and follow the updates."""
        source = self.cluster_definitions
        if source is None:
            return
        source.subscribe(self.set_definitions)
        deadline = time.monotonic() + self.definitions_timeout
        while not stop.is_set() and not source.synced.wait(0.5):
            if time.monotonic() > deadline:
                log.warning("gang controller: cluster Kartas not listed yet; starting with the built-in catalog")
                break
        with self._lock:
            self.definitions = list(source.definitions)
            self.registry = DefinitionRegistry(self.definitions)
            self._changed.clear()
        self._rediscover_now.clear()

    def run(self, stop: threading.Event) -> None:
        self._stop = stop
        try:
            self._run(stop)
        finally:
            if self.cluster_definitions is not None:
                self.cluster_definitions.unsubscribe(self.set_definitions)

    def _run(self, stop: threading.Event) -> None:
        self._wait_for_definitions(stop)
        while not stop.is_set():
            try:
                self._discover()
                break
            except ClusterError as exc:
                log.warning("gang controller: discovery failed, retrying", extra={"error": str(exc)})
                stop.wait(2.0)
        threading.Thread(
            target=list_watch,
            name="gang-watch-namespaces",
            daemon=True,
            args=(
                self.conn,
                unlisted(NAMESPACES, None, label_selector=NAMESPACE_LABEL),
                self._sync_namespaces,
                self._namespace_event,
                stop,
                "namespaces",
            ),
        ).start()
        workers = [
            threading.Thread(target=self._worker, args=(stop,), name=f"gang-{i}", daemon=True)
            for i in range(self.workers)
        ]
        for t in workers:
            t.start()
        last = time.monotonic()
        while not stop.wait(0.2):
            definitions_changed = self._rediscover_now.is_set()
            if definitions_changed or time.monotonic() - last > self.rediscover:
                self._rediscover_now.clear()
                last = time.monotonic()
                try:
                    self._discover()
                except ClusterError as exc:
                    log.warning("gang controller: discovery failed", extra={"error": str(exc)})
                    continue
                with self._lock:
                    states = list(self.namespaces.values())
                for state in states:
                    self._start_watches(state)
            if definitions_changed:
                self._replan_changed()
        with self._lock:
            for state in self.namespaces.values():
                state.stop.set()
        for t in workers:
            t.join(timeout=5)

    def _worker(self, stop: threading.Event) -> None:
        failures: dict[str, int] = {}
        while not stop.is_set():
            key = self.queue.get(stop)
            if key is None:
                return
            try:
                self.reconcile(key)
                failures.pop(key, None)
            except Exception as exc:
                n = failures[key] = failures.get(key, 0) + 1
                delay = min(0.5 * 2**n, 60.0)
                log.warning("gang reconcile failed, retrying", extra={"key": key, "error": str(exc), "retry_in": delay})
                self.queue.add(key, delay)


class _Either(threading.Event):
    """Set when either of two events is (what an informer polls with ``is_set``/``wait``)."""

    def __init__(self, a: threading.Event, b: threading.Event) -> None:
        super().__init__()
        self._a, self._b = a, b

    def is_set(self) -> bool:
        return self._a.is_set() or self._b.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            left = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
            if left <= 0:
                return False
            self._a.wait(left)
        return True
