"""The kind's optional objects its Go code fills in when they are unset (``--api-source``): a defaulting method
of the kind (a webhook's ``Default()``) giving ``if c.Spec.Extra == nil { c.Spec.Extra = new(ExtraSpec) }``.
A workload counted by a field of such an object is built whether the user wrote the object or not: its
absence from the object is no switch that turns the workload off (children.py's optional holder).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workload_map.authoring.evidence import Segments
from workload_map.authoring.gofuncs import GoFunc, _balanced

if TYPE_CHECKING:
    from workload_map.authoring.gochildren import _Locator


def filled_when_unset(locator: _Locator) -> set[Segments]:
    """The places of the kind's spec a method of the kind (its receiver the kind) sets to a new object when
    they are nil (``if c.Spec.Extra == nil { c.Spec.Extra = new(ExtraSpec) }``, ``= &ExtraSpec{...}``)."""
    kind = locator.kind
    out: set[Segments] = set()
    for function in locator.program.folder(kind.file.directory).values():
        for method in function:
            if method.receiver == kind.name:
                out |= _nil_filled(locator, method)
    return out


def _nil_filled(locator: _Locator, method: GoFunc) -> set[Segments]:
    body = method.body
    texts = [t.text for t in body]
    out: set[Segments] = set()
    for index, text in enumerate(texts):
        if text != "if":
            continue
        opening = index + 1
        while opening < len(texts) and texts[opening] not in ("{", "\n", ";"):
            opening += 1
        condition = texts[index + 1 : opening]
        if opening >= len(texts) or texts[opening] != "{" or condition[-3:] != ["=", "=", "nil"]:
            continue
        selector = condition[:-3]
        first = [t for t in texts[opening + 1 : _balanced(body, opening)] if t != "\n"]
        given = first[len(selector) : len(selector) + 2]
        if first[: len(selector)] != selector or given[:1] != ["="] or given[1:] not in (["new"], ["&"]):
            continue  # not the same field given a new object as the block's first statement
        place = locator.locate(body[index + 1 : index + 1 + len(selector)], method)
        if place is not None and place.segments and place.segments[0] == "spec":
            out.add(place.segments)
    return out
