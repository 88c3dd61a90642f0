"""The Karta ``run.ai/v1alpha1`` object model.

Field names and nesting follow the public ``kartas.run.ai`` CRD exactly so that definitions written
here load in KAI Scheduler's pod grouper and the reverse: a field's name in a document is its Python
name in camelCase (:func:`wire_name`).

The model is plain frozen records (:class:`Model`), readable without pydantic: a command whose definitions
come from the compiled cache (``workload_map.definition.compiled``) unpickles them and never loads the
parser. Parsing a document is ``workload_map.definition.schema``'s job (pydantic models derived from these
classes, which forbid unknown fields: a misspelt ``replicaPath`` must be an error, never a silently
ignored key).
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from workload_map.base.model import Model, field
from workload_map.errors import Location

API_VERSION = "run.ai/v1alpha1"
KIND = "Karta"


def wire_name(field_name: str) -> str:
    """A field's name in a document: ``replicas_path`` -> ``replicasPath``."""
    head, *rest = field_name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def wire_fields(model: Model) -> list[tuple[str, str]]:
    """(field name, name in a document) of every field of a model object, in declaration order."""
    return [(name, wire_name(name)) for name in model.FIELDS]


class GroupVersionKind(Model):
    group: str = ""
    version: str
    kind: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def to_json(self) -> dict[str, str]:
        return {"group": self.group, "version": self.version, "kind": self.kind}

    def __str__(self) -> str:
        return f"{self.kind}.{self.version}.{self.group}" if self.group else f"{self.kind}.{self.version}"


class FragmentedPodSpecDefinition(Model):
    scheduler_name_path: str | None = None
    labels_path: str | None = None
    annotations_path: str | None = None
    resources_path: str | None = None
    resource_claims_path: str | None = None
    pod_affinity_path: str | None = None
    node_affinity_path: str | None = None
    containers_path: str | None = None
    container_path: str | None = None
    priority_class_name_path: str | None = None
    image_path: str | None = None


class SpecDefinition(Model):
    pod_template_spec_path: str | None = None
    pod_spec_path: str | None = None
    metadata_path: str | None = None
    fragmented_pod_spec_definition: FragmentedPodSpecDefinition | None = None

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


class ScaleDefinition(Model):
    replicas_path: str | None = None
    min_replicas_path: str | None = None
    max_replicas_path: str | None = None


class ComponentTypeSelector(Model):
    key_path: str | None = None
    value: str | None = None
    match_labels: dict[str, str] | None = None


class ComponentInstanceSelector(Model):
    id_path: str


class ReplicaSelector(Model):
    key_path: str


class PodSelector(Model):
    component_type_selector: ComponentTypeSelector | None = None
    component_instance_selector: ComponentInstanceSelector | None = None
    replica_selector: ReplicaSelector | None = None


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


class PhaseDefinition(Model):
    path: str


class ConditionsDefinition(Model):
    # The Go type has no omitempty on these names, so objects written by Go clients carry "" for
    # "unset"; the schema reads "" (and null) as the default.
    path: str
    type_field_name: str = "type"
    status_field_name: str = "status"
    message_field_name: str | None = "message"
    reason_field_name: str | None = "reason"


class ExpectedCondition(Model):
    type: str
    status: str | None = None
    reason: str | None = None


class ExpressionMatcher(Model):
    expression: str
    expected_result: str


class StatusMatcher(Model):
    by_phase: str | None = None
    by_conditions: list[ExpectedCondition] | None = None
    by_expression: ExpressionMatcher | None = None


class StatusMappings(Model):
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
            name = status.value.lower()
            matchers: list[StatusMatcher] | None = getattr(self, name)
            if matchers:
                out.append((status, name, matchers))
        return out


class StatusDefinition(Model):
    phase_definition: PhaseDefinition | None = None
    conditions_definition: ConditionsDefinition | None = None
    # Absent is the same as {}: a gang-only or scheduling-only definition maps no status (KAI Scheduler
    # accepts it; every workload is Undefined). The validator warns.
    status_mappings: StatusMappings = field(default_factory=StatusMappings)


class SuspendAction(Model):
    # The format stores the value JSON-encoded in a string ("true" writes the boolean true; the schema
    # refuses a string that is not JSON). Objects written by the Go reference may carry the raw JSON
    # value instead; both are read.
    path: str
    value: Any

    @property
    def decoded_value(self) -> Any:
        return json.loads(self.value) if isinstance(self.value, str) else self.value


class SuspendDefinition(Model):
    suspend_actions: list[SuspendAction]  # not empty (the schema's rule)
    resume_actions: list[SuspendAction]


class ComponentDefinition(Model):
    name: str
    kind: GroupVersionKind | None = None
    owner_ref: str | None = None
    spec_definition: SpecDefinition | None = None
    scale_definition: ScaleDefinition | None = None
    status_definition: StatusDefinition | None = None
    suspend_definition: SuspendDefinition | None = None
    instance_id_path: str | None = None
    pod_selector: PodSelector | None = None


class StructureDefinition(Model):
    root_component: ComponentDefinition
    child_components: list[ComponentDefinition] = field(default_factory=list)
    additional_child_kinds: list[GroupVersionKind] = field(default_factory=list)


class PodGroupMember(Model):
    component_name: str
    group_by_key_paths: list[str] = field(default_factory=list)
    filters: list[str] = field(default_factory=list)


class PodGroupDefinition(Model):
    name: str
    members: list[PodGroupMember]


class Topology(Model):
    topology_name: str | None = None
    required_topology_level: str | None = None
    preferred_topology_level: str | None = None


class SubGroupDefinition(Model):
    component_name: str
    topology: Topology | None = None


class SingleGroupDefinition(Model):
    name: str
    sub_groups: list[SubGroupDefinition] = field(default_factory=list)
    topology: Topology | None = None


class GangScheduling(Model):
    pod_groups: list[PodGroupDefinition] | None = None
    pod_group: SingleGroupDefinition | None = None


class OptimizationInstructions(Model):
    gang_scheduling: GangScheduling | None = None


class KartaSpec(Model):
    structure_definition: StructureDefinition
    optimization_instructions: OptimizationInstructions | None = None


class Karta(Model):
    # metadata and status are Kubernetes-owned (ObjectMeta, conditions) and kept verbatim.
    api_version: str
    kind: str
    metadata: dict[str, Any] = field(default_factory=dict)
    spec: KartaSpec
    status: dict[str, Any] | None = None
    # The wire form (only the fields the author set, camelCase), recorded by the schema when it parsed the
    # document: what to_dict gives. Not a field of the format (the schema leaves it out). JSON text, because
    # every warm command unpickles it and few read it: bytes come back as one copy, a dict object by object.
    document: bytes = b"{}"

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
        wire: dict[str, Any] = json.loads(self.document)  # not orjson: integers of any size
        return wire


class LoadedDefinition(Model, kw_only=False):
    karta: Karta
    location: Location
    origin: str = "file"  # builtin | file | cluster

    @property
    def name(self) -> str:
        return self.karta.name


def slug(gvk: GroupVersionKind) -> str:
    """The catalog file and object name: ``<group dots->dashes>-<kind>-<version>``, lower case."""
    group = gvk.group.replace(".", "-") if gvk.group else "core"
    return f"{group}-{gvk.kind}-{gvk.version}".lower()
