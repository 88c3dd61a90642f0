"""The Karta controller: watches Kartas and CRDs, reconciles status, labels and Events.

Reconcile of one Karta (idempotent; safe to interrupt at any point):
  1. compute the three conditions (validator + "is the root kind served");
  2. create the due Events under deterministic names (a retry after a crash gets 409 and creates nothing);
  3. stamp the index labels if they are missing or wrong (merge patch);
  4. write ``status.conditions`` through the status subresource only when something changed.
A CRD that appears, changes or disappears re-queues the Kartas whose root group and kind it serves.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from workload_map.operator.kube import CRDS, KARTAS as KARTA_RESOURCE, list_watch
from workload_map.operator.reconcile import (
    desired_conditions,
    due_events,
    merged_conditions,
    now_rfc3339,
    status_changed,
)
from workload_map.ports.definitions import GROUP, INDEX_LABELS, PLURAL, VERSION, index_labels, root_gvk_of
from workload_map.ports.kube import ClusterError, Connection, unlisted

log = logging.getLogger("workload_map.operator.controller")

KARTAS = f"/apis/{GROUP}/{VERSION}/{PLURAL}"
COMPONENT = "workload-map-operator"


@dataclass
class WorkQueue:
    """A de-duplicating queue with delayed retries (names only; the latest object is read from the cache)."""

    _pending: dict[str, float] = field(default_factory=dict)
    _cond: threading.Condition = field(default_factory=threading.Condition)

    def add(self, name: str, delay: float = 0.0) -> None:
        with self._cond:
            due = time.monotonic() + delay
            if name not in self._pending or self._pending[name] > due:
                self._pending[name] = due
            self._cond.notify()

    def get(self, stop: threading.Event, poll: float = 0.5) -> str | None:
        with self._cond:
            while not stop.is_set():
                now = time.monotonic()
                ready = [n for n, t in self._pending.items() if t <= now]
                if ready:
                    name = min(ready, key=lambda n: self._pending[n])
                    del self._pending[name]
                    return name
                wait = min([t - now for t in self._pending.values()] + [poll])
                self._cond.wait(max(wait, 0.01))
        return None

    def __len__(self) -> int:
        with self._cond:
            return len(self._pending)


def _group_kind(crd: dict[str, Any]) -> tuple[str, str]:
    spec = crd.get("spec") or {}
    return str(spec.get("group") or ""), str((spec.get("names") or {}).get("kind") or "")


class ServedKinds:
    """Is a group/version/kind served? CRDs from the watch cache; built-in kinds from discovery (cached).

    Discovery keeps listing a deleted CRD's kind for a while after the watch reports it gone, so a kind whose
    CRD was just deleted is not served for ``ttl`` seconds whatever discovery says; without that, every CRD
    deletion flapped NotServed -> Served -> NotServed (and announced each step as an Event).
    """

    def __init__(self, conn: Connection, ttl: float = 30.0) -> None:
        self.conn = conn
        self.ttl = ttl
        self.crds: dict[str, dict[str, Any]] = {}
        self._deleted: dict[tuple[str, str], tuple[float, str]] = {}
        self._discovery: dict[tuple[str, str], tuple[float, set[str] | None]] = {}
        self._lock = threading.Lock()

    def set_crds(self, items: list[dict[str, Any]]) -> None:
        with self._lock:
            fresh = {i["metadata"]["name"]: i for i in items}
            now = time.monotonic()
            for name, crd in self.crds.items():
                if name not in fresh:
                    self._deleted[_group_kind(crd)] = (now, name)
            for crd in fresh.values():
                self._deleted.pop(_group_kind(crd), None)
            self.crds = fresh
            self._discovery.clear()

    def update_crd(self, event: str, obj: dict[str, Any]) -> None:
        with self._lock:
            key = _group_kind(obj)
            if event == "DELETED":
                self.crds.pop(obj["metadata"]["name"], None)
                self._deleted[key] = (time.monotonic(), obj["metadata"]["name"])
            else:
                self.crds[obj["metadata"]["name"]] = obj
                self._deleted.pop(key, None)
            self._discovery.clear()

    def check(self, group: str, version: str, kind: str) -> tuple[bool | None, str]:
        with self._lock:
            crds = [
                c
                for c in self.crds.values()
                if (c.get("spec") or {}).get("group") == group
                and ((c.get("spec") or {}).get("names") or {}).get("kind") == kind
            ]
        gv = f"{group}/{version}" if group else version
        for crd in crds:
            name = crd["metadata"]["name"]
            if (crd.get("metadata") or {}).get("deletionTimestamp"):
                return False, f"CRD {name} is being deleted"
            versions = {v.get("name"): v for v in (crd.get("spec") or {}).get("versions") or []}
            if version not in versions:
                return False, f"CRD {name} does not define version {version} (defines {', '.join(sorted(versions))})"
            if not versions[version].get("served"):
                return False, f"CRD {name} does not serve version {version}"
            established = any(
                c.get("type") == "Established" and c.get("status") == "True"
                for c in (crd.get("status") or {}).get("conditions") or []
            )
            if not established:
                return False, f"CRD {name} is not established yet"
            return True, f"{kind} {gv} is served by CRD {name}"
        with self._lock:
            deleted = self._deleted.get((group, kind))
        if deleted and time.monotonic() - deleted[0] < self.ttl:
            return False, f"CRD {deleted[1]} was deleted"
        kinds = self._discover(group, version)
        if kinds is None:
            return None, f"discovery of {gv} failed"
        if kind in kinds:
            return True, f"{kind} {gv} is served by the API server"
        return False, f"no CRD for {kind}.{group} and the API server does not serve {kind} {gv}"

    def _discover(self, group: str, version: str) -> set[str] | None:
        key = (group, version)
        with self._lock:
            cached = self._discovery.get(key)
        if cached and time.monotonic() - cached[0] < self.ttl:
            return cached[1]
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        try:
            doc = self.conn.request("GET", path, what=f"discovery {path}")
            kinds: set[str] | None = {r.get("kind") for r in doc.get("resources") or [] if "/" not in r.get("name", "")}
        except ClusterError as exc:
            kinds = set() if exc.status == 404 else None
        if kinds is not None:
            with self._lock:
                self._discovery[key] = (time.monotonic(), kinds)
        return kinds


class KartaController:
    def __init__(
        self,
        conn: Connection,
        *,
        namespace: str,
        resync: float = 300.0,
        workers: int = 2,
        on_synced: Callable[[], None] | None = None,
    ) -> None:
        self.conn = conn
        self.namespace = namespace  # where Events of cluster-scoped Kartas are written
        self.resync = resync
        self.workers = workers
        self.queue = WorkQueue()
        self.served = ServedKinds(conn)
        self.kartas: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._crds_synced = threading.Event()
        self.synced = threading.Event()
        self._on_synced = on_synced
        self.reconciles = 0
        self.events_created = 0

    # -- watch callbacks
    def _sync_crds(self, items: list[dict[str, Any]]) -> None:
        before = dict(self.served.crds)
        self.served.set_crds(items)
        self._crds_synced.set()
        names = set(before) | {i["metadata"]["name"] for i in items}
        for name in names:
            crd = self.served.crds.get(name) or before.get(name)
            if crd is not None and before.get(name, {}).get("metadata", {}).get("resourceVersion") != (
                self.served.crds.get(name, {}).get("metadata", {}).get("resourceVersion")
            ):
                self._requeue_for_crd(crd)

    def _crd_event(self, event: str, obj: dict[str, Any]) -> None:
        self.served.update_crd(event, obj)
        log.info("crd changed", extra={"crd": obj["metadata"]["name"], "event": event})
        self._requeue_for_crd(obj)

    def _requeue_for_crd(self, crd: dict[str, Any]) -> None:
        spec = crd.get("spec") or {}
        group, kind = spec.get("group"), (spec.get("names") or {}).get("kind")
        with self._lock:
            hits = [n for n, o in self.kartas.items() if (g := root_gvk_of(o)) and g.group == group and g.kind == kind]
        for name in hits:
            self.queue.add(name)

    def _sync_kartas(self, items: list[dict[str, Any]]) -> None:
        with self._lock:
            self.kartas = {i["metadata"]["name"]: i for i in items}
        for name in list(self.kartas):
            self.queue.add(name)
        if not self.synced.is_set():
            self.synced.set()
            if self._on_synced:
                self._on_synced()

    def _karta_event(self, event: str, obj: dict[str, Any]) -> None:
        name = obj["metadata"]["name"]
        with self._lock:
            if event == "DELETED":
                self.kartas.pop(name, None)
                return
            self.kartas[name] = obj
        self.queue.add(name)

    # -- run
    def run(self, stop: threading.Event) -> None:
        """Watch and reconcile until ``stop`` (call from a dedicated thread while leading)."""
        threads = [
            threading.Thread(
                target=list_watch,
                name="watch-crds",
                daemon=True,
                args=(self.conn, unlisted(CRDS, None), self._sync_crds, self._crd_event, stop, "crds"),
            ),
        ]
        threads[0].start()
        self._crds_synced.wait(timeout=60)
        threads.append(
            threading.Thread(
                target=list_watch,
                name="watch-kartas",
                daemon=True,
                args=(self.conn, unlisted(KARTA_RESOURCE, None), self._sync_kartas, self._karta_event, stop, "kartas"),
            )
        )
        threads[-1].start()
        for i in range(self.workers):
            t = threading.Thread(target=self._worker, args=(stop,), name=f"reconcile-{i}", daemon=True)
            t.start()
            threads.append(t)
        last_resync = time.monotonic()
        while not stop.wait(1.0):
            if time.monotonic() - last_resync > self.resync:
                last_resync = time.monotonic()
                with self._lock:
                    names = list(self.kartas)
                for name in names:
                    self.queue.add(name)
        # Watch threads may sit in a long read: they are daemons and see ``stop`` on their next line.
        for t in threads[2:]:
            t.join(timeout=5)

    def _worker(self, stop: threading.Event) -> None:
        failures: dict[str, int] = {}
        while not stop.is_set():
            name = self.queue.get(stop)
            if name is None:
                return
            try:
                self.reconcile(name)
                failures.pop(name, None)
            except Exception as exc:
                n = failures[name] = failures.get(name, 0) + 1
                delay = min(0.5 * 2**n, 60.0)
                log.warning("reconcile failed, retrying", extra={"karta": name, "error": str(exc), "retry_in": delay})
                self.queue.add(name, delay)

    # -- reconcile
    def reconcile(self, name: str) -> None:
        try:
            obj = self.conn.request("GET", f"{KARTAS}/{name}", what=f"karta {name}")
        except ClusterError as exc:
            if exc.status == 404:
                return
            raise
        if (obj.get("metadata") or {}).get("deletionTimestamp"):
            return
        self.reconciles += 1
        gvk = root_gvk_of(obj)
        served: bool | None
        if gvk is None or not gvk.version or not gvk.kind:
            served, detail = False, "the definition has no root kind"
        else:
            served, detail = self.served.check(gvk.group, gvk.version, gvk.kind)
        conditions = desired_conditions(obj, served, detail, now_rfc3339())
        for event in due_events(obj, conditions):
            self._create_event(obj, event)
        self._ensure_labels(obj)
        if status_changed(obj, conditions):
            body = {"status": {"conditions": merged_conditions(obj, conditions)}}
            self.conn.request(
                "PATCH",
                f"{KARTAS}/{name}/status",
                body=body,
                content_type="application/merge-patch+json",
                what=f"karta {name} status",
            )
            log.info(
                "status updated", extra={"karta": name, "conditions": {c["type"]: c["status"] for c in conditions}}
            )

    def _ensure_labels(self, obj: dict[str, Any]) -> None:
        name = obj["metadata"]["name"]
        labels = obj["metadata"].get("labels") or {}
        want = index_labels(root_gvk_of(obj))
        patch: dict[str, Any] = {k: v for k, v in want.items() if labels.get(k) != v}
        patch.update({k: None for k in INDEX_LABELS if k in labels and k not in want})
        if patch:
            self.conn.request(
                "PATCH",
                f"{KARTAS}/{name}",
                body={"metadata": {"labels": patch}},
                content_type="application/merge-patch+json",
                what=f"karta {name}",
            )
            log.info("index labels stamped", extra={"karta": name, "labels": patch})

    def _create_event(self, obj: dict[str, Any], event: Any) -> None:
        meta = obj["metadata"]
        ts = now_rfc3339()
        body = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": event.name, "namespace": self.namespace},
            "involvedObject": {
                "apiVersion": f"{GROUP}/{VERSION}",
                "kind": "Karta",
                "name": meta["name"],
                "uid": meta.get("uid"),
                "resourceVersion": meta.get("resourceVersion"),
            },
            "type": event.type,
            "reason": event.reason,
            "message": event.message[:1024],
            "source": {"component": COMPONENT},
            "reportingComponent": COMPONENT,
            "reportingInstance": COMPONENT,
            "firstTimestamp": ts,
            "lastTimestamp": ts,
            "count": 1,
        }
        try:
            self.conn.request("POST", f"/api/v1/namespaces/{self.namespace}/events", body=body, what="event")
            self.events_created += 1
            log.info("event", extra={"karta": meta["name"], "reason": event.reason, "type": event.type})
        except ClusterError as exc:
            if exc.status != 409:  # 409: already emitted before a restart
                raise
