"""What ``capacity`` and ``fit`` read besides workloads: nodes, the pods that hold node resources, quotas.

Three paged lists at most, run in parallel like every other read: Nodes (cluster-scoped), ResourceQuotas
of the namespace in scope (every namespace with -A), and the non-terminal pods of every namespace (a
field selector leaves finished pods on the server) unless the workload read already listed all pods. A
list the user may not make is one warning naming the grant, never a failure (docs/security.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workload_map.base.coverage import Coverage
from workload_map.base.snapshot import Obj
from workload_map.sources.kube.connection import Connection
from workload_map.sources.kube.discovery import ServedResource
from workload_map.sources.kube.fetch import ListJob, _run_lists

NODES = ServedResource("", "v1", "Node", "nodes", False, ("no",), ("list",))
QUOTAS = ServedResource("", "v1", "ResourceQuota", "resourcequotas", True, ("quota",), ("list",))
PODS = ServedResource("", "v1", "Pod", "pods", True, ("po",), ("list",))
ACTIVE_PODS = "status.phase!=Succeeded,status.phase!=Failed"

_CONSEQUENCE = {
    "Node": "no node is known, so nothing can be placed",
    "Pod": "what pods of other namespaces use on the nodes is unknown, so free capacity is overstated",
    "ResourceQuota": "namespace quotas are not checked",
}


@dataclass
class CapacityObjects:
    """The objects a capacity model is built from, and what could not be read."""

    nodes: list[Obj] = field(default_factory=list)
    pods: list[Obj] = field(default_factory=list)
    quotas: list[Obj] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def fetch_capacity(
    connection: Connection,
    namespace: str | None,
    *,
    pods: Sequence[Obj] | None = None,
    chunk_size: int | None = None,
) -> CapacityObjects:
    """Nodes, quotas of ``namespace`` (None: all) and, unless ``pods`` already holds every pod of the
    cluster, the non-terminal pods of all namespaces."""
    options: dict[str, Any] = {"chunk_size": chunk_size}
    jobs: list[ListJob] = [(NODES, None, options), (QUOTAS, namespace, options)]
    if pods is None:
        jobs.insert(0, (PODS, None, {**options, "field_selector": ACTIVE_PODS}))
    warnings: list[str] = []
    coverage = Coverage()
    results = _run_lists(connection, jobs, warnings, coverage)
    out = CapacityObjects(pods=list(pods) if pods is not None else [])
    for result in results:
        if result.resource is NODES:
            out.nodes = result.items
        elif result.resource is QUOTAS:
            out.quotas = result.items
        else:
            out.pods = result.items
    for gap in coverage:
        out.warnings.append(f"{gap.why}: {_CONSEQUENCE.get(gap.kind, 'left out')} (fix: {gap.fix})")
    out.warnings.extend(warnings)
    return out
