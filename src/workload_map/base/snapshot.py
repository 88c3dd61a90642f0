"""A read-only set of cluster objects, indexed for ownership walks.

Dumps on disk and live listings both become a Snapshot; the views above it (the resolver, gang planning)
read objects only from here, which is what lets a dump and a live cluster give the same answer. The
accessors of single objects live one layer down, in :mod:`workload_map.base.objects` (the core uses them);
they are re-exported here for the layers above.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from workload_map.base.coverage import Coverage
from workload_map.base.gc_pause import bulk
from workload_map.base.model import Model
from workload_map.base.objects import (
    DEFAULT_NAMESPACE,
    Obj,
    ObjectKey,
    group_of,
    is_pod,
    key_of,
    meta,
    name_of,
    namespace_of,
    owner_references,
    uid_of,
    version_of,
)


class OwnerChain(Model, kw_only=False):
    """The owners of an object, nearest first, and why the walk stopped early if it did."""

    owners: tuple[Obj, ...]
    broken: str | None = None  # "missing <ref>" or "cycle at <key>"
    missing: tuple[str, str, str] | None = None  # (group, kind, namespace) of the owner not in the input
    missing_name: str = ""  # that owner's name, as its reference gives it


class Snapshot:
    """``coverage``: what the read could not see (live gaps); a dump's is complete. ``listed``: the kinds a
    narrowed read fetched (``describe``, ``get TYPE``): owners of other kinds are out of its scope, not
    missing. None: the read meant to see everything (a dump, ``get`` of every workload). ``named``: kinds
    of ``listed`` read for some names only (``describe TYPE/NAME`` reads its workload by name): owners of
    such a kind by another name are out of scope too."""

    @bulk
    def __init__(
        self,
        objects: Iterable[Obj],
        *,
        coverage: Coverage | None = None,
        listed: Iterable[tuple[str, str]] | None = None,
        named: Mapping[tuple[str, str], Iterable[str]] | None = None,
    ) -> None:
        self.coverage = coverage if coverage is not None else Coverage()
        self.listed = frozenset(listed) if listed is not None else None
        self.named = {kind: frozenset(names) for kind, names in (named or {}).items()}
        self.objects: list[Obj] = [o for o in objects if isinstance(o, dict) and o.get("kind")]
        self._by_uid: dict[str, Obj] = {}
        self._by_key: dict[ObjectKey, Obj] = {}
        self._by_kind: dict[tuple[str, str], list[Obj]] = defaultdict(list)
        self._chains: dict[int, OwnerChain] = {}
        for obj in self.objects:
            uid = uid_of(obj)
            if uid:
                self._by_uid[uid] = obj
            self._by_key[key_of(obj)] = obj
            self._by_kind[(group_of(str(obj.get("apiVersion") or "")), str(obj["kind"]))].append(obj)

    def __len__(self) -> int:
        return len(self.objects)

    def __iter__(self) -> Iterator[Obj]:
        return iter(self.objects)

    def of_kind(self, group: str, kind: str) -> list[Obj]:
        return self._by_kind.get((group, kind), [])

    @property
    def pods(self) -> list[Obj]:
        return self.of_kind("", "Pod")

    def kinds(self) -> set[tuple[str, str]]:
        return set(self._by_kind)

    def in_scope(self, group: str, kind: str, name: str) -> bool:
        """Whether the read would have returned this object had it existed: not so for a kind it did not
        list, nor for another name of a kind it read by name."""
        if self.listed is None:
            return True
        names = self.named.get((group, kind))
        return (group, kind) in self.listed and (names is None or name in names)

    def resolve_reference(self, ref: dict[str, Any], namespace: str) -> Obj | None:
        raw = ref.get("uid")
        # Read as uid_of reads an object's uid: any JSON value (a list in a broken object) becomes text.
        uid = str(raw) if raw else None
        if uid and uid in self._by_uid:
            return self._by_uid[uid]
        key = ObjectKey(
            group_of(str(ref.get("apiVersion") or "")), str(ref.get("kind")), namespace, str(ref.get("name") or "")
        )
        found = self._by_key.get(key)
        # A uid that names another object means a different generation with the same name.
        if found is not None and uid and uid_of(found) and uid_of(found) != uid:
            return None
        return found

    def owner_chain(self, obj: Obj) -> OwnerChain:
        cached = self._chains.get(id(obj))
        if cached is not None:
            return cached
        owners: list[Obj] = []
        seen = {id(obj)}
        current = obj
        broken = None
        missing = None
        missing_name = ""
        while True:
            refs = owner_references(current)
            if not refs:
                break
            parent = None
            for ref in refs:
                parent = self.resolve_reference(ref, namespace_of(current))
                if parent is not None:
                    break
            if parent is None:
                ref = refs[0]
                owner = f"{ref.get('kind')}/{ref.get('name') or ref.get('uid')}"
                broken = f"owner {owner} of {key_of(current)} is not in the input"
                missing = (
                    group_of(str(ref.get("apiVersion") or "")),
                    str(ref.get("kind") or ""),
                    namespace_of(current),
                )
                missing_name = str(ref.get("name") or "")
                break
            if id(parent) in seen:
                broken = f"ownership cycle at {key_of(parent)}"
                break
            seen.add(id(parent))
            owners.append(parent)
            current = parent
        chain = OwnerChain(tuple(owners), broken, missing, missing_name)
        self._chains[id(obj)] = chain
        return chain


__all__ = [
    "DEFAULT_NAMESPACE",
    "Coverage",
    "Obj",
    "ObjectKey",
    "OwnerChain",
    "Snapshot",
    "group_of",
    "is_pod",
    "key_of",
    "meta",
    "name_of",
    "namespace_of",
    "owner_references",
    "uid_of",
    "version_of",
]
