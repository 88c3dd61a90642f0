"""``wmap record``: one workload's objects and their changes, watched, written as a Recording.

The workload is read as ``describe`` reads it (the root by name, the child kinds its definition names,
its pods); the namespace's core/v1 Events are listed beside them. The watch is ``watch.watch_snapshots``
over those lists; of each batch, only what belongs to the workload is kept: the root, objects whose owner
chain reaches it, and Events whose involvedObject is one of them. An object that joins the workload late
(a pod seen before the Job that owns it) is written when its owner is seen, as ADDED.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from workload_map.base.objects import Obj, ObjectKey, key_of, meta, namespace_of, uid_of
from workload_map.base.snapshot import Snapshot
from workload_map.errors import WorkloadMapError
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.sources.kube.connection import ClusterError
from workload_map.sources.kube.watch import WatchEvent, watch_snapshots
from workload_map.sources.recording import (
    Checkpoint,
    OperatorRef,
    Recorded,
    RecordedEvent,
    RecordingWriter,
    WorkloadRef,
    rfc3339,
)
from workload_map.tree.build import tree_of

if TYPE_CHECKING:
    from workload_map.sources.kube.fetch import ListResult
    from workload_map.sources.kube.live import LiveSource

StatusCallback = Callable[["StatusChange"], None]


@dataclass(frozen=True)
class StatusChange:
    """The workload's status after ``events`` recorded events, first seen at ``at``; ``primary`` is None
    when it could not be resolved (``error`` says why)."""

    at: str
    events: int
    primary: str | None
    matched: tuple[str, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class RecordEnd:
    """Why recording stopped: ``until`` (the status was reached), ``timeout``, ``max-events``, ``deleted``
    (the workload was deleted) or ``stopped`` (the caller's stop event)."""

    reason: str
    events: int
    status: str | None


def _is_event(obj: Obj) -> bool:
    return obj.get("kind") == "Event" and obj.get("apiVersion") == "v1"


def _version(obj: Obj) -> Any:
    return meta(obj).get("resourceVersion")


class Recorder:
    """Records one workload of a live source: the initial objects are written at once (to ``out``), then
    :meth:`run` watches and writes each change until a bound. ``checkpoint`` adds an expectation about the
    state after the events written so far; ``close`` writes the checkpoints."""

    def __init__(
        self,
        source: LiveSource,
        root: Obj,
        out: IO[str],
        *,
        by: str = "wmap record",
        operator: OperatorRef | None = None,
    ) -> None:
        self.source = source
        self.root = root
        self.root_key = key_of(root)
        self.root_uid = uid_of(root)
        self.warnings: list[str] = []
        self.checkpoints: list[Checkpoint] = []
        # What run() stops at, and why it stopped writing (until, deleted, max-events).
        self._until: str | None = None
        self._limit: int | None = None
        self._on_status: StatusCallback | None = None
        self.ended: str | None = None
        events = self._events_list()
        self.lists = [*source.lists, *events]
        first = Snapshot([*source.snapshot.objects, *(o for listed in events for o in listed.items)])
        self.recorded: dict[ObjectKey, Obj] = {}  # the workload's objects as last written
        self.recorded = {key_of(o): o for o in self._belonging(first)}
        workload = WorkloadRef(
            str(root.get("apiVersion")), str(root.get("kind")), namespace_of(root), str(meta(root).get("name"))
        )
        recorded = Recorded(by, rfc3339(time.time()), self._server(), operator)
        self.writer = RecordingWriter(out, workload, recorded, self.recorded.values())
        self.status = self._status(recorded.started)

    # -- reading
    def _events_list(self) -> list[ListResult]:
        from workload_map.sources.kube.discovery import ServedResource  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)
        from workload_map.sources.kube.fetch import list_all  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

        namespace = namespace_of(self.root)
        resource = self.source.discovery.resource("", "Event") or ServedResource("", "v1", "Event", "events", True)
        try:
            return [list_all(self.source.connection, resource, namespace)]
        except ClusterError as exc:
            self.warnings.append(f"recording without Events: cannot list events in namespace {namespace}: {exc}")
            return []

    def _server(self) -> str | None:
        try:
            version = self.source.connection.get("/version") or {}
        except ClusterError:
            return None
        text = version.get("gitVersion") if isinstance(version, dict) else None
        return str(text) if text else None

    # -- membership
    def _owned(self, obj: Obj, snapshot: Snapshot) -> bool:
        if key_of(obj) == self.root_key and (self.root_uid is None or uid_of(obj) == self.root_uid):
            return True
        if self.root_uid is None:
            return False
        return any(uid_of(owner) == self.root_uid for owner in snapshot.owner_chain(obj).owners)

    def _belonging(self, snapshot: Snapshot) -> list[Obj]:
        """The workload's objects in ``snapshot`` and the Events about them (or about an object recorded)."""
        owned = [o for o in snapshot if not _is_event(o) and self._owned(o, snapshot)]
        known = [*owned, *(o for o in self.recorded.values() if not _is_event(o))]
        uids = {uid_of(o) for o in known}
        names = {(str(o.get("kind")), namespace_of(o), str(meta(o).get("name"))) for o in known}
        return [*owned, *(o for o in snapshot if _is_event(o) and self._about(o, uids, names))]

    @staticmethod
    def _about(event: Obj, uids: set[str | None], names: set[tuple[str, str, str]]) -> bool:
        involved = event.get("involvedObject")
        if not isinstance(involved, dict):
            return False
        uid = involved.get("uid")
        if uid:
            return uid in uids
        namespace = str(involved.get("namespace") or namespace_of(event))
        return (str(involved.get("kind")), namespace, str(involved.get("name"))) in names

    # -- writing
    def _write(self, kind: str, obj: Obj, at: float) -> None:
        if self.ended is not None:
            return
        key = key_of(obj)
        if kind == "DELETED":
            self.recorded.pop(key, None)
        else:
            known = self.recorded.get(key)
            if known is not None and (known is obj or (_version(known) or False) == _version(obj)):
                return  # seen already (a relist repeats what the watch said)
            kind = "MODIFIED" if known is not None else "ADDED"
            self.recorded[key] = obj
        stamp = rfc3339(at)
        self.writer.add(RecordedEvent(stamp, kind, obj))
        self._observe(stamp)

    def _observe(self, at: str) -> None:
        """The status after the event just written: reported when it changed; whether recording ends here."""
        status = self._status(at)
        if (status.primary, status.matched, status.error) != (
            self.status.primary,
            self.status.matched,
            self.status.error,
        ):
            self.status = status
            if self._on_status is not None:
                self._on_status(status)
        if self.root_key not in self.recorded:
            self.ended = "deleted"
        elif self._until is not None and status.primary == self._until:
            self.ended = "until"
        elif self._limit is not None and self.writer.events >= self._limit:
            self.ended = "max-events"

    def _batch(self, event: WatchEvent) -> None:
        """Write, in order, what of the batch belongs to the workload."""
        belonging = {key_of(o): o for o in self._belonging(event.snapshot)}
        for change in event.changes:
            key = key_of(change.object)
            if change.type == "DELETED":
                if key in self.recorded:
                    self._write("DELETED", change.object, change.at)
            elif key in self.recorded or key in belonging:
                self._write(change.type, change.object, change.at)
        # What the changes did not say: objects that joined late, a relist's news (changes and deletions
        # during a gap in the watch).
        now = time.time()
        for obj in belonging.values():
            self._write("MODIFIED", obj, now)
        present = {key_of(o) for o in event.snapshot}
        for key in [k for k in self.recorded if k not in present]:
            self._write("DELETED", self.recorded[key], now)

    def _status(self, at: str) -> StatusChange:
        events = self.writer.events
        root = self.recorded.get(self.root_key)
        if root is None:
            return StatusChange(at, events, None, error="deleted")
        try:
            tree = tree_of(WorkloadIndex(Snapshot(list(self.recorded.values())), self.source.registry), root)
        except (WorkloadMapError, LookupError, ValueError, TypeError, RecursionError) as exc:
            return StatusChange(at, events, None, error=str(exc))
        status = tree.status
        return StatusChange(at, events, status.primary.value, tuple(s.value for s in status.matched))

    # -- the loop
    def run(
        self,
        *,
        until: str | None = None,
        timeout: float | None = None,
        max_events: int | None = None,
        stop: threading.Event | None = None,
        on_status: StatusCallback | None = None,
        on_warnings: Callable[[list[str]], None] | None = None,
    ) -> RecordEnd:
        """Watch and write until the workload has status ``until``, ``timeout`` seconds pass, ``max_events``
        events are written, the workload is deleted or ``stop`` is set (seen within a second). The status is
        resolved after every event written; ``on_status`` hears each change (and the status at the start)."""
        self._until, self._limit, self._on_status = until, max_events, on_status
        if on_status is not None:
            on_status(self.status)
        if until is not None and self.status.primary == until:
            return RecordEnd("until", self.writer.events, self.status.primary)
        if max_events is not None and self.writer.events >= max_events:
            return RecordEnd("max-events", self.writer.events, self.status.primary)
        self.ended = None
        for event in watch_snapshots(self.source.connection, self.lists, timeout=timeout, cancel=stop):
            if on_warnings is not None and event.warnings:
                on_warnings(event.warnings)
            self._batch(event)
            if self.ended is not None:
                return RecordEnd(self.ended, self.writer.events, self.status.primary)
        reason = "stopped" if stop is not None and stop.is_set() else "timeout"
        return RecordEnd(reason, self.writer.events, self.status.primary)

    def checkpoint(self, name: str, expect: dict[str, Any]) -> Checkpoint:
        """An expectation about the state after the events written so far, written at :meth:`close`."""
        checkpoint = Checkpoint(name, self.writer.events, expect)
        self.checkpoints.append(checkpoint)
        return checkpoint

    def close(self, checkpoints: Iterable[Checkpoint] = ()) -> None:
        self.writer.close([*self.checkpoints, *checkpoints])


__all__ = ["RecordEnd", "Recorder", "StatusChange"]
