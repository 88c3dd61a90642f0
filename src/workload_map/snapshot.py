"""A read-only set of cluster objects, indexed for ownership walks.

Dumps on disk and live listings both become a Snapshot; everything above it (resolution, trees,
gang groups) reads only from here, which is what lets a dump and a live cluster give the same answer.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from workload_map._gc import bulk

DEFAULT_NAMESPACE = "default"

Obj = dict[str, Any]


def group_of(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def version_of(api_version: str) -> str:
    return api_version.split("/", 1)[1] if "/" in api_version else api_version


@dataclass(frozen=True)
class ObjectKey:
    group: str
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        kind = f"{self.kind}.{self.group}" if self.group else self.kind
        return f"{kind.lower()}/{self.name} in {self.namespace}"


def meta(obj: Obj) -> dict[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def name_of(obj: Obj) -> str:
    return str(meta(obj).get("name") or "")


def namespace_of(obj: Obj) -> str:
    return str(meta(obj).get("namespace") or DEFAULT_NAMESPACE)


def uid_of(obj: Obj) -> str | None:
    uid = meta(obj).get("uid")
    return str(uid) if uid else None


def key_of(obj: Obj) -> ObjectKey:
    return ObjectKey(
        group_of(str(obj.get("apiVersion") or "")), str(obj.get("kind") or ""), namespace_of(obj), name_of(obj)
    )


def is_pod(obj: Obj) -> bool:
    return obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1"


def owner_references(obj: Obj) -> list[dict[str, Any]]:
    refs = meta(obj).get("ownerReferences")
    if not isinstance(refs, list):
        return []
    valid = [r for r in refs if isinstance(r, dict) and r.get("kind") and (r.get("name") or r.get("uid"))]
    # The controller reference is the one that created the object; follow it first.
    return sorted(valid, key=lambda r: not r.get("controller"))


@dataclass(frozen=True)
class OwnerChain:
    """The owners of an object, nearest first, and why the walk stopped early if it did."""

    owners: tuple[Obj, ...]
    broken: str | None = None  # "missing <ref>" or "cycle at <key>"


class Snapshot:
    @bulk
    def __init__(self, objects: Iterable[Obj]) -> None:
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

    def resolve_reference(self, ref: dict[str, Any], namespace: str) -> Obj | None:
        uid = ref.get("uid")
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
                break
            if id(parent) in seen:
                broken = f"ownership cycle at {key_of(parent)}"
                break
            seen.add(id(parent))
            owners.append(parent)
            current = parent
        chain = OwnerChain(tuple(owners), broken)
        self._chains[id(obj)] = chain
        return chain
