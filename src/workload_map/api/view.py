"""A View: one cluster's objects (a dump or a live read) plus the definitions that read them.

Everything a caller asks about workloads goes through a View: listing with ``get``'s filters, one
workload's tree and status explanation, gang groups, and updates. The CLI is one such caller.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from workload_map.api.selectors import check_status, matches, parse_selector
from workload_map.base.model import Model, field
from workload_map.base.objects import Obj, key_of, meta
from workload_map.base.snapshot import Snapshot
from workload_map.definition.registry import AmbiguousType
from workload_map.errors import (
    AmbiguousTypeError,
    Location,
    NotFoundError,
    ResolveError,
    UnknownTypeError,
    WorkloadMapError,
)
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.tree.build import tree_of, trees_of

if TYPE_CHECKING:
    import threading

    from workload_map.base.coverage import Coverage
    from workload_map.definition.model import LoadedDefinition
    from workload_map.definition.registry import DefinitionRegistry, KindInfo
    from workload_map.gang.emit import Emission
    from workload_map.gang.model import GangPlan
    from workload_map.live.model import LiveModel
    from workload_map.placement import Capacity, FitResult, WorkloadRequirements
    from workload_map.queues import QueuedWorkload, QueueReport
    from workload_map.resolve.workloads import WorkloadIndex
    from workload_map.resolve.writes import PodSpecChange
    from workload_map.sources.kube import LiveSource, RequestCounter
    from workload_map.tree.events import WorkloadEvent
    from workload_map.tree.model import WorkloadTree

DryRun = Literal["none", "client", "server"]
_SCOPE: Any = object()  # "the view's own namespace scope" as a default argument
CONFLICT_ATTEMPTS = 5  # client-go's retry.DefaultRetry, which kubectl's writes use: 5 steps


def split_target(target: str | Sequence[str]) -> tuple[str | None, list[str]]:
    """``"jobset/a"`` or ``("jobset", "a", "b")`` -> (TYPE, names); ``()`` -> (None, [])."""
    args = [target] if isinstance(target, str) else list(target)
    if not args:
        return None, []
    first, rest = args[0], args[1:]
    if "/" in first:
        type_name, _, name = first.partition("/")
        if not type_name or not name:
            raise ValueError(f"invalid TYPE/NAME {first!r}")
        if rest:
            raise ValueError("give either TYPE/NAME or TYPE NAME..., not both")
        return type_name, [name]
    for name in rest:
        if "/" in name:
            raise ValueError(f"invalid NAME {name!r}: TYPE is already given")
    return first, rest


def one_target(target: str | Sequence[str], name: str | None = None) -> tuple[str, str]:
    """``(TYPE, NAME)`` of ``"TYPE/NAME"``, ``("TYPE", "NAME")`` or ``target="TYPE", name="NAME"``."""
    type_name, names = split_target([target, name] if isinstance(target, str) and name else target)
    if type_name is None or len(names) != 1:
        raise ValueError("name one workload: TYPE/NAME or TYPE NAME")
    return type_name, names[0]


def type_label(info: KindInfo) -> str:
    """What messages call a kind: the lower-case ``kind.group`` kubectl prints."""
    return info.display.lower()


class Listing(Model, frozen=False, kw_only=False):
    """The workloads a listing selected (iterate it), what could not be resolved, and names not found."""

    workloads: list[WorkloadTree]
    problems: list[str] = field(default_factory=list)  # "<key>: cannot resolve: <why>", one per workload
    missing: list[str] = field(default_factory=list)  # names asked for that do not exist

    def __iter__(self) -> Iterator[WorkloadTree]:
        return iter(self.workloads)

    def __len__(self) -> int:
        return len(self.workloads)


class PendingUpdate:
    """A change computed through a workload's definition and not sent yet: inspect ``patch`` and
    ``object``, then :meth:`apply` it (live views only)."""

    def __init__(
        self,
        view: View,
        workload: Obj,
        patch: dict[str, Any],
        obj: Obj,
        warnings: list[str],
        *,
        recompute: Callable[[Obj], PendingUpdate] | None = None,
    ) -> None:
        self._view = view
        self.workload = workload  # as read
        self.patch = patch  # the RFC 7386 merge patch from ``workload`` to ``object``
        self.object = obj  # the workload with the change applied locally
        self.warnings = warnings  # pod templates left alone, definition version mismatches
        self._recompute = recompute  # the same change computed again on a fresher read of the workload

    def apply(self, *, dry_run: bool = False) -> Obj:
        """Send the patch with the resourceVersion read, so it never overwrites what it has not seen; when the
        workload changed meanwhile (a Conflict: often only a controller writing its status), read it again,
        compute the same change on it and send that, up to 5 times, as kubectl retries its writes; then a
        Conflict error. ``dry_run`` asks the API server to validate and admit it without storing it. Returns
        the object the server answered. An empty patch sends nothing and returns ``object``; ``workload``,
        ``patch`` and ``object`` end as sent."""
        source = self._view.live_source
        if source is None:
            raise WorkloadMapError(
                "cannot apply an update to objects read from files", hint="open a live view to write to a cluster"
            )
        from workload_map.api.cluster_update import patch_workload, read_workload  # noqa: PLC0415 (writes reach a cluster only for update)

        attempt = 1
        while self.patch:
            try:
                return patch_workload(
                    source.connection,
                    source.discovery,
                    self.workload,
                    self.patch,
                    dry_run="server" if dry_run else None,
                )
            except WorkloadMapError as exc:
                if getattr(exc, "status", None) != 409 or self._recompute is None or attempt == CONFLICT_ATTEMPTS:
                    raise
            attempt += 1
            again = self._recompute(read_workload(source.connection, source.discovery, self.workload))
            self.workload, self.patch, self.object = again.workload, again.patch, again.object
            self.warnings = again.warnings
        return self.object


class View:
    """One cluster's objects plus the definitions that read them; open one with :func:`open_dump`,
    :func:`open_cluster` or :func:`open_objects`.

    ``namespace`` is the scope listings default to (None: all namespaces). ``warnings`` holds what did
    not stop the read (broken cluster Kartas, owners missing from the input). A live view holds a
    connection: use it as a context manager or call :meth:`close`.
    """

    def __init__(self, index: WorkloadIndex, namespace: str | None, live: LiveSource | None = None) -> None:
        self._index = index
        self.namespace = namespace
        self.live_source = live
        self._closed = False
        self._capacity: Capacity | None = None

    # -- lifecycle
    def __enter__(self) -> View:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the live connection (idempotent; a dump view has none). Everything read stays usable."""
        if self.live_source is not None and not self._closed:
            self._closed = True
            self.live_source.connection.close()

    @property
    def is_live(self) -> bool:
        return self.live_source is not None

    @property
    def requests(self) -> RequestCounter | None:
        """The API requests this view made (live views), for request-economy checks."""
        return None if self.live_source is None else self.live_source.connection.counter

    @property
    def warnings(self) -> list[str]:
        return self._index.warnings

    def warnings_in_full(self) -> list[str]:
        """``warnings`` with every object whose owner is missing listed, instead of one line per owner
        kind and namespace with a count and an example (``wmap get -v``)."""
        aggregated = set(self._index.missing_owner_warnings())
        kept = [w for w in self._index.warnings if w not in aggregated]
        return [*kept, *self._index.missing_owner_warnings(verbose=True)]

    @property
    def registry(self) -> DefinitionRegistry:
        return self._index.registry

    @property
    def coverage(self) -> Coverage:
        """What a live read could not see (kinds/namespaces forbidden, not served, failed); a dump's has no gaps."""
        return self._index.snapshot.coverage

    @property
    def objects(self) -> list[Obj]:
        """Every object read (workloads, their children and pods)."""
        return list(self._index.snapshot)

    def definitions(self) -> list[LoadedDefinition]:
        """The definitions in effect in this view, after precedence."""
        return self._index.registry.definitions

    # -- types
    def kind(self, type_name: str) -> KindInfo:
        """The covered kind a user means by TYPE (kind, plural, short name, kind.group, kind.version.group)."""

        try:
            info = self._index.registry.resolve_type(type_name)
        except AmbiguousType as exc:
            candidates = ", ".join(sorted(c.display for c in exc.candidates))
            example = sorted(f"{c.plural}.{c.group}" for c in exc.candidates)[0]
            raise AmbiguousTypeError(
                f'type "{type_name}" is ambiguous',
                detail=f"it matches {candidates}",
                hint=f"name the group too, e.g. {example}",
            ) from None
        if info is None:
            raise UnknownTypeError(
                f'no definition covers type "{type_name}"',
                hint=_did_you_mean(type_name, self._index.registry)
                + "list the covered types with: wmap definitions (or add one with --definitions FILE)",
            )
        return info

    # -- reading
    def _scope(self, namespace: str | None) -> str | None:
        return self.namespace if namespace is _SCOPE else namespace

    def find(self, target: str | Sequence[str], name: str | None = None, *, namespace: str | None = _SCOPE) -> Obj:
        """The workload object named ``"TYPE/NAME"`` (or ``TYPE, NAME``), in the view's namespace unless given."""
        type_name, wanted = one_target(target, name)
        kind = self.kind(type_name)
        ns = self._scope(namespace) or "default"
        found = self._index.find(kind, wanted, ns)
        if not found:
            raise _not_found(type_label(kind), wanted, ns)
        return found[0]

    def workload(
        self, target: str | Sequence[str] | Obj, name: str | None = None, *, namespace: str | None = _SCOPE
    ) -> WorkloadTree:
        """One workload resolved: its tree (components, instances, pods, requests) and status explanation.

        ``target`` is ``"TYPE/NAME"``, ``("TYPE", "NAME")``, ``"TYPE"`` with ``name``, or a workload object.
        """
        obj = target if isinstance(target, dict) else self.find(target, name, namespace=namespace)
        try:
            return tree_of(self._index, obj)
        except (LookupError, RecursionError, ValueError, TypeError) as exc:
            raise ResolveError("cannot resolve workload", _where(obj), detail=str(exc)) from None

    def workloads(
        self,
        type: str | None = None,
        names: Iterable[str] = (),
        *,
        namespace: str | None = _SCOPE,
        selector: str | None = None,
        status: str | None = None,
        queue: str | None = None,
        progress: Callable[[list[Obj]], Iterable[Obj]] | None = None,
    ) -> Listing:
        """The workloads ``wmap get`` would list: every top-level workload, or every workload of ``type``
        (only ``names`` when given), in ``namespace`` (the view's scope by default; None: all), matching
        the label ``selector`` (kubectl syntax), with primary ``status`` (case-insensitive) and in the
        scheduler ``queue`` (:meth:`queue_names`: a Kueue LocalQueue, a KAI or Volcano queue).

        One workload that cannot be resolved becomes a line of ``problems``, never a failure.
        ``progress`` may wrap the objects being resolved (a progress bar).
        """

        requirements = parse_selector(selector) if selector else []
        if status:
            check_status(status)
        kind = self.kind(type) if type else None
        ns = self._scope(namespace)
        wanted = list(names)
        missing: list[str] = []
        if kind is not None and wanted:
            objs: list[Obj] = []
            for name in wanted:
                found = self._index.find(kind, name, ns)
                if not found:
                    missing.append(name)
                objs.extend(found)
        else:
            objs = self._index.workloads(kind, ns, top_level=kind is None)
        if requirements:
            objs = [o for o in objs if matches(requirements, meta(o).get("labels") or {})]
        trees, problems = trees_of(self._index, progress(objs) if progress else objs)
        if status:
            trees = [t for t in trees if t.status.primary.value.lower() == status.lower()]
        if queue is not None:
            trees = [t for t, named in zip(trees, self.queue_names(trees), strict=True) if named == queue]
        return Listing(trees, problems, missing)

    def owner_of(self, obj: Obj) -> Obj | None:
        """The outermost covered workload that owns ``obj`` (a pod or a child workload), if any."""
        return self._index.owner_workload(obj)

    def pods_of(self, workload: WorkloadTree | Obj) -> list[Obj]:
        """The pod objects attributed to a workload through its owner chain."""
        return self._index.pods_of(workload.workload if not isinstance(workload, dict) else workload)

    # -- gang scheduling
    def gang(
        self, target: WorkloadTree | Obj | str, name: str | None = None, *, namespace: str | None = _SCOPE
    ) -> GangPlan:
        """The pod groups a workload needs (docs/gang.md); emit manifests with :func:`emit_pod_groups`."""

        from workload_map.gang import plan_in_view  # noqa: PLC0415 (get and describe load no gang, placement or queue code: start-up, docs/architecture.md)

        obj = self._object(target, name, namespace)
        try:
            return plan_in_view(self._index, obj)
        except (LookupError, ValueError, TypeError) as exc:
            raise ResolveError("cannot compute gang groups", _where(obj), detail=str(exc)) from None

    # -- capacity and placement (docs/placement.md)
    def capacity(self) -> Capacity:
        """Nodes, what the non-terminal pods bound to them use, and ResourceQuotas: from the dump's Node,
        Pod and ResourceQuota objects, or from a live view opened with ``capacity=True``."""
        if self._capacity is not None:
            return self._capacity
        from workload_map.placement import Capacity  # noqa: PLC0415 (get and describe load no gang, placement or queue code: start-up, docs/architecture.md)

        source = self.live_source
        if source is not None:
            read = source.capacity
            if read is None:
                raise WorkloadMapError(
                    "this view was opened without its capacity", hint="open it with open_cluster(..., capacity=True)"
                )
            self._capacity = Capacity.from_objects(read.nodes, read.pods, read.quotas, read.warnings)
        else:
            snapshot = self._index.snapshot
            nodes = snapshot.of_kind("", "Node")
            warnings = [] if nodes else ["the input has no Node objects to place pods on (wmap snapshot writes them)"]
            self._capacity = Capacity.from_objects(
                nodes, snapshot.pods, snapshot.of_kind("", "ResourceQuota"), warnings
            )
        return self._capacity

    # -- queues and quotas (docs/queues.md)
    def queues(self, *, namespace: str | None = _SCOPE) -> QueueReport:
        """The schedulers' queues (Kueue, KAI, Volcano) with their hierarchy, quota, limits and usage, and
        every top-level workload that names a queue, with the scheduler's verdict on it. ``namespace`` (the
        view's scope by default; None: all) narrows the workloads; a queue's figures count only those. A
        live view reads the queue objects when opened with ``queues=True``."""
        source = self.live_source
        if source is not None and not source.queues:
            raise WorkloadMapError(
                "this view was opened without the queue objects", hint="open it with open_cluster(..., queues=True)"
            )

        from workload_map.queues import build_queues  # noqa: PLC0415 (get and describe load no gang, placement or queue code: start-up, docs/architecture.md)

        scope = self._scope(namespace)
        trees, problems = trees_of(self._index, self._index.workloads(None, scope, top_level=True))
        report = build_queues(self._index.snapshot, trees, self._index.registry.covers, scope)
        report.warnings[:0] = source.queue_warnings if source is not None else []
        report.warnings.extend(problems)
        return report

    def queue_names(self, trees: Sequence[WorkloadTree]) -> list[str | None]:
        """The queue each workload is in, by name, or None (what ``get``'s QUEUE column shows): the queue it
        or its pods name, else the one its scheduler objects name (a PodGroup's ``spec.queue``), as
        :meth:`queues` lists it. A live view reads the scheduler objects when opened with ``queues=True``;
        without them, only what the workload and its pods name."""
        from workload_map.queues import queue_names  # noqa: PLC0415 (get and describe load no gang, placement or queue code: start-up, docs/architecture.md)

        return queue_names(self._index.snapshot, trees, self._index.registry.covers)

    def queued(self, tree: WorkloadTree) -> QueuedWorkload | None:
        """One workload's queue and the scheduler's verdict on it (what ``wmap describe`` prints), or None
        when it names no queue; resolves nothing else (a live view needs ``queues=True``)."""
        if self.live_source is not None and not self.live_source.queues:
            return None
        from workload_map.queues import build_queues  # noqa: PLC0415 (get and describe load no gang, placement or queue code: start-up, docs/architecture.md)

        report = build_queues(self._index.snapshot, [tree], self._index.registry.covers, tree.namespace)
        return report.workload(tree.namespace, tree.kind, tree.name)

    def events(self, tree: WorkloadTree) -> list[WorkloadEvent]:
        """The Events of the workload's root, of the objects it owns and of its pods, newest last (what
        ``wmap describe`` lists under ``Events:``): a dump's Events, or a live view's opened with
        ``events=True`` (the Events of the namespace read)."""
        source = self.live_source
        if source is not None and not source.events:
            raise WorkloadMapError(
                "this view was opened without the Events", hint="open it with open_cluster(..., events=True)"
            )
        from workload_map.tree.events import EVENT_KINDS, events_in, scope_of  # noqa: PLC0415 (get needs no Events: start-up)

        snapshot = self._index.snapshot
        scope = scope_of(tree.workload, snapshot, [pod.obj for pod in tree.all_pods])
        return events_in(scope, [obj for group, kind in EVENT_KINDS for obj in snapshot.of_kind(group, kind)])

    def components(
        self, target: WorkloadTree | Obj | str, name: str | None = None, *, namespace: str | None = _SCOPE
    ) -> WorkloadRequirements:
        """Per pod-producing component: replicas, per-pod requests, node claim and gang min members, in
        Karmada's ComponentRequirements shape. ``target`` may be a manifest not in the view (a dict): it is
        resolved through the view's definitions."""
        from workload_map.gang import plan_gang  # noqa: PLC0415 (get and describe load no gang, placement or queue code: start-up, docs/architecture.md)
        from workload_map.placement import requirements_of  # noqa: PLC0415 (get and describe load no gang, placement or queue code: start-up, docs/architecture.md)

        obj = self._object(target, name, namespace)
        definition, _ = self._index.registry.for_object(obj)
        if definition is None:
            raise UnknownTypeError(
                f"no definition covers {obj.get('kind')} ({obj.get('apiVersion')})",
                _where(obj),
                hint="list the covered types with: wmap definitions (or add one with --definitions FILE)",
            )
        tree = self.workload(obj) if isinstance(target, (dict, str)) else target
        plan = None
        if definition is not None and definition.karta.gang is not None:
            try:  # the spec alone: the groups one copy needs, whatever pods exist now
                plan = plan_gang(definition, obj, None, top_owner=self._index.owner_workload(obj))
            except (LookupError, ValueError, TypeError) as exc:
                tree.warnings.append(f"gang groups cannot be computed: {exc}; placing pods without them")
        if plan is not None and any(g.name is None for g in plan.groups):
            self._name_from_pods(plan, obj)
        return requirements_of(tree, plan)

    def _name_from_pods(self, plan: GangPlan, obj: Obj) -> None:
        """Give the spec's groups whose name hangs on pod labels (``pg-…-<.metadata.labels[...]>``) the
        names ``gang`` resolves from the workload's pods, member by member, when it has pods."""
        from workload_map.gang import plan_in_view  # noqa: PLC0415 (get and describe load no gang, placement or queue code: start-up, docs/architecture.md)

        try:
            from_pods = plan_in_view(self._index, obj)
        except (LookupError, ValueError, TypeError):
            return  # a manifest not in the view, or pods the planner cannot read: the pattern stays
        names: dict[tuple[str | None, str | None], list[str]] = {}
        for group in from_pods.groups:
            if group.name is not None:
                names.setdefault((group.component, group.instance), []).append(group.name)
        for group in plan.groups:
            known = names.get((group.component, group.instance))
            if group.name is None and known:
                group.name = known.pop(0)

    def fit(
        self,
        target: WorkloadRequirements | WorkloadTree | Obj | str,
        name: str | None = None,
        *,
        namespace: str | None = _SCOPE,
        capacity: Capacity | None = None,
        max_copies: int = 1000,
    ) -> FitResult:
        """How many complete copies of a workload (``"TYPE/NAME"``, a tree, a manifest dict, or
        requirements) fit on this view's capacity (or ``capacity``) now, and why one more does not."""
        from workload_map.placement import WorkloadRequirements, fit  # noqa: PLC0415 (get and describe load no gang, placement or queue code: start-up, docs/architecture.md)

        requirements = (
            target if isinstance(target, WorkloadRequirements) else self.components(target, name, namespace=namespace)
        )
        return fit(requirements, capacity if capacity is not None else self.capacity(), max_copies=max_copies)

    # -- writes
    def update(
        self,
        target: WorkloadTree | Obj | str,
        change: PodSpecChange | None = None,
        *,
        name: str | None = None,
        namespace: str | None = _SCOPE,
        suspend: bool | None = None,
        component: str | None = None,
        instance: str | None = None,
    ) -> PendingUpdate:
        """Compute a pod-template change (limited to ``component``/``instance``) and/or suspend (True) or
        resume (False), through the workload's definition; nothing is sent until ``.apply()``."""
        from workload_map.resolve.writes import WriteError, update_workload  # noqa: PLC0415 (the jq path parser loads only for update)

        def compute(obj: Obj) -> PendingUpdate:
            definition, version_warning = self._index.registry.for_object(obj)
            if definition is None:
                raise UnknownTypeError("no definition covers this workload", _where(obj))
            try:
                result = update_workload(
                    definition.karta, obj, change=change, suspend=suspend, component=component, instance=instance
                )
            except WriteError as exc:
                raise WorkloadMapError(f"cannot update {key_of(obj)}", exc.location, detail=exc.message) from None
            warnings = [*([version_warning] if version_warning else []), *result.skipped, *result.also_changed]
            return PendingUpdate(self, obj, result.patch, result.obj, warnings, recompute=compute)

        return compute(self._object(target, name, namespace))

    def suspend(
        self, target: WorkloadTree | Obj | str, name: str | None = None, *, namespace: str | None = _SCOPE
    ) -> PendingUpdate:
        """:meth:`update` with ``suspend=True``."""
        return self.update(target, name=name, namespace=namespace, suspend=True)

    def resume(
        self, target: WorkloadTree | Obj | str, name: str | None = None, *, namespace: str | None = _SCOPE
    ) -> PendingUpdate:
        """:meth:`update` with ``suspend=False``."""
        return self.update(target, name=name, namespace=namespace, suspend=False)

    def to_model(self) -> LiveModel:
        """The objects of this view as a (static) LiveModel: what ``wmap serve --from-file`` serves (the
        view's namespace only, with the cluster-scoped objects, when it has one)."""
        from workload_map.live.model import LiveModel  # noqa: PLC0415 (the live model only when a cluster is watched)

        snapshot = self._index.snapshot
        if self.namespace is not None:
            keep = (o for o in snapshot if (o.get("metadata") or {}).get("namespace") in (self.namespace, None))
            snapshot = Snapshot(keep, coverage=snapshot.coverage, listed=snapshot.listed, named=snapshot.named)
        return LiveModel.from_snapshot(snapshot, self._index.registry)

    # -- live
    def watch(
        self, timeout: float | None = None, *, stop: threading.Event | None = None
    ) -> Iterator[tuple[View, list[str]]]:
        """Live views only: after each change, a new View of the whole current state and the warnings of
        that change, until ``timeout`` seconds have passed (None: until the caller stops iterating) or
        ``stop`` is set (within a second)."""
        source = self.live_source
        if source is None:
            raise WorkloadMapError("cannot watch objects read from files", hint="open a live view to watch")
        from workload_map.sources.kube.watch import watch_snapshots  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

        # What the first read could not see (its gaps) and the scope it read stay true of every later state:
        # without them a forbidden kind's parts would become rows, and its pods zeros, at the first event.
        first = self._index.snapshot
        for event in watch_snapshots(source.connection, source.lists, timeout=timeout, cancel=stop):
            event.snapshot.coverage, event.snapshot.listed = first.coverage, first.listed
            event.snapshot.named = first.named
            yield View(WorkloadIndex(event.snapshot, source.registry), self.namespace, source), list(event.warnings)

    def _object(self, target: WorkloadTree | Obj | str, name: str | None, namespace: str | None) -> Obj:
        if isinstance(target, dict):
            return target
        if isinstance(target, str):
            return self.find(target, name, namespace=namespace)
        return target.workload


def queue_of(tree: WorkloadTree) -> str | None:
    """The scheduler queue a workload names on itself or its pods, or None (docs/queues.md); the queue it
    is in, its scheduler objects' included, is :meth:`View.queue_names`."""
    from workload_map.queues import named_queue  # noqa: PLC0415 (get and describe load no gang, placement or queue code: start-up, docs/architecture.md)

    named = named_queue(tree.workload, [p.obj for p in tree.all_pods])
    return named[1] if named is not None else None


def _did_you_mean(type_name: str, registry: DefinitionRegistry) -> str:
    """``did you mean jobset? `` for a misspelt TYPE: the spelling closest to it of each covered kind near
    enough (at most three kinds; qualified spellings only when the TYPE is qualified), or nothing."""

    import difflib  # noqa: PLC0415 (only for a TYPE no definition covers: start-up)

    wanted = type_name.lower()
    qualified = "." in wanted
    scored = []
    for info in registry.kinds():
        names = [n for n in info.names() if qualified or "." not in n]
        ratio, name = max(((difflib.SequenceMatcher(None, wanted, n).ratio(), n) for n in names), default=(0.0, ""))
        if ratio >= 0.75:
            scored.append((-ratio, name))
    close = [name for _, name in sorted(scored)[:3]]
    return f"did you mean {' or '.join(close)}? " if close else ""


def _where(obj: Obj) -> Location:
    return Location(str(key_of(obj)))


def _not_found(type_name: str, name: str, namespace: str | None) -> NotFoundError:
    where = f' in namespace "{namespace}"' if namespace else " in any namespace"
    return NotFoundError(
        f'{type_name} "{name}" not found{where}',
        hint="list what exists with: wmap get " + type_name + (" -A" if namespace else ""),
    )


def emit_pod_groups(
    plan: GangPlan,
    scheduler: str,
    *,
    queue: str | None = None,
    priority_class_name: str | None = None,
    schedule_timeout_seconds: int | None = None,
    workload_api_version: str = "v1beta1",
) -> Emission:
    """PodGroup manifests of a plan for ``scheduler`` ("kai", "volcano", "coscheduling", "workload-api"),
    with how each pod attaches to its group (docs/gang.md)."""
    from workload_map.gang.emit import emit  # noqa: PLC0415 (get and describe load no gang, placement or queue code: start-up, docs/architecture.md)

    return emit(
        plan,
        scheduler,
        queue=queue,
        priority_class_name=priority_class_name,
        schedule_timeout_seconds=schedule_timeout_seconds,
        workload_api_version=workload_api_version,
    )
