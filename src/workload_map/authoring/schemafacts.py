"""What the drafting reads from a CRD's openAPIV3Schema (schema.py): the fields found (``Field``), the pod
definitions (``Site``) and everything one version's schema says (``SchemaFacts``), with the names of the fields
that count pods and the walk of a schema node by a field's segments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from workload_map.authoring.evidence import ARRAY, MAP, Segments, schema_path

# Integer fields beside a pod definition that count its pods, most telling first.
REPLICA_NAMES = ("replicas", "replicaCount", "numReplicas", "numWorkers", "workers", "instances", "count", "size")
MIN_NAMES = ("minReplicas", "minAvailable", "minMember", "minSize", "minWorkers")
MAX_NAMES = ("maxReplicas", "maxSize", "maxWorkers")
# Multiplies the replica count: one pod per host of a multi-host replica (KubeRay's numOfHosts).
# A count of pods in one group (a leader and its workers), itself counted by the group's holder.
GROUP_SIZE_NAMES = ("size", "groupSize")
HOSTS_NAMES = ("numOfHosts", "hostsPerReplica", "numHosts")
# Shards beside a count of replicas of each shard: the pods are their product (a Prometheus' shards x replicas).
SHARD_NAMES = ("shards", "shardCount", "shardsCount", "numShards", "numberOfShards")
SHARD_PRODUCT = re.compile(r"multipl|\b(each|every|per) shard\b|\bshards? (x|times)\b", re.I)
ID_NAMES = ("name", "groupName", "replicaName", "taskName", "roleName")


@dataclass(frozen=True)
class Field:
    """One schema field found: where, its schema (type, enum, default) and whether its parent requires it."""

    segments: Segments
    schema: dict[str, Any]
    required: bool = False

    @property
    def path(self) -> str:
        return schema_path(self.segments)

    @property
    def enum(self) -> list[str]:
        values = self.schema.get("enum")
        return [str(v) for v in values] if isinstance(values, list) else []

    @property
    def default(self) -> Any:
        return self.schema.get("default")


@dataclass
class Site:
    """One pod definition in the object: a template, a bare PodSpec, a container list or one container."""

    segments: Segments
    form: str  # template | podspec | containers | container
    source: str  # "schema" or a sample's location
    role: Segments = ()  # the object that holds the pod definition and its counts
    replicas: Field | None = None
    min_replicas: Field | None = None
    max_replicas: Field | None = None
    hosts: Field | None = None
    instance_id: Field | None = None  # per item of the innermost collection
    job: Segments | None = None  # a batch/v1 JobTemplateSpec on the way (JobSet-like): its segments
    bare_job: bool = False  # ``job`` is a bare JobSpec (no metadata/spec around it): the operator wraps it
    metadata: bool = False  # a PodSpec with an ObjectMeta beside it (``metadata`` sibling of ``spec``)
    free_form: str | None = None  # why an open object (no typed containers) is taken for a pod definition
    embeds: str | None = None  # the built-in kind whose spec the role object is (Deployment, StatefulSet)
    alternative: Segments | None = None  # an optional object of the list item, beside others holding pods
    # Counts of the list items above the object that counts the pods (a role's replicas over the size of
    # each replica's group): the pods are the product.
    instances: list[Field] = field(default_factory=list)

    @property
    def path(self) -> str:
        return schema_path(self.segments)

    @property
    def collections(self) -> int:
        return sum(1 for s in self.segments if s in (ARRAY, MAP))


@dataclass
class SchemaFacts:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    sites: list[Site] = field(default_factory=list)
    suspend: list[tuple[Field, str, str]] = field(default_factory=list)  # field, suspend value, resume value
    conditions: Field | None = None
    condition_types: list[str] = field(default_factory=list)
    phases: list[Field] = field(default_factory=list)
    untyped: list[str] = field(default_factory=list)  # paths the schema leaves open
    ready_counts: list[Field] = field(default_factory=list)  # .status.readyReplicas and the like
    replicas_at_root: Field | None = None
    count_at_root: Field | None = None
    through_replicasets: bool = False  # a DeploymentSpec-shaped .spec: pods are owned through ReplicaSets
    # What the printer columns (kubectl get) show: (condition type, column), (status field, column).
    printer_conditions: list[tuple[str, str]] = field(default_factory=list)
    printer_phases: list[tuple[Segments, str]] = field(default_factory=list)
    printer_ready: list[tuple[Segments, str]] = field(default_factory=list)
    status_paths: set[Segments] = field(default_factory=set)  # every field the status schema declares
    # Values the operator's Go API types declare (--api-source): (field, value) or ("conditions", type) -> where.
    api_evidence: dict[tuple[Segments, str], str] = field(default_factory=dict)
    # What a value the controller writes means where its words do not say (gosource.ApiValues.meanings).
    api_meanings: dict[tuple[Segments, str], tuple[str, str, str]] = field(default_factory=dict)
    api_conditions: list[tuple[str, str]] = field(default_factory=list)  # (condition type, where declared)
    api_ready_counts: list[tuple[Segments, str]] = field(default_factory=list)  # (field, where the controller fills it)
    # Annotations that pause the object (described in the schema, or declared in the API types): (key, where).
    annotation_switches: list[tuple[str, str]] = field(default_factory=list)
    annotation_values: dict[str, str] = field(default_factory=dict)  # key -> the value that suspends
    # A switch of the spec the Go types say pauses only the operator (--api-source): (path, where), if any.
    operator_pause: tuple[str, str] | None = None
    batch_fields: list[str] = field(default_factory=list)  # fields only run-to-completion kinds have
    serving_fields: list[str] = field(default_factory=list)  # fields only long-running services have
    schema: dict[str, Any] = field(default_factory=dict, repr=False)  # the version's openAPIV3Schema

    def field_at(self, segments: Segments) -> Field | None:
        """The schema's field at ``segments`` (``[]`` an item of a list), None where it declares none."""
        node = _node_at(self.schema, segments)
        return Field(segments, node) if node else None


def _props(node: Any) -> dict[str, Any]:
    if not isinstance(node, dict):
        return {}
    props = node.get("properties")
    return props if isinstance(props, dict) else {}


def _node_at(root: dict[str, Any], segments: Segments) -> dict[str, Any]:
    node: Any = root
    for segment in segments:
        if segment == ARRAY:
            node = node.get("items") or {}
        elif segment == MAP:
            node = node.get("additionalProperties") or {}
        else:
            node = _props(node).get(segment) or {}
    return node if isinstance(node, dict) else {}
