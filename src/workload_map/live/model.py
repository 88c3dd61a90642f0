"""``LiveModel``: every covered workload of a cluster, resolved and kept current by watches.

The first read is the one-shot live read (``cluster.live_source`` over all namespaces: one LIST per
covered kind, child kind and pods). Then one retrying ``sources.kube.informer.Informer`` per list feeds a queue;
an applier thread takes events in batches, updates the projected object store and re-resolves only the
workloads the batch touched.

Objects are grouped by their **root** (live/forest.py): the outermost ancestor present in the store, following
ownerReferences (the controller reference first). A workload and everything it owns share a root, so
an event on a pod re-resolves exactly the workloads of its root, with the same WorkloadIndex code a dump
uses (over the root's objects only) — which is what keeps the model's answer equal to ``wmap get -A``.

What could not be read is tracked as the CLI tracks it (``coverage``, live/gaps.py): every root is resolved
with the model's current Coverage, so pods in a gap are no workloads and workloads made of a gap have
unknown counts; a gap is retried until it can be read, and a kind that becomes forbidden or unserved later
opens one (its objects leave the model: they can no longer be known), and a covered kind the server did not
serve at start is watched from the moment discovery serves it (its CRD installed while the model runs).

A relist (after ``410 Gone`` or an error: the apiserver restarted, a token rejected for a while) is
diffed against the store by resourceVersion: only what changed while the watch was down becomes an
event, so counters and re-resolution see each change once. Watches that fail and recover are
reported once per cause (``notices``), and ``problems()`` says which answers may be stale and why.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from workload_map.base.coverage import Cause, Coverage, Gap
from workload_map.base.gc_pause import bulk_load
from workload_map.base.objects import Obj
from workload_map.base.snapshot import Snapshot
from workload_map.gang.compute import deferred_plan_in_view
from workload_map.live.events import EventStore, events_informer
from workload_map.live.forest import OwnerForest, uid_of
from workload_map.live.projection import Projection, projection_for
from workload_map.live.queues import QueueState
from workload_map.live.resolved import Resolved, ResourceState
from workload_map.resolve.workloads import WorkloadIndex, gap_warnings
from workload_map.tree.build import trees_of
from workload_map.tree.events import is_event

if TYPE_CHECKING:
    from workload_map.base.snapshot import Snapshot
    from workload_map.definition.registry import DefinitionRegistry
    from workload_map.gang.model import GangPlan
    from workload_map.live.gaps import ApiserverProbe, KindPoller
    from workload_map.queues import QueueReport
    from workload_map.resolve.workloads import WorkloadIndex
    from workload_map.sources.kube import LiveOptions, LiveSource
    from workload_map.sources.kube.discovery import ServedResource
    from workload_map.sources.kube.fetch import ListResult
    from workload_map.sources.kube.informer import Informer
    from workload_map.tree.events import WorkloadEvent

SETTLE_SECONDS = 0.05  # a burst of events (a rollout) is applied as one batch
# An open watch is authorized once, when it is opened: it is reopened (at its resourceVersion, no relist) this
# often, so a permission revoked opens its gap within it (bench/bench_serve.py: the idle cost of reopening).
WATCH_SECONDS = 30


def resource_name(listed: ListResult) -> str:
    """The label value naming a listed resource: ``plural.group`` (``pods`` for the core group)."""
    res = listed.resource
    return f"{res.plural}.{res.group}" if res.group else res.plural


class LiveModel:
    """A cluster kept resolved. ``start()`` reads and starts watching; ``workloads()`` is the current answer.

    Thread-safe: the applier thread swaps results under a lock, readers get copies.
    """

    def __init__(
        self,
        options: LiveOptions,
        *,
        settle: float = SETTLE_SECONDS,
        watch_seconds: int = WATCH_SECONDS,
        probe_seconds: float | None = None,
        kind_poll_seconds: float | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        from workload_map.live.gaps import KIND_POLL_SECONDS, PROBE_SECONDS  # noqa: PLC0415 (the live model only when a cluster is watched)

        self.options = options
        self.on_notice = on_notice  # called (applier thread) with each line of news: failures, recoveries
        self.settle = settle
        self.watch_seconds = watch_seconds
        self.probe_seconds = PROBE_SECONDS if probe_seconds is None else probe_seconds
        self.kind_poll_seconds = KIND_POLL_SECONDS if kind_poll_seconds is None else kind_poll_seconds
        self._kind_poller: KindPoller | None = None
        self.coverage = Coverage()  # what cannot be read now; replaced (never changed in place) on every change
        self.apiserver_error: str | None = None  # why the API server does not answer, while it does not
        self._probe: ApiserverProbe | None = None
        self._gap_members: dict[str, dict[Gap, list[Obj]]] = {}  # root -> objects whose owner lies in a gap
        self.source: LiveSource | None = None
        self.resources: dict[str, ResourceState] = {}
        self.warnings: list[str] = []
        self.sync_seconds: float | None = None
        self.started_at: float | None = None  # wall-clock time the initial list began
        self.resolves = 0  # workload roots re-resolved since start
        self.version = 0  # incremented after every applied batch
        self._forest = OwnerForest()
        self._results: dict[str, list[Resolved]] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._queue: queue.Queue[Any] = queue.Queue()
        self._stop = threading.Event()
        self._sync_stop = threading.Event()  # the current read's watchers (a reload replaces them)
        self.reloads = 0  # whole reads again since start (the cluster's Karta definitions changed)
        self._watchers: list[Informer] = []
        self._applier: threading.Thread | None = None
        self._registry: DefinitionRegistry | None = None  # a static model's; live ones use the source's
        self._project = Projection()  # what the store keeps of an object; set from the definitions in effect
        self._listed: list[ListResult] = []  # every watched list, the gaps' included
        self._coverage_changed = False  # set by a batch that opened or closed a gap
        # with the queue kinds watched (LiveOptions.queues): queues()
        self._queues: QueueState | None = QueueState() if options.queues else None
        self._store = threading.Lock()  # held while the store changes: queues() reads it whole, in its thread
        self.events = EventStore()  # the Events of the workloads' objects (live/events.py)

    # -- lifecycle
    def start(self) -> None:
        """Read the whole cluster once, resolve it, then keep it current in background threads."""
        began = time.monotonic()
        self.started_at = time.time()
        source = self._read()
        with self._store:
            self._install(source, began)
        self._applier = threading.Thread(target=self._apply_loop, name="wmap live model", daemon=True)
        self._applier.start()

    def _read(self) -> LiveSource:
        from workload_map.sources.kube import live_source  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

        # Projected page by page: the full objects of a list are never all alive at once.
        # Cluster-wide lists (or the one namespace asked): namespace-by-namespace lists would miss the
        # namespaces created later.
        one_namespace = self.options.namespace is not None and not self.options.all_namespaces
        return live_source(
            replace(
                self.options,
                all_namespaces=not one_namespace,
                project_for=self._projection_for,
                per_namespace=False,
                events=False,  # watched instead, by their own informer
            )
        )

    def _install(self, source: LiveSource, began: float) -> None:
        """Make ``source`` (a whole read) the model's store and start its watchers, on a queue and a stop
        event of their own: a later reload stops them and nothing they still put is applied."""

        from workload_map.live.gaps import ApiserverProbe, KindPoller  # noqa: PLC0415 (the live model only when a cluster is watched)
        from workload_map.live.kartas import DefinitionChanges  # noqa: PLC0415 (the live model only when a cluster is watched)
        from workload_map.sources.kube.fetch import KARTA_GROUP, KARTA_KIND, KARTA_VERSION  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)
        from workload_map.sources.kube.informer import Informer, unlisted  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)
        from workload_map.sources.kube.reads import defined_versions  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

        self._forest = OwnerForest(source.lists)
        self._queue, self._sync_stop = queue.Queue(), threading.Event()
        out, stop = self._queue, self._sync_stop
        self.source = source
        self.warnings = list(source.warnings)
        self.resources = {}
        for listed in source.lists:
            state = self.resources.setdefault(resource_name(listed), ResourceState(resource_name(listed)))
            state.objects += len(listed.items)
        coverage = Coverage(list(source.snapshot.coverage))
        gap_lists = []
        missing: dict[tuple[str, str], list[str]] = {}
        for gap in coverage:
            served = source.discovery.resource(gap.group, gap.kind)
            if served is None:  # never installed: the KindPoller watches for its CRD
                missing[(gap.group, gap.kind)] = defined_versions(source.registry.definitions, gap.group, gap.kind)
                continue
            listed = unlisted(served, gap.namespace)
            gap_lists.append(listed)
            name = resource_name(listed)
            self.resources[name] = ResourceState(name, readable=False, error=gap.why, gap=gap)
        with self._lock:
            self.coverage = coverage
        self._load(source.snapshot, projected=True)
        # The store holds the objects now; the listing's indexes over them would only cost memory.
        self.source = replace(
            source,
            snapshot=Snapshot([], coverage=source.snapshot.coverage),
            lists=[replace(listed, items=[]) for listed in source.lists],
            karta_objects=[],
        )
        self.sync_seconds = time.monotonic() - began
        with self._changed:
            self.version += 1
            self._changed.notify_all()
        # from now on the watchers' own backoff retries a restarting server, and says so, at once
        connection = self.source.connection
        connection.restart_grace = 0.0
        self._watchers = [
            Informer(connection, listed, out, stop, self.watch_seconds, retry=True) for listed in self.source.lists
        ]
        self._watchers += [
            Informer(connection, listed, out, stop, self.watch_seconds, retry=True, list_first=True)
            for listed in gap_lists
        ]
        self._listed = [*self.source.lists, *gap_lists]
        if self.options.events:  # the workloads' Events, in the namespaces read (live/events.py)
            self._watchers.append(events_informer(connection, source, out, stop, self.watch_seconds))
        kartas = source.discovery.resource(KARTA_GROUP, KARTA_KIND, [KARTA_VERSION])
        if kartas is not None and kartas.can("watch"):
            changes = DefinitionChanges(source.karta_objects, out)
            self._watchers.append(
                Informer(
                    connection, unlisted(kartas, None), changes, stop, self.watch_seconds, retry=True, list_first=True
                )
            )
        for watcher in self._watchers:
            watcher.start()
        if missing and self.kind_poll_seconds:
            self._kind_poller = KindPoller(connection, missing, out, stop, interval=self.kind_poll_seconds)
            self._kind_poller.start()
        if self.probe_seconds:
            self._probe = ApiserverProbe(connection, out, stop, interval=self.probe_seconds)
            self._probe.start()

    def _reload(self, notes: list[tuple[str, str]]) -> None:
        """The cluster's Karta definitions changed: read everything again with the new definitions (what the
        store keeps of each object depends on them), then swap; until then the old answer stands, and a read
        that fails keeps it and is tried again."""
        began = time.monotonic()
        try:
            source = self._read()
        except Exception as exc:
            notes.append(("kartas.run.ai", f"changed, but reading the cluster again failed (retrying in 30 s): {exc}"))
            retry = threading.Timer(30.0, self._queue.put, args=(("DEFINITIONS", None, None),))
            retry.daemon = True
            retry.start()
            return
        old_watchers, old_source = self._watchers, self.source
        self._sync_stop.set()
        for watcher in old_watchers:
            watcher.close()
        if old_source is not None:
            old_source.connection.close()
        self.reloads += 1  # before the new answer is visible, so whoever sees it sees the count too
        with self._store:
            self._install(source, began)
        notes.append(("kartas.run.ai", "changed: the cluster was read again with the definitions now in effect"))

    def stop(self) -> None:
        self._stop.set()
        self._sync_stop.set()
        for watcher in self._watchers:
            watcher.close()
        if self._applier is not None:
            self._applier.join(timeout=5)
        if self.source is not None:
            self.source.connection.close()

    @property
    def registry(self) -> DefinitionRegistry:
        if self._registry is not None:
            return self._registry
        assert self.source is not None, "start() first"
        return self.source.registry

    def _projection_for(self, registry: DefinitionRegistry) -> Projection:
        self._project = projection_for(registry.definitions)
        return self._project

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot, registry: DefinitionRegistry) -> LiveModel:
        """A model of objects read once (a dump): the same answers, no watches (``wmap serve --from-file``)."""
        from workload_map.sources.kube import LiveOptions  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

        model = cls(LiveOptions())
        model._registry = registry
        model.coverage = Coverage(list(snapshot.coverage))  # a snapshot of a partial read keeps its gaps
        model._projection_for(registry)
        model.started_at = time.time()
        began = time.monotonic()
        model._load(snapshot)
        model.sync_seconds = time.monotonic() - began
        model.version = 1
        model._queues = QueueState()  # a dump holds the queue objects it was written with
        return model

    def _load(self, snapshot: Iterable[Obj], *, projected: bool = False) -> None:
        events: list[tuple[str, Any, Any]] = []  # a dump's Events (a cluster's come from their own watch)
        with bulk_load():
            for obj in snapshot:
                if is_event(obj):
                    events.append(("ADDED", obj, None))
                    continue
                self._forest.put(obj if projected else self._project(obj))
            self._forest.set_roots()
            self._resolve_all()
            self.events.apply(events, self._workload_object)

    def _workload_object(self, uid: str) -> bool:
        """The object is in the store and part of a workload (the Events kept are theirs)."""
        return uid in self._forest.objects and self._forest.root.get(uid) in self._results

    def workload_events(self, item: Resolved) -> list[WorkloadEvent]:
        """The Events of a workload's objects (its root, what it owns, its pods), newest last."""
        return self.events.of(item.members)

    @property
    def ready(self) -> bool:
        return self.sync_seconds is not None and not self._stop.is_set()

    def readiness(self) -> tuple[bool, str]:
        """``/readyz``: ready once synced while the API server answers; the first line, then what is missing.

        A model with gaps is ready (the rest is served) and says what it cannot see."""
        if not self.ready:
            return False, "syncing"
        error = self.apiserver_error
        if error is not None:
            age = self.last_contact_age()
            since = f" for {age:.0f}s" if age is not None else ""
            return False, f"not ready: the API server has not answered{since}: {error}"
        gaps = self.gap_objects()
        if self.resources and not any(state.readable for state in self.resources.values()):
            # every permission lost: an empty answer would pass for a cluster without workloads
            whys = sorted({state.error or "unreadable" for state in self.resources.values()})
            return False, "not ready: nothing can be read any more: " + "; ".join(whys)
        if not gaps:
            return True, "ready"
        return True, "ready, partial: " + "; ".join(gap.why for gap in gaps)

    def last_contact_age(self) -> float | None:
        """Seconds since the API server last answered (None for a model read from a dump)."""
        if self._probe is None or self._probe.last_contact is None:
            return None
        return max(0.0, time.time() - self._probe.last_contact)

    def gap_warnings(self) -> list[str]:
        """One line per gap that matters, as ``wmap get -A`` says them (resolver.gap_warnings)."""

        with self._lock:
            coverage = self.coverage
            members: dict[Gap, list[Obj]] = defaultdict(list)
            for by_gap in self._gap_members.values():
                for gap, objects in by_gap.items():
                    members[gap].extend(objects)
        return gap_warnings(coverage, members)

    def gap_objects(self) -> dict[Gap, int]:
        """Each gap that matters, with how many objects read lie in it (their owner could not be read: none is
        a workload). A kind whose CRD is not installed matters only while objects of it are left (a CRD
        removed with its pods), as in ``wmap get``'s warnings."""
        with self._lock:
            counts = dict.fromkeys(self.coverage, 0)
            for by_gap in self._gap_members.values():
                for gap, objects in by_gap.items():
                    if gap in counts:
                        counts[gap] += len(objects)
        return {gap: n for gap, n in counts.items() if gap.cause is not Cause.NOT_SERVED or n}

    # -- answers
    def workloads(self) -> list[Resolved]:
        """Every top-level workload, sorted as ``wmap get -A`` sorts them."""
        with self._lock:
            items = [r for results in self._results.values() for r in results]
        return sorted(items, key=lambda r: (r.tree.namespace, r.tree.name, r.tree.kind))

    def queues(self) -> QueueReport | None:
        """The queue report (``View.queues``, docs/queues.md) of the current version, or None when the model
        does not watch the queue kinds (``LiveOptions.queues``)."""
        if self._queues is None:
            return None
        namespace = None if self.options.all_namespaces else self.options.namespace
        warnings = self.source.queue_warnings if self.source is not None else []

        def store() -> tuple[int, Iterable[Obj], Iterable[list[Resolved]]]:
            return self.version, self._forest.objects.values(), self._results.values()

        return self._queues.report(
            self._store, store, self.registry, self.coverage, namespace=namespace, warnings=warnings
        )

    def wait_for_version(self, version: int, timeout: float) -> bool:
        """Block until a batch after ``version`` is applied (tests and benchmarks)."""
        with self._changed:
            return self._changed.wait_for(lambda: self.version > version, timeout)

    # -- resolution
    def _resolved(self, view: WorkloadIndex, workloads: list[Obj]) -> list[Resolved]:
        trees, _problems = trees_of(view, workloads)
        resolved: list[Resolved] = []
        for tree in trees:
            owned = self._forest.subtree(uid_of(tree.workload))
            members = (*owned, *{uid_of(pod.obj) for pod in tree.all_pods}.difference(owned))
            planner: Callable[[], GangPlan] | None
            try:
                planner = deferred_plan_in_view(view, tree.workload)
            except (LookupError, ValueError, TypeError):
                planner = None
            resolved.append(Resolved(tree, planner, members))
        return resolved

    def _resolve_all(self) -> None:
        """Every root at once: one WorkloadIndex over the whole store, as ``wmap get -A`` builds it, instead of
        one per root (~8,000 roots at 1,000 workloads, most of them Services, ConfigMaps, revisions)."""

        view = WorkloadIndex(Snapshot(self._forest.objects.values(), coverage=self.coverage), self.registry)
        by_root: dict[str, list[Resolved]] = defaultdict(list)
        for item in self._resolved(view, view.workloads(None, None)):
            by_root[self._forest.root[uid_of(item.tree.workload)]].append(item)
        gap_members: dict[str, dict[Gap, list[Obj]]] = defaultdict(lambda: defaultdict(list))
        for gap, objects in view.gap_members.items():
            for obj in objects:
                gap_members[self._forest.root[uid_of(obj)]][gap].append(obj)
        roots = set(self._forest.root.values())
        with self._lock:
            self._results = {root: by_root[root] for root in roots if by_root.get(root)}
            self._gap_members = {root: dict(by_gap) for root, by_gap in gap_members.items()}
        self.resolves += len(roots)

    def _resolve(self, roots: Iterable[str]) -> None:
        """Re-resolve the roots a batch touched, each over its own objects only."""

        registry = self.registry
        updates: dict[str, list[Resolved] | None] = {}
        gap_members: dict[str, dict[Gap, list[Obj]]] = {}
        for root in roots:
            if root not in self._forest.objects or self._forest.root.get(root, root) != root:
                updates[root] = None
                continue
            forest = self._forest
            members = sorted((forest.objects[m] for m in forest.subtree(root)), key=forest.member_order)
            view = WorkloadIndex(Snapshot(members, coverage=self.coverage), registry)
            if view.gap_members:
                gap_members[root] = dict(view.gap_members)
            updates[root] = self._resolved(view, view.workloads(None, None))
            self.resolves += 1
        with self._lock:
            for root, result in updates.items():
                if result:
                    self._results[root] = result
                else:
                    self._results.pop(root, None)
                if root in gap_members:
                    self._gap_members[root] = gap_members[root]
                else:
                    self._gap_members.pop(root, None)

    def _apply_loop(self) -> None:
        while not self._stop.is_set():
            try:
                batch = [self._queue.get(timeout=0.5)]
            except queue.Empty:
                continue
            if self.settle:
                time.sleep(self.settle)
            while True:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            self._apply(batch)

    def _apply(self, batch: list[tuple[str, Any, Any]]) -> None:
        from workload_map.sources.kube.watch import watch_notes  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

        dirty: set[str] = set()
        notes: list[tuple[str, str]] = []
        if any(kind == "DEFINITIONS" for kind, _, _ in batch):
            self._reload(notes)  # everything else in the batch is of the store being replaced
        else:
            with self._store:
                self._apply_events(batch, notes, dirty)
        with self._changed:
            self.version += 1
            self._changed.notify_all()
        for line in watch_notes(notes):
            self.warnings.append(line)
            del self.warnings[:-100]  # a bounded log: the freshest notes
            if self.on_notice is not None:
                self.on_notice(line)

    def _apply_events(self, batch: list[tuple[str, Any, Any]], notes: list[tuple[str, str]], dirty: set[str]) -> None:
        now = time.time()
        events: list[tuple[str, Any, Any]] = []  # applied once the batch's workloads are resolved
        with bulk_load():
            for kind, payload, extra in batch:
                if kind == "EVENTS":
                    events.append(payload)
                elif kind == "FAILED":
                    self._failed(payload, extra, dirty, notes)
                elif kind == "CONTACT":
                    self.apiserver_error = payload
                elif kind == "SERVED":
                    self._newly_served(payload, notes)
                elif kind == "RELISTED":
                    self._relisted(payload, dirty, extra, notes)
                else:
                    self._event(kind, payload, dirty, now)
            if self._coverage_changed:
                self._coverage_changed = False
                self._resolve_all()
            else:
                self._resolve(dirty)
            notes.extend(("events", line) for line in self.events.apply(events, self._workload_object))

    def problems(self) -> list[str]:
        """What is not current now, one line per cause: why the model is not ready (the API server not
        answering, nothing readable: whenever ``/readyz`` fails once synced), then the watches failing and
        since when."""
        from workload_map.sources.kube.watch import watch_notes  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

        failing = sorted(
            (s.failing_since or 0.0, s.name, s.error)
            for s in self.resources.values()
            if s.error is not None and s.gap is None  # gaps are the coverage's to tell
        )
        notes = []
        for since, name, error in failing:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since))
            notes.append((name, f"not current since {stamp} (retrying): {error}"))
        ready, reason = self.readiness()
        unready = [reason.removeprefix("not ready: ")] if self.ready and not ready else []
        return unready + watch_notes(notes)

    def _state_for(self, obj: Obj) -> ResourceState | None:
        for listed in self._listed:
            res = listed.resource
            if (res.api_version, res.kind) == (obj.get("apiVersion"), obj.get("kind")):
                return self.resources.get(resource_name(listed))
        return None

    def _event(self, kind: str, obj: Obj, dirty: set[str], now: float) -> None:
        uid = uid_of(obj)
        state = self._state_for(obj)
        if state is not None:
            state.events[kind] += 1
            state.last_event = now
            state.readable, state.error, state.failing_since = True, None, None
            if kind == "ADDED" and uid not in self._forest.objects:
                state.objects += 1
            elif kind == "DELETED" and uid in self._forest.objects:
                state.objects -= 1
        old_root = self._forest.root.get(uid)
        if old_root is not None:
            dirty.add(old_root)
        if kind == "DELETED":
            self._forest.remove(uid)
            self.events.forget(uid)
            for child in self._forest.children(uid):
                self._forest.reroot(child, dirty)
            return
        self._forest.put(self._project(obj))
        self._forest.reroot(uid, dirty)

    def _relisted(self, fresh: ListResult, dirty: set[str], reason: str | None, notes: list[tuple[str, str]]) -> None:
        name = resource_name(fresh)
        state = self.resources.setdefault(name, ResourceState(name))
        state.relists += 1
        recovered = state.error is not None and state.gap is None  # a gap closing is told by the coverage
        state.readable, state.error, state.failing_since = True, None, None
        res = fresh.resource
        where = fresh.namespace if res.namespaced else None
        closed = [g for g in self.coverage if (g.group, g.kind, g.namespace) == (res.group, res.kind, where)]
        if closed:
            state.gap = None
            self._set_coverage([g for g in self.coverage if g not in closed])
            notes.append((name, "can be read again: its objects are served"))
        now = time.time()
        keep = {uid_of(o) for o in fresh.items}
        stale = [
            uid
            for uid, obj in self._forest.objects.items()
            if (obj.get("apiVersion"), obj.get("kind")) == (res.api_version, res.kind)
            and (fresh.namespace is None or (obj.get("metadata") or {}).get("namespace") == fresh.namespace)
            and uid not in keep
        ]
        for uid in stale:
            self._event("DELETED", self._forest.objects[uid], dirty, now)
        for obj in fresh.items:
            obj.setdefault("apiVersion", res.api_version)
            obj.setdefault("kind", res.kind)
            old = self._forest.objects.get(uid_of(obj))
            if old is not None and _version(old) is not None and _version(old) == _version(obj):
                continue  # unchanged while the watch was down: no event, nothing to resolve again
            self._event("MODIFIED" if old is not None else "ADDED", obj, dirty, now)
        state.objects = len(fresh.items)
        if reason and recovered:
            notes.append((name, reason))
        elif reason:  # a routine relist (410 Gone): logged, not news
            self.warnings.append(f"watch of {name} {reason}")
            del self.warnings[:-100]

    def _failed(
        self, listed: ListResult | None, error: Exception, dirty: set[str], notes: list[tuple[str, str]]
    ) -> None:
        from workload_map.live.gaps import gap_of_failure  # noqa: PLC0415 (the live model only when a cluster is watched)

        if listed is None:
            return
        name = resource_name(listed)
        state = self.resources.setdefault(name, ResourceState(name))
        state.errors += 1
        message = str(getattr(error, "message", error))
        gap = gap_of_failure(listed, error)
        if state.error is None:
            state.failing_since = time.time()
            if gap is None:  # said once when it starts failing (problems() has the latest); a gap says itself
                notes.append((name, f"failed, retrying: {message}"))
        state.error = message
        if getattr(error, "status", 0) in (401, 403):
            state.readable = False
        if gap is None or any(
            (g.group, g.kind, g.namespace) == (gap.group, gap.kind, gap.namespace) for g in self.coverage
        ):
            return  # not a gap, or one already open
        state.readable, state.gap = False, gap
        res = listed.resource
        gone = [
            uid
            for uid, obj in self._forest.objects.items()
            if (obj.get("apiVersion"), obj.get("kind")) == (res.api_version, res.kind)
            and (listed.namespace is None or (obj.get("metadata") or {}).get("namespace") == listed.namespace)
        ]
        for uid in gone:  # what cannot be read any more cannot be known: the gap says so instead
            self._event("DELETED", self._forest.objects[uid], dirty, time.time())
        state.objects = 0
        self._set_coverage([*self.coverage.gaps, gap])
        notes.append((name, f"cannot be read: {gap.why}; its objects left the model (fix: {gap.fix})"))

    def _newly_served(self, resource: ServedResource, notes: list[tuple[str, str]]) -> None:
        """A covered kind the server did not serve at start is served now: watch it as a gap being closed
        (its first list closes the gap and resolves every workload again, since pods may belong to it)."""
        from workload_map.sources.kube.informer import Informer, unlisted  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

        assert self.source is not None
        self.source.discovery.add(resource)  # the kind's names (plural, short names) for the registry
        listed = unlisted(resource, None)
        name = resource_name(listed)
        gap = next(
            (g for g in self.coverage if (g.group, g.kind, g.namespace) == (resource.group, resource.kind, None)), None
        )
        self.resources[name] = ResourceState(name, readable=False, error=gap.why if gap else None, gap=gap)
        watcher = Informer(
            self.source.connection, listed, self._queue, self._stop, self.watch_seconds, retry=True, list_first=True
        )
        self._watchers.append(watcher)
        self._listed.append(listed)
        watcher.start()
        notes.append((name, "is served now (its CRD was installed): listing and watching it"))

    def _set_coverage(self, gaps: list[Gap]) -> None:
        """A new Coverage; the batch then resolves every root again, in one view (a rare event: what each
        workload is made of may have become readable or not)."""
        with self._lock:
            self.coverage = Coverage(gaps)
        self._coverage_changed = True


def _version(obj: Obj) -> str | None:
    version = (obj.get("metadata") or {}).get("resourceVersion")
    return str(version) if version else None
