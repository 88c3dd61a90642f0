"""The index labels a Karta carries so consumers find it by its root kind with a label selector.

Names and values are those of the reference Karta operator (github.com/run-ai/karta) that KAI Scheduler's
Karta-based pod grouper selects by: the raw API group (the core group is the EMPTY string, a valid label
value — not "core"; "core" only appears in object and file names), the version and the kind.
"""

from __future__ import annotations

from typing import Any

from workload_map.definition.model import GroupVersionKind

LABEL_GROUP = "run.ai/karta-group"
LABEL_VERSION = "run.ai/karta-version"
LABEL_KIND = "run.ai/karta-kind"
INDEX_LABELS = (LABEL_GROUP, LABEL_VERSION, LABEL_KIND)

# The field manager of every server-side apply the project makes (catalog install, the operator's PodGroups).
FIELD_MANAGER = "workload-map"


def index_labels(gvk: GroupVersionKind | None) -> dict[str, str]:
    """The labels for a root kind; empty when the definition has no root kind."""
    if gvk is None:
        return {}
    return {LABEL_GROUP: gvk.group, LABEL_VERSION: gvk.version, LABEL_KIND: gvk.kind}


def root_gvk_of(obj: dict[str, Any]) -> GroupVersionKind | None:
    """The root kind of a raw Karta object, read leniently (admission sees invalid objects too)."""
    try:
        kind = obj["spec"]["structureDefinition"]["rootComponent"]["kind"]
    except (KeyError, TypeError):
        return None
    if not isinstance(kind, dict):
        return None
    try:
        return GroupVersionKind(
            group=str(kind.get("group") or ""), version=str(kind.get("version") or ""), kind=str(kind.get("kind") or "")
        )
    except Exception:
        return None


def label_selector(gvk: GroupVersionKind) -> str:
    return ",".join(f"{k}={v}" for k, v in index_labels(gvk).items())
