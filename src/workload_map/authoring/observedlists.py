"""Roles of recorded pods that are the items of a list of the object (observed.py): an operator that makes one
workload per item of a list of named parts (``.spec.parts[].name``) names each workload (and so its pods) after
the item. The roles the recording shows are then the items' names, and those are instances of one component
keyed by the list, not a component each: a new item in another object is one more instance, not a new role.

An item's name a role only starts with (``shard-x7k`` of the item ``shard``) is a part the operator multiplies
(shards of a sharding): the same list's instances, but whose count no field of the item is seen to give alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workload_map.authoring.builder import Builder, jq
from workload_map.authoring.evidence import ARRAY, HIGH, MEDIUM, Segments, schema_path
from workload_map.authoring.observedroles import AGREEMENT, Group, _settled
from workload_map.authoring.render import Path
from workload_map.authoring.schemafacts import SchemaFacts


@dataclass
class NamedList:
    """A list of the object whose items' names are the roles of several groups of pods."""

    item: Segments  # the list's item (``[]`` any item)
    exact: bool  # every role is an item's name (not only starts with one)
    roles: list[str] = field(default_factory=list)
    members: list[Group] = field(default_factory=list)  # the groups merged, each of one item


def _named_lists(value: Any, segments: Segments, out: dict[str, set[Segments]], depth: int = 0) -> None:
    """Per name, the lists (as item paths) holding an item of that name; container-shaped items (name and image)
    and name/value pairs (env) are no parts of the object the operator makes workloads of."""
    if depth > 12:
        return
    if isinstance(value, dict):
        for key, child in value.items():
            _named_lists(child, (*segments, str(key)), out, depth + 1)
    elif isinstance(value, list):
        item = (*segments, ARRAY)
        for child in value:
            if not isinstance(child, dict):
                continue
            name = child.get("name")
            if isinstance(name, str) and name and not {"image", "value", "valueFrom"} & set(child):
                out.setdefault(name, set()).add(item)
            _named_lists(child, item, out, depth + 1)


def _list_of(group: Group) -> tuple[Segments, bool] | None:
    """The one list whose items' names the group's role is in (nearly) every object it was seen beside."""
    if not group.role or not group.roots:
        return None
    votes: dict[tuple[Segments, bool], int] = {}
    for root in group.roots:
        names: dict[str, set[Segments]] = {}
        _named_lists(root.get("spec"), ("spec",), names)
        exact = names.get(group.role)
        found = {(s, True) for s in exact} if exact else set()
        if not found:
            found = {(s, False) for n, paths in names.items() if group.role.startswith(n + "-") for s in paths}
        for key in found:
            votes[key] = votes.get(key, 0) + 1
    agreed = [key for key, n in votes.items() if n >= AGREEMENT * len(group.roots)]
    return agreed[0] if len(agreed) == 1 else None


def merge(seen: Sequence[Group]) -> tuple[list[Group], dict[int, NamedList]]:
    """The groups with those of one list's items (one owner kind and chain, two roles or more) made one, and per
    merged group (by id) its list."""
    keyed: dict[tuple[tuple[str, ...], str, Segments], list[Group]] = {}
    lists: dict[int, tuple[Segments, bool]] = {}
    for group in seen:
        found = None if group.one_off else _list_of(group)
        if found is not None:
            lists[id(group)] = found
            keyed.setdefault((group.chain, group.kind["kind"], found[0]), []).append(group)
    out: list[Group] = []
    merged: dict[int, NamedList] = {}
    done: set[int] = set()
    for group in seen:
        if id(group) in done:
            continue
        members = [group]
        if id(group) in lists:
            members = keyed[(group.chain, group.kind["kind"], lists[id(group)][0])]
        if len({m.role for m in members}) < 2:
            out.append(group)
            continue
        done |= {id(m) for m in members}
        item = lists[id(group)][0]
        named = NamedList(item, all(lists[id(m)][1] for m in members), [m.role for m in members], members)
        one = _union(members, next(s for s in reversed(item) if s != ARRAY))
        merged[id(one)] = named
        out.append(one)
    return out, merged


def _union(members: list[Group], role: str) -> Group:
    first = members[0]
    one = Group(dict(first.kind), first.chain, role, source=first.source)
    for member in members:
        for name, image in member.containers.items():
            one.containers.setdefault(name, image)
        one.roots += member.roots
        one.owners |= member.owners
        one.pods |= member.pods
        one.finished |= member.finished
    # Per-state counts of the list as a whole are not what a per-item count reads: left out (see ``instances``).
    return one


def _integers(value: Any, segments: Segments, out: dict[Segments, int], depth: int = 0) -> None:
    if isinstance(value, dict) and depth < 4:
        for key, child in value.items():
            _integers(child, (*segments, str(key)), out, depth + 1)
    elif isinstance(value, int) and not isinstance(value, bool):
        out[segments] = value


def _item_named(root: dict[str, Any], item: Segments, name: str) -> dict[str, Any] | None:
    nodes: list[Any] = [root]
    for segment in item:
        if segment == ARRAY:
            nodes = [c for n in nodes if isinstance(n, list) for c in n]
        else:
            nodes = [n.get(segment) for n in nodes if isinstance(n, dict)]
    return next((n for n in nodes if isinstance(n, dict) and n.get("name") == name), None)


def _item_count(
    members: Sequence[Group], named: NamedList, facts: SchemaFacts | None
) -> tuple[Segments, int | None] | None:
    """The item's integer field equal to its pods' count on (nearly) every settled state, with the schema's
    default or the count seen where items leave it unset."""
    agree: dict[Segments, int] = {}
    present: dict[Segments, int] = {}
    unset: dict[Segments, set[int]] = {}
    states: list[tuple[dict[Segments, int], int]] = []
    for group in members:
        for root, n in _settled(group.counts):
            item = _item_named(root, named.item, group.role)
            if item is None or n <= 0:
                continue
            values: dict[Segments, int] = {}
            _integers(item, (), values)
            states.append((values, n))
            for segments, value in values.items():
                agree[segments] = agree.get(segments, 0) + (value == n)
                present[segments] = present.get(segments, 0) + 1
    for values, n in states:
        for segments in agree:
            if segments not in values:
                unset.setdefault(segments, set()).add(n)
    # Agreeing wherever the items set it; a field no item sets is no evidence.
    best = [s for s, a in agree.items() if a >= AGREEMENT * present[s]]
    if len(best) > 1:
        best = [s for s in best if s[-1] in ("replicas", "size", "count")] or best
    if len(best) != 1:
        return None
    segments = best[0]
    declared = facts.field_at((*named.item, *segments)) if facts is not None else None
    default = (declared.schema if declared is not None else {}).get("default")
    if isinstance(default, int):
        return segments, default
    seen_unset = unset.get(segments, set())
    return segments, (next(iter(seen_unset)) if len(seen_unset) == 1 else None)


def instances(
    builder: Builder, facts: SchemaFacts | None, named: NamedList, component: dict[str, Any], path: Path
) -> None:
    """Key the component by the list's items' names, and count each instance by the item's own field."""
    where = schema_path(named.item[:-1])
    component["instanceIdPath"] = f"{jq(named.item)} | .name"
    roles = ", ".join(sorted(set(named.roles))[:6]) + ("..." if len(set(named.roles)) > 6 else "")
    builder.note(
        (*path, "instanceIdPath"),
        HIGH if named.exact else MEDIUM,
        f"seen in {named.members[0].source} and others: the pods' roles ({roles}) are the names of items of {where}:",
        "one instance per item." if named.exact else "one instance per item, made several times over (name-suffix).",
    )
    found = _item_count(named.members, named, facts) if named.exact else None
    if found is None:
        if not named.exact:
            # Several workloads per item: no field of the item alone was seen to count them; a gap, not a guess.
            what = f"how many pods each item of {where} makes (the operator makes several workloads per item)"
            component["scaleDefinition"] = {
                "replicasPath": builder.todo((*path, "scaleDefinition", "replicasPath"), what)
            }
        return
    segments, default = found
    expression = f"{jq(named.item)} | ({jq(segments)} // {1 if default is None else default})"
    component["scaleDefinition"] = {"replicasPath": expression}
    builder.notes.pop((*path, "scaleDefinition", "replicasPath"), None)
    builder.note(
        (*path, "scaleDefinition", "replicasPath"),
        HIGH,
        f"seen: each item's {jq(segments)} equals its pods' count (their owners' replicas, else the live pods).",
    )
