"""Text rendering of capacity models and fit verdicts (``wmap capacity``, ``wmap fit``)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING

from workload_map.ports.present import format_quantity, gpu_count

if TYPE_CHECKING:
    from workload_map import Capacity, FitResult, NodeCapacity, PoolSummary

ZERO = Decimal(0)


def cores(value: Decimal) -> str:
    """CPU in cores, one decimal at most (``191.5``)."""
    rounded = value.quantize(Decimal("0.1"))
    return str(int(rounded)) if rounded == rounded.to_integral_value() else str(rounded)


def memory(value: Decimal) -> str:
    gib = Decimal(2**30)
    if value >= 1024 * gib:
        return f"{(value / (1024 * gib)).quantize(Decimal('0.1'))}Ti"
    return f"{(value / gib).quantize(Decimal('0.1'))}Gi" if value % gib else f"{int(value / gib)}Gi"


def _pair(free: Decimal, total: Decimal, fmt: str) -> str:
    render = {"gpu": lambda v: format_quantity(v, "nvidia.com/gpu"), "cpu": cores, "memory": memory}[fmt]
    return f"{render(max(free, ZERO))}/{render(total)}"


def block(free: Mapping[str, Decimal]) -> str:
    """``8 GPUs, 96 CPU, 1.0Ti``: a node's free block."""
    parts = []
    gpus = gpu_count(free)
    if gpus:
        parts.append(f"{format_quantity(gpus, 'gpu')} GPUs")
    parts.append(f"{cores(max(free.get('cpu', ZERO), ZERO))} CPU")
    parts.append(memory(max(free.get("memory", ZERO), ZERO)))
    return ", ".join(parts)


POOL_HEADERS = (
    "POOL",
    "NODES",
    "SCHEDULABLE",
    "GPUS FREE/TOTAL",
    "CPU FREE/TOTAL",
    "MEMORY FREE/TOTAL",
    "LARGEST FREE BLOCK",
    "TAINTED (FREE)",
)


def pool_row(pool: PoolSummary) -> list[str]:
    largest = pool.largest
    where = ""
    if largest is not None:
        where = f"{block(largest.free)} on {largest.name}" + (
            f" (+{pool.largest_count - 1} alike)" if pool.largest_count > 1 else ""
        )
    tainted = f"{pool.tainted} ({block(pool.tainted_free)})" if pool.tainted else "-"
    return [
        pool.name,
        str(pool.nodes),
        str(pool.schedulable),
        _pair(pool.gpus_free, pool.gpus, "gpu"),
        _pair(pool.free.get("cpu", ZERO), pool.allocatable.get("cpu", ZERO), "cpu"),
        _pair(pool.free.get("memory", ZERO), pool.allocatable.get("memory", ZERO), "memory"),
        where or "-",
        tainted,
    ]


NODE_HEADERS = ("NODE", "POOL", "STATE", "GPUS FREE/TOTAL", "CPU FREE/TOTAL", "MEMORY FREE/TOTAL", "PODS", "TAINTS")


def node_row(node: NodeCapacity, pool_label: str | None) -> list[str]:
    free = node.free
    return [
        node.name,
        node.pool(pool_label) if pool_label else "-",
        node.state(),
        _pair(gpu_count(free), node.gpus, "gpu"),
        _pair(free.get("cpu", ZERO), node.allocatable.get("cpu", ZERO), "cpu"),
        _pair(free.get("memory", ZERO), node.allocatable.get("memory", ZERO), "memory"),
        f"{node.pods}/{format_quantity(node.allocatable.get('pods', ZERO), 'pods')}",
        ",".join(str(t) for t in node.taints) or "-",
    ]


QUOTA_HEADERS = ("NAMESPACE", "QUOTA", "RESOURCE", "USED", "HARD")


def quota_rows(capacity: Capacity) -> list[list[str]]:
    rows = []
    for quota in sorted(capacity.quotas, key=lambda q: (q.namespace, q.name)):
        for key in sorted(quota.hard):
            base = key.removeprefix("requests.").removeprefix("limits.")
            used = quota.used.get(key, ZERO)
            rows.append(
                [
                    quota.namespace,
                    quota.name + (" (scoped)" if quota.scoped else ""),
                    key,
                    format_quantity(used, base),
                    format_quantity(quota.hard[key], base),
                ]
            )
    return rows


def fit_lines(result: FitResult) -> list[str]:
    workload = result.workload
    head = (
        f"{workload['kind']}/{workload['name']} in namespace {workload['namespace']}"
        + (f" on {result.cluster}" if result.cluster else "")
        + f": {result.pods_per_copy} pod{'' if result.pods_per_copy == 1 else 's'} and "
        f"{format_quantity(result.gpus_per_copy, 'gpu')} GPUs per copy; "
        f"{format_quantity(result.gpus_free, 'gpu')} GPUs free"
    )
    lines = [head, result.verdict()]
    if result.first_copy is not None:
        per_component: dict[str, tuple[int, list[str]]] = {}
        for node, pods in sorted(result.first_copy.nodes.items()):
            for component, count in pods.items():
                total, nodes = per_component.get(component, (0, []))
                per_component[component] = (total + count, [*nodes, node])
        parts = [
            f"{component} {total} pod{'' if total == 1 else 's'} on "
            + (nodes[0] if len(nodes) == 1 else f"{len(nodes)} nodes")
            for component, (total, nodes) in sorted(per_component.items())
        ]
        lines.append("One copy: " + "; ".join(parts))
    if result.own_pods:
        lines.append(
            f"({result.own_pods} pods it already runs are counted as free: the verdict is for placing it anew)"
        )
    return lines


FLEET_FIT_HEADERS = ("RANK", "CLUSTER", "FITS", "COPIES", "NODES/COPY", "GPUS FREE", "GPUS LEFT", "WHY NOT / ONE MORE")


def fleet_fit_head(result: FitResult) -> str:
    workload = result.workload
    pods = result.pods_per_copy
    return (
        f"{workload['kind']}/{workload['name']} in namespace {workload['namespace']}: {pods} "
        f"pod{'' if pods == 1 else 's'} and {format_quantity(result.gpus_per_copy, 'gpu')} GPUs per copy"
    )


def fleet_fit_row(rank: int, result: FitResult) -> list[str]:
    first = result.first_copy
    copies = f">={result.copies}" if result.capped else str(result.copies)
    reason = result.blocking.message if result.blocking is not None and not result.capped else "-"
    return [
        str(rank),
        result.cluster or "",
        "yes" if result.fits else "no",
        copies,
        str(first.nodes_used) if first else "-",
        format_quantity(result.gpus_free, "gpu"),
        format_quantity(first.gpus_left, "gpu") if first else "-",
        reason,
    ]
