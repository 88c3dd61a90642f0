"""The JSON API of ``wmap serve`` (``/api/v1``): what the dashboard reads, documented by OPENAPI.

Every answer is computed from the model's current state; nothing here writes to the cluster.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workload_map import display_type, figures_of, parse_selector
from workload_map.ports.live import check_status, matches
from workload_map.ports.present import json_number as number

if TYPE_CHECKING:
    from workload_map.ports.live import LiveReader, Resolved

API_VERSION = "workload-map/v1alpha1"


def type_path(kind: str, group: str) -> str:
    """The TYPE segment of a workload's URL: ``kind.group`` lower-case (``pod`` for the core group)."""
    return f"{kind.lower()}.{group}" if group else kind.lower()


def row(item: Resolved) -> dict[str, Any]:
    """One workload as the table shows it (the columns of ``wmap get -o wide``), its figures as every
    surface counts them and under their names (docs/semantics.md "Figures"): ``gpusDesired`` is ``get``'s
    GPUS; ``gpus``, the same figure, is kept for the clients of this API's v1."""

    tree = item.tree
    counts = tree.counts
    figures = figures_of(tree)

    def known(value: float) -> float | None:
        return None if tree.incomplete else value

    nodes = sorted({p.state.node for p in tree.all_pods if p.state.node})
    return {
        "namespace": tree.namespace,
        "name": tree.name,
        "kind": tree.kind,
        "group": tree.group,
        "type": display_type(tree.group, tree.kind),
        "path": f"{tree.namespace}/{type_path(tree.kind, tree.group)}/{tree.name}",
        "status": tree.status.primary.value,
        "reason": figures.reason,
        "components": [{"name": role, "pods": count} for role, count in tree.role_summary()],
        # With part of the cluster unread only what the spec says is known: the rest is null, never zeros.
        # ``ready`` is the PODS figure of ``wmap get``: Ready pods plus Succeeded ones for the slots no Ready
        # pod fills (a Completed JobSet is 4/4).
        "pods": {
            "ready": figures.pods_ready,
            "desired": counts.desired,
            "notReady": figures.pods_not_ready,
            "pending": known(counts.pending),
            "failed": known(counts.failed),
            "running": known(counts.running),
        },
        "problems": figures.problems,
        "gpusDesired": number(figures.gpus_desired),
        "gpus": number(figures.gpus_desired),
        "gpusRequested": number(figures.gpus_requested),
        "gpusInUse": None if figures.gpus_in_use is None else number(figures.gpus_in_use),
        "incomplete": list(tree.incomplete),
        "nodes": nodes,
        "creationTimestamp": _timestamp((tree.workload.get("metadata") or {}).get("creationTimestamp")),
        "definition": tree.definition.name,
        "labels": (tree.workload.get("metadata") or {}).get("labels") or {},
    }


def _timestamp(value: Any) -> str | None:
    if value is None:
        return None
    return value.isoformat().replace("+00:00", "Z") if hasattr(value, "isoformat") else str(value)


def workloads(
    model: LiveReader,
    *,
    namespace: str | None = None,
    type_name: str | None = None,
    status: str | None = None,
    selector: str | None = None,
) -> dict[str, Any]:
    """``GET /api/v1/workloads``: rows filtered as ``wmap get`` filters (ValueError for a bad filter)."""

    requirements = parse_selector(selector) if selector else []
    if status:
        check_status(status)
    kind = None
    if type_name:
        kind = model.registry.resolve_type(type_name)
        if kind is None:
            raise ValueError(f'no definition covers type "{type_name}"')
    items = []
    for item in model.workloads():
        tree = item.tree
        if namespace and tree.namespace != namespace:
            continue
        if kind is not None and (tree.group, tree.kind) != (kind.group, kind.kind):
            continue
        if status and tree.status.primary.value.lower() != status.lower():
            continue
        labels = (tree.workload.get("metadata") or {}).get("labels") or {}
        if requirements and not matches(requirements, labels):
            continue
        items.append(row(item))
    return {
        "apiVersion": API_VERSION,
        "kind": "WorkloadList",
        "version": model.version,
        "coverage": coverage(model),
        "stale": model.problems(),  # watches failing now: what may be out of date, since when and why
        "items": items,
    }


def coverage(model: LiveReader) -> dict[str, Any]:
    """What the model cannot see now: one entry per gap, with the objects read that lie in it."""
    objects = model.gap_objects()
    gaps = [
        {
            "resource": gap.resource,
            "namespace": gap.namespace,
            "cause": gap.cause.value,
            "reason": gap.why,
            "fix": gap.fix,
            "objects": count,
        }
        for gap, count in objects.items()
    ]
    return {"complete": not gaps, "gaps": gaps, "warnings": model.gap_warnings()}


def status(model: LiveReader) -> dict[str, Any]:
    """``GET /api/v1/status``: readiness, the API server's last answer, gaps and each watched resource."""
    ready, reason = model.readiness()
    age = model.last_contact_age()
    return {
        "apiVersion": API_VERSION,
        "kind": "Status",
        "version": model.version,
        "ready": ready,
        "reason": reason,
        "apiserver": {
            "answering": model.apiserver_error is None,
            "error": model.apiserver_error,
            "lastContactAge": age,
        },
        "coverage": coverage(model),
        "stale": model.problems(),
        "resources": [
            {"resource": name, "objects": state.objects, "readable": state.readable, "error": state.error}
            for name, state in sorted(model.resources.items())
        ],
    }


def workload(model: LiveReader, namespace: str, type_name: str, name: str) -> dict[str, Any] | None:
    """``GET /api/v1/workloads/{namespace}/{type}/{name}``: the tree document, gang plan and table row."""
    kind = model.registry.resolve_type(type_name)
    if kind is None:
        return None
    for item in model.workloads():
        tree = item.tree
        if (tree.namespace, tree.name, tree.group, tree.kind) == (namespace, name, kind.group, kind.kind):
            return {
                "apiVersion": API_VERSION,
                "kind": "Workload",
                "row": row(item),
                "tree": _jsonable(tree.to_json()),
                "gang": item.gang.to_json() if item.gang else None,
                "events": [event.to_json() for event in model.workload_events(item)],
            }
    return None


def definitions(model: LiveReader) -> dict[str, Any]:
    """``GET /api/v1/definitions``: the definitions in effect."""
    items = []
    for definition in sorted(model.registry.definitions, key=lambda d: d.name):
        gvk = definition.karta.identity
        items.append(
            {
                "name": definition.name,
                "group": gvk.group if gvk else None,
                "version": gvk.version if gvk else None,
                "kind": gvk.kind if gvk else None,
                "origin": definition.origin,
                "components": [c.name for c in definition.karta.components],
            }
        )
    return {"apiVersion": API_VERSION, "kind": "DefinitionList", "items": items}


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if hasattr(value, "isoformat"):
        return _timestamp(value)
    return value


_ROW = {
    "type": "object",
    "properties": {
        "cluster": {"type": "string", "description": "the kubeconfig context the workload lives in"},
        "namespace": {"type": "string"},
        "name": {"type": "string"},
        "kind": {"type": "string"},
        "group": {"type": "string"},
        "type": {"type": "string", "description": "the kind as tables show it"},
        "path": {"type": "string", "description": "{namespace}/{type}/{name} of the workload's URL"},
        "status": {"type": "string", "description": "the primary status (docs/semantics.md)"},
        "reason": {"type": ["string", "null"], "description": "why, in words, when something is wrong"},
        "components": {"type": "array", "items": {"type": "object"}},
        "pods": {
            "type": "object",
            "description": "ready (Ready, or Succeeded for a slot no Ready pod fills), desired, notReady "
            "(0 for a Completed, Failed or Suspended workload), pending, failed, running; null when incomplete",
        },
        "problems": {"type": ["object", "null"], "description": "pods with a problem by reason (CrashLoopBackOff)"},
        "gpusDesired": {"type": "number", "description": "GPUs desired (wmap get's GPUS)"},
        "gpus": {"type": "number", "description": "the same as gpusDesired, kept for v1 clients"},
        "gpusRequested": {"type": "number", "description": "GPUs desired, 0 when Completed, Failed or Suspended"},
        "gpusInUse": {
            "type": ["number", "null"],
            "description": "GPUs of its pods bound to a node and not finished; null when incomplete",
        },
        "incomplete": {
            "type": "array",
            "items": {"type": "string"},
            "description": "why its pods or parts may not all have been read (empty: complete)",
        },
        "nodes": {"type": "array", "items": {"type": "string"}},
        "creationTimestamp": {"type": ["string", "null"]},
        "definition": {"type": "string"},
        "labels": {"type": "object"},
    },
}
_COVERAGE = {
    "type": "object",
    "description": "what the model cannot read now (docs/metrics.md, Coverage)",
    "properties": {
        "complete": {"type": "boolean"},
        "gaps": {"type": "array", "items": {"type": "object"}},
        "warnings": {"type": "array", "items": {"type": "string"}},
    },
}
_FILTERS = [
    {"name": "cluster", "in": "query", "schema": {"type": "string"}, "description": "one cluster of the fleet"},
    {"name": "namespace", "in": "query", "schema": {"type": "string"}},
    {
        "name": "type",
        "in": "query",
        "schema": {"type": "string"},
        "description": "kind, plural, short name, kind.group",
    },
    {"name": "status", "in": "query", "schema": {"type": "string"}},
    {"name": "selector", "in": "query", "schema": {"type": "string"}, "description": "kubectl label selector"},
]
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {
        "title": "workload-map serve API",
        "version": "v1",
        "description": "Read-only answers of wmap serve's live model. Authorization: Bearer <token> when the "
        "server was started with a token (also ?token= for EventSource).",
    },
    "paths": {
        "/api/v1/workloads": {
            "get": {
                "summary": "Top-level workloads, filtered as wmap get filters them",
                "parameters": _FILTERS,
                "responses": {
                    "200": {
                        "description": "WorkloadList",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "items": {"type": "array", "items": _ROW},
                                        "version": {"type": "integer"},
                                        "coverage": _COVERAGE,
                                        "stale": {
                                            "type": "array",
                                            "items": {"type": "string"},
                                            "description": "watches failing now (one line per cause): "
                                            "what may be stale, since when and why",
                                        },
                                    },
                                }
                            }
                        },
                    },
                    "400": {"description": "a bad filter (unknown type, malformed selector)"},
                },
            }
        },
        "/api/v1/workloads/{namespace}/{type}/{name}": {
            "get": {
                "summary": "One workload: its tree (docs/tree-json.md) with the status explanation, its gang plan, "
                "and the Events of its root, what it owns and its pods (newest last: type, reason, message, count, "
                "firstSeen, lastSeen, from, object {kind, name, namespace})",
                "parameters": [
                    {"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                    for p in ("namespace", "type", "name")
                ],
                "responses": {"200": {"description": "Workload"}, "404": {"description": "no such workload"}},
            }
        },
        "/api/v1/fleet": {
            "get": {
                "summary": "Per cluster: workloads by status, GPUs requested, in use and free (null: unknown), "
                "and why a cluster is not served",
                "responses": {"200": {"description": "Fleet"}},
            }
        },
        "/api/v1/queues": {
            "get": {
                "summary": "Per cluster: the schedulers' queues with quota, usage and waiting demand, and every "
                "queued workload with its admission state and reason (docs/queues.md), of the current "
                "state: the queue kinds are watched with the workloads",
                "parameters": _FILTERS[:1],  # cluster
                "responses": {"200": {"description": "QueueList"}},
            }
        },
        "/api/v1/status": {
            "get": {
                "summary": "Readiness, the API server's last answer, what cannot be read, each watched resource",
                "responses": {"200": {"description": "Status"}},
            }
        },
        "/api/v1/definitions": {
            "get": {"summary": "The definitions in effect", "responses": {"200": {"description": "DefinitionList"}}}
        },
        "/api/v1/events": {
            "get": {
                "summary": "Server-Sent Events: `change` with {version} after every batch of cluster events applied",
                "responses": {"200": {"description": "text/event-stream"}},
            }
        },
        "/api/v1/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI"}}}},
        "/metrics": {
            "get": {"summary": "Prometheus exposition (docs/metrics.md)", "responses": {"200": {"description": "text"}}}
        },
    },
}
