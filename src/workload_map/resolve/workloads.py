"""Every covered workload of a snapshot: which objects are workloads, their owners, children and pods.

Trees are built from it by ``workload_map.tree.build.tree_of``.

The same code serves a dump on disk and a live cluster: the live layer only fills a Snapshot.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from workload_map.base.coverage import Cause, Gap, group_gaps, summary
from workload_map.base.gc_pause import bulk
from workload_map.base.snapshot import Obj, Snapshot, group_of, is_pod, key_of, name_of, namespace_of
from workload_map.definition.model import LoadedDefinition
from workload_map.definition.registry import DefinitionRegistry, KindInfo


class WorkloadIndex:
    @bulk
    def __init__(self, snapshot: Snapshot, definitions: Iterable[LoadedDefinition] | DefinitionRegistry) -> None:
        self.snapshot = snapshot
        self.registry = definitions if isinstance(definitions, DefinitionRegistry) else DefinitionRegistry(definitions)
        self.warnings: list[str] = []
        self._pods_by_owner: dict[int, list[Obj]] = defaultdict(list)
        self._covered_owner: dict[int, Obj] = {}
        self._children: dict[int, list[Obj]] = defaultdict(list)
        # Objects whose owner chain enters a gap of the snapshot's coverage: never top-level rows.
        self._in_gap: dict[int, Gap] = {}
        self.gap_members: dict[Gap, list[Obj]] = defaultdict(list)
        # Owners missing for another reason, per (group, kind, namespace): one warning line each.
        self.missing_owners: dict[tuple[str, str, str], list[str]] = defaultdict(list)
        self._relevant: dict[int, set[tuple[str, str]]] = {}
        self._index()
        self.warnings.extend(self.gap_warnings())
        self.warnings.extend(self.missing_owner_warnings())

    def _covered(self, obj: Obj) -> bool:
        return self.registry.covers(group_of(str(obj.get("apiVersion") or "")), str(obj.get("kind") or ""))

    def _index(self) -> None:
        coverage = self.snapshot.coverage
        reported: set[str] = set()
        for obj in self.snapshot:
            chain = self.snapshot.owner_chain(obj)
            relevant = is_pod(obj) or self._covered(obj)
            if chain.missing is not None and relevant:
                group, kind, namespace = chain.missing
                gap = coverage.gap_for(group, kind, namespace)
                if gap is not None:
                    self._in_gap[id(obj)] = gap
                    self.gap_members[gap].append(obj)
                elif self.snapshot.in_scope(group, kind, chain.missing_name):  # else a narrowed read left it out
                    self.missing_owners[(group, kind, namespace)].append(chain.broken or str(key_of(obj)))
            elif chain.broken and chain.broken not in reported and relevant:
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

    # -- what could not be seen
    def gap_warnings(self) -> list[str]:
        """One line per gap that matters: objects whose owners lie in it, or a kind the user may not read."""
        return gap_warnings(self.snapshot.coverage, self.gap_members)

    def missing_owner_warnings(self, *, verbose: bool = False) -> list[str]:
        """One line per owner kind and namespace: how many objects, an example and a hint; every object with
        ``verbose``."""
        lines = []
        for (group, kind, namespace), keys in sorted(self.missing_owners.items()):
            if self.registry.covers(group, kind) or (self.snapshot.listed and (group, kind) in self.snapshot.listed):
                hint = "deleted, or created after the list was read"
            else:
                hint = f"no definition covers {kind}{'.' + group if group else ''}, so it was not read"
            examples = "; ".join(sorted(keys)) if verbose else f"e.g. {keys[0]}"
            lines.append(
                f"{_count(len(keys), 'object')} in namespace {namespace} with a missing {kind} owner "
                f"({examples}): {hint}"
            )
        return lines

    def incomplete(self, workload: Obj) -> list[Gap]:
        """Gaps (forbidden or failed, in the workload's namespace) of the kinds its pods and parts are made of:
        its counts and status cannot be known from what was read."""
        gaps = [g for g in self.snapshot.coverage if g.cause is not Cause.NOT_SERVED]
        if not gaps:
            return []
        definition, _ = self.registry.for_object(workload)
        if definition is None:
            return []
        kinds = self._relevant_kinds(definition)
        namespace = namespace_of(workload)
        return [g for g in gaps if (g.group, g.kind) in kinds and g.covers(g.group, g.kind, namespace)]

    def _relevant_kinds(self, definition: LoadedDefinition) -> set[tuple[str, str]]:
        """Pods, and the kinds of the definition's components and child kinds, through covered kinds it creates."""
        cached = self._relevant.get(id(definition))
        if cached is not None:
            return cached
        kinds: set[tuple[str, str]] = {("", "Pod")}
        queue = [definition]
        seen = {id(definition)}
        while queue:
            karta = queue.pop().karta
            gvks = [c.kind for c in karta.components[1:] if c.kind is not None]
            gvks += list(karta.spec.structure_definition.additional_child_kinds)
            for gvk in gvks:
                kinds.add((gvk.group, gvk.kind))
                for other in self.registry.definitions:
                    identity = other.karta.identity
                    if identity and (identity.group, identity.kind) == (gvk.group, gvk.kind) and id(other) not in seen:
                        seen.add(id(other))
                        queue.append(other)
        self._relevant[id(definition)] = kinds
        return kinds

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
            if top_level and (id(obj) in self._covered_owner or id(obj) in self._in_gap):
                continue
            out.append(obj)
        # By name within a namespace (a kind is a column, not a section), the kind only between namesakes.
        return sorted(out, key=lambda o: (namespace_of(o), name_of(o), str(o.get("kind"))))

    def owner_workload(self, obj: Obj) -> Obj | None:
        """The outermost covered workload that owns this one, if any."""
        return self._covered_owner.get(id(obj))

    def find(self, kind: KindInfo, name: str, namespace: str | None) -> list[Obj]:
        return [o for o in self.workloads(kind, namespace, top_level=False) if name_of(o) == name]

    def pods_of(self, workload: Obj) -> list[Obj]:
        if is_pod(workload):
            return [workload]
        return list(self._pods_by_owner.get(id(workload), []))

    def children_of(self, workload: Obj) -> list[Obj]:
        """The covered objects this workload owns directly (its child workloads)."""
        return list(self._children.get(id(workload), []))


def gap_warnings(gaps: Iterable[Gap], members: Mapping[Gap, Sequence[Obj]]) -> list[str]:
    """One line per cause that matters, given the objects read whose owner chain enters each gap: those
    objects (not shown as workloads), or what a kind that could not be read leaves out. The gaps of one kind
    in many namespaces (``-A`` listed namespace by namespace) are one line, and so are the kinds refused
    alike in the same places with nothing of them seen (a namespaced Role). Shared by WorkloadIndex (one read)
    and the live model (which gathers ``members`` over every workload group it resolved)."""
    lines: list[str] = []
    unseen: dict[tuple[Cause, str, frozenset[str | None]], list[list[Gap]]] = {}  # kinds refused alike
    slots: dict[tuple[Cause, str, frozenset[str | None]], int] = {}
    for same in group_gaps(gaps):
        gap = same[0]
        why, fix = summary(same)
        inside = [o for g in same for o in members.get(g, [])]
        if (gap.group, gap.kind) == ("", "Pod"):  # unreadable pods: what they own is hidden with them
            hidden = f"; {_count(len(inside), 'object')} owned by them not shown" if inside else ""
            lines.append(f"{_capital(why)}: pod counts of the workloads there are unknown{hidden} (fix: {fix})")
        elif inside:
            pods = sum(1 for o in inside if is_pod(o))
            what = _count(pods, "pod") if pods == len(inside) else _count(len(inside), "object")
            lines.append(
                f"{what} {_where(list(inside))} belong to {gap.resource}, which {_which(gap)}: "
                f"not shown as workloads (fix: {fix})"
            )
        elif gap.cause is not Cause.NOT_SERVED:  # a CRD that is not installed is no news
            key: tuple[Cause, str, frozenset[str | None]] = (gap.cause, gap.user, frozenset(g.namespace for g in same))
            if key not in slots:
                slots[key] = len(lines)
                lines.append("")
            unseen.setdefault(key, []).append(same)
    for place, groups in unseen.items():
        lines[slots[place]] = _unseen_line(groups)
    return lines


def _unseen_line(groups: list[list[Gap]]) -> str:
    """Kinds that could not be read, nothing of them seen, refused alike in the same places."""
    why, fix = summary(groups[0])
    if len(groups) == 1:
        consequence = f"{groups[0][0].kind} workloads there are not shown, and those made of them are incomplete"
        return f"{_capital(why)}: {consequence} (fix: {fix})"
    first = groups[0][0]
    resources = [g[0].resource for g in groups]
    names = ", ".join(resources[:4]) + (f" and {len(resources) - 4} more" if len(resources) > 4 else "")
    why = why.replace(first.resource, names, 1)
    fix = fix.replace(first.resource, "them", 1)
    return f"{_capital(why)}: their workloads there are not shown, and those made of them are incomplete (fix: {fix})"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _where(objects: list[Obj]) -> str:
    namespaces = sorted({namespace_of(o) for o in objects})
    if len(namespaces) == 1:
        return f"in namespace {namespaces[0]}"
    return f"in {len(namespaces)} namespaces ({', '.join(namespaces[:3])}{', ...' if len(namespaces) > 3 else ''})"


def _which(gap: Gap) -> str:
    if gap.cause is Cause.FORBIDDEN:
        return f"{'user ' + repr(gap.user) if gap.user else 'the user'} may not list"
    if gap.cause is Cause.NOT_SERVED:
        return "the API server does not serve"
    return "could not be listed"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
