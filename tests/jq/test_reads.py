"""`input_reads`: the input paths an expression may read, conservatively (widening to the whole input)."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from tests.corpus import REPO_ROOT

from gen.cluster import generate
from workload_map.api.definitions import builtin_with_warnings
from workload_map.jq.reads import input_reads
from workload_map.live.projection import pod_expressions
from workload_map.resolve.evaluate import run

WHOLE = {()}


@pytest.mark.parametrize(
    ("expression", "reads"),
    [
        ('.metadata.labels["a"] // .metadata.name', {("metadata", "labels"), ("metadata", "name")}),
        ('.metadata.labels as $l | $l["x"] | ltrimstr("a")', {("metadata", "labels")}),
        (". as $p | $p.spec.hostname", {("spec", "hostname")}),
        ('.metadata.labels["x"] | if . == null then null else . end', {("metadata", "labels")}),
        ('"nim"', set()),
        (".spec.containers[0].image", {("spec", "containers")}),
        ('[.status.conditions[] | select(.type == "Ready")] | length', {("status", "conditions")}),
        ('select(.status.phase == "Running") | .metadata.name', {("status", "phase"), ("metadata", "name")}),
        (".metadata | keys", {("metadata",)}),
        ('.metadata["lab" + "els"]', {("metadata",)}),  # a computed key: the whole parent
        # Everything: the input itself, a builtin over it, recursion, a missing else, a user def.
        (".", WHOLE),
        ("tojson", WHOLE),
        ("..|.a?", WHOLE),
        ("if .metadata.x then .spec end", WHOLE),
        ("def f: .spec; f", WHOLE),
        ("reduce .metadata.labels[] as $x (0; . + 1)", WHOLE),
    ],
)
def test_reads(expression: str, reads: set[tuple[str, ...]]) -> None:
    assert input_reads(expression) == reads


def test_an_unparsable_expression_reads_unknown() -> None:
    assert input_reads("((") is None


def _restricted(value: Any, paths: frozenset[tuple[str, ...]]) -> Any:
    """Only ``paths`` of ``value`` (each kept whole), as a projection keeping them would leave it."""
    if () in paths:
        return value
    out: dict[str, Any] = {}
    for path in paths:
        source, target = value, out
        for i, key in enumerate(path):
            if not isinstance(source, dict) or key not in source:
                break
            if i == len(path) - 1:
                target[key] = source[key]
            else:
                source = source[key]
                target = target.setdefault(key, {})
    return out


def test_the_catalogs_pod_expressions_give_the_same_answer_on_what_they_read() -> None:
    """Soundness on real inputs: each built-in pod expression, on every generated pod and on the same pod
    cut down to what ``input_reads`` says it reads, gives the same outputs."""
    bench = str(REPO_ROOT / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)

    pods = [o for o in generate(60, 4, 11) if o["kind"] == "Pod"]
    expressions = sorted(set(pod_expressions(builtin_with_warnings()[0])))
    assert len(expressions) > 20 and len(pods) > 500
    differing = []
    for expression in expressions:
        reads = input_reads(expression)
        assert reads is not None and () not in reads, expression
        for pod in pods:
            if run(expression, pod) != run(expression, _restricted(pod, reads)):
                differing.append((expression, pod["metadata"]["name"]))
    assert not differing
