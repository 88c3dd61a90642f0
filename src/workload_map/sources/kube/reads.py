"""What to read for a set of definitions: the one place that derives it.

Which kinds a read lists (the covered workload kinds, the kinds that sit between them and their pods on
an owner chain, pods), at which versions, which API groups discovery must ask for, and, from the same rules,
which kinds each identity reads (the RBAC of ``access.py``). ``get`` and ``describe`` (``fetch.py``), the
live model, the operator's gang controller and pod webhook, and the chart's RBAC all ask here, so what is
read and what is granted cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from workload_map.crd import GROUP as KARTA_GROUP
from workload_map.definition.model import LoadedDefinition
from workload_map.definition.registry import DefinitionRegistry
from workload_map.gang.compute import gang_definitions
from workload_map.queues import QUEUE_KINDS
from workload_map.sources.kube.discovery import Discovery, ServedResource

GroupKind = tuple[str, str]

# Kinds that never own a pod (directly or through another object): an additionalChildKinds entry of
# one of these groups/kinds is not needed to walk owner chains, so it is never listed.
_NON_OWNER_GROUPS = {
    "rbac.authorization.k8s.io",
    "networking.k8s.io",
    "gateway.networking.k8s.io",
    "policy",
    "autoscaling",
    "keda.sh",
    "monitoring.coreos.com",
    "networking.istio.io",
    "route.openshift.io",
    "scheduling.volcano.sh",
    "scheduling.x-k8s.io",
    "scheduler.grove.io",
    "networking.internal.knative.dev",
    "autoscaling.internal.knative.dev",
    "inference.networking.k8s.io",
    "resource.nvidia.com",
    "resource.k8s.io",
    "discovery.k8s.io",
    "storage.k8s.io",
    "coordination.k8s.io",
}
_NON_OWNER_KINDS = {("serving.knative.dev", "Route")}
# Built-in groups: only these kinds own pods or pod owners.
_BUILTIN_OWNERS = {
    "": set(),
    "apps": {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"},
    "batch": {"Job", "CronJob"},
}


def owner_kind_needed(group: str, kind: str) -> bool:
    """Whether objects of this kind can sit on a pod's owner chain."""
    if group in _BUILTIN_OWNERS:
        return kind in _BUILTIN_OWNERS[group]
    if group in _NON_OWNER_GROUPS or (group, kind) in _NON_OWNER_KINDS:
        return False
    return group != KARTA_GROUP


def child_kinds(definitions: Iterable[LoadedDefinition]) -> set[GroupKind]:
    """Kinds between pods and workloads: component kinds and additionalChildKinds that can own pods."""
    out: set[GroupKind] = set()
    for definition in definitions:
        karta = definition.karta
        candidates = [c.kind for c in karta.components[1:] if c.kind is not None]
        candidates += list(karta.spec.structure_definition.additional_child_kinds)
        for gvk in candidates:
            if (gvk.group, gvk.kind) != ("", "Pod") and owner_kind_needed(gvk.group, gvk.kind):
                out.add((gvk.group, gvk.kind))
    return out


def root_kinds(definitions: Iterable[LoadedDefinition]) -> set[GroupKind]:
    """The workload kinds the definitions cover (their roots)."""
    return {(d.karta.identity.group, d.karta.identity.kind) for d in definitions if d.karta.identity is not None}


def gang_root_kinds(definitions: Iterable[LoadedDefinition]) -> set[GroupKind]:
    """The workload kinds that get pod groups (definitions with gang scheduling instructions, bare pods
    excepted): what the operator's gang controller watches and its pod webhook attaches to."""
    return root_kinds(gang_definitions(definitions))


def discovery_groups(definitions: Iterable[LoadedDefinition]) -> set[str]:
    """The API groups discovery must ask for to read these definitions' workloads: their roots' and
    owner-chain kinds' groups, the Karta group, and the built-in groups of pod owners."""
    defs = list(definitions)
    return {group for group, _ in root_kinds(defs) | child_kinds(defs)} | {KARTA_GROUP, "apps", "batch"}


def defined_versions(definitions: Iterable[LoadedDefinition], group: str, kind: str) -> list[str]:
    """The versions of ``group``/``kind`` that definitions exist for (discovery picks the served one)."""
    return [
        d.karta.identity.version
        for d in definitions
        if d.karta.identity is not None and (d.karta.identity.group, d.karta.identity.kind) == (group, kind)
    ]


@dataclass
class Plan:
    workloads: list[ServedResource]
    children: list[ServedResource]
    pods: ServedResource | None
    unserved: list[GroupKind] = field(default_factory=list)  # needed kinds the server does not serve


def plan_lists(
    registry: DefinitionRegistry,
    discovery: Discovery,
    *,
    definitions: Iterable[LoadedDefinition] | None = None,
    kinds: Iterable[GroupKind] | None = None,
) -> Plan:
    """What to list: covered kinds served (or only ``kinds``), their intermediate kinds, pods."""
    wanted = set(kinds) if kinds is not None else root_kinds(registry.definitions)
    workload_resources: list[ServedResource] = []
    unserved: list[GroupKind] = []
    for group, kind in sorted(wanted - {("", "Pod")}):
        res = discovery.resource(group, kind, defined_versions(registry.definitions, group, kind))
        if res is None:
            unserved.append((group, kind))
        elif res.can("list"):
            workload_resources.append(res)
    defs = list(definitions) if definitions is not None else registry.definitions
    children: list[ServedResource] = []
    listed = {(r.group, r.kind) for r in workload_resources}
    for group, kind in sorted(child_kinds(defs) - listed - {("", "Pod")}):
        res = discovery.resource(group, kind, defined_versions(registry.definitions, group, kind))
        if res is None:
            unserved.append((group, kind))
        elif res.can("list"):
            children.append(res)
    pods = discovery.resource("", "Pod")
    if pods is None:  # every real server serves pods; keep going with the well-known resource
        pods = ServedResource("", "v1", "Pod", "pods", True, ("po",), ("list", "watch"), True)
    return Plan(workload_resources, children, pods, unserved)


def operator_read_kinds(definitions: Iterable[LoadedDefinition]) -> set[GroupKind]:
    """Kinds the operator lists, watches or GETs: gang workload roots, owner-chain kinds, pods."""
    defs = list(definitions)
    kinds = gang_root_kinds(defs) | child_kinds(defs) | {("", "Pod")}
    return {k for k in kinds if k[0] != KARTA_GROUP}


def cli_read_kinds(definitions: Iterable[LoadedDefinition]) -> set[GroupKind]:
    """Kinds the read-only commands list (get, describe, explain, snapshot, gang): every covered workload
    kind, the owner-chain kinds, pods."""
    defs = list(definitions)
    kinds = root_kinds(defs) | child_kinds(defs) | {("", "Pod")}
    return {k for k in kinds if k[0] != KARTA_GROUP}


def queue_read_kinds() -> set[GroupKind]:
    """The schedulers' kinds the queue model lists (``sources/kube/queues.py``), whichever are served."""
    return {(group, kind) for group, kind, _, _ in QUEUE_KINDS}


def serve_read_kinds(definitions: Iterable[LoadedDefinition]) -> set[GroupKind]:
    """Kinds ``wmap serve`` lists and watches: what the read-only commands list, and the queue kinds (its
    live model keeps the queues current with the workloads)."""
    return cli_read_kinds(definitions) | queue_read_kinds()


__all__ = [
    "GroupKind",
    "Plan",
    "child_kinds",
    "cli_read_kinds",
    "defined_versions",
    "discovery_groups",
    "gang_root_kinds",
    "operator_read_kinds",
    "owner_kind_needed",
    "plan_lists",
    "queue_read_kinds",
    "root_kinds",
    "serve_read_kinds",
]
