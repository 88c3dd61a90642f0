"""What `wmap definitions new --kind KIND.GROUP` reads from a cluster: the CRD, some instances, and the
pods whose ownerReferences lead up to one of them (with every owner on the way).

The walk goes from pods up, as the garbage collector sees ownership: each pod's controller reference
is followed (GET of the owner, its plural from discovery) until an instance of the kind is reached or
the chain ends. Reads are bounded: at most ``limit`` instances and their namespaces' pods.
"""

from __future__ import annotations

from typing import Any

from workload_map.errors import WorkloadMapError
from workload_map.sources.kube.connection import ClusterError, Connection, resource_path
from workload_map.sources.kube.discovery import Discovery, discover

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
MAX_CHAIN = 8


def find_crd(connection: Connection, kind_group: str) -> dict[str, Any]:
    """The CRD of ``Kind.group`` (or ``plural.group``, ``singular.group``, a short name), by name first."""
    kind, _, group = kind_group.partition(".")
    if not kind or not group:
        raise WorkloadMapError(f"{kind_group!r} is not KIND.GROUP", hint="e.g. --kind PyTorchJob.kubeflow.org")
    try:
        found: dict[str, Any] = connection.get(f"{CRDS}/{kind.lower()}.{group}")  # given as plural.group
        return found
    except ClusterError as exc:
        if exc.status != 404:
            raise
    listing = connection.get(CRDS) or {}
    wanted = kind.lower()
    for crd in listing.get("items") or []:
        spec = crd.get("spec") or {}
        names = spec.get("names") or {}
        spellings = {str(names.get(k) or "").lower() for k in ("kind", "plural", "singular")}
        spellings |= {str(s).lower() for s in names.get("shortNames") or []}
        if spec.get("group") == group and wanted in spellings:
            # A LIST's items carry no apiVersion/kind.
            return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", **crd}
    raise WorkloadMapError(
        f"no CustomResourceDefinition for {kind_group} in the cluster",
        hint="list them with: kubectl get crd",
    )


def _served_version(crd: dict[str, Any]) -> str:
    versions = [v for v in (crd.get("spec") or {}).get("versions") or [] if v.get("served", True)]
    storage = [v for v in versions if v.get("storage")]
    return str((storage or versions)[0]["name"])


def _owner(
    connection: Connection, discovery: Discovery, ref: dict[str, Any], namespace: str, cache: dict[str, Any]
) -> dict[str, Any] | None:
    uid = str(ref.get("uid") or "")
    if uid in cache:
        return cache[uid]  # type: ignore[no-any-return]
    api = str(ref.get("apiVersion") or "")
    group, _, version = api.rpartition("/")
    resource = next((r for r in discovery.served(group, str(ref.get("kind"))) if r.version == version), None)
    resource = resource or discovery.resource(group, str(ref.get("kind")))
    found: dict[str, Any] | None = None
    if resource is not None:
        path = resource_path(
            group, resource.version, resource.plural, namespace if resource.namespaced else None, str(ref.get("name"))
        )
        try:
            found = connection.get(path)
        except ClusterError as exc:
            if exc.status not in (403, 404):
                raise
    cache[uid] = found
    return found


def _controller(obj: dict[str, Any]) -> dict[str, Any] | None:
    refs = [r for r in (obj.get("metadata") or {}).get("ownerReferences") or [] if isinstance(r, dict)]
    return next((r for r in refs if r.get("controller")), refs[0] if refs else None)


def read_kind(
    connection: Connection, kind_group: str, *, namespace: str | None = None, limit: int = 20
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The kind's CRD and the sample objects: up to ``limit`` instances (``namespace`` None: all), the
    pods owned by them through any chain of owners, and those owners."""
    crd = find_crd(connection, kind_group)
    spec = crd.get("spec") or {}
    group, plural = str(spec.get("group")), str((spec.get("names") or {}).get("plural"))
    namespaced = spec.get("scope", "Namespaced") == "Namespaced"
    listing = connection.get(
        resource_path(group, _served_version(crd), plural, namespace if namespaced else None), {"limit": limit}
    )
    instances = [i for i in (listing or {}).get("items") or [] if isinstance(i, dict)]
    if not instances:
        return crd, []
    roots = {str((i.get("metadata") or {}).get("uid")) for i in instances}
    discovery = discover(connection)
    cache: dict[str, Any] = {}
    owners: dict[str, dict[str, Any]] = {}
    pods: list[dict[str, Any]] = []
    namespaces = sorted({str((i.get("metadata") or {}).get("namespace") or "") for i in instances} - {""})
    for ns in namespaces or [namespace or ""]:
        pod_list = connection.get(resource_path("", "v1", "pods", ns or None)) or {}
        for pod in pod_list.get("items") or []:
            chain: list[dict[str, Any]] = []
            current: dict[str, Any] | None = pod
            for _ in range(MAX_CHAIN):
                ref = _controller(current or {})
                if ref is None:
                    break
                if str(ref.get("uid")) in roots:
                    pods.append(pod)
                    for owner in chain:
                        owners[str(owner["metadata"]["uid"])] = owner
                    break
                pod_ns = str((pod.get("metadata") or {}).get("namespace") or "")
                current = _owner(connection, discovery, ref, pod_ns, cache)
                if current is None:
                    break
                chain.append(current)
    return crd, [*_with_kind(instances, group, _served_version(crd), crd), *owners.values(), *_pods(pods)]


def _with_kind(items: list[dict[str, Any]], group: str, version: str, crd: dict[str, Any]) -> list[dict[str, Any]]:
    # A LIST's items carry apiVersion and kind for custom resources; set them anyway (some servers omit).
    kind = str(((crd.get("spec") or {}).get("names") or {}).get("kind"))
    for item in items:
        item.setdefault("apiVersion", f"{group}/{version}")
        item.setdefault("kind", kind)
    return items


def _pods(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for item in items:
        item.setdefault("apiVersion", "v1")
        item.setdefault("kind", "Pod")
    return items
