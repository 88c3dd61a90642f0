"""A workload's Kubernetes Events: what ``kubectl describe`` lists under ``Events:``, for the workload's root,
the objects it owns (the children its definition names: Jobs, StatefulSets ...) and its pods.

Events are read as core/v1 ``Event`` objects, the form ``kubectl describe`` reads and the API server serves for
every event, whichever API wrote it (an ``events.k8s.io/v1`` Event is the same object under other field
names; a dump holding that form is read too). An event is the workload's when its ``involvedObject``
(``regarding``) is one of the workload's objects: by uid, or by kind, namespace and name when the event
names no uid. Repeats are aggregated as the API server aggregates them (``count``, first and last seen; an
event series' count and last observation), and a workload's events are listed oldest first, newest last,
as kubectl lists them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from workload_map.base.model import Model
from workload_map.base.objects import Obj, group_of, meta, name_of, namespace_of, owner_references, uid_of

EVENT_KINDS = (("", "Event"), ("events.k8s.io", "Event"))  # (group, kind) of the two forms of an Event


@dataclass(frozen=True, slots=True)
class WorkloadEvent:
    """One Event about one of a workload's objects, aggregated (``count`` occurrences from ``first_seen`` to
    ``last_seen``, RFC 3339 timestamps as the API server gives them, None when it gives none)."""

    type: str  # Normal | Warning
    reason: str
    message: str
    count: int
    first_seen: str | None
    last_seen: str | None
    source: str  # kubectl's From column: the reporting component (and host)
    object_kind: str
    object_name: str
    object_namespace: str
    object_uid: str | None
    uid: str | None = None  # the Event object's own uid (a watch's MODIFIED replaces it)

    @property
    def warning(self) -> bool:
        return self.type == "Warning"

    def to_json(self) -> dict[str, Any]:
        """The serve API's form (docs/cli.md, ``wmap serve``: ``/api/v1/workloads/{namespace}/{type}/{name}``)."""
        return {
            "type": self.type,
            "reason": self.reason,
            "message": self.message,
            "count": self.count,
            "firstSeen": self.first_seen,
            "lastSeen": self.last_seen,
            "from": self.source,
            "object": {"kind": self.object_kind, "name": self.object_name, "namespace": self.object_namespace},
        }


def is_event(obj: Obj) -> bool:
    return (group_of(str(obj.get("apiVersion") or "")), obj.get("kind")) in EVENT_KINDS


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def event_of(obj: Obj) -> WorkloadEvent | None:
    """The figure of one Event object (either form); None for an object that names no involved object."""
    core = group_of(str(obj.get("apiVersion") or "")) == ""
    involved = obj.get("involvedObject" if core else "regarding")
    if not isinstance(involved, dict) or not involved.get("name"):
        return None
    series = _mapping(obj.get("series"))
    if core:
        count, first, last = obj.get("count"), obj.get("firstTimestamp"), obj.get("lastTimestamp")
        source = _mapping(obj.get("source"))
        message = obj.get("message")
    else:
        count, first = obj.get("deprecatedCount"), obj.get("deprecatedFirstTimestamp")
        last = obj.get("deprecatedLastTimestamp")
        source = _mapping(obj.get("deprecatedSource"))
        message = obj.get("note")
    if series.get("count"):  # an event series: the API server counts its repeats here, not in count
        count, last = series.get("count"), series.get("lastObservedTime") or last
    first = first or obj.get("eventTime") or meta(obj).get("creationTimestamp")
    last = last or first
    component = source.get("component") or obj.get("reportingController") or ""
    host = source.get("host") or ""
    return WorkloadEvent(
        type=str(obj.get("type") or "Normal"),
        reason=str(obj.get("reason") or ""),
        message=str(message or "").strip(),
        count=count if isinstance(count, int) and count > 0 else 1,
        first_seen=str(first) if first else None,
        last_seen=str(last) if last else None,
        source=f"{component}, {host}" if component and host else str(component or host),
        object_kind=str(involved.get("kind") or ""),
        object_name=str(involved["name"]),
        object_namespace=str(involved.get("namespace") or namespace_of(obj)),
        object_uid=str(involved["uid"]) if involved.get("uid") else None,
        uid=uid_of(obj),
    )


def newest_last(events: Iterable[WorkloadEvent]) -> list[WorkloadEvent]:
    """kubectl's order: by last seen (RFC 3339 in UTC sorts as text), then first seen; undated first."""
    return sorted(events, key=lambda e: (e.last_seen or "", e.first_seen or ""))


class EventScope(Model, kw_only=False):
    """The objects whose events are a workload's, as kubectl describe selects an object's events: by uid,
    and by kind, namespace and name only for an object without one (a hand-written dump). An event naming
    another uid, or none, is not about an object that has one (an earlier pod of the same name)."""

    uids: frozenset[str]
    names: dict[tuple[str, str, str], str | None]

    def holds(self, event: WorkloadEvent) -> bool:
        if event.object_uid is not None and event.object_uid in self.uids:
            return True
        key = (event.object_kind, event.object_namespace, event.object_name)
        return key in self.names and self.names[key] is None


def scope_of(workload: Obj, objects: Iterable[Obj], pods: Iterable[Obj] = ()) -> EventScope:
    """The workload, every object among ``objects`` it owns (transitively, by ownerReferences) and ``pods``."""
    owned: dict[str, list[Obj]] = defaultdict(list)
    for obj in objects:
        for ref in owner_references(obj):
            if ref.get("uid"):
                owned[str(ref["uid"])].append(obj)
    members, stack, seen = [workload, *pods], [workload], {id(workload)}
    while stack:
        uid = uid_of(stack.pop())
        for child in owned.get(uid or "", ()):
            if id(child) not in seen:
                seen.add(id(child))
                members.append(child)
                stack.append(child)
    return EventScope(
        uids=frozenset(u for u in map(uid_of, members) if u),
        names={(str(o.get("kind") or ""), namespace_of(o), name_of(o)): uid_of(o) for o in members},
    )


def events_in(scope: EventScope, objects: Iterable[Obj]) -> list[WorkloadEvent]:
    """The events among ``objects`` (any objects: the non-events are passed over) about ``scope``, newest last."""
    found = (event_of(obj) for obj in objects if is_event(obj))
    return newest_last(e for e in found if e is not None and scope.holds(e))


__all__ = [
    "EVENT_KINDS",
    "EventScope",
    "WorkloadEvent",
    "event_of",
    "events_in",
    "is_event",
    "newest_last",
    "scope_of",
]
