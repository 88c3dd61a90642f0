"""Workloads an operator's Go code fills in rather than builds as literals with fields, and the switches of the
kind it builds them behind (``--api-source``; gochildren.py reads the counts): an empty workload whose spec
the code then writes (create-or-update closures, a cast from a generic object, one a helper returns), a
workload parameter of a mutate function or an option's closure, and the boolean field without which the
construction does not run (``if x.Spec.Gateway.Enabled {``, ``if !x.MetricsEnabled() { return }``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import accumulate
from typing import TYPE_CHECKING

from workload_map.authoring.evidence import Segments
from workload_map.authoring.gofuncs import GoFunc, _assigned_at, _balanced, _Callers, _statement
from workload_map.authoring.goowners import BUILTIN_WORKLOADS
from workload_map.authoring.goread import Token

COUNT_KEYS = ("Replicas", "Parallelism", "Completions")
# Workloads whose count unset is one pod (their API default), by the key that would set it: one replica of a
# long-running workload, one pod at a time of a Job (its parallelism, the pods running at once).
UNSET_COUNT = {"Deployment": "Replicas", "StatefulSet": "Replicas", "Job": "Parallelism"}

if TYPE_CHECKING:
    from workload_map.authoring.golocator import _Locator


def _workload_kind(function: GoFunc, qualifier: str, name: str) -> dict[str, str] | None:
    builtin = BUILTIN_WORKLOADS.get(function.file.imports.get(qualifier, ""))
    return {"group": builtin[0], "version": "v1", "kind": name} if builtin and name in builtin[1] else None


def _mutated(
    function: GoFunc, made_by: Callable[[list[str]], dict[str, str] | None] = lambda _: None
) -> Iterator[tuple[dict[str, str], int, int]]:
    """Built-in workloads a function fills in rather than builds as a literal with fields (create-or-update
    code): an empty one (``sts := &appsv1.StatefulSet{}``, or one cast from a generic object, ``sts :=
    obj.(*appsv1.StatefulSet)``, or one a function of the repository returns, ``sts := r.newDefaultSet(x)``:
    ``made_by`` names the workload kind a call returns) whose ``Spec`` the function then writes (in a mutate
    closure too), and a
    parameter of a workload type, of the function or of a closure in it (``func(sts *appsv1.StatefulSet) {
    sts.Spec.Replicas = &n }``: an option applied to an empty one), whose ``Spec`` it writes: (kind, where the
    object is made or its first write, the end of that). A parameter's write must be in its function's (or
    closure's) own block, not under an ``if``: a workload given to a function that corrects it on a condition
    (``if x < min { sts.Spec.Replicas = &min }``) was built elsewhere."""
    body = function.body
    texts = [t.text for t in body]
    depths = list(accumulate((int(t == "{") - int(t == "}") for t in texts), initial=0))
    # name -> (kind, start, end, the brace depth its writes must be at; None: any)
    variables: dict[str, tuple[dict[str, str], int, int, int | None]] = {}
    for name, type_expr in function.params.items():
        qualifier, _, kind_name = type_expr.lstrip("*").rpartition(".")
        gvk = _workload_kind(function, qualifier, kind_name) if type_expr.startswith("*") else None
        if gvk is not None and name != function.receiver_var:
            variables[name] = (gvk, -1, -1, 0)
    for index, text in enumerate(texts):
        if text == "func" and texts[index + 1 : index + 2] == ["("] and texts[index + 3 : index + 4] == ["*"]:
            declared = texts[index + 4 : index + 8]  # ``func(sts *appsv1.StatefulSet)``
            gvk = _workload_kind(function, declared[0], declared[2]) if declared[1:2] == ["."] else None
            if gvk is not None and declared[3:] == [")"] and texts[index + 2].isidentifier():
                variables[texts[index + 2]] = (gvk, -1, -1, depths[index] + 1)
        if not text.isidentifier():
            continue
        if texts[index + 1 : index + 3] == [":", "="]:
            value = texts[index + 3 : index + 12]
        elif texts[index + 1 : index + 2] == [","] and texts[index + 3 : index + 5] == [":", "="]:
            value = texts[index + 5 : index + 14]  # ``sts, ok := obj.(*appsv1.StatefulSet)``: the checked cast
            if value[1:3] != [".", "("]:
                continue
        else:
            continue
        value = value[1:] if value[:1] == ["&"] else value
        if value[1:2] == ["."] and value[3:5] == ["{", "}"]:
            gvk = _workload_kind(function, value[0], value[2])  # ``sts := &appsv1.StatefulSet{}``
        elif value[1:4] == [".", "(", "*"] and value[5:6] == ["."] and value[7:8] == [")"]:
            gvk = _workload_kind(function, value[4], value[6])  # ``sts := obj.(*appsv1.StatefulSet)``
        elif (callee := _callee(value)) is not None:
            gvk = made_by(callee)  # ``sts := r.newDefaultSet(x)``
        else:
            gvk = None
        if gvk is not None:
            variables[text] = (gvk, index, index + 1, None)
    for name, (gvk, start, end, depth) in variables.items():
        for index in range(max(start, 0), len(body) - 3):
            if texts[index : index + 3] != [name, ".", "Spec"] or (index > 0 and texts[index - 1] == "."):
                continue
            if depth is not None and depths[index] != depth:
                continue
            # ``podSpec := &sts.Spec.Template.Spec``: the spec written through the alias.
            aliased = index > 3 and texts[index - 3 : index] == [":", "=", "&"]
            if aliased or _writes([t.text for t in _statement(body, index)]):
                yield (gvk, start, end) if start >= 0 else (gvk, index, index)
                break


def _callee(texts: list[str]) -> list[str] | None:
    """The name a call starts with (``r . newSet`` of ``r.newSet(x)``), else None."""
    named = texts[: texts.index("(")] if "(" in texts else []
    chain = all(t == "." if i % 2 else t.isidentifier() for i, t in enumerate(named))
    return named if named and chain and len(named) % 2 == 1 else None


def _returns_workload(locator: _Locator, callee: list[str], function: GoFunc) -> dict[str, str] | None:
    """The built-in workload kind a function of the repository the call names declares it returns; a method
    not found on the receiver's own type (promoted from a struct it embeds, of another folder) by its name
    among the functions read, when those of that name agree."""
    candidates = locator.callees(callee, function)
    if not candidates and len(callee) == 3:
        loaded = list(locator.program.by_folder.values())
        candidates = [c for functions in loaded for c in functions.get(callee[-1], []) if c.receiver]
        kinds = {c.result.lstrip("*").rpartition(".")[2] for c in candidates}
        candidates = candidates if len(kinds) == 1 else []
    for candidate in candidates:
        qualifier, _, name = candidate.result.lstrip("*").rpartition(".")
        gvk = _workload_kind(candidate, qualifier, name)
        if gvk is not None:
            return gvk
    return None


def _writes(statement: list[str]) -> bool:
    """A statement assigning to the selector it starts with (``sts.Spec.Replicas = x``), not comparing it."""
    cursor = 0
    while cursor < len(statement) and (statement[cursor].isidentifier() or statement[cursor] == "."):
        cursor += 1
    return statement[cursor : cursor + 1] == ["="] and statement[cursor + 1 : cursor + 2] != ["="]


class Presence(tuple[str, ...]):
    """A guard that is an optional field's presence (the code compares it to nil), not a boolean's value."""

    __slots__ = ()


def _guard(locator: _Locator, function: GoFunc, start: int, until: int | None = None) -> Segments | None:
    """The field of the kind without which the code at ``start`` does not run: the function returns before
    it while the field is unset (``if !x.Spec.Extra.Enabled { return nil }``; before ``until``, the last use
    of what is made at ``start``, when given), or it sits in the block of ``if x.Spec.Extra.Enabled {``."""
    body = function.body
    until = start if until is None else max(start, until)
    # A part's presence tested first (``if x.Spec.Backup != nil {``) gives way to a switch of that part tested
    # after it (``&& x.Spec.Backup.Archive.Enabled &&``): the part given, its switch still decides.
    present: Presence | None = None
    for index in range(min(until, len(body))):
        if body[index].text != "if":
            continue
        end = index + 1
        while end < len(body) and body[end].text not in ("{", "\n", ";"):
            end += 1
        if end >= len(body) or body[end].text != "{":
            continue
        raw = body[index + 1 : end]
        condition = _switched_off(raw)
        negated = condition is not None
        # Tested on: a boolean, or the presence of an optional part (``if x.Spec.Extra != nil {``).
        condition = condition if condition is not None else _switched_on(raw) or raw
        alone = [t for t in raw if t.text != "\n"]
        nil_tested = _compared_to_nil(alone, "=") is not None or _compared_to_nil(alone, "!") is not None
        closing = _balanced(body, end)
        returns = negated and _ends_in_return(body, end, closing)
        # A block with an ``else`` chooses between two ways (a mode), it does not switch one on.
        encloses = (
            not negated
            and index < start < closing  # around what is made, not a block after it that only changes it
            and (closing >= len(body) or body[closing].text != "else")
        )
        found: Segments | None = None
        if returns or encloses:
            place = locator.locate(condition, function)
            if place is not None and place.segments and place.segments[0] == "spec":
                found = Presence(place.segments) if nil_tested else place.segments
        if found is None and encloses:
            found = _one_switch_of(locator, function, condition)
        if found is None:
            continue
        if isinstance(found, Presence):
            present = present or found
        elif present is None or found[: len(present)] == present:
            return found
        else:
            return present  # a switch of something else: the part's presence is the guard
    return present


def _operands(condition: list[Token], operator: str) -> list[list[Token]]:
    """``condition`` split at ``&&`` or ``||`` (``operator`` its one character: the reader gives each character
    a token of its own), that character's tokens left out."""
    parts: list[list[Token]] = [[]]
    for index, token in enumerate(condition):
        if token.text == operator and index + 1 < len(condition) and condition[index + 1].text == operator:
            parts.append([])
        elif token.text != operator:
            parts[-1].append(token)
    return parts


def _one_switch_of(locator: _Locator, function: GoFunc, condition: list[Token]) -> Segments | None:
    """The one field of the kind's spec a conjunction tests on by itself (``ready && x.Spec.Extra.Enabled &&
    !x.Spec.Pause``): the block runs only while it is on. None when there are several, or none."""
    parts = [[t for t in part if t.text != "\n"] for part in _operands(condition, "&")]
    if len(parts) < 2:
        return None
    found: list[Segments] = []
    for part in parts:
        texts = [t.text for t in part]
        if not texts or not all(t.isidentifier() if i % 2 == 0 else t == "." for i, t in enumerate(texts)):
            continue  # a comparison, a negation, a call: not a switch on
        place = locator.locate(part, function)
        if place is not None and place.segments and place.segments[0] == "spec":
            found.append(place.segments)
    return found[0] if len(found) == 1 else None


def _switched_off(condition: list[Token]) -> list[Token] | None:
    """The switch a condition tests off: ``!x.Spec.Extra.Enabled``, or the same after nil checks of what holds
    it (``x.Spec.Extra == nil || !x.Spec.Extra.Enabled``); else None."""
    parts = _operands(condition, "|")
    last = [t for t in parts[-1] if t.text != "\n"]
    absent = _compared_to_nil(last, "=")
    if absent is not None and len(parts) == 1:
        return absent  # ``x.Spec.Extra == nil``: an optional part of the spec, absent
    if not last or last[0].text != "!" or (len(last) > 1 and last[1].text == "="):
        return None
    switch = " ".join(t.text for t in last[1:])
    for part in parts[:-1]:
        texts = [t.text for t in part]
        if texts[-3:] != ["=", "=", "nil"] or not switch.startswith(" ".join(texts[:-3]) + " ."):
            return None  # another test: not the switch alone
    return last[1:]


def _ends_in_return(body: list[Token], opening: int, closing: int) -> bool:
    """Whether the block from ``opening`` (its ``{``) to ``closing`` (past its ``}``) ends in a ``return`` of its
    own: the code after it does not run (what it does first, deleting what the switch turned off, aside)."""
    depth, last = 0, None
    for index in range(opening + 1, closing - 1):
        text = body[index].text
        depth += text in "([{"
        depth -= text in ")]}"
        if depth == 0 and text not in ("\n", ";", "}") and (index == opening + 1 or body[index - 1].text in "\n;}"):
            last = text  # the first word of each statement at the block's own level
    return last == "return"


def _switched_on(condition: list[Token]) -> list[Token] | None:
    """The switch a condition tests on: ``x.Spec.Extra.Enabled``, or the same after nil checks of what holds it
    (``x.Spec.Extra != nil && x.Spec.Extra.Enabled``); else None."""
    parts = _operands(condition, "&")
    last = [t for t in parts[-1] if t.text != "\n"]
    present = _compared_to_nil(last, "!")
    if present is not None and len(parts) == 1:
        return present  # ``x.Spec.Extra != nil``: an optional part of the spec, given
    texts = [t.text for t in last]
    if not texts or not all(t.isidentifier() if i % 2 == 0 else t == "." for i, t in enumerate(texts)):
        return None
    for part in parts[:-1]:
        held = [t.text for t in part if t.text != "\n"]
        if held[-3:] != ["!", "=", "nil"] or not " ".join(texts).startswith(" ".join(held[:-3]) + " ."):
            return None  # another test: not the switch alone
    return last


def _compared_to_nil(operand: list[Token], first: str) -> list[Token] | None:
    """The selector an operand compares to nil (``x.Spec.Extra == nil`` with ``first`` "=", ``!= nil`` with
    "!"): an optional part of the spec (a pointer, a map, a list) whose presence alone switches what needs it
    on, as a boolean would; else None."""
    texts = [t.text for t in operand]
    if texts[-3:] != [first, "=", "nil"]:
        return None
    selector = texts[:-3]
    if len(selector) < 3 or not all(t.isidentifier() if i % 2 == 0 else t == "." for i, t in enumerate(selector)):
        return None
    return operand[:-3]


# The method of a builder type saying whether its object is made at all (a reconcile loop over builders deletes
# the object of one that is not enabled).
ENABLED_METHODS = ("Enabled", "IsEnabled")


def _builder_enabled(locator: _Locator, function: GoFunc) -> Segments | None:
    """The kind's switch a method of the builder type building the workload returns as its ``Enabled() bool``
    (``return b.instance.Spec.Extra != nil && b.instance.Spec.Extra.Enabled``): its object is made only while
    that is on."""
    if not function.receiver:
        return None
    for name in ENABLED_METHODS:
        for method in locator.program.folder(function.file.directory).get(name, []):
            if method.receiver != function.receiver or method.result != "bool":
                continue
            returns = [i for i, t in enumerate(method.body) if t.text == "return"]
            condition = _switched_on(_statement(method.body, returns[-1] + 1)) if len(returns) == 1 else None
            place = locator.locate(condition, method) if condition else None
            if place is not None and place.segments and place.segments[0] == "spec":
                return place.segments
    return None


def _guard_on_the_way(  # noqa: PLR0917 - the place read and the walk's state, each by name
    locator: _Locator, function: GoFunc, start: int, callers: _Callers, depth: int = 0, until: int | None = None
) -> Segments | None:
    """``_guard`` in the function building a workload, else at the one call of it (callers of callers, a few
    levels up; at a call, an early return before the last use of what it gives counts too)."""
    found = _guard(locator, function, start, until) or _builder_enabled(locator, function)
    calls = callers.get(id(function), [])
    # Several calls from one function (for the object and for its previous version) are one way there.
    if found is not None or depth > 2 or len({id(caller) for caller, _ in calls}) != 1:
        return found
    caller, at = calls[0]
    return _guard_on_the_way(locator, caller, at, callers, depth + 1, _last_use(caller.body, at))


def _last_use(body: list[Token], at: int) -> int:
    """Where the value the call at ``at`` gives is last read (``desired := build(x)`` ... ``create(desired)``): a
    switch tested between the call and that use stops what is made of it; ``at`` when it is not kept."""
    head = at
    while head > 0 and (body[head - 1].text.isidentifier() or body[head - 1].text == "."):
        head -= 1  # back over the callee's qualifiers (``r.pkg.build``)
    operator = 2 if [t.text for t in body[max(head - 2, 0) : head]] == [":", "="] else 1
    if body[head - operator].text not in (":", "="):
        return at
    names = head - operator - 1  # back over ``obj, err`` to the first name: the value kept
    while names >= 2 and body[names - 1].text == "," and body[names - 2].text.isidentifier():
        names -= 2
    name = body[names].text if names >= 0 else ""
    if not name.isidentifier() or name == "_":  # the blank identifier keeps nothing
        return at
    uses = []
    for index in range(at, len(body) - 2):
        if body[index].text != name or body[index - 1].text == ".":
            continue
        following = [t.text for t in body[index + 1 : index + 3]]
        if following == [":", "="] or (following[:1] == ["="] and following[1:] != ["="]):
            break  # given another value (``err`` of the next call): what follows reads that one
        uses.append(index)
    return uses[-1] if uses else at


def _renamed_copy(function: GoFunc, start: int) -> bool:
    """Whether the workload a function of the repository returns, assigned at ``start`` (``d := build(x)``), is
    given another name after (``d.Name = x.Name + "-worker"``, ``d.ObjectMeta.Name = ...``, ``d.SetName(...)``):
    a second object made from the first's builder, not the first one corrected."""
    body = function.body
    name = body[start].text
    if [t.text for t in body[start + 1 : start + 3]] != [":", "="]:
        return False
    for index in range(start + 3, len(body) - 3):
        if body[index].text != name or body[index - 1].text in (".", "&"):
            continue
        texts = [t.text for t in body[index + 1 : index + 6]]
        if texts[:3] in ([".", "Name", "="], [".", "SetName", "("]) and texts[3:4] != ["="]:
            return True
        if texts[:4] == [".", "ObjectMeta", ".", "Name"] and texts[4:5] == ["="]:
            return True
    return False


def _set_on_condition(function: GoFunc, start: int, end: int) -> bool:
    """Whether the count is written after the literal only inside an ``if`` block (``if d := x.Spec.Daemon; d
    != nil { spec.Replicas = d.Replicas }``): the workload is built all the same, with its default count."""
    body = function.body
    for index in range(end, len(body) - 1):
        if body[index].text not in COUNT_KEYS or body[index - 1].text != "." or body[index + 1].text != "=":
            continue
        depth, opening = 0, None
        for back in range(index - 1, start - 1, -1):
            depth += (body[back].text == "}") - (body[back].text == "{")
            if depth < 0:
                opening = back
                break
        if opening is None:
            return False
        head = opening
        while head > 0 and body[head - 1].text not in ("\n", "{", "}"):
            head -= 1
        return body[head].text in ("if", "else")
    return False


def _expanded(function: GoFunc, value: list[Token]) -> list[Token]:
    """A local a count is given (``&n`` with ``n := int32(replicas)``) replaced by what it is assigned, a few
    times over, so that the parameters it reads are seen."""
    for _ in range(3):
        names = [t for t in value if t.text not in ("\n", "&", "*")]
        if len(names) != 1 or not names[0].text.isidentifier() or names[0].text in function.params:
            break
        assigned = _assigned_at(function.body, names[0].text)
        if assigned is None:
            break
        value = _statement(function.body, assigned)
    return value


def _only_deleted(function: GoFunc, start: int, end: int) -> bool:
    """Whether the literal from ``start`` to ``end`` names a workload only to delete it: no spec of its own,
    kept in a local first handed to a call that deletes (``sts := &appsv1.StatefulSet{ObjectMeta: ...}`` then
    ``r.deleteIfExists(ctx, sts)``, ``r.Delete(ctx, sts)``): an object of an older layout being removed."""
    body = function.body
    keys = {body[i].text for i in range(start + 4, end - 1) if body[i + 1].text == ":"}
    if "Spec" in keys:
        return False
    head = start - 1 if start > 0 and body[start - 1].text == "&" else start
    if head < 3 or [t.text for t in body[head - 2 : head]] != [":", "="]:
        return False
    name = body[head - 3].text
    for index in range(end, len(body)):
        if body[index].text != name or body[index - 1].text == ".":
            continue
        depth, callee = 0, ""
        for back in range(index - 1, start, -1):  # the call whose argument list holds this use
            depth += (body[back].text == ")") - (body[back].text == "(")
            if depth < 0:
                callee = body[back - 1].text
                break
        return "delete" in callee.lower()
    return False
