"""`compile_expression` and `Program`: the one interface the project uses."""

from __future__ import annotations

import functools
import re
from typing import Any

import jq as _libjq

from . import _isolated
from .errors import JqLimitError, JqRuntimeError, JqSandboxError, JqSyntaxError
from .fast import Bail, FastError, FastProgram, compile_fast
from .limits import LIMITS
from .sandbox import LexError, check_recursion, check_tokens, tokenize

_LINE_COL = re.compile(r"line (\d+), column (\d+)")


class Program:
    """A compiled, sandbox-checked expression; evaluate it against many values."""

    __slots__ = ("_fast", "expression")

    def __init__(self, expression: str, fast: FastProgram | None) -> None:
        self.expression = expression
        self._fast = fast

    @property
    def uses_fast_path(self) -> bool:
        return self._fast is not None

    def all(self, value: Any) -> list[Any]:
        """Every output, as Python values."""
        fast = self._fast
        if fast is not None:
            try:
                return fast.all(value)
            except (Bail, FastError, RecursionError):
                pass
        return _isolated.run_isolated(self.expression, value, _isolated.MODE_ALL)

    def first(self, value: Any) -> Any:
        """The first output, or None when there is none."""
        fast = self._fast
        if fast is not None:
            try:
                return fast.first(value)[1]
            except (Bail, FastError, RecursionError):
                pass
        out = _isolated.run_isolated(self.expression, value, _isolated.MODE_FIRST)
        return out[0] if out else None

    def paths(self, value: Any) -> list[list[str | int]]:
        """`path(EXPR)`: the locations the expression addresses."""
        fast = self._fast
        if fast is not None and fast.supports_paths:
            try:
                return fast.paths(value)
            except (Bail, FastError, RecursionError):
                pass
        try:
            result: list[list[str | int]] = _isolated.run_isolated(self.expression, value, _isolated.MODE_PATHS)
        except JqLimitError:
            raise
        except JqRuntimeError as exc:
            if exc.message.startswith("Invalid path expression"):
                raise JqRuntimeError(
                    f"{self.expression!r} is not a path expression: {exc.message}", self.expression
                ) from None
            raise
        return result

    def __repr__(self) -> str:
        return f"Program({self.expression!r})"


@functools.lru_cache(maxsize=4096)
def compile_expression(expression: str) -> Program:
    """Parse, sandbox-check and prepare `expression`; cached by its text."""
    if len(expression) > LIMITS.max_expression_chars:
        raise JqSyntaxError(
            f"expression is {len(expression)} characters, over the {LIMITS.max_expression_chars} limit",
            expression,
        )
    try:
        tokens = tokenize(expression)
    except LexError:
        tokens = None
    if tokens is not None:
        violations = check_tokens(expression, tokens)
        if violations:
            raise violations[0]
    _syntax_check(expression)
    if tokens is None:
        raise JqSandboxError(f"sandbox: expression {expression!r} could not be analysed", expression, None, None)
    violations = check_recursion(expression, tokens)
    if violations:
        raise violations[0]
    return Program(expression, compile_fast(expression))


def _syntax_check(expression: str) -> None:
    try:
        _libjq.compile(expression)
    except ValueError as exc:
        raw = str(exc)
        lines = raw.splitlines()
        message = lines[0] if lines else raw
        message = message.removeprefix("jq: error: ")
        position = None
        m = _LINE_COL.search(message)
        if m is not None:
            position = _offset(expression, int(m.group(1)), int(m.group(2)))
        raise JqSyntaxError(f"syntax: {message} in {expression!r}", expression, position, None) from None


def _offset(expression: str, line: int, column: int) -> int:
    lines = expression.split("\n")
    offset = sum(len(x) + 1 for x in lines[: line - 1])
    return min(offset + max(column - 1, 0), len(expression))
