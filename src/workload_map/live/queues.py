"""The live model's queue report (docs/queues.md): the schedulers' queue objects are watched with the
workloads (``LiveOptions.queues``), so the report changes with each event, as the workloads do.

After each applied batch the applier thread (the store's only writer) takes what the report is built from:
the store's objects and the resolved top-level workloads, as they are at that version. A reader builds the
report from them once per version, in its own thread, with the same ``build_queues`` as ``View.queues``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workload_map.base.snapshot import Snapshot
from workload_map.queues import QueueReport, build_queues

if TYPE_CHECKING:
    from workload_map.base.coverage import Coverage
    from workload_map.base.objects import Obj
    from workload_map.definition.registry import DefinitionRegistry
    from workload_map.live.model import Resolved
    from workload_map.tree.model import WorkloadTree


@dataclass(frozen=True)
class QueueInputs:
    """What one version of the model's queue report is built from."""

    version: int
    objects: tuple[Obj, ...]
    trees: tuple[WorkloadTree, ...]


class QueueState:
    """The inputs of the model's latest version and the report last built (replaced whole: readers in
    other threads see one version or the next, never a mix)."""

    def __init__(self) -> None:
        self.inputs: QueueInputs | None = None
        self.built: tuple[int, QueueReport] | None = None

    def take(self, version: int, objects: Iterable[Obj], results: Iterable[list[Resolved]]) -> None:
        """The objects and top-level workloads of ``version`` (the applier thread's, after a batch)."""
        trees = tuple(r.tree for resolved in results for r in resolved)
        self.inputs = QueueInputs(version, tuple(objects), trees)

    def report(
        self, registry: DefinitionRegistry, coverage: Coverage, namespace: str | None, warnings: Sequence[str]
    ) -> QueueReport | None:
        """``View.queues`` of the latest version taken (None before the first), built once per version."""
        inputs, built = self.inputs, self.built
        if inputs is None:
            return None
        if built is not None and built[0] == inputs.version:
            return built[1]
        snapshot = Snapshot(inputs.objects, coverage=coverage)
        report = build_queues(snapshot, inputs.trees, registry.covers, namespace)
        report.warnings[:0] = warnings
        self.built = (inputs.version, report)
        return report
