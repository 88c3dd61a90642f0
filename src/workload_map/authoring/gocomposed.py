"""Whether a workload the operator's Go code builds has its pod put together by the code (``--api-source``;
gochildren.py finds the workloads): its pod template is a PodTemplateSpec (a Pod's PodSpec) literal, one a
function of the repository returns, or one a caller hands the builder, not a field of the kind copied whole.
Such a pod is read from no path of the object: the draft says the operator composes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from workload_map.authoring.gofuncs import GoFunc, _assigned_at, _balanced, _Callers, _Program, _split, _statement

if TYPE_CHECKING:
    from workload_map.authoring.golocator import _Locator


# Where a workload literal holds its pod, and that pod's Go type: a Pod its spec, any other its template.
POD_PART = {"Pod": ("Spec", "PodSpec")}
TEMPLATE_PART = ("Template", "PodTemplateSpec")
# How deep the calls returning a pod template are followed: a generic helper handing the builder its template
# (gohandoff.py) adds a level or two before the function that writes the literal (role > group > literal).
MAX_TEMPLATE_DEPTH = 5


def _composes_pod(  # noqa: PLR0917 - the literal and what it is read with, each by name at its one call
    program: _Program,
    locator: _Locator,
    function: GoFunc,
    kind: str,
    span: tuple[int, int],
    callers: _Callers | None = None,
) -> bool:
    """Whether the literal's pod is put together by the code: its ``Template`` (a Pod's ``Spec``), inside it
    or ``v.Spec.Template = ...`` after it, is a PodTemplateSpec (PodSpec) literal, a variable given one, or
    what a function of the repository building one returns, or a parameter given one of those by a caller;
    not a field of the kind copied whole."""
    key, type_name = POD_PART.get(kind, TEMPLATE_PART)
    start, end = span
    body = function.body
    for index in range(start, len(body) - 2):
        inside = index < end and body[index + 1].text == ":"
        after = index >= end and body[index - 1].text == "." and body[index + 1].text == "="
        if body[index].text == key and (inside or after):
            return _builds_template(program, locator, function, (index + 2, 0), type_name, callers or {})
    return False


def _builds_template(  # noqa: PLR0917 - the place read and what it is read with, each by name
    program: _Program,
    locator: _Locator,
    function: GoFunc,
    where: tuple[int, int],
    type_name: str,
    callers: _Callers | None = None,
) -> bool:
    at, depth = where
    body = function.body
    statement = _statement(body, at)
    value = [t for t in (_split(statement, ",") or [[]])[0] if t.text not in ("\n", "&", "*")]
    texts = [t.text for t in value]
    if depth > 3 or not texts:
        return False
    end = at + len(statement)
    if texts[-1] == type_name and end < len(body) and body[end].text == "{":
        return not _copies_spec(locator, function, end)
    if len(texts) == 1 and texts[0] in function.params and texts[0] != function.receiver_var:
        return any(
            _builds_template(program, locator, caller, (at, depth + 1), type_name, callers)
            for caller, at in _arguments(function, texts[0], callers or {})
        )
    if len(texts) == 1 and texts[0].isidentifier():
        assigned = _assigned_at(body, texts[0])
        return assigned is not None and _builds_template(
            program, locator, function, (assigned, depth + 1), type_name, callers
        )
    if "(" in texts and texts.index("(") > 0:
        callee = texts[texts.index("(") - 1]
        called = [c for c in program.calls(function) if c.name == callee]
        return any(_returns_template(program, locator, c, depth + 1, type_name) for c in called)
    return False


def _arguments(function: GoFunc, parameter: str, callers: _Callers) -> Iterator[tuple[GoFunc, int]]:
    """Where the argument given for ``parameter`` starts at each call of ``function`` (caller, index)."""
    positional = [name for name in function.params if name != function.receiver_var]
    position = positional.index(parameter)
    for caller, at in callers.get(id(function), []):
        body = caller.body
        if at + 1 >= len(body) or body[at + 1].text != "(":
            continue
        start, depth, count = at + 2, 0, 0
        for index in range(at + 2, _balanced(body, at + 1) - 1):
            text = body[index].text
            depth += text in "([{"
            depth -= text in ")]}"
            if text == "," and depth == 0:
                count += 1
                if count == position:
                    start = index + 1
        while start < len(body) and body[start].text == "\n":
            start += 1
        if count + 1 == len(positional):
            yield caller, start


def _returns_template(program: _Program, locator: _Locator, function: GoFunc, depth: int, type_name: str) -> bool:
    """A function of the repository that builds a ``type_name`` literal (or calls one that does)."""
    body = function.body
    for index in range(len(body) - 1):
        if body[index].text == type_name and body[index + 1].text == "{":
            return not _copies_spec(locator, function, index + 1)
    if depth > MAX_TEMPLATE_DEPTH:
        return False
    called = [c for c in program.calls(function) if c is not function]
    return any(_returns_template(program, locator, c, depth + 1, type_name) for c in called)


def _copies_spec(locator: _Locator, function: GoFunc, brace: int) -> bool:
    """A PodTemplateSpec literal whose ``Spec`` is a field of the kind (a pod template copied, in disguise)."""
    body = function.body
    close = _balanced(body, brace)
    for index in range(brace + 1, close - 1):
        if body[index].text == "Spec" and body[index + 1].text == ":":
            value = [t for t in (_split(_statement(body, index + 2), ",") or [[]])[0] if t.text != "\n"]
            # The longest selector it starts with that is a field of the kind (``b.Spec.Template`` of
            # ``b.Spec.Template.Spec``: the reader does not follow the Kubernetes types below it).
            for length in range(len(value), 2, -2):
                place = locator.locate(value[:length], function)
                if place is not None and place.segments is not None and len(place.segments) >= 2:
                    return True
            return False
    return False
