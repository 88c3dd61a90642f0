"""A cluster's capacity: what each node offers and what the pods bound to it already take, and namespace quotas.

Built from the same objects every read returns (Node, Pod and ResourceQuota objects of a dump or a live
read). A pod's usage is its effective request as the resolver computes it for workloads
(:func:`workload_map.resolve.resources.pod_resources`: init containers, sidecars, overhead, pod-level
resources, limits standing in for requests), never a second computation. docs/placement.md.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from workload_map.base.objects import Obj, meta, name_of, namespace_of
from workload_map.placement.claims import BLOCKING_EFFECTS, Taint, taints_of
from workload_map.resolve.quantity import QuantityError, format_quantity, parse_quantity
from workload_map.resolve.resources import Requests, gpu_count, pod_resources

PODS = "pods"  # the allocatable pod slots of a node: every pod takes one
TERMINAL = ("Succeeded", "Failed")
ZERO = Decimal(0)


def is_terminal(pod: Mapping[str, Any]) -> bool:
    status = pod.get("status")
    return isinstance(status, Mapping) and status.get("phase") in TERMINAL


def node_name_of(pod: Mapping[str, Any]) -> str | None:
    spec = pod.get("spec")
    node = spec.get("nodeName") if isinstance(spec, Mapping) else None
    return str(node) if node else None


def pod_key(pod: Obj) -> str:
    """What identifies a pod across reads: its uid, else namespace/name (hand-written dumps)."""
    uid = meta(pod).get("uid")
    return str(uid) if uid else f"{namespace_of(pod)}/{name_of(pod)}"


def pod_usage(pod: Mapping[str, Any], problems: list[str] | None = None) -> Requests:
    """What a pod takes from its node and its namespace's quota: its effective requests plus one pod slot.
    Requests that cannot be read are left out, and said in ``problems``."""
    spec = pod.get("spec")
    resources = pod_resources(spec if isinstance(spec, Mapping) else None)
    if problems is not None and resources.problems:
        problems.append(f"pod {namespace_of(dict(pod))}/{name_of(dict(pod))}: {resources.problems[0]}")
    requests = dict(resources.requests)
    requests[PODS] = Decimal(1)
    return requests


def _quantities(raw: Any, where: str, problems: list[str]) -> Requests:
    out: Requests = {}
    if not isinstance(raw, Mapping):
        return out
    for name, value in raw.items():
        try:
            out[str(name)] = parse_quantity(value)
        except QuantityError as exc:
            problems.append(f"{where}[{name}]: {exc}")
    return out


def _ready(node: Mapping[str, Any]) -> bool:
    """The Ready condition is True. A node without one (never reported) counts as not ready: the node
    lifecycle controller taints such a node ``node.kubernetes.io/not-ready`` and nothing new lands there."""
    status = node.get("status")
    conditions = status.get("conditions") if isinstance(status, Mapping) else None
    for condition in conditions if isinstance(conditions, list) else []:
        if isinstance(condition, Mapping) and condition.get("type") == "Ready":
            return condition.get("status") == "True"
    return False


@dataclass
class NodeCapacity:
    """One node: what it offers (``allocatable``, pod slots under ``pods``) and what bound pods use."""

    name: str
    labels: dict[str, str]
    taints: list[Taint]
    unschedulable: bool
    ready: bool
    allocatable: Requests
    used: Requests = field(default_factory=dict)
    pods: int = 0

    @property
    def schedulable(self) -> bool:
        """New pods can land here: Ready and not cordoned (taints are each pod's affair: see ``takes_any_pod``)."""
        return self.ready and not self.unschedulable

    @property
    def blocking_taints(self) -> list[Taint]:
        """The NoSchedule/NoExecute taints that keep off a pod without tolerations (a control plane's
        ``node-role.kubernetes.io/control-plane``, a team's ``dedicated=...``). A taint keyed by an extended
        resource the node offers (``nvidia.com/gpu`` on a GPU node) is none: every pod requesting that
        resource tolerates it (the ExtendedResourceToleration admission plugin), and no other pod could use
        that resource anyway."""
        return [t for t in self.taints if t.effect in BLOCKING_EFFECTS and not self._offers(t.key)]

    def _offers(self, resource: str) -> bool:
        extended = "/" in resource and not resource.startswith("kubernetes.io/")
        return extended and self.allocatable.get(resource, ZERO) > 0

    @property
    def takes_any_pod(self) -> bool:
        """Schedulable and without a blocking taint: what a pod that tolerates nothing can use."""
        return self.schedulable and not self.blocking_taints

    @property
    def tainted(self) -> bool:
        """Schedulable, but only for pods that tolerate its blocking taints."""
        return self.schedulable and bool(self.blocking_taints)

    @property
    def free(self) -> Requests:
        """Allocatable minus used, per resource the node offers (negative when over-committed)."""
        return {name: value - self.used.get(name, ZERO) for name, value in self.allocatable.items()}

    @property
    def gpus(self) -> Decimal:
        return gpu_count(self.allocatable)

    @property
    def gpus_free(self) -> Decimal:
        return max(gpu_count(self.free), ZERO)

    def state(self) -> str:
        if not self.ready:
            return "NotReady"
        return "Cordoned" if self.unschedulable else "Ready"

    def pool(self, label: str | None) -> str:
        if not label:
            return "all"
        return self.labels.get(label) or "<none>"

    def to_json(self, pool_label: str | None = None) -> Obj:
        return {
            "name": self.name,
            "pool": self.pool(pool_label) if pool_label else None,
            "state": self.state(),
            "schedulable": self.schedulable,
            "tainted": self.tainted,
            "taints": [str(t) for t in self.taints],
            "allocatable": _json(self.allocatable),
            "used": _json(self.used),
            "free": _json({k: max(v, ZERO) for k, v in self.free.items()}),
            "gpus": {"allocatable": _number(self.gpus), "free": _number(self.gpus_free)},
            "pods": self.pods,
        }


def quota_keys(resource: str) -> tuple[str, ...]:
    """The ResourceQuota ``hard`` names a pod's request of ``resource`` counts towards."""
    if resource == PODS:
        return ("pods", "count/pods")
    if resource in ("cpu", "memory", "ephemeral-storage"):
        return (resource, f"requests.{resource}")
    return (f"requests.{resource}",)


@dataclass
class QuotaState:
    """One ResourceQuota: its hard limits and the usage of the namespace's non-terminal pods."""

    namespace: str
    name: str
    hard: Requests
    used: Requests = field(default_factory=dict)
    scoped: bool = False  # spec.scopes / scopeSelector: which pods count is not modelled (not checked)

    def remaining(self, key: str) -> Decimal:
        return self.hard[key] - self.used.get(key, ZERO)

    def to_json(self) -> Obj:
        return {
            "namespace": self.namespace,
            "name": self.name,
            "scoped": self.scoped,
            "hard": {k: _fmt(k, v) for k, v in sorted(self.hard.items())},
            "used": {k: _fmt(k, self.used.get(k, ZERO)) for k in sorted(self.hard)},
        }


@dataclass
class PoolSummary:
    """Nodes sharing one value of the pool label (or the whole cluster): totals over all their nodes, free
    over those any pod can use (schedulable, no blocking taint) and the node with the largest free block
    among them; the schedulable but tainted nodes' free apart, for the pods that tolerate their taints."""

    name: str
    nodes: int = 0
    schedulable: int = 0  # nodes any pod can use
    allocatable: Requests = field(default_factory=dict)
    free: Requests = field(default_factory=dict)
    largest: NodeCapacity | None = None
    largest_count: int = 0  # such nodes with a free block as large as ``largest``'s (GPUs, then CPU)
    tainted: int = 0  # schedulable nodes with a blocking taint
    tainted_free: Requests = field(default_factory=dict)

    def add(self, node: NodeCapacity) -> None:
        self.nodes += 1
        _add(self.allocatable, node.allocatable)
        if node.tainted:
            self.tainted += 1
            _add(self.tainted_free, {k: max(v, ZERO) for k, v in node.free.items()})
        if not node.takes_any_pod:
            return
        self.schedulable += 1
        _add(self.free, {k: max(v, ZERO) for k, v in node.free.items()})
        block = _block(node)
        if self.largest is None or block > _block(self.largest):
            self.largest, self.largest_count = node, 1
        elif block == _block(self.largest):
            self.largest_count += 1

    @property
    def gpus(self) -> Decimal:
        return gpu_count(self.allocatable)

    @property
    def gpus_free(self) -> Decimal:
        return gpu_count(self.free)

    def to_json(self) -> Obj:
        largest = self.largest
        return {
            "name": self.name,
            "nodes": self.nodes,
            "schedulableNodes": self.schedulable,
            "allocatable": _json(self.allocatable),
            "free": _json(self.free),
            "gpus": {"allocatable": _number(self.gpus), "free": _number(self.gpus_free)},
            "tainted": {
                "nodes": self.tainted,
                "free": _json(self.tainted_free),
                "gpus": _number(gpu_count(self.tainted_free)),
            },
            "largestFreeBlock": None
            if largest is None
            else {
                "node": largest.name,
                "nodes": self.largest_count,
                "free": _json({k: max(v, ZERO) for k, v in largest.free.items()}),
                "gpus": _number(largest.gpus_free),
            },
        }


def _block(node: NodeCapacity) -> tuple[Decimal, Decimal, Decimal]:
    free = node.free
    return (max(gpu_count(free), ZERO), max(free.get("cpu", ZERO), ZERO), max(free.get("memory", ZERO), ZERO))


@dataclass
class BoundPod:
    """A non-terminal pod holding resources: on ``node`` (None: not bound yet, quota only)."""

    uid: str
    namespace: str
    node: str | None
    usage: Requests


class Capacity:
    """Nodes, the non-terminal pods bound to them and the namespaces' ResourceQuotas of one cluster.

    Build one with :meth:`from_objects`; ``warnings`` says what could not be read or counted."""

    def __init__(self, nodes: list[NodeCapacity], quotas: list[QuotaState], pods: list[BoundPod], warnings: list[str]):
        self.nodes = sorted(nodes, key=lambda n: n.name)
        self.quotas = quotas
        self.pods = pods
        self.warnings = warnings
        self._by_name = {n.name: n for n in self.nodes}
        self._by_uid = {p.uid: p for p in pods}
        # What computations over this (read-only) model keep between calls: the placement engine's indexes.
        self.cache: dict[str, Any] = {}

    @classmethod
    def from_objects(
        cls, nodes: Iterable[Obj], pods: Iterable[Obj], quotas: Iterable[Obj] = (), warnings: Iterable[str] = ()
    ) -> Capacity:
        problems: list[str] = []
        out_nodes: dict[str, NodeCapacity] = {}
        for node in nodes:
            name = name_of(node)
            status = node.get("status") if isinstance(node.get("status"), Mapping) else {}
            assert isinstance(status, Mapping)
            allocatable = _quantities(
                status.get("allocatable") or status.get("capacity"), f"node {name}: allocatable", problems
            )
            spec = node.get("spec") if isinstance(node.get("spec"), Mapping) else {}
            assert isinstance(spec, Mapping)
            labels = meta(node).get("labels")
            out_nodes[name] = NodeCapacity(
                name,
                {str(k): str(v) for k, v in labels.items()} if isinstance(labels, Mapping) else {},
                taints_of(node),
                bool(spec.get("unschedulable")),
                _ready(node),
                allocatable,
            )
        bound: list[BoundPod] = []
        orphans: Counter[str] = Counter()
        unreadable: list[str] = []
        for pod in pods:
            if is_terminal(pod):
                continue
            usage = pod_usage(pod, unreadable)
            node_name = node_name_of(pod)
            bound.append(BoundPod(pod_key(pod), namespace_of(pod), node_name, usage))
            if node_name is None:
                continue
            target = out_nodes.get(node_name)
            if target is None:
                orphans[node_name] += 1
                continue
            _add(target.used, usage)
            target.pods += 1
        quota_states = [_quota(q, problems) for q in quotas]
        all_warnings = list(warnings)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            all_warnings.append(f"unreadable node or quota quantities are left out: {problems[0]}{more}")
        if unreadable:
            more = f" (and {len(unreadable) - 1} more pods)" if len(unreadable) > 1 else ""
            all_warnings.append(f"unreadable pod requests are counted as zero: {unreadable[0]}{more}")
        if orphans:
            example = sorted(orphans)[0]
            all_warnings.append(
                f"{sum(orphans.values())} pod(s) are bound to {len(orphans)} node(s) not in the input "
                f"(e.g. {example}): their usage is not counted"
            )
        by_namespace: dict[str, list[QuotaState]] = {}
        for quota in quota_states:
            by_namespace.setdefault(quota.namespace, []).append(quota)
        for pod_state in bound:
            for quota in by_namespace.get(pod_state.namespace, ()):
                _charge(quota, pod_state.usage)
        return cls(list(out_nodes.values()), quota_states, bound, all_warnings)

    # -- queries
    def node(self, name: str) -> NodeCapacity | None:
        return self._by_name.get(name)

    def quotas_in(self, namespace: str) -> list[QuotaState]:
        return [q for q in self.quotas if q.namespace == namespace]

    def pod(self, uid: str) -> BoundPod | None:
        return self._by_uid.get(uid)

    @property
    def gpus(self) -> Decimal:
        return sum((n.gpus for n in self.nodes), ZERO)

    @property
    def gpus_free(self) -> Decimal:
        """Free GPUs on the nodes any pod can use (those of tainted nodes: ``total().tainted_free``)."""
        return sum((n.gpus_free for n in self.nodes if n.takes_any_pod), ZERO)

    def pools(self, label: str | None) -> list[PoolSummary]:
        """One summary per value of node label ``label`` (nodes without it: ``<none>``), sorted by name."""
        pools: dict[str, PoolSummary] = {}
        for node in self.nodes:
            name = node.pool(label)
            pools.setdefault(name, PoolSummary(name)).add(node)
        return [pools[k] for k in sorted(pools)]

    def label_warnings(self, label: str | None) -> list[str]:
        """What to say when pools by ``label`` group nothing: no node carries the label (a typo, or labels
        that GPU Feature Discovery or the cloud put under another name), with the node labels that look
        close."""
        if not label or not self.nodes or any(label in n.labels for n in self.nodes):
            return []
        keys = sorted({key for n in self.nodes for key in n.labels})
        close = [k for k in keys if label.lower() in k.lower() or k.lower() in label.lower()]
        close += [k for k in difflib.get_close_matches(label, keys, n=3, cutoff=0.6) if k not in close]
        nodes = f"all {len(self.nodes)} nodes are" if len(self.nodes) > 1 else "the 1 node is"
        hint = f"; node labels that look close: {', '.join(close[:3])}" if close else ""
        return [f"no node has the label {label!r} ({nodes} in pool <none>){hint}"]

    def total(self) -> PoolSummary:
        total = PoolSummary("total")
        for node in self.nodes:
            total.add(node)
        return total

    def to_json(self, pool_label: str | None = None) -> Obj:
        return {
            "apiVersion": "workload-map/v1alpha1",
            "kind": "Capacity",
            "poolLabel": pool_label,
            "total": self.total().to_json(),
            "pools": [p.to_json() for p in self.pools(pool_label)] if pool_label else [],
            "nodes": [n.to_json(pool_label) for n in self.nodes],
            "quotas": [q.to_json() for q in self.quotas],
            "warnings": [*self.warnings, *self.label_warnings(pool_label)],
        }


def _quota(obj: Obj, problems: list[str]) -> QuotaState:
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    where = f"resourcequota {namespace_of(obj)}/{name_of(obj)}: hard"
    return QuotaState(
        namespace_of(obj),
        name_of(obj),
        _quantities(spec.get("hard"), where, problems),
        scoped=bool(spec.get("scopes") or spec.get("scopeSelector")),
    )


def _charge(quota: QuotaState, usage: Mapping[str, Decimal]) -> None:
    for resource, value in usage.items():
        for key in quota_keys(resource):
            if key in quota.hard:
                quota.used[key] = quota.used.get(key, ZERO) + value


def _add(into: Requests, other: Mapping[str, Decimal]) -> None:
    for name, value in other.items():
        into[name] = into.get(name, ZERO) + value


def _number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _fmt(name: str, value: Decimal) -> str:
    base = name.removeprefix("requests.").removeprefix("limits.")
    return format_quantity(value, base)


def _json(requests: Mapping[str, Decimal]) -> dict[str, str]:
    return {k: format_quantity(v, k) for k, v in sorted(requests.items())}
