"""Listing what the covered workloads need into a Snapshot, with as few requests as possible.

For ``get``: one paged list per covered kind the cluster serves, one paged pod list for the namespace
in scope (cluster-wide with -A), and one paged list per kind that sits between pods and workloads on
an owner chain (Jobs, StatefulSets, ReplicaSets, PodCliques...), derived from the definitions. Never
a GET per pod or per owner. For ``describe``: the named workload, the intermediate kinds of its
definition only, and the pods narrowed by a label selector when the definition makes one obvious.
"""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from workload_map.base.coverage import Cause, Coverage, Gap
from workload_map.base.gc_pause import bulk
from workload_map.base.snapshot import Obj, Snapshot
from workload_map.definition.model import LoadedDefinition
from workload_map.definition.registry import DefinitionRegistry
from workload_map.errors import Location
from workload_map.sources.kube.connection import CancelledError, ClusterError, Connection, GoneError, resource_path
from workload_map.sources.kube.discovery import Discovery, ServedResource
from workload_map.sources.kube.reads import child_kinds, defined_versions, plan_lists

MAX_WORKERS = 4
KARTA_GROUP, KARTA_VERSION, KARTA_KIND = "run.ai", "v1alpha1", "Karta"
KARTA_RESOURCE = "kartas.run.ai"

# Labels operators put on every pod of a workload, whose value is the workload's name. Used only to
# narrow the pod list of ``describe``; resolution never depends on them.
WORKLOAD_NAME_LABELS: dict[tuple[str, str], str] = {
    ("jobset.x-k8s.io", "JobSet"): "jobset.sigs.k8s.io/jobset-name",
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): "leaderworkerset.sigs.k8s.io/name",
    ("kubeflow.org", "PyTorchJob"): "training.kubeflow.org/job-name",
    ("kubeflow.org", "TFJob"): "training.kubeflow.org/job-name",
    ("kubeflow.org", "MPIJob"): "training.kubeflow.org/job-name",
    ("kubeflow.org", "XGBoostJob"): "training.kubeflow.org/job-name",
    ("kubeflow.org", "PaddleJob"): "training.kubeflow.org/job-name",
    ("kubeflow.org", "JAXJob"): "training.kubeflow.org/job-name",
    ("ray.io", "RayCluster"): "ray.io/cluster",
    ("batch", "Job"): "batch.kubernetes.io/job-name",
}


@dataclass
class ListResult:
    resource: ServedResource
    namespace: str | None
    items: list[Obj]
    resource_version: str
    pages: int
    label_selector: str | None = None
    field_selector: str | None = None


# --------------------------------------------------------------------------- listing


def list_all(
    connection: Connection,
    resource: ServedResource,
    namespace: str | None,
    *,
    label_selector: str | None = None,
    field_selector: str | None = None,
    chunk_size: int | None = None,
    warnings: list[str] | None = None,
    project: Callable[[Obj], Obj] | None = None,
) -> ListResult:
    """Every object of one resource, page by page; an expired continue token relists once. ``project``
    replaces each item as its page arrives, so a caller that keeps part of each object never holds a whole
    list of full objects (the live model: full pods were ~3.8x their JSON in memory)."""
    path = resource_path(resource.group, resource.version, resource.plural, namespace if resource.namespaced else None)
    limit = chunk_size or connection.chunk_size
    what = resource.display
    for attempt in (1, 2):
        items: list[Obj] = []
        token: str | None = None
        pages = 0
        resource_version = ""
        try:
            while True:
                query = {
                    "limit": limit if limit and limit > 0 else None,
                    "continue": token,
                    "labelSelector": label_selector,
                    "fieldSelector": field_selector,
                }
                doc = connection.get(path, query, what=what) or {}
                pages += 1
                for item in doc.get("items") or []:
                    if isinstance(item, dict):
                        # List items carry no apiVersion/kind on the wire; every reader needs them.
                        item["apiVersion"] = resource.api_version
                        item["kind"] = resource.kind
                        # kubectl drops managedFields by default; so do we (dumps match, less memory).
                        metadata = item.get("metadata")
                        if isinstance(metadata, dict):
                            metadata.pop("managedFields", None)
                        items.append(project(item) if project is not None else item)
                metadata = doc.get("metadata") or {}
                resource_version = str(metadata.get("resourceVersion") or resource_version)
                token = metadata.get("continue") or None
                if not token:
                    break
        except GoneError:
            if attempt == 2 or token is None:
                raise
            if warnings is not None:
                where = f" in namespace {namespace}" if namespace and resource.namespaced else ""
                warnings.append(
                    f"listing {what}{where}: the continue token expired (410 Gone) after {pages} page(s); "
                    "listed again from the start"
                )
            continue
        return ListResult(resource, namespace, items, resource_version, pages, label_selector, field_selector)
    raise AssertionError("unreachable")  # pragma: no cover


# --------------------------------------------------------------------------- Karta objects


def load_cluster_definitions(
    connection: Connection, discovery: Discovery, warnings: list[str]
) -> tuple[list[LoadedDefinition], list[Obj]]:
    """Karta objects of the cluster (origin "cluster"); problems are one warning each."""
    resource = discovery.resource(KARTA_GROUP, KARTA_KIND, [KARTA_VERSION])
    if resource is None:
        warnings.append(
            f"the Karta CRD ({KARTA_RESOURCE}) is not installed in the cluster: using built-in definitions only"
        )
        return [], []
    try:
        result = list_all(connection, resource, None, warnings=warnings)
    except ClusterError as exc:
        if exc.status == 403:
            warnings.append(f"cannot read cluster definitions: {exc.message}; using built-in definitions only")
            return [], []
        raise
    return cluster_definitions(result.items, warnings, served_version=resource.version), result.items


def cluster_definition(obj: Obj, served_version: str = KARTA_VERSION) -> tuple[LoadedDefinition | None, str | None]:
    """One Karta object of the cluster as a definition (origin "cluster"), or None and the reason it is
    ignored (it cannot be read, or the validator reports an error)."""
    from workload_map.definition.loader import checked_definition, first_of  # noqa: PLC0415 (pydantic only when a definition is parsed from source)

    name = str((obj.get("metadata") or {}).get("name") or "?")
    location = Location(f"cluster:karta/{name}")
    data = {k: v for k, v in obj.items() if k in ("apiVersion", "kind", "metadata", "spec", "status")}
    if served_version != KARTA_VERSION:
        data["apiVersion"] = f"{KARTA_GROUP}/{KARTA_VERSION}"
    karta, problems = checked_definition(data, location)
    if karta is None or problems:
        return None, f"ignoring cluster definition Karta {name!r}: {first_of(problems)}"
    return LoadedDefinition(karta, location, "cluster"), None


def cluster_definitions(
    objects: Iterable[Obj], warnings: list[str], *, served_version: str = KARTA_VERSION
) -> list[LoadedDefinition]:
    """The valid Karta objects as definitions (origin "cluster"); the others are one warning each."""
    loaded: list[LoadedDefinition] = []
    for obj in objects:
        definition, problem = cluster_definition(obj, served_version)
        if definition is not None:
            loaded.append(definition)
        elif problem:
            warnings.append(problem)
    return loaded


def layered_definitions(
    builtin: Iterable[LoadedDefinition],
    cluster: Iterable[LoadedDefinition] = (),
    user: Iterable[LoadedDefinition] = (),
) -> list[LoadedDefinition]:
    """The definitions in registry order. Precedence for one root group/version/kind (a later definition
    replaces an earlier one in a :class:`DefinitionRegistry`): built-in < cluster Karta < user files."""
    return [*builtin, *cluster, *user]


# --------------------------------------------------------------------------- fetching


ListJob = tuple[ServedResource, str | None, dict[str, Any]]


@bulk  # page decoding on every worker thread runs with the cyclic GC paused
def _run_lists(
    connection: Connection,
    jobs: Sequence[ListJob],
    warnings: list[str],
    coverage: Coverage | None = None,
) -> list[ListResult]:
    """The lists in parallel; a Forbidden or no longer served kind is a gap in ``coverage`` (one warning
    without it), anything else stops everything.

    The first fatal error cancels the others (``connection.cancel``): lists not started never start and
    running ones stop at their next page or retry, so a frozen server costs one timeout, not one per list.
    Workers are daemon threads: one still blocked in a read does not hold the command's exit.
    """

    def run(job: ListJob) -> tuple[ListResult | None, list[str]]:
        resource, namespace, kwargs = job
        local: list[str] = []
        try:
            return list_all(connection, resource, namespace, warnings=local, **kwargs), local
        except ClusterError as exc:
            cause = Cause.FORBIDDEN if exc.status == 403 else Cause.NOT_SERVED if exc.status == 404 else None
            if cause is None or (cause is Cause.NOT_SERVED and not resource.group):
                raise
            if coverage is None:
                local.append(f"{exc.message}: left out")
            else:
                gaps.append(gap_of(resource, namespace, cause, exc.message))
            return None, local

    if not jobs:
        return []
    gaps: list[Gap] = []  # list.append is atomic: the workers share it
    pending: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(jobs)):
        pending.put(index)
    done: queue.SimpleQueue[tuple[int, tuple[ListResult | None, list[str]] | None, BaseException | None]]
    done = queue.SimpleQueue()

    def worker() -> None:
        while not connection.cancel.cancelled:
            try:
                index = pending.get_nowait()
            except queue.Empty:
                return
            try:
                done.put((index, run(jobs[index]), None))
            except BaseException as exc:  # handed to the caller's thread, which raises it
                if not isinstance(exc, CancelledError):  # before this worker takes another job
                    connection.cancel.cancel(str(getattr(exc, "message", exc)))
                done.put((index, None, exc))

    for _ in range(min(MAX_WORKERS, len(jobs))):
        threading.Thread(target=worker, name="wmap-list", daemon=True).start()
    outcomes: dict[int, tuple[ListResult | None, list[str]]] = {}
    while len(outcomes) < len(jobs):
        index, outcome, error = done.get()
        if error is not None:
            if not isinstance(error, CancelledError):
                connection.cancel.cancel(str(getattr(error, "message", error)))
            raise error
        assert outcome is not None
        outcomes[index] = outcome
    results: list[ListResult] = []
    for index in range(len(jobs)):  # the order of the jobs, whatever order the workers finished in
        result, local = outcomes[index]
        warnings.extend(local)
        if result is not None:
            results.append(result)
    if coverage is not None:
        coverage.extend(sorted(gaps, key=lambda g: (g.resource, g.namespace or "")))
    return results


MAX_NAMESPACE_FALLBACK = 200  # namespaces; beyond, a refused cluster-wide list stays one cluster-wide gap


def _namespace_by_namespace(
    connection: Connection, jobs: Sequence[ListJob], coverage: Coverage, warnings: list[str]
) -> list[ListResult]:
    """Cluster-wide lists that were forbidden, listed again in each namespace (as a user with RoleBindings
    in some namespaces may). A kind forbidden in every namespace keeps its one cluster-wide gap; otherwise
    that gap becomes one per namespace it may not be listed in."""
    refused = [g for g in coverage.forbidden() if g.namespace is None]
    by_kind = {(j[0].group, j[0].kind): j for j in jobs if j[1] is None and j[0].namespaced}
    retry = [by_kind[(g.group, g.kind)] for g in refused if (g.group, g.kind) in by_kind]
    if not retry:
        return []
    try:
        listed = connection.get("/api/v1/namespaces", what="namespaces")
    except ClusterError as exc:
        if exc.status in (401, 403):
            return []  # which namespaces there are is not for this user to know
        raise
    names = sorted(str((n.get("metadata") or {}).get("name")) for n in (listed or {}).get("items") or [])
    if not names or len(names) > MAX_NAMESPACE_FALLBACK:
        return []
    per_ns = Coverage()
    results = _run_lists(
        connection, [(res, name, kwargs) for res, _, kwargs in retry for name in names], warnings, per_ns
    )
    read = {(r.resource.group, r.resource.kind) for r in results}
    kept = [g for g in coverage.gaps if not (g in refused and (g.group, g.kind) in read)]
    kept += [g for g in per_ns.gaps if (g.group, g.kind) in read]  # forbidden only in some namespaces
    coverage.gaps[:] = kept
    return results


def gap_of(resource: ServedResource, namespace: str | None, cause: Cause, message: str = "") -> Gap:
    m = re.search(r"user '([^']*)'", message)
    return Gap(
        resource.group,
        resource.kind,
        resource.display,
        namespace if resource.namespaced else None,
        cause,
        user=m.group(1) if m else "",
    )


def _unserved_gaps(registry: DefinitionRegistry, kinds: Iterable[tuple[str, str]]) -> list[Gap]:
    out = []
    for group, kind in kinds:
        plural = next((k.plural for k in registry.kinds() if (k.group, k.kind) == (group, kind)), kind.lower() + "s")
        out.append(Gap(group, kind, f"{plural}.{group}" if group else plural, None, Cause.NOT_SERVED))
    return out


def nothing_readable(results: list[ListResult], coverage: Coverage) -> None:
    """Every list was forbidden: an error, as kubectl's Forbidden, not an empty answer."""
    forbidden = coverage.forbidden()
    if results or not forbidden:
        return
    raise forbidden_error(forbidden)


def asked_forbidden(coverage: Coverage, kinds: Iterable[tuple[str, str]]) -> None:
    """Every kind the user asked for (``get TYPE``, ``describe TYPE/NAME``) is forbidden: whatever else was
    read (their pods, their parts) answers nothing that was asked, so it is kubectl's Forbidden too, not
    "No resources found" or "not found"."""
    asked = set(kinds)
    forbidden = [g for g in coverage.forbidden() if (g.group, g.kind) in asked]
    if asked and {(g.group, g.kind) for g in forbidden} == asked:
        raise forbidden_error(forbidden, hint="ask for list permission on it")


def forbidden_error(forbidden: list[Gap], hint: str | None = None) -> ClusterError:
    """``Forbidden: user 'u' cannot list jobsets.jobset.x-k8s.io cluster-wide`` naming every resource."""
    first = forbidden[0]
    who = f"user {first.user!r}" if first.user else "the user"
    names = sorted({g.resource for g in forbidden})
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    places = sorted({g.where for g in forbidden})
    return ClusterError(
        f"Forbidden: {who} cannot list {shown} {' or '.join(places)}",
        status=403,
        reason="Forbidden",
        hint=hint or "ask for list permission on them, or name a namespace you may read with -n NS",
    )


def fetch_snapshot(
    connection: Connection,
    registry: DefinitionRegistry,
    namespace: str | None,
    *,
    discovery: Discovery,
    kinds: Iterable[tuple[str, str]] | None = None,
    chunk_size: int | None = None,
    project: Callable[[Obj], Obj] | None = None,
    per_namespace: bool = True,
) -> tuple[Snapshot, list[str], list[ListResult]]:
    """Everything ``get`` needs: ``namespace`` None lists cluster-wide (-A). ``project``: see list_all.

    ``per_namespace``: a kind whose cluster-wide list is forbidden is listed namespace by namespace (when
    the user may list namespaces), so that ``-A`` reads what the user may read and says in which namespaces
    it may not. The live model does without: it would miss namespaces created after its start.
    """
    warnings: list[str] = []
    scope: list[LoadedDefinition] | None = None
    if kinds is not None:  # get TYPE: only the kinds between that TYPE and its pods, nothing of other workloads
        scope = []
        for group, kind in kinds:
            for d in registry.definitions:
                if d.karta.identity and (d.karta.identity.group, d.karta.identity.kind) == (group, kind):
                    scope.extend(x for x in _definition_closure(registry, d) if x not in scope)
    plan = plan_lists(registry, discovery, kinds=kinds, definitions=scope)
    options: dict[str, Any] = {"chunk_size": chunk_size, "project": project}
    jobs: list[ListJob] = [(r, namespace, options) for r in [*plan.workloads, *plan.children]]
    if plan.pods is not None:
        jobs.insert(0, (plan.pods, namespace, options))  # the biggest list starts first
    coverage = Coverage()
    results = _run_lists(connection, jobs, warnings, coverage)
    if namespace is None and per_namespace:
        results += _namespace_by_namespace(connection, jobs, coverage, warnings)
    nothing_readable(results, coverage)
    if kinds is not None:
        asked_forbidden(coverage, kinds)
    coverage.extend(_unserved_gaps(registry, plan.unserved))
    objects = [o for r in results for o in r.items]
    listed = None if kinds is None else {(j[0].group, j[0].kind) for j in jobs}
    return Snapshot(objects, coverage=coverage, listed=listed), warnings, results


# --------------------------------------------------------------------------- describe


_LABEL_PATH = re.compile(r"""^\s*\.metadata\.labels(?:\[\s*"([^"\\]+)"\s*\]|\.([A-Za-z_][A-Za-z0-9_]*))\s*$""")


def _label_key(key_path: str | None) -> str | None:
    if not key_path:
        return None
    m = _LABEL_PATH.match(key_path)
    return (m.group(1) or m.group(2)) if m else None


_EXISTS = object()


def pod_label_selector(definition: LoadedDefinition, workload_name: str | None = None) -> str | None:
    """A label selector every pod of one workload carries, or None when the definition gives none.

    Each pod-producing component must have a componentTypeSelector made of matchLabels or a plain
    ``.metadata.labels["k"]`` keyPath; the selector keeps the label keys all of them share (``k=v``
    when they agree, ``k in (...)`` when they differ, ``k`` when any only needs the key). Operators'
    workload-name labels (WORKLOAD_NAME_LABELS) narrow it to one workload.
    """
    karta = definition.karta
    producing = [c for c in karta.components if c.spec_definition is not None]
    common: dict[str, set[Any]] | None = None
    for component in producing:
        selector = component.pod_selector.component_type_selector if component.pod_selector else None
        requirement: dict[str, Any] = {}
        if selector is not None:
            for key, value in (selector.match_labels or {}).items():
                requirement[key] = value
            label = _label_key(selector.key_path)
            if label is not None and label not in requirement:
                requirement[label] = selector.value if selector.value is not None else _EXISTS
        if not requirement:
            common = None
            break
        if common is None:
            common = {k: {v} for k, v in requirement.items()}
        else:
            common = {k: common[k] | {requirement[k]} for k in common if k in requirement}
    parts: list[str] = []
    for key, values in sorted((common or {}).items()):
        if _EXISTS in values:
            parts.append(key)
        elif len(values) == 1:
            parts.append(f"{key}={next(iter(values))}")
        else:
            parts.append(f"{key} in ({','.join(sorted(str(v) for v in values))})")
    identity = karta.identity
    if workload_name and identity is not None:
        name_label = WORKLOAD_NAME_LABELS.get((identity.group, identity.kind))
        if name_label and _valid_label_value(workload_name):
            parts = [p for p in parts if p.split("=")[0].split(" ")[0] != name_label]
            parts.append(f"{name_label}={workload_name}")
    return ",".join(parts) or None


def _valid_label_value(value: str) -> bool:
    return len(value) <= 63 and re.fullmatch(r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?", value) is not None


def _definition_closure(registry: DefinitionRegistry, root: LoadedDefinition) -> list[LoadedDefinition]:
    """The definition and those of covered kinds it creates (RayJob -> RayCluster, CronJob -> Job)."""
    out = [root]
    seen = {id(root)}
    queue = [root]
    while queue:
        current = queue.pop()
        for group, kind in child_kinds([current]):
            for d in registry.definitions:
                identity = d.karta.identity
                if identity and (identity.group, identity.kind) == (group, kind) and id(d) not in seen:
                    seen.add(id(d))
                    out.append(d)
                    queue.append(d)
    return out


def fetch_for_describe(
    connection: Connection,
    registry: DefinitionRegistry,
    group: str,
    kind: str,
    *,
    name: str,
    namespace: str,
    discovery: Discovery,
    chunk_size: int | None = None,
) -> tuple[Snapshot, list[str], list[ListResult]]:
    """One workload: itself (field selector on its name), its intermediate kinds, its pods."""
    warnings: list[str] = []
    matching = [
        d
        for d in registry.definitions
        if d.karta.identity and (d.karta.identity.group, d.karta.identity.kind) == (group, kind)
    ]
    res = discovery.resource(group, kind, defined_versions(registry.definitions, group, kind))
    if res is None or not matching:
        return Snapshot([]), warnings, []
    options: dict[str, Any] = {"chunk_size": chunk_size}
    if (group, kind) == ("", "Pod"):
        pod_jobs: list[ListJob] = [(res, namespace, {**options, "field_selector": f"metadata.name={name}"})]
        coverage = Coverage()
        results = _run_lists(connection, pod_jobs, warnings, coverage)
        nothing_readable(results, coverage)
        found = [o for r in results for o in r.items]
        return Snapshot(found, coverage=coverage, listed=[("", "Pod")], named={("", "Pod"): [name]}), warnings, results
    definition, _ = registry.for_object({"apiVersion": res.api_version, "kind": kind})
    definition = definition or matching[0]
    closure = _definition_closure(registry, definition)
    jobs: list[ListJob] = [(res, namespace, {**options, "field_selector": f"metadata.name={name}"})]
    for group_kind in sorted(child_kinds(closure) - {(group, kind), ("", "Pod")}):
        child = discovery.resource(*group_kind, defined_versions(registry.definitions, *group_kind))
        if child is not None and child.can("list"):
            jobs.append((child, namespace, options))
    selector = pod_label_selector(definition, name)
    pods = discovery.resource("", "Pod") or ServedResource("", "v1", "Pod", "pods", True)
    jobs.insert(0, (pods, namespace, {**options, "label_selector": selector}))
    coverage = Coverage()
    results = _run_lists(connection, jobs, warnings, coverage)
    nothing_readable(results, coverage)
    asked_forbidden(coverage, [(group, kind)])
    listed = {(j[0].group, j[0].kind) for j in jobs}
    objects = [o for r in results for o in r.items]
    # The workload's kind was read by name: other workloads of that kind, which own the children of theirs
    # listed with ours, are out of scope, not missing.
    return Snapshot(objects, coverage=coverage, listed=listed, named={(group, kind): [name]}), warnings, results


ProgressCallback = Callable[[str], None]
