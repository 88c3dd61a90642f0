"""What a CRD's schema says of the object's status (schema.py): its conditions, phases and ready counts,
and those the printer columns (``kubectl get``) show.
"""

from __future__ import annotations

import re
from typing import Any

from workload_map.authoring.evidence import ARRAY, MAP
from workload_map.authoring.schemafacts import Field, SchemaFacts, _node_at, _props
from workload_map.authoring.schemapods import _walk_fields

# Any other count of ready or available members: ``availableNodes``, ``readyInstances``.
# ``readyMembers``; ``numberReady`` as a DaemonSet counts, a role's too (``workerNumberReady``; its
# ``numberAvailable`` is a second name for the same pods, left out: a role's counts come first).
READY_COUNT = re.compile(r"^(ready|available)(?:[A-Z][a-z]+)+$|^(?:[a-z]\w*N|n)umberReady$")
# A status object counting the members by state (``.status.replicas.ready``).
MEMBER_NAMES = ("replicas", "pods", "instances", "workers", "nodes")
READY_NAMES = ("readyReplicas", "availableReplicas", "readyWorkers", "readyPods")
# An integer `.status.ready` (or `available`): the object's ready pods, summed over its parts.
TOTAL_READY = ("ready", "available")
PHASE_NAMES = ("phase", "state", "lifecycleState", "jobState", "clusterState", "status")


# A printer column's JSONPath: a condition's status (`.status.conditions[?(@.type=="Ready")].status`) or a field.
_CONDITION_COLUMN = re.compile(r"^\.status\.conditions\[\?\(@\.type\s*==\s*['\"]([^'\"]+)['\"]\)\]")
_FIELD_COLUMN = re.compile(r"^\.status((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$")


def _printer_columns(facts: SchemaFacts, columns: Any) -> None:
    """What ``kubectl get`` shows is what the operator's authors deem the status: condition types, phases,
    ready counts."""
    for column in columns if isinstance(columns, list) else []:
        if not isinstance(column, dict):
            continue
        path, name = str(column.get("jsonPath") or ""), str(column.get("name") or "")
        condition = _CONDITION_COLUMN.match(path)
        plain = _FIELD_COLUMN.match(path)
        if condition:
            facts.printer_conditions.append((condition.group(1), name))
        elif plain:
            segments = ("status", *plain.group(1).strip(".").split("."))
            if column.get("type") == "integer" and (
                segments[-1] in READY_NAMES or name.lower() in ("ready", "available")
            ):
                facts.printer_ready.append((segments, name))
            elif column.get("type") == "string" and (
                segments[-1] in PHASE_NAMES
                or segments[-1].endswith(("Phase", "State", "Status"))
                or name.lower() in ("status", "phase", "state")
            ):
                facts.printer_phases.append((segments, name))


# A part's pods counted as "N of M" (``running`` beside ``target``): the ready ones of its desired count.
PART_READY = ("running", "ready", "available")
PART_TARGET = ("target", "desired", "replicas", "total")


def _ready_of_target(found: Field, status: dict[str, Any]) -> bool:
    """An integer ``running`` (ready, available) beside an integer ``target`` (desired, replicas) in one part's
    object of the status (``.status.parts.db.running``), not in a list item: that part's ready pods."""
    if found.segments[-1] not in PART_READY or ARRAY in found.segments or MAP in found.segments:
        return False
    siblings = _props(_node_at({"properties": {"status": status}}, found.segments[:-1]))
    return len(found.segments) in (3, 4) and any(
        isinstance(siblings.get(name), dict) and siblings[name].get("type") == "integer" for name in PART_TARGET
    )


def _status_fields(facts: SchemaFacts, status: dict[str, Any], roles: frozenset[str] = frozenset()) -> None:
    for found in _walk_fields(status, ("status",)):
        facts.status_paths.add(found.segments)
        name = found.segments[-1]
        schema = found.schema
        if name == "conditions" and schema.get("type") == "array" and facts.conditions is None:
            items = schema.get("items") or {}
            type_schema = _props(items).get("type")
            if isinstance(type_schema, dict):
                facts.conditions = found
                enum = type_schema.get("enum")
                facts.condition_types = [str(v) for v in enum] if isinstance(enum, list) else []
        elif schema.get("type") == "integer" and (
            (len(found.segments) == 2 and (name in (*READY_NAMES, *TOTAL_READY) or READY_COUNT.match(name)))
            or (len(found.segments) == 3 and found.segments[1] in MEMBER_NAMES and name in ("ready", "available"))
            or (len(found.segments) == 3 and found.segments[1].endswith("Status") and name in READY_NAMES)
            or (len(found.segments) == 3 and found.segments[1] in roles and name in READY_NAMES)
            or _ready_of_target(found, status)
        ):
            facts.ready_counts.append(found)
        elif (
            schema.get("type") == "string"
            and "conditions" not in found.segments
            and (name in PHASE_NAMES or name.endswith(("Phase", "State", "Status")))
        ):
            facts.phases.append(found)
    facts.phases.sort(key=lambda f: (len(f.segments), not f.enum))
