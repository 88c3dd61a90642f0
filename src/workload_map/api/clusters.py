"""ClusterOptions: every way of reaching clusters as one value, and the one place it becomes what the
sources read with (``LiveOptions``, a connection).

``open_cluster``, ``open_fleet``, ``watch_cluster``, ``draft_from_cluster``, the CLI's connection flags
(``workload_map.cmdline.cluster_options``) and the operator all take a ClusterOptions; the keyword shortcuts
of the ``open_*`` functions are applied by :func:`with_shortcuts`, nowhere else. Importing this module
imports neither the Kubernetes client nor the definitions (``wmap --help`` builds none of it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from workload_map.sources.kube import Connection, LiveOptions

DEFAULT_CHUNK_SIZE = 500  # kubectl's --chunk-size default


@dataclass(frozen=True)
class ClusterOptions:
    """How to reach a cluster (or the clusters of a fleet), with kubectl's names and meanings.

    ``kubeconfig`` (default: ``$KUBECONFIG`` merged, else ``~/.kube/config``, else in-cluster), ``context``
    (default: the kubeconfig's current one), ``cluster`` and ``user`` name the kubeconfig's parts.
    ``contexts`` are the clusters of a fleet (``open_fleet``; empty: ``context`` alone if given, else every
    context of the kubeconfig) and ``all_contexts`` says that every context was asked for (``wmap
    --all-contexts``). ``namespace`` (default: the context's) or ``all_namespaces`` is what is read and the
    listing scope. ``request_timeout`` bounds each request (``"5s"``, ``"1m"``, seconds; default 30 s, ``"0"``
    none), ``timeout`` a whole read, retries of a throttled server included (default: none). ``chunk_size``
    is objects per list page (0: no paging). ``definitions`` (paths, LoadedDefinition or Karta models)
    override the cluster's Karta definitions and the built-in catalog.
    """

    kubeconfig: str | None = None
    context: str | None = None
    contexts: Sequence[str] = ()
    all_contexts: bool = False
    cluster: str | None = None
    user: str | None = None
    namespace: str | None = None
    all_namespaces: bool = False
    request_timeout: str | float | None = None
    timeout: str | float | None = None
    chunk_size: int = DEFAULT_CHUNK_SIZE
    definitions: Sequence[Any] = ()

    def __post_init__(self) -> None:
        # Lists given by a caller become tuples: the value stays immutable and comparable.
        object.__setattr__(self, "contexts", tuple(self.contexts))
        object.__setattr__(self, "definitions", tuple(self.definitions))

    @property
    def is_fleet(self) -> bool:
        """Several clusters were asked for: more than one context, or every context."""
        return self.all_contexts or len(set(self.contexts)) > 1

    def one_context(self) -> str | None:
        """The context of one cluster: ``context``, else the only one of ``contexts``."""
        if self.context is not None:
            return self.context
        return self.contexts[0] if len(self.contexts) == 1 else None

    def fleet_contexts(self) -> list[str]:
        """The contexts of the fleet these options name, in the order asked, each once: ``contexts``, else
        ``context``, else every context of the kubeconfig (in file order)."""
        if self.contexts and not self.all_contexts:
            return list(dict.fromkeys(self.contexts))
        if self.context is not None and not self.all_contexts:
            return [self.context]
        from workload_map.sources.kube.connection import kubeconfig_contexts  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

        return kubeconfig_contexts(self.kubeconfig)

    def for_context(self, context: str | None) -> ClusterOptions:
        """These options for the one cluster of ``context`` (a fleet's member)."""
        return dataclasses.replace(self, context=context, contexts=(), all_contexts=False)


class ClusterFields(TypedDict, total=False):
    """The fields of :class:`ClusterOptions` as keyword shortcuts (``open_cluster(context="x")``);
    tests/library/test_clusters.py holds the two equal."""

    kubeconfig: str | None
    context: str | None
    contexts: Sequence[str]
    all_contexts: bool
    cluster: str | None
    user: str | None
    namespace: str | None
    all_namespaces: bool
    request_timeout: str | float | None
    timeout: str | float | None
    chunk_size: int
    definitions: Sequence[Any]


def with_shortcuts(options: ClusterOptions | None, shortcuts: ClusterFields) -> ClusterOptions:
    """``options`` (default: none given) with the keyword shortcuts a caller gave on top: the one place
    a library call's keywords become a ClusterOptions."""
    base = options if options is not None else ClusterOptions()
    if not shortcuts:
        return base
    unknown = sorted(set(shortcuts) - set(ClusterFields.__annotations__))
    if unknown:  # a typo must not be a silently ignored option
        raise TypeError(f"unknown cluster option(s): {', '.join(unknown)}")
    return dataclasses.replace(base, **shortcuts)


def live_options(options: ClusterOptions, **reading: Any) -> LiveOptions:
    """What the sources read a cluster with: the connection and scope of ``options`` for its one cluster,
    the definitions loaded, and ``reading`` (``LiveOptions``' fields of what to read: kinds, describe,
    capacity, ...). The one place a ClusterOptions becomes a LiveOptions."""
    from workload_map.api.definitions import as_definitions  # noqa: PLC0415 (ClusterOptions stays light: the definition model loads only when a cluster is opened)
    from workload_map.sources.kube import LiveOptions  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

    return LiveOptions(
        kubeconfig=options.kubeconfig,
        context=options.one_context(),
        cluster=options.cluster,
        user=options.user,
        request_timeout=options.request_timeout,
        timeout=options.timeout,
        chunk_size=options.chunk_size,
        namespace=options.namespace,
        all_namespaces=options.all_namespaces,
        # nothing to load is not worth importing the definition model for (shell completion, catalog)
        definitions=as_definitions(options.definitions) if options.definitions else (),
        **reading,
    )


def connect(options: ClusterOptions) -> Connection:
    """A connection to the one cluster of ``options`` (its namespace: ``options.namespace``, else the
    context's), for a cluster operation that is not a workload read (catalog install, drafts, completion)."""
    from workload_map.sources.kube import connect as open_connection  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

    return open_connection(live_options(dataclasses.replace(options, definitions=())))
