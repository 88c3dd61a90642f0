"""Go expressions of an operator's code to the paths of its kind's object (``--api-source``).

``args.Pool.Servers`` is ``.spec.pools[].servers``: a variable is placed by the type of the parameter it is
(or the expression it is assigned), a field by the json tag of the struct it selects, a call by the field it
passes through or a helper of the repository returns; a value of an API type that is not the kind itself
(``pool *api.Pool``) is placed where the kind's spec holds that type. Every Go reader places what it finds
with a ``_Locator`` (gocode.py makes one per reader).
"""

from __future__ import annotations

from dataclasses import dataclass

from workload_map.authoring.evidence import ARRAY, MAP, Segments
from workload_map.authoring.goaccessors import implementations, interface_methods, last_call_opening
from workload_map.authoring.gofuncs import GoFunc, _first_of_results, _Program, _split, _statement
from workload_map.authoring.goread import GoFile, GoType, Token, bare_type
from workload_map.authoring.gosource import ApiValues, _Linker

DEEP_COPY = "DeepCopy"


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
    via_interface: bool = False  # read through an accessor interface: any role's, unless a caller says which


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
            if (last := last_call_opening(texts)) != opening:
                # A chain of calls (``c.Spec().Replicas()``): the last method, on what the calls before give.
                chained = last >= 3 and last == len(texts) - 2 and texts[last - 2] == "."
                return self.returned(texts[: last - 2], texts[last - 1], function, depth) if chained else None
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
            and ((place.segments is not None and len(place.segments) >= 2) or place.alternatives)
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
        folder = self.program.folder(declared.file.directory)
        candidates = [c for c in folder.get(method, []) if c.receiver == declared.name]
        if not candidates and interface_methods(declared) is not None:
            return self.through_interface(implementations(self.package, folder, declared, method), depth)
        for candidate in candidates:
            result = self.linker.resolve(candidate.result.lstrip("*"), candidate.file) if candidate.result else None
            if result is not None and interface_methods(result) is not None:
                return _Place(None, result)  # an accessor interface: what it reads, its methods say
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

    def through_interface(self, methods: list[GoFunc], depth: int) -> _Place | None:
        """What a method of an interface returns: its implementations' returns read on their receivers (of no
        known place: a wrapper of a part of the spec), all the places they give as alternatives."""
        found: list[Segments] = []
        for method in methods:
            receiver = self.linker.resolve(method.receiver, method.file)
            result = self.linker.resolve(method.result.lstrip("*"), method.file) if method.result else None
            if result is not None and interface_methods(result) is not None:
                return _Place(None, result)
            for value in (_statement(method.body, i + 1) for i, t in enumerate(method.body) if t.text == "return"):
                place = self.on_receiver(_Place(None, receiver), method, value, depth)
                place = place if place is not None and place.alternatives else self.locate(value, method, depth + 1)
                at = [place.segments] if place is not None and place.segments else []
                found += [a for a in [*at, *(place.alternatives if place is not None else ())] if a not in found]
        if not found:
            return None
        if len(found) == 1:
            return _Place(found[0], None, via_interface=True)
        return _Place(None, None, alternatives=tuple(found), via_interface=True)

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
        start: int | None = None
        if following == [":", "="]:
            start = index + 3
        elif following[:1] == ["="] and following[1:] != ["="]:
            start = index + 2
        elif following[:1] == [","]:
            # ``obj, done, err := r.fetch(ctx, req)``: the object a helper fetches, its first result.
            start = _first_of_results(body, index)
        if start is None:
            continue  # not an assignment (``k, v := range x`` gives the key here; ``v == x`` compares)
        line = _statement(body, start)
        texts = [t.text for t in line]
        if texts[:1] == ["range"]:
            return line[1:], True
        return line, False
    return None
