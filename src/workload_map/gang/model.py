"""Gang groups computed for one workload, and their JSON form (``wmap gang -o json``).

The contract is docs/gang.md. Field names of ``GangPlan.to_json`` are stable within a minor version.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from workload_map.resolve.pods import PlacedPod
from workload_map.resolve.resources import Requests, gpu_count, json_number, scale, sum_requests, to_json

GANG_API_VERSION = "workload-map/v1alpha1"

FORM_POD_GROUPS = "podGroups"  # gangScheduling.podGroups: members, keys, filters (the reference catalog)
FORM_POD_GROUP = "podGroup"  # gangScheduling.podGroup: one group, one sub-group per component


@dataclass(frozen=True)
class Shape:
    """``count`` minimum members made by one pod-producing component instance, and what each requests."""

    component: str
    instance: str | None
    count: int
    per_pod: Requests = field(default_factory=dict)
    gpu_product: str | None = None
    has_template: bool = True

    @property
    def label(self) -> str:
        return self.instance if self.instance is not None else self.component

    @property
    def total(self) -> Requests:
        return scale(self.per_pod, self.count)

    def to_json(self) -> dict[str, Any]:
        return {
            "component": self.component,
            "instance": self.instance,
            "count": self.count,
            "perPod": to_json(self.per_pod),
            "gpusPerPod": json_number(gpu_count(self.per_pod)),
            "gpuProduct": self.gpu_product,
            "total": to_json(self.total),
            "templateKnown": self.has_template,
        }


@dataclass
class TopologySpec:
    topology: str | None
    required_level: str | None
    preferred_level: str | None

    def to_json(self) -> dict[str, str | None]:
        return {
            "topology": self.topology,
            "requiredTopologyLevel": self.required_level,
            "preferredTopologyLevel": self.preferred_level,
        }


@dataclass
class SubGroup:
    name: str
    component: str
    instance: str | None
    min_member: int
    desired: int
    topology: TopologySpec | None = None
    derived: bool = False  # computed by us from the member's subtree (podGroups form), not declared
    pods: list[PlacedPod] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        active = [p for p in self.pods if p.state.active]
        return {
            "name": self.name,
            "component": self.component,
            "instance": self.instance,
            "minMember": self.min_member,
            "desired": self.desired,
            "derived": self.derived,
            "topology": self.topology.to_json() if self.topology else None,
            "present": len(active),
            "missing": max(self.desired - len(active), 0),
            "pods": sorted(p.name for p in self.pods),
        }


@dataclass
class PodGroupPlan:
    """One pod group: the gang KAI's Karta grouper would create, with what exists of it."""

    name: str | None  # None when a key value cannot be known before pods exist (see name_pattern)
    name_pattern: str
    definition_group: str  # podGroups[].name or podGroup.name
    component: str  # effective member component
    instance: str | None  # set when the group is per instance
    key: list[str | None]  # group key values in groupByKeyPaths order; None = unknown before pods exist
    min_member: int
    desired: int  # pods the spec asks for in this group (replicas instead of minReplicas)
    shapes: list[Shape]  # how min_member splits over pod-producing component instances
    min_sub_group: int | None = None
    sub_groups: list[SubGroup] = field(default_factory=list)
    topology: TopologySpec | None = None
    expected: bool = False  # derived from the spec only: no pod of this group has been seen
    pods: list[PlacedPod] = field(default_factory=list)
    queue: str | None = None
    priority_class_name: str | None = None
    notes: list[str] = field(default_factory=list)

    # -- members
    @property
    def active(self) -> list[PlacedPod]:
        return [p for p in self.pods if p.state.active]

    @property
    def scheduled(self) -> list[PlacedPod]:
        return [p for p in self.active if p.state.node]

    @property
    def pending(self) -> list[PlacedPod]:
        return [p for p in self.active if p.state.pending]

    @property
    def missing(self) -> int:
        """Desired members that do not exist (or are finished or being deleted)."""
        return max(self.desired - len(self.active), 0)

    @property
    def missing_for_min(self) -> int:
        return max(self.min_member - len(self.active), 0)

    @property
    def satisfied(self) -> bool:
        """At least min_member members hold a node (what gang admission waits for)."""
        return self.min_member > 0 and len(self.scheduled) >= self.min_member

    # -- resources
    @property
    def min_resources(self) -> Requests:
        return sum_requests(s.total for s in self.shapes)

    @property
    def min_gpus(self) -> Decimal:
        return gpu_count(self.min_resources)

    @property
    def gpu_products(self) -> list[str]:
        return sorted({s.gpu_product for s in self.shapes if s.gpu_product})

    def display_name(self) -> str:
        return self.name if self.name is not None else self.name_pattern

    def to_json(self) -> dict[str, Any]:
        pending_reasons = Counter(p.state.pending_reason or "Pending" for p in self.pending)
        finished = [p for p in self.pods if p.state.phase in ("Succeeded", "Failed")]
        return {
            "name": self.name,
            "namePattern": self.name_pattern,
            "definitionGroup": self.definition_group,
            "member": {"component": self.component, "instance": self.instance},
            "key": list(self.key),
            "expected": self.expected,
            "minMember": self.min_member,
            "minSubGroup": self.min_sub_group,
            "desired": self.desired,
            "satisfied": self.satisfied,
            "members": {
                "present": len(self.active),
                "scheduled": len(self.scheduled),
                "ready": sum(p.state.ready for p in self.active),
                "pending": len(self.pending),
                "finished": len(finished),
                "terminating": sum(p.state.terminating for p in self.pods),
                "missing": self.missing,
                "missingForMin": self.missing_for_min,
                "pods": [p.to_json() for p in sorted(self.pods, key=lambda p: (p.replica or "", p.name))],
            },
            "pending": [
                {"pod": p.name, "reason": p.state.pending_reason, "message": p.state.pending_message}
                for p in sorted(self.pending, key=lambda p: p.name)
            ],
            "pendingReasons": dict(sorted(pending_reasons.items())),
            "subGroups": [s.to_json() for s in self.sub_groups],
            "topology": self.topology.to_json() if self.topology else None,
            "queue": self.queue,
            "priorityClassName": self.priority_class_name,
            "minResources": to_json(self.min_resources),
            "minGpus": json_number(self.min_gpus),
            "placement": {
                "shapes": [s.to_json() for s in self.shapes],
                "total": to_json(self.min_resources),
                "gpus": json_number(self.min_gpus),
                "gpuProducts": self.gpu_products,
                "nodes": sorted({p.state.node for p in self.active if p.state.node}),
            },
            "notes": list(self.notes),
        }


@dataclass
class PodError:
    pod: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"pod": self.pod, "message": self.message}


@dataclass
class MissingGroups:
    """Groups the spec expects for one member whose names cannot be enumerated (label keys)."""

    definition_group: str
    component: str
    expected: int | None  # None: the number of groups cannot be derived from the spec
    observed: int

    def to_json(self) -> dict[str, Any]:
        return {
            "definitionGroup": self.definition_group,
            "component": self.component,
            "expected": self.expected,
            "observed": self.observed,
        }


@dataclass
class GangPlan:
    workload: dict[str, Any]
    definition: str
    form: str | None  # podGroups | podGroup | None (no gangScheduling instructions)
    mode: str  # "pods": computed from existing pods (plus expected groups) | "spec": before any pod exists
    top_owner_uid: str | None
    groups: list[PodGroupPlan] = field(default_factory=list)
    errors: list[PodError] = field(default_factory=list)
    unenumerated: list[MissingGroups] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def group(self, name: str) -> PodGroupPlan | None:
        for group in self.groups:
            if group.name == name:
                return group
        return None

    def to_json(self) -> dict[str, Any]:
        metadata = self.workload.get("metadata") if isinstance(self.workload.get("metadata"), dict) else {}
        assert isinstance(metadata, dict)
        return {
            "apiVersion": GANG_API_VERSION,
            "kind": "GangPlan",
            "workload": {
                "apiVersion": self.workload.get("apiVersion"),
                "kind": self.workload.get("kind"),
                "namespace": metadata.get("namespace") or "default",
                "name": metadata.get("name"),
                "uid": metadata.get("uid"),
            },
            "definition": self.definition,
            "form": self.form,
            "mode": self.mode,
            "topOwnerUid": self.top_owner_uid,
            "groups": [g.to_json() for g in self.groups],
            "unenumeratedGroups": [m.to_json() for m in self.unenumerated],
            "errors": [e.to_json() for e in self.errors],
            "warnings": list(self.warnings),
        }
