"""The live-cluster layer: fetch objects from a kube-apiserver into a Snapshot.

Nothing here resolves anything: a live cluster becomes a Snapshot (plus the cluster's Karta
definitions), and the same WorkloadIndex code that reads dumps reads it. The ``kubernetes`` client is
imported only when a connection is made, so ``wmap --help`` never loads it.

Entry points (``workload_map.sources.kube.live``):
  * :func:`index_from_kubeconfig` -> (WorkloadIndex, warnings): what ``get``/``describe`` use;
  * :func:`live_source` -> LiveSource: the same pieces separately (connection, discovery, registry,
    snapshot), for ``update``, ``snapshot`` and ``watch``.

The names below are loaded on first use (PEP 562): importing ``workload_map.cmdline.cluster_options``
for its click decorator must not import orjson or the live layer (``wmap --help`` stays light).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workload_map.base.lazy import lazy_exports

if TYPE_CHECKING:
    from workload_map.sources.kube.connection import (
        DEFAULT_CHUNK_SIZE,
        ClusterError,
        Connection,
        ConnectionOptions,
        GoneError,
        RequestCounter,
        connect,
        parse_timeout,
    )
    from workload_map.sources.kube.live import LiveOptions, LiveSource, index_from_kubeconfig, live_source

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "ClusterError",
    "Connection",
    "ConnectionOptions",
    "GoneError",
    "LiveOptions",
    "LiveSource",
    "RequestCounter",
    "connect",
    "index_from_kubeconfig",
    "live_source",
    "parse_timeout",
]

_HOME = {
    "DEFAULT_CHUNK_SIZE": "connection",
    "ClusterError": "connection",
    "Connection": "connection",
    "ConnectionOptions": "connection",
    "GoneError": "connection",
    "RequestCounter": "connection",
    "connect": "connection",
    "parse_timeout": "connection",
    "LiveOptions": "live",
    "LiveSource": "live",
    "index_from_kubeconfig": "live",
    "live_source": "live",
}


__getattr__ = lazy_exports(__name__, {name: f"{__name__}.{module}" for name, module in _HOME.items()}, globals())


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
