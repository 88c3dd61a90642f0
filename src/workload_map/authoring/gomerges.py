"""Pod definitions of a kind that the operator's Go code merges with a pod it builds (``--api-source``).

A field shaped like a workload or a pod (``.spec.deployment``, ``.spec.podTemplate``) is not always the pod's
definition: many operators compose the pod themselves (their container, image and ports from scattered
fields) and merge the object's field over it, or start from it and add their own containers. The schema
seldom says so; the code does:

- a call named for merging or patching (``Merge(deployment, cr.Spec.Deployment)``, ``mergo.Merge(&pod,
  x.Spec.PodOverride, mergo.WithOverride)``, ``strategicpatch.StrategicMergePatch(...)``) given one field of
  the kind and a value that is not the kind's (the workload or pod the operator built): whichever way the
  merge goes, the pod is the operator's composition, not the field;
- the field copied into a local (``pod = *m.Spec.PodTemplate``, ``pod := m.Spec.Template.DeepCopy()``) whose
  containers the code then sets (``pod.Spec.Containers = ...``): the operator's containers go into it.

A pod definition at or below such a field is drafted as composed: read from no path, its count kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from workload_map.authoring.evidence import Segments
from workload_map.authoring.gochildren import _double, _Locator
from workload_map.authoring.gofuncs import GoFunc, _balanced, _Program, _split
from workload_map.authoring.goread import Package, Token, go_type_name
from workload_map.authoring.gosource import _find_kind

# The last name of a call merging or patching one value with another (Merge, MergeWithOverwrite,
# StrategicMergePatch, mergePodSpec, applyPatch...); not one that only reads (``MergeKey``).
MERGE_CALL = re.compile(r"merge|patch", re.I)
CONTAINER_FIELDS = ("Containers", "InitContainers")
# Generated code (protobuf's ``Merge`` of every message) and test fixtures merge nothing the operator runs.
GENERATED = re.compile(r"(^|/)(zz_)?generated[^/]*\.go$|\.pb\.go$|(^|/)[^/]*fixtures?[^/]*\.go$")


@dataclass(frozen=True)
class MergedField:
    """A field of the kind the code merges with a value of its own, and where."""

    segments: Segments  # the field's path in the object (``("spec", "deployment")``)
    where: str  # file:line of the merge
    how: str  # the call (``Merge``) or what the code does (``sets the containers of a copy``)


def merged_fields(root: Path, kind: str, version: str) -> list[MergedField]:
    """The kind's fields under ``.spec`` that the Go code under ``root`` merges with a value it builds, from
    the functions of the folders naming the kind (test doubles left out)."""
    kind = go_type_name(kind)
    package = Package(root)
    for directory in package.folders_declaring(kind):
        package.load(directory)
    declared, _ = _find_kind(package, kind, version)
    if declared is None:
        return []
    program = _Program(package)
    locator = _Locator(program, declared)
    out: list[MergedField] = []
    for function in program.mentioning(kind):
        if _double(function) or GENERATED.search(function.file.path):
            continue
        for found in [*_merge_calls(locator, function), *_filled_copies(locator, function)]:
            if found.segments not in {f.segments for f in out}:
                out.append(found)
    return out


def _field(locator: _Locator, tokens: list[Token], function: GoFunc) -> Segments | None:
    """The path of a field under the kind's ``.spec`` that ``tokens`` name, else None."""
    try:
        place = locator.locate(tokens, function)
    except RecursionError:  # a pathological chain of assignments: no field
        return None
    if place is None or place.segments is None or len(place.segments) < 2 or place.segments[0] != "spec":
        return None
    return place.segments


def _is_value(tokens: list[Token]) -> bool:
    """An argument naming a variable (``&deployment``, ``base``), not an option or constant
    (``mergo.WithOverride``, ``true``, ``nil``)."""
    texts = [t.text for t in tokens if t.text not in ("\n", "&", "*")]
    return bool(texts) and texts[0].isidentifier() and texts[0] not in ("nil", "true", "false") and texts[1:2] != ["."]


def _merge_calls(locator: _Locator, function: GoFunc) -> list[MergedField]:
    body = function.body
    out: list[MergedField] = []
    for index in range(len(body) - 1):
        name = body[index].text
        if not name.isidentifier() or body[index + 1].text != "(" or not MERGE_CALL.search(name):
            continue
        arguments = _split(body[index + 2 : _balanced(body, index + 1) - 1], ",")
        if len(arguments) < 2:
            continue
        fields = [_field(locator, argument, function) for argument in arguments]
        named = [segments for segments in fields if segments is not None]
        others = [a for a, segments in zip(arguments, fields, strict=True) if segments is None and _is_value(a)]
        if len(named) == 1 and others:
            out.append(MergedField(named[0], f"{function.file.path}:{body[index].line}", f"{name}(...)"))
    return out


def _filled_copies(locator: _Locator, function: GoFunc) -> list[MergedField]:
    """A field copied into a local whose containers the code then sets: ``pod = *m.Spec.PodTemplate`` (or
    ``:=``, ``.DeepCopy()``) followed by ``pod.Spec.Containers = ...``."""
    body = function.body
    out: list[MergedField] = []
    for index in range(1, len(body) - 1):
        if body[index].text != "=" or body[index + 1].text == "=":
            continue
        name_at = index - 2 if body[index - 1].text == ":" else index - 1  # ``pod := ...`` or ``pod = ...``
        if name_at < 0 or not body[name_at].text.isidentifier():
            continue
        if name_at >= 1 and body[name_at - 1].text in (".", ","):
            continue  # a field or one of several names assigned, not a plain local
        local = body[name_at].text
        value: list[Token] = []
        cursor = index + 1
        while cursor < len(body) and body[cursor].text not in ("\n", ";"):
            value.append(body[cursor])
            cursor += 1
        texts = [t.text for t in value]
        if texts[-4:-1] == [".", "DeepCopy", "("] and texts[-1] == ")":
            value = value[:-4]
        segments = _field(locator, value, function)
        if segments is None:
            continue
        set_at = _sets_containers(body[cursor:], local)
        if set_at is not None:
            out.append(MergedField(segments, f"{function.file.path}:{set_at}", "sets the containers of a copy"))
    return out


def _sets_containers(body: list[Token], local: str) -> int | None:
    """The line where ``local.Spec.Containers = ...`` (or ``local.Containers``, init containers too) is
    assigned in ``body``, else None."""
    for index in range(len(body) - 2):
        if body[index].text != local or (index > 0 and body[index - 1].text == "."):
            continue
        cursor = index
        while cursor + 2 < len(body) and body[cursor + 1].text == "." and body[cursor + 2].text.isidentifier():
            cursor += 2
        if body[cursor].text in CONTAINER_FIELDS and cursor + 1 < len(body) and body[cursor + 1].text == "=":
            return body[index].line
    return None


def merged_over(merges: list[MergedField], segments: Segments) -> MergedField | None:
    """The merge of a field at or above ``segments`` (a pod definition's path), else None."""
    return next((m for m in merges if segments[: len(m.segments)] == m.segments), None)
