"""The operator's connection and watches: a connection for a long-running process, and the sources'
informer with a controller's callbacks."""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from typing import Any

from workload_map import ClusterOptions, RequestCounter
from workload_map.ports.definitions import GROUP, PLURAL, VERSION
from workload_map.ports.kube import (
    GONE_RELISTED,
    WATCH_SECONDS,
    Connection,
    Informer,
    ListResult,
    ServedResource,
    connect,
)

log = logging.getLogger("workload_map.operator.kube")


class _NoCounter(RequestCounter):
    """A long-running process must not keep a log of every request it ever made."""

    def add(self, verb: str, path: str, query: str) -> None:
        return None


DEFAULT_REQUEST_TIMEOUT = 30.0  # a long-running process must not hang on one request; --request-timeout 0 = none


def operator_connection(
    kubeconfig: str | None = None, context: str | None = None, *, options: ClusterOptions | None = None
) -> Connection:
    """A connection for the operator: kubectl's connection flags (``options``), a 30 s default request timeout."""
    if options is None:
        options = ClusterOptions(kubeconfig=kubeconfig, context=context)
    if options.request_timeout is None:
        options = dataclasses.replace(options, request_timeout=DEFAULT_REQUEST_TIMEOUT)
    conn = connect(options)
    conn.counter = _NoCounter()
    conn.restart_grace = 0.0  # its loops retry (and the Lease must not wait past its duration for one GET)
    return conn


# The collections the operator watches besides the kinds discovery finds.
KARTAS = ServedResource(GROUP, VERSION, "Karta", PLURAL, False)
CRDS = ServedResource("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", False)
NAMESPACES = ServedResource("", "v1", "Namespace", "namespaces", False)


class _Callbacks:
    """An informer's sink for a controller: every list to ``on_sync``, every change to ``on_event``; failures
    (retried by the informer with its backoff) and relists after 410 Gone to the log."""

    def __init__(
        self,
        on_sync: Callable[[list[dict[str, Any]]], None],
        on_event: Callable[[str, dict[str, Any]], None],
        what: str,
    ) -> None:
        self.on_sync, self.on_event, self.what = on_sync, on_event, what

    def put(self, item: tuple[str, Any, Any]) -> None:
        kind, payload, extra = item
        try:
            if kind == "FAILED":
                log.warning("watch failed, retrying", extra={"watch": self.what, "error": str(extra)})
            elif kind == "RELISTED":
                if extra == GONE_RELISTED:
                    log.info("watch expired, relisting", extra={"watch": self.what})
                self.on_sync(payload.items)
            else:
                self.on_event(kind, payload)
        except Exception as exc:  # a controller's failure must not end its watch: the next event tries again
            log.exception("watch handler failed", extra={"watch": self.what, "error": str(exc)})


def list_watch(  # noqa: PLR0917 - used as a Thread target with positional args
    conn: Connection,
    listed: ListResult,
    on_sync: Callable[[list[dict[str, Any]]], None],
    on_event: Callable[[str, dict[str, Any]], None],
    stop: threading.Event,
    what: str,
    watch_seconds: int = WATCH_SECONDS,
) -> None:
    """List then watch what ``listed`` names (``unlisted(resource, namespace, label_selector=...)``) until
    ``stop``, in the calling thread: the sources' informer, listing again after 410 Gone and after errors
    (with its backoff). ``on_sync`` gets every list, ``on_event`` every change."""
    Informer(conn, listed, _Callbacks(on_sync, on_event, what), stop, watch_seconds, retry=True, list_first=True).run()
