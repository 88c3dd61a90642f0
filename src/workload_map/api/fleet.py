"""A fleet: several clusters (kubeconfig contexts) read at the same time, each as a View.

One thread per cluster: the waits on the API servers overlap, so a slow or frozen cluster delays no other;
the decoding and resolving stay serial under the GIL, which is what a fleet of large clusters waits for.
A process per cluster was measured and is slower on 2 cores (bench/README.md, "Fleet"). A cluster that
cannot be read (unreachable, frozen past ``--request-timeout``, forbidden, a broken context) becomes one
:class:`ClusterFailure`; the others are served. Every workload a fleet lists carries the name of its
cluster: the context name.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Unpack

from workload_map.api.clusters import with_shortcuts
from workload_map.api.definitions import as_definitions
from workload_map.api.open import open_cluster
from workload_map.api.placement import fit_clusters
from workload_map.api.view import _SCOPE, View
from workload_map.base.objects import Obj
from workload_map.errors import WorkloadMapError

if TYPE_CHECKING:
    from workload_map.api.clusters import ClusterFields, ClusterOptions
    from workload_map.placement import Capacity, FitResult, WorkloadRequirements
    from workload_map.queues import QueueReport
    from workload_map.tree.model import WorkloadTree


@dataclass(frozen=True)
class ClusterWorkload:
    """One workload of a fleet: the cluster (kubeconfig context) it lives in and its resolved tree."""

    cluster: str
    tree: WorkloadTree

    def to_json(self) -> dict[str, Any]:
        """The tree document (docs/tree-json.md) with ``cluster`` first."""
        return {"cluster": self.cluster, **self.tree.to_json()}


@dataclass(frozen=True)
class ClusterFailure:
    """A cluster of the fleet that could not be read, and why (the one-line error a lone read would give)."""

    cluster: str
    message: str
    hint: str | None = None

    @property
    def warning(self) -> str:
        return f"cluster {self.cluster}: not read: {self.message}"


@dataclass(frozen=True)
class FleetChange:
    """One change of a watched fleet (:meth:`Fleet.watch`): a cluster's new View and the warnings of that
    change, each line naming the cluster; or, ``view`` None, the end of that cluster's watch for an error
    that does not pass by itself (401, 403, ``timeout``), why in ``failure`` and one line in ``warnings``."""

    cluster: str
    view: View | None
    warnings: list[str]
    failure: ClusterFailure | None = None


@dataclass
class FleetListing:
    """The workloads a fleet listing selected, cluster by cluster in the fleet's order (iterate it)."""

    workloads: list[ClusterWorkload]
    problems: list[str] = field(default_factory=list)  # "cluster <c>: <key>: cannot resolve: <why>"
    missing: list[str] = field(default_factory=list)  # names asked for that no cluster read has

    def __iter__(self) -> Iterator[ClusterWorkload]:
        return iter(self.workloads)

    def __len__(self) -> int:
        return len(self.workloads)


class Fleet:
    """The clusters of a fleet that were read (``views``, by context name, in the order asked) and those that
    were not (``failures``). Open one with :func:`open_fleet`; close it (or use ``with``) when done."""

    def __init__(
        self,
        clusters: Sequence[str],
        views: dict[str, View],
        failures: Sequence[ClusterFailure] = (),
        spans: dict[str, tuple[float, float]] | None = None,
    ) -> None:
        self.clusters = list(clusters)  # every cluster asked for, in order
        self.views = {c: views[c] for c in self.clusters if c in views}
        self.failures = list(failures)
        # When each cluster's read began and ended (time.monotonic()), failed ones included.
        self.spans = dict(spans or {})

    @property
    def seconds(self) -> dict[str, float]:
        """How long each cluster's read took."""
        return {c: end - begin for c, (begin, end) in self.spans.items()}

    def __enter__(self) -> Fleet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for view in self.views.values():
            view.close()

    def view(self, cluster: str) -> View:
        """The View of one cluster that was read (KeyError for a cluster not read)."""
        return self.views[cluster]

    @property
    def partial(self) -> bool:
        """Some cluster, or some kind or namespace of one, could not be read: the answer is a part
        (the CLI's exit code 5)."""
        return bool(self.failures) or any(v.coverage.forbidden() or v.coverage.failed() for v in self.views.values())

    @property
    def warnings(self) -> list[str]:
        """What did not stop the read, each line naming its cluster; one line per cluster not read."""
        return [*(f.warning for f in self.failures), *self._prefixed(lambda v: v.warnings)]

    def warnings_in_full(self) -> list[str]:
        """``warnings`` with every object whose owner is missing listed (``View.warnings_in_full``)."""
        return [*(f.warning for f in self.failures), *self._prefixed(lambda v: v.warnings_in_full())]

    def _prefixed(self, lines: Callable[[View], list[str]]) -> list[str]:
        """Each line once, naming the clusters that said it ("cluster a, b: the Karta CRD ...")."""
        said: dict[str, list[str]] = {}
        for cluster, view in self.views.items():
            for line in lines(view):
                said.setdefault(line, [])
                if cluster not in said[line]:
                    said[line].append(cluster)
        return [f"cluster {', '.join(clusters)}: {line}" for line, clusters in said.items()]

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
    ) -> FleetListing:
        """:meth:`View.workloads` in every cluster read, each workload with its cluster.

        A TYPE that no definition of one cluster covers (its cluster Kartas differ) is a problem line for
        that cluster; it is an error (UnknownTypeError) only when no cluster covers it.
        """
        wanted = list(names)
        listing = FleetListing([])
        unknown: list[WorkloadMapError] = []
        missing: list[set[str]] = []
        for cluster, view in self.views.items():
            try:
                found = view.workloads(
                    type, wanted, namespace=namespace, selector=selector, status=status, queue=queue, progress=progress
                )
            except WorkloadMapError as exc:
                unknown.append(exc)
                listing.problems.append(f"cluster {cluster}: {exc.message}")
                continue
            listing.workloads.extend(ClusterWorkload(cluster, tree) for tree in found)
            listing.problems.extend(f"cluster {cluster}: {line}" for line in found.problems)
            missing.append(set(found.missing))
        if unknown and len(unknown) == len(self.views):
            raise unknown[0]
        everywhere = set.intersection(*missing) if missing else set()
        listing.missing = [n for n in wanted if n in everywhere]
        return listing

    def watch(self, timeout: float | None = None) -> Iterator[FleetChange]:
        """:meth:`View.watch` of every cluster read, one thread each, their changes as they come: until
        ``timeout`` seconds have passed, every cluster's watch has ended, or the caller stops iterating
        (the watches are closed then). A cluster whose watch ends with an error is one FleetChange with its
        ``failure``; the others keep coming."""
        changes: queue.Queue[tuple[str, FleetChange | None]] = queue.Queue()
        stop = threading.Event()

        def follow(cluster: str, view: View) -> None:
            try:
                for current, warnings in view.watch(timeout, stop=stop):
                    changes.put((cluster, FleetChange(cluster, current, [f"cluster {cluster}: {w}" for w in warnings])))
            except Exception as exc:  # one cluster's end must not end the others'
                failure = _failure(cluster, exc)
                changes.put(
                    (
                        cluster,
                        FleetChange(cluster, None, [f"cluster {cluster}: watch ended: {failure.message}"], failure),
                    )
                )
            finally:
                changes.put((cluster, None))

        threads = [
            threading.Thread(target=follow, args=(c, v), name=f"wmap watch {c}", daemon=True)
            for c, v in self.views.items()
        ]
        for thread in threads:
            thread.start()
        watching = set(self.views)
        try:
            while watching:
                try:
                    # bounded, so that Ctrl-C reaches a caller waiting here
                    cluster, change = changes.get(timeout=0.5)
                except queue.Empty:
                    continue
                if change is None:
                    watching.discard(cluster)
                else:
                    yield change
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=5)

    def capacity(self) -> dict[str, Capacity]:
        """Each cluster's :meth:`View.capacity` (a fleet opened with ``capacity=True``), by cluster."""
        return {cluster: view.capacity() for cluster, view in self.views.items()}

    def queues(self, *, namespace: str | None = _SCOPE) -> dict[str, QueueReport]:
        """Each cluster's :meth:`View.queues` (a fleet opened with ``queues=True``), by cluster."""
        return {cluster: view.queues(namespace=namespace) for cluster, view in self.views.items()}

    def components(
        self, target: str | Sequence[str], name: str | None = None, *, namespace: str | None = _SCOPE
    ) -> dict[str, WorkloadRequirements]:
        """:meth:`View.components` of the workload ``"TYPE/NAME"`` in every cluster read that has it, by
        cluster in the fleet's order, each through its own cluster's definitions (errors as :meth:`find`)."""
        return {
            cluster: self.views[cluster].components(obj)
            for cluster, obj in self.find(target, name, namespace=namespace)
        }

    def fit(
        self,
        target: str | Obj,
        name: str | None = None,
        *,
        namespace: str | None = None,
        max_copies: int = 1000,
    ) -> list[FitResult]:
        """:meth:`View.fit` on every cluster read, ranked best first (:func:`workload_map.fit_clusters`):
        ``target`` is ``"TYPE/NAME"`` (the object of the first cluster that has it) or a manifest dict."""

        return fit_clusters(self.views, target, name, namespace=namespace, max_copies=max_copies)

    def find(
        self, target: str | Sequence[str], name: str | None = None, *, namespace: str | None = _SCOPE
    ) -> list[tuple[str, Obj]]:
        """``(cluster, object)`` of the workload named ``"TYPE/NAME"`` in every cluster read that has it.

        Raises the first cluster's NotFoundError (or UnknownTypeError) when no cluster has it.
        """
        found: list[tuple[str, Obj]] = []
        errors: list[WorkloadMapError] = []
        for cluster, view in self.views.items():
            try:
                found.append((cluster, view.find(target, name, namespace=namespace)))
            except WorkloadMapError as exc:
                errors.append(exc)
        if not found and errors:
            raise errors[0]
        return found


def kubeconfig_contexts(kubeconfig: str | None = None) -> list[str]:
    """The context names of the kubeconfig (``$KUBECONFIG`` merged, else ``~/.kube/config``), in file order:
    what ``--all-contexts`` reads."""
    from workload_map.sources.kube.connection import kubeconfig_contexts as contexts  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

    return contexts(kubeconfig)


def open_fleet(
    options: ClusterOptions | None = None,
    /,
    *,
    types: Sequence[str] | None = None,
    workload: str | Sequence[str] | None = None,
    capacity: bool | Literal["only"] = False,
    queues: bool = False,
    events: bool = False,
    **shortcuts: Unpack[ClusterFields],
) -> Fleet:
    """A :class:`Fleet` of the contexts ``options`` name (``contexts``; else ``context``; else every context
    of the kubeconfig), read concurrently with :func:`open_cluster`'s arguments, which apply to each cluster
    (``open_fleet(contexts=["east", "west"], namespace="ml")``).

    A cluster that cannot be read is in ``Fleet.failures`` (one line each); the call raises only for a
    kubeconfig that cannot be read or names no context. ``capacity`` reads each cluster's nodes and quotas
    too, for :meth:`Fleet.capacity` and :meth:`Fleet.fit` (docs/placement.md); ``queues`` the schedulers'
    queue objects, for :meth:`Fleet.queues` (docs/queues.md); ``events`` the Events of the namespace read.
    """

    options = with_shortcuts(options, shortcuts)
    names = options.fleet_contexts()
    if not names:
        raise WorkloadMapError("no context to read", hint="the kubeconfig has no contexts: add one, or pass --context")
    # the files are read once, not once per cluster
    options = dataclasses.replace(options, definitions=as_definitions(options.definitions))

    def read(context: str) -> tuple[View | ClusterFailure, tuple[float, float]]:
        began = time.monotonic()
        try:
            view = open_cluster(
                options.for_context(context),
                types=types,
                workload=workload,
                capacity=capacity,
                queues=queues,
                events=events,
            )
        except Exception as exc:
            return _failure(context, exc), (began, time.monotonic())
        return view, (began, time.monotonic())

    with ThreadPoolExecutor(max_workers=len(names), thread_name_prefix="wmap fleet") as pool:
        results = list(pool.map(read, names))
    views = {c: r for c, (r, _) in zip(names, results, strict=True) if isinstance(r, View)}
    failures = [r for r, _ in results if isinstance(r, ClusterFailure)]
    return Fleet(names, views, failures, {c: span for c, (_, span) in zip(names, results, strict=True)})


def _failure(cluster: str, exc: Exception) -> ClusterFailure:
    """The one line a lone read would give for ``exc``."""
    if isinstance(exc, WorkloadMapError):
        line = exc.message + (f" ({exc.location})" if str(exc.location) else "")
        line += f": {exc.detail}" if exc.detail else ""
        return ClusterFailure(cluster, line, exc.hint)
    return ClusterFailure(cluster, f"{type(exc).__name__}: {exc}")
