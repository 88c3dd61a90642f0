"""Every jq expression a definition holds, with its field path and what it is evaluated on."""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum

from workload_map.base.model import Model
from workload_map.definition.model import ComponentDefinition, Karta, wire_fields


class Target(StrEnum):
    WORKLOAD = "workload"  # the root object
    POD = "pod"


class ExpressionRef(Model, kw_only=False):
    path: tuple[str | int, ...]
    expression: str
    target: Target
    component: str | None = None


def _component_expressions(component: ComponentDefinition, base: tuple[str | int, ...]) -> Iterator[ExpressionRef]:
    name = component.name
    wl, pod = Target.WORKLOAD, Target.POD

    def ref(path: tuple[str | int, ...], expr: str | None, target: Target = wl) -> Iterator[ExpressionRef]:
        if expr is not None:
            yield ExpressionRef(base + path, expr, target, name)

    yield from ref(("instanceIdPath",), component.instance_id_path)
    spec = component.spec_definition
    if spec is not None:
        yield from ref(("specDefinition", "podTemplateSpecPath"), spec.pod_template_spec_path)
        yield from ref(("specDefinition", "podSpecPath"), spec.pod_spec_path)
        yield from ref(("specDefinition", "metadataPath"), spec.metadata_path)
        fragments = spec.fragmented_pod_spec_definition
        if fragments is not None:
            for field_name, alias in wire_fields(fragments):
                value = getattr(fragments, field_name)
                if value is not None:
                    yield from ref(("specDefinition", "fragmentedPodSpecDefinition", alias), value)
    scale = component.scale_definition
    if scale is not None:
        yield from ref(("scaleDefinition", "replicasPath"), scale.replicas_path)
        yield from ref(("scaleDefinition", "minReplicasPath"), scale.min_replicas_path)
        yield from ref(("scaleDefinition", "maxReplicasPath"), scale.max_replicas_path)
    status = component.status_definition
    if status is not None:
        if status.phase_definition is not None:
            yield from ref(("statusDefinition", "phaseDefinition", "path"), status.phase_definition.path)
        if status.conditions_definition is not None:
            yield from ref(("statusDefinition", "conditionsDefinition", "path"), status.conditions_definition.path)
        for _, field_name, matchers in status.status_mappings.entries():
            for index, matcher in enumerate(matchers):
                if matcher.by_expression is not None:
                    yield from ref(
                        ("statusDefinition", "statusMappings", field_name, index, "byExpression", "expression"),
                        matcher.by_expression.expression,
                    )
    suspend = component.suspend_definition
    if suspend is not None:
        for field_name, actions in (
            ("suspendActions", suspend.suspend_actions),
            ("resumeActions", suspend.resume_actions),
        ):
            for index, action in enumerate(actions):
                yield from ref(("suspendDefinition", field_name, index, "path"), action.path)
    selector = component.pod_selector
    if selector is not None:
        if selector.component_type_selector is not None:
            yield from ref(
                ("podSelector", "componentTypeSelector", "keyPath"), selector.component_type_selector.key_path, pod
            )
        if selector.component_instance_selector is not None:
            yield from ref(
                ("podSelector", "componentInstanceSelector", "idPath"),
                selector.component_instance_selector.id_path,
                pod,
            )
        if selector.replica_selector is not None:
            yield from ref(("podSelector", "replicaSelector", "keyPath"), selector.replica_selector.key_path, pod)


def iter_expressions(karta: Karta) -> Iterator[ExpressionRef]:
    structure = ("spec", "structureDefinition")
    yield from _component_expressions(karta.root, (*structure, "rootComponent"))
    for index, child in enumerate(karta.spec.structure_definition.child_components):
        yield from _component_expressions(child, (*structure, "childComponents", index))
    gang = karta.gang
    if gang is not None and gang.pod_groups:
        base = ("spec", "optimizationInstructions", "gangScheduling", "podGroups")
        for g_index, group in enumerate(gang.pod_groups):
            for m_index, member in enumerate(group.members):
                for k_index, key_path in enumerate(member.group_by_key_paths):
                    path = (*base, g_index, "members", m_index, "groupByKeyPaths", k_index)
                    yield ExpressionRef(path, key_path, Target.POD, member.component_name)
                for f_index, filter_expr in enumerate(member.filters):
                    path = (*base, g_index, "members", m_index, "filters", f_index)
                    yield ExpressionRef(path, filter_expr, Target.POD, member.component_name)
