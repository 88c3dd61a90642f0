"""The operator's watches are the sources' informer with a controller's callbacks (operator/kube.py)."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

from workload_map.operator.kube import KARTAS, NAMESPACES, _Callbacks, list_watch
from workload_map.sources.kube import informer
from workload_map.sources.kube.connection import ClusterError
from workload_map.sources.kube.fetch import ListResult
from workload_map.sources.kube.informer import GONE_RELISTED, unlisted
from workload_map.sources.kube.retry import RetryPolicy


class _Recorder:
    def __init__(self, fail_sync: bool = False) -> None:
        self.synced: list[list[dict[str, Any]]] = []
        self.events: list[tuple[str, str]] = []
        self.fail_sync = fail_sync

    def sync(self, items: list[dict[str, Any]]) -> None:
        if self.fail_sync:
            raise ValueError("controller bug")
        self.synced.append(items)

    def event(self, kind: str, obj: dict[str, Any]) -> None:
        self.events.append((kind, obj["metadata"]["name"]))


def _listed(*names: str) -> ListResult:
    return ListResult(KARTAS, None, [{"metadata": {"name": n}} for n in names], "7", 1)


def test_lists_reach_on_sync_changes_on_event_and_failures_the_log(caplog: pytest.LogCaptureFixture) -> None:
    seen = _Recorder()
    sink = _Callbacks(seen.sync, seen.event, "kartas")
    with caplog.at_level(logging.INFO, logger="workload_map.operator.kube"):
        sink.put(("RELISTED", _listed("a", "b"), "readable again: listed"))
        sink.put(("ADDED", {"metadata": {"name": "c"}}, 1.0))
        sink.put(("DELETED", {"metadata": {"name": "a"}}, 2.0))
        sink.put(("FAILED", _listed(), ClusterError("watch kartas.run.ai: too many requests", status=429)))
        sink.put(("RELISTED", _listed("b", "c"), GONE_RELISTED))
    assert [[i["metadata"]["name"] for i in items] for items in seen.synced] == [["a", "b"], ["b", "c"]]
    assert seen.events == [("ADDED", "c"), ("DELETED", "a")]
    messages = [(r.levelname, r.getMessage(), getattr(r, "watch", None)) for r in caplog.records]
    assert messages == [
        ("WARNING", "watch failed, retrying", "kartas"),
        ("INFO", "watch expired, relisting", "kartas"),
    ]


def test_a_failing_controller_is_logged_and_the_watch_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    sink = _Callbacks(_Recorder(fail_sync=True).sync, _Recorder().event, "namespaces")
    with caplog.at_level(logging.ERROR, logger="workload_map.operator.kube"):
        sink.put(("RELISTED", _listed("a"), "readable again: listed"))  # raises inside: must not propagate
    assert [r.getMessage() for r in caplog.records] == ["watch handler failed"]


class _RefusingConnection:
    """Every list is refused (403): the informer reports it and backs off, until stopped."""

    chunk_size = 500

    def __init__(self, stop: threading.Event, refusals: int) -> None:
        self.stop, self.refusals, self.calls = stop, refusals, 0

    def get(self, path: str, query: Any = None, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls >= self.refusals:
            self.stop.set()
        raise ClusterError(f"namespaces is forbidden ({path})", status=403)


def test_list_watch_lists_first_and_retries_until_stopped(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(informer, "WATCH_BACKOFF", RetryPolicy(base=0.001, cap=0.01))  # no real waits
    stop = threading.Event()
    conn = _RefusingConnection(stop, refusals=3)
    seen = _Recorder()
    with caplog.at_level(logging.WARNING, logger="workload_map.operator.kube"):
        listed = unlisted(NAMESPACES, None, label_selector="x")
        list_watch(conn, listed, seen.sync, seen.event, stop, "namespaces")  # type: ignore[arg-type]
    assert conn.calls == 3 and seen.synced == [] and seen.events == []
    assert [r.getMessage() for r in caplog.records] == ["watch failed, retrying"] * 3
