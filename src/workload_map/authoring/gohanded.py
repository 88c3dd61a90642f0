"""Counts a helper of the repository writes into a workload it is handed (``--api-source``; gochildren.py
finds the workloads): the literal is made, kept in a local, and given with the part of the kind it is made from
to a function shared by the operator's workloads (``build.AddCommonParams(dep, &spec.Common)``), which writes
the count (``dst.Spec.Replicas = params.ReplicaCount``). The helper's parameters are replaced by the arguments
given at the call, and the count read where the literal is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workload_map.authoring.evidence import Segments
from workload_map.authoring.gofilled import COUNT_KEYS, _writes
from workload_map.authoring.gofuncs import GoFunc, _balanced, _Program, _split, _statement
from workload_map.authoring.goread import Token

if TYPE_CHECKING:
    from workload_map.authoring.golocator import _Locator


def handed_counts(
    program: _Program, locator: _Locator, function: GoFunc, span: tuple[int, int]
) -> list[tuple[Segments, str]]:
    """The kind's field a helper handed the literal (kept in a local: ``dep := &appsv1.Deployment{...}``) writes
    its count from: (the field, the count's key), or none."""
    body = function.body
    start, end = span
    head = start - 1 if start > 0 and body[start - 1].text == "&" else start
    assigned = [t.text for t in body[max(head - 3, 0) : head]]
    name = assigned[0] if assigned[1:] == [":", "="] else assigned[1] if assigned[2:] == ["="] else ""
    if not name.isidentifier() or name == "_":
        return []
    for called, at in program.call_sites(function):
        if at < end or body[at + 1].text != "(":
            continue
        arguments = _split([t for t in body[at + 2 : _balanced(body, at + 1) - 1] if t.text != "\n"], ",")
        texts = [[t.text for t in a if t.text != "&"] for a in arguments]
        positional = [p for p in called.params if p != called.receiver_var]
        if [name] not in texts or len(arguments) != len(positional):
            continue  # not handed the workload, or arguments that do not line up with the parameters
        given = dict(zip(positional, arguments, strict=True))
        handed = positional[texts.index([name])]
        for value, key in _written_counts(called, handed):
            found = _located(locator, function, value, given)
            if found is not None:
                return [(found, key)]
    return []


def _written_counts(helper: GoFunc, handed: str) -> list[tuple[list[Token], str]]:
    """What the helper writes to the handed workload's count (``dst.Spec.Replicas = x``): (x, the key)."""
    body = helper.body
    out: list[tuple[list[Token], str]] = []
    for index in range(len(body) - 5):
        texts = [t.text for t in body[index : index + 5]]
        if texts[:4] != [handed, ".", "Spec", "."] or texts[4] not in COUNT_KEYS or body[index - 1].text == ".":
            continue
        statement = _statement(body, index)
        if _writes([t.text for t in statement]):
            value = statement[[t.text for t in statement].index("=") + 1 :]
            out.append((value, texts[4]))
    return out


def _located(locator: _Locator, caller: GoFunc, value: list[Token], given: dict[str, list[Token]]) -> Segments | None:
    """``value``, read in the helper, with its parameters replaced by the arguments given for them, located in
    the caller: a field of the kind's spec, else None."""
    substituted: list[Token] = []
    for index, token in enumerate(value):
        bound = token.text in given and (index == 0 or value[index - 1].text != ".")
        substituted += given[token.text] if bound else [token]
    place = locator.locate(substituted, caller)
    if place is None or not place.segments or place.segments[0] != "spec" or len(place.segments) < 2:
        return None
    if place.declared is not None and place.declared.underlying == "struct":
        return None  # an object, no count
    return place.segments
