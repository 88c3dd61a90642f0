"""PodGroup manifests for four gang schedulers, and what each needs on a pod to attach it to its group.

- ``kai``: KAI Scheduler ``scheduling.run.ai/v2alpha2`` PodGroup; pods carry the annotation
  ``pod-group-name`` and, for sub-groups, the label ``kai.scheduler/subgroup-name``.
- ``volcano``: ``scheduling.volcano.sh/v1beta1`` PodGroup (minMember, minTaskMember, minResources);
  pods carry the annotation ``scheduling.k8s.io/group-name`` (and ``volcano.sh/task-spec`` per task)
  and ``schedulerName: volcano``.
- ``coscheduling``: scheduler-plugins ``scheduling.x-k8s.io/v1alpha1`` PodGroup (minMember,
  minResources, scheduleTimeoutSeconds); pods carry the label ``scheduling.x-k8s.io/pod-group``.
- ``workload-api``: the Kubernetes Workload API (KEP-4671). ``v1beta1`` (Kubernetes >= 1.36, what the
  project's test apiserver v1.37 serves): a ``Workload`` with ``podGroupTemplates[].schedulingPolicy.gang
  .minCount`` plus one runtime ``PodGroup`` per group, pods point at it with
  ``spec.schedulingGroup.podGroupName``. ``v1alpha1`` (Kubernetes 1.35 only): a ``Workload`` with
  ``podGroups[].policy.gang.minCount``, pods point at it with ``spec.workloadRef``.

Every object is owned by the workload (ownerReferences with its uid; left out, with a warning, when the
input carries no uid because the API server rejects owner references without one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from workload_map.base.objects import group_of, name_of, namespace_of, uid_of
from workload_map.gang.model import FORM_POD_GROUP, GangPlan, PodGroupPlan, SubGroup
from workload_map.resolve.quantity import format_quantity
from workload_map.resolve.resources import Requests

KAI = "kai"
VOLCANO = "volcano"
COSCHEDULING = "coscheduling"
WORKLOAD_API = "workload-api"
SCHEDULERS = (KAI, VOLCANO, COSCHEDULING, WORKLOAD_API)

KAI_API_VERSION = "scheduling.run.ai/v2alpha2"
KAI_POD_GROUP_ANNOTATION = "pod-group-name"
KAI_SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
KAI_DEFAULT_QUEUE = "default-queue"

VOLCANO_API_VERSION = "scheduling.volcano.sh/v1beta1"
VOLCANO_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
VOLCANO_TASK_ANNOTATION = "volcano.sh/task-spec"
VOLCANO_SCHEDULER = "volcano"

COSCHEDULING_API_VERSION = "scheduling.x-k8s.io/v1alpha1"
COSCHEDULING_LABEL = "scheduling.x-k8s.io/pod-group"

WORKLOAD_API_GROUP = "scheduling.k8s.io"
WORKLOAD_API_VERSIONS = ("v1beta1", "v1alpha1")
WORKLOAD_MAX_POD_GROUPS = 8

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


@dataclass
class PodAttachment:
    """What pods of one group (or sub-group) need so the scheduler attaches them to it."""

    group: str
    sub_group: str | None
    pods: list[str]  # existing pods it applies to
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    spec: dict[str, Any] = field(default_factory=dict)  # pod spec fields (immutable: set in the template)

    def patch(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        metadata: dict[str, Any] = {}
        if self.labels:
            metadata["labels"] = dict(self.labels)
        if self.annotations:
            metadata["annotations"] = dict(self.annotations)
        if metadata:
            out["metadata"] = metadata
        if self.spec:
            out["spec"] = dict(self.spec)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"group": self.group, "subGroup": self.sub_group, "pods": list(self.pods), "podPatch": self.patch()}


@dataclass
class Emission:
    scheduler: str
    objects: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[PodAttachment] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "scheduler": self.scheduler,
            "objects": self.objects,
            "podAttachments": [a.to_json() for a in self.attachments],
            "warnings": list(self.warnings),
        }


def as_list(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": objects}


def resource_list(requests: Requests) -> dict[str, str]:
    """A Kubernetes ResourceList: canonical quantity strings (CPU in cores or m, memory in binary units)."""
    return {name: format_quantity(value, name) for name, value in sorted(requests.items())}


def owner_references(workload: dict[str, Any]) -> list[dict[str, Any]] | None:
    uid = uid_of(workload)
    if uid is None:
        return None
    return [
        {
            "apiVersion": str(workload.get("apiVersion") or ""),
            "kind": str(workload.get("kind") or ""),
            "name": name_of(workload),
            "uid": uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]


def _metadata(plan: GangPlan, name: str) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace_of(plan.workload)}
    refs = owner_references(plan.workload)
    if refs is not None:
        metadata["ownerReferences"] = refs
    return metadata


def _safe(text: str, limit: int = 253) -> str:
    out = re.sub(r"[^a-z0-9.-]+", "-", text.lower()).strip("-.")
    return out[:limit].rstrip("-.") or "group"


def object_name(plan: GangPlan, group: PodGroupPlan) -> str:
    """The group's object name: KAI's name when fully known; for the other schedulers, whose names are
    ours to choose, ``<workload>-<definition group>[-<known key values>]`` when a key value is unknown."""
    if group.name is not None:
        return group.name
    known = [v for v in group.key if v is not None]
    return _safe("-".join([name_of(plan.workload), group.definition_group, *known]))


def emit(
    plan: GangPlan,
    scheduler: str,
    *,
    queue: str | None = None,
    priority_class_name: str | None = None,
    schedule_timeout_seconds: int | None = None,
    workload_api_version: str = "v1beta1",
    kai_derived_subgroups: bool = False,
) -> Emission:
    """Manifests for every group of the plan, for one scheduler (see the module docstring)."""
    if scheduler not in SCHEDULERS:
        raise ValueError(f"unknown scheduler {scheduler!r}; expected one of {', '.join(SCHEDULERS)}")
    emission = Emission(scheduler)
    if uid_of(plan.workload) is None:
        emission.warnings.append(
            f"{name_of(plan.workload)}: no metadata.uid in the input, so the manifests carry no ownerReferences"
        )
    groups = [g for g in plan.groups if g.min_member > 0]
    for group in plan.groups:
        if group.min_member <= 0:
            emission.warnings.append(f"group {group.display_name()}: minMember is 0, no manifest emitted")
    if scheduler == WORKLOAD_API:
        _workload_api(plan, groups, emission, workload_api_version, priority_class_name)
        return emission
    for group in groups:
        if scheduler == KAI:
            _kai(plan, group, emission, queue, priority_class_name, derived_subgroups=kai_derived_subgroups)
        elif scheduler == VOLCANO:
            _volcano(plan, group, emission, queue, priority_class_name)
        else:
            _coscheduling(plan, group, emission, schedule_timeout_seconds)
    return emission


def _pods(pods: list[Any]) -> list[str]:
    return sorted(p.name for p in pods)


# ---------------------------------------------------------------- KAI
def _kai(
    plan: GangPlan,
    group: PodGroupPlan,
    emission: Emission,
    queue: str | None,
    priority_class_name: str | None,
    *,
    derived_subgroups: bool,
) -> None:
    if group.name is None:
        emission.warnings.append(
            f"group {group.name_pattern}: its name depends on pod labels that do not exist yet; KAI's pod "
            "grouper creates it when the pods appear"
        )
        return
    spec: dict[str, Any] = {"queue": queue or group.queue or KAI_DEFAULT_QUEUE}
    priority = priority_class_name or group.priority_class_name
    if priority:
        spec["priorityClassName"] = priority
    sub_groups = [s for s in group.sub_groups if not s.derived or derived_subgroups]
    if group.min_sub_group is not None and sub_groups:
        spec["minSubGroup"] = group.min_sub_group
    else:
        spec["minMember"] = group.min_member
    if group.topology is not None:
        spec["topologyConstraint"] = _kai_topology(group.topology.to_json())
    if sub_groups:
        spec["subGroups"] = []
        for sub in sub_groups:
            entry: dict[str, Any] = {"name": sub.name, "minMember": sub.min_member}
            if sub.topology is not None:
                entry["topologyConstraint"] = _kai_topology(sub.topology.to_json())
            spec["subGroups"].append(entry)
    emission.objects.append(
        {"apiVersion": KAI_API_VERSION, "kind": "PodGroup", "metadata": _metadata(plan, group.name), "spec": spec}
    )
    annotations = {KAI_POD_GROUP_ANNOTATION: group.name}
    if sub_groups:
        for sub in sub_groups:
            emission.attachments.append(
                PodAttachment(group.name, sub.name, _pods(sub.pods), {KAI_SUBGROUP_LABEL: sub.name}, annotations)
            )
    else:
        emission.attachments.append(PodAttachment(group.name, None, _pods(group.pods), {}, annotations))


def _kai_topology(topology: dict[str, str | None]) -> dict[str, str]:
    return {k: v for k, v in topology.items() if v}


# ---------------------------------------------------------------- Volcano
def _volcano(
    plan: GangPlan, group: PodGroupPlan, emission: Emission, queue: str | None, priority_class_name: str | None
) -> None:
    name = object_name(plan, group)
    spec: dict[str, Any] = {"minMember": group.min_member}
    tasks = _tasks(group.sub_groups)
    if tasks:
        spec["minTaskMember"] = {s.name: s.min_member for s in tasks}
    if group.min_resources:
        spec["minResources"] = resource_list(group.min_resources)
    if queue or group.queue:
        spec["queue"] = queue or group.queue
    priority = priority_class_name or group.priority_class_name
    if priority:
        spec["priorityClassName"] = priority
    emission.objects.append(
        {"apiVersion": VOLCANO_API_VERSION, "kind": "PodGroup", "metadata": _metadata(plan, name), "spec": spec}
    )
    annotations = {VOLCANO_GROUP_ANNOTATION: name}
    scheduler = {"schedulerName": VOLCANO_SCHEDULER}
    if tasks:
        for sub in tasks:
            emission.attachments.append(
                PodAttachment(
                    name, sub.name, _pods(sub.pods), {}, {**annotations, VOLCANO_TASK_ANNOTATION: sub.name}, scheduler
                )
            )
    else:
        emission.attachments.append(PodAttachment(name, None, _pods(group.pods), {}, annotations, scheduler))


def _tasks(sub_groups: list[SubGroup]) -> list[SubGroup]:
    """Volcano tasks need distinct names; sub-groups become tasks when there are several."""
    names = [s.name for s in sub_groups]
    if len(sub_groups) < 2 or len(set(names)) != len(names):
        return []
    return sub_groups


# ---------------------------------------------------------------- coscheduling
def _coscheduling(plan: GangPlan, group: PodGroupPlan, emission: Emission, timeout: int | None) -> None:
    name = object_name(plan, group)
    spec: dict[str, Any] = {"minMember": group.min_member}
    if group.min_resources:
        spec["minResources"] = resource_list(group.min_resources)
    if timeout is not None:
        spec["scheduleTimeoutSeconds"] = timeout
    emission.objects.append(
        {"apiVersion": COSCHEDULING_API_VERSION, "kind": "PodGroup", "metadata": _metadata(plan, name), "spec": spec}
    )
    emission.attachments.append(PodAttachment(name, None, _pods(group.pods), {COSCHEDULING_LABEL: name}))


# ---------------------------------------------------------------- Workload API
def workload_object_name(plan: GangPlan) -> str:
    return _safe(f"{name_of(plan.workload)}-{str(plan.workload.get('kind') or 'workload').lower()}")


def _template_name(group: PodGroupPlan, per_instance: bool) -> str:
    base = (
        group.definition_group
        if not per_instance or group.instance is None
        else (f"{group.definition_group}-{group.instance}")
    )
    return _safe(base, 63).replace(".", "-")


def _workload_api(
    plan: GangPlan,
    groups: list[PodGroupPlan],
    emission: Emission,
    version: str,
    priority_class_name: str | None,
) -> None:
    if version not in WORKLOAD_API_VERSIONS:
        raise ValueError(f"unknown Workload API version {version!r}; expected one of {WORKLOAD_API_VERSIONS}")
    workload_name = workload_object_name(plan)
    # Every template of a Workload must share one priority class (ValidateWorkloadSpec): the option, else
    # the one all groups agree on, else none.
    classes = {g.priority_class_name for g in groups if g.priority_class_name}
    priority = priority_class_name or (classes.pop() if len(classes) == 1 else None)
    if priority_class_name is None and len(classes) > 1:
        emission.warnings.append("groups have different priority classes; the Workload needs one: none is set")
    # One template per (definition group, member instance): groups of one template differ only by key.
    templates: dict[str, tuple[int, PodGroupPlan]] = {}
    template_of: dict[int, str] = {}
    for group in groups:
        per_instance = len({(g.instance) for g in groups if g.definition_group == group.definition_group}) > 1
        template = _template_name(group, per_instance)
        known = templates.get(template)
        if known is None:
            templates[template] = (group.min_member, group)
        elif known[0] != group.min_member:
            emission.warnings.append(
                f"template {template!r}: groups {known[1].display_name()} and {group.display_name()} need "
                f"different minimums ({known[0]} and {group.min_member}); the first is used"
            )
        template_of[id(group)] = template
    if len(templates) > WORKLOAD_MAX_POD_GROUPS:
        emission.warnings.append(
            f"{len(templates)} pod group templates; the Workload API accepts at most {WORKLOAD_MAX_POD_GROUPS}"
        )
    controller = {
        "apiGroup": group_of(str(plan.workload.get("apiVersion") or "")),
        "kind": str(plan.workload.get("kind") or ""),
        "name": name_of(plan.workload),
    }
    if not controller["apiGroup"]:
        del controller["apiGroup"]
    api_version = f"{WORKLOAD_API_GROUP}/{version}"
    if version == "v1alpha1":
        spec: dict[str, Any] = {
            "controllerRef": controller,
            "podGroups": [
                {"name": name, "policy": {"gang": {"minCount": minimum}}} for name, (minimum, _) in templates.items()
            ],
        }
    else:
        entries = []
        for name, (minimum, first) in templates.items():
            entry: dict[str, Any] = {"name": name, "schedulingPolicy": {"gang": {"minCount": minimum}}}
            if first.topology is not None and first.topology.required_level:
                entry["schedulingConstraints"] = {"topology": [{"key": first.topology.required_level}]}
            if priority:
                entry["priorityClassName"] = priority
            entries.append(entry)
        spec = {"controllerRef": controller, "podGroupTemplates": entries}
    emission.objects.append(
        {"apiVersion": api_version, "kind": "Workload", "metadata": _metadata(plan, workload_name), "spec": spec}
    )
    for group in groups:
        template = template_of[id(group)]
        minimum = templates[template][0]
        if version == "v1alpha1":
            ref: dict[str, Any] = {"name": workload_name, "podGroup": template}
            replica_key = _replica_key(plan, group)
            if replica_key is None and any(template_of[id(g)] == template and g is not group for g in groups):
                emission.warnings.append(
                    f"group {group.display_name()}: its key is not known before pods exist; the pods' "
                    "podGroupReplicaKey must be set to their group key values joined by '-'"
                )
            if replica_key:
                ref["podGroupReplicaKey"] = replica_key
            emission.attachments.append(
                PodAttachment(object_name(plan, group), None, _pods(group.pods), spec={"workloadRef": ref})
            )
            continue
        name = object_name(plan, group)
        group_spec: dict[str, Any] = {
            "workloadRef": {"workloadName": workload_name, "templateName": template},
            "schedulingPolicy": {"gang": {"minCount": minimum}},
        }
        if priority:
            group_spec["priorityClassName"] = priority
        emission.objects.append(
            {"apiVersion": api_version, "kind": "PodGroup", "metadata": _metadata(plan, name), "spec": group_spec}
        )
        emission.attachments.append(
            PodAttachment(name, None, _pods(group.pods), spec={"schedulingGroup": {"podGroupName": name}})
        )


def _replica_key(plan: GangPlan, group: PodGroupPlan) -> str | None:
    """v1alpha1 podGroupReplicaKey: the group key values joined by '-', as a DNS label; None when the group
    has no key (grouped by top owner, or the podGroup form) or a key value is unknown before pods exist."""
    if plan.form == FORM_POD_GROUP or not group.key or any(v is None for v in group.key):
        return None
    key = "-".join(v for v in group.key if v is not None).lower()
    return key if _DNS_LABEL.match(key) and len(key) <= 63 else _safe(key, 63).replace(".", "-")
