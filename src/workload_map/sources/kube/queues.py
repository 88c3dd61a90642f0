"""What the queue model reads besides workloads: the schedulers' queues and their per-workload objects.

One paged list per kind of ``workload_map.queues.QUEUE_KINDS`` the cluster serves (Kueue, KAI, Volcano:
whichever are installed), run in parallel like every other read. A kind not served is not asked for; a
list the user may not make is one warning naming the grant, never a failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workload_map.base.coverage import Coverage
from workload_map.base.snapshot import Obj
from workload_map.queues import QUEUE_KINDS
from workload_map.sources.kube.connection import Connection
from workload_map.sources.kube.discovery import Discovery
from workload_map.sources.kube.fetch import ListJob, ListResult, _run_lists


@dataclass
class QueueObjects:
    objects: list[Obj] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    lists: list[ListResult] = field(default_factory=list)
    kinds: list[tuple[str, str]] = field(default_factory=list)  # the kinds listed (served)


def fetch_queue_objects(
    connection: Connection, discovery: Discovery, namespace: str | None, *, chunk_size: int | None = None
) -> QueueObjects:
    """The served queue kinds: cluster-scoped ones (ClusterQueues, Cohorts, KAI and Volcano Queues) in
    full, namespaced ones (LocalQueues, Kueue Workloads, PodGroups) in ``namespace`` (None: all)."""
    options: dict[str, Any] = {"chunk_size": chunk_size}
    jobs: list[ListJob] = []
    for group, kind, versions, _ in QUEUE_KINDS:
        resource = discovery.resource(group, kind, versions)
        if resource is not None and resource.can("list"):
            jobs.append((resource, namespace if resource.namespaced else None, options))
    out = QueueObjects(kinds=[(job[0].group, job[0].kind) for job in jobs])
    coverage = Coverage()
    out.lists = _run_lists(connection, jobs, out.warnings, coverage)
    out.objects = [o for r in out.lists for o in r.items]
    for gap in coverage:
        out.warnings.append(f"{gap.why}: queues are shown without them (fix: {gap.fix})")
    return out
