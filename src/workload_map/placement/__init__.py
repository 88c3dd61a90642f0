"""Capacity and placement: what a cluster has free, what a workload asks of it, and how many copies fit.

``capacity`` models nodes, the pods bound to them and namespace quotas; ``requirements`` turns a resolved
workload and its gang plan into per-component requirements (Karmada's ComponentRequirements shape);
``fit`` places complete copies. The contract is docs/placement.md.
"""

from workload_map.placement.capacity import Capacity, NodeCapacity, PoolSummary, QuotaState
from workload_map.placement.claims import NodeClaim, Taint
from workload_map.placement.fit import Blocker, CopyPlacement, FitResult, fit, rank_fits
from workload_map.placement.requirements import (
    ComponentRequirement,
    GangGroupRequirement,
    WorkloadRequirements,
    requirements_of,
)

__all__ = [
    "Blocker",
    "Capacity",
    "ComponentRequirement",
    "CopyPlacement",
    "FitResult",
    "GangGroupRequirement",
    "NodeCapacity",
    "NodeClaim",
    "PoolSummary",
    "QuotaState",
    "Taint",
    "WorkloadRequirements",
    "fit",
    "rank_fits",
    "requirements_of",
]
