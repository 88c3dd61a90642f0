"""Kubernetes objects as plain dicts: the accessors every layer reads them with.

The core (resolution, trees, gang groups) reads objects only through these; the indexed set of objects
a dump or a live cluster becomes is :class:`workload_map.base.snapshot.Snapshot`, one layer up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULT_NAMESPACE = "default"

Obj = dict[str, Any]


def group_of(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def version_of(api_version: str) -> str:
    return api_version.split("/", 1)[1] if "/" in api_version else api_version


@dataclass(frozen=True)
class ObjectKey:
    group: str
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        kind = f"{self.kind}.{self.group}" if self.group else self.kind
        return f"{kind.lower()}/{self.name} in {self.namespace}"


def meta(obj: Obj) -> dict[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def name_of(obj: Obj) -> str:
    return str(meta(obj).get("name") or "")


def namespace_of(obj: Obj) -> str:
    return str(meta(obj).get("namespace") or DEFAULT_NAMESPACE)


def uid_of(obj: Obj) -> str | None:
    uid = meta(obj).get("uid")
    return str(uid) if uid else None


def key_of(obj: Obj) -> ObjectKey:
    return ObjectKey(
        group_of(str(obj.get("apiVersion") or "")), str(obj.get("kind") or ""), namespace_of(obj), name_of(obj)
    )


def is_pod(obj: Obj) -> bool:
    return obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1"


def owner_references(obj: Obj) -> list[dict[str, Any]]:
    refs = meta(obj).get("ownerReferences")
    if not isinstance(refs, list):
        return []
    valid = [r for r in refs if isinstance(r, dict) and r.get("kind") and (r.get("name") or r.get("uid"))]
    # The controller reference is the one that created the object; follow it first.
    return sorted(valid, key=lambda r: not r.get("controller"))
