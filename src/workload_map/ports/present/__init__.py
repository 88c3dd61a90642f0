"""Port: what presenting results needs beyond the public types (for ``cli/`` and ``serve/``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workload_map.ports import lazy_exports

if TYPE_CHECKING:
    from workload_map.gang.report import HEADERS as HEADERS, detail_lines as detail_lines, table_rows as table_rows
    from workload_map.resolve.pods import PlacedPod as PlacedPod
    from workload_map.resolve.quantity import format_quantity as format_quantity
    from workload_map.resolve.resources import gpu_count as gpu_count, to_json as to_json
    from workload_map.resolve.status import PRECEDENCE as PRECEDENCE, Check as Check

_EXPORTS: dict[str, tuple[str, ...]] = {
    # the gang table of `wmap gang` and its detail lines
    "workload_map.gang.report": ("HEADERS", "detail_lines", "table_rows"),
    "workload_map.resolve.pods": ("PlacedPod",),
    # Kubernetes quantities as kubectl prints them; requests keyed by resource (to_json); GPUs of requests
    "workload_map.resolve.quantity": ("format_quantity",),
    "workload_map.resolve.resources": ("gpu_count", "to_json"),
    # the status rules in the order they are tried (docs/semantics.md), and one rule's outcome
    "workload_map.resolve.status": ("Check", "PRECEDENCE"),
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
