"""Builders handed as function values (``--api-source``; gochildren.py finds the workloads).

An operator with several roles of one shape often writes one generic helper that fetches the role's settings,
composes the pod and calls a builder it is handed, the builder picking the workload kind::

    func newWorkload[T client.Object](f *Factory, role string, build func(*api.Group, *corev1.PodTemplateSpec) T) T {
        group := f.groupOf(role)
        template := f.podFor(role, group)
        return build(group, &template)
    }
    func (f *Factory) NewDBStatefulSet() *appsv1.StatefulSet { return newWorkload(f, RoleDB, f.newStatefulSet) }

No call ``newStatefulSet(`` is written anywhere: the builder is called where the helper calls its parameter
(``build(``). ``handed_calls`` gives those places, so the builder is read like any called function (what its
parameters are given, the pod template composed by the helper). And the role's name handed next to the builder
(``RoleDB`` = "db") says which of the spec's places of the shared settings type (``.spec.roles.db.group``,
``.spec.roles.web.group``) the builder is used for: ``roles_named`` keeps only those.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol, TypeVar

from workload_map.authoring.evidence import Segments
from workload_map.authoring.gofuncs import GoFunc, _balanced, _Program
from workload_map.authoring.goread import Package, Token, unquote

if TYPE_CHECKING:
    from workload_map.authoring.golocator import _Locator


def _references(program: _Program, function: GoFunc) -> Iterator[tuple[GoFunc, int]]:
    """The repository's functions ``function`` names without calling them (``f.build`` given as an argument),
    with where in the body each is named: a method of its own receiver, a function of its folder or of an
    imported one."""
    body = function.body
    for index in range(len(body) - 1):
        token = body[index]
        if not token.text.isidentifier() or body[index + 1].text not in (",", ")"):
            continue
        qualified = index >= 2 and body[index - 1].text == "."
        qualifier = body[index - 2].text if qualified else ""
        if qualified and qualifier == function.receiver_var and function.receiver:
            directory, receiver = function.file.directory, function.receiver
        elif qualified and qualifier in function.file.imports:
            folders = program.package.folders_of(function.file.imports[qualifier])
            if not folders:
                continue
            directory, receiver = folders[0], ""
        elif not qualified:
            directory, receiver = function.file.directory, ""
        else:
            continue
        if token.text in function.params or token.text == function.receiver_var:
            continue  # a parameter handed on, not a function of the repository
        for named in program.folder(directory).get(token.text, []):
            if named.receiver == receiver:
                yield named, index


def _enclosing_call(body: list[Token], index: int) -> tuple[int, int] | None:
    """The call whose arguments hold the token at ``index``: the index of its ``(`` and the argument's
    position."""
    depth, position = 0, 0
    for back in range(index - 1, -1, -1):
        text = body[back].text
        if text in ")]}":
            depth += 1
        elif text in "([{":
            if depth == 0:
                return (back, position) if text == "(" and back > 0 and body[back - 1].text.isidentifier() else None
            depth -= 1
        elif text == "," and depth == 0:
            position += 1
    return None


def handed_calls(program: _Program, locator: _Locator, function: GoFunc) -> Iterator[tuple[GoFunc, GoFunc, int]]:
    """Each function ``function`` hands as an argument to a helper of the repository, with the helper and
    where in the helper's body it calls the parameter it was given (``build(``): (builder, helper, index)."""
    body = function.body
    for builder, index in _references(program, function):
        found = _enclosing_call(body, index)
        if found is None:
            continue
        opening, position = found
        callee = [body[opening - 1].text]
        if opening >= 3 and body[opening - 2].text == ".":
            callee = [body[opening - 3].text, ".", *callee]
        for helper in locator.callees(callee, function):
            positional = [name for name in helper.params if name != helper.receiver_var]
            if position >= len(positional):
                continue
            parameter = positional[position]
            helper_body = helper.body
            for at in range(len(helper_body) - 1):
                called = helper_body[at].text == parameter and helper_body[at + 1].text == "("
                if called and (at == 0 or helper_body[at - 1].text != "."):
                    yield builder, helper, at


def _string_values(package: Package, function: GoFunc, start: int, end: int) -> set[str]:
    """The string literals and string constants (``RoleDB``, ``consts.RoleDB``) among the tokens."""
    body = function.body
    out: set[str] = set()
    for index in range(start, end):
        text = body[index].text
        literal = unquote(text)
        if literal is not None:
            out.add(literal)
            continue
        if not text.isidentifier() or (index + 1 < end and body[index + 1].text in (".", "(")):
            continue
        qualified = index >= 2 and body[index - 1].text == "."
        if qualified and body[index - 2].text in function.file.imports:
            folders = package.folders_of(function.file.imports[body[index - 2].text])
        elif not qualified:
            folders = [function.file.directory]
        else:
            continue
        for directory in folders:
            package.load(directory)
        out |= {c.value for c in package.consts if c.name == text and c.file.directory in folders}
    return out


def roles_named(
    program: _Program, functions: list[GoFunc], builder: GoFunc, places: list[Segments]
) -> list[Segments] | None:
    """Of the spec's places a builder's settings may be read at (``.spec.roles.db.group``, ...), those whose
    role a call handing the builder names by a string (a literal or a constant: ``newWorkload(f, RoleDB,
    f.newStatefulSet)``, RoleDB = "db"): the segment that tells the places apart. None when no such call
    names any (the builder serves all it may)."""
    differing = [i for i in range(min(map(len, places))) if len({p[i] for p in places}) > 1]
    if len(places) < 2 or len(differing) != 1:
        return None
    at = differing[0]
    roles = {p[at].lower() for p in places}
    named: set[str] = set()
    for function in functions:
        for handed, index in _references(program, function):
            if handed is not builder:
                continue
            found = _enclosing_call(function.body, index)
            if found is None:
                continue
            close = _balanced(function.body, found[0])
            values = {v.lower() for v in _string_values(program.package, function, found[0] + 1, close - 1)}
            named |= values & roles
    if not named:
        return None
    return [p for p in places if p[at].lower() in named]


class _Handed(Protocol):
    """A built workload as roles_handed reads it (gochildren.BuiltChild, which calls it: a protocol, not an
    import, so the two modules do not import each other)."""

    where: str
    function: str
    count: Segments | None


_Built = TypeVar("_Built", bound=_Handed)


def roles_handed(program: _Program, functions: list[GoFunc], out: list[_Built]) -> list[_Built]:
    """A literal counted at each of several places of one settings type (one per role) kept at the places
    whose roles the calls handing its builder name (``roles_named``): one StatefulSet builder handed
    for two roles of four is those two roles' workload, not all four's."""
    by_where: dict[str, list[_Built]] = {}
    for child in out:
        by_where.setdefault(child.where, []).append(child)
    dropped: set[int] = set()
    for where, children in by_where.items():
        places = [c.count for c in children if c.count is not None]
        if len(places) < 2 or len(set(places)) != len(places):
            continue
        path = where.rpartition(":")[0]
        builders = [f for f in functions if f.name == children[0].function and f.file.path == path]
        kept = roles_named(program, functions, builders[0], places) if len(builders) == 1 else None
        if kept is not None:
            dropped |= {id(c) for c in children if c.count not in kept}
    return [c for c in out if id(c) not in dropped]
