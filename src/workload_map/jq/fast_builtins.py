"""The jq builtins the fast path runs in process; any other builtin sends the expression to libjq."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .fast_values import (
    _ASCII_LOWER,
    _ASCII_UPPER,
    Bail,
    Env,
    FastError,
    Gen,
    Unsupported,
    _add,
    _equal,
    _from_entries,
    _has,
    _index,
    _index_of,
    _is_num,
    _iter,
    _keys,
    _length,
    _min_max,
    _number,
    _str_arg,
    _to_entries,
    _tonumber,
    _tostring,
    _truthy,
    _type_name,
)

if TYPE_CHECKING:
    from .fast import FastProgram


# --- builtins: (name, arity) -> factory(program, compiled args) -> Gen ------------------------------
def _b_empty(p: FastProgram, a: list[Gen]) -> Gen:
    return lambda v, env: iter(())


def _b_not(p: FastProgram, a: list[Gen]) -> Gen:
    return lambda v, env: iter((not _truthy(v),))


def _b_length(p: FastProgram, a: list[Gen]) -> Gen:
    return lambda v, env: iter((_length(v),))


def _b_map(p: FastProgram, a: list[Gen]) -> Gen:
    f = a[0]
    spend = p._spend

    def map_gen(v: Any, env: Env) -> Iterator[Any]:
        items = _iter(v)
        spend(1 + len(v))
        out: list[Any] = []
        for x in items:
            out.extend(f(x, env))
        spend(len(out))
        yield out

    return map_gen


def _b_select(p: FastProgram, a: list[Gen]) -> Gen:
    cond = a[0]

    def select_gen(v: Any, env: Env) -> Iterator[Any]:
        for c in cond(v, env):
            if c is not None and c is not False:
                yield v

    return select_gen


def _b_first0(p: FastProgram, a: list[Gen]) -> Gen:
    return lambda v, env: iter((_index(v, 0),))


def _b_last0(p: FastProgram, a: list[Gen]) -> Gen:
    return lambda v, env: iter((_index(v, -1),))


def _b_first1(p: FastProgram, a: list[Gen]) -> Gen:
    f = a[0]

    def first_gen(v: Any, env: Env) -> Iterator[Any]:
        for x in f(v, env):
            yield x
            return

    return first_gen


def _b_last1(p: FastProgram, a: list[Gen]) -> Gen:
    f = a[0]

    def last_gen(v: Any, env: Env) -> Iterator[Any]:
        found, last = False, None
        for last in f(v, env):  # noqa: B007
            found = True
        if found:
            yield last

    return last_gen


def _b_add(p: FastProgram, a: list[Gen]) -> Gen:
    spend = p._spend

    def add_gen(v: Any, env: Env) -> Iterator[Any]:
        items = _iter(v)
        spend(1 + len(v))
        acc = None
        for x in items:
            acc = _add(acc, x)
            if type(acc) is list or type(acc) is dict:
                spend(len(acc))
        yield acc

    return add_gen


def _any_all(p: FastProgram, gen: Gen | None, cond: Gen | None, *, is_any: bool) -> Gen:
    spend = p._spend

    def any_all_gen(v: Any, env: Env) -> Iterator[Any]:
        if gen is None:
            items: Iterator[Any] = _iter(v)
            spend(1 + len(v))
        else:
            items = gen(v, env)
        for x in items:
            for c in cond(x, env) if cond is not None else (x,):
                if (c is not None and c is not False) == is_any:
                    yield is_any
                    return
        yield not is_any

    return any_all_gen


def _b_any0(p: FastProgram, a: list[Gen]) -> Gen:
    return _any_all(p, None, None, is_any=True)


def _b_all0(p: FastProgram, a: list[Gen]) -> Gen:
    return _any_all(p, None, None, is_any=False)


def _b_any1(p: FastProgram, a: list[Gen]) -> Gen:
    return _any_all(p, None, a[0], is_any=True)


def _b_all1(p: FastProgram, a: list[Gen]) -> Gen:
    return _any_all(p, None, a[0], is_any=False)


def _b_any2(p: FastProgram, a: list[Gen]) -> Gen:
    return _any_all(p, a[0], a[1], is_any=True)


def _b_all2(p: FastProgram, a: list[Gen]) -> Gen:
    return _any_all(p, a[0], a[1], is_any=False)


def _b_in1(p: FastProgram, a: list[Gen]) -> Gen:
    # def IN(s): any(s == .; .);
    s = a[0]

    def in_gen(v: Any, env: Env) -> Iterator[Any]:
        for x in s(v, env):
            if _equal(x, v):
                yield True
                return
        yield False

    return in_gen


def _simple(fn: Callable[[Any], Any]) -> Callable[[FastProgram, list[Gen]], Gen]:
    def factory(p: FastProgram, a: list[Gen]) -> Gen:
        return lambda v, env: iter((fn(v),))

    return factory


def _with_arg(fn: Callable[[Any, Any], Any]) -> Callable[[FastProgram, list[Gen]], Gen]:
    """A builtin of one `$x` argument: one output per output of the argument (evaluated on `.`)."""

    def factory(p: FastProgram, a: list[Gen]) -> Gen:
        arg = a[0]

        def gen(v: Any, env: Env) -> Iterator[Any]:
            for x in arg(v, env):
                yield fn(v, x)

        return gen

    return factory


def _b_with_entries(p: FastProgram, a: list[Gen]) -> Gen:
    f = a[0]
    spend = p._spend

    def with_entries_gen(v: Any, env: Env) -> Iterator[Any]:
        entries = _to_entries(v)
        spend(1 + len(entries))
        out: list[Any] = []
        for e in entries:
            out.extend(f(e, env))
        yield _from_entries(out)

    return with_entries_gen


def _ascii(table: dict[int, int]) -> Callable[[Any], Any]:
    def convert(v: Any) -> Any:
        if type(v) is not str:
            raise FastError
        return v.translate(table)

    return convert


def _ltrimstr(v: Any, x: Any) -> Any:
    s, prefix = _str_arg("ltrimstr", v, x)
    return s[len(prefix) :] if s.startswith(prefix) else s


def _rtrimstr(v: Any, x: Any) -> Any:
    s, suffix = _str_arg("rtrimstr", v, x)
    return s[: len(s) - len(suffix)] if s.endswith(suffix) else s


def _startswith(v: Any, x: Any) -> Any:
    s, prefix = _str_arg("startswith", v, x)
    return s.startswith(prefix)


def _endswith(v: Any, x: Any) -> Any:
    s, suffix = _str_arg("endswith", v, x)
    return s.endswith(suffix)


def _contains(v: Any, x: Any) -> Any:
    # Strings only (libjq's substring search); arrays and objects (recursive containment) go to libjq.
    if type(v) is not str or type(x) is not str:
        raise Bail
    return x in v


# `test(PATTERN)` runs in process when PATTERN is a plain regular expression on which Oniguruma (libjq's
# engine, Perl_NT syntax) and Python's `re` agree about *whether* a string matches: literal ASCII word
# characters, space, `/` and `-`, groups without extensions, alternation, `.`, anchors and a single
# greedy quantifier after an atom. `.`, `^` and `$` treat newlines differently in the two engines, so a
# subject containing one goes to libjq.
_REGEX_CHARS = re.compile(r"[A-Za-z0-9_ /\-()|^$.*+?]*")


_QUANTIFIERS = "*+?"


def _plain_regex(pattern: str) -> re.Pattern[str] | None:
    if not _REGEX_CHARS.fullmatch(pattern) or "(?" in pattern:
        return None
    previous = ""
    for ch in pattern:
        if ch in _QUANTIFIERS and (previous in ("", "(", "|", "^") or previous in _QUANTIFIERS):
            return None
        previous = ch
    try:
        return re.compile(pattern)
    except re.error:
        return None


def regex_test(pattern: Any) -> Gen:
    """``test("...")`` with a constant plain pattern (the catalog's ``test("gpu")``,
    ``test("(Error|Failed)$")``), so that a command whose expressions are otherwise fast never starts the
    libjq worker. Any other pattern, flags, or a non-string subject go to libjq."""
    if pattern[0] != "const" or type(pattern[1]) is not str:
        raise Unsupported
    compiled = _plain_regex(pattern[1])
    if compiled is None:
        raise Unsupported
    search = compiled.search

    def test_gen(v: Any, env: Env) -> Iterator[Any]:
        if type(v) is not str or "\n" in v or "\r" in v:
            raise Bail
        yield search(v) is not None

    return test_gen


def _rounding(fn: Callable[[float], Any]) -> Callable[[Any], Any]:
    def convert(v: Any) -> Any:
        if not _is_num(v):
            raise Bail
        if type(v) is float and (math.isnan(v) or math.isinf(v)):
            raise Bail
        return _number(fn(v))

    return convert


def _values(p: FastProgram, a: list[Gen]) -> Gen:
    return lambda v, env: iter((v,) if v is not None else ())


BUILTINS: dict[tuple[str, int], Callable[[FastProgram, list[Gen]], Gen]] = {
    ("empty", 0): _b_empty,
    ("not", 0): _b_not,
    ("length", 0): _b_length,
    ("map", 1): _b_map,
    ("select", 1): _b_select,
    ("first", 0): _b_first0,
    ("last", 0): _b_last0,
    ("first", 1): _b_first1,
    ("last", 1): _b_last1,
    ("add", 0): _b_add,
    ("any", 0): _b_any0,
    ("all", 0): _b_all0,
    ("any", 1): _b_any1,
    ("all", 1): _b_all1,
    ("any", 2): _b_any2,
    ("all", 2): _b_all2,
    ("IN", 1): _b_in1,
    ("values", 0): _values,
    ("type", 0): _simple(_type_name),
    ("keys", 0): _simple(lambda v: _keys(v, sort=True)),
    ("keys_unsorted", 0): _simple(lambda v: _keys(v, sort=False)),
    ("to_entries", 0): _simple(_to_entries),
    ("from_entries", 0): _simple(_from_entries),
    ("with_entries", 1): _b_with_entries,
    ("tostring", 0): _simple(_tostring),
    ("tonumber", 0): _simple(_tonumber),
    ("ascii_downcase", 0): _simple(_ascii(_ASCII_LOWER)),
    ("ascii_upcase", 0): _simple(_ascii(_ASCII_UPPER)),
    ("floor", 0): _simple(_rounding(math.floor)),
    ("ceil", 0): _simple(_rounding(math.ceil)),
    ("min", 0): _simple(lambda v: _min_max(v, is_min=True)),
    ("max", 0): _simple(lambda v: _min_max(v, is_min=False)),
    ("has", 1): _with_arg(_has),
    ("index", 1): _with_arg(_index_of),
    ("ltrimstr", 1): _with_arg(_ltrimstr),
    ("rtrimstr", 1): _with_arg(_rtrimstr),
    ("startswith", 1): _with_arg(_startswith),
    ("endswith", 1): _with_arg(_endswith),
    ("contains", 1): _with_arg(_contains),
}
