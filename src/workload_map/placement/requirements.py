"""What one workload asks of a cluster, per pod-producing component: the shape multi-cluster engines consume.

Field names are Karmada's ``ComponentRequirements`` (``name``, ``replicas``,
``replicaRequirements.{resourceRequest, nodeClaim, priorityClassName}``); ``component``, ``instance`` and
``minMembers`` are ours, and the workload's gang groups ride along in ``gangGroups`` (docs/placement.md).
Per-pod requests come from the resolver's :func:`~workload_map.resolve.resources.pod_resources` (what
:attr:`InstanceNode.per_pod_requests` gives), the gang minimums from the gang planner in spec mode: nothing
here computes either again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from workload_map.base.objects import Obj
from workload_map.placement.capacity import pod_key
from workload_map.placement.claims import NodeClaim
from workload_map.resolve.quantity import QuantityError, format_quantity, parse_quantity
from workload_map.resolve.resources import Requests, gpu_count, pod_resources

if TYPE_CHECKING:
    from workload_map.gang.model import GangPlan
    from workload_map.tree.model import WorkloadTree

REQUIREMENTS_API_VERSION = "workload-map/v1alpha1"


def _number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


@dataclass
class ComponentRequirement:
    """One pod-producing component instance: ``replicas`` pods, each asking ``resource_request``."""

    name: str  # the role: the instance id, else the component name (unique within the workload)
    component: str
    instance: str | None
    replicas: int
    resource_request: Requests
    node_claim: NodeClaim = field(default_factory=NodeClaim)
    priority_class_name: str | None = None
    min_members: int = 0  # pods of this component in the workload's gang groups (0: no group)
    template_known: bool = True

    @property
    def gpus(self) -> Decimal:
        return gpu_count(self.resource_request)

    def to_json(self) -> Obj:
        requirements: Obj = {
            "resourceRequest": {k: format_quantity(v, k) for k, v in sorted(self.resource_request.items())}
        }
        claim = self.node_claim.to_json()
        if claim:
            requirements["nodeClaim"] = claim
        if self.priority_class_name:
            requirements["priorityClassName"] = self.priority_class_name
        return {
            "name": self.name,
            "replicas": self.replicas,
            "replicaRequirements": requirements,
            "component": self.component,
            "instance": self.instance,
            "minMembers": self.min_members,
            "gpusPerReplica": _number(self.gpus),
            "templateKnown": self.template_known,
        }


@dataclass
class GangGroupRequirement:
    """A gang: ``members`` (component requirement name -> pods) must all be placed, or none."""

    name: str
    min_member: int
    members: dict[str, int]

    def to_json(self) -> Obj:
        return {
            "name": self.name,
            "minMember": self.min_member,
            "members": [{"name": k, "count": v} for k, v in self.members.items()],
        }


@dataclass
class WorkloadRequirements:
    """Every pod-producing component of one workload with its gang groups: what :func:`fit` places."""

    api_version: str
    kind: str
    namespace: str
    name: str
    components: list[ComponentRequirement]
    gang_groups: list[GangGroupRequirement] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Pods the workload already has (uids): a fit counts what they hold as free, as if placed anew.
    own_pods: list[str] = field(default_factory=list)

    def component(self, name: str) -> ComponentRequirement | None:
        return next((c for c in self.components if c.name == name), None)

    @property
    def pods(self) -> int:
        return sum(c.replicas for c in self.components)

    @property
    def gpus(self) -> Decimal:
        return sum((c.gpus * c.replicas for c in self.components), Decimal(0))

    def to_json(self) -> Obj:
        return {
            "apiVersion": REQUIREMENTS_API_VERSION,
            "kind": "ComponentRequirements",
            "workload": {
                "apiVersion": self.api_version,
                "kind": self.kind,
                "namespace": self.namespace,
                "name": self.name,
            },
            "components": [c.to_json() for c in self.components],
            "gangGroups": [g.to_json() for g in self.gang_groups],
            "totals": {"pods": self.pods, "gpus": _number(self.gpus)},
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WorkloadRequirements:
        """The document :meth:`to_json` writes (or a federation layer's Karmada-shaped components);
        a malformed one raises ValueError naming the field."""
        workload = data.get("workload") or {}
        components = []
        for index, raw in enumerate(data.get("components") or []):
            where = f"components[{index}]"
            if not isinstance(raw, Mapping) or not raw.get("name"):
                raise ValueError(f"{where}: a component needs a name")
            replicas = raw.get("replicas", 0)
            if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
                raise ValueError(f"{where}.replicas: {replicas!r} is not a non-negative integer")
            req = raw.get("replicaRequirements") or {}
            requests: Requests = {}
            for key, value in (req.get("resourceRequest") or {}).items():
                try:
                    requests[str(key)] = parse_quantity(value)
                except QuantityError as exc:
                    raise ValueError(f"{where}.replicaRequirements.resourceRequest[{key}]: {exc}") from None
            components.append(
                ComponentRequirement(
                    str(raw["name"]),
                    str(raw.get("component") or raw["name"]),
                    raw.get("instance"),
                    replicas,
                    requests,
                    NodeClaim.from_json(req.get("nodeClaim")),
                    req.get("priorityClassName"),
                    int(raw.get("minMembers") or 0),
                )
            )
        names = {c.name for c in components}
        groups = []
        for index, raw in enumerate(data.get("gangGroups") or []):
            members = {str(m["name"]): int(m["count"]) for m in raw.get("members") or []}
            unknown = sorted(set(members) - names)
            if unknown:
                raise ValueError(f"gangGroups[{index}]: members {unknown} are not components")
            groups.append(
                GangGroupRequirement(str(raw.get("name") or f"group-{index}"), int(raw.get("minMember") or 0), members)
            )
        return cls(
            str(workload.get("apiVersion") or ""),
            str(workload.get("kind") or ""),
            str(workload.get("namespace") or "default"),
            str(workload.get("name") or ""),
            components,
            groups,
        )


def requirements_of(tree: WorkloadTree, plan: GangPlan | None) -> WorkloadRequirements:
    """The requirements of a resolved workload; ``plan`` is its gang plan computed from the spec alone
    (None: no gang instructions, or they could not be computed)."""
    components: list[ComponentRequirement] = []
    warnings: list[str] = []
    by_key: dict[tuple[str, str | None], ComponentRequirement] = {}
    seen: set[str] = set()
    unplaceable: list[str] = []  # components whose node selector and tolerations the definition cannot read
    for view in tree.components:
        if not view.component.has_pods:
            continue
        spec_definition = view.component.definition.spec_definition
        if (
            spec_definition is not None
            and spec_definition.fragmented_pod_spec_definition is not None
            and any(i.instance.desired_pods for i in view.instances)
        ):
            unplaceable.append(view.name)
        for instance_view in view.instances:
            instance = instance_view.instance
            label = instance.id if instance.id is not None else view.name
            if label in seen:
                label = f"{view.name}/{label}"
            seen.add(label)
            template = instance.template
            spec = template.get("spec") if isinstance(template, Mapping) else None
            if template is None and instance.desired_pods:
                warnings.append(f"{label}: no pod template is known: its pods are counted with no requests")
            resources = pod_resources(spec if isinstance(spec, Mapping) else None)
            warnings.extend(f"{label}: pod template: {p}: left out of its requests" for p in resources.problems)
            if isinstance(spec, Mapping) and spec.get("resourceClaims"):
                warnings.append(f"{label}: dynamic resource claims (resourceClaims) are not modelled")
            priority = spec.get("priorityClassName") if isinstance(spec, Mapping) else None
            requirement = ComponentRequirement(
                label,
                view.name,
                instance.id,
                instance.desired_pods,
                dict(resources.requests),
                NodeClaim.from_pod_spec(spec if isinstance(spec, Mapping) else None),
                str(priority) if priority else None,
                template_known=template is not None,
            )
            components.append(requirement)
            by_key[(view.name, instance.id)] = requirement
    if unplaceable:
        # The format's fragmented form has no path for them (docs/placement.md "What it leaves out").
        warnings.append(
            f"{', '.join(unplaceable)}: the definition reads pod fields one by one (fragmentedPodSpecDefinition), "
            "with no place for nodeSelector and tolerations: placed as if the pods had none"
        )
    groups: list[GangGroupRequirement] = []
    for group in plan.groups if plan is not None else []:
        if group.min_member <= 0:
            continue
        members: dict[str, int] = {}
        for shape in group.shapes:
            target = by_key.get((shape.component, shape.instance))
            if target is None:
                candidates = [c for c in components if c.component == shape.component]
                target = candidates[0] if len(candidates) == 1 else None
            if target is None:
                warnings.append(
                    f"gang group {group.display_name()}: {shape.count} member(s) of {shape.label} match no component"
                )
                continue
            members[target.name] = members.get(target.name, 0) + shape.count
        if members:
            groups.append(GangGroupRequirement(group.display_name(), group.min_member, members))
    named = {c.name: c for c in components}
    for gang in groups:
        for name, count in gang.members.items():
            named[name].min_members += count
    for warning in plan.warnings if plan is not None else []:
        # The plan repeats the resolver's diagnostics (with the definition's location in front), and says
        # how groups are named without a uid: neither changes where pods go.
        if "has no metadata.uid" in warning or any(t.endswith(warning) or warning.endswith(t) for t in tree.warnings):
            continue
        warnings.append(warning)
    return WorkloadRequirements(
        tree.api_version,
        tree.kind,
        tree.namespace,
        tree.name,
        components,
        groups,
        [*tree.warnings, *warnings],
        [pod_key(p.obj) for p in tree.all_pods],
    )
