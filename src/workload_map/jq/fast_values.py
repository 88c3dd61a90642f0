"""jq value semantics for the fast path (truthiness, ordering, arithmetic, indexing), mirroring libjq.

Shared by the compiler in :mod:`.fast` and the builtins in :mod:`.fast_builtins`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from .limits import LIMITS

Env = dict[int, Any]
Gen = Callable[[Any, Env], Iterator[Any]]
NO_ENV: Env = {}
PathGen = Callable[[Any, tuple[Any, ...]], Iterator[tuple[Any, tuple[Any, ...]]]]


class Bail(Exception):
    """The fast path cannot decide; re-run in libjq."""


class FastError(Exception):
    """A jq runtime error inside the fast path (catchable by `?`)."""


class Unsupported(Exception):
    """Compile time: the expression is outside the subset."""


class _Budget:
    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = LIMITS.max_fast_steps

    def spend(self, n: int = 1) -> None:
        self.left -= n
        if self.left < 0:
            raise Bail


_MAX_SAFE = 2**53


def _truthy(v: Any) -> bool:
    return v is not None and v is not False


def _is_num(v: Any) -> bool:
    t = type(v)
    return t is int or t is float


def _index(v: Any, key: Any) -> Any:
    if type(key) is str:
        if type(v) is dict:
            return v.get(key)
        if v is None:
            return None
        raise FastError
    if type(key) is int:
        if type(v) is list:
            if key < 0:
                key += len(v)
                if key < 0:
                    return None
            return v[key] if key < len(v) else None
        if v is None:
            return None
        raise FastError
    raise Bail


def _iter(v: Any) -> Iterator[Any]:
    if type(v) is list:
        return iter(v)
    if type(v) is dict:
        return iter(v.values())
    raise FastError


# jq orders values by type first: null < false < true < numbers < strings < arrays < objects.
def _rank(v: Any) -> int:
    if v is None:
        return 0
    t = type(v)
    if t is bool:
        return 2 if v else 1
    if t is int or t is float:
        return 3
    if t is str:
        return 4
    if t is list:
        return 5
    if t is dict:
        return 6
    raise Bail


def _equal(a: Any, b: Any) -> bool:
    ra, rb = _rank(a), _rank(b)
    if ra != rb:
        return False
    if ra == 5:
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if ra == 6:
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _compare(op: str, a: Any, b: Any) -> bool:
    if op == "==":
        return _equal(a, b)
    if op == "!=":
        return not _equal(a, b)
    ra, rb = _rank(a), _rank(b)
    if ra == rb:
        if ra >= 5:
            raise Bail
        c = int(a > b) - int(a < b)
    else:
        c = -1 if ra < rb else 1
    if op == "<":
        return c < 0
    if op == "<=":
        return c <= 0
    if op == ">":
        return c > 0
    return c >= 0


def _number(r: Any) -> Any:
    # libjq computes in doubles and prints integral results without ".0".
    if type(r) is float:
        if math.isnan(r) or math.isinf(r):
            raise Bail
        if r.is_integer():
            if abs(r) >= _MAX_SAFE:
                raise Bail
            return int(r)
        return r
    if abs(r) >= _MAX_SAFE:
        raise Bail
    return r


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """`a * b` on objects: recursive merge, b wins; a's keys keep their places (jv_object_merge_recursive)."""
    out = dict(a)
    for k, v in b.items():
        old = out.get(k)
        out[k] = _merge(old, v) if type(old) is dict and type(v) is dict else v
    return out


def _arith(op: str, a: Any, b: Any) -> Any:
    if op == "+":
        if a is None:
            return b
        if b is None:
            return a
    if op == "*" and type(a) is dict and type(b) is dict:
        return _merge(a, b)
    if not (_is_num(a) and _is_num(b)):
        raise Bail
    if op == "+":
        return _number(a + b)
    if op == "-":
        return _number(a - b)
    if op == "*":
        return _number(a * b)
    if op == "/":
        if b == 0:
            raise Bail
        return _number(a / b)
    raise Bail


def _length(v: Any) -> Any:
    t = type(v)
    if v is None:
        return 0
    if t is str or t is list or t is dict:
        return len(v)
    if t is int or t is float:
        return _number(abs(v))
    raise FastError


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


_INT_TEXT = re.compile(r"-?[0-9]{1,15}")


def _type_name(v: Any) -> str:
    return ("null", "boolean", "boolean", "number", "string", "array", "object")[_rank(v)]


def _tostring(v: Any) -> str:
    t = type(v)
    if t is str:
        return v  # type: ignore[no-any-return]
    if v is None:
        return "null"
    if t is bool:
        return "true" if v else "false"
    if t is int and abs(v) < _MAX_SAFE:
        return str(v)
    # floats, big integers, arrays and objects: libjq's number and string spelling decides.
    raise Bail


def _add(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    ta, tb = type(a), type(b)
    if ta is str and tb is str:
        if len(a) + len(b) > LIMITS.max_string_bytes:
            raise Bail
        return a + b
    if ta is list and tb is list:
        return a + b
    if ta is dict and tb is dict:
        return {**a, **b}
    return _arith("+", a, b)


def _keys(v: Any, *, sort: bool) -> list[Any]:
    if type(v) is dict:
        return sorted(v) if sort else list(v)
    if type(v) is list:
        return list(range(len(v)))
    raise FastError


def _to_entries(v: Any) -> list[Any]:
    if type(v) is dict:
        return [{"key": k, "value": x} for k, x in v.items()]
    if type(v) is list:
        return [{"key": i, "value": x} for i, x in enumerate(v)]
    raise FastError


def _from_entries(v: Any) -> dict[str, Any]:
    # Only the plain {key: "...", value: ...} form; libjq's fallbacks (k, name, v, ...) stay with libjq.
    if type(v) is not list:
        raise Bail
    out: dict[str, Any] = {}
    for entry in v:
        if type(entry) is not dict or "value" not in entry:
            raise Bail
        key = entry.get("key")
        if type(key) is not str:
            raise Bail
        out[key] = entry["value"]
    return out


def _has(v: Any, key: Any) -> bool:
    if type(v) is dict and type(key) is str:
        return key in v
    if type(v) is list and type(key) is int:
        return 0 <= key < len(v)
    raise Bail


def _min_max(v: Any, *, is_min: bool) -> Any:
    if type(v) is not list:
        raise Bail
    best: Any = None
    for i, x in enumerate(v):
        if _rank(x) >= 5:
            raise Bail
        if i == 0:
            best = x
        elif is_min:
            if _compare("<", x, best):
                best = x
        elif _compare(">=", x, best):
            best = x
    return best


def _index_of(v: Any, x: Any) -> Any:
    """`index($x)` on an array (first position of the element or one-element subarray), else Bail."""
    if type(v) is not list:
        raise Bail
    if type(x) is list:
        if len(x) != 1:
            raise Bail
        x = x[0]
    for i, y in enumerate(v):
        if _equal(y, x):
            return i
    return None


def _slice_bound(b: Any) -> int | None:
    if b is None or type(b) is int:
        return b
    raise Bail


def _tonumber(v: Any) -> Any:
    t = type(v)
    if t is int or t is float:
        return v
    if t is str and _INT_TEXT.fullmatch(v):
        return int(v)
    raise Bail


def _str_arg(name: str, v: Any, x: Any) -> tuple[str, str]:
    if type(v) is not str or type(x) is not str:
        raise FastError(name)
    return v, x
