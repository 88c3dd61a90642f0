"""Placement for callers that hold requirements and capacity apart from a View (a federation layer that
received ComponentRequirements from elsewhere, or one capacity model fitted against many workloads)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from workload_map.errors import WorkloadMapError

if TYPE_CHECKING:
    from workload_map.api.view import View
    from workload_map.placement import Capacity, FitResult, WorkloadRequirements


def fit(
    requirements: WorkloadRequirements | Mapping[str, Any],
    capacity: Capacity | View,
    *,
    max_copies: int = 1000,
    cluster: str | None = None,
) -> FitResult:
    """How many complete copies of a workload fit on a cluster now (docs/placement.md).

    ``requirements``: :meth:`View.components`' result or its JSON form (``wmap components -o json``);
    ``capacity``: a :class:`Capacity` or a View (its :meth:`View.capacity`). ``cluster`` names the
    cluster in the result."""
    from workload_map.api.view import View
    from workload_map.placement import WorkloadRequirements
    from workload_map.placement import fit as place

    if not isinstance(requirements, WorkloadRequirements):
        try:
            requirements = WorkloadRequirements.from_json(requirements)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise WorkloadMapError("cannot read component requirements", detail=str(exc)) from None
    model = capacity.capacity() if isinstance(capacity, View) else capacity
    return place(requirements, model, max_copies=max_copies, cluster=cluster)
