"""A run of another project's kind the operator creates for each object (``--api-source``): a build or test
kind whose controller hands the work to a pipeline engine (``&tektonv1.TaskRun{ObjectMeta: ..., Spec: ...}``)
makes no pod of its own; the engine's kind does, and the catalog knows how. When the object has no pod
definition and nothing else makes its pods, the one such kind its code builds is its child, one per object,
its pod composed by the code. Several such kinds built by methods of one name (``InitializeExecutor`` of a
TaskRun runner and of a PipelineRun runner: implementations of one interface, picked by configuration) are
alternatives: the first stands for them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from workload_map.authoring.builder import Builder
from workload_map.authoring.gochain import _known
from workload_map.authoring.gochildren import BuiltChild, built_children
from workload_map.authoring.gocode import GoCode, go_code
from workload_map.authoring.goread import Package


def run_child(builder: Builder, root: Path | GoCode, kind: str, version: str) -> BuiltChild | None:
    """The other project's pod-making kind the code taking ``kind`` builds, as a child of one per object."""
    package = Package(go_code(root).root)
    runs = [
        child
        for child in built_children(root, kind, version, foreign=True)
        if "importPath" in child.kind
        and not package.folders_of(child.kind["importPath"])  # a kind of the operator's own: gochain.py's
        and builder.covering(*_catalog_identity(builder, child)) is not None
    ]
    if not runs or len({child.function for child in runs}) != 1:
        return None  # unrelated kinds: which one makes the object's pods is not told by the code
    # One pod per run where the catalog counts the kind so (a TaskRun); a kind running groups of pods counted
    # from its own spec (a LeaderWorkerSet's replicas x size) gets its count from what the code writes there,
    # which is not read here: a gap.
    known_runs = [(child, _known(builder, child.kind) or child.kind) for child in sorted(runs, key=lambda c: c.where)]
    single = [(child, known) for child, known in known_runs if _one_pod_per_run(builder, known)]
    child, known = (single or known_runs)[0]
    return replace(child, kind=known, constant=1 if single else None, count=None, composed=True, uncounted=not single)


def _one_pod_per_run(builder: Builder, known: dict[str, str]) -> bool:
    counted = builder.catalog_expression(known, "replicas_path")
    return counted is not None and counted[0].strip() == "1"


def _catalog_identity(builder: Builder, child: BuiltChild) -> tuple[str, str]:
    known = _known(builder, child.kind)
    return (known["group"], known["kind"]) if known is not None else ("", "")
