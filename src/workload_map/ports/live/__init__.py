"""Port: the read interface over the live model, for ``wmap serve`` (its dashboard, JSON API and metrics).

``workload_map.watch_cluster`` starts a model (``workload_map.LiveModel``); a server reads it only through
:class:`LiveReader`, so what the model keeps and how it keeps it current stay behind this door.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from workload_map.ports import lazy_exports

if TYPE_CHECKING:
    from collections.abc import Mapping

    from workload_map.api.selectors import check_status as check_status, matches as matches
    from workload_map.base.coverage import Coverage, Gap
    from workload_map.definition.registry import DefinitionRegistry
    from workload_map.live.resolved import Resolved as Resolved, ResourceState as ResourceState
    from workload_map.queues import QueueReport
    from workload_map.sources.kube.retry import RetryPolicy as RetryPolicy
    from workload_map.tree.events import WorkloadEvent


class LiveReader(Protocol):
    """What a server reads of a live model (``workload_map.LiveModel`` is one; so is a model of a dump)."""

    @property
    def version(self) -> int:
        """Incremented after every change applied: an answer's version."""

    @property
    def registry(self) -> DefinitionRegistry:
        """The definitions in effect (TYPE names, the definitions listed)."""

    @property
    def coverage(self) -> Coverage:
        """What cannot be read now (replaced, never changed in place)."""

    @property
    def apiserver_error(self) -> str | None:
        """Why the API server does not answer, while it does not."""

    @property
    def warnings(self) -> list[str]:
        """What the initial read said."""

    @property
    def resources(self) -> Mapping[str, ResourceState]:
        """Each watched resource's state (objects, events, relists, errors), by name."""

    @property
    def sync_seconds(self) -> float | None:
        """How long the initial read took (None until synced)."""

    @property
    def started_at(self) -> float | None:
        """Wall-clock time the initial read began."""

    @property
    def resolves(self) -> int:
        """Workload roots re-resolved since start."""

    def workloads(self) -> list[Resolved]:
        """Every top-level workload as last resolved, sorted as ``wmap get -A`` sorts them."""

    def queues(self) -> QueueReport | None:
        """The queue report of the current state (docs/queues.md), or None when queues are not watched."""

    def workload_events(self, item: Resolved) -> list[WorkloadEvent]:
        """The Events of a workload's objects (its root, what it owns, its pods), newest last."""

    def readiness(self) -> tuple[bool, str]:
        """``/readyz``: ready or not, and why in one line."""

    def problems(self) -> list[str]:
        """What is not current now, one line per cause."""

    def last_contact_age(self) -> float | None:
        """Seconds since the API server last answered."""

    def gap_warnings(self) -> list[str]:
        """One line per gap that matters."""

    def gap_objects(self) -> dict[Gap, int]:
        """Each gap that matters, with how many objects read lie in it."""

    def wait_for_version(self, version: int, timeout: float) -> bool:
        """Block until a change after ``version`` is applied, or ``timeout`` seconds (False then)."""

    def stop(self) -> None:
        """End the watches."""


_EXPORTS: dict[str, tuple[str, ...]] = {
    # the JSON API's ?selector= and ?status= filters, as `wmap get -l` and `--status` apply them
    "workload_map.api.selectors": ("check_status", "matches"),
    "workload_map.live.resolved": ("Resolved", "ResourceState"),
    # how a fleet's cluster that failed at start is retried (the sources' retry policy)
    "workload_map.sources.kube.retry": ("RetryPolicy",),
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
