"""A definition's samples as its regression test: `wmap definitions test DEF --samples DIR`.

Every sample object of the definition's root kind is resolved (with the pods and intermediate owners found
beside it in the samples, so a captured tree reads as it would live) and compared with the expectation the
sample carries in its ``workload-map.run.ai/expect`` annotation, a JSON object:

    {"primary": "Running", "matched": ["Running"], "pods": {"worker": 4}, "desiredPods": 5, "gpus": 8}

``pods`` are desired pods per pod-producing component (summed over its instances), ``podsCurrent`` and
``podsReady`` the pods present and ready per component (the tree's ``components[].pods``), ``gpusCurrent``
the GPUs of the present, active pods (``totals.gpusCurrent``); every key is optional, and a key we do not
know is itself a failure, so a misspelt expectation never passes silently. A sample without the
annotation is shown but decides nothing. Checkpoints of a recording (sources/recording.py) carry the same
expectation and are checked here, on the state the recording replays to (:func:`check_state`).

It resolves (WorkloadIndex), so it lives in the views layer next to ``checks.expressions``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from workload_map.base.expectation import EXPECT_KEYS, expectation_problem
from workload_map.base.snapshot import ObjectKey, Snapshot, group_of, key_of, name_of, namespace_of
from workload_map.checks.expectations import Expectation
from workload_map.definition.model import LoadedDefinition
from workload_map.definition.registry import AmbiguousType, DefinitionRegistry
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.sources.documents import Document
from workload_map.tree.build import tree_of

EXPECT_ANNOTATION = "workload-map.run.ai/expect"
# Per-component expectations -> the PodCounts field of components[].pods they are compared with.
_PER_COMPONENT = {"pods": "desired", "podsCurrent": "current", "podsReady": "ready"}


@dataclass
class Check:
    """One expected fact against what the definition resolved."""

    key: str
    expected: Any
    actual: Any

    @property
    def ok(self) -> bool:
        return bool(self.expected == self.actual)

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "expected": self.expected, "actual": self.actual, "ok": self.ok}


@dataclass
class SampleResult:
    """One sample workload: where it came from, its tree (JSON form) and the expectation checks."""

    key: str
    location: str
    tree: dict[str, Any] | None
    checks: list[Check] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # an unreadable expectation, an unresolvable tree
    has_expectation: bool = False
    # A state of a recording: the events applied, when the last was received, the checkpoint's name.
    after: int | None = None
    at: str | None = None
    checkpoint: str | None = None

    @property
    def pods(self) -> dict[str, tuple[int, int]]:
        """Per pod-producing component: (desired pods, pods found in the samples)."""
        if self.tree is None:
            return {}
        observed: dict[str, int] = {}
        for pod in self.tree["pods"]:
            observed[pod.get("component") or ""] = observed.get(pod.get("component") or "", 0) + 1
        return {name: (count, observed.get(name, 0)) for name, count in pods_per_component(self.tree).items()}

    @property
    def passed(self) -> bool:
        return not self.problems and all(c.ok for c in self.checks)

    @property
    def verdict(self) -> str:
        if not self.passed:
            return "FAIL"
        return "PASS" if self.has_expectation else "SHOWN"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"workload": self.key, "location": self.location}
        if self.after is not None:
            out.update(checkpoint=self.checkpoint, after=self.after, at=self.at)
        out.update(
            verdict=self.verdict,
            checks=[c.to_json() for c in self.checks],
            problems=list(self.problems),
            tree=self.tree,
        )
        return out


def _is_root(definition: LoadedDefinition, obj: dict[str, Any]) -> bool:
    gvk = definition.karta.identity
    return gvk is not None and obj.get("kind") == gvk.kind and group_of(str(obj.get("apiVersion") or "")) == gvk.group


def pods_per_component(tree: dict[str, Any]) -> dict[str, int]:
    """Desired pods of each pod-producing component, summed over its instances."""
    return {
        c["name"]: sum(int(i["desiredPods"]) for i in c["instances"]) for c in tree["components"] if c["producesPods"]
    }


def _expectation(obj: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    metadata = obj.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    text = annotations.get(EXPECT_ANNOTATION) if isinstance(annotations, dict) else None
    if text is None:
        return None, None
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except json.JSONDecodeError as exc:
        return None, f"{EXPECT_ANNOTATION} is not JSON: {exc.msg} at character {exc.pos}"
    if not isinstance(value, dict):
        return None, f'{EXPECT_ANNOTATION} must be a JSON object, e.g. {{"primary": "Running"}}'
    problem = expectation_problem(value)
    return value, f"{EXPECT_ANNOTATION}: {problem}" if problem else None


def component_counts(tree: dict[str, Any], counted: str) -> dict[str, Any]:
    """One PodCounts field (``desired``, ``current``, ``ready``...) of each pod-producing component."""
    return {c["name"]: c["pods"][counted] for c in tree["components"] if c["producesPods"]}


def role_counts(tree: dict[str, Any], counted: str) -> dict[str, Any]:
    """One PodCounts field by every name an expectation may use: each pod-producing component (its
    instances summed), each of its instances as ``component/id``, and each instance by its id alone, as
    ``get``'s COMPONENTS shows it, when no component has that name and no other instance that id."""
    out: dict[str, Any] = {}
    bare: dict[str, list[Any]] = {}
    for component in tree["components"]:
        if not component["producesPods"]:
            continue
        instances = component["instances"]
        if counted == "desired":
            out[component["name"]] = sum(int(i["desiredPods"]) for i in instances)
        else:
            out[component["name"]] = component["pods"][counted]
        for instance in instances:
            if instance["id"] is None:
                continue
            value = instance["desiredPods"] if counted == "desired" else instance["pods"][counted]
            out[f"{component['name']}/{instance['id']}"] = value
            bare.setdefault(instance["id"], []).append(value)
    for instance_id, values in bare.items():
        if instance_id not in out and len(values) == 1:
            out[instance_id] = values[0]
    return out


def _checks(expect: dict[str, Any], tree: dict[str, Any]) -> list[Check]:
    status = tree["status"]
    totals = tree["totals"]
    actual: dict[str, Any] = {
        "primary": status["primary"],
        "matched": status["matched"],
        "desiredPods": totals["pods"]["desired"],
        "gpus": totals["gpus"],
        "gpusCurrent": totals["gpusCurrent"],
    }
    checks = []
    for key in EXPECT_KEYS:
        if key not in expect:
            continue
        if key in _PER_COMPONENT:
            counted = _PER_COMPONENT[key]
            wanted = expect[key] if isinstance(expect[key], dict) else {}
            if not isinstance(expect[key], dict):
                whole = pods_per_component(tree) if key == "pods" else component_counts(tree, counted)
                checks.append(Check(key, expect[key], whole))
            # Per component or instance, so a report names the role that differs; a name the tree lacks
            # reads as None.
            by_name = role_counts(tree, counted)
            for name, count in wanted.items():
                checks.append(Check(f"{key}.{name}", count, by_name.get(str(name))))
        elif key == "matched":
            expected = sorted(expect["matched"]) if isinstance(expect["matched"], list) else expect["matched"]
            checks.append(Check(key, expected, sorted(actual["matched"])))
        else:
            checks.append(Check(key, expect[key], actual[key]))
    return checks


def _namespaced(obj: dict[str, Any]) -> dict[str, Any]:
    # Sample files are often written without a namespace; ownership is matched within one namespace.
    if (obj.get("metadata") or {}).get("namespace"):
        return obj
    obj = copy.deepcopy(obj)
    obj.setdefault("metadata", {})["namespace"] = "default"
    return obj


def run_samples(
    definition: LoadedDefinition, samples: Iterable[Document], expectations: Sequence[Expectation] = ()
) -> list[SampleResult]:
    """Resolve every sample workload of the definition's root kind and check its expectations: the
    annotation it carries and those of ``expectations`` (an Expectations file) that name it. An
    expectation of the file that names no sample of the kind is itself a failure."""
    docs = [d for d in samples if isinstance(d.data, dict) and d.data.get("kind")]
    objects = [_namespaced(d.data) for d in docs]
    view = WorkloadIndex(Snapshot(objects), DefinitionRegistry([definition]))
    plain = [e for e in expectations if e.after is None]
    used: set[int] = set()
    results = []
    for doc, obj in zip(docs, objects, strict=True):
        if not _is_root(definition, obj):
            continue
        result = SampleResult(str(key_of(obj)), str(doc.location), None)
        expect, problem = _expectation(obj)
        result.has_expectation = expect is not None or problem is not None
        if problem:
            result.problems.append(problem)
        _resolve(view, obj, result, None if problem else expect)
        for index, expectation in enumerate(plain):
            if names_workload(definition, expectation, obj):
                used.add(index)
                result.has_expectation = True
                if result.tree is not None:
                    result.checks += _checks(expectation.expect, result.tree)
        results.append(result)
    return results + unused(definition, [e for i, e in enumerate(plain) if i not in used])


def names_workload(definition: LoadedDefinition, expectation: Expectation, obj: dict[str, Any]) -> bool:
    """Whether ``expectation`` (TYPE/NAME, namespace) names ``obj``, a workload of the definition's kind."""
    return (
        _names_kind(definition, expectation.type_name)
        and name_of(obj) == expectation.name
        and expectation.namespace in (None, namespace_of(obj))
    )


def _names_kind(definition: LoadedDefinition, type_name: str) -> bool:
    try:
        info = DefinitionRegistry([definition]).resolve_type(type_name)
    except AmbiguousType:
        return False
    return info is not None


def unused(definition: LoadedDefinition, expectations: Iterable[Expectation]) -> list[SampleResult]:
    """A failure for each expectation that met no workload: a misspelt one never passes silently."""
    gvk = definition.karta.identity
    kind = _kind_text(gvk.group, gvk.kind) if gvk else "?"
    out = []
    for expectation in expectations:
        result = SampleResult(expectation.workload, str(expectation.location), None, has_expectation=True)
        what = "no recording" if expectation.after is not None else "no sample"
        if not _names_kind(definition, expectation.type_name):
            result.problems.append(
                f"{expectation.type_name!r} does not name {kind}, the kind definition {definition.name} reads"
            )
        else:
            result.problems.append(f"{what} of {kind} is named {expectation.workload}")
        out.append(result)
    return out


def check_state(
    definition: LoadedDefinition, snapshot: Snapshot, workload: ObjectKey, result: SampleResult, expect: Any
) -> SampleResult:
    """Resolve ``workload`` in one state (a recording replayed to a point) into ``result``, checking
    ``expect`` (None: only shown)."""
    result.has_expectation = expect is not None
    obj = next(
        (
            o
            for o in snapshot.of_kind(workload.group, workload.kind)
            if namespace_of(o) == workload.namespace and name_of(o) == workload.name
        ),
        None,
    )
    if obj is None:
        result.problems.append(f"{workload} is not among the objects at this point")
        return result
    if not _is_root(definition, obj):
        gvk = definition.karta.identity
        reads = _kind_text(gvk.group, gvk.kind) if gvk else "no kind"
        result.problems.append(
            f"definition {definition.name} reads {reads}, not {_kind_text(workload.group, workload.kind)}"
        )
        return result
    return _resolve(WorkloadIndex(snapshot, DefinitionRegistry([definition])), obj, result, expect)


def _kind_text(group: str, kind: str) -> str:
    return f"{kind}.{group}" if group else kind


def _resolve(view: WorkloadIndex, obj: dict[str, Any], result: SampleResult, expect: Any) -> SampleResult:
    try:
        tree = tree_of(view, obj).to_json()
    except (LookupError, RecursionError, ValueError, TypeError) as exc:
        result.problems.append(f"cannot resolve: {exc}")
        return result
    result.tree = tree
    if expect is not None:
        result.checks = _checks(expect, tree)
    return result
