"""The informer: list one resource (one namespace, selectors), then watch it from the list's resourceVersion,
for every reader that keeps objects current: the live model (``wmap serve``), ``get --watch`` and ``wmap
record`` (``watch.watch_snapshots``) and the operator's controllers alike.

The watch asks for bookmarks (``allowWatchBookmarks=true``) so its resourceVersion stays fresh; a watch that
ends is reopened at the last resourceVersion seen; ``410 Gone`` (that version was compacted away) lists the
resource again and goes on. What it sees goes to a sink (anything with ``put``: a queue, or a controller's
callbacks) as ``(type, payload, extra)``:

- ``ADDED`` / ``MODIFIED`` / ``DELETED``: the object (its apiVersion and kind filled in) and the time it
  was received;
- ``RELISTED``: a fresh :class:`ListResult` and why it was listed (after 410 Gone, after an error, or the
  first list of an informer started from nothing);
- ``FAILED``: the ListResult it informs on and the :class:`ClusterError`.

``retry=False`` (a one-shot ``get --watch`` that ends on an error): the first failure ends it. ``retry=True``
(long-running readers): after a failure it waits the backoff of :data:`WATCH_BACKOFF` (the sources' retry
policy: capped exponential, jitter in the upper half) and lists again, so a throttled, restarted or briefly
forbidden resource recovers by itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import orjson

from workload_map.sources.kube.connection import ClusterError, Connection, GoneError, resource_path
from workload_map.sources.kube.discovery import ServedResource
from workload_map.sources.kube.fetch import ListResult, list_all
from workload_map.sources.kube.retry import RetryPolicy

WATCH_SECONDS = 300  # server-side timeout of one watch request; it is reopened after
# After the n-th failure in a row: 1 s, 2 s, 4 s ... 30 s at most, each halved at random by up to half.
WATCH_BACKOFF = RetryPolicy(base=1.0, cap=30.0)
GONE_RELISTED = "expired (410 Gone): listed again"  # why an informer listed again after a routine 410
FIRST_LISTED = "readable again: listed"  # why an informer started from nothing listed (a gap closed)


class Sink(Protocol):
    """Where an informer puts what it sees: ``(type, payload, extra)`` (the module docstring)."""

    def put(self, item: tuple[str, Any, Any]) -> None: ...


def unlisted(
    resource: ServedResource,
    namespace: str | None,
    *,
    label_selector: str | None = None,
    field_selector: str | None = None,
) -> ListResult:
    """An empty list of what an informer with ``list_first`` lists itself: a resource not read yet."""
    return ListResult(resource, namespace, [], "", 0, label_selector, field_selector)


class Informer(threading.Thread):
    """One list-and-watch of one list's resource, namespace and selectors, putting what it sees on ``out``.

    ``listed`` is the list it watches from; with ``list_first`` it lists itself before watching, as
    often as it takes (``FAILED`` on each refusal, the backoff between tries): what a reader that starts
    from nothing needs (a kind that could not be read, an operator's watch), given ``unlisted(...)``.
    Call ``start()`` for a thread of its own, or ``run()`` in a thread the caller owns.
    """

    def __init__(
        self,
        connection: Connection,
        listed: ListResult,
        out: Sink,
        stop: threading.Event,
        watch_seconds: int = WATCH_SECONDS,
        *,
        retry: bool = False,
        list_first: bool = False,
        name: str | None = None,
        project: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(daemon=True, name=name or f"watch {listed.resource.display}")
        self.connection = connection
        self.listed = listed
        self.out = out
        self.stop_event = stop
        self.watch_seconds = watch_seconds
        self.retry = retry
        self.list_first = list_first
        # What replaces each object as it arrives (list pages and watch events alike): a reader that keeps
        # part of each object never holds whole lists of full ones (the live model's Events).
        self.project = project
        self.resource_version = listed.resource_version
        self.opened: list[Any] = []
        self.failures = 0

    def close(self) -> None:
        for response in self.opened:
            try:
                response.shutdown() if hasattr(response, "shutdown") else None
                response.close()
            except Exception:
                pass

    def run(self) -> None:
        while self.list_first and not self.stop_event.is_set():
            if self._relist(reason=FIRST_LISTED):
                break
            if not self.back_off():
                return
        while not self.stop_event.is_set():
            self._watch()
            if not self.retry or self.stop_event.is_set():
                return
            if not self.back_off():
                return
            self._relist(reason="listed again after an error")

    def back_off(self) -> bool:
        """Wait the next backoff after a failure; False when stopped meanwhile."""
        self.failures += 1
        return not self.stop_event.wait(WATCH_BACKOFF.delay(self.failures, None))

    def _relist(self, reason: str) -> bool:
        res = self.listed.resource
        try:
            fresh = list_all(
                self.connection,
                res,
                self.listed.namespace,
                label_selector=self.listed.label_selector,
                field_selector=self.listed.field_selector,
                project=self.project,
            )
        except ClusterError as exc:
            self.out.put(("FAILED", self.listed, exc))
            return False
        self.resource_version = fresh.resource_version
        self.failures = 0
        self.out.put(("RELISTED", fresh, reason))
        return True

    def _watch(self) -> None:
        res = self.listed.resource
        path = resource_path(res.group, res.version, res.plural, self.listed.namespace if res.namespaced else None)
        while not self.stop_event.is_set():
            try:
                window = self.connection.watch_window(self.watch_seconds, f"the watch of {res.display}")
                query = {
                    "watch": "true",
                    "allowWatchBookmarks": "true",
                    "resourceVersion": self.resource_version,
                    "timeoutSeconds": window,
                    "labelSelector": self.listed.label_selector,
                    "fieldSelector": self.listed.field_selector,
                }
                # a server that freezes is given 30 s past its own timeout, unless --timeout ends it sooner
                grace = 30 if window == self.watch_seconds else 2
                gone = False
                for line in self.connection.stream_lines(path, query, timeout=window + grace, opened=self.opened):
                    if self.stop_event.is_set():
                        return
                    event = orjson.loads(line)
                    kind, obj = event.get("type"), event.get("object") or {}
                    if kind == "ERROR":
                        if obj.get("code") == 410:
                            gone = True
                            break
                        raise ClusterError(
                            f"watch {res.display}: {obj.get('message') or obj}", status=int(obj.get("code") or 0)
                        )
                    rv = (obj.get("metadata") or {}).get("resourceVersion")
                    if rv:
                        self.resource_version = str(rv)
                    if kind == "BOOKMARK":
                        continue
                    obj.setdefault("apiVersion", res.api_version)
                    obj.setdefault("kind", res.kind)
                    self.out.put((kind, obj if self.project is None else self.project(obj), time.time()))
                if gone:
                    raise GoneError(f"Gone ({res.display}): the watch resource version is too old", status=410)
            except GoneError:
                if self.stop_event.is_set():
                    return
                if not self._relist(reason=GONE_RELISTED):
                    return
            except ClusterError as exc:
                if not self.stop_event.is_set():
                    self.out.put(("FAILED", self.listed, exc))
                return
            except Exception as exc:  # pragma: no cover - never let a thread die silently
                self.out.put(("FAILED", self.listed, ClusterError(f"watch {res.display}: {type(exc).__name__}: {exc}")))
                return


__all__ = ["FIRST_LISTED", "GONE_RELISTED", "WATCH_BACKOFF", "WATCH_SECONDS", "Informer", "Sink", "unlisted"]
