"""Building one workload's tree from its definition, the object and the pods that belong to it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from workload_map.base.gc_pause import bulk
from workload_map.base.objects import key_of
from workload_map.definition.model import LoadedDefinition, ResourceStatus
from workload_map.resolve.components import resolve_components
from workload_map.resolve.evaluate import Diagnostics
from workload_map.resolve.pods import PodPlacer
from workload_map.resolve.status import evaluate_status, pods_going_away
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.tree.model import ComponentNode, DefinitionRef, InstanceNode, WorkloadTree


def build_tree(
    definition: LoadedDefinition,
    workload: dict[str, Any],
    pods: Iterable[dict[str, Any]] = (),
    *,
    children: Iterable[dict[str, Any]] = (),
    extra_warnings: Iterable[str] = (),
) -> WorkloadTree:
    karta = definition.karta
    diagnostics = Diagnostics(str(key_of(workload)), definition.location)
    components = resolve_components(karta, workload, diagnostics)
    status = evaluate_status(karta.root.status_definition, workload)
    finished = status.primary in (ResourceStatus.COMPLETED, ResourceStatus.FAILED)
    views = {
        name: ComponentNode(component, [InstanceNode(i, workload_finished=finished) for i in component.instances])
        for name, component in components.items()
    }
    # Instance views by id (the first one of an id, as a scan would find it): one lookup per pod instead
    # of a scan over the component's instances.
    by_id: dict[str, dict[str | None, InstanceNode]] = {}
    for name, view in views.items():
        ids: dict[str | None, InstanceNode] = {}
        for iv in view.instances:
            ids.setdefault(iv.instance.id, iv)
        by_id[name] = ids
    placer = PodPlacer(components, diagnostics)
    unattributed = []
    notes: list[str] = []
    states = []
    for pod in pods:
        placed = placer.place(pod)
        states.append(placed.state)
        notes.extend(f"pod {placed.name}: {n}" for n in placed.notes)
        if placed.component is None:
            unattributed.append(placed)
            continue
        target = by_id[placed.component].get(placed.instance)
        if target is None:
            placed.unattributed_reason = f"instance {placed.instance!r} of {placed.component!r} not found"
            unattributed.append(placed)
            continue
        target.pods.append(placed)
        for problem in placed.resources.problems:
            notes.append(f"pod {placed.name}: {problem}")
    pods_going_away(status, states)
    warnings = [*extra_warnings, *diagnostics.messages(), *notes]
    warnings += [f"{key_of(workload)}: status: {e}" for e in status.errors]
    root_kind = karta.root.kind
    ref = DefinitionRef(karta.name, definition.origin, str(definition.location), root_kind.version if root_kind else "")
    return WorkloadTree(workload, ref, status, list(views.values()), unattributed, warnings, list(children))


def tree_of(index: WorkloadIndex, workload: dict[str, Any]) -> WorkloadTree:
    """The tree of one workload of an index; LookupError when no definition covers its kind."""
    definition, version_warning = index.registry.for_object(workload)
    if definition is None:
        raise LookupError(f"no definition covers {workload.get('kind')} ({workload.get('apiVersion')})")
    tree = build_tree(
        definition,
        workload,
        index.pods_of(workload),
        children=index.children_of(workload),
        extra_warnings=[version_warning] if version_warning else [],
    )
    tree.incomplete = [gap.why for gap in index.incomplete(workload)]
    return tree


@bulk
def trees_of(index: WorkloadIndex, workloads: Iterable[dict[str, Any]]) -> tuple[list[WorkloadTree], list[str]]:
    """Trees for many workloads; one that cannot be resolved becomes a warning, not a failure."""
    trees, problems = [], []
    for workload in workloads:
        try:
            trees.append(tree_of(index, workload))
        except (LookupError, RecursionError, ValueError, TypeError) as exc:
            problems.append(f"{key_of(workload)}: cannot resolve: {exc}")
    return trees, problems
