"""API faults against the genuine apiserver: throttling by API Priority and Fairness, a frozen server.

The test apiserver runs with Priority and Fairness on. A PriorityLevelConfiguration with no seats of its
own (nominalConcurrencyShares 0, nothing borrowed, Reject) and a FlowSchema sending user
``wmap-throttled`` to it make every request of that user a genuine 429 with Retry-After. SIGSTOP
freezes the apiserver: its port still accepts connections, nothing answers. Deadlines come from
flags (short), so no test waits long.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_data import admin, create_namespace, deployment_scenario, eventually
from tests.cluster.apiserver import TestCluster

pytestmark = pytest.mark.live

WMAP = Path(sys.executable).parent / "wmap"
USER = "wmap-throttled"
FLOWCONTROL = "/apis/flowcontrol.apiserver.k8s.io/v1"
LEVEL = "wmap-test-throttle"


def wmap(kubeconfig: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WMAP_DEBUG_REQUESTS": "1"}
    return subprocess.run(
        [str(WMAP), *args, "--kubeconfig", str(kubeconfig)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,  # a safety net only: every command here has its own short deadline
        check=False,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def namespace(test_cluster: TestCluster) -> Iterator[str]:
    conn = admin(test_cluster)
    ns = create_namespace(conn, "faults")
    deployment_scenario(conn, ns, name="api", replicas=2)
    conn.close()
    yield ns


def _throttle(test_cluster: TestCluster) -> None:
    conn = admin(test_cluster)
    try:
        conn.request(
            "POST",
            f"{FLOWCONTROL}/prioritylevelconfigurations",
            body={
                "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
                "kind": "PriorityLevelConfiguration",
                "metadata": {"name": LEVEL},
                "spec": {
                    "type": "Limited",
                    "limited": {
                        "nominalConcurrencyShares": 0,
                        "lendablePercent": 0,
                        "borrowingLimitPercent": 0,
                        "limitResponse": {"type": "Reject"},
                    },
                },
            },
        )
        conn.request(
            "POST",
            f"{FLOWCONTROL}/flowschemas",
            body={
                "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
                "kind": "FlowSchema",
                "metadata": {"name": LEVEL},
                "spec": {
                    "priorityLevelConfiguration": {"name": LEVEL},
                    "matchingPrecedence": 50,
                    "distinguisherMethod": {"type": "ByUser"},
                    "rules": [
                        {
                            "subjects": [{"kind": "User", "user": {"name": USER}}],
                            "resourceRules": [
                                {
                                    "verbs": ["*"],
                                    "apiGroups": ["*"],
                                    "resources": ["*"],
                                    "namespaces": ["*"],
                                    "clusterScope": True,
                                }
                            ],
                            "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
                        }
                    ],
                },
            },
        )
    finally:
        conn.close()


@contextlib.contextmanager
def _seats_held(test_cluster: TestCluster, namespace: str, count: int = 4) -> Iterator[None]:
    """The user's priority level has no seats of its own (the apiserver still gives it one): hold them with
    POSTs whose body never finishes (a request keeps its seat while its body is read), so every other
    request of that user is rejected with 429 until the block ends."""
    token = test_cluster.token_for(USER)
    host, port = "127.0.0.1", test_cluster.apiserver_port
    sockets = []
    try:
        for _ in range(count):
            raw = socket.create_connection((host, port), timeout=10)
            tls = test_cluster.ssl_context().wrap_socket(raw, server_hostname=host)
            head = (
                f"POST /api/v1/namespaces/{namespace}/configmaps HTTP/1.1\r\nHost: {host}:{port}\r\n"
                f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{{"
            )
            tls.sendall(head.encode())
            sockets.append(tls)
        eventually(lambda: test_cluster.get("/api", token=token)[0] == 429, what="429 for the throttled user")
        yield
    finally:
        for tls in sockets:
            with contextlib.suppress(OSError):
                tls.close()


def _unthrottle(test_cluster: TestCluster) -> None:
    conn = admin(test_cluster)
    try:
        for plural in ("flowschemas", "prioritylevelconfigurations"):
            try:
                conn.request("DELETE", f"{FLOWCONTROL}/{plural}/{LEVEL}")
            except Exception as exc:  # already gone
                if getattr(exc, "status", 0) != 404:
                    raise
    finally:
        conn.close()


@pytest.fixture(scope="module")
def throttled(test_cluster: TestCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A kubeconfig of a user who may read everything (cluster-admin, not system:masters)."""
    test_cluster.kubectl(
        "create", "clusterrolebinding", "wmap-throttled-admin", "--clusterrole=cluster-admin", f"--user={USER}"
    )
    path = tmp_path_factory.mktemp("throttled") / "kubeconfig"
    test_cluster.kubeconfig_for(test_cluster.token_for(USER), path, user=USER)
    _throttle(test_cluster)
    try:
        yield path
    finally:
        _unthrottle(test_cluster)
        test_cluster.kubectl("delete", "clusterrolebinding", "wmap-throttled-admin", "--ignore-not-found")


def _retried(stderr: str) -> int:
    for line in stderr.splitlines():
        if line.startswith("Requests: ") and "retried " in line:
            return int(line.rsplit("retried ", 1)[1].strip())
    return 0


def test_throttled_forever_ends_at_the_deadline(test_cluster: TestCluster, throttled: Path, namespace: str) -> None:
    with _seats_held(test_cluster, namespace):
        proc = wmap(throttled, "get", "-n", namespace, "--timeout", "3s")
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert proc.returncode == 1, proc.stderr
    # API Priority and Fairness chooses the Retry-After it sends (1 s, 2 s... as its queues fill)
    assert len(errors) == 1 and "--timeout" in errors[0], proc.stderr
    assert re.search(r"429 \(Retry-After \d+s\)", errors[0]), proc.stderr


def test_throttling_is_waited_out(test_cluster: TestCluster, throttled: Path, namespace: str) -> None:
    """Throttled when the command starts, released while it retries: the same rows as without throttling."""
    expected = wmap(throttled, "get", "-n", namespace)
    assert expected.returncode == 0, expected.stderr
    holding = _seats_held(test_cluster, namespace)
    holding.__enter__()
    baseline = _rejected(test_cluster)

    def release_after_a_rejection() -> None:  # the apiserver's own count: wmap got at least one 429
        try:
            eventually(lambda: _rejected(test_cluster) > baseline, timeout=60, what="a rejected request")
        finally:
            holding.__exit__(None, None, None)

    release = threading.Thread(target=release_after_a_rejection)
    release.start()
    try:
        proc = wmap(throttled, "get", "-n", namespace, "--timeout", "60s")
    finally:
        release.join()
    assert proc.returncode == 0, proc.stderr
    assert _rows(proc.stdout) == _rows(expected.stdout)
    assert _retried(proc.stderr) >= 1, proc.stderr
    assert _warnings(proc.stderr) == _warnings(expected.stderr)  # nothing more to say than unthrottled


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(("error:", "Warning:"))]


def _rejected(test_cluster: TestCluster) -> float:
    """Requests API Priority and Fairness rejected at the test priority level (the apiserver's metric)."""
    status, body = test_cluster.get("/metrics")
    assert status == 200
    total = 0.0
    for line in body.decode().splitlines():
        if line.startswith("apiserver_flowcontrol_rejected_requests_total{") and f'priority_level="{LEVEL}"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def _rows(table: str) -> list[list[str]]:
    return [line.split()[:-1] for line in table.splitlines() if line.strip()]  # AGE may tick


def test_frozen_apiserver_ends_at_the_request_timeout(test_cluster: TestCluster, namespace: str) -> None:
    kubeconfig = test_cluster.kubeconfig_path
    with test_cluster.frozen_apiserver():
        proc = wmap(kubeconfig, "get", "-A", "--request-timeout", "1s")
        deadline = wmap(kubeconfig, "get", "-A", "--request-timeout", "0", "--timeout", "2s")
    assert proc.returncode == 1, proc.stderr
    errors: list[Any] = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "timed out after 1s (--request-timeout)" in errors[0], proc.stderr
    assert deadline.returncode == 1, deadline.stderr
    assert "within 2s (--timeout)" in deadline.stderr, deadline.stderr
    assert wmap(kubeconfig, "get", "-n", namespace).returncode == 0  # thawed: the server answers again
