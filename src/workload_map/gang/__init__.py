"""Gang scheduling: the pod groups a workload needs, computed from its definition (docs/gang.md).

``plan_gang`` computes the groups the way KAI Scheduler's Karta grouper does (names, members, minimum
sizes), from the workload's pods or from its spec alone; ``emit`` turns a plan into PodGroup
manifests for KAI, Volcano, scheduler-plugins coscheduling or the Kubernetes Workload API.
"""

from __future__ import annotations

from workload_map.gang.compute import GangError, GangPlanner, group_name, plan_gang, plan_in_view
from workload_map.gang.model import GangPlan, PodError, PodGroupPlan, Shape, SubGroup, TopologySpec
from workload_map.gang.scale import SubtreeScale, effective_count

__all__ = [
    "GangError",
    "GangPlan",
    "GangPlanner",
    "PodError",
    "PodGroupPlan",
    "Shape",
    "SubGroup",
    "SubtreeScale",
    "TopologySpec",
    "effective_count",
    "group_name",
    "plan_gang",
    "plan_in_view",
]
