"""``get --watch``: keep a Snapshot current with watches started at the lists' resourceVersions.

One :class:`~workload_map.sources.kube.informer.Informer` per list that was made (same resource, namespace
and selectors): bookmarks, reopening, a relist after ``410 Gone`` and the backoff are the informer's. An
error that may pass (the server unreachable or restarting, 429, 5xx) is retried and reported once per
resource and cause, not once per try; any other (401, 403, the command's ``--timeout``) ends the watch.
The generator yields a new Snapshot after every batch of events (with the batch's changes in the order
received, for ``wmap record``) and is bounded by ``max_events`` / ``timeout`` so tests and scripts can
stop it.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from workload_map.base.snapshot import Obj, Snapshot
from workload_map.sources.kube.connection import ClusterError, Connection, DeadlineError
from workload_map.sources.kube.fetch import ListResult
from workload_map.sources.kube.informer import GONE_RELISTED, WATCH_SECONDS, Informer


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
    watchers = [Informer(connection, listed, events, stop, watch_seconds, retry=True) for listed in lists]
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
