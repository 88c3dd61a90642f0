"""Sandbox: banned constructs are rejected statically; evaluation is bounded in time and size."""

from __future__ import annotations

from typing import Any

import pytest

from workload_map.jq import (
    LIMITS,
    JqLimitError,
    JqSandboxError,
    check_expression,
    compile_expression,
)

BANNED: list[tuple[str, str, int]] = [
    (".x + env.HOME", "env", 5),
    ("$ENV.HOME", "$ENV", 0),
    (". + $ENV", "$ENV", 4),
    ("input", "input", 0),
    ("[inputs]", "inputs", 1),
    (".a | debug", "debug", 5),
    ('debug("m")', "debug", 0),
    (".a | stderr", "stderr", 5),
    ("input_filename", "input_filename", 0),
    ("input_line_number", "input_line_number", 0),
    ("$__loc__", "$__loc__", 0),
    ("$__prog_args", "$__prog_args", 0),
    ("halt", "halt", 0),
    ('"x" | halt_error', "halt_error", 6),
    ("halt_error(1)", "halt_error", 0),
    ('import "a" as a; .', "import", 0),
    ('include "a"; .', "include", 0),
    ("get_search_list", "get_search_list", 0),
    ("modulemeta", "modulemeta", 0),
    ("[range(1e9)]", "range", 1),
    ("range(0; 10)", "range", 0),
    ("[limit(1e9; repeat(1))]", "repeat", 12),
    ("recurse", "recurse", 0),
    ("recurse(.a)", "recurse", 0),
    ("..", "..", 0),
    (".a | ..", "..", 5),
    ("walk(.)", "walk", 0),
    ("[paths]", "paths", 1),
    ("[leaf_paths]", "leaf_paths", 1),
    ("[while(. < 5; . + 1)]", "while", 1),
    ("until(. > 5; . + 1)", "until", 0),
    ("combinations", "combinations", 0),
    (".a = 1", "=", 3),
    (".a |= 1", "|=", 3),
    (".a += 1", "+=", 3),
    (".a -= 1", "-=", 3),
    (".a *= 2", "*=", 3),
    (".a /= 2", "/=", 3),
    (".a %= 2", "%=", 3),
    (".a //= 2", "//=", 3),
    ("del(.a)", "del", 0),
    ('setpath(["a"]; 1)', "setpath", 0),
    ('delpaths([["a"]])', "delpaths", 0),
    ('"\\(env.HOME)"', "env", 3),
    ("def f: env; f", "env", 7),
]


@pytest.mark.parametrize(("expression", "construct", "position"), BANNED)
def test_banned_construct_is_named_with_position(expression: str, construct: str, position: int) -> None:
    with pytest.raises(JqSandboxError) as info:
        compile_expression(expression)
    err = info.value
    assert err.construct == construct
    assert err.position == position
    assert err.expression == expression
    assert f"'{construct}'" in str(err)
    assert f"position {position}" in str(err)
    assert "\n" not in str(err)
    assert any(v.construct == construct for v in check_expression(expression))


def test_message_example() -> None:
    with pytest.raises(JqSandboxError) as info:
        compile_expression(".x + env.HOME")
    assert str(info.value) == ("sandbox: 'env' (environment access) is not allowed at position 5 in \".x + env.HOME\"")


@pytest.mark.parametrize(
    "expression",
    ["def f: f; f", "def f(x): x | f(x); f(.)", "def g(h): h; def k: g(k); k", "def a: def b: a; b; a"],
)
def test_recursive_defs_rejected(expression: str) -> None:
    with pytest.raises(JqSandboxError) as info:
        compile_expression(expression)
    assert "recursive" in str(info.value)
    assert info.value.position is not None


@pytest.mark.parametrize(
    "expression",
    [
        "def f: .a; f",
        "def f(g): g | .x; f(.a)",
        "def inc($n): . + $n; 3 | inc(1)",
        "{range: 1, env: 2} | .range",
        ". as {range: $r} | $r",
        ".env",
        '.["env"]',
        "$range? // 1",
        "[limit(3; .[]?)]",
        'getpath(["a"])',
        "to_entries",
        'splits("a")?',
        "first(.[]?)",
        "reduce .[]? as $x (0; . + 1)",
    ],
)
def test_allowed(expression: str) -> None:
    assert check_expression(expression) == []


def test_check_expression_reports_all_violations() -> None:
    found = check_expression(".a = env | $ENV | ..")
    assert [v.construct for v in found] == ["=", "env", "$ENV", ".."]
    assert [v.position for v in found] == [3, 5, 11, 18]


def _limit_texts() -> dict[str, tuple[str, ...]]:
    """How each documented limit (jq/limits.py) names itself when it stops an evaluation."""
    return {
        "time": (f"exceeded the {LIMITS.timeout_seconds:g} s time limit",),
        "memory": ("exceeded the memory limit",),
        "output": (f"results exceed {LIMITS.max_output_bytes} bytes", f"exceeds {LIMITS.max_string_bytes} bytes"),
        "input": (f"exceeds the {LIMITS.max_input_bytes} byte limit",),
        "depth": (f"nests deeper than {LIMITS.max_input_depth} levels",),
    }


def _stopped_by(expression: str, value: Any, *limits: str) -> JqLimitError:
    """Compiling or evaluating fails with a JqLimitError naming one of ``limits``: that limit is what
    stopped it (libjq computes constant parts while compiling: ``"x" * 1e9`` is stopped there).

    Which of several budgets a runaway evaluation hits first (a 1 GB allocation against the memory
    limit or the clock) depends on the machine, so a case may accept more than one; it never accepts
    an evaluation that ends by itself.
    """
    with pytest.raises(JqLimitError) as info:
        compile_expression(expression).all(value)
    texts = _limit_texts()
    named = [limit for limit in limits if any(t in str(info.value) for t in texts[limit])]
    assert named, f"{expression!r} stopped by {info.value}, not by the {' or '.join(limits)} limit"
    return info.value


RUNAWAY = ("time", "memory", "output")


def test_string_repetition_bounded() -> None:
    _stopped_by('"x" * 1e9', None, *RUNAWAY)


def test_runtime_string_repetition_bounded() -> None:
    _stopped_by('"x" * .n', {"n": 1e9}, *RUNAWAY)


def test_exponential_doubling_bounded() -> None:
    items = ",".join(str(i) for i in range(1, 31))
    expr = f'reduce ({items}) as $i ("xx"; . + .)'
    _stopped_by(expr, None, *RUNAWAY)


def test_output_size_bounded() -> None:
    _stopped_by("[.[], .[], .[], .[]] | tostring", ["y" * 1_000_000] * 3, *RUNAWAY)


def test_huge_input_rejected() -> None:
    big = {"items": ["z" * 1000] * 50_000}  # ~50 MB
    _stopped_by("tostring", big, "input")


def test_deeply_nested_input() -> None:
    deep: Any = 1
    for _ in range(100_000):
        deep = [deep]
    _stopped_by("tostring", deep, "depth")
    # the fast path never recurses over the input
    assert compile_expression(".[0][0]").all(deep) == [deep[0][0]]


def test_worker_recovers_after_kill() -> None:
    _stopped_by('"x" * 1e9', None, *RUNAWAY)
    assert compile_expression(".a | tostring").all({"a": 1}) == ["1"]


def test_long_expression_rejected() -> None:
    with pytest.raises(Exception) as info:
        compile_expression(".a" + " | .a" * 10_000)
    assert "limit" in str(info.value)
