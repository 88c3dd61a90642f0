"""What the live model holds per workload and per watched resource: its answers and its own health."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workload_map.base.coverage import Gap

if TYPE_CHECKING:
    from workload_map.gang.model import GangPlan
    from workload_map.tree.model import WorkloadTree

_UNPLANNED: Any = object()


@dataclass
class Resolved:
    """One top-level workload as last resolved. Its gang plan (None when it has none) is computed when first
    asked for: planning costs about as much as the tree, and only the exporter's scrapes and the API's
    detail read it, so a burst of events on a workload is planned once, at the next scrape."""

    tree: WorkloadTree
    planner: Callable[[], GangPlan] | None = field(default=None, repr=False, compare=False)
    members: tuple[str, ...] = field(default=(), repr=False, compare=False)  # uids whose Events are its own
    _plan: Any = field(default=_UNPLANNED, init=False, repr=False, compare=False)

    @property
    def gang(self) -> GangPlan | None:
        # Two readers may both plan a fresh workload; the plans are equal, the second one is kept.
        if self._plan is _UNPLANNED:
            plan: GangPlan | None = None
            if self.planner is not None:
                try:
                    plan = self.planner()
                except (LookupError, ValueError, TypeError):
                    plan = None
            self._plan = plan
        result: GangPlan | None = self._plan
        return result

    @property
    def gang_groups(self) -> list[tuple[str, int]]:
        gang = self.gang
        return [(g.name or "", g.min_member) for g in gang.groups] if gang else []


@dataclass
class ResourceState:
    """What the model knows about one watched resource (freshness, counters, readability)."""

    name: str
    objects: int = 0
    last_event: float | None = None  # wall-clock time of the last event applied
    events: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # by event type
    relists: int = 0
    errors: int = 0
    readable: bool = True
    error: str | None = None  # the last error, while the resource is failing
    gap: Gap | None = None  # while the resource cannot be read (forbidden, not served)
    failing_since: float | None = None  # wall-clock time of the first error of the current failure
