"""Verdicts on many expressions at once (one libjq compilation for a batch) equal the verdicts of each
expression judged alone, including for text crafted to close the batch's brackets or hide them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from workload_map.catalog import load_builtin
from workload_map.definition.expressions import iter_expressions
from workload_map.jq import LIMITS, JqLimitError, expression_errors, program
from workload_map.jq._isolated import shutdown

TRICKY = [
    "1), (2",  # would turn one element into two
    "1]",
    ") , (",
    "1) | (2",
    "(1",
    "[1, 2",
    "{a: 1",
    "1 # comment",
    "# comment \\\n1",  # a comment continued past the newline
    "1 # comment \\",
    '"\\(1"',  # unterminated interpolation
    '"a)b" | length',  # brackets inside strings do not count
    '"\\(.a)" + ")"',
    "def f: 1; f",
    "f",  # a def of another element is not visible
    "$x",
    "undefined_fn(1)",
    ".a?//1",
    "def f: 1;",
    "if . then 1",
    "try 1",
    ". as [$a, {b: $c}] | $a",
    "reduce .[] as $x (0; . + $x)",
    "label $out | 1",
    "break $out",
    ".a |",
    "env",  # rejected by the sandbox before libjq
    ".a = 1",
]


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    saved, saved_packed = dict(program._known), dict(program._packed)
    program._known.clear()
    program._packed.clear()
    yield
    program._known.clear()
    program._known.update(saved)
    program._packed.clear()
    program._packed.update(saved_packed)


def alone(expressions: list[str]) -> list[program.Verdict]:
    out = []
    for expression in dict.fromkeys(expressions):
        program._known.clear()
        out.append(program._judge(expression))
    program._known.clear()
    return out


def catalog_expressions() -> list[str]:
    loaded, _ = load_builtin()
    return list(dict.fromkeys(r.expression for d in loaded for r in iter_expressions(d.karta)))


def test_batch_equals_alone_on_the_catalog() -> None:
    expressions = catalog_expressions()
    assert all(program._batchable(e) for e in expressions)  # the whole catalog takes one compilation per batch
    assert program.verdicts(expressions) == alone(expressions)


@pytest.mark.parametrize("tricky", TRICKY)
def test_batch_equals_alone_with_crafted_text(tricky: str) -> None:
    expressions = [".a", tricky, "length", ".b // 1"]
    assert program.verdicts(expressions) == alone(expressions)


def test_batch_equals_alone_all_together() -> None:
    expressions = [*catalog_expressions()[:40], *TRICKY]
    assert program.verdicts(expressions) == alone(expressions)


def test_one_libjq_compilation_per_batch_of_a_valid_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    answers: list[object] = []
    real = program._syntax_error
    monkeypatch.setattr(program, "_syntax_error", lambda e: answers.append(real(e)) or answers[-1])
    expressions = catalog_expressions()
    program.verdicts(expressions)
    # No batch fails (not even on libjq's 64 KiB bytecode limit, which the whole catalog passes), so no split.
    assert answers and all(a is None for a in answers), answers
    assert len(answers) == len(list(program._batches(expressions))) < len(expressions) / 50


def test_compilation_that_exceeds_the_worker_limit_is_a_limit_verdict_the_others_stay_valid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """libjq folds constants while compiling (this one is a 400 MB string before any input): the syntax
    check runs in the bounded worker, and only the expression that exceeded its limit is refused."""

    monkeypatch.setattr(LIMITS, "worker_memory_bytes", 256 * 1024 * 1024)
    shutdown()  # the next worker starts under this cap
    hostile = '"aaaa" * 100000000 | length'
    expressions = [*catalog_expressions()[:40], hostile, ".a | ("]
    try:
        found = {v.expression: v for v in program.verdicts(expressions)}
        errors = expression_errors(hostile)
    finally:
        shutdown()
    assert found[hostile].error is not None and found[hostile].error[0] == "limit"
    assert found[".a | ("].error is not None and found[".a | ("].error[0] == "syntax"
    assert all(found[e].error is None for e in expressions[:40])
    assert len(errors) == 1 and isinstance(errors[0], JqLimitError)
    assert "jq compilation" in errors[0].message and "limit" in errors[0].message


def test_primed_verdicts_are_unpickled_when_asked_for() -> None:
    judged = program.verdicts([".a", ".b | env", ".c |"])
    program._known.clear()
    program.prime({**program.packed(judged), ".d": b"not a pickle", ".e": program.packed(judged)[".a"]})
    assert program._known == {}  # nothing unpickled yet
    assert program.verdict(".b | env") == judged[1] and list(program._known) == [".b | env"]
    assert program.verdicts([".a", ".c |"]) == [judged[0], judged[2]]
    # a table entry that is not its expression's verdict is judged again, not trusted
    assert program.verdict(".d") == program._judge(".d") and program.verdict(".e") == program._judge(".e")
