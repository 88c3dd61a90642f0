"""Opening a View: from dump files, from objects in memory, or from a live cluster with a kubeconfig."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Unpack

from workload_map.api.clusters import live_options, with_shortcuts
from workload_map.api.definitions import (
    KARTA_API_VERSION,
    as_definitions,
    builtin_with_warnings,
    read_documents,
    split_dump,
)
from workload_map.api.view import View, one_target
from workload_map.base.coverage import COVERAGE_API_VERSION, take_coverage
from workload_map.base.gc_pause import bulk_load
from workload_map.base.objects import group_of, is_pod, name_of, namespace_of, owner_references
from workload_map.base.snapshot import Snapshot
from workload_map.definition.registry import DefinitionRegistry
from workload_map.errors import Location, WorkloadMapError
from workload_map.queues.kinds import QUEUE_GROUPS  # not the package: get loads no queue code (start-up)
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.sources.documents import Document

if TYPE_CHECKING:
    from workload_map.api.clusters import ClusterFields, ClusterOptions
    from workload_map.definition.model import LoadedDefinition
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
    return namespace_of(obj), name_of(obj)


class _Compact:
    """What ``open_dump(compact=True)`` keeps of an object for these definitions (see its docstring).

    An object of a kind no definition covers is only ever read as someone's owner (WorkloadIndex walks
    owner chains by uid or kind/namespace/name), so its identity and its own owners are all it needs; but
    the schedulers' queue objects are kept whole: a PodGroup's queue is the QUEUE ``get`` shows."""

    def __init__(
        self, definitions: Sequence[LoadedDefinition], *, whole: frozenset[tuple[str, str]] = frozenset()
    ) -> None:
        from workload_map.live.projection import projection_for  # noqa: PLC0415 (the live model only when a cluster is watched)

        registry = DefinitionRegistry(definitions)
        self.pods = projection_for(definitions)
        self.covered = frozenset((k.group, k.kind) for k in registry.kinds())
        self.keeps = (self.pods, self.covered)
        self.whole = whole  # (namespace, name) of pods kept whole
        self._whole_api_versions = (KARTA_API_VERSION, COVERAGE_API_VERSION)
        self._group_of = group_of
        self._decoders: tuple[Any, Any] | None = None

    def __call__(self, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        kind, api_version = data.get("kind"), data.get("apiVersion")
        if not isinstance(kind, str) or api_version in self._whole_api_versions:
            return data  # definitions and the gaps of a partial read, read whole
        group = self._group_of(str(api_version or ""))
        if (group, kind) == ("", "Pod") and self.whole and _pod_key(data) in self.whole:
            return self.pods.whole(data)
        if (group, kind) in self.covered or (group, kind) == ("", "Pod"):
            return self.pods(data)  # an owned pod projected, a workload without its managed fields
        if group in QUEUE_GROUPS:
            return data
        metadata = data.get("metadata")
        if not isinstance(metadata, dict):
            return data
        return {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {key: metadata[key] for key in _IDENTITY if key in metadata},
        }

    def decode(self, text: memoryview) -> Any:
        """What ``self`` gives for the object in ``text``, read in one step for owned pods and objects of
        kinds no definition covers (most of a dump: neither is ever built whole); None for anything else,
        which is then parsed and given to ``self`` (sources/lists.py)."""
        head = _HEAD.match(text)
        if head is None:
            return None
        api_version, kind = head.group(1).decode(), head.group(2).decode()
        if api_version in self._whole_api_versions or kind.endswith("List"):
            return None
        if self._decoders is None:
            self._decoders = _decoders(self.pods)
        pod, identity = self._decoders
        if kind == "Pod" and api_version == "v1":
            return pod(text) if pod is not None and not self.whole else None
        group = self._group_of(api_version)
        if (group, kind) in self.covered or kind == "Pod" or group in QUEUE_GROUPS:
            return None
        return identity(text)


# kubectl writes every object with apiVersion and kind first: what decode reads before choosing.
_HEAD = re.compile(rb'\{\s*"apiVersion"\s*:\s*"([^"\\]*)"\s*,\s*"kind"\s*:\s*"([^"\\]*)"')


def _decoders(projection: Any) -> tuple[Any, Any]:
    """The owned-pod decoder (None when pods are kept whole) and one for an object's identity and owners."""
    import msgspec  # noqa: PLC0415 (only when a large JSON dump is read (see live.projection.pod_decoder))

    from workload_map.live.projection import pod_decoder, typed_dict  # noqa: PLC0415 (the live model only when a cluster is watched)

    metadata = typed_dict("Identity", dict.fromkeys(_IDENTITY, Any))
    decoder = msgspec.json.Decoder(typed_dict("Owned", {"apiVersion": Any, "kind": Any, "metadata": metadata}))
    error = msgspec.MsgspecError

    def identity(text: memoryview) -> Any:
        try:
            found = decoder.decode(text)
        except error:
            return None
        return found if "metadata" in found else None  # without metadata an object is kept whole

    return pod_decoder(projection), identity


def open_cluster(
    options: ClusterOptions | None = None,
    /,
    *,
    types: Sequence[str] | None = None,
    workload: str | Sequence[str] | None = None,
    capacity: bool | Literal["only"] = False,
    queues: bool = False,
    events: bool = False,
    connection: Connection | None = None,
    **shortcuts: Unpack[ClusterFields],
) -> View:
    """A View of a live cluster, read with a kubeconfig (kubectl's rules: $KUBECONFIG, ~/.kube/config,
    in-cluster), as one LIST per covered kind plus pods and the cluster's Karta definitions.

    ``options`` (:class:`ClusterOptions`) says how to reach the cluster and what scope to read; its fields
    may be given as keywords instead (``open_cluster(context="x", namespace="ml")``), on top of ``options``.
    ``types`` narrows the read to some TYPEs (what ``wmap get TYPE`` reads); ``workload`` (``"TYPE/NAME"``)
    reads only what one workload needs (``wmap describe``). What could not be read (forbidden, not served)
    is in ``View.coverage``. ``capacity`` also reads Nodes, ResourceQuotas and the pods holding node
    resources, for :meth:`View.capacity` and :meth:`View.fit` (docs/placement.md); ``"only"`` reads them and
    no workload. ``queues`` also reads the schedulers' queue objects the cluster serves (Kueue, KAI,
    Volcano), for :meth:`View.queues` (docs/queues.md). ``events`` also reads the Events of the namespace read
    (one list), for :meth:`View.events`. ``connection`` reuses an open connection (tests
    count its requests).
    """
    from workload_map.sources.kube import live_source  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

    options = with_shortcuts(options, shortcuts)
    if options.is_fleet:
        raise WorkloadMapError("open_cluster reads one cluster", hint="open several contexts with open_fleet")
    source = live_source(
        live_options(
            options,
            kinds=list(types) if types else None,
            describe=one_target(workload) if workload is not None else None,
            connection=connection,
            capacity=bool(capacity),
            workloads=capacity != "only",
            queues=queues,
            events=events,
        )
    )
    view = WorkloadIndex(source.snapshot, source.registry)
    view.warnings[:0] = source.warnings
    return View(view, None if options.all_namespaces else source.connection.namespace, source)


def watch_cluster(
    options: ClusterOptions | None = None,
    /,
    *,
    on_notice: Callable[[str], None] | None = None,
    queues: bool = False,
    events: bool = True,
    **shortcuts: Unpack[ClusterFields],
) -> LiveModel:
    """A started LiveModel of the whole cluster (or of one ``namespace`` of the options: what a Role there
    may read): every covered workload resolved and kept current by watches (``model.workloads()`` is the
    current answer; ``model.stop()`` ends it). ``wmap serve`` runs one. ``options`` and the keyword
    shortcuts are :func:`open_cluster`'s, except that no ``namespace`` means every namespace here and
    ``timeout`` (a one-shot read's deadline) does not apply: the model runs until stopped.
    ``on_notice`` gets one line per watch failure cause and per recovery (``model.problems()``: what is
    stale now). ``queues`` also watches the schedulers' queue kinds the cluster serves: ``model.queues()``
    is then the queue report (docs/queues.md) of the current state. ``events``: also watch the Events of
    the workloads' objects (``model.workload_events``), bounded (docs/metrics.md, "Events")."""
    from workload_map.live.model import LiveModel  # noqa: PLC0415 (the live model only when a cluster is watched)

    options = with_shortcuts(options, shortcuts)
    if options.is_fleet:
        raise WorkloadMapError("watch_cluster watches one cluster", hint="start one model per context")
    options = dataclasses.replace(
        options, timeout=None, all_namespaces=options.all_namespaces or options.namespace is None
    )
    model = LiveModel(live_options(options, queues=queues, events=events), on_notice=on_notice)
    model.start()
    return model
