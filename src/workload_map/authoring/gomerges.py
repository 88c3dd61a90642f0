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
  containers the code then sets (``pod.Spec.Containers = ...``): the operator's containers go into it;
- the field converted first by a method of its own API type (``user := m.Spec.PodSnippet.ToPodSpec()``, the
  method returning a value built from its receiver's fields) and the result merged: the same field, merged;
- a list of containers of the kind appended to a container the code builds as the pod's containers
  (``Containers: append(m.Spec.Containers, mainContainer)``): they are extra containers of a pod the operator
  composes around its own, not the pod's definition.

A pod definition at or below such a field is drafted as composed: read from no path, its count kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from workload_map.authoring.evidence import Segments, schema_path
from workload_map.authoring.gochildren import _double
from workload_map.authoring.gocode import GoCode, kind_code
from workload_map.authoring.gofuncs import GoFunc, _assigned_at, _balanced, _split, _statement
from workload_map.authoring.golocator import _assignment, _collection, _Locator
from workload_map.authoring.goread import GoType, Token, go_type_name

# The first or last word of a call merging, patching or overriding one value with another (Merge,
# MergeWithOverwrite, StrategicMergePatch, mergePodSpec, OverrideDeployment); not one that only reads a
# value so named (``GetOverrideImage``).
MERGE_WORDS = frozenset({"merge", "merged", "patch", "override", "overwrite", "overlay"})
CONTAINER_FIELDS = ("Containers", "InitContainers")
CLIENT_TYPE = re.compile(r"^\*?(client\.(Client|Writer|Patcher)|kubernetes\.Interface)$")
# Generated code (protobuf's ``Merge`` of every message) and test fixtures merge nothing the operator runs.
GENERATED = re.compile(r"(^|/)(zz_)?generated[^/]*\.go$|\.pb\.go$|(^|/)[^/]*fixtures?[^/]*\.go$")


@dataclass(frozen=True)
class MergedField:
    """A field of the kind the code merges with a value of its own, and where."""

    segments: Segments  # the field's path in the object (``("spec", "deployment")``)
    where: str  # file:line of the merge
    how: str  # the call (``Merge``) or what the code does (``sets the containers of a copy``)
    appended: bool = False  # a list of containers added beside the code's own, not merged with them


def merged_fields(root: Path | GoCode, kind: str, version: str) -> list[MergedField]:
    """The kind's fields under ``.spec`` that the Go code under ``root`` merges with a value it builds, from
    the functions of the folders naming the kind (test doubles left out)."""
    kind = go_type_name(kind)
    code = kind_code(root, kind, version)
    if code is None:
        return []
    program, locator, _ = code
    out: list[MergedField] = []
    for function in program.mentioning(kind):
        if _double(function) or GENERATED.search(function.file.path):
            continue
        found_here = [
            *_merge_calls(locator, function),
            *_filled_copies(locator, function),
            *_appended_containers(locator, function),
        ]
        for found in found_here:
            if found.segments not in {f.segments for f in out}:
                out.append(found)
    return out + [f for f in _same_type(locator, out) if f.segments not in {m.segments for m in out}]


def _same_type(locator: _Locator, merges: list[MergedField]) -> list[MergedField]:
    """The other fields of the spec declared with the struct type of a merged field (a ``Deployment``
    override type each component of the spec has): the code treats a type one way, so a component whose
    merge the reader did not reach (another builder, a deprecated part) has its field merged too."""
    types: dict[Segments, GoType] = {}
    for segments, go_field, owner in locator.linker.walk(locator.kind, (), set()):
        inner, marker = _collection(go_field.type_expr)
        resolved = locator.linker.resolve(inner, owner.file) if marker is None and segments[:1] == ("spec",) else None
        if resolved is not None and resolved.underlying == "struct":
            types[segments] = resolved
    out: list[MergedField] = []
    for merge in merges:
        declared = types.get(merge.segments)
        for segments, other in types.items() if declared is not None else ():
            if other is declared and segments not in {m.segments for m in [*merges, *out]}:
                how = f"{merge.how} of {schema_path(merge.segments)}, a field of the same type {other.name}"
                out.append(MergedField(segments, merge.where, how))
    return out


def _field(locator: _Locator, tokens: list[Token], function: GoFunc) -> Segments | None:
    """The path of a field under the kind's ``.spec`` that ``tokens`` name, else None."""
    try:
        place = locator.locate(tokens, function)
    except RecursionError:  # a pathological chain of assignments: no field
        return None
    if place is None or place.segments is None or len(place.segments) < 2 or place.segments[0] != "spec":
        return _converted(locator, tokens, function)
    return place.segments


def _converted(locator: _Locator, tokens: list[Token], function: GoFunc) -> Segments | None:
    """The field under ``.spec`` a value is a conversion of: ``field.ToPodSpec()``, directly or through the
    local it was given to (``user := m.Spec.Snippet.ToPodSpec()``), when the method is one of the field's own
    API type taking no argument and returning nil or a value built from its receiver's fields (a snippet type
    turned into the library's). The locator reads no field from such a return (a composite literal)."""
    texts = [t.text for t in tokens if t.text not in ("\n", "&", "*")]
    value = [t for t in tokens if t.text not in ("\n", "&", "*")]
    if len(texts) == 1 and texts[0].isidentifier():
        assigned = _assignment(function.body, texts[0])
        if assigned is None or assigned[1]:
            return None
        value = [t for t in assigned[0] if t.text != "\n"]
        texts = [t.text for t in value]
    if len(texts) < 5 or texts[-2:] != ["(", ")"] or texts[-4] != "." or not texts[-3].isidentifier():
        return None
    try:
        place = locator.locate(value[:-4], function)
    except RecursionError:
        return None
    if place is None or place.segments is None or len(place.segments) < 2 or place.segments[0] != "spec":
        return None
    declared = place.declared
    if declared is None or declared.underlying != "struct":
        return None
    methods = [
        m for m in locator.program.folder(declared.file.directory).get(texts[-3], []) if m.receiver == declared.name
    ]
    return place.segments if methods and all(_builds_from_receiver(m) for m in methods) else None


def _builds_from_receiver(method: GoFunc) -> bool:
    """Every ``return`` of the method gives nil or a value reading its receiver's fields (``return
    &v1.PodSpec{Containers: e.Containers, ...}``), and one of them does."""
    if not method.receiver_var or method.params.keys() - {method.receiver_var}:
        return False
    body = method.body
    returns = [index for index, token in enumerate(body) if token.text == "return"]
    reading = 0
    for index in returns:
        end = index + 1
        while end < len(body) and body[end].text not in ("\n", ";"):
            if body[end].text == "{":
                end = _balanced(body, end)
                continue
            end += 1
        texts = [t.text for t in body[index + 1 : end]]
        if texts == ["nil"]:
            continue
        if not any(text == method.receiver_var and texts[i + 1 : i + 2] == ["."] for i, text in enumerate(texts[:-1])):
            return False
        reading += 1
    return reading > 0


def _is_value(tokens: list[Token], function: GoFunc) -> bool:
    """An argument naming a variable (``&deployment``, ``&d.Spec.Template``), not an option or constant of a
    package (``mergo.WithOverride``, ``true``, ``nil``)."""
    texts = [t.text for t in tokens if t.text not in ("\n", "&", "*")]
    if not texts or not texts[0].isidentifier() or texts[0] in ("nil", "true", "false"):
        return False
    return not (texts[1:2] == ["."] and texts[0] in function.file.imports)


def _merge_calls(locator: _Locator, function: GoFunc) -> list[MergedField]:
    """Calls given one field of the kind and a value of the code's own: a merge by its name, or a function
    of the repository that hands the field's parameter to one (``applyChangesTo(&pod.Spec, changes)`` with
    ``patch, _ := json.Marshal(changes)`` given to ``StrategicMergePatch``)."""
    body = function.body
    out: list[MergedField] = []
    callees: dict[int, list[GoFunc]] = {}
    for called, at in locator.program.call_sites(function):
        callees.setdefault(at, []).append(called)
    for index in range(len(body) - 1):
        name = body[index].text
        if not name.isidentifier() or body[index + 1].text != "(":
            continue
        merging = _merging(name)
        if not merging and index not in callees:
            continue
        if merging and callees.get(index) and all(_takes_a_client(called) for called in callees[index]):
            continue  # a function of the repository patching a live object through the client
        arguments = _split(body[index + 2 : _balanced(body, index + 1) - 1], ",")
        if len(arguments) < 2:
            continue
        fields = [_field(locator, argument, function) for argument in arguments]
        named = [(position, segments) for position, segments in enumerate(fields) if segments is not None]
        others = [a for a, found in zip(arguments, fields, strict=True) if found is None and _is_value(a, function)]
        if len(named) != 1 or not others or any(_fetched(a, function) for a in others):
            continue
        position, segments = named[0]
        where = f"{function.file.path}:{body[index].line}"
        if merging:
            out.append(MergedField(segments, where, f"{name}(...)"))
            continue
        for called in callees[index]:
            inner = _merges_parameter(locator, called, position)
            if inner is not None:
                out.append(MergedField(segments, where, f"{name}(...), which gives it to {inner}"))
                break
    return out


def _fetched(argument: list[Token], function: GoFunc) -> bool:
    """A value the code reads from the cluster (``cfg, err := api.GetServerConfig(name, r.Client)``): another
    object's pod the field is merged over, which the operator does not compose (the field is the pod's)."""
    texts = [t.text for t in argument if t.text not in ("\n", "&", "*")]
    at = _assigned_at(function.body, texts[0]) if texts else None
    if at is None:
        return False
    return any(t.text.isidentifier() and "client" in t.text.lower() for t in _statement(function.body, at))


def _merging(name: str) -> bool:
    spaced = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name)
    return bool(spaced) and (spaced[0].lower() in MERGE_WORDS or spaced[-1].lower() in MERGE_WORDS)


def _merges_parameter(locator: _Locator, function: GoFunc, position: int) -> str | None:
    """The merge call (``StrategicMergePatch(...) at file:line``) the function's parameter at ``position``
    goes to, directly or through one local made from it (``patch, err := json.Marshal(changes)``), else
    None. A function of the repository given a Kubernetes client (``patchPodImages(ctx, cli, pod, role)``)
    patches a live object in the cluster with the field's values: no pod the code composes."""
    talking = {at for called, at in locator.program.call_sites(function) if _takes_a_client(called)}
    names = list(function.params)
    if function.receiver_var and names and names[0] == function.receiver_var:
        names = names[1:]  # the receiver is not among the call's arguments
    if position >= len(names):
        return None
    carriers = {names[position]}
    body = function.body
    for index, token in enumerate(body[1:-1], start=1):
        if token.text != "=" or body[index + 1].text == "=" or body[index - 1].text in ("=", "!", "<", ">"):
            continue  # a comparison, not an assignment
        if not _whole(_line(body, index), names[position]):
            continue
        start = index - 2 if body[index - 1].text == ":" else index - 1
        while start >= 0 and body[start].text.isidentifier():
            carriers.add(body[start].text)  # each name assigned (``patch, err := ...``)
            if start < 2 or body[start - 1].text != ",":
                break
            start -= 2
    for index in range(len(body) - 1):
        name = body[index].text
        if name.isidentifier() and body[index + 1].text == "(" and _merging(name) and index not in talking:
            arguments = _split(body[index + 2 : _balanced(body, index + 1) - 1], ",")
            if any(_whole(argument, carrier) for argument in arguments for carrier in carriers):
                return f"{name}(...) at {function.file.path}:{body[index].line}"
    return None


def _takes_a_client(function: GoFunc) -> bool:
    """A parameter of a Kubernetes client's type (``cli client.Client``, ``c kubernetes.Interface``)."""
    return any(CLIENT_TYPE.search(kind) for name, kind in function.params.items() if name != function.receiver_var)


def _whole(tokens: list[Token], name: str) -> bool:
    """``tokens`` are the value ``name`` whole: itself behind ``&``/``*``, its ``DeepCopy()``, or the one
    argument of a call (``json.Marshal(changes)``); not a field of it (``changes.Labels``)."""
    texts = [t.text for t in tokens if t.text not in ("\n", "&", "*")]
    if texts[-4:] == [".", "DeepCopy", "(", ")"]:
        texts = texts[:-4]
    if texts[-1:] == [")"] and "(" in texts:
        texts = texts[texts.index("(") + 1 : -1]
    return [t for t in texts if t not in ("&", "*")] == [name]


def _line(body: list[Token], index: int) -> list[Token]:
    """The tokens after ``body[index]`` up to the end of its line."""
    end = index + 1
    while end < len(body) and body[end].text not in ("\n", ";"):
        end += 1
    return body[index + 1 : end]


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


def _appended_containers(locator: _Locator, function: GoFunc) -> list[MergedField]:
    """A field of the kind appended to a value the code builds, the result given as a pod's containers
    (``Containers: append(m.Spec.Containers, main)``, ``pod.Spec.InitContainers = append(own, m.Spec.Init...)``):
    the field's containers join the operator's own in a pod it composes."""
    body = function.body
    out: list[MergedField] = []
    for index in range(2, len(body) - 1):
        if body[index].text != "append" or body[index + 1].text != "(":
            continue
        arguments = [_unspread(argument) for argument in _split(body[index + 2 : _balanced(body, index + 1) - 1], ",")]
        into_pod = body[index - 1].text in (":", "=") and body[index - 2].text in CONTAINER_FIELDS
        if not into_pod and not _grown_with_own(locator, function, index):
            continue  # not given to a pod's containers (``Containers:``, ``x.Containers =``, a list of its own)
        if len(arguments) < 2:
            continue
        fields = [_field(locator, argument, function) for argument in arguments]
        named = [segments for segments in fields if segments is not None]
        # The code's own containers: a local or a literal it writes (``[]corev1.Container{main}``).
        others = [
            a
            for a, found in zip(arguments, fields, strict=True)
            if found is None and (_is_value(a, function) or "{" in [t.text for t in a])
        ]
        if len(named) != 1 or not others or any(_fetched(a, function) for a in others):
            continue
        if body[index - 1].text == "=" and _field(locator, _chain_before(body, index - 1), function) is not None:
            continue  # the kind's own field written (a conversion or defaulting adding a container), no pod
        out.append(
            MergedField(
                named[0], f"{function.file.path}:{body[index].line}", "appends its containers to the code's own", True
            )
        )
    return out


def _grown_with_own(locator: _Locator, function: GoFunc, at: int) -> bool:
    """``list = append(list, ...)`` at ``at`` on a local list of containers the code also appends one of its
    own to elsewhere in the function (``containers = append(containers, exporter)``): the list is the
    operator's containers, and what else is appended joins them."""
    body = function.body
    local = body[at - 2].text if body[at - 1].text == "=" and at >= 3 and body[at - 3].text != "." else ""
    if "container" not in local.lower():
        return False
    for index in range(2, len(body) - 1):
        if index == at or body[index].text != "append" or [t.text for t in body[index - 2 : index]] != [local, "="]:
            continue
        arguments = [_unspread(a) for a in _split(body[index + 2 : _balanced(body, index + 1) - 1], ",")]
        added = arguments[1:] if arguments and [t.text for t in arguments[0]] == [local] else []
        if added and all(_field(locator, a, function) is None and _is_value(a, function) for a in added):
            return True
    return False


def _unspread(argument: list[Token]) -> list[Token]:
    """The argument without the ``...`` spreading it into a variadic call (read as three dots)."""
    texts = [t.text for t in argument]
    return argument[:-3] if texts[-3:] == [".", ".", "."] else argument


def _chain_before(body: list[Token], end: int) -> list[Token]:
    """The selector chain ending just before ``body[end]`` (``dst.Spec.Pod.Containers`` of ``... =``)."""
    start = end - 1
    while start >= 2 and body[start - 1].text == "." and body[start - 2].text.isidentifier():
        start -= 2
    return body[start:end] if start >= 0 and body[start].text.isidentifier() else []


# What may lie between a merged field and the pod definition in it: a workload's spec and its template
# (``.spec.deployment`` merged, ``.spec.deployment.spec.template`` the pod), not a role's other parts.
WORKLOAD_PATH = frozenset({"spec", "template", "podTemplate"})


def merged_over(merges: list[MergedField], segments: Segments, podspec: bool = False) -> MergedField | None:
    """The merge of the field at ``segments`` (a pod definition's path) or of the workload holding it,
    else None: a list item merged as a whole (a role) says nothing of the pod definition inside it. A PodSpec
    (``podspec``) whose containers the code appends beside its own is a pod it composes as well."""
    return next(
        (
            m
            for m in merges
            if (segments[: len(m.segments)] == m.segments and set(segments[len(m.segments) :]) <= WORKLOAD_PATH)
            or (podspec and m.appended and m.segments == (*segments, "containers"))
        ),
        None,
    )
