"""The live model's Events: what the workload page and ``GET /api/v1/workloads/...`` list, bounded.

One retrying informer watches core/v1 Events in the namespaces the model reads (``sources.kube.events``).
What it sees reaches the model's applier thread as ``("EVENTS", (type, payload, extra), None)``; the model
keeps an event only when its involved object is one of a workload's objects in the store (by uid), so the
Events of a busy cluster's other objects cost nothing beyond their decoding. Kept per object: the last
:data:`PER_OBJECT` events (by last seen); overall at most :data:`MAX_EVENTS`, the ones applied longest ago
dropped first. An object that leaves the store takes its events with it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from workload_map.tree.events import WorkloadEvent, event_of, newest_last

if TYPE_CHECKING:
    from workload_map.sources.kube import LiveSource
    from workload_map.sources.kube.connection import Connection
    from workload_map.sources.kube.informer import Informer

PER_OBJECT = 20  # kubectl describe lists every event of an object; the API server keeps them one hour
MAX_EVENTS = 20_000  # 27 MiB full, 1.4 KB an event, its strings included (bench/bench_serve_events.py)


class EventSink:
    """An informer's sink that hands everything it sees to the model's queue as one kind of item."""

    def __init__(self, out: Any) -> None:
        self.out = out

    def put(self, item: tuple[str, Any, Any]) -> None:
        self.out.put(("EVENTS", item, None))


def events_informer(connection: Connection, source: LiveSource, out: Any, stop: Any, watch_seconds: int) -> Informer:
    """The retrying informer of the Events of the namespaces ``source`` read, each made :func:`compact` as
    it arrives (list pages included: a first list of every Event of a busy cluster is never held whole)."""
    from workload_map.sources.kube.events import events_resource  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)
    from workload_map.sources.kube.informer import Informer, unlisted  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

    listed = unlisted(events_resource(source.discovery), source.namespace)
    sink = EventSink(out)
    return Informer(connection, listed, sink, stop, watch_seconds, retry=True, list_first=True, project=compact)


def compact(obj: dict[str, Any]) -> dict[str, Any]:
    """What is kept of an Event as it arrives: the key that names it (:func:`event_key`) and its figure (None
    for an Event about nothing): about 1.6 KB of a kubelet event's 6 KB decoded, so the first list of a busy
    cluster's Events costs a quarter of what it would."""
    return {"metadata": {"uid": event_key(obj)}, "figure": event_of(obj)}


class EventStore:
    """Events by the uid of the object they are about; written by the applier thread, read by any."""

    def __init__(self, per_object: int = PER_OBJECT, cap: int = MAX_EVENTS) -> None:
        self.per_object = per_object
        self.cap = cap
        self.error: str | None = None  # why the Events cannot be watched, while they cannot
        self._lock = threading.Lock()
        self._by_object: dict[str, dict[str, WorkloadEvent]] = {}  # object uid -> event key -> event
        self._applied: OrderedDict[str, str] = OrderedDict()  # event key -> object uid, applied longest ago first
        self.dropped = 0  # events let go to stay within the bounds

    def __len__(self) -> int:
        return len(self._applied)

    def put(self, key: str, event: WorkloadEvent) -> None:
        """Add or replace (a watch's MODIFIED: the count went up) the event ``key`` (:func:`event_key`)."""
        if event.object_uid is None:
            return
        with self._lock:
            self._put(key, event.object_uid, event)

    def _put(self, key: str, uid: str, event: WorkloadEvent) -> None:
        self._remove(key)
        events = self._by_object.setdefault(uid, {})
        events[key] = event
        self._applied[key] = uid
        if len(events) > self.per_object:
            oldest = min(events, key=lambda k: (events[k].last_seen or "", events[k].first_seen or ""))
            self._remove(oldest)
            self.dropped += 1
        while len(self._applied) > self.cap:
            self._remove(next(iter(self._applied)))
            self.dropped += 1

    def remove(self, key: str) -> None:
        with self._lock:
            self._remove(key)

    def _remove(self, key: str) -> None:
        uid = self._applied.pop(key, None)
        if uid is None:
            return
        events = self._by_object.get(uid)
        if events is not None:
            events.pop(key, None)
            if not events:
                del self._by_object[uid]

    def forget(self, object_uid: str) -> None:
        """The object left the store: its events go too."""
        with self._lock:
            for key in self._by_object.pop(object_uid, {}):
                self._applied.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._by_object.clear()
            self._applied.clear()

    def of(self, uids: Iterable[str]) -> list[WorkloadEvent]:
        """The events about any of ``uids``, newest last."""
        found: list[WorkloadEvent] = []
        with self._lock:
            for uid in uids:
                events = self._by_object.get(uid)
                if events:
                    found.extend(events.values())
        return newest_last(found)

    def apply(self, items: Iterable[tuple[str, Any, Any]], keep: Callable[[str], bool]) -> list[str]:
        """What the Events informer saw, in order; ``keep(uid)``: the object is one of a workload's. Returns
        the news to tell (the watch failing, recovering), once per change."""
        notes: list[str] = []
        for kind, payload, extra in items:
            if kind == "FAILED":
                message = str(getattr(extra, "message", extra))
                if self.error is None and getattr(extra, "status", 0) == 403:
                    notes.append(
                        f"cannot be read ({message}): workloads are shown without events "
                        "(fix: grant list and watch on events, as `wmap auth` prints them; retrying)"
                    )
                elif self.error is None:
                    notes.append(f"failed, retrying: {message} (workloads are shown without events)")
                self.error = message
            elif kind == "RELISTED":
                if self.error is not None:
                    notes.append("can be read again: listed")
                self.error = None
                self.clear()
                for obj in payload.items:
                    self._add(obj, keep)
            elif kind == "DELETED":
                self.remove(event_key(payload))
            else:
                self._add(payload, keep)
        return notes

    def _add(self, obj: dict[str, Any], keep: Callable[[str], bool]) -> None:
        event = obj["figure"] if "figure" in obj else event_of(obj)  # compact(), or an Event of a dump
        if event is not None and event.object_uid is not None and keep(event.object_uid):
            self.put(event_key(obj), event)


def event_key(obj: dict[str, Any]) -> str:
    """What identifies an Event object across a watch's ADDED, MODIFIED and DELETED."""
    metadata = obj.get("metadata") or {}
    return str(metadata.get("uid") or f"{metadata.get('namespace')}/{metadata.get('name')}")


__all__ = ["MAX_EVENTS", "PER_OBJECT", "EventSink", "EventStore", "event_key"]
