"""Counts the operator's own code gives when the object leaves them unset (``--api-source``).

A CRD often declares no default for a count the operator fills in itself: a mutating webhook's ``Default()``,
a ``SetDefaults``/``Validate()`` of the API types run before the objects are built, or the reconciler, each
writes ``if x.Spec.Redis.Replicas <= 0 { x.Spec.Redis.Replicas = defaultRedisNumber }`` or ``if
s.Replicas == nil { s.Replicas = ptr.To[int32](3) }``. The workloads then run with that number, not with
the 1 a draft assumes. The same code fills whole objects the schema leaves optional (``if c.Spec.Services
== nil { c.Spec.Services = new(ServicesSpec) }``), so a count inside one runs even when the object omits
it. A Go struct field that is no pointer (``Redis RedisSettings``) is never missing for the operator either:
its zero value is there.

This module reads those defaults (a number, or an object filled in whole) by the kind's paths, and
``fill_schema`` writes them into the schema read (copied: not the CRD given) as if the CRD declared them, so
every count read after it (roles.py, children.py, gochain.py) uses them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workload_map.authoring.evidence import ARRAY, FILLED_BY, MAP, Segments
from workload_map.authoring.gocode import GoCode, kind_code
from workload_map.authoring.gofuncs import GoFunc, _assigned_at, _balanced, _Program, _split, _statement, headed_blocks
from workload_map.authoring.golocator import _collection, _Locator
from workload_map.authoring.gomodes import _left, _located
from workload_map.authoring.goread import Token, go_type_name, tokens as go_tokens
from workload_map.authoring.schemafacts import Field, SchemaFacts, Site, _node_at

# ``x == nil``, ``x == 0``, ``x <= 0``, ``x < 1``: the tests for a count the object left unset (a number
# field's unset is its zero).
UNSET_TEST = re.compile(r"^\*?(?P<x>[A-Za-z_][\w.]*)(?:==nil|==0|<=0|<1)$")
NUMBER_TYPES = frozenset({"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"})
FILLED_OBJECT = "object"  # the code fills a missing object in whole (``new(T)``, ``&T{}``)


@dataclass(frozen=True)
class Filled:
    """A value the operator's code gives a field of the kind when the object leaves it unset."""

    value: int | str  # a number, or FILLED_OBJECT
    where: str  # file:line of the assignment, or of the Go field whose zero value it is
    zero: bool = False  # no code fills it: the Go zero value of a field that is no pointer

    @property
    def said(self) -> str:
        """Who gives the value, for the notes."""
        if self.zero:
            return f"the Go zero value: {self.where} is no pointer and nothing in the code defaults it"
        return f"the operator's default, {self.where}"


def code_defaults(root: Path | GoCode, kind: str, version: str) -> dict[Segments, Filled]:
    """The kind's spec fields the Go code under ``root`` fills in when unset, by path. A field given two
    different numbers (by mode, by version) is left out: which one applies is not known here."""
    code = kind_code(root, go_type_name(kind), version)
    if code is None:
        return {}
    program, locator, _ = code
    found: dict[Segments, Filled] = {}
    disputed: set[Segments] = set()
    for function in program.mentioning(go_type_name(kind)):
        if "generated" in function.file.path.rpartition("/")[2]:
            continue  # generated code (a protobuf Unmarshal making what it decodes into) defaults nothing
        for segments, filled in [*_filled_in(program, locator, function), *_floored(program, locator, function)]:
            known = found.setdefault(segments, filled)
            if known.value != filled.value:
                disputed.add(segments)
    for segments, value, where in _zero_values(locator):
        found.setdefault(segments, Filled(value, where, zero=True))
    return {segments: filled for segments, filled in found.items() if segments not in disputed}


def _filled_in(program: _Program, locator: _Locator, function: GoFunc) -> list[tuple[Segments, Filled]]:
    """``if X == nil { X = value }`` (or ``X == 0``, ``X <= 0``) in the function, X a field of the kind's spec;
    ``if X == nil { return value }`` in a getter of X."""
    body = function.body
    out: list[tuple[Segments, Filled]] = []
    for condition, opening in headed_blocks(body, "if"):
        match = UNSET_TEST.match("".join(t.text for t in condition if t.text != "\n"))
        if match is None:
            continue
        tested = match.group("x")
        segments = _located(locator, function, tested)
        if segments is None or len(segments) < 2 or segments[0] != "spec":
            continue
        first = next((i for i in range(opening + 1, len(body)) if body[i].text != "\n"), len(body))
        if body[first].text == "return" and _getter_of(locator, function, segments):
            value = _value(program, function, (_split(_statement(body, first + 1), ",") or [[]])[0])
            if isinstance(value, int):
                out.append((segments, Filled(value, f"{function.file.path}:{body[first].line}")))
            continue
        for at in range(opening + 1, _balanced(body, opening) - 1):
            comparing = body[at + 1].text == "=" or body[at - 1].text in ("=", "!", "<", ">", ":")
            if body[at].text != "=" or comparing:
                continue
            target = "".join(t.text for t in _left(body, opening + 1, at)).lstrip("*")
            if target != tested:
                continue
            given = _assigned(body, at + 1)
            value = _value(program, function, given)
            if value == FILLED_OBJECT and "." not in tested:
                break  # a local copy made for reading (``s := x.Spec.Pooler; if s == nil { s = &Pooler{} }``)
            if value is not None:
                out.append((segments, Filled(value, f"{function.file.path}:{body[at].line}")))
            if value == FILLED_OBJECT:
                out += _literal_counts(program, locator, function, tested, given)
            break
    return out


def _assigned(body: list[Token], start: int) -> list[Token]:
    """The value an assignment gives, to the end of its line: a struct literal's braces whole."""
    out: list[Token] = []
    index = start
    while index < len(body) and body[index].text not in ("\n", ";", ")", "]", "}"):
        end = _balanced(body, index) if body[index].text in "([{" else index + 1
        out += body[index:end]
        index = end
    return out


def _literal_counts(
    program: _Program, locator: _Locator, function: GoFunc, tested: str, given: list[Token]
) -> list[tuple[Segments, Filled]]:
    """The numbers a struct literal filled in for a missing object gives its fields (``x.Spec.Extra =
    &ExtraSpec{Replicas: ptr.To[int32](2)}``): each field's default."""
    place = locator.locate([Token(part, 0) for part in re.findall(r"\w+|\.", tested)], function)
    texts = [t.text for t in given]
    if place is None or "{" not in texts:
        return []
    opening = texts.index("{")
    fields = _split([t for t in given[opening + 1 : _balanced(given, opening) - 1] if t.text != "\n"], ",")
    out: list[tuple[Segments, Filled]] = []
    for part in fields:
        if len(part) < 3 or part[1].text != ":" or not part[0].text.isidentifier():
            continue
        selected = locator.select(place, part[0].text)
        value = _value(program, function, part[2:])
        if selected is not None and selected.segments and isinstance(value, int):
            out.append((selected.segments, Filled(value, f"{function.file.path}:{part[0].line}")))
    return out


def _floored(program: _Program, locator: _Locator, function: GoFunc) -> list[tuple[Segments, Filled]]:
    """``max(x.Spec.Replicas, 1)`` (``util.Max``, ``lo.Max``...): the field read with a floor, so an unset
    (zero) count runs that many."""
    body = function.body
    out: list[tuple[Segments, Filled]] = []
    for index in range(len(body) - 1):
        if body[index].text.lower() != "max" or body[index + 1].text != "(":
            continue
        arguments = _split([t for t in body[index + 2 : _balanced(body, index + 1) - 1] if t.text != "\n"], ",")
        if len(arguments) != 2:
            continue
        for field, floor in (arguments, arguments[::-1]):
            segments = _located(locator, function, "".join(t.text for t in field if t.text not in ("*", "&")))
            value = _value(program, function, floor) if segments and segments[0] == "spec" else None
            if segments is not None and isinstance(value, int):
                out.append((segments, Filled(value, f"{function.file.path}:{body[index].line}")))
    return out


def _getter_of(locator: _Locator, function: GoFunc, segments: Segments) -> bool:
    """A function whose last ``return`` reads the field (``func (s *Spec) GetReplicas() int32``): an early
    ``if s.Replicas == nil { return 3 }`` in it is the field's default wherever the count is read through it."""
    returns = [i for i, t in enumerate(function.body) if t.text == "return"]
    if not returns:
        return False
    value = (_split(_statement(function.body, returns[-1] + 1), ",") or [[]])[0]
    return _located(locator, function, "".join(t.text for t in value if t.text not in ("\n", "*"))) == segments


def _value(program: _Program, function: GoFunc, tokens: list[Token], depth: int = 0) -> int | str | None:
    """A number given (``3``, ``int32(3)``, ``ptr.To[int32](3)``, ``pointer.Int32(defaultSize)``, a local
    holding one), or FILLED_OBJECT for an object made empty (``new(Spec)``, ``&Spec{}``)."""
    texts = [t.text for t in tokens if t.text != "\n"]
    if texts[:2] == ["new", "("] or (texts[:1] == ["&"] and texts[-1:] == ["}"] and "{" in texts):
        return FILLED_OBJECT
    names = [t for t in texts if t not in ("&", "*")]
    if len(names) >= 5 and all(t.isidentifier() if i % 2 == 0 else t == "." for i, t in enumerate(names)):
        return _preset(program, function, names[::2])
    atoms: list[int | None] = []
    for index, text in enumerate(texts):
        after = texts[index + 1] if index + 1 < len(texts) else ""
        before = texts[index - 1] if index > 0 else ""
        if text.isdigit():
            atoms.append(int(text))
        elif text.isidentifier() and text not in NUMBER_TYPES and after not in ("(", ".", "[", "]", "{"):
            if before == ".":
                atoms.append(_constant(program, function, texts[index - 2], text))
            elif before != "[":
                atoms.append(_local_or_constant(program, function, text, depth))
    if len(atoms) != 1 or atoms[0] is None:
        return None
    return atoms[0]


def _local_or_constant(program: _Program, function: GoFunc, name: str, depth: int) -> int | None:
    """A local assigned a number in the function (``three := int32(3)`` before ``&three``), else a constant
    of the function's package."""
    assigned = _assigned_at(function.body, name)
    if assigned is not None:
        if depth > 2:
            return None
        value = _value(program, function, _statement(function.body, assigned), depth + 1)
        return value if isinstance(value, int) else None
    return _constant(program, function, "", name)


def _constant(program: _Program, function: GoFunc, qualifier: str, name: str) -> int | None:
    """The number a constant stands for: of the function's own package, or of the one ``qualifier`` imports."""
    if qualifier:
        imported = function.file.imports.get(qualifier)
        folders = program.package.folders_of(imported) if imported else []
        directory = folders[0] if folders else None
    else:
        directory = function.file.directory
    if directory is None:
        return None
    declared = re.compile(
        rf"^\s*(?:const\s+)?{re.escape(name)}(?:\s+[\w.]+)?\s*=\s*(?:[\w.]+\(\s*)?(\d+)\s*\)?\s*(?://.*)?$", re.M
    )
    for path in program.package.folders.get(directory, []):
        match = declared.search(program.package.text(path) or "")
        if match is not None:
            return int(match.group(1))
    return None


def _preset(program: _Program, function: GoFunc, names: list[str]) -> int | None:
    """A number in a package variable given a struct literal, read by its keys (``DefaultSize.App.Replicas``,
    with ``var DefaultSize = size5000`` and ``var size5000 = Size{App: Component{Replicas: 2}}``): the
    preset an operator fills unset counts from."""
    directory: str | None = function.file.directory
    if names[0] in function.file.imports:
        folders = program.package.folders_of(function.file.imports[names[0]])
        directory, names = (folders[0] if folders else None), names[1:]
    if directory is None or len(names) < 2:
        return None
    value = _package_var(program, directory, names[0])
    for _ in range(3):  # a variable that is another one (``var DefaultSize = size5000``)
        if value is None or len(value) != 1 or not value[0].isidentifier():
            break
        value = _package_var(program, directory, value[0])
    for key in names[1:]:
        value = _keyed(value, key) if value is not None else None
    if value is None or len(value) != 1 or not value[0].isdigit():
        return None
    return int(value[0])


def _package_var(program: _Program, directory: str, name: str) -> list[str] | None:
    """The value a package variable of the folder is given: one name, or a struct literal (``Type{...}``)."""
    declared = re.compile(rf"^\s*(?:var\s+)?{re.escape(name)}\s*=(?!=)", re.M)
    for path in program.package.folders.get(directory, []):
        text = program.package.text(path) or ""
        match = declared.search(text)
        if match is None:
            continue
        tokens = [t for t in go_tokens(text[match.end() :]) if not t.text.startswith(("//", "/*"))]
        texts = [t.text for t in tokens]
        if "{" in texts[:4]:
            return texts[: _balanced(tokens, texts.index("{"))]
        return texts[: texts.index("\n")] if "\n" in texts else texts
    return None


def _keyed(literal: list[str], key: str) -> list[str] | None:
    """The value of ``key`` in a struct literal's tokens (``Type{Key: value, ...}``), newlines left out."""
    if "{" not in literal[:4]:
        return None
    depth, start = 0, None
    for index, text in enumerate(literal):
        if start is not None and depth == 1 and text in (",", "}"):
            return [t for t in literal[start:index] if t != "\n"]
        if text in "([{":
            depth += 1
        elif text in ")]}":
            depth -= 1
        elif depth == 1 and start is None and text == key and literal[index + 1 : index + 2] == [":"]:
            start = index + 2
    return None


def _zero_values(locator: _Locator) -> list[tuple[Segments, int | str, str]]:
    """The kind's spec fields whose Go field is no pointer, with what the operator reads when the object
    omits them: a struct (``Redis RedisSettings``) is there, empty (FILLED_OBJECT); an integer (``Size
    int32``) is 0, a count of no pods. (A pointer's nil is what a workload's own default then replaces.)"""
    out: list[tuple[Segments, int | str, str]] = []
    for segments, go_field, owner in locator.linker.walk(locator.kind, (), set()):
        if segments[0] != "spec" or len(segments) < 2 or go_field.type_expr.startswith("*"):
            continue
        where = f"{owner.file.path}:{go_field.line}"
        if go_field.type_expr in NUMBER_TYPES:
            out.append((segments, 0, where))
            continue
        inner, marker = _collection(go_field.type_expr)
        declared = locator.linker.resolve(inner, owner.file) if marker is None else None
        if declared is not None and declared.underlying == "struct":
            out.append((segments, FILLED_OBJECT, where))
    return out


def fill_schema(facts: SchemaFacts, defaults: dict[Segments, Filled]) -> list[Segments]:
    """Write the code's defaults into the schema where it declares none (a number on an integer field, ``{}``
    on an object), each node on the way copied (the CRD given is not changed, and a node YAML shares between
    fields gets only its own field's default), and read the sites' counts again from it. Returns the paths
    filled."""
    done: list[Segments] = []
    for segments, filled in defaults.items():
        node = _node_at(facts.schema, segments)
        if not node or "default" in node:
            continue
        if isinstance(filled.value, int) and node.get("type") == "integer":
            value: int | dict[str, object] = filled.value
        elif filled.value == FILLED_OBJECT and node.get("type") == "object" and "properties" in node:
            value = {}
        else:
            continue
        facts.schema = _with_default(facts.schema, segments, value, filled.said)
        done.append(segments)
    if done:
        for site in facts.sites:
            _refresh(facts, site)
    return done


def _with_default(node: dict[str, Any], segments: Segments, value: object, said: str) -> dict[str, Any]:
    """A copy of ``node`` whose field at ``segments`` has the default (the nodes on the way copied, the others
    shared)."""
    out = dict(node)
    if not segments:
        out["default"] = value
        out[FILLED_BY] = said
        return out
    head, rest = segments[0], segments[1:]
    if head == ARRAY:
        out["items"] = _with_default(out.get("items") or {}, rest, value, said)
    elif head == MAP:
        out["additionalProperties"] = _with_default(out.get("additionalProperties") or {}, rest, value, said)
    else:
        properties = dict(out.get("properties") or {})
        properties[head] = _with_default(properties.get(head) or {}, rest, value, said)
        out["properties"] = properties
    return out


def _refresh(facts: SchemaFacts, site: Site) -> None:
    """The site's count fields read from the filled copy of the schema (the same paths, the new defaults)."""
    site.replicas = _again(facts, site.replicas)
    site.min_replicas = _again(facts, site.min_replicas)
    site.max_replicas = _again(facts, site.max_replicas)
    site.hosts = _again(facts, site.hosts)
    site.instances = [count for found in site.instances if (count := _again(facts, found)) is not None]


def _again(facts: SchemaFacts, found: Field | None) -> Field | None:
    fresh = facts.field_at(found.segments) if found is not None else None
    return Field(fresh.segments, fresh.schema, found.required) if fresh is not None and found is not None else found
