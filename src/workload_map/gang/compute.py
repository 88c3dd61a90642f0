"""Pod groups of one workload from its definition's ``gangScheduling``, its object and its pods.

See docs/gang.md for the contract. In short, for ``gangScheduling.podGroups`` every pod goes to the
group of its effective member (its own component, or the nearest ancestor listed as a member, whose
filters pass), named ``pg-<top owner uid>[-<key values>]``, with the member's subtree scale as its
minimum; ``gangScheduling.podGroup`` puts every pod of the workload in one group
``pg-<top owner uid>-<name>`` with one sub-group per listed component.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from workload_map.base.objects import key_of, meta, uid_of
from workload_map.definition.model import Karta, LoadedDefinition, PodGroupMember, Topology
from workload_map.gang.model import (
    FORM_POD_GROUP,
    FORM_POD_GROUPS,
    GangPlan,
    MissingGroups,
    PodError,
    PodGroupPlan,
    Shape,
    SubGroup,
    TopologySpec,
)
from workload_map.gang.scale import DESIRED, Part, ScaleError, SubtreeScale
from workload_map.jq import to_text
from workload_map.resolve.components import Component, resolve_components
from workload_map.resolve.evaluate import Diagnostics, run
from workload_map.resolve.pods import PlacedPod, PodPlacer
from workload_map.resolve.resources import pod_resources

PREFIX = "pg"  # KAI's PodGroupNamePrefix
QUEUE_LABEL = "kai.scheduler/queue"  # KAI's default queue label key
PRIORITY_LABEL = "priorityClassName"  # KAI's PriorityLabelKey

# Node labels that name the GPU model, in the order they are looked for.
GPU_PRODUCT_LABELS = (
    "nvidia.com/gpu.product",
    "nvidia.com/gpu.family",
    "cloud.google.com/gke-accelerator",
    "karpenter.k8s.aws/instance-gpu-name",
    "amd.com/gpu.product-name",
    "amd.com/gpu.family",
)

_DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN = re.compile(rf"^{_DNS1123_LABEL}(\.{_DNS1123_LABEL})*$")
UNKNOWN_UID = "<uid>"


class GangError(ValueError):
    """A pod cannot be put in a group, phrased for the user (KAI refuses to group such a pod)."""


def is_dns1123_subdomain(name: str) -> bool:
    return len(name) <= 253 and bool(_DNS1123_SUBDOMAIN.match(name))


def group_name(top_owner_uid: str | None, key: Iterable[str | None]) -> str:
    """KAI's calcPodGroupName: ``pg-<uid>`` plus ``-<key values joined by "-">`` when there are keys."""
    values = [v if v is not None else "<?>" for v in key]
    base = f"{PREFIX}-{top_owner_uid or UNKNOWN_UID}"
    return f"{base}-{'-'.join(values)}" if values else base


# -- pod-level evaluation (KAI's PodQuerier)
def _single_value(expression: str, pod: dict[str, Any], what: str) -> Any:
    outputs, error = run(expression, pod)
    if error is not None:
        raise GangError(f"{what} {expression!r} failed: {error}")
    if len(outputs) != 1:
        raise GangError(f"{what} {expression!r} gave {len(outputs)} values; exactly one non-empty value is required")
    value = outputs[0]
    if value is None or value == "":
        shown = "null" if value is None else '""'
        raise GangError(f"{what} {expression!r} gave an empty value ({shown}); a non-empty value is required")
    return value


def passes_filters(member: PodGroupMember, pod: dict[str, Any]) -> bool:
    return all(_single_value(expression, pod, "filter") is True for expression in member.filters)


def group_key(member: PodGroupMember, pod: dict[str, Any]) -> list[str]:
    return [to_text(_single_value(path, pod, "group key path")) for path in member.group_by_key_paths]


@dataclass(frozen=True)
class Candidate:
    group: str  # podGroups[].name
    component: str  # the member's component (the effective component when chosen)
    member: PodGroupMember
    index: int  # position of the member inside its group


def candidates_for(karta: Karta, components: dict[str, Component], component: str) -> list[Candidate]:
    """The component itself, then its ancestors nearest first; per level, groups and members in YAML order."""
    gang = karta.gang
    if gang is None or not gang.pod_groups:
        return []
    out: list[Candidate] = []
    current: str | None = component
    seen: set[str] = set()
    while current is not None and current not in seen:
        seen.add(current)
        for group in gang.pod_groups:
            for index, member in enumerate(group.members):
                if member.component_name == current:
                    out.append(Candidate(group.name, current, member, index))
        definition = karta.component(current)
        current = definition.owner_ref if definition is not None else None
    return out


def effective_member(
    karta: Karta, components: dict[str, Component], component: str, pod: dict[str, Any]
) -> Candidate | None:
    for candidate in candidates_for(karta, components, component):
        if not candidate.member.filters or passes_filters(candidate.member, pod):
            return candidate
    return None


# -- templates: per-pod requests and GPU product
def gpu_product(template: dict[str, Any] | None) -> str | None:
    spec = (template or {}).get("spec")
    if not isinstance(spec, dict):
        return None
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        for label in GPU_PRODUCT_LABELS:
            if selector.get(label):
                return str(selector[label])
    affinity = _dig(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    terms = affinity.get("nodeSelectorTerms") if isinstance(affinity, dict) else None
    for label in GPU_PRODUCT_LABELS:
        for term in terms or []:
            for expression in (term or {}).get("matchExpressions") or []:
                if (
                    isinstance(expression, dict)
                    and expression.get("key") == label
                    and expression.get("operator") == "In"
                    and expression.get("values")
                ):
                    return " | ".join(str(v) for v in expression["values"])
    return None


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _pseudo_pod(template: dict[str, Any] | None) -> dict[str, Any]:
    """A pod as its template would make it: what pod expressions can be run on before pods exist."""
    template = template or {}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": template.get("metadata") or {},
        "spec": template.get("spec") or {},
    }


def _shapes(parts: list[Part], components: dict[str, Component]) -> list[Shape]:
    shapes = []
    for part in parts:
        component = components.get(part.component)
        instance = component.instance(part.instance) if component else None
        template = instance.template if instance else None
        spec = template.get("spec") if template else None
        shapes.append(
            Shape(
                part.component,
                part.instance,
                part.count,
                pod_resources(spec if isinstance(spec, dict) else None).requests,
                gpu_product(template),
                template is not None,
            )
        )
    return shapes


def _topology(topology: Topology | None, where: str) -> TopologySpec | None:
    """KAI's validateTopologyConstraint: a name and at least one level, or the pod is not grouped."""
    if topology is None:
        return None
    if not topology.topology_name:
        raise GangError(f"{where}: topology constraint must include topologyName")
    if not topology.required_topology_level and not topology.preferred_topology_level:
        raise GangError(f"{where}: topology constraint must include requiredTopologyLevel or preferredTopologyLevel")
    return TopologySpec(topology.topology_name, topology.required_topology_level, topology.preferred_topology_level)


def _labels(obj: dict[str, Any] | None) -> dict[str, Any]:
    labels = meta(obj or {}).get("labels")
    return labels if isinstance(labels, dict) else {}


class GangPlanner:
    def __init__(
        self,
        definition: Karta | LoadedDefinition,
        workload: dict[str, Any],
        *,
        top_owner: dict[str, Any] | None = None,
    ) -> None:
        self.karta = definition.karta if isinstance(definition, LoadedDefinition) else definition
        self.workload = workload
        self.top_owner = top_owner if top_owner is not None else workload
        self.uid = uid_of(self.top_owner)
        self.diagnostics = Diagnostics(str(key_of(workload)))
        self.components = resolve_components(self.karta, workload, self.diagnostics)
        self.scales = SubtreeScale(self.karta, self.components)
        gang = self.karta.gang
        self.form: str | None = None
        if gang is not None and gang.pod_group is not None:
            self.form = FORM_POD_GROUP
        elif gang is not None and gang.pod_groups:
            self.form = FORM_POD_GROUPS

    # ------------------------------------------------------------------ entry point
    def plan(self, pods: Iterable[dict[str, Any]] | None = None) -> GangPlan:
        pod_list = list(pods) if pods is not None else []
        plan = GangPlan(
            self.workload,
            self.karta.name,
            self.form,
            "pods" if pod_list else "spec",
            self.uid,
        )
        if self.uid is None:
            plan.warnings.append(
                f"{key_of(self.workload)} has no metadata.uid: group names use {UNKNOWN_UID!r}; KAI names "
                "groups after the top owner's uid"
            )
        placer = PodPlacer(self.components, self.diagnostics)
        placed = [placer.place(p) for p in pod_list]
        if self.form == FORM_POD_GROUP:
            self._single_group(plan, placed)
        elif self.form == FORM_POD_GROUPS:
            self._member_groups(plan, placed)
        else:
            plan.warnings.append(
                f"definition {self.karta.name!r} has no gangScheduling instructions: KAI falls back to its "
                "default grouper (one group per top owner, minMember 1)"
            )
        plan.warnings.extend(self.diagnostics.messages())
        plan.warnings.extend(self.scales.notes)
        return plan

    # ------------------------------------------------------------------ podGroup form
    def _single_group(self, plan: GangPlan, placed: list[PlacedPod]) -> None:
        gang = self.karta.gang
        assert gang is not None and gang.pod_group is not None
        definition = gang.pod_group
        root = self.karta.root.name
        try:
            topology = _topology(definition.topology, f"podGroup {definition.name!r}")
            sub_groups: list[SubGroup] = []
            for sub in definition.sub_groups:
                if sub.component_name not in self.components:
                    raise GangError(f"sub-group component {sub.component_name!r} is not in the definition")
                size = self.scales.size(sub.component_name)
                if size == 0:
                    raise GangError(f"component {sub.component_name!r} must expose a replica scale definition")
                sub_groups.append(
                    SubGroup(
                        sub.component_name,
                        sub.component_name,
                        None,
                        size,
                        self.scales.size(sub.component_name, mode=DESIRED),
                        _topology(sub.topology, f"sub-group {sub.component_name!r}"),
                    )
                )
        except (GangError, ScaleError) as exc:
            for pod in placed or []:
                plan.errors.append(PodError(pod.name, str(exc)))
            plan.warnings.append(f"podGroup {definition.name!r}: {exc}; KAI does not group the workload's pods")
            return
        parts = self.scales.parts(root)
        group = PodGroupPlan(
            name=group_name(self.uid, [definition.name]),
            name_pattern=group_name(self.uid, [definition.name]),
            definition_group=definition.name,
            component=root,
            instance=None,
            key=[definition.name],
            min_member=sum(s.min_member for s in sub_groups) if sub_groups else sum(p.count for p in parts),
            desired=self.scales.size(root, mode=DESIRED),
            shapes=_shapes(parts, self.components),
            min_sub_group=len(sub_groups) if sub_groups else None,
            sub_groups=sub_groups,
            topology=topology,
            expected=not placed,
        )
        if sub_groups:
            group.shapes = _shapes([p for s in sub_groups for p in self.scales.parts(s.component)], self.components)
        for pod in placed:
            if pod.component is None:
                plan.errors.append(PodError(pod.name, f"no component found for pod: {pod.unattributed_reason}"))
                continue
            group.pods.append(pod)
            for declared in sub_groups:
                if self._in_subtree(pod.component, declared.component):
                    declared.pods.append(pod)
        self._queue_and_priority(group)
        plan.groups.append(group)

    def _in_subtree(self, component: str, root: str) -> bool:
        current: str | None = component
        while current is not None:
            if current == root:
                return True
            current = self.components[current].parent if current in self.components else None
        return False

    # ------------------------------------------------------------------ podGroups form
    def _member_groups(self, plan: GangPlan, placed: list[PlacedPod]) -> None:
        groups: dict[str, PodGroupPlan] = {}
        for pod in placed:
            try:
                self._place_pod(pod, groups)
            except (GangError, ScaleError) as exc:
                plan.errors.append(PodError(pod.name, str(exc)))
        observed = list(groups.values())
        for group in observed:
            self._queue_and_priority(group)
        plan.groups.extend(sorted(observed, key=_group_order))
        self._expected_groups(plan, groups)

    def _place_pod(self, pod: PlacedPod, groups: dict[str, PodGroupPlan]) -> None:
        if pod.component is None:
            raise GangError(f"no component found for pod: {pod.unattributed_reason}")
        candidate = effective_member(self.karta, self.components, pod.component, pod.obj)
        if candidate is None:
            raise GangError(
                f"pod matches no pod group member (component {pod.component!r} and its ancestors: none is a "
                "member whose filters pass)"
            )
        instance = None
        component = self.components[candidate.component]
        if candidate.component == pod.component and component.definition.instance_id_path is not None:
            instance = pod.instance
        key = group_key(candidate.member, pod.obj)
        name = group_name(self.uid, key)
        if key and not is_dns1123_subdomain(name):
            raise GangError(f"group keys {key} produce an invalid PodGroup name {name!r} (not a DNS-1123 subdomain)")
        group = groups.get(name)
        if group is None:
            group = self._new_group(candidate, instance, list(key), name)
            groups[name] = group
        elif (group.component, group.instance) != (candidate.component, instance):
            size = self.scales.size(candidate.component, instance)
            if size != group.min_member:
                group.notes.append(
                    f"pod {pod.name} (member {candidate.component!r}) computes minMember {size}, the group was "
                    f"created with {group.min_member}: members of one group should agree"
                )
        group.pods.append(pod)
        for sub in group.sub_groups:
            if (sub.component, sub.instance) == (pod.component, pod.instance) or (
                sub.instance is None and self._in_subtree(pod.component or "", sub.component)
            ):
                sub.pods.append(pod)
                break

    def _new_group(
        self, candidate: Candidate, instance: str | None, key: list[str | None], name: str | None
    ) -> PodGroupPlan:
        parts = self.scales.parts(candidate.component, instance)
        group = PodGroupPlan(
            name=name,
            name_pattern=group_name(self.uid, key) if name is None else name,
            definition_group=candidate.group,
            component=candidate.component,
            instance=instance,
            key=key,
            min_member=sum(p.count for p in parts),
            desired=self.scales.size(candidate.component, instance, mode=DESIRED),
            shapes=_shapes(parts, self.components),
        )
        if len(parts) > 1:
            wanted = self.scales.parts(candidate.component, instance, DESIRED)
            desired = {(p.component, p.instance): p.count for p in wanted}
            group.sub_groups = [
                SubGroup(
                    _sub_group_name(p, parts),
                    p.component,
                    p.instance,
                    p.count,
                    desired.get((p.component, p.instance), p.count),
                    derived=True,
                )
                for p in parts
            ]
        return group

    # ------------------------------------------------------------------ spec-only enumeration
    def _expected_groups(self, plan: GangPlan, observed: dict[str, PodGroupPlan]) -> None:
        gang = self.karta.gang
        assert gang is not None and gang.pod_groups
        observed_by_member: dict[tuple[str, str], list[PodGroupPlan]] = {}
        for group in observed.values():
            observed_by_member.setdefault((group.definition_group, group.component), []).append(group)
        seen_names = set(observed)
        for definition in gang.pod_groups:
            for index, member in enumerate(definition.members):
                if member.component_name not in self.components:
                    continue
                candidate = Candidate(definition.name, member.component_name, member, index)
                seen = observed_by_member.get((definition.name, member.component_name), [])
                expected = self._enumerate(candidate, seen)
                by_pattern: dict[str, set[int]] = {}
                for group in expected:
                    by_pattern.setdefault(group.name_pattern, set()).add(group.min_member)
                for pattern, minimums in by_pattern.items():
                    if len(minimums) > 1:
                        plan.warnings.append(
                            f"member {member.component_name!r} of {definition.name!r}: pods of different instances "
                            f"compute different minimums {sorted(minimums)} for the same group {pattern}; KAI "
                            "keeps whichever pod it saw last. Make an ancestor the member, or key the group by "
                            "the instance"
                        )
                complete = [g for g in expected if g.name is not None]
                for group in complete:
                    if group.name in seen_names:
                        continue
                    seen_names.add(group.name or "")
                    group.expected = True
                    self._queue_and_priority(group)
                    plan.groups.append(group)
                partial = [g for g in expected if g.name is None]
                if partial:
                    if plan.mode == "spec":
                        for group in partial:
                            group.expected = True
                            self._queue_and_priority(group)
                            plan.groups.append(group)
                    if len(expected) > len(seen):
                        plan.unenumerated.append(
                            MissingGroups(definition.name, member.component_name, len(expected), len(seen))
                        )

    def _enumerate(self, candidate: Candidate, seen: list[PodGroupPlan]) -> list[PodGroupPlan]:
        """Groups the spec implies for one member, and whether their number is known.

        Each key path is resolved before pods exist when it is the replica key of the member or an ancestor
        (values "0".."replicas-1"), the member's instance id path (one group per instance), or gives one value
        on the member's pod templates (a label every pod carries). Other keys take the single value all
        observed groups agree on, else they stay unknown (None); they are assumed to take one value per
        workload (typically the workload's name), so they do not multiply the number of groups.
        """
        member = candidate.member
        component = self.components[candidate.component]
        replica_paths = self._replica_key_paths(candidate.component)
        instance_path = None
        selector = component.definition.pod_selector
        if selector is not None and selector.component_instance_selector is not None:
            instance_path = selector.component_instance_selector.id_path
        per_instance = component.has_pods and component.definition.instance_id_path is not None
        instances: list[str | None] = list(component.instance_ids) if per_instance else [None]
        groups: list[PodGroupPlan] = []
        for instance in instances:
            columns: list[list[str | None]] = []
            for position, path in enumerate(member.group_by_key_paths):
                if path in replica_paths:
                    owner = replica_paths[path]
                    count = self.scales.replica_groups(owner, instance if owner == candidate.component else None)
                    if "index" in path.lower():
                        columns.append([str(i) for i in range(count)])  # an index: "0".."replicas-1"
                    else:
                        columns.append([None] * count)  # counted, but its values are not known before pods
                elif instance_path is not None and path.strip() == instance_path.strip() and instance is not None:
                    columns.append([instance])
                else:
                    value = self._template_value(path, candidate.component, instance)
                    if value is None:
                        agreed = {g.key[position] for g in seen if len(g.key) > position}
                        value = agreed.pop() if len(agreed) == 1 else None
                    columns.append([value])
            for key in _product(columns):
                name = group_name(self.uid, key) if all(v is not None for v in key) else None
                group = self._new_group(candidate, instance, key, name)
                shown = [v if v is not None else f"<{p}>" for v, p in zip(key, member.group_by_key_paths, strict=True)]
                group.name_pattern = group_name(self.uid, shown)
                groups.append(group)
        return groups

    def _replica_key_paths(self, component: str) -> dict[str, str]:
        """replicaSelector key paths of the member and its ancestors (nearest first) -> the component."""
        out: dict[str, str] = {}
        current: str | None = component
        while current is not None and current in self.components:
            selector = self.components[current].definition.pod_selector
            if selector is not None and selector.replica_selector is not None:
                out.setdefault(selector.replica_selector.key_path.strip(), current)
                out.setdefault(selector.replica_selector.key_path, current)
            current = self.components[current].parent
        return out

    def _template_value(self, path: str, component: str, instance: str | None) -> str | None:
        """The key value every pod template of the member's subtree gives, if they all give the same one."""
        values = set()
        for name in [component, *self.scales._descendants(component)]:
            comp = self.components[name]
            if not comp.has_pods:
                continue
            for inst in comp.instances:
                if name == component and instance is not None and inst.id != instance:
                    continue
                try:
                    values.add(to_text(_single_value(path, _pseudo_pod(inst.template), "group key path")))
                except GangError:
                    return None
        return values.pop() if len(values) == 1 else None

    # ------------------------------------------------------------------ queue and priority
    def _queue_and_priority(self, group: PodGroupPlan) -> None:
        """KAI's default grouper: queue label on the top owner, else on the pods; priorityClassName label on
        the top owner, else on the pods, else the pods' spec.priorityClassName."""
        owner_labels = _labels(self.top_owner)
        pods = [p.obj for p in group.pods] or [_pseudo_pod(self._template(s)) for s in group.shapes]
        queue = owner_labels.get(QUEUE_LABEL)
        if queue is None:
            queue = next((_labels(p).get(QUEUE_LABEL) for p in pods if _labels(p).get(QUEUE_LABEL)), None)
        group.queue = str(queue) if queue else None
        priority = owner_labels.get(PRIORITY_LABEL)
        if priority is None:
            priority = next((_labels(p).get(PRIORITY_LABEL) for p in pods if _labels(p).get(PRIORITY_LABEL)), None)
        if priority is None:
            priority = next(
                (
                    p["spec"]["priorityClassName"]
                    for p in pods
                    if isinstance(p.get("spec"), dict) and p["spec"].get("priorityClassName")
                ),
                None,
            )
        group.priority_class_name = str(priority) if priority else None

    def _template(self, shape: Shape) -> dict[str, Any] | None:
        component = self.components.get(shape.component)
        instance = component.instance(shape.instance) if component else None
        return instance.template if instance else None


def _sub_group_name(part: Part, parts: list[Part]) -> str:
    """Sub-group names: the instance id (or component name), made unique and DNS-label safe."""
    base = part.instance if part.instance is not None else part.component
    if sum(1 for p in parts if (p.instance if p.instance is not None else p.component) == base) > 1:
        base = f"{part.component}-{base}"
    safe = re.sub(r"[^a-z0-9-]+", "-", base.lower()).strip("-")
    return safe[:63].rstrip("-") or "members"


def _product(columns: list[list[str | None]]) -> list[list[str | None]]:
    out: list[list[str | None]] = [[]]
    for column in columns:
        out = [[*prefix, value] for prefix in out for value in column]
    return out


def _group_order(group: PodGroupPlan) -> tuple[str, int, str]:
    # Numeric-aware: pg-x-2 before pg-x-10.
    last = group.key[-1] if group.key else None
    number = int(last) if last is not None and last.isdigit() else -1
    return (group.definition_group, number, group.name or "")


def plan_gang(
    definition: Karta | LoadedDefinition,
    workload: dict[str, Any],
    pods: Iterable[dict[str, Any]] | None = None,
    *,
    top_owner: dict[str, Any] | None = None,
) -> GangPlan:
    """Pod groups of ``workload`` (docs/gang.md). Without pods (None or empty), groups come from the spec
    alone and are marked ``expected``."""
    return GangPlanner(definition, workload, top_owner=top_owner).plan(pods)


def plan_in_view(view: Any, workload: dict[str, Any]) -> GangPlan:
    """The plan for a workload of a :class:`workload_map.resolve.workloads.WorkloadIndex` (its pods and definition)."""
    return deferred_plan_in_view(view, workload)()


def deferred_plan_in_view(view: Any, workload: dict[str, Any]) -> Callable[[], GangPlan]:
    """What :func:`plan_in_view` reads from the view, read now; the plan is computed when the result is
    called. A holder that keeps many workloads and is asked about few (the live model) plans on demand."""
    definition, version_warning = view.registry.for_object(workload)
    if definition is None:
        raise LookupError(f"no definition covers {workload.get('kind')} ({workload.get('apiVersion')})")
    owner = view.owner_workload(workload)
    pods = view.pods_of(workload)

    def plan_now() -> GangPlan:
        plan = plan_gang(definition, workload, pods, top_owner=owner)
        if owner is not None:
            plan.warnings.append(
                f"{key_of(workload)} is owned by {key_of(owner)}: KAI groups its pods under that top owner "
                f"({owner.get('kind')}), with that kind's definition"
            )
        if version_warning:
            plan.warnings.insert(0, version_warning)
        return plan

    return plan_now


__all__ = [
    "GangError",
    "GangPlanner",
    "candidates_for",
    "deferred_plan_in_view",
    "effective_member",
    "gpu_product",
    "group_key",
    "group_name",
    "is_dns1123_subdomain",
    "plan_gang",
    "plan_in_view",
]


def gang_definitions(definitions: Iterable[LoadedDefinition]) -> list[LoadedDefinition]:
    """Definitions whose workloads get groups: with gangScheduling instructions, bare pods excepted."""
    out = []
    for d in definitions:
        gang, identity = d.karta.gang, d.karta.identity
        if gang is None or identity is None or (identity.group, identity.kind) == ("", "Pod"):
            continue
        if gang.pod_group is None and not gang.pod_groups:
            continue
        out.append(d)
    return out
