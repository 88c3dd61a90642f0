"""A jq comment (`# ...` to the end of the line) is part of the language (libjq and gojq skip it): an
expression that ends in one reads and addresses exactly what it would without it, on the in-process fast
path and in the libjq worker alike (a draft's gaps end in a `# TODO(wmap): ...` comment)."""

from __future__ import annotations

import pytest

from workload_map.jq import compile_expression
from workload_map.jq.pathexpr import path_problem
from workload_map.jq.reads import input_reads

DOC = {"spec": {"a": [{"name": "x"}, {"name": "y"}], "text": "a-b"}}


@pytest.mark.parametrize(
    ("expression", "outputs", "paths"),
    [
        (".spec.a[].name", ["x", "y"], [["spec", "a", 0, "name"], ["spec", "a", 1, "name"]]),
        # libjq only (no fast path): the wrapper the worker puts around the expression must survive the comment
        ("limit(1; .spec.a[]) | .name", ["x"], [["spec", "a", 0, "name"]]),
        ('getpath(["spec", "text"])', ["a-b"], [["spec", "text"]]),
        ("empty", [], []),
    ],
)
def test_a_trailing_comment_changes_nothing(expression: str, outputs: list[object], paths: list[object]) -> None:
    for text in (expression, f"{expression}  # TODO(wmap): a note", f"{expression} # one\n# two"):
        program = compile_expression(text)
        assert program.all(DOC) == outputs, text
        assert program.paths(DOC) == paths, text
        assert path_problem(text) is None, text


def test_a_comment_on_a_value_expression_keeps_its_verdict() -> None:
    text = '.spec.text | splits("-")  # two parts'
    assert compile_expression(text).all(DOC) == ["a", "b"]
    assert path_problem("[.spec.a[]] | keys[] | tostring  # by position") is not None
    assert input_reads(".spec.text  # the text") == {("spec", "text")}


def test_a_comment_continued_by_a_backslash_is_read_as_libjq_reads_it() -> None:
    """jq (libjq and gojq) continue a comment onto the next line after a trailing backslash: the fast path,
    whose lexer ends a comment at the newline, must not run that line as code."""
    text = ".spec.a # first \\\n | .[0].name"
    program = compile_expression(text)
    assert not program.uses_fast_path
    assert program.all(DOC) == [DOC["spec"]["a"]]
    assert compile_expression(".spec.a # first\n | .[0].name").all(DOC) == ["x"]
