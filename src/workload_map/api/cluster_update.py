"""``wmap update`` against a live cluster: one JSON merge patch of the workload object.

The change itself is computed by ``workload_map.resolve.writes`` (``update_pod_specs``,
``set_suspended``) from the definition; this module only sends ``WriteResult.patch`` with
``Content-Type: application/merge-patch+json`` (``dryRun=All`` for ``--dry-run=server``).
"""

from __future__ import annotations

from typing import Any

from workload_map.base.snapshot import Obj, group_of, name_of, namespace_of, version_of
from workload_map.sources.kube.connection import MERGE_PATCH, ClusterError, Connection, resource_path
from workload_map.sources.kube.discovery import Discovery, ServedResource


def _resource(discovery: Discovery, workload: Obj) -> tuple[str, ServedResource]:
    api_version = str(workload.get("apiVersion") or "")
    group, version, kind = group_of(api_version), version_of(api_version), str(workload.get("kind") or "")
    served = [r for r in discovery.served(group, kind) if r.version == version] or discovery.served(group, kind)
    if not served:
        raise ClusterError(f"cannot update {kind}.{group or 'core'}: the cluster does not serve it")
    resource = served[0]
    path = resource_path(
        group,
        resource.version,
        resource.plural,
        namespace_of(workload) if resource.namespaced else None,
        name_of(workload),
    )
    return path, resource


def read_workload(connection: Connection, discovery: Discovery, workload: Obj) -> Obj:
    """The workload as the server holds it now (GET), in the version ``workload`` was read at."""
    path, resource = _resource(discovery, workload)
    result = connection.request("GET", path, what=f"{resource.display}/{name_of(workload)}")
    if not isinstance(result, dict):
        raise ClusterError(f"invalid response (GET {path}): not an object", status=200)
    result.setdefault("apiVersion", workload.get("apiVersion"))
    result.setdefault("kind", workload.get("kind"))
    return result


def patch_workload(
    connection: Connection,
    discovery: Discovery,
    workload: Obj,
    patch: dict[str, Any],
    *,
    dry_run: str | None = None,
    field_manager: str = "wmap",
) -> Obj:
    """Send ``patch`` for ``workload``; returns the object the server answered with.

    ``dry_run``: None (apply), "server" (``dryRun=All``: admission and validation run, nothing is
    stored). Client dry-run never reaches this function. The patch carries the object's
    resourceVersion, so a workload changed since it was read fails with a Conflict instead of being
    overwritten, and asks for strict field validation, so a field the kind's schema would prune is an
    error instead.
    """
    api_version, kind = str(workload.get("apiVersion") or ""), str(workload.get("kind") or "")
    path, resource = _resource(discovery, workload)
    name = name_of(workload)
    body = dict(patch)
    rv = (workload.get("metadata") or {}).get("resourceVersion")
    if rv:
        body["metadata"] = {**(body.get("metadata") or {}), "resourceVersion": rv}
    # fieldValidation=Strict: a field the kind's schema does not know (a CRD embedding an older PodSpec
    # without resourceClaims) is an error, never silently pruned while the patch "succeeds".
    query = {
        "fieldManager": field_manager,
        "fieldValidation": "Strict",
        "dryRun": "All" if dry_run == "server" else None,
    }
    try:
        result = connection.request(
            "PATCH", path, query, body=body, content_type=MERGE_PATCH, what=f"{resource.display}/{name}"
        )
    except ClusterError as exc:
        if exc.status == 409:
            raise ClusterError(
                f"Conflict ({resource.display}/{name}): the workload changed since it was read",
                status=409,
                hint="run the command again",
            ) from None
        raise
    if not isinstance(result, dict):
        raise ClusterError(f"invalid response (PATCH {path}): not an object", status=200)
    result.setdefault("apiVersion", api_version)
    result.setdefault("kind", kind)
    return result
