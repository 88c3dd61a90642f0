"""Opening a View: from dump files, from objects in memory, or from a live cluster with a kubeconfig."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from workload_map.api.definitions import as_definitions, builtin_with_warnings, read_documents, split_dump
from workload_map.api.view import View, one_target
from workload_map.coverage import take_coverage
from workload_map.errors import Location, WorkloadMapError

if TYPE_CHECKING:
    from workload_map.cluster import Connection
    from workload_map.definition.loader import LoadedDefinition
    from workload_map.live.model import LiveModel

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
    from workload_map._gc import bulk_load
    from workload_map.resolver import ClusterView
    from workload_map.snapshot import Snapshot
    from workload_map.sources.documents import Document

    user = as_definitions(definitions)
    shipped, warnings = builtin_with_warnings() if builtin else ([], [])
    with bulk_load():  # one GC pause and one freeze for splitting and indexing
        docs = (Document(obj, Location("<objects>", index)) for index, obj in enumerate(_expand_lists(objects)))
        objs, cluster_definitions, split_warnings = split_dump(docs)
        coverage, objs, coverage_warnings = take_coverage(objs)
        cluster = ClusterView(Snapshot(objs, coverage=coverage), [*shipped, *cluster_definitions, *user])
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
) -> View:
    """A View over dump files (YAML or JSON, ``kubectl get -o yaml`` Lists, directories, ``-`` for stdin).

    Karta objects in the dump are definitions; ``definitions`` override them and the built-in catalog.
    """
    if not paths:
        raise WorkloadMapError("no dump to read", hint="name at least one file, directory or -")
    from workload_map._gc import bulk_load
    from workload_map.resolver import ClusterView
    from workload_map.snapshot import Snapshot

    user = as_definitions(definitions)
    shipped, warnings = builtin_with_warnings()
    with bulk_load():  # one GC pause and one freeze for reading, splitting and indexing the dump
        objs, cluster_definitions, dump_warnings = split_dump(read_documents(paths))
        # A snapshot of a partial read carries its gaps: the dump answers what that read answered.
        coverage, objs, coverage_warnings = take_coverage(objs)
        cluster = ClusterView(Snapshot(objs, coverage=coverage), [*shipped, *cluster_definitions, *user])
    cluster.warnings[:0] = [*warnings, *dump_warnings, *coverage_warnings]
    return View(cluster, namespace)


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
    """
    from workload_map.cluster import LiveOptions, live_source
    from workload_map.resolver import ClusterView

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
    )
    source = live_source(options)
    view = ClusterView(source.snapshot, source.registry)
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
    on_notice: Callable[[str], None] | None = None,
) -> LiveModel:
    """A started LiveModel of the whole cluster: every covered workload resolved and kept current by
    watches (``model.workloads()`` is the current answer; ``model.stop()`` ends it). ``wmap serve`` runs one.
    ``on_notice`` gets one line per watch failure cause and per recovery (``model.problems()``: what is
    stale now)."""
    from workload_map.cluster import LiveOptions
    from workload_map.live.model import LiveModel

    model = LiveModel(
        LiveOptions(
            kubeconfig=kubeconfig,
            context=context,
            cluster=cluster,
            user=user,
            request_timeout=request_timeout,
            chunk_size=chunk_size,
            all_namespaces=True,
            definitions=as_definitions(definitions),
        ),
        on_notice=on_notice,
    )
    model.start()
    return model
