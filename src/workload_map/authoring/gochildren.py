"""The pod-making children an operator's Go code builds for a kind (``wmap definitions new --api-source DIR``).

A controller seldom builds its StatefulSet or Job where it reconciles: a helper does (``NewPool(args)``,
``deploymentForRuntime(rt)``), often in another package of the repository, reached through a few calls. This
module reads the function declarations of the Go files (text, as gosource.py reads the types; nothing is
compiled), starts from every function that takes the kind (``func f(x *api.Kind)``), follows the calls it
makes to functions of the repository, and lists the built-in workloads built there (``&appsv1.StatefulSet{
...}``, ``&batchv1.Job{...}``, ``&corev1.Pod{...}``) with the field of the kind their count is read from:
``Replicas: &x.Spec.Size``, ``Parallelism: ptr.To(pool.Servers)``, ``replicas := args.Pool.Servers``. Go
names are turned into the object's paths by the json tags of the API types; a value of an API type that is
not the kind itself (``pool *api.Pool``) is placed where the kind's spec holds that type (``.spec.pools[]``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from workload_map.authoring.evidence import ARRAY, MAP, Segments
from workload_map.authoring.gocomposed import _composes_pod
from workload_map.authoring.gofilled import (
    COUNT_KEYS,
    UNSET_COUNT,
    _expanded,
    _guard_on_the_way,
    _mutated,
    _renamed_copy,
    _returns_workload,
    _set_on_condition,
)
from workload_map.authoring.gofuncs import (
    GoFunc,
    _assigned_at,
    _balanced,
    _Callers,
    _Parsed,
    _Program,
    _split,
    _statement,
)
from workload_map.authoring.gohanded import handed_counts
from workload_map.authoring.goholders import receiver_holds_kind
from workload_map.authoring.goowners import BUILTIN_WORKLOADS
from workload_map.authoring.goread import GoFile, GoType, Package, Token, bare_type, go_type_name
from workload_map.authoring.gosource import ApiValues, _find_kind, _Linker

# Apply configurations (``LeaderWorkerSet(name, ns).WithSpec(...)``), by the path of their packages.
APPLY_CONFIGURATIONS = "/applyconfiguration"
BUILTIN_APPLY_CONFIGURATIONS = "k8s.io/client-go/applyconfigurations/"
MAX_CALL_DEPTH = 6
DEEP_COPY = "DeepCopy"


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


@dataclass
class _Place:
    """Where a Go value sits in the kind's object (``segments``, None: not in it) and its declared type."""

    segments: Segments | None
    declared: GoType | None
    is_list: bool = False
    item: str = ARRAY  # what one item of it is, when it is a list (ARRAY) or a map (MAP)
    # The places it may be when its type sits at several places of the spec (a ``BaseSpec`` every role of the
    # spec embeds, handed to one builder shared by the roles): each is read as one workload's.
    alternatives: tuple[Segments, ...] = ()


def _collection(type_expr: str) -> tuple[str, str | None]:
    """The item type of a list or map type and its path segment (``[]Row``: Row, ARRAY; ``map[string]Node``:
    Node, MAP), else the type itself and None."""
    bare = type_expr.lstrip("*")
    if bare.startswith("[]"):
        return bare[2:].lstrip("*"), ARRAY
    if bare.startswith("map[") and "]" in bare:
        return bare.partition("]")[2].lstrip("*"), MAP
    return bare, None


class _Locator:
    """Go expressions to the kind's paths: variables by their parameter types and assignments, fields by the
    json tags of the structs they select."""

    def __init__(self, program: _Program, kind: GoType) -> None:
        self.program = program
        self.package = program.package
        self.kind = kind
        self.linker = _Linker(self.package, ApiValues())
        self.by_type: dict[int, list[tuple[Segments, str | None]]] = {}

    def type_place(self, type_expr: str, where: GoFile, segments: Segments | None) -> _Place:
        inner, marker = _collection(type_expr)
        declared = self.linker.resolve(inner, where)
        if declared is self.kind:
            return _Place((), declared)
        if segments is None and declared is not None:
            placed = [(*at, marker) if marker else at for at, marker in self.placed(declared)]
            if len(placed) == 1:  # one item of the list or map the spec holds, or the one field of its type
                return _Place(placed[0], declared)
            if placed:
                return _Place(None, declared, alternatives=tuple(placed))
        return _Place(segments, declared, marker is not None, marker or ARRAY)

    def placed(self, declared: GoType) -> list[tuple[Segments, str | None]]:
        """The places in the kind's spec whose type is ``declared`` (with ARRAY or MAP when one holds a list
        or map of it), a struct embedding it inline counting as one."""
        if id(declared) not in self.by_type:
            found: list[tuple[Segments, str | None]] = []
            for segments, go_field, owner in self.linker.walk(self.kind, (), set()):
                inner, marker = _collection(go_field.type_expr)
                if segments[0] != "spec":
                    continue
                resolved = self.linker.resolve(inner, owner.file)
                if resolved is declared or (resolved is not None and self.embeds(resolved, declared)):
                    found.append((segments, marker))
            self.by_type[id(declared)] = found
        return self.by_type[id(declared)]

    def embeds(self, holder: GoType, declared: GoType) -> bool:
        """Whether the struct ``holder`` embeds ``declared`` inline (``BaseSpec `json:",inline"```)."""
        return holder.underlying == "struct" and any(
            not f.names and not f.json and self.linker.resolve(f.type_expr.lstrip("*"), holder.file) is declared
            for f in holder.fields
        )

    def select(self, place: _Place, name: str) -> _Place | None:
        """The field ``name`` (its Go name) of the struct at ``place``, read at each of its alternatives."""
        found = self.select_one(place, name)
        if found is None or not place.alternatives:
            return found
        others = (self.select_one(_Place(at, place.declared), name) for at in place.alternatives)
        found.alternatives = tuple(o.segments for o in others if o is not None and o.segments is not None)
        return found

    def select_one(self, place: _Place, name: str, depth: int = 0) -> _Place | None:
        """The field ``name`` (its Go name) of the struct at ``place``, embedded structs searched too (a few
        levels: a struct may embed itself through others)."""
        if place.declared is None or place.declared.underlying != "struct" or place.is_list or depth > 4:
            return None
        for go_field in place.declared.fields:
            if name in go_field.names:
                segments = None
                if place.segments is not None and go_field.json not in (None, "-"):
                    segments = (*place.segments, str(go_field.json))
                return self.type_place(go_field.type_expr, place.declared.file, segments)
        for go_field in place.declared.fields:
            if not go_field.names and bare_type(go_field.type_expr)[1] == name:  # an embedded struct, by its type
                segments = place.segments
                if segments is not None and go_field.json:
                    segments = (*segments, go_field.json)
                return self.type_place(go_field.type_expr, place.declared.file, segments)
        for go_field in place.declared.fields:
            if not go_field.names:
                # Inline unless its json tag names it (``Common `json:"common"```: one level down).
                segments = place.segments
                if segments is not None and go_field.json:
                    segments = (*segments, go_field.json)
                inner = self.type_place(go_field.type_expr, place.declared.file, segments)
                found = self.select_one(_Place(segments, inner.declared), name, depth + 1)
                if found is not None:
                    return found
        return None

    def locate(self, tokens: list[Token], function: GoFunc, depth: int = 0) -> _Place | None:
        """The place of an expression: a selector chain (``args.Pool.Servers``), behind ``&``/``*``, the one
        argument of a call (``ptr.To(x)``, ``int32(x)``), or what a method of an API type called without
        arguments returns (``t.SpareReplicas()``)."""
        texts = [t.text for t in tokens if t.text != "\n"]
        while texts and texts[0] in ("&", "*"):
            texts = texts[1:]
        if depth > 8 or not texts:
            return None
        selected = _selected_from_call(texts)
        if selected is not None:
            # ``ptr.Deref(x.Spec.Metrics, Metrics{}).Enabled``: a field of what the call gives.
            tokens = [t for t in tokens if t.text != "\n"]
            place = self.locate(tokens[len(tokens) - len(texts) : len(tokens) - len(selected)], function, depth + 1)
            for name in selected[1::2]:
                place = self.select(place, name) if place is not None else None
            return place
        if texts[-1] == ")" and "(" in texts:
            opening = texts.index("(")
            inner = [t for t in tokens if t.text != "\n"]
            inner = inner[len(inner) - len(texts) + opening + 1 : -1]
            callee = texts[:opening]
            if not all(t.isidentifier() if i % 2 == 0 else t == "." for i, t in enumerate(callee)):
                return None
            if len(_split(inner, ",")) == 1:
                place = self.locate(inner, function, depth + 1)
                if place is not None and place.segments is not None and len(place.segments) >= 2:
                    return place
                # Not a field passed through (``ptr.To(x)``): a helper of the repository computing it from the
                # kind (``desiredReplicas(x)``) gives the field its last return reads.
                return self.helper_returns(callee, function, depth) or place or self.result_place(callee, function)
            if not inner and len(callee) >= 3:
                return self.returned(callee[:-2], callee[-1], function, depth)
            return self.chosen(_split(inner, ","), function, depth) or self.result_place(callee, function)
        if not all(t.isidentifier() if i % 2 == 0 else t == "." for i, t in enumerate(texts)) or len(texts) % 2 == 0:
            return None
        place = self.variable(texts[0], function, depth)
        for name in texts[2::2]:
            if place is None:
                return None
            place = self.select(place, name)
        return place

    def chosen(self, arguments: list[list[Token]], function: GoFunc, depth: int) -> _Place | None:
        """The one argument of a call of several that is a field of the kind, the others constants or tests
        of it: a helper picking between a field and a default (``lo.Ternary(r == nil, one, r)``,
        ``max(x.Spec.Size, 1)``); not a helper computing from several values (``count(p, row.Name)``)."""
        found = [
            (index, place)
            for index, argument in enumerate(arguments)
            if (place := self.locate(argument, function, depth + 1)) is not None
            and place.segments is not None
            and len(place.segments) >= 2
        ]
        if len(found) != 1:
            return None
        index, place = found[0]
        field = " ".join(t.text for t in arguments[index] if t.text != "\n")
        others = [a for i, a in enumerate(arguments) if i != index]
        return place if all(_constant_or_test_of(other, field) for other in others) else None

    def callees(self, callee: list[str], function: GoFunc) -> list[GoFunc]:
        """The repository's functions a call names: a plain function of the folder, a method of the caller's
        own receiver (``c.instances(spec)``), a function of the folder an import names (``pkg.F``)."""
        receiver = ""
        if len(callee) == 1:
            directory: str | None = function.file.directory
        elif len(callee) == 3 and function.receiver_var and callee[0] == function.receiver_var:
            directory, receiver = function.file.directory, function.receiver
        elif len(callee) == 3 and callee[0] in function.file.imports:
            folders = self.package.folders_of(function.file.imports[callee[0]])
            directory = folders[0] if folders else None
        else:
            return []
        found = self.program.folder(directory).get(callee[-1], []) if directory is not None else []
        return [c for c in found if c.receiver == receiver]

    def result_place(self, callee: list[str], function: GoFunc) -> _Place | None:
        """Where a value a function of the repository returns sits, by its declared result type: a helper
        picking a role's spec by a parameter (``spec := specOf(x, role)`` returning ``*api.BaseSpec``) gives
        a value of that type, at the one place of the spec that holds it, or at each of several."""
        for candidate in self.callees(callee, function):
            if candidate.result and candidate.result.lstrip("*")[:1] not in ("", "["):
                place = self.type_place(candidate.result, candidate.file, None)
                if place.segments is not None or place.alternatives:
                    return place
        return None

    def helper_returns(self, callee: list[str], function: GoFunc, depth: int) -> _Place | None:
        """The field of the kind a function of the repository returns on its last ``return`` (its
        fall-through path, after the special cases): a plain function, or a method of the caller's own
        receiver (``c.instances(spec)``)."""
        for candidate in self.callees(callee, function):
            returns = [i for i, t in enumerate(candidate.body) if t.text == "return"]
            if not returns:
                continue
            found = self.locate(_statement(candidate.body, returns[-1] + 1), candidate, depth + 1)
            if found is not None and found.segments is not None and len(found.segments) >= 2:
                return found
        return None

    def returned(self, receiver: list[str], method: str, function: GoFunc, depth: int) -> _Place | None:
        """What ``receiver.method()`` returns, when the receiver is a struct of the source and the method's
        ``return`` reads a field (directly or through a local it assigns)."""
        place = self.locate([Token(t, 0) for t in receiver], function, depth + 1)
        return self.method_returns(place, method, depth) if place is not None else None

    def method_returns(self, place: _Place, method: str, depth: int) -> _Place | None:
        """What the method of the struct at ``place`` returns; a method of a struct it embeds (promoted to
        it) when it declares none of that name."""
        if place.declared is None or depth > 8:
            return None
        if method == DEEP_COPY:  # deepcopy-gen's copy of the value: the same fields at the same place
            return place
        declared = place.declared
        candidates = [
            c for c in self.program.folder(declared.file.directory).get(method, []) if c.receiver == declared.name
        ]
        for candidate in candidates:
            body = candidate.body
            returns = [_statement(body, i + 1) for i, t in enumerate(body) if t.text == "return"]
            for value in returns:  # the receiver's own field first: where this object sits, not any of its type
                found = self.on_receiver(place, candidate, value, depth)
                if found is not None and found.segments is not None:
                    return found
            for value in returns:
                found = self.locate(value, candidate, depth + 1)
                if found is not None:
                    return found
        if candidates or declared.underlying != "struct":
            return None
        for go_field in declared.fields:
            if not go_field.names:
                inner = self.select(place, bare_type(go_field.type_expr)[1])
                found = self.method_returns(inner, method, depth + 1) if inner is not None else None
                if found is not None:
                    return found
        return None

    def on_receiver(self, place: _Place, method: GoFunc, value: list[Token], depth: int) -> _Place | None:
        """A method's returned selector of its receiver (``spec.Replicas``), or a method of one
        (``spec.Inner.GetReplicas()``), read from ``place``, the receiver's place in the kind."""
        texts = [t.text for t in value if t.text not in ("\n", "&", "*")]
        call = texts[-2:] == ["(", ")"]
        names = texts[:-2] if call else texts
        if not names or names[0] != method.receiver_var or len(names) % 2 == 0:
            return None
        if not all(t.isidentifier() if i % 2 == 0 else t == "." for i, t in enumerate(names)):
            return None
        selectors = names[2::2]
        current: _Place | None = place
        for name in selectors[:-1] if call else selectors:
            current = self.select(current, name) if current is not None else None
        if call and current is not None and selectors:
            return self.method_returns(current, selectors[-1], depth + 1)
        return current

    def variable(self, name: str, function: GoFunc, depth: int) -> _Place | None:
        if name in function.params:
            return self.type_place(function.params[name], function.file, None)
        assigned = _assignment(function.body, name)
        if assigned is None:
            return None
        value, ranged = assigned
        place = self.locate(value, function, depth + 1)
        if not ranged or place is None:
            return place
        if not place.is_list or place.segments is None:
            return None
        return _Place((*place.segments, place.item), place.declared)


def _selected_from_call(texts: list[str]) -> list[str] | None:
    """The selectors after a call an expression ends with (``.Enabled`` of ``f(x).Enabled``), else None."""
    if ")" not in texts or texts[-1] == ")":
        return None
    closing = len(texts) - 1 - texts[::-1].index(")")
    after = texts[closing + 1 :]
    chain = all(t == "." if i % 2 == 0 else t.isidentifier() for i, t in enumerate(after))
    return after if after and len(after) % 2 == 0 and chain else None


def _constant_or_test_of(tokens: list[Token], field: str) -> bool:
    """An expression naming no variable (``ptr.To(int32(1))``, ``3``), or one testing ``field`` (``r == nil``)."""
    texts = [t.text for t in tokens if t.text != "\n"]
    return f" {field} " in f" {' '.join(texts)} " or _names_no_variable(texts)


def _names_no_variable(texts: list[str]) -> bool:
    """Tokens naming no variable: only calls, qualifiers and constants (``ptr.To(int32(1))``, ``3``)."""
    return not any(
        text.isidentifier()
        and text not in ("nil", "true", "false")
        and not (index + 1 < len(texts) and texts[index + 1] in ("(", ".", "{"))
        and not (index > 0 and texts[index - 1] == ".")
        for index, text in enumerate(texts)
    )


def _assignment(body: list[Token], name: str) -> tuple[list[Token], bool] | None:
    """The expression a local variable is first given (``v := x``, ``var v = x``, ``for _, v := range x``);
    True when it ranges over it."""
    for index, token in enumerate(body):
        if token.text != name or index + 1 >= len(body):
            continue
        following = [t.text for t in body[index + 1 : index + 3]]
        if following == [":", "="]:
            start = index + 3
        elif following[:1] == ["="] and following[1:] != ["="]:
            start = index + 2
        else:
            continue  # not an assignment (``k, v := range x`` gives the key here; ``v == x`` compares)
        line = _statement(body, start)
        texts = [t.text for t in line]
        if texts[:1] == ["range"]:
            return line[1:], True
        return line, False
    return None


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


def _counts(
    locator: _Locator, function: GoFunc, start: int, end: int, keys: tuple[str, ...] = COUNT_KEYS
) -> list[tuple[Segments, str]]:
    """``_count``, with each place the count may be read at when its value's type sits at several places of
    the spec (a builder shared by roles embedding one ``BaseSpec``): one count per role."""
    for value, key in _count_values(function, start, end, keys):
        place = locator.locate(value, function)
        if place is not None and place.declared is not None and place.declared.underlying == "struct":
            continue  # an object (a method of the spec computing the count from it) is no count
        if place is not None and place.segments and place.segments[0] == "spec":
            return [(place.segments, key)]
        if place is not None and place.segments is None and place.alternatives:
            return [(at, key) for at in place.alternatives if at and at[0] == "spec"]
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
    return False


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


class GoCode:
    """The operator's Go code under ``root`` as the readers of one draft share it: each kind's folders
    loaded and its type found once (by kind and version), each file's functions read once. Each reader
    still gets a program and a locator of its own: the folders one loads as it goes are read the same
    for any (a folder's types whenever loaded), and the functions one takes count against its own
    MAX_FUNCTIONS, so no reader finds more or less for another having run first."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.parsed: _Parsed = {}
        self.kinds: dict[tuple[str, str], tuple[Package, GoType | None]] = {}

    def kind_code(self, go_kind: str, version: str) -> tuple[_Program, _Locator, GoType] | None:
        """The kind's code, every Go reader's start: its folders loaded, their functions, its locator and
        type."""
        if (go_kind, version) not in self.kinds:
            package = Package(self.root)
            for directory in package.folders_declaring(go_kind):
                package.load(directory)
            self.kinds[go_kind, version] = (package, _find_kind(package, go_kind, version)[0])
        package, declared = self.kinds[go_kind, version]
        if declared is None:
            return None
        program = _Program(package, self.parsed)
        return program, _Locator(program, declared), declared


def go_code(root: Path | GoCode) -> GoCode:
    """The code under a root, read afresh; or the code a draft shares, as given."""
    return root if isinstance(root, GoCode) else GoCode(root)


def kind_code(root: Path | GoCode, go_kind: str, version: str) -> tuple[_Program, _Locator, GoType] | None:
    """The kind's code (``GoCode.kind_code``), of the code a draft shares or of a root read afresh."""
    return go_code(root).kind_code(go_kind, version)


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
    # The literals once every call is known: a builder shared by several callers counts from each one's field.
    out: list[BuiltChild] = []
    handed: list[BuiltChild] = []  # workload parameters of a helper, written there
    shells: list[BuiltChild] = []  # literals giving no spec (a name, labels): another function fills them in
    fillers: dict[tuple[str, str], bool] = {}  # (file, kind) of a workload filled in with no count: composed
    for function, chain in visited:
        mutated = list(_mutated(function, functools.partial(_returns_workload, locator, function=function)))
        for gvk, start, end in [*_literals(function, foreign), *mutated]:
            where = f"{function.file.path}:{function.body[start].line}"
            if any(child.where == where for child in out):
                continue
            traced = _counts(locator, function, start, end)
            conditional = _set_on_condition(function, start, end)
            composed = _composes_pod(program, locator, function, gvk["kind"], (start, end), callers)
            helper = _spec_helper(program, function, gvk["kind"], (start, end))
            if helper is not None and not traced:
                traced = _counts(locator, *helper)
                conditional = _set_on_condition(*helper)
                composed = composed or _composes_pod(program, locator, helper[0], gvk["kind"], helper[1:], callers)
            assigned = _spec_assigned(function, start, gvk["kind"]) if (gvk, start, end) in mutated else None
            if assigned is not None and not traced:
                # ``obj := app.StatefulSet()`` then ``obj.Spec = appsv1.StatefulSetSpec{Replicas: &p.Size, ...}``.
                traced = _counts(locator, function, *assigned)
                composed = composed or _composes_pod(program, locator, function, gvk["kind"], assigned, callers)
            counts: list[tuple[Segments | None, str]] = [*traced]
            counts = counts or _bound_counts(locator, function, assigned or (start, end), callers)
            counts = counts or [*handed_counts(program, locator, function, (start, end))]
            fixed = _constant(function, (start, end)) if not counts else None
            if (gvk, start, end) in mutated and not counts:
                # A workload only changed here (scaled to 0, relabelled): no count of the kind's. Unless it is a
                # builder's workload renamed and given a count of its own: a second workload, its pod the
                # builder's.
                fixed = _constant(function, (start, end), anywhere=True) if _renamed_copy(function, start) else None
                if fixed is None or fixed[0] <= 0:
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
                and helper is None
                and not any(_count_values(function, start, end))
            )
            if defaulted:
                fixed = (1, None, UNSET_COUNT[gvk["kind"]])
            for count, key in counts or [fixed[1:] if fixed is not None else (None, "")]:
                child = BuiltChild(gvk, where, function.name, None if fixed else count, key, chain, composed)
                child.constant = fixed[0] if fixed is not None else None
                child.guard = guard
                child.defaulted = defaulted
                child.conditional = conditional
                out.append(child)
                if defaulted and (gvk, start, end) not in mutated and not _gives_spec(function, start, end):
                    shells.append(child)
                if (gvk, start, end) in mutated and start == end:  # a parameter written, not a local made
                    handed.append(child)
    # A helper handed a workload (``func addCommon(dst *appsv1.Deployment, p *api.Common)``), counted through
    # its callers, stands for the literals it is handed: where such a literal is counted by the same field,
    # the literal is the workload.
    literal_counts = {c.count for c in out if c not in handed and c.count is not None}
    out = [c for c in out if c not in handed or c.count not in literal_counts]
    return _shells_filled(out, shells, fillers)


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


def _spec_assigned(function: GoFunc, start: int, kind: str) -> tuple[int, int] | None:
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


def _spec_helper(
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
