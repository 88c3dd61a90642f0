"""A cluster's GPU figures, defined once (docs/placement.md, docs/semantics.md "Figures") for ``wmap
capacity``, ``wmap fit``, the dashboard's home page and ``/api/v1/fleet``.

- **total**: GPUs allocatable on every node.
- **in use**: GPUs requested by the pods bound to a node that have not finished (the same count as a
  workload's "GPUs in use", summed over every pod, workload or not).
- **free**: allocatable less in use on the nodes any pod can use (Ready, not cordoned, no blocking taint).
- **free on tainted nodes**: the same on the schedulable nodes with a blocking taint: free only for pods
  that tolerate it (``wmap fit`` honours tolerations, so it counts both: free + free on tainted nodes).
- the rest of total (NotReady or cordoned nodes, over-committed nodes) is **unavailable**.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from workload_map.resolve.resources import gpu_count, json_number as number

if TYPE_CHECKING:
    from workload_map.placement.capacity import Capacity, NodeCapacity

ZERO = Decimal(0)


@dataclass
class GpuFigures:
    """GPUs of a set of nodes (a pool or the cluster): the module docstring's figures."""

    name: str
    nodes: int = 0
    total: Decimal = ZERO
    in_use: Decimal = ZERO
    free: Decimal = ZERO
    free_tainted: Decimal = ZERO

    @property
    def unavailable(self) -> Decimal:
        return max(self.total - self.in_use - self.free - self.free_tainted, ZERO)

    def add(self, node: NodeCapacity) -> None:
        self.nodes += 1
        self.total += node.gpus
        self.in_use += gpu_count(node.used)
        if node.takes_any_pod:
            self.free += node.gpus_free
        elif node.tainted:
            self.free_tainted += node.gpus_free

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "nodes": self.nodes,
            "total": number(self.total),
            "inUse": number(self.in_use),
            "free": number(self.free),
            "freeTainted": number(self.free_tainted),
            "unavailable": number(self.unavailable),
        }


def gpu_figures(capacity: Capacity, pool_label: str | None = None) -> tuple[GpuFigures, list[GpuFigures]]:
    """The cluster's GPU figures, and one per pool of node label ``pool_label`` holding GPUs (none without
    a label)."""
    total = GpuFigures("total")
    pools: dict[str, GpuFigures] = {}
    for node in capacity.nodes:
        total.add(node)
        if pool_label:
            pools.setdefault(node.pool(pool_label), GpuFigures(node.pool(pool_label))).add(node)
    return total, [pools[name] for name in sorted(pools) if pools[name].total]
