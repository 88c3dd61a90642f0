"""`compile_expression` and `Program`: the one interface the project uses."""

from __future__ import annotations

import functools
import pickle
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from .errors import JqError, JqLimitError, JqRuntimeError, JqSandboxError, JqSyntaxError
from .fast import FastProgram, fast_ast, from_ast
from .fast_values import Bail, FastError
from .limits import LIMITS
from .sandbox import LexError, Token, check_recursion, check_tokens, tokenize

_LINE_COL = re.compile(r"line (\d+), column (\d+)")


def _libjq(expression: str, value: Any, mode: str) -> list[Any]:
    # The worker's module (subprocess, select, threads) loads only when an expression needs libjq.
    from . import _isolated  # noqa: PLC0415 (the libjq worker's machinery loads only when libjq is needed)

    modes = {"all": _isolated.MODE_ALL, "first": _isolated.MODE_FIRST, "paths": _isolated.MODE_PATHS}
    return _isolated.run_isolated(expression, value, modes[mode])


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
        return _libjq(self.expression, value, "all")

    def first(self, value: Any) -> Any:
        """The first output, or None when there is none."""
        fast = self._fast
        if fast is not None:
            try:
                return fast.first(value)[1]
            except (Bail, FastError, RecursionError):
                pass
        out = _libjq(self.expression, value, "first")
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
            result: list[list[str | int]] = _libjq(self.expression, value, "paths")
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


ERROR_TYPES: dict[str, type[JqError]] = {"syntax": JqSyntaxError, "sandbox": JqSandboxError, "limit": JqLimitError}


class Verdict(NamedTuple):
    """What compiling an expression found out, in a form that can be stored and reused by a later process.

    Computing it is the expensive, pure part of compilation: the sandbox analysis, libjq's syntax check
    (~1.5 ms an expression, most of a cold start) and the fast-path parse. ``compile_expression`` and
    ``expression_errors`` only read it. Errors are kept as (kind, message, position, construct) so every
    raise is a fresh exception. A named tuple, because a warm process unpickles hundreds of them.
    """

    expression: str
    fast_ast: Any  # purejq's AST when the in-process fast path runs the expression, else None
    sandbox: tuple[tuple[str, str, int | None, str | None], ...]  # every sandbox violation (check_expression)
    error: tuple[str, str, int | None, str | None] | None  # what compiling raises, None when it compiles


def _pack(error: JqError) -> tuple[str, str, int | None, str | None]:
    kind = next((k for k, t in ERROR_TYPES.items() if isinstance(error, t)), "syntax")
    return kind, error.message, error.position, error.construct


def _unpack(expression: str, packed: tuple[str, str, int | None, str | None]) -> JqError:
    kind, message, position, construct = packed
    return ERROR_TYPES[kind](message, expression, position, construct)


_known: dict[str, Verdict] = {}  # verdicts computed in this process or primed from a cache
_packed: dict[str, bytes] = {}  # verdicts primed from a cache and not asked for yet, each pickled on its own
_KNOWN_MAX = 16384  # a long-running host that sees ever new definitions starts over past this


def packed(verdicts: Iterable[Verdict]) -> dict[str, bytes]:
    """Verdicts as a cache stores them for :func:`prime`: each pickled on its own, so that a process unpickles
    only those it uses. A warm ``wmap get`` on the built-in example uses 208 of the catalog's 633; unpickling
    them all took ~28M instructions (~5% of the command), the table and those 208 ~9M."""
    return {one.expression: pickle.dumps(one, protocol=pickle.HIGHEST_PROTOCOL) for one in verdicts}


def prime(verdicts: Mapping[str, bytes]) -> None:
    """Make verdicts computed earlier (by this code version; the caller keys its cache so) known: a table of
    :func:`packed`, each unpickled when its expression is first asked for."""
    if len(_packed) + len(verdicts) > _KNOWN_MAX:
        _packed.clear()
    _packed.update(verdicts)


def _remember(one: Verdict) -> Verdict:
    if len(_known) >= _KNOWN_MAX:
        _known.clear()
    return _known.setdefault(one.expression, one)


def _unpacked(expression: str) -> Verdict | None:
    blob = _packed.pop(expression, None)
    if blob is None:
        return None
    try:
        one = pickle.loads(blob)
    except Exception:  # not what packed() wrote (the cache checks its entries whole): judged again instead
        return None
    return _remember(one) if isinstance(one, Verdict) and one.expression == expression else None


def verdict(expression: str) -> Verdict:
    """The verdict on ``expression``, computed once per process unless primed."""
    known = _known.get(expression)
    if known is not None:
        return known
    return _unpacked(expression) or _remember(_judge(expression))


def verdicts(expressions: Iterable[str]) -> list[Verdict]:
    """The verdicts on many expressions (a definition's, a catalog's): one per distinct expression, in order.

    Those not known yet are judged together: libjq checks the syntax of every one that passes the
    sandbox in one compilation of ``[(E1), (E2), ...]`` per batch of up to ``_BATCH_CHARS`` characters
    instead of one compilation each (~1.5 ms apiece, mostly libjq loading its builtins), and only a batch
    that fails is split, down to the expressions that are wrong, which are then judged alone for libjq's
    own message. A batch that exceeds the worker's time or memory limit is judged one expression at a time.
    """
    wanted = list(dict.fromkeys(expressions))
    todo = [e for e in wanted if e not in _known and e not in _packed]
    proven: set[str] = set()
    for batch in _batches([e for e in todo if _batchable(e)]):
        proven |= _valid_together(batch)
    for expression in todo:
        _remember(_judge(expression, syntax_proven=expression in proven))
    return [verdict(e) for e in wanted]


_OPENERS = {"(": ")", "[": "]", "{": "}"}


def _batchable(expression: str) -> bool:
    """Whether libjq accepting ``(EXPRESSION)`` among others proves it accepts the expression alone.

    It does when the expression's brackets pair up among themselves: our closing parenthesis can then
    only close our opening one, so libjq parsed the text between them as one whole expression, and each
    element of the array sees no name the others define (user ``def``s are scoped to their element, and
    elements are bound, so an undefined name is still an error). Comments could swallow our bracket
    (jq continues a comment after a trailing backslash): expressions with both a ``#`` and a backslash are left
    to be judged alone, as are those the sandbox rejects anyway.
    """
    if len(expression) > LIMITS.max_expression_chars or ("#" in expression and "\\" in expression):
        return False
    try:
        tokens = tokenize(expression)
    except LexError:
        return False
    if check_tokens(expression, tokens):
        return False
    stack: list[str] = []
    for token in tokens:
        if token.kind != "op":
            continue
        if token.text in _OPENERS:
            stack.append(_OPENERS[token.text])
        elif token.text in (")", "]", "}") and (not stack or stack.pop() != token.text):
            return False
    return not stack


# libjq refuses a program whose bytecode passes 64 KiB ("function compiled to N bytes which is too long"), and
# the whole catalog's text (116,000 characters) compiles to more: batches stay far under it (catalog
# expressions compile to about 0.6 byte per character).
_BATCH_CHARS = 40_000


def _batches(expressions: list[str]) -> Iterator[list[str]]:
    batch: list[str] = []
    size = 0
    for expression in expressions:
        if batch and size + len(expression) > _BATCH_CHARS:
            yield batch
            batch, size = [], 0
        batch.append(expression)
        size += len(expression)
    if batch:
        yield batch


def _valid_together(batch: list[str]) -> set[str]:
    """The expressions of ``batch`` libjq is proven to accept (see :func:`_batchable`)."""
    if not batch:
        return set()
    error = _syntax_error("[" + ",".join(f"(\n{e}\n)" for e in batch) + "]")
    if error is None:
        return set(batch)
    if len(batch) == 1 or isinstance(error, JqLimitError):
        # Halving a batch that hit a limit would pay the limit again at every level (a second each when
        # it is time): each element is judged alone instead.
        return set()
    middle = len(batch) // 2
    return _valid_together(batch[:middle]) | _valid_together(batch[middle:])


def _judge(expression: str, *, syntax_proven: bool = False) -> Verdict:
    if len(expression) > LIMITS.max_expression_chars:
        too_long = JqSyntaxError(
            f"expression is {len(expression)} characters, over the {LIMITS.max_expression_chars} limit",
            expression,
        )
        # Refused by its length alone: analysing it (tokenizing megabytes of jq) would cost what the limit saves.
        return Verdict(expression, None, (), _pack(too_long))
    try:
        tokens: list[Token] | None = tokenize(expression)
    except LexError:
        tokens = None
    token_violations = check_tokens(expression, tokens) if tokens is not None else []
    recursion = check_recursion(expression, tokens) if tokens is not None else []
    sandbox = tuple(_pack(e) for e in [*token_violations, *recursion])
    error: JqError | None = None
    if token_violations:
        error = token_violations[0]
    elif not syntax_proven:
        error = _syntax_error(expression)
    if error is None and tokens is None:
        error = JqSandboxError(f"sandbox: expression {expression!r} could not be analysed", expression, None, None)
    if error is None and recursion:
        error = recursion[0]
    if error is not None:
        return Verdict(expression, None, sandbox, _pack(error))
    return Verdict(expression, fast_ast(expression), sandbox, None)


@functools.lru_cache(maxsize=4096)
def compile_expression(expression: str) -> Program:
    """Parse, sandbox-check and prepare `expression`; cached by its text."""
    found = verdict(expression)
    if found.error is not None:
        raise _unpack(expression, found.error)
    return Program(expression, from_ast(found.fast_ast) if found.fast_ast is not None else None)


def expression_errors(expression: str) -> list[JqError]:
    """Every sandbox violation of the expression or, when there is none, the error compiling it raises."""
    found = verdict(expression)
    if found.sandbox:
        return [_unpack(expression, packed) for packed in found.sandbox]
    return [_unpack(expression, found.error)] if found.error is not None else []


def _syntax_error(expression: str) -> JqSyntaxError | JqLimitError | None:
    """libjq's verdict on the text. libjq computes constant parts of an expression while compiling it
    (``"aaaa" * 250000000`` is a gigabyte before anything runs), so it compiles user text only in the
    bounded worker; a warm process has every verdict primed and starts none."""
    from . import _isolated  # noqa: PLC0415 (the libjq worker's machinery loads only when libjq is needed)

    try:
        raw = _isolated.compile_isolated(expression)
    except JqLimitError as exc:
        why = "libjq computes constant parts of an expression, such as a repeated string, while compiling it"
        return JqLimitError(f"limit: {exc.message}: {why}", expression)
    if raw is None:
        return None
    lines = raw.splitlines()
    message = lines[0] if lines else raw
    message = message.removeprefix("jq: error: ")
    position = None
    m = _LINE_COL.search(message)
    if m is not None:
        position = _offset(expression, int(m.group(1)), int(m.group(2)))
    return JqSyntaxError(f"syntax: {message} in {expression!r}", expression, position, None)


def _offset(expression: str, line: int, column: int) -> int:
    lines = expression.split("\n")
    offset = sum(len(x) + 1 for x in lines[: line - 1])
    return min(offset + max(column - 1, 0), len(expression))
