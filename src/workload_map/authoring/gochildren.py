"""The pod-making children an operator's Go code builds for a kind (``wmap definitions new --api-source DIR``).

A controller seldom builds its StatefulSet or Job where it reconciles: a helper does (``NewPool(args)``,
``deploymentForRuntime(rt)``), often in another package of the repository, reached through a few calls. This
module reads the function declarations of the Go files (text, as gosource.py reads the types; nothing is
compiled), starts from every function that takes the kind (``func f(x *api.Kind)``), follows the calls it
makes to functions of the repository, and lists the built-in workloads built there (``&appsv1.StatefulSet{
...}``, ``&batchv1.Job{...}``, ``&corev1.Pod{...}``) with the field of the kind their count is read from:
``Replicas: &x.Spec.Size``, ``Parallelism: ptr.To(pool.Servers)``, ``replicas := args.Pool.Servers``,
placed in the kind's object by golocator.py (``args.Pool.Servers``: ``.spec.pools[].servers``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from workload_map.authoring.evidence import Segments
from workload_map.authoring.goaccessors import (
    role_named,
    spec_assigned,
    spec_builder,
    spec_helper,
    without_claimed,
)
from workload_map.authoring.gocode import GoCode, kind_code
from workload_map.authoring.gocomposed import _composes_pod
from workload_map.authoring.gofilled import (
    COUNT_KEYS,
    UNSET_COUNT,
    Presence,
    _expanded,
    _guard_on_the_way,
    _mutated,
    _only_deleted,
    _renamed_copy,
    _returns_workload,
    _set_on_condition,
)
from workload_map.authoring.gofuncs import (
    GoFunc,
    _assigned_at,
    _balanced,
    _Callers,
    _Program,
    _split,
    _statement,
)
from workload_map.authoring.gohanded import handed_counts
from workload_map.authoring.gohandoff import handed_calls, roles_handed
from workload_map.authoring.goholders import receiver_holds_kind
from workload_map.authoring.golocator import _Locator, _names_no_variable
from workload_map.authoring.goowners import BUILTIN_WORKLOADS
from workload_map.authoring.goread import GoFile, GoType, Token, bare_type, go_type_name
from workload_map.authoring.goshells import shell_filled, writes_count

# Apply configurations (``LeaderWorkerSet(name, ns).WithSpec(...)``), by the path of their packages.
APPLY_CONFIGURATIONS = "/applyconfiguration"
BUILTIN_APPLY_CONFIGURATIONS = "k8s.io/client-go/applyconfigurations/"
MAX_CALL_DEPTH = 6


@dataclass
class BuiltChild:
    """One workload literal the operator's code builds for the kind, and where its count comes from."""

    kind: dict[str, str]  # {group, version, kind}
    where: str  # file:line of the literal
    function: str  # the function that builds it
    count: Segments | None = None  # the kind's field the literal's Replicas/Parallelism/Completions read
    count_key: str = ""  # which of them
    chain: list[str] = field(default_factory=list)  # the calls from a function that takes the kind
    composed: bool = False  # its pod template is put together by the code, no field of the kind copied as one
    constant: int | None = None  # its count when the code gives a number, not a field of the kind
    # The kind's switch the code checks before building it (``if x.Spec.Metrics.Enabled {``, or ``if
    # !x.Spec.Gateway.Enabled { return }`` first), in its function or in a caller on the way.
    guard: Segments | None = None
    defaulted: bool = False  # its count is never set: ``constant`` is the workload kind's default
    conditional: bool = False  # its count is set only under an ``if``: built all the same, else by default
    filled: bool = False  # a shell a shared constructor made, its pod composed by the function that creates it
    uncounted: bool = False  # one of the object's workloads all the same, its count not read: drafted as a gap


def _literals(function: GoFunc, foreign: bool = False) -> Iterator[tuple[dict[str, str], int, int]]:
    """Built-in workload literals with fields (``&appsv1.StatefulSet{ObjectMeta: ...}``) and apply
    configurations (``appsv1ac.StatefulSet(name, namespace)``): (kind, start, end). With ``foreign``, also
    those of kinds of other projects (``lws.LeaderWorkerSet{...}``), their kind carrying the ``importPath``
    (the caller knows them only if its catalog does)."""
    body = function.body
    for index in range(len(body) - 3):
        qualifier, dot, name, brace = (t.text for t in body[index : index + 4])
        if dot != "." or brace not in "{(" or (index + 4 < len(body) and body[index + 4].text in "})"):
            continue  # not a literal, or an empty one (``&appsv1.Deployment{}`` to read into)
        imported = function.file.imports.get(qualifier, "")
        applied = APPLY_CONFIGURATIONS in imported
        if (brace == "(") != applied:
            continue  # a call, or an apply configuration's literal (built by its constructor)
        api = imported.replace(BUILTIN_APPLY_CONFIGURATIONS, "k8s.io/api/") if applied else imported
        builtin = BUILTIN_WORKLOADS.get(api)
        if builtin is not None and name in builtin[1]:
            yield {"group": builtin[0], "version": "v1", "kind": name}, index, _balanced(body, index + 3)
        elif builtin is not None and spec_builder(function, qualifier, name, builtin[1]):
            # ``func makeSpec(...) appsv1.StatefulSetSpec { return appsv1.StatefulSetSpec{Replicas: ...} }``: the
            # caller makes a bare workload (a name) and gives it this whole spec; the count and pod are here.
            kind = name.removesuffix("Spec")
            yield {"group": builtin[0], "version": "v1", "kind": kind}, index, _balanced(body, index + 3)
        elif foreign and builtin is None and imported and name[:1].isupper():
            end = _balanced(body, index + 3)
            # An object (its ``ObjectMeta: ...``), or an apply configuration's constructor: not a part of one.
            keys = [body[i].text for i in range(index + 4, end - 1) if body[i + 1].text == ":"]
            if applied or "ObjectMeta" in keys:
                version = api.rstrip("/").rpartition("/")[2]
                yield {"group": "", "version": version, "kind": name, "importPath": api}, index, end


def _count(
    locator: _Locator, function: GoFunc, start: int, end: int, keys: tuple[str, ...] = COUNT_KEYS
) -> tuple[Segments | None, str]:
    """The kind's field the literal's count reads (``Replicas: &x.Spec.Size`` inside it, or
    ``v.Spec.Replicas = ...`` or an apply configuration's ``spec.WithReplicas(...)`` after it in the same
    function)."""
    counts = _counts(locator, function, start, end, keys)
    return counts[0] if counts else (None, "")


def _counts(  # noqa: PLR0917 - the literal and what it is read with, each by name
    locator: _Locator,
    function: GoFunc,
    start: int,
    end: int,
    keys: tuple[str, ...] = COUNT_KEYS,
    interfaces: bool = False,
) -> list[tuple[Segments, str]]:
    """``_count``, with each place the count may be read at when its value's type sits at several places of
    the spec (a builder shared by roles embedding one ``BaseSpec``): one count per role. Through an accessor
    interface only with ``interfaces``: the callers' arguments say the role better, when they can."""
    for value, key in _count_values(function, start, end, keys):
        place = locator.locate(value, function)
        if place is not None and place.via_interface and not interfaces:
            continue
        if place is not None and place.declared is not None and place.declared.underlying == "struct":
            continue  # an object (a method of the spec computing the count from it) is no count
        if place is not None and place.segments and place.segments[0] == "spec":
            return [(place.segments, key)]
        if place is not None and place.segments is None and place.alternatives:
            named = role_named(place.alternatives, _expanded(function, value))
            return [(at, key) for at in named if at and at[0] == "spec"]
    return []


def _count_values(
    function: GoFunc, start: int, end: int, keys: tuple[str, ...] = COUNT_KEYS
) -> Iterator[tuple[list[Token], str]]:
    """The expressions given to the literal's count keys, inside it or after it (``_count``)."""
    body = function.body
    for index in range(start, len(body) - 2):
        key = body[index].text
        inside = index < end and body[index + 1].text == ":"
        after = index >= end and body[index - 1].text == "." and body[index + 1].text == "="
        if key.startswith("With") and body[index - 1].text == "." and body[index + 1].text == "(":
            key, after = key.removeprefix("With"), True
        if key not in keys or not (inside or after):
            continue
        value = _split(_statement(body, index + 2), ",")
        if value:
            yield value[0], key


def _takes(function: GoFunc, locator: _Locator, kind: GoType, bundled: bool = False) -> bool:
    """A function that takes the kind or names its type (a reconcile reading one: ``&api.Kind{}``); with
    ``bundled``, one that takes it in a struct of arguments instead."""
    if bundled:
        return any(_holds_kind(locator, t, function.file, kind) for t in function.params.values())
    for type_expr in function.params.values():
        if bare_type(type_expr)[1] == kind.name and locator.linker.resolve(type_expr, function.file) is kind:
            return True
    body = function.body
    for index in range(2, len(body)):
        if body[index].text == kind.name and body[index - 1].text == ".":
            qualified = f"{body[index - 2].text}.{kind.name}"
            if locator.linker.resolve(qualified, function.file) is kind:
                return True
    # A reconcile fetching the object through a helper of its own (``obj, done, err := r.fetch(ctx, req)``).
    return any(_returns_kind(locator, called, kind) for called, _ in locator.program.call_sites(function))


def _returns_kind(locator: _Locator, function: GoFunc, kind: GoType) -> bool:
    """Whether the function's first result is the kind (``func (r *R) fetch(...) (*api.Kind, bool, error)``)."""
    result = function.result.lstrip("*")
    return bare_type(result)[1] == kind.name and locator.linker.resolve(result, function.file) is kind


def _holds_kind(locator: _Locator, type_expr: str, where: GoFile, kind: GoType) -> bool:
    """A parameter of a struct type of the repository with a field of the kind (the arguments a helper
    takes bundled: ``params manifests.Params`` holding ``OtelCol v1.Collector``)."""
    if not type_expr.lstrip("*")[:1].isalpha() or kind.name in type_expr:
        return False
    declared = locator.linker.resolve(type_expr.lstrip("*"), where)
    if declared is None or declared.underlying != "struct" or declared is kind:
        return False
    return any(
        go_field.names
        and bare_type(go_field.type_expr)[1] == kind.name
        and locator.linker.resolve(go_field.type_expr.lstrip("*"), declared.file) is kind
        for go_field in declared.fields
    )


def _double(function: GoFunc) -> bool:
    """A test double (``mock_utils.go``, ``newFakeRuntime``): it builds objects no controller creates."""
    words = (function.file.path.rpartition("/")[2] + " " + function.name).lower()
    return "mock" in words or "fake" in words


def built_children(root: Path | GoCode, kind: str, version: str, foreign: bool = False) -> list[BuiltChild]:
    """The workloads the Go code under ``root`` builds for ``kind``: from every function taking the kind,
    through the calls to the repository's functions (``MAX_CALL_DEPTH`` deep), each literal once; with
    ``foreign``, objects of other projects' kinds too (``_literals``)."""
    kind = go_type_name(kind)
    code = kind_code(root, kind, version)
    if code is None:
        return []
    program, locator, declared = code
    starts = [f for f in program.mentioning(kind) if not _double(f)]
    queue = [(f, [f.name]) for f in starts if _takes(f, locator, declared)]
    # Those taking the kind inside a struct of arguments start last, where the calls did not reach them.
    # So do the methods of a type holding the kind (a builder called through an interface).
    later = [
        (f, [f.name])
        for f in starts
        if _takes(f, locator, declared, bundled=True) or receiver_holds_kind(locator.linker, f, declared)
    ]
    seen = {id(f) for f, _ in queue}
    visited: list[tuple[GoFunc, list[str]]] = []
    callers: _Callers = {}
    while queue or later:
        if not queue and id(later[0][0]) in seen:
            later.pop(0)
            continue
        function, chain = queue.pop(0) if queue else later.pop(0)
        seen.add(id(function))
        visited.append((function, chain))
        if len(chain) > MAX_CALL_DEPTH:
            continue
        for called, at in program.call_sites(function):
            if _double(called):
                continue
            callers.setdefault(id(called), []).append((function, at))
            if id(called) not in seen:
                seen.add(id(called))
                queue.append((called, [*chain, called.name]))
        for called, handed_to, at in handed_calls(program, locator, function):
            # A builder handed to a helper is called where the helper calls its parameter (gohandoff.py).
            callers.setdefault(id(called), []).append((handed_to, at))
            if id(called) not in seen:
                seen.add(id(called))
                queue.append((called, [*chain, called.name]))
    # The literals once every call is known: a builder shared by several callers counts from each one's field.
    out: list[BuiltChild] = []
    handed: list[BuiltChild] = []  # workload parameters of a helper, written there
    shells: list[BuiltChild] = []  # literals giving no spec (a name, labels): another function fills them in
    fillers: dict[tuple[str, str], bool] = {}  # (file, kind) of a workload filled in with no count: composed
    helped: set[str] = set()  # the spec builders' literals a workload literal calls in place: not workloads
    for function, chain in visited:
        mutated = list(_mutated(function, functools.partial(_returns_workload, locator, function=function)))
        for gvk, start, end in [*_literals(function, foreign), *mutated]:
            where = f"{function.file.path}:{function.body[start].line}"
            if any(child.where == where for child in out):
                continue
            if (gvk, start, end) not in mutated and _only_deleted(function, start, end):
                continue  # named only to be deleted (a workload of an older version): not one it runs
            filled = False
            traced = _counts(locator, function, start, end)
            conditional = _set_on_condition(function, start, end)
            composed = _composes_pod(program, locator, function, gvk["kind"], (start, end), callers)
            helper = spec_helper(program, function, gvk["kind"], (start, end))
            if helper is not None:
                helped.add(f"{helper[0].file.path}:{helper[0].body[helper[1]].line}")
            if helper is not None and not traced:
                traced = _counts(locator, *helper)
                conditional = _set_on_condition(*helper)
                composed = composed or _composes_pod(program, locator, helper[0], gvk["kind"], helper[1:], callers)
            assigned = spec_assigned(function, start, gvk["kind"]) if (gvk, start, end) in mutated else None
            if assigned is not None and not traced:
                # ``obj := app.StatefulSet()`` then ``obj.Spec = appsv1.StatefulSetSpec{Replicas: &p.Size, ...}``.
                traced = _counts(locator, function, *assigned)
                composed = composed or _composes_pod(program, locator, function, gvk["kind"], assigned, callers)
            counts: list[tuple[Segments | None, str]] = [*traced]
            counts = counts or _bound_counts(locator, function, assigned or (start, end), callers)
            counts = counts or [*handed_counts(program, locator, function, (start, end))]
            counts = counts or [*_counts(locator, function, start, end, interfaces=True)]
            fixed = _constant(function, (start, end)) if not counts else None
            if (gvk, start, end) in mutated and not counts:
                # A workload only changed here (scaled to 0, relabelled): no count of the kind's. Unless it is a
                # builder's workload renamed and given a count of its own: a second workload, its pod the
                # builder's.
                fixed = _constant(function, (start, end), anywhere=True) if _renamed_copy(function, start) else None
                filled = fixed is None and gvk["kind"] in UNSET_COUNT and shell_filled(locator, function, start)
                if filled:  # a shared constructor's shell, its pod composed here: a workload of its own
                    unset = (1, None, UNSET_COUNT[gvk["kind"]])
                    composed, fixed = True, None if writes_count(function, start) else unset
                elif fixed is None or fixed[0] <= 0:
                    fillers.setdefault((function.file.path, gvk["kind"]), composed)
                    continue
                composed = composed or _builder_composes(program, locator, function, start, gvk["kind"], callers)
            guard = _guard_on_the_way(locator, function, start, callers)
            # Built behind a switch of the kind, its count never set: the workload's own default, one pod.
            defaulted = (
                guard is not None
                and not counts
                and fixed is None
                and gvk["kind"] in UNSET_COUNT
                # A Job runs by default only where the object asks for it by giving its part (``.spec.restore``);
                # behind a feature's switch it is a step of that feature (an init, a recovery), run on occasion.
                and (gvk["kind"] != "Job" or isinstance(guard, Presence))
                and helper is None
                and not any(_count_values(function, start, end))
            )
            # A shell's count never set is the workload's default, one pod, when a switch of the kind is seen to
            # build it; without one, whether it runs at all is decided where the reader does not see: a gap.
            fixed = None if filled and guard is None else fixed
            defaulted = defaulted or (filled and fixed is not None)
            if defaulted:
                fixed = (1, None, UNSET_COUNT[gvk["kind"]])
            for count, key in counts or [fixed[1:] if fixed is not None else (None, "")]:
                child = BuiltChild(gvk, where, function.name, None if fixed else count, key, chain, composed)
                child.constant = fixed[0] if fixed is not None else None
                child.guard = guard
                child.defaulted = defaulted
                child.conditional = conditional
                child.filled = filled
                child.uncounted = filled and fixed is None
                out.append(child)
                if defaulted and (gvk, start, end) not in mutated and not _gives_spec(function, start, end):
                    shells.append(child)
                if (gvk, start, end) in mutated and start == end:  # a parameter written, not a local made
                    handed.append(child)
    # A helper handed a workload (``func addCommon(dst *appsv1.Deployment, p *api.Common)``), counted through
    # its callers, stands for the literals it is handed: where such a literal is counted by the same field,
    # the literal is the workload.
    literal_counts = {c.count for c in out if c not in handed and c.count is not None}
    out = [c for c in out if (c not in handed or c.count not in literal_counts) and c.where not in helped]
    out = roles_handed(program, [f for f, _ in visited], out)
    return _shells_filled(without_claimed(out), shells, fillers)


def _gives_spec(function: GoFunc, start: int, end: int) -> bool:
    """Whether the literal from ``start`` to ``end`` gives a ``Spec`` (at its own level, not a nested one)."""
    body, depth = function.body, 0
    for index in range(start + 3, end):
        text = body[index].text
        depth += text in "([{"
        depth -= text in ")]}"
        if depth == 1 and text == "Spec" and body[index + 1].text == ":":
            return True
    return False


def _shells_filled(
    out: list[BuiltChild], shells: list[BuiltChild], fillers: dict[tuple[str, str], bool]
) -> list[BuiltChild]:
    """A builder type's object made bare (``Build()`` gives its name) and filled in by another method of the
    same file (``Update(obj)`` writes its spec) is one workload: the filled one when its count is read, else the
    bare one, the workload kind's default count, its pod composed when the filling composes it."""
    kept: list[BuiltChild] = []
    for child in out:
        if child in shells:
            file = child.where.rpartition(":")[0]
            if any(o.kind == child.kind and o.where.rpartition(":")[0] == file for o in out if o not in shells):
                continue  # the filled one counts it
            child.composed = child.composed or fillers.get((file, child.kind["kind"]), False)
        kept.append(child)
    return kept


def _builder_composes(  # noqa: PLR0917 - the copy and what it is read with, each by name at its one call
    program: _Program, locator: _Locator, function: GoFunc, start: int, kind: str, callers: _Callers
) -> bool:
    """Whether the function of the repository whose workload is assigned at ``start`` (``d := build(x)``)
    composes that workload's pod: a copy of it has the same pod."""
    call = [t.text for t in _statement(function.body, start + 3)]
    callee = call[call.index("(") - 1] if "(" in call and call.index("(") > 0 else ""
    for builder in (c for c in program.calls(function) if c.name == callee):
        for gvk, begin, end in _literals(builder):
            if gvk["kind"] == kind and _composes_pod(program, locator, builder, kind, (begin, end), callers):
                return True
    return False


def _constant(function: GoFunc, span: tuple[int, int], anywhere: bool = False) -> tuple[int, None, str] | None:
    """A count the code gives as a number (``Replicas: ptr.To(int32(1))``, ``replicas := int32(1)`` then
    ``Replicas: &replicas``): (the number, None, its key). With ``anywhere``, the local may be given its number
    after the workload is made (a copy of a builder's workload, its count set after)."""
    body = function.body
    for value, key in _count_values(function, *span):
        texts = [t.text for t in value if t.text not in ("\n", "&", "*")]
        if len(texts) == 1 and texts[0].isidentifier():
            assigned = _assigned_at(body[: span[0]] if not anywhere else body, texts[0])
            texts = [t.text for t in _statement(body, assigned)] if assigned is not None else []
        numbers = [t for t in texts if t.isdigit()]
        if len(numbers) == 1 and _names_no_variable(texts):
            return int(numbers[0]), None, key
    return None


def _bound_counts(
    locator: _Locator, function: GoFunc, span: tuple[int, int], callers: _Callers
) -> list[tuple[Segments | None, str]]:
    """A count read from a parameter of the function building the literal (``Replicas: replicas``,
    ``Replicas: spec.GetReplicas()``): the kind's field the argument given for it reads, at each call of
    the function (a builder shared by several sub-controllers counts one workload per caller)."""
    out: list[tuple[Segments | None, str]] = []
    for value, key in _count_values(function, *span):
        for segments in _through_callers(locator, function, _expanded(function, value), callers, 0):
            if (segments, key) not in out:
                out.append((segments, key))
        if out:
            break
    return out


def _through_callers(
    locator: _Locator, function: GoFunc, value: list[Token], callers: _Callers, depth: int
) -> list[Segments]:
    """The kind's fields ``value``, read in ``function``, reads at each of its calls: the parameters it
    names replaced by the arguments given there (callers of callers, a few levels up)."""
    positional = [name for name in function.params if name != function.receiver_var]
    used = {t.text for i, t in enumerate(value) if t.text in positional and (i == 0 or value[i - 1].text != ".")}
    if not used or depth > 2:
        return []
    out: list[Segments] = []
    for caller, at in callers.get(id(function), []):
        body = caller.body
        if at + 1 >= len(body) or body[at + 1].text != "(":
            continue
        close = _balanced(body, at + 1)
        arguments = _split([t for t in body[at + 2 : close - 1] if t.text != "\n"], ",")
        if len(arguments) != len(positional):
            continue  # an unnamed parameter or a variadic call: the arguments do not line up
        given = dict(zip(positional, arguments, strict=True))
        substituted: list[Token] = []
        for index, token in enumerate(value):
            bound = token.text in used and (index == 0 or value[index - 1].text != ".")
            substituted += given[token.text] if bound else [token]
        place = locator.locate(substituted, caller)
        if place is not None and place.segments and place.segments[0] == "spec":
            found = [place.segments]
        else:
            found = _through_callers(locator, caller, substituted, callers, depth + 1)
        out += [segments for segments in found if segments not in out]
    return out
