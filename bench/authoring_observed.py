"""Components, template paths and replica counts drafted with the lab's recordings, against the shipped definitions.

For every workload kind the lab recorded (tests/lab/recordings) the catalog ships a definition for, a draft is
made from the CRD and the framework's corpus samples (when the corpus has them: not for built-in kinds) and the
recordings (what ``wmap definitions new --from-recording`` gives a user), and, for comparison, from the CRD and
the samples alone (the recorded objects as plain samples for a built-in kind).
Each is compared with the shipped definition:

- components: per recorded version of the root, the kind owning the pods of each instance that runs some (the
  root's own through the first pod-owning kind its additional child kinds name), as a multiset, right when both
  definitions say the same;
- templates: per recorded version of the root, the pod templates (container name + image per instance) the draft
  reads are those the shipped definition reads;
- replicas: likewise with each instance's desired pods.

With several recordings of a kind, each one is read by drafts made from the others only (out of sample).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import workload_map as wm
from authoring_recorded import _loaded, _objects, _roots, recordings_by_kind
from workload_map.definition.loader import LoadedDefinition

# The kinds that own pods: the root's pods come through the first of them its additional child kinds name.
POD_OWNERS = frozenset({"ReplicaSet", "StatefulSet", "DaemonSet", "Job", "Deployment"})


@dataclass
class Side:
    components: int = 0
    templates: int = 0
    replicas: int = 0


@dataclass
class Row:
    kind: str
    recordings: int
    states: int = 0
    plain: Side | None = None
    recorded: Side | None = None
    drafted_kinds: str = ""
    shipped_kinds: str = ""


def _kinds(definition: LoadedDefinition) -> Counter[str]:
    return Counter(
        (c.kind.kind if c.kind is not None else "Pod") for c in definition.karta.components if c.spec_definition
    )


def _instances(tree: dict[str, Any] | None) -> Counter[tuple[Any, ...]]:
    out: Counter[tuple[Any, ...]] = Counter()
    for component in (tree or {}).get("components", []):
        if not component["producesPods"]:
            continue
        for instance in component["instances"]:
            out[(_signature(instance), int(instance["desiredPods"]))] += 1
    return out


def _signature(instance: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """An instance's pod template as its containers' names and images."""
    containers = (((instance.get("podTemplate") or {}).get("spec") or {}).get("containers")) or []
    return tuple(sorted((str(c.get("name")), str(c.get("image"))) for c in containers))


def _owners(definition: LoadedDefinition, tree: dict[str, Any] | None) -> Counter[str]:
    """The owner kind of each instance that runs pods: the root's pods are owned through the first pod-owning
    kind of its additional child kinds, else by it."""
    karta = definition.karta
    kinds = {c.name: (c.kind.kind if c.kind is not None else "Pod") for c in karta.components}
    between = [k.kind for k in karta.spec.structure_definition.additional_child_kinds if k.kind in POD_OWNERS]
    kinds[karta.root.name] = between[0] if between else "Pod"
    return Counter(
        kinds.get(c["name"], "?")
        for c in (tree or {}).get("components", [])
        if c["producesPods"]
        for _ in _signatures(c)
    )


def _signatures(component: dict[str, Any]) -> list[Any]:
    """The pod templates of the instances that run pods."""
    return [_signature(instance) for instance in component["instances"] if instance.get("desiredPods")]


def _score(
    side: Side,
    drafted: LoadedDefinition,
    shipped: LoadedDefinition,
    roots: list[dict[str, Any]],
    tree: Callable[..., Any],
) -> None:
    for root in roots:
        mine_tree, theirs_tree = tree(drafted, root), tree(shipped, root)
        side.components += _owners(drafted, mine_tree) == _owners(shipped, theirs_tree)
        mine, theirs = _instances(mine_tree), _instances(theirs_tree)
        side.templates += Counter(s for (s, _), n in mine.items() for _ in range(n)) == Counter(
            s for (s, _), n in theirs.items() for _ in range(n)
        )
        side.replicas += mine == theirs


def score_observed(
    shipped: dict[tuple[str, str], LoadedDefinition],
    crds: dict[tuple[str, str], dict[str, Any]],
    samples: Callable[[str, str], list[dict[str, Any]]],
    tree: Callable[..., Any],
) -> list[Row]:
    """One row per recorded kind with a shipped definition; ``samples(group, kind)`` the corpus objects."""
    rows = []
    for (group, kind), recorded in recordings_by_kind(shipped, skip=("kueue",)):
        row = Row(f"{kind}.{group}", len(recorded), plain=Side(), recorded=Side())
        crd = crds.get((group, kind))
        objects = samples(group, kind) if crd is not None else []
        assert row.plain is not None and row.recorded is not None
        truth = shipped[(group, kind)]
        for index, (_, recording) in enumerate(recorded):
            others_pairs = [pair for i, pair in enumerate(recorded) if i != index] or [recorded[index]]
            others = [p for p, _ in others_pairs]
            # Without a CRD (a built-in kind) the recordings' objects are the plain side's samples.
            given = objects or _objects([r for _, r in others_pairs])
            plain = _loaded(wm.draft_definition(crd, objects=given))
            drafted = _loaded(wm.draft_definition(crd, objects=objects, recordings=others))
            roots = _roots(recording)
            row.states += len(roots)
            _score(row.recorded, drafted, truth, roots, tree)
            _score(row.plain, plain, truth, roots, tree)
            if index == 0:
                row.drafted_kinds = ", ".join(sorted(_kinds(drafted).elements()))
        row.shipped_kinds = ", ".join(sorted(_kinds(truth).elements()))
        rows.append(row)
    return rows


def table(rows: list[Row]) -> str:
    lines = [
        "| kind | recordings | states | components (samples / recordings) | templates | replicas "
        "| drafted / shipped pod kinds |",
        "|---|---|---|---|---|---|---|",
    ]
    totals = [0, 0, 0, 0, 0, 0, 0, 0]
    for r in rows:
        assert r.plain is not None and r.recorded is not None
        n = r.recordings
        lines.append(
            f"| {r.kind} | {n} | {r.states} | {r.plain.components}/{r.states} / {r.recorded.components}/{r.states} "
            f"| {r.plain.templates}/{r.states} / {r.recorded.templates}/{r.states} "
            f"| {r.plain.replicas}/{r.states} / {r.recorded.replicas}/{r.states} "
            f"| {r.drafted_kinds} / {r.shipped_kinds} |"
        )
        for i, v in enumerate(
            (
                n,
                r.states,
                r.plain.components,
                r.recorded.components,
                r.plain.templates,
                r.recorded.templates,
                r.plain.replicas,
                r.recorded.replicas,
            )
        ):
            totals[i] += v
    n, s = totals[0], totals[1]
    lines.append(
        f"| **all {len(rows)}** | {n} | {s} | **{totals[2]}/{s} / {totals[3]}/{s}** "
        f"| **{totals[4]}/{s} / {totals[5]}/{s}** | **{totals[6]}/{s} / {totals[7]}/{s}** | |"
    )
    return "\n".join(lines)
