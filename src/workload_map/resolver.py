"""Resolving every covered workload of a snapshot: the library entry point behind `get` and `describe`.

The same code serves a dump on disk and a live cluster: the live layer only fills a Snapshot.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from workload_map._gc import bulk
from workload_map.definition.loader import LoadedDefinition
from workload_map.registry import DefinitionRegistry, KindInfo
from workload_map.snapshot import Obj, Snapshot, group_of, is_pod, key_of, name_of, namespace_of
from workload_map.tree.build import build_tree
from workload_map.tree.model import WorkloadTree


class ClusterView:
    @bulk
    def __init__(self, snapshot: Snapshot, definitions: Iterable[LoadedDefinition] | DefinitionRegistry) -> None:
        self.snapshot = snapshot
        self.registry = definitions if isinstance(definitions, DefinitionRegistry) else DefinitionRegistry(definitions)
        self.warnings: list[str] = []
        self._pods_by_owner: dict[int, list[Obj]] = defaultdict(list)
        self._covered_owner: dict[int, Obj] = {}
        self._children: dict[int, list[Obj]] = defaultdict(list)
        self._index()

    def _covered(self, obj: Obj) -> bool:
        return self.registry.covers(group_of(str(obj.get("apiVersion") or "")), str(obj.get("kind") or ""))

    def _index(self) -> None:
        reported: set[str] = set()
        for obj in self.snapshot:
            chain = self.snapshot.owner_chain(obj)
            if chain.broken and chain.broken not in reported and (is_pod(obj) or self._covered(obj)):
                reported.add(chain.broken)
                self.warnings.append(chain.broken)
            if is_pod(obj):
                for owner in chain.owners:
                    self._pods_by_owner[id(owner)].append(obj)
            if self._covered(obj):
                covered_owners = [o for o in chain.owners if self._covered(o)]
                if covered_owners:
                    self._covered_owner[id(obj)] = covered_owners[-1]
                    if not is_pod(obj):
                        self._children[id(covered_owners[0])].append(obj)

    # -- queries
    def workloads(
        self,
        kind: KindInfo | None = None,
        namespace: str | None = None,
        *,
        top_level: bool = True,
    ) -> list[Obj]:
        """Covered workloads, outermost only unless ``top_level`` is False, sorted by namespace and name."""
        out = []
        for obj in self.snapshot:
            if not self._covered(obj):
                continue
            if kind is not None and (group_of(str(obj.get("apiVersion") or "")), obj.get("kind")) != (
                kind.group,
                kind.kind,
            ):
                continue
            if namespace is not None and namespace_of(obj) != namespace:
                continue
            if top_level and id(obj) in self._covered_owner:
                continue
            out.append(obj)
        return sorted(out, key=lambda o: (namespace_of(o), str(o.get("kind")), name_of(o)))

    def owner_workload(self, obj: Obj) -> Obj | None:
        """The outermost covered workload that owns this one, if any."""
        return self._covered_owner.get(id(obj))

    def find(self, kind: KindInfo, name: str, namespace: str | None) -> list[Obj]:
        return [o for o in self.workloads(kind, namespace, top_level=False) if name_of(o) == name]

    def pods_of(self, workload: Obj) -> list[Obj]:
        if is_pod(workload):
            return [workload]
        return list(self._pods_by_owner.get(id(workload), []))

    def tree(self, workload: Obj) -> WorkloadTree:
        definition, version_warning = self.registry.for_object(workload)
        if definition is None:
            raise LookupError(f"no definition covers {workload.get('kind')} ({workload.get('apiVersion')})")
        warnings = [version_warning] if version_warning else []
        return build_tree(
            definition,
            workload,
            self.pods_of(workload),
            children=self._children.get(id(workload), []),
            extra_warnings=warnings,
        )

    @bulk
    def trees(self, workloads: Iterable[Obj]) -> tuple[list[WorkloadTree], list[str]]:
        """Trees for many workloads; one that cannot be resolved becomes a warning, not a failure."""
        trees, problems = [], []
        for workload in workloads:
            try:
                trees.append(self.tree(workload))
            except (LookupError, RecursionError, ValueError, TypeError) as exc:
                problems.append(f"{key_of(workload)}: cannot resolve: {exc}")
        return trees, problems


def describe_object(obj: Any) -> str:
    return str(key_of(obj)) if isinstance(obj, dict) else repr(obj)
