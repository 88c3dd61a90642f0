"""How many complete copies of a workload a cluster can take now, and, when one more does not fit, why.

The algorithm (docs/placement.md, "How fit places pods"): every pod-producing component's pods go to the
nodes its node claim allows (schedulable, nodeSelector, required affinity, tolerated taints, offering every
resource it requests), best fit first (the node with the least free of the pod's main resource that still
holds it), gang groups largest first, a copy placed whole or not at all, the namespace's ResourceQuotas
charged per copy. Copies are tried in batches that double while they fit and halve once one does not, so
counting N copies costs about 2·log2(N) placements, not N.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from workload_map.base.objects import Obj
from workload_map.placement.capacity import PODS, Capacity, QuotaState, quota_keys
from workload_map.placement.packing import Demand, Journal, Placer, Shared, demand_of
from workload_map.placement.requirements import ComponentRequirement, WorkloadRequirements
from workload_map.resolve.quantity import format_quantity
from workload_map.resolve.resources import gpu_count, is_gpu_resource

FIT_API_VERSION = "workload-map/v1alpha1"
DEFAULT_MAX_COPIES = 1000
ZERO = Decimal(0)


def _number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


@dataclass
class Blocker:
    """Why one more copy does not fit. ``kind``: empty (no pods to place), nodes (none schedulable), claim
    (no node matches the node claim), taints, resources (no node offers a requested resource), room (not
    enough free room), quota, limit (counting stopped at ``max_copies``)."""

    kind: str
    message: str
    component: str | None = None
    group: str | None = None

    def to_json(self) -> Obj:
        return {"kind": self.kind, "component": self.component, "group": self.group, "message": self.message}


@dataclass
class CopyPlacement:
    """Where the first copy's pods go: node -> component -> pods, and the GPUs left free after it."""

    nodes: dict[str, dict[str, int]]
    gpus_left: Decimal

    @property
    def nodes_used(self) -> int:
        return len(self.nodes)

    def to_json(self) -> Obj:
        return {
            "nodesUsed": self.nodes_used,
            "gpusLeft": _number(self.gpus_left),
            "nodes": [{"node": n, "pods": dict(sorted(c.items()))} for n, c in sorted(self.nodes.items())],
        }


@dataclass
class FitResult:
    """The verdict for one workload on one cluster: ``copies`` complete copies fit now (0: it does not
    fit, ``blocking`` says why); ``first_copy`` is where one copy would go."""

    workload: dict[str, str]
    copies: int
    max_copies: int
    blocking: Blocker | None
    first_copy: CopyPlacement | None
    gpus_free: Decimal  # on schedulable nodes, before placing anything (the workload's own pods counted free)
    pods_per_copy: int
    gpus_per_copy: Decimal
    own_pods: int = 0  # pods the workload already holds on nodes, counted as free
    warnings: list[str] = field(default_factory=list)
    cluster: str | None = None

    @property
    def fits(self) -> bool:
        return self.copies > 0

    @property
    def capped(self) -> bool:
        """Counting stopped at ``max_copies``: at least that many fit."""
        return self.blocking is not None and self.blocking.kind == "limit"

    def verdict(self) -> str:
        """One line a person acts on."""
        if not self.fits:
            return f"does not fit: {self.blocking.message if self.blocking else 'nothing to place'}"
        first = self.first_copy
        assert first is not None
        copies = f"at least {self.copies}" if self.capped else str(self.copies)
        line = (
            f"fits: {copies} complete {'copy' if self.copies == 1 else 'copies'}; one copy uses "
            f"{_plural(first.nodes_used, 'node')} and leaves {_number(first.gpus_left)} GPUs free"
        )
        if self.blocking is not None and not self.capped:
            line += f" (one more: {self.blocking.message})"
        return line

    def to_json(self) -> Obj:
        return {
            "apiVersion": FIT_API_VERSION,
            "kind": "FitResult",
            **({"cluster": self.cluster} if self.cluster is not None else {}),
            "workload": dict(self.workload),
            "fits": self.fits,
            "copies": self.copies,
            "copiesCapped": self.capped,
            "maxCopies": self.max_copies,
            "verdict": self.verdict(),
            "perCopy": {"pods": self.pods_per_copy, "gpus": _number(self.gpus_per_copy)},
            "gpusFree": _number(self.gpus_free),
            "firstCopy": self.first_copy.to_json() if self.first_copy else None,
            "blocking": self.blocking.to_json() if self.blocking else None,
            "ownPodsCountedFree": self.own_pods,
            "warnings": list(self.warnings),
        }


def _describe(demand: Demand) -> str:
    """``8 GPUs``, or ``4 CPU, 16Gi memory`` for pods without GPUs."""
    values = dict(demand)
    gpus = gpu_count(values)
    if gpus:
        return f"{_number(gpus)} GPU{'s' if gpus != 1 else ''}"
    parts = []
    if values.get("cpu"):
        parts.append(f"{format_quantity(values['cpu'], 'cpu')} CPU")
    if values.get("memory"):
        parts.append(f"{format_quantity(values['memory'], 'memory')} memory")
    others = [f"{format_quantity(v, k)} {k}" for k, v in demand if k not in ("cpu", "memory", PODS)]
    return ", ".join(parts + others) or "no requests"


def _label(resource: str) -> str:
    if is_gpu_resource(resource):
        return "GPUs"
    return {"cpu": "CPU", "memory": "memory", PODS: "pod slots"}.get(resource, resource)


@dataclass
class _Unit:
    group: str | None  # the gang group, None for pods outside every group
    members: list[tuple[ComponentRequirement, int]]


class _Placer:
    def __init__(self, requirements: WorkloadRequirements, capacity: Capacity) -> None:
        self.requirements = requirements
        self.shared = Shared.of(capacity)
        self.engine = Placer(self.shared)
        self.warnings: list[str] = []
        self.own_pods = 0
        own_usage: list[Mapping[str, Decimal]] = []
        for key in requirements.own_pods:
            pod = capacity.pod(key)
            if pod is None:
                continue
            own_usage.append(pod.usage)
            if pod.node is not None and self.engine.give_back(pod.node, pod.usage):
                self.own_pods += 1
        self.components = [c for c in requirements.components if c.replicas > 0]
        self.demands = {c.name: demand_of(c) for c in self.components}
        self.eligible = {c.name: self.shared.eligible(c, self.demands[c.name]) for c in self.components}
        self.static = {c.name: self.shared.static(self.eligible[c.name], self.demands[c.name]) for c in self.components}
        self.quotas = self._quotas(capacity.quotas_in(requirements.namespace), own_usage)
        self.units = self._units()
        self.placed = 0  # copies placed so far

    def _quotas(
        self, quotas: list[QuotaState], own_usage: list[Mapping[str, Decimal]]
    ) -> list[tuple[QuotaState, dict[str, Decimal], dict[str, Decimal]]]:
        """(quota, remaining, one copy's need) for every quota that applies to all pods."""
        out = []
        for quota in quotas:
            if quota.scoped:
                self.warnings.append(f"ResourceQuota {quota.namespace}/{quota.name} has scopes: not checked")
                continue
            limits = sorted(k for k in quota.hard if k.startswith("limits."))
            if limits:
                self.warnings.append(
                    f"ResourceQuota {quota.namespace}/{quota.name}: {', '.join(limits)} not checked "
                    "(limits are not modelled)"
                )
            remaining = {k: quota.remaining(k) for k in quota.hard}
            for usage in own_usage:
                for resource, value in usage.items():
                    for key in quota_keys(resource):
                        if key in remaining:
                            remaining[key] += value
            need: dict[str, Decimal] = {}
            for component in self.components:
                for resource, value in self.demands[component.name]:
                    for key in quota_keys(resource):
                        if key in quota.hard:
                            need[key] = need.get(key, ZERO) + value * component.replicas
            if need:
                out.append((quota, remaining, need))
        return out

    def _units(self) -> list[_Unit]:
        """Gang groups, the most GPUs first, then each component's pods outside every group."""
        names = {c.name: c for c in self.components}
        grouped: Counter[str] = Counter()
        units = []
        for group in self.requirements.gang_groups:
            members = [(names[n], count) for n, count in group.members.items() if n in names and count > 0]
            if members:
                units.append(_Unit(group.name, members))
                for component, count in members:
                    grouped[component.name] += count
        units.sort(key=lambda u: (-sum(c.gpus * n for c, n in u.members), -sum(n for _, n in u.members), u.group or ""))
        for component in self.components:
            rest = component.replicas - grouped[component.name]
            if rest > 0:
                units.append(_Unit(None, [(component, rest)]))
        for unit in units:
            # The scarcest pods first: most GPUs, then the most of them (the bottleneck a verdict names).
            unit.members.sort(key=lambda m: (-m[0].gpus, -m[1], -m[0].resource_request.get("cpu", ZERO), m[0].name))
        return units

    def attempt(self, copies: int, explain: bool) -> tuple[bool, Any]:
        """Place ``copies`` copies at once; on success keep them and return where the pods went, else
        undo everything and return the Blocker (worded only when ``explain``)."""
        for quota, remaining, need in self.quotas:
            for key, value in sorted(need.items()):
                if value * copies > remaining[key]:
                    return False, self._quota_blocker(quota, key, remaining[key], value) if explain else None
        engine = self.engine
        journal: Journal = []
        placed: dict[str, dict[str, int]] = {}
        nodes = self.shared.nodes
        for unit in self.units:
            for component, count in unit.members:
                name = component.name
                demand = self.demands[name]
                wanted = count * copies
                left = wanted
                mine: Journal = []
                for i, room in engine.candidates(self.eligible[name], self.static[name], demand):
                    take = room if room < left else left
                    engine.place(i, demand, take, mine)
                    on_node = placed.setdefault(nodes[i].name, {})
                    on_node[name] = on_node.get(name, 0) + take
                    left -= take
                    if not left:
                        break
                if left:
                    # Worded on the room the copy's earlier members left, before this component's pods.
                    engine.undo(mine)
                    earlier = sum(t for _, _, t in journal)
                    blocker = self._room_blocker(component, unit, wanted, earlier) if explain else None
                    engine.undo(journal)
                    return False, blocker
                journal.extend(mine)
        for _quota, remaining, need in self.quotas:
            for key, value in need.items():
                remaining[key] -= value * copies
        self.placed += copies
        return True, placed

    # -- words
    def _quota_blocker(self, quota: QuotaState, key: str, remaining: Decimal, need: Decimal) -> Blocker:
        base = key.removeprefix("requests.")
        used = format_quantity(quota.used.get(key, ZERO), base)
        placed = ""
        if self.placed:
            placed = f" and {self.placed} {'copy' if self.placed == 1 else 'copies'} placed"
        return Blocker(
            "quota",
            f"namespace {quota.namespace}: ResourceQuota {quota.name} allows {key} "
            f"{format_quantity(quota.hard[key], base)}; {used} used{placed} leave "
            f"{format_quantity(max(remaining, ZERO), base)}, one copy needs {format_quantity(need, base)}",
        )

    def _room_blocker(self, component: ComponentRequirement, unit: _Unit, wanted: int, earlier: int) -> Blocker:
        name = component.name
        eligible = self.eligible[name]
        if not eligible.nodes:
            kind, message = self._ineligible(component, eligible.funnel)
            return Blocker(kind, message, name, unit.group)
        static = self.static[name]
        demand = self.demands[name]
        room, with_room = self.engine.room_now(eligible, static, demand)
        what = _describe(demand)
        pods = _plural(wanted, "pod")
        need = "needs" if wanted == 1 else "need"
        if static.one_per_node:
            such = _plural(with_room, "such node")
            message = f"{name}: {pods} x {what} {need} {_plural(wanted, 'node')} with {what} free; {such}"
        else:
            count = len(eligible.nodes)
            nodes = "the 1 matching node has" if count == 1 else f"the {count} matching nodes have"
            message = f"{name}: {pods} x {what} {need} room for {wanted}; {nodes} room for {room}"
        by_resource = {r: self.engine.resource_now(eligible, static, r, v) for r, v in demand}
        resource, per_pod = min(demand, key=lambda rv: by_resource[rv[0]][0])
        _, total, best = by_resource[resource]
        if total >= per_pod * wanted:
            message += (
                f" ({format_quantity(total, resource)} {_label(resource)} are free on them in total, but at most "
                f"{format_quantity(best, resource)} on one node)"
            )
        elif resource != demand[0][0]:
            message += f" ({_label(resource)} are the limit: {format_quantity(total, resource)} free)"
        if earlier:
            message += f", after the copy's {_plural(earlier, 'other pod')} {'is' if earlier == 1 else 'are'} placed"
        if unit.group is not None and sum(n for _, n in unit.members) > 1:
            message += f"; gang group {unit.group} needs all its {sum(n for _, n in unit.members)} members at once"
        return Blocker("room", message, name, unit.group)

    def _ineligible(self, component: ComponentRequirement, funnel: dict[str, Any]) -> tuple[str, str]:
        name = component.name
        claim = component.node_claim
        nodes = self.shared.nodes
        if funnel["nodes"] == 0:
            return "nodes", "the cluster has no nodes (no Node objects were read)"
        if funnel["schedulable"] == 0:
            not_ready = sum(1 for n in nodes if not n.schedulable)
            return "nodes", f"no node is schedulable ({_plural(not_ready, 'node')} not Ready or cordoned)"
        if funnel["selector"] == 0:
            hints = []
            for key in sorted(claim.node_selector):
                values = sorted({n.labels[key] for n in nodes if n.schedulable and key in n.labels})
                hints.append(f"{key}: {', '.join(values)}" if values else f"no node has label {key}")
            return "claim", (
                f"{name}: no schedulable node matches nodeSelector "
                + ", ".join(f"{k}={v}" for k, v in sorted(claim.node_selector.items()))
                + f" ({'; '.join(hints)})"
            )
        if funnel["affinity"] == 0:
            count = _plural(funnel["selector"], "schedulable node")
            return "claim", f"{name}: none of the {count} matching its nodeSelector meets its required node affinity"
        if funnel["tolerated"] == 0:
            taint, count = funnel["taints"].most_common(1)[0]
            those = "the 1 node" if funnel["affinity"] == 1 else f"the {funnel['affinity']} nodes"
            have = "has a taint" if funnel["affinity"] == 1 else "have taints"
            return "taints", (
                f"{name}: {those} matching {claim.describe()} {have} it does not tolerate ({taint} on {count}); "
                "add a toleration or use other nodes"
            )
        resource, _ = funnel["missing"].most_common(1)[0]
        return "resources", f"{name}: none of the {_plural(funnel['tolerated'], 'node')} it may use offers {resource}"

    def gpus_free(self) -> Decimal:
        return self.engine.gpus_free()


def fit(
    requirements: WorkloadRequirements,
    capacity: Capacity,
    *,
    max_copies: int = DEFAULT_MAX_COPIES,
    cluster: str | None = None,
) -> FitResult:
    """How many complete copies of ``requirements`` fit on ``capacity`` now (docs/placement.md)."""
    if max_copies < 1:
        raise ValueError("max_copies must be at least 1")
    placer = _Placer(requirements, capacity)
    gpus_free = placer.gpus_free()
    per_copy_pods = sum(c.replicas for c in placer.components)
    per_copy_gpus = sum((c.gpus * c.replicas for c in placer.components), ZERO)
    workload = {
        "apiVersion": requirements.api_version,
        "kind": requirements.kind,
        "namespace": requirements.namespace,
        "name": requirements.name,
    }
    warnings = [*capacity.warnings, *requirements.warnings, *placer.warnings]
    if not placer.components:
        empty = Blocker("empty", "the workload asks for no pods now (every component has 0 replicas)")
        return FitResult(workload, 0, max_copies, empty, None, gpus_free, 0, ZERO, placer.own_pods, warnings, cluster)
    copies, batch, grow = 0, 1, True
    first: CopyPlacement | None = None
    blocker: Blocker | None = None
    while True:
        if copies >= max_copies:
            blocker = Blocker("limit", f"counting stopped at {max_copies} copies")
            break
        batch = min(batch, max_copies - copies)
        ok, outcome = placer.attempt(batch, explain=batch == 1)
        if ok:
            copies += batch
            if first is None:
                first = CopyPlacement(outcome, gpus_free - per_copy_gpus)
            if grow:
                batch *= 2
        elif batch == 1:
            blocker = outcome
            break
        else:
            grow = False
            batch //= 2
    return FitResult(
        workload,
        copies,
        max_copies,
        blocker,
        first,
        gpus_free,
        per_copy_pods,
        per_copy_gpus,
        placer.own_pods,
        warnings,
        cluster,
    )


def rank_fits(results: Iterable[FitResult]) -> list[FitResult]:
    """Clusters best first for one workload: those where it fits, the most complete copies first (the most
    headroom), then the fewest nodes one copy uses, then the fewest GPUs it leaves idle (the tightest fit),
    then by cluster name; those where it does not fit after, by name."""

    def key(result: FitResult) -> tuple[Any, ...]:
        first = result.first_copy
        if first is None:
            return (1, 0, 0, ZERO, result.cluster or "")
        return (0, -result.copies, first.nodes_used, first.gpus_left, result.cluster or "")

    return sorted(results, key=key)
