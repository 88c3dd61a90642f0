"""Reading a CRD's openAPIV3Schema for what a definition needs: pod definitions, counts, suspend, status.

One version's schema is read into ``SchemaFacts`` (schemafacts.py): its pod definitions and their counts
(schemapods.py), the switches that stop its pods (schemaswitches.py), its status (schemastatus.py) and the
fields that mark a run-to-completion kind or a long-running service; the values the operator's Go API types
declare are added to it (``add_api_values``).
"""

from __future__ import annotations

from typing import Any

from workload_map.authoring.evidence import Segments, schema_path
from workload_map.authoring.schemafacts import REPLICA_NAMES, Field, SchemaFacts, _props
from workload_map.authoring.schemapods import (
    _first,
    _walk_fields,
    described_count,
    find_sites,
    rolls_out_through_replicasets,
    spec_roots,
)
from workload_map.authoring.schemastatus import _printer_columns, _status_fields
from workload_map.authoring.schemaswitches import _described_annotations, _suspend_fields

BATCH_FIELDS = (
    "completions",
    "backoffLimit",
    "ttlSecondsAfterFinished",
    "activeDeadlineSeconds",
    "runPolicy",
    "minAvailable",
    "minMember",
    "successPolicy",
    "failurePolicy",
    "maxRestarts",
    "cleanPodPolicy",
)
SERVING_FIELDS = (
    "minReplicas",
    "maxReplicas",
    "autoscaling",
    "scaleTarget",
    "canaryTrafficPercent",
    "traffic",
    "predictors",
    "endpoint",
    "ports",
    "strategy",
    "rollingUpdate",
    "revisionHistoryLimit",
)


def _kind_markers(facts: SchemaFacts, spec: dict[str, Any]) -> None:
    """Fields under .spec that only run-to-completion kinds, or only long-running services, have."""
    for found in _walk_fields(spec, ("spec",)):
        name = found.segments[-1]
        if name in BATCH_FIELDS:
            facts.batch_fields.append(found.path)
        elif name in SERVING_FIELDS:
            facts.serving_fields.append(found.path)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def choose_version(crd: dict[str, Any], version: str | None = None) -> dict[str, Any]:
    spec = _mapping(crd.get("spec"))
    listed = spec.get("versions")
    versions = [v for v in listed if isinstance(v, dict)] if isinstance(listed, list) else []
    if version is not None:
        for entry in versions:
            if entry.get("name") == version:
                return entry
        raise ValueError(f"the CRD has no version {version!r} (it has {[v.get('name') for v in versions]})")
    for entry in versions:
        if entry.get("storage"):
            return entry
    served = [v for v in versions if v.get("served", True)]
    if not served:
        raise ValueError("the CRD lists no served version (.spec.versions)")
    return served[0]


def read_crd(crd: dict[str, Any], version: str | None = None) -> SchemaFacts:
    """Everything the schema of one CRD version says; ValueError when it is not a CRD."""
    if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
        raise ValueError(f"not a CustomResourceDefinition (kind {crd.get('kind') if isinstance(crd, dict) else crd!r})")
    spec = _mapping(crd.get("spec"))
    names = _mapping(spec.get("names"))
    if not spec.get("group") or not names.get("kind"):
        raise ValueError("the CRD has no .spec.group or .spec.names.kind")
    entry = choose_version(crd, version)
    holder = entry.get("schema")
    schema = holder.get("openAPIV3Schema") if isinstance(holder, dict) else None
    schema = schema if isinstance(schema, dict) else {}
    facts = SchemaFacts(
        group=str(spec["group"]),
        version=str(entry.get("name")),
        kind=str(names["kind"]),
        plural=str(names.get("plural") or ""),
        namespaced=spec.get("scope", "Namespaced") == "Namespaced",
        schema=schema,
    )
    roots = spec_roots(schema)
    facts.sites = [site for root in roots for site in find_sites(schema, (root,))]
    root_spec = _props(schema).get("spec") or {}
    facts.suspend = [entry for root in roots for entry in _suspend_fields(_props(schema).get(root) or {}, root)]
    facts.through_replicasets = rolls_out_through_replicasets(schema)
    facts.replicas_at_root = _first(root_spec, ("spec",), ("replicas",), ("integer",))
    # Where no pod definition is found, a count under .spec still says how many pods (a VM pool, a node set).
    facts.count_at_root = _first(root_spec, ("spec",), REPLICA_NAMES, ("integer",)) or described_count(
        root_spec, ("spec",)
    )
    # A role the spec configures as an object of its own (``.spec.frontend``) may have its own status beside it.
    roles = frozenset(name for name, node in _props(root_spec).items() if isinstance(node, dict) and _props(node))
    _status_fields(facts, _props(schema).get("status") or {}, roles)
    facts.annotation_switches = _described_annotations(schema)
    _printer_columns(facts, entry.get("additionalPrinterColumns") or spec.get("additionalPrinterColumns"))
    _kind_markers(facts, root_spec)
    for part in ("spec", "status"):
        node = _props(schema).get(part)
        if not isinstance(node, dict) or (node.get("x-kubernetes-preserve-unknown-fields") and not _props(node)):
            facts.untyped.append(f".{part}")
    if not schema:
        facts.untyped = [".spec", ".status"]
    return facts


def add_api_values(
    facts: SchemaFacts, phases: dict[Segments, list[tuple[str, str]]], conditions: list[tuple[str, str]]
) -> list[str]:
    """Add what the operator's API types declare (gosource.py) to what the schema says: the values of each
    status field the schema has (as if it enumerated them, with where each is declared) and the condition
    types. Returns a warning per declared field the CRD's status does not have (another version's types?)."""
    warnings = []
    open_status = ".status" in facts.untyped
    for segments, values in phases.items():
        if segments not in facts.status_paths and not open_status:
            warnings.append(f"the API types declare {schema_path(segments)}, which the CRD's status does not have")
            continue
        known = next((f for f in facts.phases if f.segments == segments), None)
        if known is not None and known.enum:
            listed = set(known.enum)
            facts.api_evidence.update(((segments, v), where) for v, where in values if v in listed)
            continue
        schema: dict[str, Any] = dict(known.schema) if known is not None else {"type": "string"}
        schema["enum"] = list(dict.fromkeys(v for v, _ in values))
        if known is not None:
            facts.phases.remove(known)
        facts.phases.append(Field(segments, schema))
        facts.api_evidence.update(((segments, v), where) for v, where in values)
    facts.phases.sort(key=lambda f: (len(f.segments), not f.enum))
    facts.api_conditions = [c for c in conditions if c[0] not in facts.condition_types]
    return warnings
