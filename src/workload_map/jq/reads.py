"""Which parts of its input a jq expression can read: the paths it may look at, or None when that is unknown.

The live model keeps pods projected (``live/projection.py``); a definition's pod expressions (pod
selectors, gang filters and group keys) may read any field of a pod, so the projection must keep what they
read. ``input_reads`` answers statically, on purejq's syntax tree, conservatively: a path is reported when
the expression might read anything at or under it, and when a construct could read the input in a way
not followed here (a builtin applied to the whole input, ``..``, a user ``def`` called on it) the answer
widens to the input itself, ``()``, i.e. everything.

Paths are tuples of object keys from the input's root, cut at ``depth`` keys (the caller keeps whole
whatever lies under a reported path). ``.metadata.labels["x"]`` reads ``("metadata", "labels")`` at depth 2.
"""

from __future__ import annotations

import functools
from typing import Any

Path = tuple[str, ...]
Paths = frozenset[Path]
_NONE: Paths = frozenset()
_ROOT: Paths = frozenset({()})

# Builtins that never look at their input (their arguments are analysed like any expression).
_BLIND = frozenset({"empty", "error", "null", "true", "false", "input_line_number", "now", "env"})


class _Walk:
    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.reads: set[Path] = set()

    def consume(self, paths: Paths) -> None:
        """Everything under ``paths`` may be read."""
        self.reads.update(p[: self.depth] for p in paths)

    def step(self, paths: Paths, key: Any) -> Paths:
        """What ``paths`` indexed by ``key`` addresses: a string key descends; any other index (an array
        position, a computed key) reads the whole value when it is shallower than ``depth``."""
        out = set()
        for path in paths:
            if len(path) >= self.depth:
                out.add(path)
            elif isinstance(key, str):
                out.add((*path, key))
            else:
                self.consume(frozenset({path}))
        return frozenset(out)

    def node(self, node: Any, ctx: Paths, env: dict[str, Paths]) -> Paths:
        """The input paths ``node`` may output when its input is at ``ctx``; what it reads goes to ``reads``."""
        if node is None:  # a missing `else`: the input
            return ctx
        kind = node[0]
        if kind == "identity":
            return ctx
        if kind in ("const", "loc"):
            return _NONE
        if kind == "var":
            return env.get(node[1], _NONE)
        if kind == "field":
            return self.step(self.node(node[1], ctx, env), node[2])
        if kind == "index":
            base = self.node(node[1], ctx, env)
            key = node[2]
            if key[0] == "const":
                return self.step(base, key[1])
            self.consume(self.node(key, ctx, env))
            return self.step(base, None)
        if kind in ("iterate", "slice"):
            for part in node[2:]:
                self.consume(self.node(part, ctx, env))
            return self.step(self.node(node[1], ctx, env), None)
        if kind == "pipe":
            return self.node(node[2], self.node(node[1], ctx, env), env)
        if kind in ("comma", "alt"):
            return self.node(node[1], ctx, env) | self.node(node[2], ctx, env)
        if kind in ("opt", "label"):
            return self.node(node[-1], ctx, env)
        if kind == "try":
            body = self.node(node[1], ctx, env)
            if node[2] is not None:
                self.consume(self.node(node[2], ctx, env))
            return body
        if kind == "if":
            out: Paths = _NONE
            for condition, branch in node[1]:
                self.consume(self.node(condition, ctx, env))
                out |= self.node(branch, ctx, env)
            return out | self.node(node[2], ctx, env)
        if kind == "as":
            bound = self.node(node[1], ctx, env)
            names = {}
            for pattern in node[2]:
                if pattern[0] == "pvar":
                    names[pattern[1]] = bound
                else:  # a destructuring pattern: whatever it takes apart is read
                    self.consume(bound)
                    names.update(dict.fromkeys(_pattern_vars(pattern), _NONE))
            return self.node(node[3], ctx, {**env, **names})
        if kind == "call":
            name, args = node[1], node[2]
            if name == "select":
                for arg in args:
                    self.consume(self.node(arg, ctx, env))
                return ctx
            if name not in _BLIND:
                self.consume(ctx)  # the builtin reads its input (user defs are treated the same)
            for arg in args:
                self.consume(self.node(arg, ctx, env))
            return _NONE
        if kind == "funcdef":
            self.consume(self.node(node[3], _ROOT if ctx else _NONE, env))  # may be called on the input
            return self.node(node[4], ctx, env)
        # Everything else builds a new value from sub-expressions run on the same input (operators, object
        # and array construction, string interpolation, reduce/foreach, assignment): they read what their
        # parts output.
        for part in _children(node):
            self.consume(self.node(part, ctx, env))
        if kind in ("reduce", "foreach", "assign"):
            self.consume(ctx)  # the state or the updated value may be the input itself
        return _NONE


def _pattern_vars(pattern: Any) -> list[str]:
    if isinstance(pattern, tuple) and pattern and pattern[0] == "pvar":
        return [pattern[1]]
    out: list[str] = []
    for part in pattern[1:] if isinstance(pattern, tuple) else pattern:
        if isinstance(part, (tuple, list)):
            out.extend(_pattern_vars(part))
    return out


def _children(node: Any) -> list[Any]:
    """The sub-expressions of a node: tuples headed by a node name, found through lists and pairs."""
    out: list[Any] = []
    stack = list(node[1:])
    while stack:
        part = stack.pop()
        if isinstance(part, tuple) and part and isinstance(part[0], str):
            out.append(part)
        elif isinstance(part, (tuple, list)):
            stack.extend(part)
    return out


@functools.lru_cache(maxsize=4096)
def input_reads(expression: str, depth: int = 2) -> Paths | None:
    """The input paths ``expression`` may read (``()`` = the whole input), None if it cannot be parsed."""
    from workload_map.jq._purejq import parse  # noqa: PLC0415 (the jq parser loads only when an expression is first parsed)

    try:
        tree = parse(expression)
    except Exception:  # purejq's parser raises its own errors; an unreadable text reads everything
        return None
    walk = _Walk(depth)
    try:
        walk.consume(walk.node(tree, _ROOT, {}))  # the output is used: whatever it is made of is read
    except (IndexError, TypeError):  # a node shape this walk does not know
        return None
    reads = frozenset(walk.reads)
    return _ROOT if () in reads else reads


__all__ = ["input_reads"]
