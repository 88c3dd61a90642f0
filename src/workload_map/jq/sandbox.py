"""Static sandbox check: a position-keeping tokenizer plus a recursion check on user defs.

Banned constructs are recognised at token level, which is conservative: a
banned name is rejected wherever it is called, even when a user `def` shadows
it, because shadowing a builtin is never needed in a workload definition.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from workload_map.base.model import Model

from .errors import JqSandboxError

# name -> why it is banned (shown to the definition author)
BANNED_CALLS: dict[str, str] = {
    "env": "environment access",
    "input": "input stream access",
    "inputs": "input stream access",
    "debug": "debug output",
    "stderr": "debug output",
    "input_filename": "file access",
    "input_line_number": "input stream access",
    "halt": "process control",
    "halt_error": "process control",
    "get_search_list": "module system access",
    "modulemeta": "module system access",
    "get_prog_origin": "module system access",
    "get_jq_origin": "module system access",
    "range": "unbounded generator",
    "repeat": "unbounded generator",
    "recurse": "unbounded generator",
    "recurse_down": "unbounded generator",
    "walk": "unbounded generator",
    "paths": "unbounded generator",
    "leaf_paths": "unbounded generator",
    "while": "unbounded generator",
    "until": "unbounded generator",
    "combinations": "exponential generator",
    "del": "mutation",
    "setpath": "mutation",
    "delpaths": "mutation",
}
BANNED_VARS: dict[str, str] = {
    "ENV": "environment access",
    "__loc__": "source location access",
    "__prog_args": "program arguments access",
}
ASSIGN_OPS = frozenset({"=", "|=", "+=", "-=", "*=", "/=", "%=", "//="})
KEYWORDS = frozenset(
    {
        "def",
        "as",
        "if",
        "then",
        "elif",
        "else",
        "end",
        "reduce",
        "foreach",
        "try",
        "catch",
        "label",
        "and",
        "or",
        "import",
        "include",
        "__loc__",
    }
)

_TOKENS = (  # the jq lexer's tokens, compiled at the first expression analysed (_token_re)
    r"""
  (?P<ws>\s+)
| (?P<comment>\#[^\n]*)
| (?P<num>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
| (?P<field>\.[a-zA-Z_][a-zA-Z0-9_]*)
| (?P<op>\?//=?|//=|\|=|\+=|-=|\*=|/=|%=|==|!=|<=|>=|//|\.\.|[.\[\]{}()|,:;=<>+\-*/%?])
| (?P<ident>[a-zA-Z_][a-zA-Z0-9_]*(?:::[a-zA-Z_][a-zA-Z0-9_]*)*)
| (?P<var>\$\s*(?:__loc__|[a-zA-Z_][a-zA-Z0-9_]*(?:::[a-zA-Z_][a-zA-Z0-9_]*)*))
| (?P<format>@[a-zA-Z0-9_]+)
"""
)


@functools.cache
def _token_re() -> re.Pattern[str]:
    # Not at import: a warm command's verdicts come from the definitions cache and analyse no expression;
    # compiling this pattern was ~5M instructions, ~1% of a warm `wmap get` on the built-in example.
    return re.compile(_TOKENS, re.X)


class Token(Model, kw_only=False):
    kind: str  # ident, var, op, field, num, format, str, kw
    text: str
    pos: int


class LexError(Exception):
    pass


def tokenize(src: str) -> list[Token]:
    """All tokens, including those inside string interpolations, in source order."""
    tokens: list[Token] = []
    _lex(src, 0, tokens, nested=False)
    return tokens


def _lex(src: str, i: int, out: list[Token], nested: bool) -> int:
    token_re = _token_re()
    depth = 0
    n = len(src)
    while i < n:
        ch = src[i]
        if ch == '"':
            out.append(Token("str", '"', i))
            i = _lex_string(src, i + 1, out)
            continue
        if nested and ch == ")" and depth == 0:
            return i + 1
        m = token_re.match(src, i)
        if m is None:
            raise LexError(f"unexpected character {ch!r} at position {i}")
        kind = m.lastgroup or ""
        text = m.group()
        if kind not in ("ws", "comment"):
            if kind == "ident" and text in KEYWORDS:
                kind = "kw"
            if kind == "var":
                text = "$" + text[1:].strip()
            out.append(Token(kind, text, i))
            if kind == "op" and text == "(":
                depth += 1
            elif kind == "op" and text == ")":
                depth -= 1
        i = m.end()
    if nested:
        raise LexError("unterminated string interpolation")
    return i


def _lex_string(src: str, i: int, out: list[Token]) -> int:
    n = len(src)
    while i < n:
        ch = src[i]
        if ch == '"':
            return i + 1
        if ch == "\\":
            if i + 1 < n and src[i + 1] == "(":
                i = _lex(src, i + 2, out, nested=True)
                continue
            i += 2
            continue
        i += 1
    raise LexError("unterminated string")


def _violation(expr: str, construct: str, why: str, pos: int) -> JqSandboxError:
    return JqSandboxError(
        f"sandbox: '{construct}' ({why}) is not allowed at position {pos} in {_quote(expr)}",
        expr,
        pos,
        construct,
    )


def _quote(expr: str) -> str:
    short = expr if len(expr) <= 200 else expr[:197] + "..."
    return '"' + short.replace("\n", " ") + '"'


def check_tokens(expr: str, tokens: list[Token]) -> list[JqSandboxError]:
    found: list[JqSandboxError] = []
    for idx, tok in enumerate(tokens):
        nxt = tokens[idx + 1] if idx + 1 < len(tokens) else None
        prev = tokens[idx - 1] if idx > 0 else None
        if tok.kind == "op" and tok.text == "..":
            found.append(_violation(expr, "..", "recursive descent, an unbounded generator", tok.pos))
        elif tok.kind == "op" and tok.text in ASSIGN_OPS:
            found.append(_violation(expr, tok.text, "assignment/update operator; expressions are read-only", tok.pos))
        elif tok.kind == "var" and tok.text[1:] in BANNED_VARS:
            found.append(_violation(expr, tok.text, BANNED_VARS[tok.text[1:]], tok.pos))
        elif tok.kind == "kw" and tok.text in ("import", "include"):
            found.append(_violation(expr, tok.text, "module import", tok.pos))
        elif tok.kind == "kw" and tok.text == "__loc__":
            found.append(_violation(expr, "$__loc__", BANNED_VARS["__loc__"], tok.pos))
        elif tok.kind == "ident":
            base = tok.text.rsplit("::", 1)[-1]
            if base not in BANNED_CALLS or "::" in tok.text:
                continue
            # `{range: 1}` and `. as {range: $r}` use the name as an object key.
            if nxt is not None and nxt.kind == "op" and nxt.text == ":":
                continue
            if prev is not None and prev.kind == "kw" and prev.text == "def":
                continue
            found.append(_violation(expr, base, BANNED_CALLS[base], tok.pos))
    return found


def check_recursion(expr: str, tokens: list[Token]) -> list[JqSandboxError]:
    """Reject user defs that can call themselves, directly or through closures."""
    if not any(t.kind == "kw" and t.text == "def" for t in tokens):
        return []
    try:
        from ._purejq import parse  # noqa: PLC0415 (the jq parser loads only when an expression is first parsed)

        ast = parse(expr)
    except Exception:
        pos = next(t.pos for t in tokens if t.kind == "kw" and t.text == "def")
        return [_violation(expr, "def", "user definition that could not be analysed", pos)]
    defs: dict[tuple[str, int], set[tuple[str, int]]] = {}
    _collect_defs(ast, defs, [])
    cyclic = _cyclic_nodes(defs)
    found: list[JqSandboxError] = []
    for name, arity in sorted(cyclic):
        pos = _def_position(tokens, name)
        label = f"{name}/{arity}"
        found.append(_violation(expr, label, "recursive user definition", pos))
    return found


Key = tuple[str, int]


def _collect_defs(node: Any, defs: dict[Key, set[Key]], stack: list[tuple[Key, frozenset[str]]]) -> None:
    if isinstance(node, tuple) and node:
        tag = node[0]
        if tag == "funcdef":
            _, name, params, body, rest = node
            key = (name, len(params))
            defs.setdefault(key, set())
            closures = frozenset(p for p in params if not p.startswith("$"))
            _collect_defs(body, defs, [*stack, (key, closures)])
            _collect_defs(rest, defs, stack)
            return
        if tag == "call":
            _, name, args = node
            callee = (name, len(args))
            for key, closures in stack:
                if not (len(args) == 0 and name in closures):
                    defs[key].add(callee)
            for arg in args:
                _collect_defs(arg, defs, stack)
            return
        for child in node[1:]:
            _collect_defs(child, defs, stack)
    elif isinstance(node, list):
        for child in node:
            _collect_defs(child, defs, stack)


def _cyclic_nodes(graph: dict[tuple[str, int], set[tuple[str, int]]]) -> set[tuple[str, int]]:
    cyclic: set[tuple[str, int]] = set()
    for start, callees in graph.items():
        seen: set[tuple[str, int]] = set()
        todo = [c for c in callees if c in graph]
        while todo:
            cur = todo.pop()
            if cur == start:
                cyclic.add(start)
                break
            if cur in seen:
                continue
            seen.add(cur)
            todo.extend(c for c in graph.get(cur, ()) if c in graph)
    return cyclic


def _def_position(tokens: list[Token], name: str) -> int:
    for idx, tok in enumerate(tokens[:-1]):
        if tok.kind == "kw" and tok.text == "def" and tokens[idx + 1].text == name:
            return tokens[idx + 1].pos
    return 0


def check_expression(expr: str) -> list[JqSandboxError]:
    """Every sandbox violation of `expr`; an expression we cannot tokenize yields none here
    (the syntax check reports it)."""
    try:
        tokens = tokenize(expr)
    except LexError:
        return []
    return check_tokens(expr, tokens) + check_recursion(expr, tokens)
