"""Opening a View: from dump files, from objects in memory, or from a live cluster with a kubeconfig."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from workload_map.api.definitions import as_definitions, builtin_with_warnings, read_documents, split_dump
from workload_map.api.view import View, one_target
from workload_map.base.coverage import take_coverage
from workload_map.errors import Location, WorkloadMapError

if TYPE_CHECKING:
    from workload_map.definition.loader import LoadedDefinition
    from workload_map.live.model import LiveModel
    from workload_map.sources.kube import Connection

DEFAULT_NAMESPACE = "default"
DefinitionsArg = Iterable["str | LoadedDefinition | Any"]


def open_objects(
    objects: Iterable[dict[str, Any]],
    definitions: DefinitionsArg = (),
    *,
    namespace: str | None = DEFAULT_NAMESPACE,
    builtin: bool = True,
) -> View:
    """A View over Kubernetes objects already in memory (dicts as the API returns them; the items of a
    ``List`` count as objects).

    Karta objects among them are definitions (origin "cluster"); ``definitions`` (paths, LoadedDefinition
    or Karta models) override both them and the built-in catalog (``builtin=False`` leaves it out).
    ``namespace`` is the default scope of listings (None: all namespaces).
    """
    from workload_map.base.gc_pause import bulk_load
    from workload_map.base.snapshot import Snapshot
    from workload_map.resolve.workloads import WorkloadIndex
    from workload_map.sources.documents import Document

    user = as_definitions(definitions)
    shipped, warnings = builtin_with_warnings() if builtin else ([], [])
    with bulk_load():  # one GC pause and one freeze for splitting and indexing
        docs = (Document(obj, Location("<objects>", index)) for index, obj in enumerate(_expand_lists(objects)))
        objs, cluster_definitions, split_warnings = split_dump(docs)
        coverage, objs, coverage_warnings = take_coverage(objs)
        cluster = WorkloadIndex(Snapshot(objs, coverage=coverage), [*shipped, *cluster_definitions, *user])
    cluster.warnings[:0] = [*warnings, *split_warnings, *coverage_warnings]
    return View(cluster, namespace)


def _expand_lists(objects: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    """Objects, with the items of ``List`` documents (``kubectl get -o yaml``) in place of the List."""
    for obj in objects:
        if isinstance(obj, dict) and str(obj.get("kind") or "").endswith("List") and isinstance(obj.get("items"), list):
            yield from obj["items"]
        else:
            yield obj


def open_dump(
    *paths: str,
    definitions: DefinitionsArg = (),
    namespace: str | None = DEFAULT_NAMESPACE,
    compact: bool = False,
) -> View:
    """A View over dump files (YAML or JSON, ``kubectl get -o yaml`` Lists, directories, ``-`` for stdin).

    Karta objects in the dump are definitions; ``definitions`` override them and the built-in catalog.
    ``compact`` keeps of each object only what resolving workloads reads (``wmap get``): owned pods
    projected as the live model keeps them, objects of kinds no definition covers reduced to their
    identity and owners; ``View.objects`` and ``pods_of`` then give those forms. A JSON List is read
    item by item, so the dump is never whole in memory (peak ~2.5x the file instead of ~7x).
    """
    if not paths:
        raise WorkloadMapError("no dump to read", hint="name at least one file, directory or -")
    from workload_map.base.gc_pause import bulk_load
    from workload_map.base.objects import is_pod, owner_references
    from workload_map.base.snapshot import Snapshot
    from workload_map.resolve.workloads import WorkloadIndex

    user = as_definitions(definitions)
    shipped, warnings = builtin_with_warnings()
    with bulk_load():  # one GC pause and one freeze for reading, splitting and indexing the dump
        transform = _Compact([*shipped, *user]) if compact else None
        objs, cluster_definitions, dump_warnings = split_dump(read_documents(paths, transform))
        if transform is not None and cluster_definitions:
            needed = _Compact([*shipped, *cluster_definitions, *user])
            if needed.keeps != transform.keeps:  # the dump's Kartas read more: read it again for them
                del objs
                transform = needed
                objs, cluster_definitions, dump_warnings = split_dump(read_documents(paths, transform))
        # A snapshot of a partial read carries its gaps: the dump answers what that read answered.
        coverage, objs, coverage_warnings = take_coverage(objs)
        cluster = WorkloadIndex(Snapshot(objs, coverage=coverage), [*shipped, *cluster_definitions, *user])
        if transform is not None:
            # An owned pod with no covered owner in the dump is a workload of its own, whose tree shows
            # the whole pod: read again with those pods whole (none in a complete dump).
            alone = frozenset(_pod_key(o) for o in cluster.workloads() if is_pod(o) and owner_references(o))
            if alone:
                del objs, cluster
                transform = _Compact([*shipped, *cluster_definitions, *user], whole=alone)
                objs, cluster_definitions, dump_warnings = split_dump(read_documents(paths, transform))
                coverage, objs, coverage_warnings = take_coverage(objs)
                cluster = WorkloadIndex(Snapshot(objs, coverage=coverage), [*shipped, *cluster_definitions, *user])
    cluster.warnings[:0] = [*warnings, *dump_warnings, *coverage_warnings]
    return View(cluster, namespace)


_IDENTITY = ("name", "namespace", "uid", "ownerReferences")


def _pod_key(obj: dict[str, Any]) -> tuple[str, str]:
    from workload_map.base.objects import name_of, namespace_of

    return namespace_of(obj), name_of(obj)


class _Compact:
    """What ``open_dump(compact=True)`` keeps of an object for these definitions (see its docstring).

    An object of a kind no definition covers is only ever read as someone's owner (WorkloadIndex walks
    owner chains by uid or kind/namespace/name), so its identity and its own owners are all it needs."""

    def __init__(
        self, definitions: Sequence[LoadedDefinition], *, whole: frozenset[tuple[str, str]] = frozenset()
    ) -> None:
        from workload_map.definition.registry import DefinitionRegistry
        from workload_map.live.projection import projection_for

        registry = DefinitionRegistry(definitions)
        self.pods = projection_for(definitions)
        self.covered = frozenset((k.group, k.kind) for k in registry.kinds())
        self.keeps = (self.pods, self.covered)
        self.whole = whole  # (namespace, name) of pods kept whole

    def __call__(self, data: Any) -> Any:
        from workload_map.api.definitions import KARTA_API_VERSION
        from workload_map.base.coverage import COVERAGE_API_VERSION
        from workload_map.base.objects import group_of

        if not isinstance(data, dict):
            return data
        kind, api_version = data.get("kind"), data.get("apiVersion")
        if not isinstance(kind, str) or api_version in (KARTA_API_VERSION, COVERAGE_API_VERSION):
            return data  # definitions and the gaps of a partial read, read whole
        group = group_of(str(api_version or ""))
        if (group, kind) == ("", "Pod") and self.whole and _pod_key(data) in self.whole:
            return self.pods.whole(data)
        if (group, kind) in self.covered or (group, kind) == ("", "Pod"):
            return self.pods(data)  # an owned pod projected, a workload without its managed fields
        metadata = data.get("metadata")
        if not isinstance(metadata, dict):
            return data
        return {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {key: metadata[key] for key in _IDENTITY if key in metadata},
        }


def open_cluster(
    *,
    kubeconfig: str | None = None,
    context: str | None = None,
    cluster: str | None = None,
    user: str | None = None,
    namespace: str | None = None,
    all_namespaces: bool = False,
    definitions: DefinitionsArg = (),
    types: Sequence[str] | None = None,
    workload: str | Sequence[str] | None = None,
    request_timeout: str | None = None,
    timeout: str | None = None,
    chunk_size: int = 500,
    connection: Connection | None = None,
    capacity: bool | Literal["only"] = False,
    queues: bool = False,
) -> View:
    """A View of a live cluster, read with a kubeconfig (kubectl's rules: $KUBECONFIG, ~/.kube/config,
    in-cluster), as one LIST per covered kind plus pods and the cluster's Karta definitions.

    ``namespace`` (default: the context's) or ``all_namespaces`` sets what is read and the listing scope.
    ``types`` narrows the read to some TYPEs (what ``wmap get TYPE`` reads); ``workload`` (``"TYPE/NAME"``)
    reads only what one workload needs (``wmap describe``). ``definitions`` override the cluster's Kartas.
    ``request_timeout`` bounds each request (default 30s, "0" none), ``timeout`` the whole read, retries of
    a throttled server included. What could not be read (forbidden, not served) is in ``View.coverage``.
    ``capacity`` also reads Nodes, ResourceQuotas and the pods holding node resources, for
    :meth:`View.capacity` and :meth:`View.fit` (docs/placement.md); ``"only"`` reads them and no workload.
    ``queues`` also reads the schedulers' queue objects the cluster serves (Kueue, KAI, Volcano), for
    :meth:`View.queues` (docs/queues.md).
    """
    from workload_map.resolve.workloads import WorkloadIndex
    from workload_map.sources.kube import LiveOptions, live_source

    options = LiveOptions(
        kubeconfig=kubeconfig,
        context=context,
        cluster=cluster,
        user=user,
        request_timeout=request_timeout,
        timeout=timeout,
        chunk_size=chunk_size,
        namespace=namespace,
        all_namespaces=all_namespaces,
        kinds=list(types) if types else None,
        describe=one_target(workload) if workload is not None else None,
        definitions=as_definitions(definitions),
        connection=connection,
        capacity=bool(capacity),
        workloads=capacity != "only",
        queues=queues,
    )
    source = live_source(options)
    view = WorkloadIndex(source.snapshot, source.registry)
    view.warnings[:0] = source.warnings
    return View(view, None if all_namespaces else source.connection.namespace, source)


def watch_cluster(
    *,
    kubeconfig: str | None = None,
    context: str | None = None,
    cluster: str | None = None,
    user: str | None = None,
    definitions: DefinitionsArg = (),
    request_timeout: str | None = None,
    chunk_size: int = 500,
    namespace: str | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> LiveModel:
    """A started LiveModel of the whole cluster (or of one ``namespace``: what a Role there may read):
    every covered workload resolved and kept current by watches (``model.workloads()`` is the current
    answer; ``model.stop()`` ends it). ``wmap serve`` runs one. ``on_notice`` gets one line per watch failure
    cause and per recovery (``model.problems()``: what is stale now)."""
    from workload_map.live.model import LiveModel
    from workload_map.sources.kube import LiveOptions

    model = LiveModel(
        LiveOptions(
            kubeconfig=kubeconfig,
            context=context,
            cluster=cluster,
            user=user,
            request_timeout=request_timeout,
            chunk_size=chunk_size,
            namespace=namespace,
            all_namespaces=namespace is None,
            definitions=as_definitions(definitions),
        ),
        on_notice=on_notice,
    )
    model.start()
    return model
