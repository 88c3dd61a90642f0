"""The placement engine behind :func:`workload_map.placement.fit` (docs/placement.md, section 3).

What every fit on one :class:`Capacity` shares is computed once and kept with it (:class:`Shared`): the
nodes' free resources before anything is placed, which nodes each node claim may use, and, per pod shape,
those nodes in best-fit order with the room each has. A fit then only keeps copies of the nodes it touches
(:class:`Placer`), so its cost follows the pods it places, not the size of the cluster.
"""

from __future__ import annotations

import bisect
import heapq
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from workload_map.placement.capacity import PODS, Capacity, NodeCapacity
from workload_map.placement.claims import NodeClaim
from workload_map.placement.requirements import ComponentRequirement
from workload_map.resolve.resources import gpu_count, is_gpu_resource

ZERO = Decimal(0)
Demand = tuple[tuple[str, Decimal], ...]
Free = dict[str, Decimal]
SortKey = tuple[Any, ...]


def demand_of(component: ComponentRequirement) -> Demand:
    """What one pod takes from a node: its non-zero requests and one pod slot, GPUs first."""
    items = {k: v for k, v in component.resource_request.items() if v > 0 and k != PODS}
    items[PODS] = Decimal(1)
    return tuple(sorted(items.items(), key=lambda kv: (not is_gpu_resource(kv[0]), kv[0] != "cpu", kv[0])))


def room(free: Mapping[str, Decimal], demand: Demand) -> int:
    """How many such pods ``free`` holds."""
    most: int | None = None
    for resource, value in demand:
        have = free.get(resource, ZERO)
        if have < value:
            return 0
        n = int(have // value)
        if most is None or n < most:
            most = n
    return most or 0


def implied_tolerations(component: ComponentRequirement) -> list[dict[str, str]]:
    """The tolerations the ExtendedResourceToleration admission plugin adds to a pod requesting an
    extended resource (``nvidia.com/gpu``): GPU nodes are tainted with the resource's name, and the pods
    that reach them carry these, though their templates do not."""
    return [
        {"key": name, "operator": "Exists", "effect": effect}
        for name in sorted(component.resource_request)
        if "/" in name and not name.startswith("kubernetes.io/") and component.resource_request[name] > 0
        for effect in ("NoSchedule", "NoExecute")
    ]


def sort_key(demand: Demand) -> Callable[[Free, int], SortKey]:
    """Best fit: the least free of the pod's first resource (GPUs, else CPU) first, then the node order;
    pods without GPUs go to nodes without free GPUs first."""
    first = demand[0][0]
    if is_gpu_resource(first):
        return lambda free, i: (free.get(first, ZERO), i)
    return lambda free, i: (gpu_count(free) > 0, free.get(first, ZERO), i)


@dataclass
class Eligible:
    """The nodes one claim may use (indices into :attr:`Shared.nodes`) and why the others may not."""

    key: tuple[str, tuple[str, ...]]  # the claim (with implied tolerations) and the resources asked for
    nodes: list[int]
    members: frozenset[int]
    funnel: dict[str, Any]


@dataclass
class ResourceIndex:
    """One resource on the nodes of one claim, before anything is placed: (free, node) ascending, the
    same split by whether the node has free GPUs (the order of pods without GPUs), and the total."""

    values: list[tuple[Decimal, int]]
    split: list[tuple[bool, Decimal, int]]
    total: Decimal


@dataclass
class Static:
    """One pod shape on its eligible nodes before anything is placed: the nodes with room for one, best
    fit first, with their room."""

    order: list[tuple[SortKey, int, int]]  # (sort key, node, room)
    rooms: dict[int, int]  # node -> room, for the nodes in ``order`` (every other eligible node: 0)
    one_per_node: bool  # no eligible node could hold two such pods even empty
    indexes: dict[str, ResourceIndex] = field(default_factory=dict)

    @property
    def room_total(self) -> int:
        return sum(self.rooms.values())


class Shared:
    """What every fit on one Capacity reads: built on the first fit, kept on the Capacity."""

    def __init__(self, capacity: Capacity) -> None:
        self.nodes: list[NodeCapacity] = capacity.nodes
        self.free: list[Free] = [n.free for n in self.nodes]
        self.index = {n.name: i for i, n in enumerate(self.nodes)}
        self.gpus_free = sum(
            (max(gpu_count(f), ZERO) for n, f in zip(self.nodes, self.free, strict=True) if n.schedulable), ZERO
        )
        self.gpu_free = [max(gpu_count(f), ZERO) for f in self.free]
        self._eligible: dict[tuple[str, tuple[str, ...]], Eligible] = {}
        self._static: dict[tuple[tuple[str, tuple[str, ...]], Demand], Static] = {}
        self._indexes: dict[tuple[tuple[str, tuple[str, ...]], str], ResourceIndex] = {}
        self._kinds: dict[tuple[str, tuple[str, ...]], list[int]] = {}

    @classmethod
    def of(cls, capacity: Capacity) -> Shared:
        shared = capacity.cache.get("placement")
        if not isinstance(shared, Shared):
            shared = capacity.cache["placement"] = cls(capacity)
        return shared

    def eligible(self, component: ComponentRequirement, demand: Demand) -> Eligible:
        claim = component.node_claim
        implied = implied_tolerations(component)
        if implied:
            claim = NodeClaim(claim.node_selector, [*claim.tolerations, *implied], claim.hard_node_affinity)
        key = (claim.key(), tuple(r for r, _ in demand))
        found = self._eligible.get(key)
        if found is None:
            found = self._eligible[key] = self._filter(key, claim, demand)
        return found

    def _filter(self, key: tuple[str, tuple[str, ...]], claim: NodeClaim, demand: Demand) -> Eligible:
        funnel: dict[str, Any] = {"nodes": len(self.nodes), "taints": Counter(), "missing": Counter()}
        out = [i for i, n in enumerate(self.nodes) if n.schedulable]
        funnel["schedulable"] = len(out)
        out = [i for i in out if claim.selector_matches(self.nodes[i].labels)]
        funnel["selector"] = len(out)
        out = [i for i in out if claim.affinity_matches(self.nodes[i].labels, self.nodes[i].name)]
        funnel["affinity"] = len(out)
        tolerated = []
        for i in out:
            blocking = claim.untolerated(self.nodes[i].taints)
            if blocking:
                funnel["taints"][str(blocking[0])] += 1
            else:
                tolerated.append(i)
        funnel["tolerated"] = len(tolerated)
        offering = []
        for i in tolerated:
            missing = [r for r, _ in demand if r not in self.nodes[i].allocatable]
            if missing:
                funnel["missing"][missing[0]] += 1
            else:
                offering.append(i)
        funnel["offering"] = len(offering)
        return Eligible(key, offering, frozenset(offering), funnel)

    def resource_index(self, eligible: Eligible, resource: str) -> ResourceIndex:
        key = (eligible.key, resource)
        found = self._indexes.get(key)
        if found is None:
            values = [(max(self.free[i].get(resource, ZERO), ZERO), i) for i in eligible.nodes]
            split = sorted((self.gpu_free[i] > 0, v, i) for v, i in values)
            values.sort()
            found = self._indexes[key] = ResourceIndex(values, split, sum((v for v, _ in values), ZERO))
        return found

    def static(self, eligible: Eligible, demand: Demand) -> Static:
        key = (eligible.key, demand)
        found = self._static.get(key)
        if found is not None:
            return found
        first, per_pod = demand[0]
        index = self.resource_index(eligible, first)
        keyfn = sort_key(demand)
        # Only nodes with enough of the first resource can hold one: a suffix of the sorted values.
        if is_gpu_resource(first):
            start = bisect.bisect_left(index.values, (per_pod, -1))
            candidates = [i for _, i in index.values[start:]]
        else:
            candidates = []
            for has_gpus in (False, True):
                start = bisect.bisect_left(index.split, (has_gpus, per_pod, -1))
                end = bisect.bisect_left(index.split, (not has_gpus, ZERO, -1)) if not has_gpus else len(index.split)
                candidates.extend(i for _, _, i in index.split[start:end])
        rooms = {i: n for i in candidates if (n := room(self.free[i], demand)) > 0}
        order = [(keyfn(self.free[i], i), i, rooms[i]) for i in candidates if i in rooms]
        one_per_node = all(room(self.nodes[i].allocatable, demand) <= 1 for i in self._allocatable_kinds(eligible))
        static = Static(order, rooms, one_per_node)
        for resource, _ in demand:
            static.indexes[resource] = self.resource_index(eligible, resource)
        self._static[key] = static
        return static

    def _allocatable_kinds(self, eligible: Eligible) -> list[int]:
        """One node per distinct allocatable among the eligible ones (node types are few)."""
        found = self._kinds.get(eligible.key)
        if found is None:
            seen: dict[tuple[tuple[str, Decimal], ...], int] = {}
            for i in eligible.nodes:
                seen.setdefault(tuple(sorted(self.nodes[i].allocatable.items())), i)
            found = self._kinds[eligible.key] = list(seen.values())
        return found


Journal = list[tuple[Free, Demand, int]]


class Placer:
    """One fit's view of the nodes: the shared state plus private copies of the nodes it changed."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.touched: dict[int, Free] = {}

    def free(self, i: int) -> Free:
        touched = self.touched.get(i)
        return touched if touched is not None else self.shared.free[i]

    def writable(self, i: int) -> Free:
        touched = self.touched.get(i)
        if touched is None:
            touched = self.touched[i] = dict(self.shared.free[i])
        return touched

    def give_back(self, node: str, usage: Mapping[str, Decimal]) -> bool:
        """Count a pod of the workload itself as not there (it is placed anew); False: node unknown."""
        i = self.shared.index.get(node)
        if i is None:
            return False
        free = self.writable(i)
        for resource, value in usage.items():
            if resource in free:
                free[resource] += value
        return True

    def gpus_free(self) -> Decimal:
        delta = ZERO
        for i, free in self.touched.items():
            if self.shared.nodes[i].schedulable:
                delta += max(gpu_count(free), ZERO) - max(gpu_count(self.shared.free[i]), ZERO)
        return self.shared.gpus_free + delta

    def candidates(self, eligible: Eligible, static: Static, demand: Demand) -> Iterator[tuple[int, int]]:
        """(node, room) of the eligible nodes with room, best fit first, as the nodes are now."""
        keyfn = sort_key(demand)
        touched = self.touched
        changed = sorted((keyfn(free, i), i) for i, free in list(touched.items()) if i in eligible.members)
        untouched = ((k, i) for k, i, _ in static.order if i not in touched)
        for _, i in heapq.merge(changed, untouched):
            n = room(self.free(i), demand)
            if n > 0:
                yield i, n

    def place(self, i: int, demand: Demand, take: int, journal: Journal) -> None:
        free = self.writable(i)
        for resource, value in demand:
            free[resource] -= value * take
        journal.append((free, demand, take))

    @staticmethod
    def undo(journal: Journal) -> None:
        for free, demand, take in reversed(journal):
            for resource, value in demand:
                free[resource] += value * take
        journal.clear()

    # -- what a verdict says about the room left
    def room_now(self, eligible: Eligible, static: Static, demand: Demand) -> tuple[int, int]:
        """(room in total, nodes with room) on the eligible nodes as they are now."""
        total, with_room = static.room_total, len(static.rooms)
        for i, free in list(self.touched.items()):
            if i in eligible.members:
                before, now = static.rooms.get(i, 0), room(free, demand)
                total += now - before
                with_room += (now > 0) - (before > 0)
        return total, with_room

    def resource_now(
        self, eligible: Eligible, static: Static, resource: str, per_pod: Decimal
    ) -> tuple[int, Decimal, Decimal]:
        """(pods by this resource alone, free in total, the most free on one node) on the eligible nodes
        as they are now."""
        index = static.indexes[resource]
        start = bisect.bisect_left(index.values, (per_pod, -1))
        floors = sum(int(v // per_pod) for v, _ in index.values[start:])
        total = index.total
        best = ZERO
        for i, free in list(self.touched.items()):
            if i in eligible.members:
                before = max(self.shared.free[i].get(resource, ZERO), ZERO)
                now = max(free.get(resource, ZERO), ZERO)
                floors += int(now // per_pod) - int(before // per_pod)
                total += now - before
                best = max(best, now)
        for value, i in reversed(index.values):
            if i not in self.touched:
                best = max(best, value)
                break
        return floors, total, best
