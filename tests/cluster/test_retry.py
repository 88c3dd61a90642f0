"""Retries, deadlines and cancellation of cluster requests, over real HTTP on the loopback.

A small HTTP server plays the API server's fault answers (429 with Retry-After as API Priority and
Fairness sends it, 5xx, a server that accepts and never answers); the requests go through the real
Connection (kubeconfig loading, urllib3 pool). The genuine apiserver doing the same is in tests/live.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from workload_map.sources.kube.connection import ClusterError, Connection, ConnectionOptions, DeadlineError, connect
from workload_map.sources.kube.discovery import ServedResource
from workload_map.sources.kube.fetch import MAX_WORKERS, _run_lists, list_all
from workload_map.sources.kube.retry import (
    DEFAULT_REQUEST_TIMEOUT,
    CancelToken,
    Deadline,
    RetryPolicy,
    retry_after_seconds,
)

PODS = ServedResource("", "v1", "Pod", "pods", True, ("po",), ("list",), True)
EMPTY_LIST = {"apiVersion": "v1", "kind": "PodList", "metadata": {"resourceVersion": "7"}, "items": []}

Answer = Callable[[int], tuple[int, dict[str, str], dict[str, object]]]


class FaultServer:
    """Answers request number n (from 1) with ``answer(n)``; ``hang`` makes every request wait forever."""

    def __init__(self, answer: Answer, *, hang: bool = False) -> None:
        self.answer = answer
        self.hang = hang
        self.requests = 0
        self.release = threading.Event()
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with lock:
                    outer.requests += 1
                    n = outer.requests
                if outer.hang:
                    outer.release.wait(30)
                    return
                status, headers, body = outer.answer(n)
                data = json.dumps(body).encode()
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FaultServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def _connection(tmp_path: Path, url: str, **options: object) -> Connection:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": url}}],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "x",
            }
        )
    )
    return connect(ConnectionOptions(kubeconfig=str(kubeconfig), **options))  # type: ignore[arg-type]


def _throttled(times: int, retry_after: str = "0") -> Answer:
    def answer(n: int) -> tuple[int, dict[str, str], dict[str, object]]:
        if n <= times:
            message = "too many requests"
            status = {"kind": "Status", "reason": "TooManyRequests", "message": message}
            return 429, {"Retry-After": retry_after}, status
        return 200, {}, EMPTY_LIST

    return answer


def test_429_with_retry_after_is_waited_out(tmp_path: Path) -> None:
    with FaultServer(_throttled(3)) as server:
        conn = _connection(tmp_path, server.url)
        result = list_all(conn, PODS, None)
    assert result.resource_version == "7"
    assert server.requests == 4
    assert conn.counter.retries == 3


def test_a_server_that_keeps_throttling_ends_at_the_deadline(tmp_path: Path) -> None:
    with FaultServer(_throttled(10**6, retry_after="1")) as server:
        conn = _connection(tmp_path, server.url, timeout="2s")
        with pytest.raises(DeadlineError) as info:
            list_all(conn, PODS, None)
    assert "--timeout" in info.value.message and "429" in info.value.message
    assert 1 <= server.requests <= 3  # Retry-After: 1 within a 2 s deadline


def test_attempts_are_capped_without_a_deadline(tmp_path: Path) -> None:
    with FaultServer(_throttled(10**6)) as server:
        conn = _connection(tmp_path, server.url)
        conn.retry = RetryPolicy(attempts=3, base=0.01, cap=0.02)
        with pytest.raises(ClusterError) as info:
            list_all(conn, PODS, None)
    assert info.value.status == 429
    assert server.requests == 3


def test_500_without_retry_after_is_an_answer(tmp_path: Path) -> None:
    def answer(n: int) -> tuple[int, dict[str, str], dict[str, object]]:
        return 500, {}, {"kind": "Status", "reason": "InternalError", "message": "etcd is sad"}

    with FaultServer(answer) as server:
        conn = _connection(tmp_path, server.url)
        with pytest.raises(ClusterError) as info:
            list_all(conn, PODS, None)
    assert info.value.status == 500 and "etcd is sad" in info.value.message
    assert server.requests == 1


def test_503_with_retry_after_is_retried(tmp_path: Path) -> None:
    def answer(n: int) -> tuple[int, dict[str, str], dict[str, object]]:
        if n == 1:
            return 503, {"Retry-After": "0"}, {"kind": "Status", "reason": "ServiceUnavailable", "message": "starting"}
        return 200, {}, EMPTY_LIST

    with FaultServer(answer) as server:
        conn = _connection(tmp_path, server.url)
        list_all(conn, PODS, None)
    assert server.requests == 2


def test_a_frozen_server_costs_one_timeout_and_cancels_the_queued_lists(tmp_path: Path) -> None:
    """Every request hangs: the first timeout ends the command and the lists still queued never start."""
    with FaultServer(_throttled(0), hang=True) as server:
        conn = _connection(tmp_path, server.url, request_timeout="0.5s")
        jobs = [(PODS, f"ns-{i}", {}) for i in range(4 * MAX_WORKERS)]
        with pytest.raises(ClusterError) as info:
            _run_lists(conn, jobs, [])
    assert "timed out after 0.5s (--request-timeout)" in info.value.message
    assert conn.cancel.cancelled
    assert server.requests <= MAX_WORKERS  # at most the ones already running when the first failed


def test_the_deadline_bounds_the_request_timeout(tmp_path: Path) -> None:
    with FaultServer(_throttled(0), hang=True) as server:
        conn = _connection(tmp_path, server.url, request_timeout="30s", timeout="0.5s")
        with pytest.raises(DeadlineError) as info:
            list_all(conn, PODS, None)
    assert "within 0.5s (--timeout)" in info.value.message


def test_default_request_timeout_and_no_timeout(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9"
    assert _connection(tmp_path, url).timeout == DEFAULT_REQUEST_TIMEOUT  # no flag: bounded, not forever
    assert _connection(tmp_path, url, request_timeout="0").timeout is None  # kubectl's 0 = none
    assert _connection(tmp_path, url, timeout="1m").deadline.seconds == 60.0


def test_delay_is_capped_jittered_and_honours_retry_after() -> None:
    policy = RetryPolicy(attempts=8, base=0.5, cap=4.0)
    rng = random.Random(1)
    delays = [policy.delay(attempt, None, rng) for attempt in range(1, 9)]
    for attempt, delay in enumerate(delays, start=1):
        exponential = min(4.0, 0.5 * 2 ** (attempt - 1))
        assert exponential / 2 <= delay <= exponential
    assert policy.delay(1, 3.0, rng) == 3.0  # never earlier than the server asked
    assert policy.delay(1, 60.0, rng) == 4.0  # never longer than the cap
    assert policy.retryable("PATCH", 429, None)
    assert not policy.retryable("PATCH", 503, 1.0)
    assert policy.retryable("GET", 503, 1.0)
    assert not policy.retryable("GET", 503, None)


def test_retry_after_header_and_deadline_and_cancel() -> None:
    assert retry_after_seconds({"Retry-After": "2"}) == 2.0
    assert retry_after_seconds({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert retry_after_seconds({}) is None
    assert Deadline(None).bound(5.0) == 5.0 and not Deadline(None).expired()
    deadline = Deadline(10.0)
    bounded = deadline.bound(30.0)
    assert bounded is not None and bounded <= 10.0
    assert Deadline(0.0).expired() and not Deadline(0.0).allows(0.1)
    token = CancelToken()
    token.cancel("first")
    token.cancel("second")
    assert token.cancelled and token.reason == "first" and not token.sleep(5.0)


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        # RBAC: the user and the verb, as kubectl's own one-line Forbidden.
        (
            'pods is forbidden: User "alice" cannot list resource "pods" in API group "" at the cluster scope',
            "Forbidden: user 'alice' cannot list",
        ),
        # An admission webhook's denial is not a permission problem: its message is the answer.
        (
            'admission webhook "vjobset.kb.io" denied the request: spec.replicatedJobs: Invalid value: '
            '"object": field is immutable',
            'admission webhook "vjobset.kb.io" denied the request: spec.replicatedJobs',
        ),
    ],
)
def test_a_403_says_whether_rbac_or_admission_refused(tmp_path: Path, message: str, shown: str) -> None:
    def answer(n: int) -> tuple[int, dict[str, str], dict[str, object]]:
        return 403, {}, {"kind": "Status", "reason": "Forbidden", "message": message, "code": 403}

    with FaultServer(answer) as server:
        conn = _connection(tmp_path, server.url)
        with pytest.raises(ClusterError) as info:
            list_all(conn, PODS, None)
    assert info.value.status == 403 and info.value.reason == "Forbidden"
    assert shown in info.value.message
    if "webhook" in message:
        assert "field is immutable" in info.value.message and "cannot" not in info.value.message
