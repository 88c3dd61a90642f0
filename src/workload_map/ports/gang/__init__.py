"""Port: gang planning of workloads among a set of objects, for the operator (its PodGroups, its pod
attachment). The operator holds objects from its own watches; :class:`WorkloadGangs` finds the workloads
among them and plans their gangs as ``wmap gang`` does, without the operator touching the resolver."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from workload_map.ports import lazy_exports

if TYPE_CHECKING:
    from workload_map.base.objects import Obj
    from workload_map.definition.registry import DefinitionRegistry
    from workload_map.gang.compute import gang_definitions as gang_definitions
    from workload_map.gang.emit import COSCHEDULING as COSCHEDULING, VOLCANO as VOLCANO
    from workload_map.gang.model import GangPlan


class WorkloadGangs:
    """The covered workloads among ``objects`` (a workload, its owners, children and pods), read through
    the definitions of ``registry``."""

    def __init__(self, registry: DefinitionRegistry, objects: Iterable[Obj]) -> None:
        from workload_map.base.snapshot import Snapshot  # noqa: PLC0415 (a port loads what it serves on first use)
        from workload_map.resolve.workloads import WorkloadIndex  # noqa: PLC0415 (a port loads what it serves on first use)

        self._index = WorkloadIndex(Snapshot(list(objects)), registry)

    def find(self, uid: str | None) -> Obj | None:
        """The object of ``uid`` as read (None when absent)."""
        return next((o for o in self._index.snapshot if (o.get("metadata") or {}).get("uid") == uid), None)

    def is_top_level(self, workload: Obj) -> bool:
        """No covered workload owns it: its gang is its own, not part of an owner's."""
        return self._index.owner_workload(workload) is None

    def plan(self, workload: Obj) -> GangPlan:
        """The gang plan of ``workload`` (one found here), as ``wmap gang`` computes it."""
        from workload_map.gang.compute import plan_in_view  # noqa: PLC0415 (a port loads what it serves on first use)

        return plan_in_view(self._index, workload)


_EXPORTS: dict[str, tuple[str, ...]] = {
    # the definitions whose workloads get groups
    "workload_map.gang.compute": ("gang_definitions",),
    # the schedulers the operator creates PodGroups for
    "workload_map.gang.emit": ("COSCHEDULING", "VOLCANO"),
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
