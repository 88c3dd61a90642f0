"""What ``wmap describe`` reads besides the workload: the core/v1 Events of its namespace (one paged list,
whatever the workload is made of), and the resource the live model watches them through.

core/v1 is the form kubectl describe reads and every API server serves for every event (events.k8s.io/v1
is the same objects under other names); it carries the aggregated ``count`` and first/last timestamps.
A list the user may not make is one warning naming the grant, never a failure: the rest is described.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workload_map.base.coverage import Coverage
from workload_map.base.snapshot import Obj
from workload_map.sources.kube.connection import Connection
from workload_map.sources.kube.discovery import Discovery, ServedResource
from workload_map.sources.kube.fetch import ListResult, _run_lists

# Served by every API server since Kubernetes 1.0; discovery is asked first (a test server may differ).
CORE_EVENTS = ServedResource("", "v1", "Event", "events", True, verbs=("list", "watch"), preferred=True)


def events_resource(discovery: Discovery) -> ServedResource:
    served = discovery.resource("", "Event", ["v1"])
    return served if served is not None and served.version == "v1" else CORE_EVENTS


@dataclass
class EventObjects:
    objects: list[Obj] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    lists: list[ListResult] = field(default_factory=list)


def fetch_events(
    connection: Connection, discovery: Discovery, namespace: str | None, *, chunk_size: int | None = None
) -> EventObjects:
    """The Events of ``namespace`` (None: all namespaces), one paged list."""
    out = EventObjects()
    coverage = Coverage()
    jobs = [(events_resource(discovery), namespace, {"chunk_size": chunk_size})]
    out.lists = _run_lists(connection, jobs, out.warnings, coverage)
    out.objects = [o for r in out.lists for o in r.items]
    for gap in coverage:
        out.warnings.append(f"{gap.why}: described without events (fix: {gap.fix}, or --show-events=false)")
    return out


__all__ = ["CORE_EVENTS", "EventObjects", "events_resource", "fetch_events"]
