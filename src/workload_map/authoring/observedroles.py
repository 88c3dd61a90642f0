"""The roles a recording shows (``--from-recording``, observed.py): the pods grouped by the owners they come
through, each role's pod definition in the root's spec and the root's field that counts it.

Every recorded state holds the objects whose owner chain reaches the root. A pod's owner is the component's
kind (a ReplicaSet of a Deployment is read as the Deployment); owners of one kind and one place in the chain
whose names differ only by an index or a hash are one role. The pods' containers (names and images) are then
looked for in the root's spec at that state: a pod template, a pod spec or a container list carrying them is
the role's pod definition; none carrying them means the operator composes the pod from scattered fields. The
root's integer field equal to the role's count (its owners' ``replicas``, else its pods) in the recorded states
counts it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from workload_map.authoring.evidence import ARRAY, MAP, Segments
from workload_map.authoring.schemafacts import REPLICA_NAMES, SchemaFacts
from workload_map.authoring.transitions import Moment
from workload_map.base.objects import meta, name_of, owner_references

# A name's tail that tells copies of one role apart: an index, or a hash with a digit in it.
_COPY_TAIL = re.compile(r"(-(\d+|(?=[a-z0-9]*\d)[a-z0-9]{4,10}))+$")
# Built-in kinds whose own count is their pods' (the field a root's count is copied into).
_COUNT_KEYS = {"StatefulSet": "replicas", "Deployment": "replicas", "ReplicaSet": "replicas", "Job": "parallelism"}
# The share of recorded states a count field must agree with the pods' owners on (a scale shows late).
AGREEMENT = 0.8


def gvk(obj: dict[str, Any]) -> dict[str, str]:
    api = str(obj.get("apiVersion") or "")
    group, _, version = api.rpartition("/")
    return {"group": group, "version": version, "kind": str(obj.get("kind"))}


@dataclass
class Group:
    """One role of pods seen: the owner kind, the chain of kinds from the root, and what was seen of it."""

    kind: dict[str, str]
    chain: tuple[str, ...]  # kinds from the root's child down to the pods' owner
    role: str
    containers: dict[str, str] = field(default_factory=dict)  # name -> image, of its pods
    # (root then, its count then) per recorded state: the owners' replicas, else the live pods.
    counts: list[tuple[dict[str, Any], int]] = field(default_factory=list)
    roots: list[dict[str, Any]] = field(default_factory=list)  # root versions seen beside its pods
    owners: set[str] = field(default_factory=set)
    pods: set[str] = field(default_factory=set)
    finished: set[str] = field(default_factory=set)  # its pods seen Succeeded
    source: str = ""

    @property
    def one_off(self) -> bool:
        """A Job whose every pod ran to success: a step the operator takes (a schema, a bootstrap), not a role."""
        return self.kind.get("kind") == "Job" and bool(self.pods) and self.pods <= self.finished

    @property
    def label(self) -> str:
        if not self.owners:
            return f"{len(self.pods)} pod(s) owned by the object itself"
        owners = ", ".join(sorted(self.owners)[:3]) + ("..." if len(self.owners) > 3 else "")
        return f"{len(self.pods)} pod(s) owned by {self.kind['kind']} {owners} (object > {' > '.join(self.chain)})"


def _role(owner: dict[str, Any], root: dict[str, Any]) -> str:
    name, root_name = name_of(owner), name_of(root)
    # Operators name a child after the object and the role, either way round (cache-db, vmstorage-cache).
    rest = name.replace(root_name, "", 1).replace("--", "-") if root_name else name
    return _COPY_TAIL.sub("", "-" + rest.strip("-")).strip("-") if rest else ""


def _chain(pod: dict[str, Any], root: dict[str, Any], index: dict[str, dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The owners from the pod up to (not including) the root, or None when the chain does not reach it."""
    out: list[dict[str, Any]] = []
    current = pod
    root_uid = meta(root).get("uid")
    for _ in range(10):
        refs = owner_references(current)
        if not refs:
            return None
        ref = refs[0]
        if ref.get("uid") == root_uid or (ref.get("kind"), ref.get("name")) == (root.get("kind"), name_of(root)):
            return out
        found = index.get(str(ref.get("uid"))) or index.get(f"{ref.get('kind')}/{ref.get('name')}")
        if found is None:
            return None
        out.append(found)
        current = found
    return None


def groups(moments: Sequence[Moment]) -> list[Group]:
    """The roles of pods the recorded states show, in the order first seen."""
    found: dict[tuple[tuple[str, ...], str], Group] = {}
    for moment in moments:
        root = moment.root
        if root is None or not moment.objects:
            continue
        index: dict[str, dict[str, Any]] = {}
        for obj in moment.objects:
            if meta(obj).get("uid"):
                index[str(meta(obj)["uid"])] = obj
            index[f"{obj.get('kind')}/{name_of(obj)}"] = obj
        here: dict[tuple[tuple[str, ...], str], tuple[int, set[str]]] = {}
        for pod in moment.objects:
            if pod.get("kind") != "Pod" or meta(pod).get("deletionTimestamp"):
                continue
            chain = _chain(pod, root, index)
            if chain is None:
                continue
            owner = chain[0] if chain else root
            if owner.get("kind") == "ReplicaSet" and len(chain) > 1 and chain[1].get("kind") == "Deployment":
                owner, chain = chain[1], chain[1:]
            kinds = tuple(str(o.get("kind")) for o in reversed(chain)) or ("Pod",)
            key = (kinds, _role(owner, root) if chain else "")
            group = found.get(key)
            if group is None:
                group = found[key] = Group(gvk(owner) if chain else dict(_POD), kinds, key[1], source=moment.source)
            spec = pod.get("spec")
            for container in (spec.get("containers") if isinstance(spec, dict) else None) or []:
                if isinstance(container, dict) and isinstance(container.get("name"), str):
                    group.containers.setdefault(container["name"], str(container.get("image")))
            group.pods.add(name_of(pod))
            if (pod.get("status") or {}).get("phase") == "Succeeded":
                group.finished.add(name_of(pod))
            if chain:
                group.owners.add(name_of(owner))
            count, owners = here.get(key, (0, set()))
            here[key] = (count + 1, owners | ({f"{owner.get('kind')}/{name_of(owner)}"} if chain else set()))
        for key, (pods, owners) in here.items():
            wanted = [_wanted(index.get(o)) for o in owners]
            count = sum(w for w in wanted if w is not None) if owners and None not in wanted else pods
            found[key].counts.append((root, count))
            found[key].roots.append(root)
    return list(found.values())


_POD = {"group": "", "version": "v1", "kind": "Pod"}


def _wanted(owner: dict[str, Any] | None) -> int | None:
    key = _COUNT_KEYS.get(str((owner or {}).get("kind")))
    value = ((owner or {}).get("spec") or {}).get(key) if key else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _candidates(value: Any, segments: Segments, depth: int) -> Iterator[tuple[Segments, str, list[Any]]]:
    """(path, form, containers) of every pod definition under a value: a template, a pod spec, a list."""
    if depth > 20:
        return
    if isinstance(value, dict):
        spec = value.get("spec")
        if isinstance(spec, dict) and isinstance(spec.get("containers"), list):
            yield segments, "template", spec["containers"]
            return
        if isinstance(value.get("containers"), list):
            yield segments, "podspec", value["containers"]
            return
        for key, child in value.items():
            yield from _candidates(child, (*segments, str(key)), depth + 1)
    elif isinstance(value, list):
        if value and all(isinstance(c, dict) and "image" in c and "name" in c for c in value):
            yield segments, "containers", value
            return
        for number, item in enumerate(value):
            yield from _candidates(item, (*segments, f"#{number}"), depth + 1)


def _carries(containers: list[Any], seen: dict[str, str]) -> bool:
    """Every container of the root's definition is in the pods, with the same image where both say one, and they
    are the pods' own: their first container, or more than half of them (a list of sidecars the operator adds to
    a pod it composes is not the pod's definition)."""
    named = [c for c in containers if isinstance(c, dict) and isinstance(c.get("name"), str)]
    names = {c["name"] for c in named}
    own = bool(seen) and (next(iter(seen)) in names or 2 * len(names) > len(seen))
    return (
        bool(named)
        and own
        and all(
            c["name"] in seen and (not isinstance(c.get("image"), str) or c["image"] == seen[c["name"]]) for c in named
        )
    )


@dataclass
class Template:
    segments: Segments | None  # None: no field carries the pods' containers (the operator composes the pod)
    form: str = ""
    where: str = ""  # the recording and state it was seen in


def template(group: Group) -> Template:
    """The root field whose containers the group's pods carry, generalised over the states seen (a list index
    is any item, several keys of one map any key)."""
    paths: set[tuple[Segments, str]] = set()
    for root in group.roots[-1:] + group.roots[:1]:
        for segments, form, containers in _candidates(root.get("spec"), ("spec",), 0):
            if _carries(containers, group.containers):
                paths.add((segments, form))
    if not paths:
        return Template(None, where=group.source)
    general = {(tuple(ARRAY if s.startswith("#") else s for s in segments), form) for segments, form in paths}
    if len(general) > 1 and len({(len(s), f) for s, f in general}) == 1:
        # One role's pods matching several keys of one map (roles sharing containers): any key.
        columns = list(zip(*(s for s, _ in general), strict=True))
        merged = tuple(c[0] if len(set(c)) == 1 else MAP for c in columns)
        general = {(merged, next(iter(general))[1])}
    if len(general) != 1:
        return Template(None, "ambiguous", group.source)
    segments, form = general.pop()
    return Template(segments, form, group.source)


def _integers(value: Any, segments: Segments, out: dict[Segments, int]) -> None:
    if isinstance(value, dict):
        for key, child in value.items():
            if isinstance(key, str):
                _integers(child, (*segments, key), out)
    elif isinstance(value, int) and not isinstance(value, bool):
        out[segments] = value


def _declared_integers(schema: Any, segments: Segments, out: dict[Segments, int], depth: int = 0) -> None:
    """Integer fields of the spec the schema gives a default (what the API server fills in when unset)."""
    if not isinstance(schema, dict) or depth > 8:
        return
    for key, child in (schema.get("properties") or {}).items():
        if not isinstance(child, dict):
            continue
        here = (*segments, str(key))
        if child.get("type") == "integer" and isinstance(child.get("default"), int):
            out[here] = int(child["default"])
        elif child.get("type") == "object":
            _declared_integers(child, here, out, depth + 1)


@dataclass
class Count:
    segments: Segments
    default: int | None  # the schema's default, when the samples relied on it
    agree: int
    states: int
    seen_default: bool = False  # the default is the count seen where the objects left the field unset


def count(group: Group, facts: SchemaFacts | None) -> Count | None:
    """The root's integer field equal to the group's count in (nearly) every recorded state, when exactly one
    field does (a replica-like name breaks a tie; a count no field tells apart from others is not guessed).
    A field of the role's own object (``.spec.redis.replicas`` for the pods of ``NAME-redis``) equal to the
    count wherever it is set counts it, the count seen where it is unset (the same everywhere) its default."""
    known = [(root, n) for root, n in _settled(group.counts) if n > 0]
    if not known:
        return None
    defaults: dict[Segments, int] = {}
    if facts is not None:
        _declared_integers((facts.schema.get("properties") or {}).get("spec"), ("spec",), defaults)
    agree: dict[Segments, int] = {}
    present: dict[Segments, list[bool]] = {}  # per field, whether it equals the count where the object sets it
    for root, n in known:
        values: dict[Segments, int] = {}
        _integers(root.get("spec"), ("spec",), values)
        for segments, value in values.items():
            present.setdefault(segments, []).append(value == n)
        for segments, default in defaults.items():
            values.setdefault(segments, default)
        for segments, value in values.items():
            agree[segments] = agree.get(segments, 0) + (value == n)
    names = {n.lower() for n in (group.role, *group.containers) if n}
    own = [s for s, seen in present.items() if all(seen) and any(p.lower() in names for p in s[1:-1])]
    if len(own) > 1:
        own = [s for s in own if s[-1] in REPLICA_NAMES or "size" in s[-1].lower()]
    best = own if len(own) == 1 else [s for s, a in agree.items() if a >= AGREEMENT * len(known)]
    if len(best) > 1:
        most = max(agree[s] for s in best)
        best = [s for s in best if agree[s] == most]
    if len(best) > 1:
        best = [s for s in best if s[-1] in REPLICA_NAMES or "size" in s[-1].lower()] or best
    if len(best) > 1:
        # The role's own object (``.spec.pxc.size`` for the pods of ``cluster1-pxc`` running ``pxc``).
        best = [s for s in best if any(part.lower() in names for part in s[1:-1])] or best
    if len(best) != 1:
        return None
    segments = best[0]
    unset = {n for root, n in known if _missing(root, segments)}
    unset_reads = defaults.get(segments)
    seen = unset_reads is None and len(unset) == 1
    if seen:
        unset_reads = unset.pop()  # the operator's own default, seen where the object left it unset
    agreeing = present.get(segments) or [True] * agree[segments]
    return Count(segments, unset_reads, sum(agreeing), len(present.get(segments) or known), seen)


def _settled(counts: list[tuple[dict[str, Any], int]]) -> list[tuple[dict[str, Any], int]]:
    """The count at the last state of each stretch the root's spec held: pods come and go one by one after
    the spec changes, and the last state before the next change shows where they settled."""
    out: list[tuple[dict[str, Any], int]] = []
    for root, n in counts:
        if out and out[-1][0].get("spec") == root.get("spec"):
            out[-1] = (root, n)
        else:
            out.append((root, n))
    return out


def _missing(root: dict[str, Any], segments: Segments) -> bool:
    node: Any = root
    for segment in segments:
        if not isinstance(node, dict) or segment not in node:
            return True
        node = node[segment]
    return False
