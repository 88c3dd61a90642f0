"""``live_source``: connect, discover, read the cluster's Karta definitions and list what workloads need.

Re-exported by ``workload_map.sources.kube`` (see its docstring).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workload_map.base.snapshot import Snapshot
from workload_map.definition.registry import AmbiguousType
from workload_map.queues import QUEUE_GROUPS
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.sources.kube.connection import Connection, ConnectionOptions, connect
from workload_map.sources.kube.discovery import LiveRegistry, discover
from workload_map.sources.kube.fetch import (
    fetch_for_describe,
    fetch_snapshot,
    layered_definitions,
    load_cluster_definitions,
)
from workload_map.sources.kube.reads import discovery_groups

if TYPE_CHECKING:
    from workload_map.base.snapshot import Obj, Snapshot
    from workload_map.definition.model import LoadedDefinition
    from workload_map.definition.registry import DefinitionRegistry, KindInfo
    from workload_map.resolve.workloads import WorkloadIndex
    from workload_map.sources.kube.capacity import CapacityObjects
    from workload_map.sources.kube.discovery import Discovery, LiveRegistry
    from workload_map.sources.kube.fetch import ListResult

__all__ = ["LiveOptions", "LiveSource", "index_from_kubeconfig", "live_source"]


@dataclass
class LiveOptions(ConnectionOptions):
    """Connection flags plus what to read.

    ``all_namespaces`` lists cluster-wide; otherwise ``namespace`` (or the context's namespace).
    ``kinds`` narrows the listing to some covered kinds (``get TYPE``); ``describe`` = (TYPE, NAME)
    reads only what one workload needs. ``definitions`` are user definitions (``--definitions``)
    that override cluster ones; ``builtin`` replaces the built-in catalog (tests).
    """

    all_namespaces: bool = False
    kinds: Sequence[str] | None = None
    describe: tuple[str, str] | None = None
    definitions: Sequence[LoadedDefinition] = ()
    builtin: Sequence[LoadedDefinition] | None = None
    connection: Connection | None = None  # reuse an open connection (tests count its requests)
    # Given the definitions in effect, what replaces each listed object as its page arrives
    # (fetch.list_all): the live model's projection.
    project_for: Callable[[DefinitionRegistry], Callable[[Obj], Obj]] | None = None
    capacity: bool = False  # also read nodes, quotas and the pods holding node resources (capacity, fit)
    workloads: bool = True  # False: read no workload (``wmap capacity``: the capacity read alone)
    queues: bool = False  # also read the schedulers' queue objects that are served (``wmap queues``)
    events: bool = False  # also read the Events of the namespace read (``wmap describe``'s Events section)
    # -A: a kind the user may not list cluster-wide is listed in each namespace (fetch.fetch_snapshot).
    per_namespace: bool = True


@dataclass
class LiveSource:
    connection: Connection
    discovery: Discovery
    registry: LiveRegistry
    snapshot: Snapshot
    warnings: list[str]
    namespace: str | None  # None = all namespaces
    cluster_definitions: list[LoadedDefinition] = field(default_factory=list)
    karta_objects: list[Obj] = field(default_factory=list)
    lists: list[ListResult] = field(default_factory=list)
    capacity: CapacityObjects | None = None  # read with LiveOptions.capacity
    queues: bool = False  # the snapshot holds the served queue kinds (LiveOptions.queues)
    queue_warnings: list[str] = field(default_factory=list)  # queue kinds that could not be read
    events: bool = False  # the snapshot holds the namespace's Events (LiveOptions.events)

    def index(self) -> WorkloadIndex:
        view = WorkloadIndex(self.snapshot, self.registry)
        view.warnings[:0] = self.warnings
        return view


def _builtin(options: LiveOptions, warnings: list[str]) -> list[LoadedDefinition]:
    if options.builtin is not None:
        return list(options.builtin)
    try:
        from workload_map.catalog import load_builtin  # noqa: PLC0415 (the catalog loads only when definitions are needed)
    except ImportError:  # pragma: no cover - catalog package missing
        return []
    loaded, findings = load_builtin()
    warnings.extend(f"built-in catalog: {f}" for f in findings)
    return list(loaded)


def live_source(options: LiveOptions | None = None) -> LiveSource:
    """Connect, discover, read the cluster's Karta definitions and list what the workloads need."""
    options = options or LiveOptions()
    warnings: list[str] = []
    builtin = _builtin(options, warnings)
    connection = options.connection or connect(options)
    if options.namespace and options.connection is not None:
        connection.namespace = options.namespace
    groups = discovery_groups([*builtin, *options.definitions])
    if options.queues:
        groups = {*groups, *QUEUE_GROUPS}
    discovery = discover(connection, groups)
    cluster_definitions, karta_objects = load_cluster_definitions(connection, discovery, warnings)
    # Precedence for one root group/version/kind: built-in < cluster Karta < --definitions files.
    registry = LiveRegistry(layered_definitions(builtin, cluster_definitions, options.definitions), discovery)
    namespace = None if options.all_namespaces else connection.namespace
    chunk = options.chunk_size or connection.chunk_size
    snapshot: Snapshot
    more: list[str]
    lists: list[ListResult]
    if not options.workloads:
        snapshot, more, lists = _empty()
    elif options.describe is not None:
        type_name, name = options.describe
        info = _resolve(registry, type_name)
        if info is None:  # let the caller report the unknown or ambiguous type; list nothing more
            snapshot, more, lists = _empty()
        else:
            _require_served(discovery, info, type_name)
            snapshot, more, lists = fetch_for_describe(
                connection,
                registry,
                info.group,
                info.kind,
                name=name,
                namespace=namespace or connection.namespace,
                discovery=discovery,
                chunk_size=chunk,
            )
    else:
        kinds: list[tuple[str, str]] | None = None
        if options.kinds:
            resolved = [_resolve(registry, type_name) for type_name in options.kinds]
            for type_name, found in zip(options.kinds, resolved, strict=True):
                if found is not None:
                    _require_served(discovery, found, type_name)
            kinds = [(info.group, info.kind) for info in resolved if info is not None]
        if kinds == [] or (kinds is not None and len(kinds) != len(options.kinds or ())):
            snapshot, more, lists = _empty()  # the caller reports the type no definition covers
        else:
            snapshot, more, lists = fetch_snapshot(
                connection,
                registry,
                namespace,
                discovery=discovery,
                kinds=kinds,
                chunk_size=chunk,
                project=options.project_for(registry) if options.project_for is not None else None,
                per_namespace=options.per_namespace,
            )
    warnings.extend(more)
    queue_warnings: list[str] = []
    if options.queues:
        from workload_map.sources.kube.queues import fetch_queue_objects  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

        queues = fetch_queue_objects(connection, discovery, namespace, chunk_size=chunk)
        queue_warnings.extend(queues.warnings)
        snapshot, lists = _with_read(snapshot, lists, queues.objects, queues.lists, queues.kinds)
        warnings.extend(queue_warnings)  # said by every command that reads them (describe), and by View.queues
    if options.events:
        from workload_map.sources.kube.events import fetch_events  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

        in_scope = namespace or connection.namespace if options.describe is not None else namespace
        events = fetch_events(connection, discovery, in_scope, chunk_size=chunk)
        warnings.extend(events.warnings)
        snapshot, lists = _with_read(snapshot, lists, events.objects, events.lists, [("", "Event")])
    capacity = None
    if options.capacity:
        from workload_map.sources.kube.capacity import fetch_capacity  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

        every_pod = namespace is None and options.workloads and options.describe is None and not options.kinds
        capacity = fetch_capacity(connection, namespace, pods=snapshot.pods if every_pod else None, chunk_size=chunk)
    return LiveSource(
        capacity=capacity,
        connection=connection,
        discovery=discovery,
        registry=registry,
        snapshot=snapshot,
        warnings=warnings,
        namespace=namespace,
        cluster_definitions=cluster_definitions,
        karta_objects=karta_objects,
        lists=lists,
        queues=options.queues,
        queue_warnings=queue_warnings,
        events=options.events,
    )


def _with_read(
    snapshot: Snapshot,
    lists: list[ListResult],
    objects: list[Obj],
    read: list[ListResult],
    kinds: list[tuple[str, str]],
) -> tuple[Snapshot, list[ListResult]]:
    """The snapshot with objects of ``kinds`` added that own no pod (the served queue kinds, the Events):
    no owner walk changes, only what was listed."""
    listed = None if snapshot.listed is None else {*snapshot.listed, *kinds}
    merged = Snapshot([*snapshot.objects, *objects], coverage=snapshot.coverage, listed=listed, named=snapshot.named)
    return merged, [*lists, *read]


def _resolve(registry: LiveRegistry, type_name: str) -> KindInfo | None:
    try:
        return registry.resolve_type(type_name)
    except AmbiguousType:
        return None


def _require_served(discovery: Discovery, info: KindInfo, type_name: str) -> None:
    """A TYPE a definition covers but the server does not serve: kubectl's error, after discovery only."""
    from workload_map.sources.kube.connection import ClusterError  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

    if discovery.resource(info.group, info.kind) is None:
        resource = f"{info.plural}.{info.group}" if info.group else info.plural
        raise ClusterError(
            f'the server doesn\'t have a resource type "{type_name}"',
            status=404,
            reason="NotFound",
            hint=f"{info.kind} is served once its CRD ({resource}) is installed",
        )


def _empty() -> tuple[Snapshot, list[str], list[ListResult]]:
    return Snapshot([]), [], []


def index_from_kubeconfig(options: LiveOptions | None = None) -> tuple[WorkloadIndex, list[str]]:
    """A WorkloadIndex over the live cluster and the warnings of reading it (one line each).

    The view's registry names kinds with the cluster's real plurals and short names; its definitions
    are built-in < cluster Karta objects < ``options.definitions``.
    """
    source = live_source(options)

    view = WorkloadIndex(source.snapshot, source.registry)
    if options is None or options.connection is None:
        source.connection.close()
    return view, source.warnings
