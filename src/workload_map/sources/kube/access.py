"""What each identity of the project reads and writes, as RBAC rules derived from the definitions in use.

Permissions follow what the code *reads*, not what a definition *names*: ``additionalChildKinds`` lists
every kind a workload's operator creates (MPIJob names its SSH Secret, most name ConfigMaps and Services),
but only kinds that can sit on a pod's owner chain are ever listed (:func:`~workload_map.sources.kube.reads.
child_kinds`); the rest are never requested, so no rule is granted for them. No identity reads a Secret,
a ConfigMap or a Service of a workload.

* The operator's gang controller lists and watches the workload kinds of definitions with gang scheduling
  instructions, the owner-chain kinds of every definition (its pod webhook walks a new pod's owners), and
  pods (:func:`operator_read_rules`).
* The CLI's read-only commands list every covered workload kind, the owner-chain kinds and pods, and read
  the cluster's Kartas; ``wmap update``/suspend also patches the workload object itself and nothing else
  (:func:`cli_rules`).
* ``wmap serve`` lists and watches what the read-only commands list, and the schedulers' queue kinds
  (:func:`serve_rules`).

The operator's ClusterRole in the chart is generated from these rules (``python -m workload_map.manifests``);
``wmap auth`` prints the CLI's. docs/security.md documents every rule.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from workload_map.definition.model import LoadedDefinition
from workload_map.sources.kube.fetch import KARTA_GROUP
from workload_map.sources.kube.reads import GroupKind, cli_read_kinds, operator_read_kinds, root_kinds, serve_read_kinds

READ = ["get", "list", "watch"]
# wmap update sends one JSON merge patch of the workload object (workload_map.api.cluster_update); it never
# creates, replaces or deletes anything.
UPDATE = ["patch"]

Rule = dict[str, Any]

# Plurals that the simple English rule below gets wrong (the API server's plural is authoritative).
PLURAL_OVERRIDES: dict[str, str] = {}


def plural(kind: str) -> str:
    if kind in PLURAL_OVERRIDES:
        return PLURAL_OVERRIDES[kind]
    low = kind.lower()
    if low.endswith(("s", "x", "z", "ch", "sh")):
        return low + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return low[:-1] + "ies"
    return low + "s"


def _by_group(kinds: Iterable[GroupKind]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for group, kind in kinds:
        out[group].add(plural(kind))
    return out


def _rules(kinds: Iterable[GroupKind], verbs: list[str]) -> list[Rule]:
    """One rule per API group (sorted), resources sorted: a stable, reviewable order."""
    return [
        {"apiGroups": [group], "resources": sorted(resources), "verbs": list(verbs)}
        for group, resources in sorted(_by_group(kinds).items())
    ]


def operator_read_rules(definitions: Iterable[LoadedDefinition]) -> list[Rule]:
    return _rules(operator_read_kinds(definitions), READ)


KARTA_READ_RULE: Rule = {"apiGroups": [KARTA_GROUP], "resources": ["kartas"], "verbs": ["get", "list", "watch"]}
# The Events of the namespaces read: ``wmap describe`` lists them, ``wmap serve`` watches them (its workload
# page); without it both show workloads without events and say so.
EVENTS_READ_RULE: Rule = {"apiGroups": [""], "resources": ["events"], "verbs": ["list", "watch"]}

# ``wmap capacity`` and ``wmap fit`` (workload_map.sources.kube.capacity): one LIST each of Nodes (cluster-scoped),
# the non-terminal pods of every namespace (what the nodes hold, whoever owns it) and ResourceQuotas.
CAPACITY_CLUSTER_RULES: list[Rule] = [
    {"apiGroups": [""], "resources": ["nodes"], "verbs": ["list"]},
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]},
]
CAPACITY_NAMESPACED_RULES: list[Rule] = [{"apiGroups": [""], "resources": ["resourcequotas"], "verbs": ["list"]}]


# ``wmap queues`` (workload_map.sources.kube.queues): one LIST per queue kind the cluster serves; ``wmap serve``
# (``-n NS`` too) lists and watches them. Cluster-scoped queues go in the ClusterRole even with -n; the
# per-workload objects are read in the namespace in scope.
QUEUE_CLUSTER_RULES: list[Rule] = [
    {
        "apiGroups": ["kueue.x-k8s.io"],
        "resources": ["clusterqueues", "cohorts", "resourceflavors"],
        "verbs": list(READ),
    },
    {"apiGroups": ["scheduling.run.ai"], "resources": ["queues"], "verbs": list(READ)},
    {"apiGroups": ["scheduling.volcano.sh"], "resources": ["queues"], "verbs": list(READ)},
]
QUEUE_NAMESPACED_RULES: list[Rule] = [
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["localqueues", "workloads"], "verbs": list(READ)},
    {"apiGroups": ["scheduling.run.ai"], "resources": ["podgroups"], "verbs": list(READ)},
    {"apiGroups": ["scheduling.volcano.sh"], "resources": ["podgroups"], "verbs": list(READ)},
]


def cli_rules(definitions: Iterable[LoadedDefinition], *, update: bool = False) -> list[Rule]:
    """The rules of the CLI's user: read-only, or with ``update`` also a patch on the workload kinds.

    Kartas are cluster-scoped: the rule on them belongs in a ClusterRole (:func:`cli_manifests` splits)."""
    defs = list(definitions)
    rules = [dict(KARTA_READ_RULE), *_rules(cli_read_kinds(defs), READ), dict(EVENTS_READ_RULE)]
    if update:
        roots = {k for k in root_kinds(defs) if k[0] != KARTA_GROUP}
        rules += _rules(roots, UPDATE)
    return rules


def serve_rules(definitions: Iterable[LoadedDefinition]) -> list[Rule]:
    """The rules of ``wmap serve``'s account (the chart's ``serve-rbac.yaml``): the CLI's read-only rules
    (its Events included), get/list/watch on every queue kind
    (:func:`~workload_map.sources.kube.reads.serve_read_kinds`), and what its capacity reads
    (``--capacity-interval``, on by default) add to them: nodes and resource quotas (pods are read already)."""
    capacity = [dict(r) for r in (*CAPACITY_CLUSTER_RULES, *CAPACITY_NAMESPACED_RULES) if r["resources"] != ["pods"]]
    return [dict(KARTA_READ_RULE), *_rules(serve_read_kinds(definitions), READ), dict(EVENTS_READ_RULE), *capacity]


def capacity_rules() -> tuple[list[Rule], list[Rule]]:
    """(cluster-wide, per-namespace) rules ``wmap capacity`` and ``wmap fit`` add to the read-only ones."""
    return [dict(r) for r in CAPACITY_CLUSTER_RULES], [dict(r) for r in CAPACITY_NAMESPACED_RULES]


def queue_rules() -> tuple[list[Rule], list[Rule]]:
    """(cluster-wide, per-namespace) rules ``wmap queues`` and ``wmap serve`` add to the read-only ones."""
    return [dict(r) for r in QUEUE_CLUSTER_RULES], [dict(r) for r in QUEUE_NAMESPACED_RULES]


def cli_manifests(
    definitions: Iterable[LoadedDefinition],
    *,
    update: bool = False,
    capacity: bool = False,
    queues: bool = False,
    name: str = "wmap-reader",
    namespace: str | None = None,
) -> list[dict[str, Any]]:
    """ClusterRole (cluster-wide use, ``-A``), or a Role for ``namespace`` plus a ClusterRole for the
    cluster-scoped Kartas (and, with ``capacity``, nodes and every namespace's pods; with ``queues``, the
    cluster-scoped queue kinds): ready for
    ``kubectl apply`` (bind them with a (Cluster)RoleBinding)."""
    rules = cli_rules(definitions, update=update)
    extra_cluster, extra_namespaced = capacity_rules() if capacity else ([], [])
    if queues:
        queue_cluster, queue_namespaced = queue_rules()
        extra_cluster, extra_namespaced = [*extra_cluster, *queue_cluster], [*extra_namespaced, *queue_namespaced]
    labels = {"app.kubernetes.io/name": "workload-map", "app.kubernetes.io/component": "cli"}
    meta: dict[str, Any] = {"name": name, "labels": labels}
    if namespace is None:
        rules = [*rules, *extra_cluster, *extra_namespaced]
        return [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": meta, "rules": rules}]
    namespaced = [*(r for r in rules if r["apiGroups"] != [KARTA_GROUP]), *extra_namespaced]
    cluster = [*(r for r in rules if r["apiGroups"] == [KARTA_GROUP]), *extra_cluster]
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": f"{name}-definitions", "labels": labels},
            "rules": cluster,
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "rules": namespaced,
        },
    ]


__all__ = [
    "CAPACITY_CLUSTER_RULES",
    "CAPACITY_NAMESPACED_RULES",
    "EVENTS_READ_RULE",
    "QUEUE_CLUSTER_RULES",
    "QUEUE_NAMESPACED_RULES",
    "READ",
    "UPDATE",
    "capacity_rules",
    "cli_manifests",
    "cli_rules",
    "operator_read_rules",
    "plural",
    "queue_rules",
    "serve_rules",
]
