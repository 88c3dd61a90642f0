"""Admission decisions for Karta objects (pure functions over AdmissionReview requests).

Validating: the project's full validator (every finding, located), at most one Karta per root
group/version/kind, the root kind is immutable on update, and index labels that are present must match
the root kind. Mutating: stamps the index labels (JSON patch).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable
from typing import Any

from workload_map.operator.reconcile import validation_findings
from workload_map.ports.definitions import INDEX_LABELS, Severity, index_labels, root_gvk_of

MAX_LISTED = 20


def response(  # noqa: PLR0917 - the AdmissionResponse fields, in order
    uid: str,
    allowed: bool,
    message: str = "",
    patch: list[dict[str, Any]] | None = None,
    code: int = 403,
    warnings: list[str] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"uid": uid, "allowed": allowed}
    if not allowed:
        body["status"] = {"code": code, "reason": "Invalid" if code == 422 else "Forbidden", "message": message}
    if patch:
        body["patchType"] = "JSONPatch"
        body["patch"] = base64.b64encode(json.dumps(patch).encode()).decode()
    if warnings:
        body["warnings"] = warnings
    return body


def review(request_body: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": request_body.get("apiVersion", "admission.k8s.io/v1"),
        "kind": "AdmissionReview",
        "response": result,
    }


def validate_karta(request: dict[str, Any], list_kartas: Callable[[], Iterable[dict[str, Any]]]) -> dict[str, Any]:
    uid = str(request.get("uid", ""))
    operation = request.get("operation")
    if operation not in ("CREATE", "UPDATE"):
        return response(uid, True)
    obj = request.get("object") or {}
    name = str((obj.get("metadata") or {}).get("name") or request.get("name") or "")
    problems = validation_findings(obj)
    if problems:
        listed = problems[:MAX_LISTED]
        more = f" (and {len(problems) - MAX_LISTED} more)" if len(problems) > MAX_LISTED else ""
        message = f"Karta {name!r} is invalid: " + "; ".join(listed) + more
        # The apiserver relays warnings on a denial too, so the author sees every finding at once
        # instead of fixing the errors only to be told about the rest on the next apply.
        warnings = validation_findings(obj, Severity.WARNING)[:MAX_LISTED]
        return response(uid, False, message, code=422, warnings=warnings)
    gvk = root_gvk_of(obj)
    if operation == "UPDATE":
        old_gvk = root_gvk_of(request.get("oldObject") or {})
        if (
            old_gvk is not None
            and gvk is not None
            and (old_gvk.group, old_gvk.version, old_gvk.kind) != (gvk.group, gvk.version, gvk.kind)
        ):
            return response(
                uid,
                False,
                f"Karta {name!r}: spec.structureDefinition.rootComponent.kind is immutable (was {old_gvk}, now {gvk}); "
                "create a new Karta for another kind",
                code=422,
            )
    labels = (obj.get("metadata") or {}).get("labels") or {}
    want = index_labels(gvk)
    wrong = [
        f"{k}={labels[k]!r} (expected {want.get(k, '')!r})"
        for k in INDEX_LABELS
        if k in labels and labels[k] != want.get(k)
    ]
    if wrong:
        return response(
            uid, False, f"Karta {name!r}: index labels do not match the root kind {gvk}: " + ", ".join(wrong), code=422
        )
    if gvk is not None:
        for other in list_kartas():
            other_name = (other.get("metadata") or {}).get("name")
            if other_name == name:
                continue
            other_gvk = root_gvk_of(other)
            if other_gvk is not None and (other_gvk.group, other_gvk.version, other_gvk.kind) == (
                gvk.group,
                gvk.version,
                gvk.kind,
            ):
                return response(
                    uid,
                    False,
                    f"Karta {name!r}: root kind {gvk} is already defined by Karta {other_name!r}; "
                    "only one Karta per root group/version/kind is allowed (edit that one instead)",
                    code=409,
                )
    # Admitted, with the validator's warnings (e.g. spec paths that make a component read-only for
    # updates), which kubectl prints as "Warning: ...".
    warnings = validation_findings(obj, Severity.WARNING)[:MAX_LISTED]
    return response(uid, True, warnings=warnings)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def mutate_karta(request: dict[str, Any]) -> dict[str, Any]:
    uid = str(request.get("uid", ""))
    if request.get("operation") not in ("CREATE", "UPDATE"):
        return response(uid, True)
    obj = request.get("object") or {}
    want = index_labels(root_gvk_of(obj))
    labels = (obj.get("metadata") or {}).get("labels")
    patch: list[dict[str, Any]] = []
    if not want:
        return response(uid, True)
    if not isinstance(labels, dict):
        patch.append({"op": "add", "path": "/metadata/labels", "value": want})
    else:
        for key, value in want.items():
            if labels.get(key) != value:
                patch.append({"op": "add", "path": f"/metadata/labels/{_escape(key)}", "value": value})
    return response(uid, True, patch=patch)
