"""Idioms by which an operator reads a workload's count away from the workload's literal (``--api-source``).

A spec builder: the controller makes a bare workload (``NewStatefulSet(name, ns)``, a name and no spec) and gives
it the whole spec a function returns (``set.Spec = buildSpec(x, pool)``); the count and the pod are there.
Likewise a spec given whole in place (``spec_helper``, ``spec_assigned``). An accessor interface (below): the
count is read through methods of an interface the roles implement.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Protocol, TypeVar

from workload_map.authoring.evidence import ARRAY, MAP, Segments
from workload_map.authoring.gofuncs import GoFunc, _assigned_at, _balanced, _Program, _split, _statement
from workload_map.authoring.goread import GoType, Package, Token, bare_type


def spec_builder(function: GoFunc, qualifier: str, name: str, workloads: tuple[str, ...]) -> bool:
    """Whether ``qualifier.name`` is a workload's spec (``appsv1.StatefulSetSpec``) that ``function`` returns:
    a spec builder, whose workload is made elsewhere with no spec of its own."""
    kind = name.removesuffix("Spec")
    # A PodSpec is no Pod's alone: any workload's pod is built with one.
    return (
        name.endswith("Spec")
        and kind in workloads
        and kind != "Pod"
        and bare_type(function.result) == (qualifier, name)
    )


# An accessor interface: the count is read through methods of an interface (``c.Spec().Replicas()`` with ``c
# Component``), each implementation wrapping one part of the kind's spec (``componentAccessor{spec: &x.Spec.A}``);
# the value is then any of the places the wrapped type sits at, narrowed by the accessor named after one
# (``x.ExporterComponent()...`` is ``.spec.exporter``'s).
def spec_assigned(function: GoFunc, start: int, kind: str) -> tuple[int, int] | None:
    """The ``<Kind>Spec`` literal a workload made at ``start`` is given whole after (``obj.Spec =
    appsv1.StatefulSetSpec{...}``): (its start, its end), else None."""
    body = function.body
    name = body[start].text
    for index in range(start + 1, len(body) - 6):
        texts = [t.text for t in body[index : index + 7]]
        given = texts[:4] == [name, ".", "Spec", "="] and texts[5:7] == [".", f"{kind}Spec"]
        if given and body[index - 1].text != "." and index + 7 < len(body) and body[index + 7].text == "{":
            return index + 4, _balanced(body, index + 7)
    return None


def spec_helper(
    program: _Program, function: GoFunc, kind: str, span: tuple[int, int]
) -> tuple[GoFunc, int, int] | None:
    """Where the ``<Kind>Spec`` literal is that a function of the repository builds for a literal whose whole
    ``Spec`` it gives (``Spec: *spec`` with ``spec, err := makeSpec(p)``), or that the function itself gives a
    local first (``spec := appsv1.DeploymentSpec{...}``): (that function, start, end)."""
    start, end = span
    body = function.body
    for index in range(start, end - 2):
        if body[index].text != "Spec" or body[index + 1].text != ":":
            continue
        value = [
            t.text for t in (_split(_statement(body, index + 2), ",") or [[]])[0] if t.text not in ("\n", "&", "*")
        ]
        assigned = _assigned_at(body[:start], value[0]) if len(value) == 1 and value[0].isidentifier() else None
        # ``Spec: makeSpec(p)`` calls it in place; ``Spec: *spec`` names a local it was given.
        call = value if "(" in value else [t.text for t in _statement(body, assigned)] if assigned is not None else []
        if assigned is not None and f"{kind}Spec" in call and "(" not in call:
            # ``spec := appsv1.DeploymentSpec{...}`` in this function, its count set there or after it.
            at = next(i for i in range(assigned, len(body)) if body[i].text == f"{kind}Spec")
            if at + 1 < len(body) and body[at + 1].text == "{":
                return function, at, _balanced(body, at + 1)
        if "(" not in call or call.index("(") == 0:
            return None
        callee = call[call.index("(") - 1]
        for helper in (c for c in program.calls(function) if c.name == callee):
            inner = helper.body
            for at in range(len(inner) - 1):
                if inner[at].text == f"{kind}Spec" and inner[at + 1].text == "{":
                    return helper, at, _balanced(inner, at + 1)
    return None


class _Child(Protocol):
    """A built workload as the rules below read it (gochildren.BuiltChild)."""

    where: str
    count: Segments | None


_Built = TypeVar("_Built", bound=_Child)
_LISTED_METHOD = re.compile(r"(?:^interface\{|[\n;{])(\w+)\(")


_EMBEDDED = re.compile(r"(?<=[\n;{])(\w+)(?=[\n;}])")


def interface_methods(declared: GoType, package: Package | None = None, depth: int = 0) -> set[str] | None:
    """The methods an interface type lists (None: it is no interface), with ``package`` those of the interfaces
    of its folder it embeds too."""
    if not declared.underlying.startswith("interface{"):
        return None
    listed = set(_LISTED_METHOD.findall(declared.underlying))
    if package is None or depth >= MAX_EMBEDDING:
        return listed
    for name in _EMBEDDED.findall(declared.underlying):
        embedded = package.types.get((declared.file.directory, name))
        listed |= (interface_methods(embedded, package, depth + 1) if embedded is not None else None) or set()
    return listed


def implementations(package: Package, folder: dict[str, list[GoFunc]], interface: GoType, method: str) -> list[GoFunc]:
    """The methods named ``method`` of the structs of the interface's folder that implement it (every method it
    lists declared on the struct or on a struct it embeds), each once (one promoted from a shared base)."""
    required = interface_methods(interface, package)
    if not required or method not in required:
        return []
    directory = interface.file.directory
    out: list[GoFunc] = []
    for (where, _), declared in package.types.items():
        if where != directory or declared.underlying != "struct":
            continue
        own = {declared.name} | {bare_type(f.type_expr)[1] for f in declared.fields if not f.names}
        if not all(any(f.receiver in own for f in folder.get(name, [])) for name in required):
            continue
        found = [f for f in folder.get(method, []) if f.receiver == declared.name]
        found = found or [f for f in folder.get(method, []) if f.receiver in own]
        out += [f for f in found[:1] if f not in out]
    return out


def role_named(alternatives: tuple[Segments, ...], value: list[Token]) -> tuple[Segments, ...]:
    """The places among ``alternatives`` a method the expression calls is named after (``ExporterComponent()``
    for ``.spec.exporter...``), when that picks some but not all; else all of them."""
    called = [t.text.lower() for i, t in enumerate(value[:-1]) if value[i + 1].text == "(" and t.text.isidentifier()]

    def named(at: Segments) -> bool:
        roles = [s.lower() for s in at[1:-1] if s not in (ARRAY, MAP) and len(s) >= MIN_ROLE_NAME]
        return any(name.startswith(role) for name in called for role in roles)

    picked = tuple(at for at in alternatives if named(at))
    return picked if picked and len(picked) < len(alternatives) else alternatives


MAX_EMBEDDING = 3  # interfaces embedding interfaces, a few levels
MIN_ROLE_NAME = 3  # shorter field names (``db``) start too many method names by chance


def last_call_opening(texts: list[str]) -> int:
    """The index of the ``(`` the expression's closing ``)`` matches (-1: none): ``a.B().C()`` calls C last."""
    depth = 0
    for index in range(len(texts) - 1, -1, -1):
        depth += texts[index] in ")]}"
        depth -= texts[index] in "([{"
        if depth == 0:
            return index
    return -1


def without_claimed(children: list[_Built]) -> list[_Built]:
    """A builder shared by the roles (one literal counted at several places) leaves out a place another literal
    is counted at alone: that role has a workload of its own (an exporter's Deployment beside the StatefulSet
    every other role shares through one accessor interface)."""
    shared = Counter(c.where for c in children)
    alone = {c.count for c in children if shared[c.where] == 1 and c.count is not None}
    kept = [c for c in children if shared[c.where] == 1 or c.count not in alone]
    # Never a whole builder dropped: its places are all claimed, it is some other workload's (left as read).
    lost = {c.where for c in children} - {c.where for c in kept}
    return [c for c in children if c in kept or c.where in lost]
