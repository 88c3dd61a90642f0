"""Workloads chosen by a mode (``wmap definitions new --api-source DIR``): one field of the kind's spec, an enum
such as ``mode: deployment | statefulset | daemonset``, selects which ONE of several kinds of workload the
operator builds. The code says it with a ``switch`` on the field whose cases name the builders
(``case api.ModeDeployment: factories = append(factories, Deployment)``), called or passed as values.

This module finds such switches in the functions reached from the ones taking the kind (calls and function
values both followed), the workload literals each case's builders make (gochildren.py reads their counts and
whether they compose the pod), the string each case's constant stands for, and the value the code gives the
field when it is empty (``if len(x.Spec.Mode) == 0 { x.Spec.Mode = api.ModeDeployment }``, a defaulting
webhook's), which the schema may not say.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from workload_map.authoring.evidence import Segments
from workload_map.authoring.gochildren import (
    MAX_CALL_DEPTH,
    BuiltChild,
    _count,
    _double,
    _literals,
    _takes,
)
from workload_map.authoring.gocode import GoCode, kind_code
from workload_map.authoring.gocomposed import _composes_pod
from workload_map.authoring.gofuncs import GoFunc, _balanced, _Program, _split, _statement, headed_blocks
from workload_map.authoring.golocator import _Locator
from workload_map.authoring.goread import Token, go_type_name

BUILDER_DEPTH = 3  # calls from a case's builder down to the workload literal


@dataclass
class ModeChild:
    """A workload built only when ``field`` holds one of ``values``."""

    child: BuiltChild
    field: Segments
    values: tuple[str, ...]


@dataclass
class Modes:
    children: list[ModeChild] = field(default_factory=list)
    defaults: dict[Segments, str] = field(default_factory=dict)  # the value the code gives an empty field


def mode_children(root: Path | GoCode, kind: str, version: str) -> Modes:
    """The workloads the Go code under ``root`` builds for ``kind`` under a switch on a field of its spec."""
    kind = go_type_name(kind)
    code = kind_code(root, kind, version)
    if code is None:
        return Modes()
    program, locator, declared = code
    starts = [f for f in program.mentioning(kind) if _takes(f, locator, declared) and not _double(f)]
    queue = [(f, [f.name]) for f in starts]
    seen = {id(f) for f in starts}
    out = Modes()
    while queue:
        function, chain = queue.pop(0)
        for segments, values, start, end in _switches(program, locator, function):
            for child in _built_in(program, locator, function, start, end, chain):
                if not any(m.child.where == child.where for m in out.children):
                    out.children.append(ModeChild(child, segments, values))
        if len(chain) > MAX_CALL_DEPTH:
            continue
        for reached in _referenced(program, function, 0, len(function.body)):
            if id(reached) not in seen and not _double(reached):
                seen.add(id(reached))
                queue.append((reached, [*chain, reached.name]))
    # A mode chooses between kinds of workload; a switch whose cases all build the same kind (one engine's
    # pod or another's) only varies the pod, which the workload's own count and template describe.
    kinds: dict[Segments, set[str]] = {}
    for mode in out.children:
        kinds.setdefault(mode.field, set()).add(mode.child.kind["kind"])
    out.children = [m for m in out.children if len(kinds[m.field]) >= 2]
    for segments in {m.field for m in out.children}:
        default = _default(program, locator, kind, segments)
        if default is not None:
            out.defaults[segments] = default
    return out


def _referenced(program: _Program, function: GoFunc, start: int, end: int) -> Iterator[GoFunc]:
    """The repository's functions named in ``body[start:end]``: called (``f(``, ``pkg.F(``) or passed as a
    value (``Factory(Deployment)``, ``[]Builder{pkg.Build}``). A method is followed only when called on the
    function's own receiver (``r.build(``), as gochildren does."""
    body = function.body
    for index in range(start, min(end, len(body))):
        token = body[index]
        if not token.text.isidentifier() or (index + 1 < len(body) and body[index + 1].text in (":", "=")):
            continue
        qualified = index >= 2 and body[index - 1].text == "."
        qualifier = body[index - 2].text if qualified else ""
        if qualified and qualifier in function.file.imports:
            folders = program.package.folders_of(function.file.imports[qualifier])
            if not folders:
                continue
            candidates = [c for c in program.folder(folders[0]).get(token.text, []) if not c.receiver]
        elif qualified and qualifier == function.receiver_var:
            named = program.folder(function.file.directory).get(token.text, [])
            candidates = [c for c in named if c.receiver == function.receiver]
        elif not qualified:
            candidates = [c for c in program.folder(function.file.directory).get(token.text, []) if not c.receiver]
        else:
            continue
        yield from candidates


def _switches(
    program: _Program, locator: _Locator, function: GoFunc
) -> Iterator[tuple[Segments, tuple[str, ...], int, int]]:
    """Each case of a ``switch`` on a string field of the kind's spec: (field, the case's values, the case's
    body span)."""
    body = function.body
    for subject, opening in headed_blocks(body, "switch"):
        place = locator.locate(subject, function)
        if place is None or place.segments is None or len(place.segments) < 2 or place.segments[0] != "spec":
            continue
        closing = _balanced(body, opening) - 1
        cases = [
            i for i in range(opening + 1, closing) if body[i].text in ("case", "default") and _top(body, opening, i)
        ]
        for number, case in enumerate(cases):
            colon = next((i for i in range(case, closing) if body[i].text == ":" and _top(body, opening, i)), None)
            if colon is None or body[case].text == "default":
                continue
            values = [_string_of(program, function, part) for part in _split(body[case + 1 : colon], ",")]
            if all(v is not None for v in values):
                until = cases[number + 1] if number + 1 < len(cases) else closing
                yield place.segments, tuple(v for v in values if v is not None), colon + 1, until


def _top(body: list[Token], opening: int, index: int) -> bool:
    """Whether ``body[index]`` is directly inside the block opened at ``opening`` (not in a nested one)."""
    depth = 0
    for token in body[opening + 1 : index]:
        if token.text in "([{":
            depth += 1
        elif token.text in ")]}":
            depth -= 1
    return depth == 0


def _string_of(program: _Program, function: GoFunc, tokens: list[Token]) -> str | None:
    """The string a case value stands for: a literal, or a string constant (``api.ModeDeployment``)."""
    texts = [t.text for t in tokens if t.text != "\n"]
    if len(texts) == 1 and texts[0].startswith('"') and texts[0].endswith('"'):
        return texts[0][1:-1]
    if len(texts) == 1 and texts[0].isidentifier():
        directory: str | None = function.file.directory
        name = texts[0]
    elif len(texts) == 3 and texts[1] == "." and texts[0] in function.file.imports:
        folders = program.package.folders_of(function.file.imports[texts[0]])
        directory, name = (folders[0] if folders else None), texts[2]
    else:
        return None
    if directory is None:
        return None
    program.package.load(directory)
    found = [c.value for c in program.package.consts if c.name == name and c.file.directory == directory]
    return found[0] if found else None


def _built_in(  # noqa: PLR0917 - one case's span of one function, each by name at its one call
    program: _Program, locator: _Locator, function: GoFunc, start: int, end: int, chain: list[str]
) -> Iterator[BuiltChild]:
    """The workload literals a case builds: in its own statements, or in the builders it names (and what they
    call, ``BUILDER_DEPTH`` deep)."""
    for gvk, literal, closing in _literals(function):
        if start <= literal < end:
            yield _child(program, locator, function, gvk, literal, closing, chain)
    queue = [(f, 1) for f in _referenced(program, function, start, end)]
    seen = {id(f) for f, _ in queue}
    while queue:
        builder, depth = queue.pop(0)
        for gvk, literal, closing in _literals(builder):
            yield _child(program, locator, builder, gvk, literal, closing, [*chain, builder.name])
        if depth < BUILDER_DEPTH:
            for called in _referenced(program, builder, 0, len(builder.body)):
                if id(called) not in seen:
                    seen.add(id(called))
                    queue.append((called, depth + 1))


def _child(  # noqa: PLR0917 - one literal of one function, each by name at its one call
    program: _Program,
    locator: _Locator,
    function: GoFunc,
    gvk: dict[str, str],
    start: int,
    end: int,
    chain: list[str],
) -> BuiltChild:
    count, key = _count(locator, function, start, end)
    where = f"{function.file.path}:{function.body[start].line}"
    composed = _composes_pod(program, locator, function, gvk["kind"], (start, end))
    return BuiltChild(gvk, where, function.name, count, key, chain, composed)


EMPTY_TESTS = (re.compile(r"^len\((?P<x>.+)\)==0$"), re.compile(r'^(?P<x>.+)==""$'))


def _default(program: _Program, locator: _Locator, kind: str, segments: Segments) -> str | None:
    """The value the code gives the field when it is empty: ``if len(X) == 0 { X = value }`` (or ``X == ""``)
    in a function that takes the kind (a defaulting webhook, the reconciler)."""
    for function in program.mentioning(kind):
        body = function.body
        for condition, opening in headed_blocks(body, "if"):
            text = "".join(t.text for t in condition if t.text != "\n")
            tested = next((m.group("x") for p in EMPTY_TESTS if (m := p.match(text))), None)
            if tested is None or _located(locator, function, tested) != segments:
                continue
            for at in range(opening + 1, _balanced(body, opening) - 1):
                comparing = body[at + 1].text == "=" or body[at - 1].text in ("=", "!", "<", ">", ":")
                if body[at].text == "=" and not comparing:
                    target = "".join(t.text for t in _left(body, opening + 1, at))
                    if target == tested:
                        value = _split(_statement(body, at + 1), ",")
                        found = _string_of(program, function, value[0]) if value else None
                        if found is not None:
                            return found
    return None


def _left(body: list[Token], start: int, at: int) -> list[Token]:
    """The selector left of an assignment at ``at``, back to the start of its line."""
    out: list[Token] = []
    index = at - 1
    while index >= start and body[index].text not in ("\n", ";", "{", "}"):
        out.insert(0, body[index])
        index -= 1
    return out


def _located(locator: _Locator, function: GoFunc, text: str) -> Segments | None:
    tokens = [Token(part, 0) for part in re.findall(r"\w+|\.", text)]
    place = locator.locate(tokens, function)
    return place.segments if place is not None else None
