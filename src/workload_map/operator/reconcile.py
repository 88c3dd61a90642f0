"""What a Karta's status should be: pure functions, no I/O.

Three conditions, each with ``observedGeneration``: ``Validated`` (the project's full validator: schema,
structure, expressions and sandbox), ``CRDExists`` (the root kind is served: a CRD serving that version, or a
built-in / aggregated kind found by discovery) and ``Ready`` (both). ``lastTransitionTime`` only moves when a
condition's status changes. An Event is due only when a condition's status or reason changes, and its name
is derived from the object's uid, the condition and the *previous* transition time, so an operator that
restarts mid-reconcile recreates the same name and the API server refuses the duplicate.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Any

from workload_map import Location, definition_from_dict
from workload_map.ports.definitions import Severity, validate

VALIDATED = "Validated"
CRD_EXISTS = "CRDExists"
READY = "Ready"
CONDITION_TYPES = (VALIDATED, CRD_EXISTS, READY)
MAX_MESSAGE = 4000


@dataclass(frozen=True)
class EventSpec:
    name: str
    type: str  # Normal | Warning
    reason: str
    message: str


def now_rfc3339() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def validation_findings(obj: dict[str, Any], severity: Severity = Severity.ERROR) -> list[str]:
    """Every finding of the validator of one severity (errors by default) for a raw Karta object, located
    (``spec.….field: message``)."""
    clean = {k: v for k, v in obj.items() if k != "status"}
    karta, findings = definition_from_dict(clean, Location())
    if karta is not None:
        findings = validate(karta, Location())
    return [_finding_text(f) for f in findings if f.severity is severity]


def _finding_text(finding: Any) -> str:
    text = f"{finding.location.path}: {finding.message}" if finding.location.path else finding.message
    if finding.expression is not None:
        text += f" (expression: {finding.expression})"
    return text


def _clip(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def desired_conditions(obj: dict[str, Any], served: bool | None, served_detail: str, now: str) -> list[dict[str, Any]]:
    """The three conditions for ``obj``; ``served`` None means the root kind could not be checked."""
    generation = int((obj.get("metadata") or {}).get("generation") or 0)
    previous = {c.get("type"): c for c in ((obj.get("status") or {}).get("conditions") or []) if isinstance(c, dict)}
    findings = validation_findings(obj)
    out = []

    def cond(ctype: str, ok: bool | None, reason: str, message: str) -> None:
        status = "Unknown" if ok is None else ("True" if ok else "False")
        old = previous.get(ctype) or {}
        ltt = old.get("lastTransitionTime") if old.get("status") == status else None
        out.append(
            {
                "type": ctype,
                "status": status,
                "observedGeneration": generation,
                "lastTransitionTime": ltt or now,
                "reason": reason,
                "message": _clip(message),
            }
        )

    if findings:
        cond(VALIDATED, False, "ValidationFailed", f"{len(findings)} error(s): " + "; ".join(findings))
    else:
        cond(VALIDATED, True, "Valid", "the definition passed validation")
    if served is None:
        cond(CRD_EXISTS, None, "CheckFailed", served_detail)
    elif served:
        cond(CRD_EXISTS, True, "Served", served_detail)
    else:
        cond(CRD_EXISTS, False, "NotServed", served_detail)
    if findings:
        cond(READY, False, "ValidationFailed", "the definition is invalid (see Validated)")
    elif served is None:
        cond(READY, None, "CheckFailed", "the root kind could not be checked (see CRDExists)")
    elif not served:
        cond(READY, False, "RootKindNotServed", "the root kind is not served by the cluster (see CRDExists)")
    else:
        cond(READY, True, "Ready", "the definition is valid and its root kind is served")
    return out


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("status", "reason", "message", "observedGeneration", "lastTransitionTime")
    return all(a.get(k) == b.get(k) for k in keys)


def status_changed(obj: dict[str, Any], conditions: list[dict[str, Any]]) -> bool:
    previous = {c.get("type"): c for c in ((obj.get("status") or {}).get("conditions") or []) if isinstance(c, dict)}
    return any(not _same(previous.get(c["type"]) or {}, c) for c in conditions)


def merged_conditions(obj: dict[str, Any], conditions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ours replace our types; conditions other writers own are kept."""
    ours = {c["type"] for c in conditions}
    others = [
        c
        for c in ((obj.get("status") or {}).get("conditions") or [])
        if isinstance(c, dict) and c.get("type") not in ours
    ]
    return [*others, *conditions]


def due_events(obj: dict[str, Any], conditions: list[dict[str, Any]]) -> list[EventSpec]:
    """One Event per condition whose status or reason changed (Ready is summarised by the others)."""
    metadata = obj.get("metadata") or {}
    uid = str(metadata.get("uid") or "")
    name = str(metadata.get("name") or "")
    previous = {c.get("type"): c for c in ((obj.get("status") or {}).get("conditions") or []) if isinstance(c, dict)}
    events = []
    for cond in conditions:
        old = previous.get(cond["type"]) or {}
        if old.get("status") == cond["status"] and old.get("reason") == cond["reason"]:
            continue
        key = "|".join([uid, cond["type"], cond["status"], cond["reason"], str(old.get("lastTransitionTime") or "-")])
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        events.append(
            EventSpec(
                name=f"{name}.{digest}",
                type="Normal" if cond["status"] == "True" else "Warning",
                reason=("Ready" if cond["status"] == "True" else "NotReady")
                if cond["type"] == READY
                else cond["reason"],
                message=cond["message"],
            )
        )
    return events
