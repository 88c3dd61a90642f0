"""Small helpers over :class:`workload_map.sources.kube.connection.Connection` for a long-running process."""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from workload_map.sources.kube.connection import (
    ClusterError,
    Connection,
    ConnectionOptions,
    GoneError,
    RequestCounter,
    connect,
)

log = logging.getLogger("workload_map.operator.kube")


class _NoCounter(RequestCounter):
    """A long-running process must not keep a log of every request it ever made."""

    def add(self, verb: str, path: str, query: str) -> None:
        return None


DEFAULT_REQUEST_TIMEOUT = 30.0  # a long-running process must not hang on one request; --request-timeout 0 = none


def operator_connection(
    kubeconfig: str | None = None, context: str | None = None, *, options: ConnectionOptions | None = None
) -> Connection:
    """A connection for the operator: kubectl's connection flags (``options``), a 30 s default request timeout."""
    if options is None:
        options = ConnectionOptions(kubeconfig=kubeconfig, context=context)
    if options.request_timeout is None:
        options = dataclasses.replace(options, request_timeout=DEFAULT_REQUEST_TIMEOUT)
    conn = connect(options)
    conn.counter = _NoCounter()
    conn.restart_grace = 0.0  # its loops retry (and the Lease must not wait past its duration for one GET)
    return conn


def list_all(conn: Connection, path: str, query: dict[str, Any] | None = None) -> tuple[list[dict[str, Any]], str]:
    """Every item of a collection (paged) and the list's resourceVersion."""
    items: list[dict[str, Any]] = []
    token = None
    while True:
        page = conn.request("GET", path, {**(query or {}), "limit": conn.chunk_size or None, "continue": token})
        items += page.get("items") or []
        token = (page.get("metadata") or {}).get("continue")
        if not token:
            return items, str((page.get("metadata") or {}).get("resourceVersion") or "")


def list_watch(  # noqa: PLR0917 - used as a Thread target with positional args
    conn: Connection,
    path: str,
    on_sync: Callable[[list[dict[str, Any]]], None],
    on_event: Callable[[str, dict[str, Any]], None],
    stop: threading.Event,
    what: str,
    watch_seconds: int = 300,
    *,
    query: dict[str, Any] | None = None,
) -> None:
    """List then watch ``path`` (``query``: e.g. a labelSelector) until ``stop``; relist after 410 Gone or
    errors (with backoff)."""
    backoff = 0.5
    while not stop.is_set():
        try:
            items, rv = list_all(conn, path, query)
            on_sync(items)
            backoff = 0.5
            while not stop.is_set():
                watch_query = {
                    **(query or {}),
                    "watch": "true",
                    "resourceVersion": rv,
                    "allowWatchBookmarks": "true",
                    "timeoutSeconds": watch_seconds,
                }
                for line in conn.stream_lines(path, watch_query, timeout=watch_seconds + 30):
                    if stop.is_set():
                        return
                    event = orjson.loads(line)
                    etype, obj = event.get("type"), event.get("object") or {}
                    if etype == "ERROR":
                        if obj.get("code") == 410:
                            raise GoneError("watch expired", status=410)
                        raise ClusterError(
                            f"watch error on {path}: {obj.get('message')}", status=int(obj.get("code") or 0)
                        )
                    rv = str((obj.get("metadata") or {}).get("resourceVersion") or rv)
                    if etype == "BOOKMARK":
                        continue
                    on_event(str(etype), obj)
        except GoneError:
            log.info("watch expired, relisting", extra={"watch": what})
        except Exception as exc:
            if stop.is_set():
                return
            log.warning("watch failed, retrying", extra={"watch": what, "error": str(exc), "retry_in": backoff})
            stop.wait(backoff)
            backoff = min(backoff * 2, 30.0)


def iter_chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
