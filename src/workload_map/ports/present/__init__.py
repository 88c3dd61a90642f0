"""Port: what presenting results needs beyond the public types (for ``cli/`` and ``serve/``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workload_map.ports import lazy_exports

if TYPE_CHECKING:
    from workload_map.gang.report import HEADERS as HEADERS, detail_lines as detail_lines, table_rows as table_rows
    from workload_map.resolve.pods import PlacedPod as PlacedPod
    from workload_map.resolve.quantity import format_quantity as format_quantity
    from workload_map.resolve.resources import (
        gpu_count as gpu_count,
        json_number as json_number,
        to_json as to_json,
    )
    from workload_map.resolve.status import PRECEDENCE as PRECEDENCE, RESOLVER_RULE as RESOLVER_RULE, Check as Check
    from workload_map.tree.figures import holds_gpus as holds_gpus

_EXPORTS: dict[str, tuple[str, ...]] = {
    # the gang table of `wmap gang` and its detail lines
    "workload_map.gang.report": ("HEADERS", "detail_lines", "table_rows"),
    "workload_map.resolve.pods": ("PlacedPod",),
    # Kubernetes quantities as kubectl prints them; requests keyed by resource (to_json); GPUs of requests
    "workload_map.resolve.quantity": ("format_quantity",),
    "workload_map.resolve.resources": ("gpu_count", "json_number", "to_json"),
    # the status rules in the order they are tried (docs/semantics.md), one rule's outcome, and the index
    # that marks the resolver's own rule among a status's matchers
    "workload_map.resolve.status": ("Check", "PRECEDENCE", "RESOLVER_RULE"),
    # whether a pod's requests count against its node: a workload's "GPUs in use" (docs/semantics.md "Figures")
    "workload_map.tree.figures": ("holds_gpus",),
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
