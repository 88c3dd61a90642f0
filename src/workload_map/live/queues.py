"""The live model's queue report (docs/queues.md): the schedulers' queue objects are watched with the
workloads (``LiveOptions.queues``), so the report changes with each event, as the workloads do.

A reader takes what the report is built from under the model's store lock (held by the applier while a
batch changes the store): the objects and the resolved top-level workloads, copied as they are. Copying on
demand, not after every batch, keeps the applier's cost per batch what it was (a copy of the store's
100,000 references costs milliseconds). The report is built outside the lock, once per version, with the
same ``build_queues`` as ``View.queues``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from workload_map.base.snapshot import Snapshot
from workload_map.queues import QueueReport, build_queues

if TYPE_CHECKING:
    import threading

    from workload_map.base.coverage import Coverage
    from workload_map.base.objects import Obj
    from workload_map.definition.registry import DefinitionRegistry
    from workload_map.live.resolved import Resolved

# The model's version, its objects and its resolved workloads (per root): read under the store lock.
Store = Callable[[], tuple[int, Iterable["Obj"], Iterable[list["Resolved"]]]]


class QueueState:
    """The report last built and the model version it is of."""

    def __init__(self) -> None:
        self.built: tuple[int, QueueReport] | None = None

    def report(
        self,
        lock: threading.Lock,
        store: Store,
        registry: DefinitionRegistry,
        coverage: Coverage,
        *,
        namespace: str | None,
        warnings: Sequence[str],
    ) -> QueueReport:
        """``View.queues`` of the model's objects now, built once per version."""
        with lock:
            version, objects, results = store()
            built = self.built
            if built is not None and built[0] == version:
                return built[1]
            kept = tuple(objects)
            trees = tuple(r.tree for resolved in results for r in resolved)
        report = build_queues(Snapshot(kept, coverage=coverage), trees, registry.covers, namespace)
        report.warnings[:0] = warnings
        self.built = (version, report)
        return report
