"""Placement for callers that hold requirements and capacity apart from a View (a federation layer that
received ComponentRequirements from elsewhere, or one capacity model fitted against many workloads)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from workload_map.api.view import View
from workload_map.errors import NotFoundError, WorkloadMapError
from workload_map.placement import WorkloadRequirements, fit as place, rank_fits

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

    if not isinstance(requirements, WorkloadRequirements):
        try:
            requirements = WorkloadRequirements.from_json(requirements)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise WorkloadMapError("cannot read component requirements", detail=str(exc)) from None
    model = capacity.capacity() if isinstance(capacity, View) else capacity
    return place(requirements, model, max_copies=max_copies, cluster=cluster)


def fit_clusters(
    views: Mapping[str, View],
    target: str | Mapping[str, Any],
    name: str | None = None,
    *,
    namespace: str | None = None,
    max_copies: int = 1000,
) -> list[FitResult]:
    """Fit one workload on several clusters (cluster name -> View) and rank them, best first
    (:func:`workload_map.placement.rank_fits`).

    ``target`` is ``"TYPE/NAME"`` (in ``namespace``, else each view's own; the object of the first view
    that has it) or a manifest dict. Every cluster resolves that object through its own definitions; only
    the cluster that runs it counts its pods as free."""

    if not views:
        raise WorkloadMapError("no cluster to fit on", hint="give at least one view")
    scope = {} if namespace is None else {"namespace": namespace}
    if isinstance(target, Mapping):
        obj = dict(target)
    else:
        found = None
        for view in views.values():
            try:
                found = view.find(target, name, **scope)
            except NotFoundError:
                continue
            break
        if found is None:  # the not-found error of the first cluster, with its hint
            found = next(iter(views.values())).find(target, name, **scope)
        obj = found
    results = []
    for cluster, view in views.items():
        result = view.fit(obj, max_copies=max_copies)  # another view's object holds none of this view's pods
        result.cluster = cluster
        results.append(result)
    return rank_fits(results)
