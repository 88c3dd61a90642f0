"""In-process evaluator for a small, provably cheap subset of jq, built on purejq's AST.

It exists for speed: libjq needs every input serialised to JSON and parsed
again, while most definition expressions are plain paths. It never has to be
right about errors: any jq error that escapes, and any case it is unsure about
(`Bail`), makes the caller re-run the expression in libjq, so libjq remains the
only source of error messages and of every less common semantic.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from .limits import LIMITS

Env = dict[int, Any]
Gen = Callable[[Any, Env], Iterator[Any]]
_NO_ENV: Env = {}
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


class _Scope:
    """Compile-time names: variables map to unique slots of the runtime env, functions to definitions.

    Every binding site gets its own slot number, so a function body inlined at its call site can run
    with the caller's env extended (no slot of the caller is ever shadowed by a slot of the callee).
    """

    __slots__ = ("funcs", "vars")

    def __init__(self, vars: dict[str, int], funcs: dict[tuple[str, int], Any]) -> None:
        self.vars = vars
        self.funcs = funcs

    def with_var(self, name: str, slot: int) -> _Scope:
        return _Scope({**self.vars, name: slot}, self.funcs)

    def with_func(self, key: tuple[str, int], entry: Any) -> _Scope:
        return _Scope(self.vars, {**self.funcs, key: entry})


# Inlining user functions at each call site is exponential in the worst case; stay far below that.
_MAX_COMPILED_NODES = 20_000
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


class FastProgram:
    """A compiled fast-path program: `run` yields outputs, `paths` yields paths."""

    def __init__(self, ast: Any) -> None:
        self._budget: _Budget = _Budget()
        self._slots = 0
        self._nodes = 0
        self._gen = self._compile(ast, _Scope({}, {}))
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
        return list(self._gen(value, _NO_ENV))

    def first(self, value: Any) -> tuple[bool, Any]:
        self._budget = _Budget()
        for v in self._gen(value, _NO_ENV):
            return True, v
        return False, None

    def paths(self, value: Any) -> list[list[Any]]:
        assert self._path is not None
        self._budget = _Budget()
        return [list(p) for _, p in self._path(value, ())]

    def _spend(self, n: int = 1) -> None:
        self._budget.spend(n)

    def _slot(self) -> int:
        self._slots += 1
        return self._slots

    # --- value mode -------------------------------------------------------
    def _compile(self, node: Any, scope: _Scope) -> Gen:
        self._nodes += 1
        if self._nodes > _MAX_COMPILED_NODES:
            raise Unsupported
        tag = node[0]
        single = _single_path(node)
        if single is not None:
            keys = single
            if not keys:
                return lambda v, env: iter((v,))
            if len(keys) == 1:
                key0 = keys[0]
                return lambda v, env: iter((_index(v, key0),))

            def path_gen(v: Any, env: Env) -> Iterator[Any]:
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
            return lambda v, env: iter((c,))
        if tag == "emptyarray":
            return lambda v, env: iter(([],))
        if tag == "field" or (tag == "index" and node[2][0] == "const"):
            base = self._compile(node[1], scope)
            key = _const_key(node[2]) if tag == "index" else node[2]

            def index_gen(v: Any, env: Env) -> Iterator[Any]:
                for b in base(v, env):
                    yield _index(b, key)

            return index_gen
        if tag == "index":
            return self._dynamic_index(node, scope)
        if tag == "slice":
            return self._slice(node, scope)
        if tag == "iterate":
            base = self._compile(node[1], scope)
            spend = self._spend

            def iter_gen(v: Any, env: Env) -> Iterator[Any]:
                for b in base(v, env):
                    items = _iter(b)
                    spend(1 + len(b))
                    yield from items

            return iter_gen
        if tag == "opt" and node[1][0] in ("field", "index", "iterate"):
            if node[1][0] == "index" and node[1][2][0] != "const":
                raise Unsupported
            # `.a.b?` (only the last step is optional in jq) and `(.a.b)?` (all of it is)
            # parse to the same AST; act only where both readings agree.
            base = self._compile(node[1][1], scope)
            step = self._compile((*node[1][:1], ("identity",), *node[1][2:]), scope)

            def opt_step_gen(v: Any, env: Env) -> Iterator[Any]:
                try:
                    outs = list(base(v, env))
                except FastError:
                    raise Bail from None
                for b in outs:
                    try:
                        results = list(step(b, env))
                    except FastError:
                        if len(outs) == 1:
                            return
                        raise Bail from None
                    yield from results

            return opt_step_gen
        if tag == "opt":
            if node[1][0] == "slice":
                raise Unsupported
            inner = self._compile(node[1], scope)

            def opt_gen(v: Any, env: Env) -> Iterator[Any]:
                try:
                    yield from inner(v, env)
                except FastError:
                    return

            return opt_gen
        if tag == "pipe":
            left, right = self._compile(node[1], scope), self._compile(node[2], scope)

            def pipe_gen(v: Any, env: Env) -> Iterator[Any]:
                for x in left(v, env):
                    yield from right(x, env)

            return pipe_gen
        if tag == "comma":
            left, right = self._compile(node[1], scope), self._compile(node[2], scope)

            def comma_gen(v: Any, env: Env) -> Iterator[Any]:
                yield from left(v, env)
                yield from right(v, env)

            return comma_gen
        if tag == "alt":
            left, right = self._compile(node[1], scope), self._compile(node[2], scope)

            def alt_gen(v: Any, env: Env) -> Iterator[Any]:
                any_true = False
                for x in left(v, env):
                    if x is not None and x is not False:
                        any_true = True
                        yield x
                if not any_true:
                    yield from right(v, env)

            return alt_gen
        if tag == "collect":
            inner = self._compile(node[1], scope)
            spend = self._spend

            def collect_gen(v: Any, env: Env) -> Iterator[Any]:
                out = list(inner(v, env))
                spend(len(out) + 1)
                yield out

            return collect_gen
        if tag in ("and", "or"):
            left, right = self._compile(node[1], scope), self._compile(node[2], scope)
            is_and = tag == "and"

            def bool_gen(v: Any, env: Env) -> Iterator[Any]:
                for x in left(v, env):
                    if _truthy(x) != is_and:
                        yield not is_and
                        continue
                    for y in right(v, env):
                        yield _truthy(y)

            return bool_gen
        if tag == "binop":
            return self._binop(node, scope)
        if tag == "neg":
            inner = self._compile(node[1], scope)

            def neg_gen(v: Any, env: Env) -> Iterator[Any]:
                for x in inner(v, env):
                    if not _is_num(x) or x == 0:  # -0 prints as "-0" in libjq
                        raise Bail
                    yield _number(-x)

            return neg_gen
        if tag == "if":
            return self._if(node[1], node[2], scope)
        if tag == "as":
            return self._as(node, scope)
        if tag == "var":
            slot = scope.vars.get(node[1])
            if slot is None:
                raise Unsupported  # $ENV, $__loc__, $__prog_args...: libjq's business
            return lambda v, env: iter((env[slot],))
        if tag == "reduce":
            return self._reduce(node, scope)
        if tag == "funcdef":
            name, params, body, rest = node[1], node[2], node[3], node[4]
            # The body sees what is visible where it is defined (recursion is rejected earlier); it is
            # compiled at each call site, with that site's arguments.
            return self._compile(rest, scope.with_func((name, len(params)), ("def", params, body, scope)))
        if tag == "object":
            return self._object(node[1], scope)
        if tag == "str":
            if node[1] is not None:
                raise Unsupported  # @format strings
            return self._interpolation(node[2], scope)
        if tag == "call":
            return self._call(node[1], node[2], scope)
        raise Unsupported

    def _dynamic_index(self, node: Any, scope: _Scope) -> Gen:
        base = self._compile(node[1], scope)
        key_gen = self._compile(node[2], scope)

        def dyn_index_gen(v: Any, env: Env) -> Iterator[Any]:
            # jq evaluates the key on the same input, in the outer loop.
            for key in key_gen(v, env):
                k = int(key) if type(key) is float and key.is_integer() else key
                if type(k) is not str and type(k) is not int:
                    raise Bail
                for b in base(v, env):
                    yield _index(b, k)

        return dyn_index_gen

    def _slice(self, node: Any, scope: _Scope) -> Gen:
        base = self._compile(node[1], scope)
        start = self._compile(node[2], scope) if node[2] is not None else None
        stop = self._compile(node[3], scope) if node[3] is not None else None
        spend = self._spend

        def slice_gen(v: Any, env: Env) -> Iterator[Any]:
            try:
                starts = list(start(v, env)) if start is not None else [None]
                stops = list(stop(v, env)) if stop is not None else [None]
                bases = list(base(v, env))
            except FastError:
                raise Bail from None
            if len(starts) != 1 or len(stops) != 1:
                raise Bail
            a, z = _slice_bound(starts[0]), _slice_bound(stops[0])
            for b in bases:
                if b is None:
                    yield None
                elif type(b) is list:
                    spend(1 + len(b))
                    yield b[a:z]
                else:
                    raise Bail  # strings slice by codepoint in libjq; keep it there

        return slice_gen

    def _binop(self, node: Any, scope: _Scope) -> Gen:
        op = node[1]
        left, right = self._compile(node[2], scope), self._compile(node[3], scope)
        if op in ("==", "!=", "<", "<=", ">", ">="):

            def cmp_gen(v: Any, env: Env) -> Iterator[Any]:
                # jq evaluates the right operand in the outer loop.
                for b in right(v, env):
                    for a in left(v, env):
                        yield _compare(op, a, b)

            return cmp_gen
        if op == "+":
            spend = self._spend

            def add_gen(v: Any, env: Env) -> Iterator[Any]:
                for b in right(v, env):
                    for a in left(v, env):
                        r = _add(a, b)
                        if type(r) is list or type(r) is dict:
                            spend(1 + len(r))
                        yield r

            return add_gen
        if op in ("-", "*", "/"):

            def arith_gen(v: Any, env: Env) -> Iterator[Any]:
                for b in right(v, env):
                    for a in left(v, env):
                        yield _arith(op, a, b)

            return arith_gen
        raise Unsupported

    def _if(self, branches: list[Any], otherwise: Any, scope: _Scope) -> Gen:
        cond = self._compile(branches[0][0], scope)
        then = self._compile(branches[0][1], scope)
        if len(branches) > 1:
            rest = self._if(branches[1:], otherwise, scope)
        elif otherwise is not None:
            rest = self._compile(otherwise, scope)
        else:
            rest = lambda v, env: iter((v,))  # noqa: E731 - `if c then a end` keeps the input

        def if_gen(v: Any, env: Env) -> Iterator[Any]:
            for c in cond(v, env):
                if c is not None and c is not False:
                    yield from then(v, env)
                else:
                    yield from rest(v, env)

        return if_gen

    def _pattern_slot(self, patterns: list[Any], scope: _Scope) -> tuple[int, _Scope]:
        # Only `as $name`; destructuring and `?//` alternatives stay with libjq.
        if len(patterns) != 1 or patterns[0][0] != "pvar":
            raise Unsupported
        slot = self._slot()
        return slot, scope.with_var(patterns[0][1], slot)

    def _as(self, node: Any, scope: _Scope) -> Gen:
        source = self._compile(node[1], scope)
        slot, inner = self._pattern_slot(node[2], scope)
        body = self._compile(node[3], inner)

        def as_gen(v: Any, env: Env) -> Iterator[Any]:
            for x in source(v, env):
                bound = env.copy()
                bound[slot] = x
                yield from body(v, bound)

        return as_gen

    def _reduce(self, node: Any, scope: _Scope) -> Gen:
        source = self._compile(node[1], scope)
        slot, inner = self._pattern_slot(node[2], scope)
        init = self._compile(node[3], scope)
        update = self._compile(node[4], inner)
        spend = self._spend

        def reduce_gen(v: Any, env: Env) -> Iterator[Any]:
            starts = list(init(v, env))
            if len(starts) != 1:
                raise Bail
            state = starts[0]
            for x in source(v, env):
                spend()
                bound = env.copy()
                bound[slot] = x
                last = None  # an empty update makes the state null in libjq 1.8; the last output wins
                for last in update(state, bound):  # noqa: B007
                    pass
                state = last
            yield state

        return reduce_gen

    def _object(self, entries: list[Any], scope: _Scope) -> Gen:
        compiled = [(self._compile(k, scope), self._compile(val, scope)) for k, val in entries]
        spend = self._spend

        def object_gen(v: Any, env: Env) -> Iterator[Any]:
            # Everything is evaluated up front; an error whose order against an empty entry could
            # matter is left to libjq.
            choices: list[list[tuple[str, Any]]] = []
            try:
                for key_gen, val_gen in compiled:
                    keys = list(key_gen(v, env))
                    vals = list(val_gen(v, env))
                    for k in keys:
                        if type(k) is not str:
                            raise Bail
                    choices.append([(k, x) for k in keys for x in vals])
            except FastError:
                raise Bail from None
            if not all(choices):
                return
            # The first entry varies slowest, as in libjq.
            for combo in itertools.product(*choices):
                spend(1 + len(combo))
                yield dict(combo)

        return object_gen

    def _interpolation(self, parts: list[Any], scope: _Scope) -> Gen:
        compiled: list[Any] = [p if type(p) is str else self._compile(p, scope) for p in parts]

        def str_gen(v: Any, env: Env) -> Iterator[Any]:
            choices: list[list[str]] = []
            try:
                for part in compiled:
                    choices.append([part] if type(part) is str else [_tostring(x) for x in part(v, env)])
            except FastError:
                raise Bail from None
            if not all(choices):
                return
            # The last interpolation varies slowest, as in libjq.
            for combo in itertools.product(*reversed(choices)):
                text = "".join(reversed(combo))
                if len(text) > LIMITS.max_string_bytes:
                    raise Bail
                yield text

        return str_gen

    # --- calls ------------------------------------------------------------
    def _call(self, name: str, args: list[Any], scope: _Scope) -> Gen:
        entry = scope.funcs.get((name, len(args)))
        if entry is not None:
            return self._call_user(entry, args, scope)
        if name == "test" and len(args) == 1:
            return _regex_test(args[0])
        builtin = _BUILTINS.get((name, len(args)))
        if builtin is None:
            raise Unsupported
        return builtin(self, [self._compile(a, scope) for a in args])

    def _call_user(self, entry: Any, args: list[Any], scope: _Scope) -> Gen:
        if entry[0] == "closure":
            return entry[1]  # type: ignore[no-any-return]
        _, params, body, body_scope = entry
        value_params: list[tuple[int, Gen]] = []
        for param, arg in zip(params, args, strict=True):
            arg_gen = self._compile(arg, scope)
            if param.startswith("$"):
                # `def f($t)` is `def f(t): t as $t | ...`: `t` stays the argument filter.
                slot = self._slot()
                body_scope = body_scope.with_var(param[1:], slot).with_func((param[1:], 0), ("closure", arg_gen))
                value_params.append((slot, arg_gen))
            else:
                body_scope = body_scope.with_func((param, 0), ("closure", arg_gen))
        body_gen = self._compile(body, body_scope)
        if not value_params:
            return body_gen

        def bind(i: int, v: Any, env: Env) -> Iterator[Any]:
            if i == len(value_params):
                yield from body_gen(v, env)
                return
            slot, arg_gen = value_params[i]
            for x in arg_gen(v, env):
                bound = env.copy()
                bound[slot] = x
                yield from bind(i + 1, v, bound)

        return lambda v, env: bind(0, v, env)

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
                cond = self._compile(args[0], _Scope({}, {}))

                def select_path(v: Any, p: tuple[Any, ...]) -> Iterator[tuple[Any, tuple[Any, ...]]]:
                    for c in cond(v, _NO_ENV):
                        if c is not None and c is not False:
                            yield v, p

                return select_path
        raise Unsupported


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


def _regex_test(pattern: Any) -> Gen:
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


_BUILTINS: dict[tuple[str, int], Callable[[FastProgram, list[Gen]], Gen]] = {
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


def fast_ast(expression: str) -> Any:
    """purejq's AST of the expression when the fast path can run it, else None (libjq runs it).

    The AST is plain tuples, lists and scalars: it can be stored, and :func:`from_ast` turns it into a
    program again without parsing.
    """
    try:
        from ._purejq import parse

        ast = parse(expression)
        FastProgram(ast)
    except Exception:
        return None
    return ast


def from_ast(ast: Any) -> FastProgram | None:
    try:
        return FastProgram(ast)
    except Exception:
        return None
