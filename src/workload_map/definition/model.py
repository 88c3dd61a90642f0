"""The Karta ``run.ai/v1alpha1`` object model.

Field names and nesting follow the public ``kartas.run.ai`` CRD exactly so that definitions written
here load in KAI Scheduler's pod grouper and the reverse. Every model forbids unknown fields: a
misspelt ``replicaPath`` must be an error, never a silently ignored key.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

API_VERSION = "run.ai/v1alpha1"
KIND = "Karta"


class _Strict(BaseModel):
    # defer_build: the validation schema (tens of ms) is built on the first validation, which a process
    # whose definitions all come from the cache (workload_map.definition.compiled) never does.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, strict=True, defer_build=True)


class GroupVersionKind(_Strict):
    group: str = ""
    version: str
    kind: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def to_json(self) -> dict[str, str]:
        # What model_dump gives, without building the serializer (a deferred schema) in every process.
        return {"group": self.group, "version": self.version, "kind": self.kind}

    def __str__(self) -> str:
        return f"{self.kind}.{self.version}.{self.group}" if self.group else f"{self.kind}.{self.version}"


class FragmentedPodSpecDefinition(_Strict):
    scheduler_name_path: str | None = Field(None, alias="schedulerNamePath")
    labels_path: str | None = Field(None, alias="labelsPath")
    annotations_path: str | None = Field(None, alias="annotationsPath")
    resources_path: str | None = Field(None, alias="resourcesPath")
    resource_claims_path: str | None = Field(None, alias="resourceClaimsPath")
    pod_affinity_path: str | None = Field(None, alias="podAffinityPath")
    node_affinity_path: str | None = Field(None, alias="nodeAffinityPath")
    containers_path: str | None = Field(None, alias="containersPath")
    container_path: str | None = Field(None, alias="containerPath")
    priority_class_name_path: str | None = Field(None, alias="priorityClassNamePath")
    image_path: str | None = Field(None, alias="imagePath")


class SpecDefinition(_Strict):
    pod_template_spec_path: str | None = Field(None, alias="podTemplateSpecPath")
    pod_spec_path: str | None = Field(None, alias="podSpecPath")
    metadata_path: str | None = Field(None, alias="metadataPath")
    fragmented_pod_spec_definition: FragmentedPodSpecDefinition | None = Field(
        None, alias="fragmentedPodSpecDefinition"
    )

    @property
    def forms(self) -> list[str]:
        """The pod spec forms this definition uses; a valid one uses exactly one."""
        used = []
        if self.pod_template_spec_path is not None:
            used.append("podTemplateSpecPath")
        if self.pod_spec_path is not None:
            used.append("podSpecPath")
        if self.fragmented_pod_spec_definition is not None:
            used.append("fragmentedPodSpecDefinition")
        return used


class ScaleDefinition(_Strict):
    replicas_path: str | None = Field(None, alias="replicasPath")
    min_replicas_path: str | None = Field(None, alias="minReplicasPath")
    max_replicas_path: str | None = Field(None, alias="maxReplicasPath")


class ComponentTypeSelector(_Strict):
    key_path: str | None = Field(None, alias="keyPath")
    value: str | None = None
    match_labels: dict[str, str] | None = Field(None, alias="matchLabels")


class ComponentInstanceSelector(_Strict):
    id_path: str = Field(alias="idPath")


class ReplicaSelector(_Strict):
    key_path: str = Field(alias="keyPath")


class PodSelector(_Strict):
    component_type_selector: ComponentTypeSelector | None = Field(None, alias="componentTypeSelector")
    component_instance_selector: ComponentInstanceSelector | None = Field(None, alias="componentInstanceSelector")
    replica_selector: ReplicaSelector | None = Field(None, alias="replicaSelector")


class ResourceStatus(StrEnum):
    INITIALIZING = "Initializing"
    RUNNING = "Running"
    COMPLETED = "Completed"
    FAILED = "Failed"
    DEGRADED = "Degraded"
    SUSPENDED = "Suspended"
    SUSPENDING = "Suspending"
    RESUMING = "Resuming"
    UNDEFINED = "Undefined"


class PhaseDefinition(_Strict):
    path: str


class ConditionsDefinition(_Strict):
    path: str
    type_field_name: str = Field("type", alias="typeFieldName")
    status_field_name: str = Field("status", alias="statusFieldName")
    message_field_name: str | None = Field("message", alias="messageFieldName")
    reason_field_name: str | None = Field("reason", alias="reasonFieldName")

    # The Go type has no omitempty on these names, so objects written by Go clients carry "" for
    # "unset"; the CRD default only applies to absent fields. Read "" (and null) as the default.
    @field_validator("type_field_name", "status_field_name", "message_field_name", "reason_field_name", mode="before")
    @classmethod
    def _empty_is_default(cls, value: Any, info: ValidationInfo) -> Any:
        if value in ("", None):
            return {
                "type_field_name": "type",
                "status_field_name": "status",
                "message_field_name": "message",
                "reason_field_name": "reason",
            }[str(info.field_name)]
        return value


class ExpectedCondition(_Strict):
    type: str
    status: str | None = None
    reason: str | None = None


class ExpressionMatcher(_Strict):
    expression: str
    expected_result: str = Field(alias="expectedResult")


class StatusMatcher(_Strict):
    by_phase: str | None = Field(None, alias="byPhase")
    by_conditions: list[ExpectedCondition] | None = Field(None, alias="byConditions")
    by_expression: ExpressionMatcher | None = Field(None, alias="byExpression")


class StatusMappings(_Strict):
    initializing: list[StatusMatcher] | None = None
    running: list[StatusMatcher] | None = None
    completed: list[StatusMatcher] | None = None
    failed: list[StatusMatcher] | None = None
    degraded: list[StatusMatcher] | None = None
    suspended: list[StatusMatcher] | None = None
    suspending: list[StatusMatcher] | None = None
    resuming: list[StatusMatcher] | None = None

    def entries(self) -> list[tuple[ResourceStatus, str, list[StatusMatcher]]]:
        """(status, field name, matchers) for every mapped status, in declaration order."""
        out: list[tuple[ResourceStatus, str, list[StatusMatcher]]] = []
        for status in ResourceStatus:
            if status is ResourceStatus.UNDEFINED:
                continue
            field = status.value.lower()
            matchers: list[StatusMatcher] | None = getattr(self, field)
            if matchers:
                out.append((status, field, matchers))
        return out


class StatusDefinition(_Strict):
    phase_definition: PhaseDefinition | None = Field(None, alias="phaseDefinition")
    conditions_definition: ConditionsDefinition | None = Field(None, alias="conditionsDefinition")
    # Absent is the same as {}: a gang-only or scheduling-only definition maps no status (KAI Scheduler
    # accepts it; every workload is Undefined). The validator warns.
    status_mappings: StatusMappings = Field(default_factory=StatusMappings, alias="statusMappings")


class SuspendAction(_Strict):
    path: str
    # The format stores the value JSON-encoded in a string ("true" writes the boolean true). Objects
    # written by the Go reference may carry the raw JSON value instead; both are read.
    value: Any

    @field_validator("value")
    @classmethod
    def _value_is_json(cls, raw: Any) -> Any:
        if isinstance(raw, str):
            try:
                json.loads(raw)
            except ValueError as exc:
                raise ValueError(f"value must be a JSON-encoded string such as 'true' or '\"x\"': {exc}") from None
        return raw

    @property
    def decoded_value(self) -> Any:
        return json.loads(self.value) if isinstance(self.value, str) else self.value


class SuspendDefinition(_Strict):
    suspend_actions: list[SuspendAction] = Field(alias="suspendActions", min_length=1)
    resume_actions: list[SuspendAction] = Field(alias="resumeActions", min_length=1)


class ComponentDefinition(_Strict):
    name: str
    kind: GroupVersionKind | None = None
    owner_ref: str | None = Field(None, alias="ownerRef")
    spec_definition: SpecDefinition | None = Field(None, alias="specDefinition")
    scale_definition: ScaleDefinition | None = Field(None, alias="scaleDefinition")
    status_definition: StatusDefinition | None = Field(None, alias="statusDefinition")
    suspend_definition: SuspendDefinition | None = Field(None, alias="suspendDefinition")
    instance_id_path: str | None = Field(None, alias="instanceIdPath")
    pod_selector: PodSelector | None = Field(None, alias="podSelector")


class StructureDefinition(_Strict):
    root_component: ComponentDefinition = Field(alias="rootComponent")
    child_components: list[ComponentDefinition] = Field(default_factory=list, alias="childComponents")
    additional_child_kinds: list[GroupVersionKind] = Field(default_factory=list, alias="additionalChildKinds")


class PodGroupMember(_Strict):
    component_name: str = Field(alias="componentName")
    group_by_key_paths: list[str] = Field(default_factory=list, alias="groupByKeyPaths")
    filters: list[str] = Field(default_factory=list)


class PodGroupDefinition(_Strict):
    name: str
    members: list[PodGroupMember]


class Topology(_Strict):
    topology_name: str | None = Field(None, alias="topologyName")
    required_topology_level: str | None = Field(None, alias="requiredTopologyLevel")
    preferred_topology_level: str | None = Field(None, alias="preferredTopologyLevel")


class SubGroupDefinition(_Strict):
    component_name: str = Field(alias="componentName")
    topology: Topology | None = None


class SingleGroupDefinition(_Strict):
    name: str
    sub_groups: list[SubGroupDefinition] = Field(default_factory=list, alias="subGroups")
    topology: Topology | None = None


class GangScheduling(_Strict):
    pod_groups: list[PodGroupDefinition] | None = Field(None, alias="podGroups")
    pod_group: SingleGroupDefinition | None = Field(None, alias="podGroup")


class OptimizationInstructions(_Strict):
    gang_scheduling: GangScheduling | None = Field(None, alias="gangScheduling")


class KartaSpec(_Strict):
    structure_definition: StructureDefinition = Field(alias="structureDefinition")
    optimization_instructions: OptimizationInstructions | None = Field(None, alias="optimizationInstructions")


class Karta(_Strict):
    # metadata and status are Kubernetes-owned (ObjectMeta, conditions) and kept verbatim.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, strict=True, defer_build=True)

    api_version: str = Field(alias="apiVersion")
    kind: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    spec: KartaSpec
    status: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return str(self.metadata.get("name", ""))

    @property
    def root(self) -> ComponentDefinition:
        return self.spec.structure_definition.root_component

    @property
    def components(self) -> list[ComponentDefinition]:
        """Root first, then the children in declaration order."""
        return [self.root, *self.spec.structure_definition.child_components]

    @property
    def identity(self) -> GroupVersionKind | None:
        """The root group/version/kind: what makes two definitions the same definition."""
        return self.root.kind

    @property
    def gang(self) -> GangScheduling | None:
        instructions = self.spec.optimization_instructions
        return instructions.gang_scheduling if instructions else None

    def component(self, name: str) -> ComponentDefinition | None:
        for component in self.components:
            if component.name == name:
                return component
        return None

    def children_of(self, name: str) -> list[ComponentDefinition]:
        return [c for c in self.spec.structure_definition.child_components if c.owner_ref == name]

    def to_dict(self) -> dict[str, Any]:
        """The wire form: only fields the author set, camelCase, ready for YAML/JSON or the API server."""
        return self.model_dump(by_alias=True, exclude_unset=True, mode="json")


def slug(gvk: GroupVersionKind) -> str:
    """The catalog file and object name: ``<group dots->dashes>-<kind>-<version>``, lower case."""
    group = gvk.group.replace(".", "-") if gvk.group else "core"
    return f"{group}-{gvk.kind}-{gvk.version}".lower()
