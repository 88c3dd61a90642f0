"""Is an expression a jq *path expression* (does ``path(EXPR)`` address locations in its input)?

Writes (``wmap update``, suspend/resume) need the locations a definition's spec paths address, which jq
gives only for path expressions: ``path(.spec.template)`` is ``["spec","template"]`` while
``path({metadata: .metadata})`` fails with "Invalid path expression". libjq decides this while it
runs: every output of the expression must come out of a path-forming construct, and one that comes
out of a value-forming construct (a literal, ``{...}``, ``[...]``, arithmetic, a variable, ``tojson``)
is an error when it is reached. So ``.a // {}`` is a path expression on ``{"a": 1}`` but not on
``{}``.

We decide it statically, on the syntax tree, for every input at once: an expression is a path
expression iff every sub-expression in *output position* is path-forming, where

- path-forming: ``.``, ``.a``, ``.[e]`` (the subscript ``e`` is any value expression), ``.[]``,
  ``.[a:b]``, ``?``, ``..``, ``empty``, ``error``, ``break``, and the builtins libjq defines through
  those (``select``, ``first``, ``last``, ``nth``, ``limit``, ``skip``, ``getpath``, ``recurse``,
  ``values``, ``nulls``, ... ``ltrimstr``/``rtrimstr``/``splits``, which libjq 1.8 defines by slicing);
- output position is propagated through ``|`` (both sides), ``,``, ``//`` (both sides), the branches
  of ``if`` (not the conditions; a missing ``else`` is ``.``), ``try`` (the body; a ``catch`` handler
  gets the error message, not a location, so it must give no output), ``reduce``/``foreach`` never
  (libjq tracks no paths through their state), the body of ``E as $x | body`` (a destructuring
  pattern ``[$a]``/``{a: $a}`` is refused: libjq path-tracks its index steps), ``label``, and the
  bodies of user ``def``\\s at their call sites (filter arguments are checked where they are used);
- everything else is value-forming.

This is exact against libjq in both directions for the language the sandbox allows (tested by
``tests/jq/test_pathexpr.py`` against libjq on witness inputs): a static "path" never fails
``path()`` with "Invalid path expression" on any input, and a static "not a path" names a construct
that libjq refuses as soon as an input reaches it. The one refinement we give up is libjq's identity
exception (a value-forming construct whose result *is* the input, such as ``tostring`` of a string,
passes), which no definition can rely on for writes. The few texts purejq's parser cannot read
(destructuring alternatives ``?//``) are decided by libjq itself, ``path(EXPR)`` on ``null``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from . import _isolated
from ._purejq import parse
from .errors import JqRuntimeError
from .program import compile_expression


@dataclass(frozen=True)
class NotAPath:
    """Why an expression is not a path expression: the first value-forming construct in output position."""

    construct: str  # the sub-expression, as jq text
    why: str

    def __str__(self) -> str:
        return f"{self.construct!r} {self.why}"


# name/arity -> indexes of the arguments that are themselves in output position
_PATH_BUILTINS: dict[tuple[str, int], tuple[int, ...]] = {
    ("empty", 0): (),
    ("error", 0): (),
    ("error", 1): (),
    ("select", 1): (),
    ("first", 0): (),
    ("last", 0): (),
    ("nth", 1): (),
    ("first", 1): (0,),
    ("limit", 2): (1,),
    ("skip", 2): (1,),
    ("nth", 2): (1,),
    ("getpath", 1): (),
    ("recurse", 0): (),
    ("recurse", 1): (),
    ("recurse", 2): (),
    ("values", 0): (),
    ("nulls", 0): (),
    ("booleans", 0): (),
    ("numbers", 0): (),
    ("strings", 0): (),
    ("arrays", 0): (),
    ("objects", 0): (),
    ("iterables", 0): (),
    ("scalars", 0): (),
    ("ltrimstr", 1): (),
    ("rtrimstr", 1): (),
    ("splits", 1): (),
    ("splits", 2): (),
}

_VALUE_FORMS = {
    "const": "is a literal",
    "emptyarray": "builds a new array",
    "collect": "builds a new array",
    "object": "builds a new object",
    "binop": "computes a new value",
    "and": "computes a boolean",
    "or": "computes a boolean",
    "neg": "computes a new value",
    "var": "is a variable's value (jq tracks no location through variables)",
    "loc": "is a value",
    "str": "builds a string",
    "format": "formats a new string",
    "reduce": "is a reduce (jq tracks no location through its state)",
    "foreach": "is a foreach (jq tracks no location through its state)",
    "assign": "is an assignment",
}

_WHY_VALUE = "gives a value, not a location in the object"


class _Undecided(Exception):
    pass


@dataclass(frozen=True)
class _Def:
    params: list[str]
    body: Any
    scope: _Scope


@dataclass(frozen=True)
class _Scope:
    defs: dict[tuple[str, int], _Def]
    closures: dict[str, tuple[Any, _Scope]]  # filter parameter -> (argument, the caller's scope)

    def with_def(self, key: tuple[str, int], value: _Def) -> _Scope:
        return _Scope({**self.defs, key: value}, self.closures)


_MAX_DEPTH = 200


def _check(node: Any, scope: _Scope, depth: int = 0) -> NotAPath | None:
    """The first value-forming construct in output position of ``node``, or None."""
    if depth > _MAX_DEPTH:
        raise _Undecided
    tag = node[0]
    again = functools.partial(_check, scope=scope, depth=depth + 1)
    if tag in ("identity", "break"):
        return None
    if tag in ("field", "index", "iterate", "slice"):
        return again(node[1])
    if tag == "opt":
        return again(node[1])
    if tag in ("pipe", "comma", "alt"):
        return again(node[1]) or again(node[2])
    if tag == "if":
        for _cond, body in node[1]:
            problem = again(body)
            if problem is not None:
                return problem
        return again(node[2]) if node[2] is not None else None
    if tag == "try":
        problem = again(node[1])
        if problem is None and node[2] is not None and _gives_output(node[2]):
            return NotAPath(
                f"catch {render(node[2])}", "gives the error message, not a location (use `catch empty` or `?`)"
            )
        return problem
    if tag == "as":
        patterns = node[2]
        if patterns[-1][0] != "pvar":
            # libjq runs destructuring ([$a], {a: $x}) as path-tracked index steps on the bound value,
            # which is refused in path mode; with `?//` a final plain `$x` alternative catches that.
            return NotAPath(render(node), "destructures a value, which libjq refuses while tracking paths")
        return again(node[3])
    if tag == "label":
        return again(node[2])
    if tag == "funcdef":
        _, name, params, body, rest = node
        key = (name, len(params))
        defined = _Def(params, body, scope)
        # The body sees itself (recursion is refused by the sandbox) and the definitions before it.
        return _check(rest, scope.with_def(key, defined), depth + 1)
    if tag == "call":
        return _check_call(node, scope, depth)
    why = _VALUE_FORMS.get(tag)
    if why is None:
        raise _Undecided
    return NotAPath(render(node), f"{why}, which {_WHY_VALUE}" if "location" not in why else why)


def _check_call(node: Any, scope: _Scope, depth: int) -> NotAPath | None:
    _, name, args = node
    key = (name, len(args))
    if not args and name in scope.closures:
        argument, caller = scope.closures[name]
        return _check(argument, caller, depth + 1)
    defined = scope.defs.get(key)
    if defined is not None:
        closures = dict(defined.scope.closures)
        inner = _Scope({**defined.scope.defs, key: defined}, closures)
        for param, argument in zip(defined.params, args, strict=True):
            if not param.startswith("$"):
                closures[param] = (argument, scope)
        return _check(defined.body, inner, depth + 1)
    if key in _PATH_BUILTINS:
        for index in _PATH_BUILTINS[key]:
            problem = _check(args[index], scope, depth + 1)
            if problem is not None:
                return problem
        return None
    return NotAPath(render(node), f"calls {name}/{len(args)}, which {_WHY_VALUE}")


def _gives_output(node: Any) -> bool:
    """Whether a ``catch`` handler can give an output (only ``empty`` and ``error`` never do)."""
    return not (node[0] == "call" and node[1] in ("empty", "error"))


def _oracle(expression: str) -> NotAPath | None:
    """libjq's own answer on a representative input (``null``) where the syntax tree is not ours to read."""
    try:
        _isolated.run_isolated(expression, None, _isolated.MODE_PATHS)
    except JqRuntimeError as exc:
        if "Invalid path expression" in exc.message:
            return NotAPath(expression, f"is not a path expression for libjq: {exc.message}")
    return None


@functools.lru_cache(maxsize=2048)
def path_problem(expression: str) -> NotAPath | None:
    """None when ``expression`` is a path expression for every input; else the construct that is not.

    The expression must compile (syntax and sandbox): a ``JqError`` is raised otherwise.
    """
    compile_expression(expression)
    try:
        tree = parse(expression)
    except Exception:
        return _oracle(expression)
    try:
        return _check(tree, _Scope({}, {}))
    except _Undecided:
        return _oracle(expression)


# --- rendering a sub-tree back to jq text, for messages ---------------------------------------------
def render(node: Any) -> str:
    tag = node[0]
    if tag == "identity":
        return "."
    if tag == "field":
        base = render(node[1])
        return f".{node[2]}" if base == "." else f"{base}.{node[2]}"
    if tag == "index":
        return f"{_postfix_base(node[1])}[{render(node[2])}]"
    if tag == "iterate":
        return f"{_postfix_base(node[1])}[]"
    if tag == "slice":
        lo = render(node[2]) if node[2] is not None else ""
        hi = render(node[3]) if node[3] is not None else ""
        return f"{_postfix_base(node[1])}[{lo}:{hi}]"
    if tag == "opt":
        return f"{render(node[1])}?"
    if tag == "pipe":
        return f"{render(node[1])} | {render(node[2])}"
    if tag == "comma":
        return f"{_operand(node[1])}, {_operand(node[2])}"
    if tag == "alt":
        return f"{_operand(node[1])} // {_operand(node[2])}"
    if tag == "const":
        return json.dumps(node[1])
    if tag == "emptyarray":
        return "[]"
    if tag == "collect":
        return f"[{render(node[1])}]"
    if tag == "object":
        return "{" + ", ".join(f"{_key(k)}: {_operand(v)}" for k, v in node[1]) + "}"
    if tag == "binop":
        return f"{_operand(node[2])} {node[1]} {_operand(node[3])}"
    if tag in ("and", "or"):
        return f"{_operand(node[1])} {tag} {_operand(node[2])}"
    if tag == "neg":
        return f"-{_operand(node[1])}"
    if tag == "var":
        return f"${node[1]}"
    if tag == "loc":
        return "$__loc__"
    if tag == "call":
        return str(node[1]) + (f"({'; '.join(render(a) for a in node[2])})" if node[2] else "")
    if tag == "str":
        parts = "".join(p if isinstance(p, str) else f"\\({render(p)})" for p in node[2])
        text = json.dumps(parts).replace("\\\\(", "\\(")
        return f"@{node[1]} {text}" if node[1] else text
    if tag == "format":
        return f"@{node[1]}"
    if tag == "if":
        text = " ".join(
            f"{'if' if i == 0 else 'elif'} {render(c)} then {render(b)}" for i, (c, b) in enumerate(node[1])
        )
        return text + (f" else {render(node[2])}" if node[2] is not None else "") + " end"
    if tag == "try":
        return f"try {render(node[1])}" + (f" catch {render(node[2])}" if node[2] is not None else "")
    if tag in ("reduce", "foreach"):
        return f"{tag} {render(node[1])} as ..."
    if tag == "as":
        return f"{render(node[1])} as ... | {render(node[3])}"
    return f"<{tag}>"


_COMPOUND = frozenset({"pipe", "comma", "alt", "binop", "and", "or", "as", "neg", "reduce", "foreach"})


def _operand(node: Any) -> str:
    """A sub-expression as an operand: parenthesised unless it binds tighter than any operator."""
    text = render(node)
    return f"({text})" if node[0] in _COMPOUND else text


def _key(node: Any) -> str:
    if node[0] == "const" and isinstance(node[1], str) and node[1].isidentifier():
        return str(node[1])
    return render(node) if node[0] in ("const", "str", "var") else f"({render(node)})"


def _postfix_base(node: Any) -> str:
    text = render(node)
    return "." if text == "." else (text if node[0] in ("field", "index", "iterate", "slice", "opt") else f"({text})")


__all__ = ["NotAPath", "path_problem", "render"]
