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
from collections.abc import Iterator
from typing import Any

from .fast_builtins import BUILTINS, regex_test
from .fast_values import (
    NO_ENV,
    Bail,
    Env,
    FastError,
    Gen,
    PathGen,
    Unsupported,
    _add,
    _arith,
    _Budget,
    _compare,
    _index,
    _is_num,
    _iter,
    _number,
    _slice_bound,
    _tostring,
    _truthy,
)
from .limits import LIMITS


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
        keys = self.single
        if keys is not None:
            # A plain path (most pod selectors: `.metadata.labels["..."]`) is walked without a budget or
            # generator: it runs for every pod, and path_gen spends nothing either.
            for key in keys:
                value = _index(value, key)
            return [value]
        self._budget = _Budget()
        return list(self._gen(value, NO_ENV))

    def first(self, value: Any) -> tuple[bool, Any]:
        self._budget = _Budget()
        for v in self._gen(value, NO_ENV):
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
            return regex_test(args[0])
        builtin = BUILTINS.get((name, len(args)))
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
                    for c in cond(v, NO_ENV):
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


def fast_ast(expression: str) -> Any:
    """purejq's AST of the expression when the fast path can run it, else None (libjq runs it).

    The AST is plain tuples, lists and scalars: it can be stored, and :func:`from_ast` turns it into a
    program again without parsing.
    """
    if "#" in expression and "\\" in expression:
        # jq continues a comment onto the next line after a trailing backslash; purejq's lexer ends it at the
        # newline, so it would run as code what libjq reads as comment. Such text is left to libjq.
        return None
    try:
        from ._purejq import parse  # noqa: PLC0415 (the jq parser loads only when an expression is first parsed)

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
