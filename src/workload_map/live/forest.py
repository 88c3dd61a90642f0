"""The live model's object store: projected objects grouped by their root along ownerReferences.

An object's **root** is its outermost ancestor present in the store (the controller reference first). A
workload and everything it owns share a root, so an event on any of them names the one group of objects to
resolve again. Owners may arrive after what they own (watches are not ordered across kinds): a child is
filed under its owner's uid whether or not the owner is present yet, and rerooted when it comes or goes.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from workload_map.base.objects import Obj

if TYPE_CHECKING:
    from workload_map.sources.kube.fetch import ListResult


def uid_of(obj: Obj) -> str:
    metadata = obj.get("metadata") or {}
    uid = metadata.get("uid")
    if uid:
        return str(uid)
    # Objects without a uid (hand-made test objects) are still distinct by identity.
    return f"{obj.get('apiVersion')}/{obj.get('kind')}/{metadata.get('namespace') or ''}/{metadata.get('name')}"


def owner_uid(obj: Obj) -> str | None:
    refs = (obj.get("metadata") or {}).get("ownerReferences") or []
    refs = [r for r in refs if isinstance(r, dict) and r.get("uid")]
    if not refs:
        return None
    controller = [r for r in refs if r.get("controller")]
    return str((controller or refs)[0]["uid"])


class OwnerForest:
    """The objects by uid, who owns whom, and each object's root.

    ``lists`` are the cluster's lists in the order they were read (None for a dump): they decide where an
    object stands among its root's members (``member_order``), so a root resolves as a fresh read would."""

    def __init__(self, lists: list[ListResult] | None = None) -> None:
        self.objects: dict[str, Obj] = {}
        self.root: dict[str, str] = {}
        self._children: dict[str, set[str]] = defaultdict(set)  # owner uid (present or not) -> uids
        self._rank: dict[str, int] = {}  # where an object stands in a read of the whole cluster
        # (apiVersion, kind, namespace listed) -> rank; computed at once: the lists hold the items read
        self._ranks: dict[tuple[Any, Any, str | None], int] | None = None
        if lists is not None:
            self._ranks = {}
            for index, listed in enumerate(lists):
                res = listed.resource
                self._ranks.setdefault((res.api_version, res.kind, listed.namespace), index)

    def put(self, obj: Obj) -> None:
        uid = uid_of(obj)
        old = self.objects.get(uid)
        if old is not None:
            previous_owner = owner_uid(old)
            if previous_owner is not None:
                self._children[previous_owner].discard(uid)
        self.objects[uid] = obj
        if uid not in self._rank:
            self._rank[uid] = self._list_rank(obj) if self._ranks is not None else len(self._rank)
        owner = owner_uid(obj)
        if owner is not None:
            self._children[owner].add(uid)

    def remove(self, uid: str) -> None:
        old = self.objects.pop(uid, None)
        if old is not None:
            owner = owner_uid(old)
            if owner is not None:
                self._children[owner].discard(uid)
        self.root.pop(uid, None)
        self._rank.pop(uid, None)

    def children(self, uid: str) -> list[str]:
        return list(self._children.get(uid, ()))

    def set_roots(self) -> None:
        """Every object's root, after a bulk load."""
        for uid in self.objects:
            self.root[uid] = self.root_of(uid)

    def root_of(self, uid: str) -> str:
        seen = {uid}
        current = uid
        while True:
            obj = self.objects.get(current)
            owner = owner_uid(obj) if obj is not None else None
            if owner is None or owner not in self.objects or owner in seen:
                return current
            seen.add(owner)
            current = owner

    def subtree(self, uid: str) -> list[str]:
        """``uid`` (when present) and every present object below it."""
        out, stack, seen = [], [uid], {uid}
        while stack:
            current = stack.pop()
            if current in self.objects:
                out.append(current)
            for child in self._children.get(current, ()):
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        return out

    def reroot(self, uid: str, dirty: set[str]) -> None:
        """Give ``uid`` and everything below it their root again; both old and new roots become dirty."""
        root = self.root_of(uid) if uid in self.objects else uid
        for member in self.subtree(uid):
            old = self.root.get(member)
            if old is not None:
                dirty.add(old)
            self.root[member] = root
        dirty.add(root)

    def member_order(self, obj: Obj) -> tuple[int, str]:
        """A root's objects in the order ``wmap get -A`` reads them, which is the order of a tree's children:
        a dump's objects in file order; a cluster's list by list, each as the apiserver lists it (by etcd key,
        ``namespace/name``), so an object added after the sync takes the place a fresh read gives it."""
        uid = uid_of(obj)
        if self._ranks is None:
            return self._rank[uid], ""
        metadata = obj.get("metadata") or {}
        namespace, name = metadata.get("namespace"), metadata.get("name")
        return self._rank[uid], f"{namespace}/{name}" if namespace else str(name)

    def _list_rank(self, obj: Obj) -> int:
        assert self._ranks is not None
        kind = (obj.get("apiVersion"), obj.get("kind"))
        rank = self._ranks.get((*kind, None))
        if rank is not None:
            return rank
        return self._ranks.get((*kind, (obj.get("metadata") or {}).get("namespace")), len(self._ranks))
