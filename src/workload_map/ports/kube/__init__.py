"""Port: reaching a cluster for what is not a workload read (workload reads go through ``workload_map``'s
``open_cluster``, ``open_fleet`` and ``watch_cluster``): a connection from a ``ClusterOptions``, discovery,
paged lists, the informer (list, watch, relist), the cluster's Karta definitions. For the operator, shell
completion, ``wmap catalog`` and ``wmap snapshot``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workload_map.ports import lazy_exports

if TYPE_CHECKING:
    from workload_map.api.clusters import connect as connect, live_options as live_options
    from workload_map.sources.kube.connection import (
        ClusterError as ClusterError,
        Connection as Connection,
        GoneError as GoneError,
        parse_timeout as parse_timeout,
        resource_path as resource_path,
    )
    from workload_map.sources.kube.discovery import (
        Discovery as Discovery,
        LiveRegistry as LiveRegistry,
        ServedResource as ServedResource,
        discover as discover,
    )
    from workload_map.sources.kube.fetch import (
        KARTA_VERSION as KARTA_VERSION,
        ListResult as ListResult,
        cluster_definition as cluster_definition,
        layered_definitions as layered_definitions,
        list_all as list_all,
    )
    from workload_map.sources.kube.informer import (
        GONE_RELISTED as GONE_RELISTED,
        WATCH_SECONDS as WATCH_SECONDS,
        Informer as Informer,
        unlisted as unlisted,
    )
    from workload_map.sources.kube.live import (
        LiveOptions as LiveOptions,
        LiveSource as LiveSource,
        live_source as live_source,
    )
    from workload_map.sources.kube.reads import gang_root_kinds as gang_root_kinds, plan_lists as plan_lists

_EXPORTS: dict[str, tuple[str, ...]] = {
    # a ClusterOptions -> a connection, or what the sources read with (the one place either is made)
    "workload_map.api.clusters": ("connect", "live_options"),
    "workload_map.sources.kube.connection": (
        "ClusterError",
        "Connection",
        "GoneError",
        "parse_timeout",
        "resource_path",
    ),
    "workload_map.sources.kube.discovery": ("Discovery", "LiveRegistry", "ServedResource", "discover"),
    # paged lists; which lists a set of definitions needs; the cluster's Karta definitions over the catalog
    "workload_map.sources.kube.fetch": (
        "KARTA_VERSION",
        "ListResult",
        "cluster_definition",
        "layered_definitions",
        "list_all",
    ),
    # what to read for a set of definitions: the kinds the gang controller watches
    "workload_map.sources.kube.reads": ("gang_root_kinds", "plan_lists"),
    # list, watch, relist on 410 Gone, bookmarks, backoff: the one informer
    "workload_map.sources.kube.informer": ("GONE_RELISTED", "WATCH_SECONDS", "Informer", "unlisted"),
    # a whole read kept with its connection and discovery (`wmap snapshot` writes it)
    "workload_map.sources.kube.live": ("LiveOptions", "LiveSource", "live_source"),
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
