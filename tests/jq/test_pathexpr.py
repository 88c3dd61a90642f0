"""The static path-expression decision (``workload_map.jq.pathexpr``) against libjq, the oracle.

libjq decides at run time: ``path(EXPR)`` fails with "Invalid path expression" when an output comes
from a value-forming construct. The static verdict must agree in both directions: "path" never fails
that way on any input we try, and "not a path" fails that way on at least one witness input.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

import jq
from corpus import CORPUS, corpus_objects
from workload_map.catalog import builtin_definitions
from workload_map.definition.expressions import Target, iter_expressions
from workload_map.jq.pathexpr import path_problem

INVALID = "Invalid path expression"


@functools.cache
def _path_program(expression: str) -> Any:
    return jq.compile(f"path({expression})")


def libjq_path_error(expression: str, value: Any) -> str | None:
    """libjq's "Invalid path expression" message for ``path(EXPR)`` on ``value``, or None."""
    try:
        _path_program(expression).input_value(value).all()
    except ValueError as exc:
        return str(exc) if INVALID in str(exc) else None
    return None


# (expression, path expression?, witness inputs: one of them reaches every output position)
CONSTRUCTS: list[tuple[str, bool, list[Any]]] = [
    (".", True, [None, {}]),
    (".a.b", True, [None, {"a": {"b": 1}}]),
    ('.["a"]', True, [{}]),
    (".a[0]", True, [{"a": [1]}]),
    (".a[]", True, [{"a": [1, 2]}, {"a": {"x": 1}}]),
    (".a[]?", True, [{"a": 1}, None]),
    (".a[1:]", True, [{"a": [1, 2]}]),
    (".a?", True, [1]),
    ("(.a, .b) | .c", True, [{}]),
    (".a // .b", True, [{}, {"a": 1}]),
    (".a // empty", True, [{}, {"a": 1}]),
    (".a // {}", False, [{}, {"a": 1}]),
    (".a // []", False, [{}]),
    ("if .x then .a elif .y then .b else .c end", True, [{}, {"x": 1}, {"y": 1}]),
    ("if .x then .a end", True, [{}, {"x": 1}]),
    ("if .x then .a else 1 end", False, [{}, {"x": 1}]),
    ("select(.x) | .a", True, [{"x": 1}, {}]),
    ("select(.x != null) | .a", True, [{"x": 1}]),
    (
        '.spec.m | select(. != null) | .[keys[] | select(ascii_downcase == "master")] | .template',
        True,
        [{"spec": {"m": {"Master": {"template": {}}, "Worker": {}}}}, {"spec": {}}],
    ),
    (".a[.k]", True, [{"a": {"x": 1}, "k": "x"}]),
    (".a as $x | .b", True, [{"a": 1}]),
    (".a as $x | $x", False, [{"a": 1}]),
    ('"k" as $k | .[$k]', True, [{}]),
    (". as [$a] ?// $a | .b", True, [[1], 1]),
    (".a as [$x] | .c", False, [{"a": [1]}]),
    (". as {a: $x} | .b", False, [{"a": 1}]),
    ("[1, 2] as $s | $s[0] as $k | .[$k]", True, [{}]),
    ("def f: .a; f | .b", True, [{}]),
    ("def f(g): g | .x; f(.a)", True, [{}]),
    ("def f(g): g | .x; f(1)", False, [{}]),
    ('def f($k): .[$k]; f("a")', True, [{}]),
    ("def f: {}; .a | f", False, [{}]),
    ("first(.a[])", True, [{"a": [1, 2]}]),
    ("first", True, [[1]]),
    ("last", True, [[1]]),
    ("nth(1)", True, [[1, 2]]),
    ("nth(1; .a[])", True, [{"a": [1, 2]}]),
    ("limit(1; .a[])", True, [{"a": [1, 2]}]),
    ("limit(2; .a, 1)", False, [{}]),
    ('getpath(["a", "b"])', True, [{}]),
    ("values", True, [1, None]),
    ("objects | .a", True, [{}]),
    ("try .a", True, [{}]),
    ("try .a catch empty", True, [{}]),
    ('try error("x") catch .', False, [{}]),
    ("label $out | .a, break $out", True, [{}]),
    ("empty", True, [{}]),
    ("null", False, [{}]),
    ("1", False, [{}]),
    ('"s"', False, [{}]),
    ('"\\(.a)"', False, [{"a": 1}]),
    ("{a: .a}", False, [{}]),
    ("[.a]", False, [{}]),
    ("[]", False, [{}]),
    (".a + 1", False, [{"a": 1}]),
    ("-.a", False, [{"a": 1}]),
    (".a and .b", False, [{}]),
    (".a == 1", False, [{}]),
    ("@json", False, [{}]),
    ("tostring", False, [1]),
    ("to_entries[] | .value", False, [{"a": 1}]),
    ("with_entries(.)", False, [{"a": 1}]),
    ("keys", False, [{}]),
    ("last(.a[])", False, [{"a": [1, 2]}]),
    ("reduce .a[] as $x (.; .b)", False, [{"a": [1], "b": {}}]),
    ("foreach .a[] as $x (.; .b; .)", False, [{"a": [1], "b": 3}]),
    ("map(.a)", False, [[{}]]),
    ("add", False, [[{}]]),
    ('ltrimstr("a")', True, ["ab", "b"]),
    ('splits("a")', True, ["bab"]),
]


@pytest.mark.parametrize(("expression", "is_path", "witnesses"), CONSTRUCTS, ids=[c[0] for c in CONSTRUCTS])
def test_static_verdict_agrees_with_libjq(expression: str, is_path: bool, witnesses: list[Any]) -> None:
    problem = path_problem(expression)
    assert (problem is None) is is_path, problem
    errors = [libjq_path_error(expression, w) for w in witnesses]
    if is_path:
        assert errors == [None] * len(witnesses)
    else:
        assert any(errors), f"no witness makes libjq refuse {expression!r}"
        assert problem is not None and problem.construct and problem.why


def test_the_message_names_the_construct() -> None:
    problem = path_problem("{metadata: (.metadata // {}), spec: .spec}")
    assert problem is not None
    assert problem.construct == "{metadata: (.metadata // {}), spec: .spec}"
    assert "builds a new object" in problem.why
    problem = path_problem(".spec.tasks // [] | .[] | .template")
    assert problem is not None and problem.construct == "[]"
    problem = path_problem(".x | tojson")
    assert problem is not None and "tojson/0" in problem.why


def _inputs() -> list[Any]:
    objects: list[Any] = [None, {}]
    for folder in sorted(p for p in CORPUS.iterdir() if (p / "examples").is_dir()):
        for path in sorted((folder / "examples").glob("*.y*ml"))[:3]:
            objects.extend(o.obj for o in corpus_objects(str(path.relative_to(CORPUS))))
    return objects


def test_every_catalog_expression_static_path_never_fails_in_libjq() -> None:
    """Soundness on real objects: every workload expression of the catalog that we call a path expression
    evaluates as one in libjq on every corpus example."""
    inputs = _inputs()
    checked = 0
    for definition in builtin_definitions():
        for ref in iter_expressions(definition.karta):
            if ref.target is not Target.WORKLOAD or path_problem(ref.expression) is not None:
                continue
            checked += 1
            for value in inputs:
                assert libjq_path_error(ref.expression, value) is None, (definition.name, ref.path)
    assert checked >= 200  # every spec and suspend path of the catalog, and the plain reads
