"""``catalog install`` and ``catalog diff`` as library functions.

Install is a server-side apply (``application/apply-patch+yaml``, field manager ``workload-map``) of each
built-in definition with its index labels stamped; ``dry_run`` sends ``dryRun=All`` so the API server runs
every admission step (CEL rules, webhooks) and persists nothing. Diff compares each built-in definition with
the Karta of the same name on the cluster: ``missing``, ``differs`` (with a unified diff of the YAML) or
``same``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from workload_map.crd import GROUP, PLURAL, VERSION
from workload_map.crd.labels import FIELD_MANAGER, INDEX_LABELS, index_labels
from workload_map.definition.model import LoadedDefinition
from workload_map.sources.kube.connection import ClusterError, Connection

APPLY_PATCH = "application/apply-patch+yaml"
KARTAS_PATH = f"/apis/{GROUP}/{VERSION}/{PLURAL}"


@dataclass(frozen=True)
class InstallResult:
    name: str
    kind: str  # the root kind, "Kind.version.group"
    action: str  # created | configured | unchanged (with dry_run: what would happen)
    dry_run: bool = False


@dataclass(frozen=True)
class DiffEntry:
    name: str
    kind: str
    state: str  # missing | differs | same
    diff: str = ""


def desired_object(definition: LoadedDefinition) -> dict[str, Any]:
    """The Karta as the catalog wants it on the cluster: the definition plus its index labels, no status."""
    obj = definition.karta.to_dict()
    obj.pop("status", None)
    metadata = {"name": definition.karta.name}
    labels = dict((obj.get("metadata") or {}).get("labels") or {})
    labels.update(index_labels(definition.karta.identity))
    metadata["labels"] = labels  # type: ignore[assignment]
    annotations = (obj.get("metadata") or {}).get("annotations")
    if annotations:
        metadata["annotations"] = annotations
    obj["metadata"] = metadata
    return obj


def select(definitions: Iterable[LoadedDefinition], kinds: Sequence[str] = ()) -> list[LoadedDefinition]:
    """Definitions matching any of ``kinds``: a kind (``RayJob``), ``kind.group``, ``kind.version.group`` or
    the object name; case-insensitive. No kinds selects everything. An unknown kind is an error."""
    definitions = list(definitions)
    if not kinds:
        return definitions
    chosen: list[LoadedDefinition] = []
    for wanted in kinds:
        key = wanted.lower()
        matches = [d for d in definitions if key in _names(d)]
        if not matches:
            known = ", ".join(sorted({d.karta.identity.kind for d in definitions if d.karta.identity}))
            raise ClusterError(f"no built-in definition for {wanted!r} (known kinds: {known})")
        chosen += [m for m in matches if m not in chosen]
    return chosen


def _names(definition: LoadedDefinition) -> set[str]:
    names = {definition.karta.name.lower()}
    gvk = definition.karta.identity
    if gvk is not None:
        kind = gvk.kind.lower()
        names |= {kind, f"{kind}.{gvk.group}".lower(), str(gvk).lower(), f"{kind}.{gvk.version}".lower()}
    return names


def _builtin() -> list[LoadedDefinition]:
    from workload_map.catalog import builtin_definitions  # noqa: PLC0415 (the catalog loads only when definitions are needed)

    return builtin_definitions()


def _get(connection: Connection, name: str) -> dict[str, Any] | None:
    try:
        obj = connection.request("GET", f"{KARTAS_PATH}/{name}", what=f"karta {name}")
    except ClusterError as exc:
        if exc.status == 404:
            return None
        raise
    return obj if isinstance(obj, dict) else None


def install(
    connection: Connection,
    kinds: Sequence[str] = (),
    *,
    dry_run: bool = False,
    definitions: Iterable[LoadedDefinition] | None = None,
    force: bool = True,
) -> list[InstallResult]:
    """Server-side apply the selected built-in definitions (all by default)."""
    results = []
    for definition in select(_builtin() if definitions is None else definitions, kinds):
        name = definition.karta.name
        before = _get(connection, name)
        query: dict[str, Any] = {"fieldManager": FIELD_MANAGER, "force": "true" if force else None}
        if dry_run:
            query["dryRun"] = "All"
        after = connection.request(
            "PATCH",
            f"{KARTAS_PATH}/{name}",
            query,
            body=desired_object(definition),
            content_type=APPLY_PATCH,
            what=f"karta {name}",
        )
        if before is None:
            action = "created"
        elif _comparable(before) == _comparable(after):
            action = "unchanged"
        else:
            action = "configured"
        results.append(InstallResult(name, str(definition.karta.identity), action, dry_run))
    return results


def _comparable(obj: dict[str, Any]) -> dict[str, Any]:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return {"spec": obj.get("spec"), "labels": {k: labels.get(k) for k in INDEX_LABELS}}


def _yaml(obj: Any) -> list[str]:
    return yaml.safe_dump(obj, sort_keys=True, width=120).splitlines(keepends=True)


def diff(
    connection: Connection, kinds: Sequence[str] = (), *, definitions: Iterable[LoadedDefinition] | None = None
) -> list[DiffEntry]:
    """Per selected built-in definition: missing on the cluster, differs (unified diff of spec + index
    labels, cluster first) or same."""
    entries = []
    for definition in select(_builtin() if definitions is None else definitions, kinds):
        name = definition.karta.name
        live = _get(connection, name)
        kind = str(definition.karta.identity)
        if live is None:
            entries.append(DiffEntry(name, kind, "missing"))
            continue
        want = _comparable(desired_object(definition))
        have = _comparable(live)
        if want == have:
            entries.append(DiffEntry(name, kind, "same"))
            continue
        text = "".join(
            difflib.unified_diff(_yaml(have), _yaml(want), fromfile=f"cluster/{name}", tofile=f"builtin/{name}")
        )
        entries.append(DiffEntry(name, kind, "differs", text))
    return entries


__all__ = ["APPLY_PATCH", "DiffEntry", "InstallResult", "desired_object", "diff", "install", "select"]
