"""In-process evaluator for a small, provably cheap subset of jq, built on purejq's AST.

It exists for speed: libjq needs every input serialised to JSON and parsed
again, while most definition expressions are plain paths. It never has to be
right about errors: any jq error that escapes, and any case it is unsure about
(`Bail`), makes the caller re-run the expression in libjq, so libjq remains the
only source of error messages and of every less common semantic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from .limits import LIMITS

Gen = Callable[[Any], Iterator[Any]]
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


def _arith(op: str, a: Any, b: Any) -> Any:
    if op == "+":
        if a is None:
            return b
        if b is None:
            return a
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


class FastProgram:
    """A compiled fast-path program: `run` yields outputs, `paths` yields paths."""

    def __init__(self, ast: Any) -> None:
        self._budget: _Budget = _Budget()
        self._gen = self._compile(ast)
        self._path: PathGen | None
        try:
            self._path = self._compile_path(ast)
        except Unsupported:
            self._path = None
        self.single = _single_path(ast)

    @property
    def supports_paths(self) -> bool:
        return self._path is not None

    def all(self, value: Any) -> list[Any]:
        self._budget = _Budget()
        return list(self._gen(value))

    def first(self, value: Any) -> tuple[bool, Any]:
        self._budget = _Budget()
        for v in self._gen(value):
            return True, v
        return False, None

    def paths(self, value: Any) -> list[list[Any]]:
        assert self._path is not None
        self._budget = _Budget()
        return [list(p) for _, p in self._path(value, ())]

    # --- value mode -------------------------------------------------------
    def _compile(self, node: Any) -> Gen:
        tag = node[0]
        single = _single_path(node)
        if single is not None:
            keys = single

            def path_gen(v: Any) -> Iterator[Any]:
                for k in keys:
                    v = _index(v, k)
                yield v

            return path_gen
        if tag == "const":
            c = node[1]
            if not (c is None or type(c) in (bool, int, float, str)):
                raise Unsupported
            if type(c) is float and (math.isnan(c) or math.isinf(c)):
                raise Unsupported
            return lambda v: iter((c,))
        if tag == "emptyarray":
            return lambda v: iter(([],))
        if tag in ("field", "index"):
            base = self._compile(node[1])
            key = _const_key(node[2]) if tag == "index" else node[2]

            def index_gen(v: Any) -> Iterator[Any]:
                for b in base(v):
                    yield _index(b, key)

            return index_gen
        if tag == "iterate":
            base = self._compile(node[1])
            budget = self

            def iter_gen(v: Any) -> Iterator[Any]:
                for b in base(v):
                    items = _iter(b)
                    budget._budget.spend(1 + (len(b) if isinstance(b, (list, dict)) else 0))
                    yield from items

            return iter_gen
        if tag == "opt" and node[1][0] in ("field", "index", "iterate"):
            # `.a.b?` (only the last step is optional in jq) and `(.a.b)?` (all of it is)
            # parse to the same AST; act only where both readings agree.
            base = self._compile(node[1][1])
            step = self._compile((*node[1][:1], ("identity",), *node[1][2:]))

            def opt_step_gen(v: Any) -> Iterator[Any]:
                try:
                    outs = list(base(v))
                except FastError:
                    raise Bail from None
                for b in outs:
                    try:
                        results = list(step(b))
                    except FastError:
                        if len(outs) == 1:
                            return
                        raise Bail from None
                    yield from results

            return opt_step_gen
        if tag == "opt":
            inner = self._compile(node[1])

            def opt_gen(v: Any) -> Iterator[Any]:
                try:
                    yield from inner(v)
                except FastError:
                    return

            return opt_gen
        if tag == "pipe":
            left, right = self._compile(node[1]), self._compile(node[2])

            def pipe_gen(v: Any) -> Iterator[Any]:
                for x in left(v):
                    yield from right(x)

            return pipe_gen
        if tag == "comma":
            left, right = self._compile(node[1]), self._compile(node[2])

            def comma_gen(v: Any) -> Iterator[Any]:
                yield from left(v)
                yield from right(v)

            return comma_gen
        if tag == "alt":
            left, right = self._compile(node[1]), self._compile(node[2])

            def alt_gen(v: Any) -> Iterator[Any]:
                any_true = False
                for x in left(v):
                    if x is not None and x is not False:
                        any_true = True
                        yield x
                if not any_true:
                    yield from right(v)

            return alt_gen
        if tag == "collect":
            inner = self._compile(node[1])
            budget = self

            def collect_gen(v: Any) -> Iterator[Any]:
                out = list(inner(v))
                budget._budget.spend(len(out) + 1)
                yield out

            return collect_gen
        if tag in ("and", "or"):
            left, right = self._compile(node[1]), self._compile(node[2])
            is_and = tag == "and"

            def bool_gen(v: Any) -> Iterator[Any]:
                for x in left(v):
                    if _truthy(x) != is_and:
                        yield not is_and
                        continue
                    for y in right(v):
                        yield _truthy(y)

            return bool_gen
        if tag == "binop":
            op = node[1]
            left, right = self._compile(node[2]), self._compile(node[3])
            if op in ("==", "!=", "<", "<=", ">", ">="):

                def cmp_gen(v: Any) -> Iterator[Any]:
                    # jq evaluates the right operand in the outer loop.
                    for b in right(v):
                        for a in left(v):
                            yield _compare(op, a, b)

                return cmp_gen
            if op in ("+", "-", "*", "/"):

                def arith_gen(v: Any) -> Iterator[Any]:
                    for b in right(v):
                        for a in left(v):
                            yield _arith(op, a, b)

                return arith_gen
            raise Unsupported
        if tag == "call":
            name, args = node[1], node[2]
            if name == "empty" and not args:
                return lambda v: iter(())
            if name == "not" and not args:
                return lambda v: iter((not _truthy(v),))
            if name == "length" and not args:
                return lambda v: iter((_length(v),))
            if name == "map" and len(args) == 1:
                return self._compile(("collect", ("pipe", ("iterate", ("identity",)), args[0])))
            if name == "select" and len(args) == 1:
                cond = self._compile(args[0])

                def select_gen(v: Any) -> Iterator[Any]:
                    for c in cond(v):
                        if c is not None and c is not False:
                            yield v

                return select_gen
            raise Unsupported
        raise Unsupported

    # --- path mode --------------------------------------------------------
    def _compile_path(self, node: Any) -> PathGen:
        tag = node[0]
        if tag == "identity":
            return lambda v, p: iter(((v, p),))
        if tag in ("field", "index"):
            base = self._compile_path(node[1])
            key = _const_key(node[2]) if tag == "index" else node[2]

            def index_path(v: Any, p: tuple[Any, ...]) -> Iterator[tuple[Any, tuple[Any, ...]]]:
                for b, bp in base(v, p):
                    yield _index(b, key), (*bp, key)

            return index_path
        if tag == "iterate":
            base = self._compile_path(node[1])
            budget = self

            def iter_path(v: Any, p: tuple[Any, ...]) -> Iterator[tuple[Any, tuple[Any, ...]]]:
                for b, bp in base(v, p):
                    if type(b) is list:
                        budget._budget.spend(len(b) + 1)
                        for i, x in enumerate(b):
                            yield x, (*bp, i)
                    elif type(b) is dict:
                        budget._budget.spend(len(b) + 1)
                        for k, x in b.items():
                            yield x, (*bp, k)
                    elif b is None:
                        # path(null | .[]) is empty in libjq; keep that to libjq.
                        raise Bail
                    else:
                        raise FastError

            return iter_path
        if tag == "opt" and node[1][0] in ("field", "index", "iterate"):
            base_p = self._compile_path(node[1][1])
            step_p = self._compile_path((*node[1][:1], ("identity",), *node[1][2:]))

            def opt_step_path(v: Any, p: tuple[Any, ...]) -> Iterator[tuple[Any, tuple[Any, ...]]]:
                try:
                    outs = list(base_p(v, p))
                except FastError:
                    raise Bail from None
                for b, bp in outs:
                    try:
                        results = list(step_p(b, bp))
                    except FastError:
                        if len(outs) == 1:
                            return
                        raise Bail from None
                    yield from results

            return opt_step_path
        if tag == "opt":
            inner = self._compile_path(node[1])

            def opt_path(v: Any, p: tuple[Any, ...]) -> Iterator[tuple[Any, tuple[Any, ...]]]:
                try:
                    yield from inner(v, p)
                except FastError:
                    return

            return opt_path
        if tag == "pipe":
            left, right = self._compile_path(node[1]), self._compile_path(node[2])

            def pipe_path(v: Any, p: tuple[Any, ...]) -> Iterator[tuple[Any, tuple[Any, ...]]]:
                for x, xp in left(v, p):
                    yield from right(x, xp)

            return pipe_path
        if tag == "comma":
            left, right = self._compile_path(node[1]), self._compile_path(node[2])

            def comma_path(v: Any, p: tuple[Any, ...]) -> Iterator[tuple[Any, tuple[Any, ...]]]:
                yield from left(v, p)
                yield from right(v, p)

            return comma_path
        if tag == "alt":
            left, right = self._compile_path(node[1]), self._compile_path(node[2])

            def alt_path(v: Any, p: tuple[Any, ...]) -> Iterator[tuple[Any, tuple[Any, ...]]]:
                any_true = False
                for x, xp in left(v, p):
                    if x is not None and x is not False:
                        any_true = True
                        yield x, xp
                if not any_true:
                    yield from right(v, p)

            return alt_path
        if tag == "call":
            name, args = node[1], node[2]
            if name == "empty" and not args:
                return lambda v, p: iter(())
            if name == "select" and len(args) == 1:
                cond = self._compile(args[0])

                def select_path(v: Any, p: tuple[Any, ...]) -> Iterator[tuple[Any, tuple[Any, ...]]]:
                    for c in cond(v):
                        if c is not None and c is not False:
                            yield v, p

                return select_path
        raise Unsupported


def _const_key(node: Any) -> Any:
    if node[0] != "const":
        raise Unsupported
    key = node[1]
    if type(key) is str or type(key) is int:
        return key
    raise Unsupported


def _single_path(node: Any) -> tuple[Any, ...] | None:
    """Keys of a plain `.a.b[0]["c"]` chain (no `?`, no iteration), else None."""
    keys: list[Any] = []
    while True:
        tag = node[0]
        if tag == "identity":
            return tuple(reversed(keys))
        if tag == "field":
            keys.append(node[2])
        elif tag == "index":
            try:
                keys.append(_const_key(node[2]))
            except Unsupported:
                return None
        else:
            return None
        node = node[1]


def compile_fast(expression: str) -> FastProgram | None:
    try:
        from ._purejq import parse

        ast = parse(expression)
        return FastProgram(ast)
    except Exception:
        return None
