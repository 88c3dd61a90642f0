"""``get --watch``: keep a Snapshot current with watches started at the lists' resourceVersions.

One watch per list that was made (same resource, namespace and selectors), with
``allowWatchBookmarks=true`` so the resourceVersion stays fresh; a watch that ends is reopened at
the last resourceVersion seen; ``410 Gone`` (the version was compacted away) relists that resource
and continues. An error that may pass (the server unreachable or restarting, 429, 5xx) is retried with
a capped backoff and reported once per resource and cause, not once per try; any other (401, 403, the
command's ``--timeout``) ends the watch. The generator yields a new Snapshot after every batch of events
(with the batch's changes in the order received, for ``wmap record``) and is bounded by ``max_events`` /
``timeout`` so tests and scripts can stop it.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from workload_map.base.snapshot import Obj, Snapshot
from workload_map.sources.kube.connection import ClusterError, Connection, DeadlineError, GoneError, resource_path
from workload_map.sources.kube.fetch import ListResult, list_all

WATCH_SECONDS = 300  # server-side timeout of one watch request; it is reopened after


@dataclass(frozen=True)
class Change:
    """One object event as watched: ``at`` is when it was received (seconds since the epoch)."""

    type: str  # ADDED | MODIFIED | DELETED
    object: Obj
    at: float


@dataclass
class WatchEvent:
    """The last change of a batch, the state after the whole batch, and every change of the batch in order
    (a relist is no change: the snapshot has its result)."""

    type: str  # ADDED | MODIFIED | DELETED | RELISTED
    object: Obj | None
    snapshot: Snapshot
    warnings: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)


def transient(error: ClusterError) -> bool:
    """Whether an error may pass by itself: no answer at all (the server down, restarting, a timeout), 429
    or 5xx. The command's own deadline is final; so are 401 and 403 (new credentials or RBAC are needed)."""
    if isinstance(error, DeadlineError):
        return False
    return error.status in (0, 429) or 500 <= error.status <= 599


def watch_notes(notes: list[tuple[str, str]]) -> list[str]:
    """One line per text for ``(resource, text)`` pairs: ``watches of pods, jobs.batch <text>``, so a
    restart that ends every watch at once is one line, not one per resource."""
    by_text: dict[str, list[str]] = {}
    for resource, text in notes:
        names = by_text.setdefault(text, [])
        if resource not in names:
            names.append(resource)
    lines = []
    for text, names in by_text.items():
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        lines.append(f"{'watches' if len(names) > 1 else 'watch'} of {shown} {text}")
    return lines


def _key(obj: Obj) -> tuple[str, str, str, str]:
    metadata = obj.get("metadata") or {}
    return (
        str(obj.get("apiVersion")),
        str(obj.get("kind")),
        str(metadata.get("namespace") or ""),
        str(metadata.get("name")),
    )


GONE_RELISTED = "expired (410 Gone): listed again"  # why a watcher listed again after a routine 410


class Watcher(threading.Thread):
    """One watch of one list's resource, namespace and selectors, putting ``(type, payload, extra)`` on ``out``:
    ADDED/MODIFIED/DELETED with the object and the time it was received, RELISTED with a fresh ListResult and
    why (after 410 Gone, or after an error when retrying) and FAILED with the ClusterError.

    ``retry=False`` (``get --watch``): FAILED ends the watch. ``retry=True`` (the long-running live model):
    FAILED is reported, then the watcher waits a capped exponential backoff with jitter (30 s at most) and
    lists again, so a throttled, restarted or briefly forbidden resource recovers by itself.
    """

    MAX_BACKOFF = 30.0

    def __init__(
        self,
        connection: Connection,
        listed: ListResult,
        out: queue.Queue[Any],
        stop: threading.Event,
        watch_seconds: int = WATCH_SECONDS,
        *,
        retry: bool = False,
    ) -> None:
        super().__init__(daemon=True, name=f"watch {listed.resource.display}")
        self.connection = connection
        self.listed = listed
        self.out = out
        self.stop_event = stop
        self.watch_seconds = watch_seconds
        self.retry = retry
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
        while not self.stop_event.is_set():
            self._watch()
            if not self.retry or self.stop_event.is_set():
                return
            if not self.back_off():
                return
            self._relist(reason="listed again after an error")

    def back_off(self) -> bool:
        """Wait the next capped exponential delay with jitter after a failure; False when stopped meanwhile."""
        self.failures += 1
        delay = min(self.MAX_BACKOFF, 0.5 * 2 ** min(self.failures, 8)) * random.uniform(0.5, 1.0)
        return not self.stop_event.wait(delay)

    def _relist(self, reason: str) -> bool:
        res = self.listed.resource
        try:
            fresh = list_all(
                self.connection,
                res,
                self.listed.namespace,
                label_selector=self.listed.label_selector,
                field_selector=self.listed.field_selector,
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
                    self.out.put((kind, obj, time.time()))
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


def watch_snapshots(
    connection: Connection,
    lists: list[ListResult],
    *,
    max_events: int | None = None,
    timeout: float | None = None,
    watch_seconds: int = WATCH_SECONDS,
    settle: float = 0.1,
    cancel: threading.Event | None = None,
) -> Iterator[WatchEvent]:
    """Yield a WatchEvent (with the whole current Snapshot) after each change, until a bound is hit or
    ``cancel`` is set (seen within a second: how another thread ends a watch it cannot close)."""
    store: dict[tuple[str, str, str, str], Obj] = {}
    for listed in lists:
        for obj in listed.items:
            store[_key(obj)] = obj
    events: queue.Queue[Any] = queue.Queue()
    stop = threading.Event()
    watchers = [Watcher(connection, listed, events, stop, watch_seconds, retry=True) for listed in lists]
    for w in watchers:
        w.start()
    deadline = time.monotonic() + timeout if timeout else None
    seen = 0
    failing: dict[str, str] = {}  # resource -> its first error, while its watch is failing
    try:
        while max_events is None or seen < max_events:
            if cancel is not None and cancel.is_set():
                return
            wait = 1.0 if deadline is None else max(0.0, deadline - time.monotonic())
            if deadline is not None and wait <= 0:
                return
            try:
                batch = [events.get(timeout=min(wait, 1.0))]
            except queue.Empty:
                continue
            time.sleep(settle)  # let a burst (a whole rollout) arrive as one batch
            while True:
                try:
                    batch.append(events.get_nowait())
                except queue.Empty:
                    break
            last: tuple[str, Obj | None] = ("", None)
            notes: list[tuple[str, str]] = []
            changes: list[Change] = []
            for kind, payload, extra in batch:
                if kind == "FAILED":
                    if not transient(extra):
                        raise extra
                    name = payload.resource.display
                    if name not in failing:  # said once when it starts failing, not at every try
                        failing[name] = extra.message
                        notes.append((name, f"failed, retrying: {extra.message}"))
                    continue
                if kind == "RELISTED":
                    fresh: ListResult = payload
                    recovered = failing.pop(fresh.resource.display, None) is not None
                    prefix = (fresh.resource.api_version, fresh.resource.kind)
                    for key in [
                        k for k in store if k[:2] == prefix and (not fresh.namespace or k[2] == fresh.namespace)
                    ]:
                        del store[key]
                    for obj in fresh.items:
                        store[_key(obj)] = obj
                    if recovered or extra != GONE_RELISTED:  # a routine 410 relist is no news (kubectl: silent)
                        notes.append((fresh.resource.display, extra))
                    last = ("RELISTED", None)
                elif kind == "DELETED":
                    store.pop(_key(payload), None)
                    last = (kind, payload)
                    changes.append(Change(kind, payload, extra))
                else:
                    store[_key(payload)] = payload
                    last = (kind, payload)
                    changes.append(Change(kind, payload, extra))
                seen += 1
            if not last[0] and not notes:
                continue  # a failure already reported: nothing new to say
            yield WatchEvent(last[0], last[1], Snapshot(list(store.values())), watch_notes(notes), changes)
    finally:
        stop.set()
        for w in watchers:
            w.close()
