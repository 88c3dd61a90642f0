"""Subtree scale: the gang size arithmetic of KAI Scheduler's Karta grouper (docs/gang.md, "Min members").

A component's own count is ``minReplicas`` if > 0, else ``replicas`` if > 0, else 0, summed over its
instances (or only the pod's instance when the group is per instance). A parent multiplies its own
count by the sum of its children's; own 0 -> the children's sum; children 0 -> own. When no component
of the definition has a ``scaleDefinition``, the size is the number of pod-producing component
instances in the subtree.

Besides the number, we keep how it splits over pod-producing component instances ("shapes"), which is
what min resources and derived sub-groups are made of. A component the definition declares created after
the gang starts (annotation ``DEFERRED_ANNOTATION``) whose minimum is 0 keeps KAI's count in the size, but
its share of the shapes goes to its siblings' pods, which are what the gang holds before it exists.
"""

from __future__ import annotations

from dataclasses import dataclass

from workload_map.definition.model import Karta
from workload_map.resolve.components import Component, Scale

MIN = "min"  # minReplicas first: the gang minimum
DESIRED = "desired"  # replicas first: the pods the spec asks for

# Karta metadata annotation (KAI ignores it): comma-separated components whose pods the operator creates
# only once the rest of the gang runs, when their minimum evaluates to 0 (docs/gang.md section 4).
DEFERRED_ANNOTATION = "workload-map.run.ai/gang-deferred-components"


class ScaleError(ValueError):
    pass


def effective_count(scale: Scale, mode: str = MIN) -> int:
    first, second = (scale.min_replicas, scale.replicas) if mode == MIN else (scale.replicas, scale.min_replicas)
    if first is not None and first > 0:
        return first
    if second is not None and second > 0:
        return second
    return 0


@dataclass(frozen=True)
class Part:
    component: str
    instance: str | None
    count: int


class SubtreeScale:
    def __init__(self, karta: Karta, components: dict[str, Component]) -> None:
        self.karta = karta
        self.components = components
        self.children: dict[str, list[str]] = {
            name: [c.name for c in karta.children_of(name) if c.name in components] for name in components
        }
        self.has_scale_definition = any(c.scale_definition is not None for c in karta.components)
        self.notes: list[str] = []
        self.deferred = self._deferred_components()

    # -- public
    def parts(self, component: str, instance: str | None = None, mode: str = MIN) -> list[Part]:
        """The subtree's members split by pod-producing component instance; counts add up to the size."""
        if component not in self.components:
            raise ScaleError(f"component {component!r} is not part of the definition's tree")
        if self.has_scale_definition:
            parts = self._by_definition(component, component, instance, mode)
        else:
            parts = self._by_leaves(component, component, instance)
        return [p for p in parts if p.count > 0]

    def size(self, component: str, instance: str | None = None, mode: str = MIN) -> int:
        return sum(p.count for p in self.parts(component, instance, mode))

    def replica_groups(self, component: str, instance: str | None = None) -> int:
        """How many replicas of ``component`` exist: its replicas (1 when unset) times every ancestor's.

        Used to enumerate groups keyed by a replica key before pods exist.
        """
        comp = self.components[component]
        chosen = [i for i in comp.instances if instance is None or i.id == instance]
        total = sum(1 if i.scale.replicas is None else max(i.scale.replicas, 0) for i in chosen)
        parent = comp.parent
        while parent is not None and parent in self.components:
            ancestor = self.components[parent]
            total *= sum(1 if i.scale.replicas is None else max(i.scale.replicas, 0) for i in ancestor.instances)
            parent = ancestor.parent
        return total

    # -- KAI's calculateSubtreeScaleByDefinition
    def _own(self, name: str, root: str, instance: str | None, mode: str) -> list[tuple[str | None, int]]:
        comp = self.components[name]
        if comp.definition.scale_definition is None:
            return [(i.id, 0) for i in comp.instances]
        if len(comp.instances) > 1 and name == root and instance is not None:
            found = comp.instance(instance)
            if found is None:
                raise ScaleError(f"instance id {instance!r} not found in component {name!r}")
            return [(found.id, effective_count(found.scale, mode))]
        return [(i.id, effective_count(i.scale, mode)) for i in comp.instances]

    def _by_definition(self, name: str, root: str, instance: str | None, mode: str) -> list[Part]:
        own_list = self._own(name, root, instance, mode)
        own = sum(n for _, n in own_list)
        kids = self.children.get(name, [])
        if not kids:
            return [Part(name, i, n) for i, n in own_list]
        child_parts: list[Part] = []
        for kid in kids:
            child_parts.extend(self._by_definition(kid, root, instance, mode))
        if mode == MIN:
            child_parts = self._hand_over_deferred(child_parts, kids, root, instance)
        children_sum = sum(p.count for p in child_parts)
        if children_sum == 0:
            return self._attribute(name, own_list, own)
        if own == 0:
            return child_parts
        return [Part(p.component, p.instance, p.count * own) for p in child_parts]

    def _deferred_components(self) -> frozenset[str]:
        annotations = self.karta.metadata.get("annotations")
        value = annotations.get(DEFERRED_ANNOTATION) if isinstance(annotations, dict) else None
        if not isinstance(value, str):
            return frozenset()
        names = [n.strip() for n in value.split(",") if n.strip()]
        for name in names:
            if self.karta.component(name) is None:
                self.notes.append(
                    f"annotation {DEFERRED_ANNOTATION}: the definition has no component {name!r}; ignored"
                )
        return frozenset(n for n in names if self.karta.component(n) is not None)

    def _is_deferred(self, part: Part) -> bool:
        comp = self.components[part.component]
        if part.component not in self.deferred or not comp.has_pods:
            return False
        found = comp.instance(part.instance)
        return found is not None and found.scale.min_replicas == 0

    def _hand_over_deferred(self, parts: list[Part], kids: list[str], root: str, instance: str | None) -> list[Part]:
        """KAI counts a deferred component at its replicas (its minimum 0 falls back to them), and the definition
        takes that count off its siblings' minimums: the shapes give it back to the siblings' pods, up to the
        pods they ask for; what they cannot take stays on the deferred component."""
        spare = sum(p.count for p in parts if self._is_deferred(p))
        if spare == 0 or all(self._is_deferred(p) for p in parts):
            return parts
        wanted = {
            (p.component, p.instance): p.count
            for kid in kids
            for p in self._by_definition(kid, root, instance, DESIRED)
        }
        kept: list[Part] = []
        for part in parts:
            if self._is_deferred(part):
                continue
            give = min(spare, max(wanted.get((part.component, part.instance), 0) - part.count, 0))
            spare -= give
            kept.append(Part(part.component, part.instance, part.count + give))
        left = [p for p in parts if self._is_deferred(p)]
        if spare:
            note = (
                f"{', '.join(sorted({p.component for p in left}))}: created after the gang starts, yet KAI's "
                f"minimum counts {spare} of its pods that no other pod of the gang stands for"
            )
            if note not in self.notes:
                self.notes.append(note)
        for part in left:
            share = min(part.count, spare)
            spare -= share
            kept.append(Part(part.component, part.instance, share))
        return kept

    def _attribute(self, name: str, own_list: list[tuple[str | None, int]], own: int) -> list[Part]:
        """Children count 0: the count is this component's; give it to the pods that make it up."""
        comp = self.components[name]
        if comp.has_pods or own == 0:
            return [Part(name, i, n) for i, n in own_list]
        producers = [
            (d, inst.id)
            for d in self._descendants(name)
            if self.components[d].has_pods
            for inst in self.components[d].instances
        ]
        if not producers:
            return [Part(name, i, n) for i, n in own_list]
        if len(producers) == 1:
            return [Part(producers[0][0], producers[0][1], own)]
        self.notes.append(
            f"{name}: its count {own} is split evenly over {len(producers)} pod-producing descendants "
            "for resources (their own counts are 0)"
        )
        share, rest = divmod(own, len(producers))
        return [Part(d, i, share + (1 if index < rest else 0)) for index, (d, i) in enumerate(producers)]

    def _descendants(self, name: str) -> list[str]:
        out: list[str] = []
        for kid in self.children.get(name, []):
            out.append(kid)
            out.extend(self._descendants(kid))
        return out

    # -- KAI's calculateSubtreeScaleByLeaves
    def _by_leaves(self, name: str, root: str, instance: str | None) -> list[Part]:
        comp = self.components[name]
        if comp.has_pods:
            if comp.definition.instance_id_path is None:
                return [Part(name, comp.instances[0].id if comp.instances else None, 1)]
            if name == root and instance is not None:
                if comp.instance(instance) is None:
                    raise ScaleError(f"instance id {instance!r} not found in component {name!r}")
                return [Part(name, instance, 1)]
            return [Part(name, i.id, 1) for i in comp.instances]
        parts: list[Part] = []
        for kid in self.children.get(name, []):
            parts.extend(self._by_leaves(kid, root, instance))
        return parts
