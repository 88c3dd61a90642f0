"""The operator as a user runs it on a laptop: ``wmap-operator --kubeconfig FILE``, outside any cluster.

Each test module here gets a fresh API server of its own (not the session's): no namespace ``workload-map``,
no webhook configurations, no Lease or Secret left by another module, exactly what a new dev cluster offers.
The operator runs as a real process; nothing is mocked.
"""

from __future__ import annotations

import json
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.cluster.apiserver import TestCluster
from tests.operator.support import CRD_FILE, eventually, free_port, outside_cluster_env

from workload_map.api import catalog_install as catalog_sync
from workload_map.catalog import builtin_definitions
from workload_map.operator import certs
from workload_map.operator.kube import operator_connection
from workload_map.sources.kube.connection import ClusterError, Connection

pytestmark = pytest.mark.live

KARTAS = "/apis/run.ai/v1alpha1/kartas"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
CONDITIONS = ("Validated", "CRDExists", "Ready")
ERROR_TIMEOUT = 90.0  # generous: a startup error must come long before this on any machine


@pytest.fixture(scope="module")
def fresh(testcluster_bin_dir: Path) -> Iterator[TestCluster]:
    cluster = TestCluster(testcluster_bin_dir)
    try:
        cluster.start()
    except Exception as exc:
        pytest.fail(f"fresh test cluster failed to start: {exc}", pytrace=False)
    try:
        proc = cluster.kubectl("apply", "--server-side", "-f", str(CRD_FILE))
        assert proc.returncode == 0, proc.stderr
        eventually(lambda: cluster.kubectl("get", "krt").returncode == 0, timeout=60, what="krt served")
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def conn(fresh: TestCluster) -> Iterator[Connection]:
    c = operator_connection(str(fresh.kubeconfig_path))
    yield c
    c.close()


def _operator_argv(kubeconfig: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "workload_map.operator", "--kubeconfig", str(kubeconfig), *args]


def _run_to_exit(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A process expected to stop by itself (a startup error): its exit code, stdout and stderr."""
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=ERROR_TIMEOUT, env=env or outside_cluster_env(), check=False
    )


def _error_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The plain lines of stderr (the JSON log lines aside): what the user reads."""
    return [line for line in proc.stderr.splitlines() if line and not line.startswith("{")]


def _assert_one_error(proc: subprocess.CompletedProcess[str], *parts: str) -> str:
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = _error_lines(proc)
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1, proc.stderr
    assert set(lines) - set(errors) <= {line for line in lines if line.startswith("hint: ")}, proc.stderr
    for part in parts:
        assert part in errors[0], (part, errors[0])
    return errors[0]


def _lease(conn: Connection, namespace: str, name: str) -> dict[str, Any] | None:
    try:
        lease: dict[str, Any] = conn.request("GET", LEASES.format(ns=namespace) + f"/{name}")
    except ClusterError as exc:
        if exc.status == 404:
            return None
        raise
    return lease


def _reconciled(conn: Connection, names: set[str]) -> bool:
    """Every named Karta carries the three conditions for its current generation."""
    for name in names:
        obj = conn.request("GET", f"{KARTAS}/{name}")
        conditions = {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or []}
        generation = obj["metadata"].get("generation")
        if any(conditions.get(t, {}).get("observedGeneration") != generation for t in CONDITIONS):
            return False
    return True


def _readyz(port: int) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_reconciles_outside_a_cluster_with_only_a_kubeconfig(
    fresh: TestCluster, conn: Connection, tmp_path: Path
) -> None:
    """The README's command on a fresh cluster: the Kartas get their conditions, the Lease sits in the
    context's namespace (``default``), no webhook certificate is made, SIGTERM ends it with exit 0."""
    assert _lease(conn, "default", "workload-map-operator") is None
    with pytest.raises(ClusterError) as missing:
        conn.request("GET", "/api/v1/namespaces/workload-map")
    assert missing.value.status == 404  # the namespace the operator used to insist on
    names = {r.name for r in catalog_sync.install(conn)}
    assert names == {d.name for d in builtin_definitions()}
    health = free_port()
    log_path = tmp_path / "operator.log"
    with log_path.open("wb") as log:
        started = time.monotonic()
        proc = subprocess.Popen(
            _operator_argv(fresh.kubeconfig_path, "--health-host", "127.0.0.1", "--health-port", str(health)),
            stdout=log,
            stderr=subprocess.STDOUT,
            env=outside_cluster_env(),
        )
        try:
            eventually(lambda: _reconciled(conn, names), timeout=120, what=f"Kartas reconciled (log: {log_path})")
            elapsed = time.monotonic() - started
            # The figure the issue asks about ("within seconds of start"), reported, not asserted.
            print(f"operator outside a cluster: {len(names)} Kartas reconciled {elapsed:.1f}s after start")
            lease = _lease(conn, "default", "workload-map-operator")
            assert lease is not None and lease["spec"]["holderIdentity"]
            assert eventually(lambda: _readyz(health) == (200, "leader\n"), timeout=60, what="/readyz leader")
            secrets = conn.request("GET", "/api/v1/namespaces/default/secrets")["items"]
            assert "workload-map-webhook-tls" not in {s["metadata"]["name"] for s in secrets}
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
    assert code == 0, log_path.read_text()[-3000:]
    records = [json.loads(line) for line in log_path.read_text().splitlines() if line.startswith("{")]
    [start] = [r for r in records if r["msg"] == "operator started"]
    assert (start["namespace"], start["webhooks"], start["webhook_port"]) == ("default", False, None)
    lease = _lease(conn, "default", "workload-map-operator")
    assert lease is not None and not lease["spec"].get("holderIdentity")  # released on SIGTERM


@pytest.mark.parametrize("origin", ["--namespace", "$POD_NAMESPACE", "context"])
def test_missing_namespace_is_one_error_line(fresh: TestCluster, conn: Connection, tmp_path: Path, origin: str) -> None:
    """A Lease namespace that does not exist ends the process at once, saying where the name came from."""
    env = outside_cluster_env()
    kubeconfig = fresh.kubeconfig_path
    args = ["--health-port", "0", "--lease-name", "never-created"]
    if origin == "--namespace":
        args += ["--namespace", "workload-map"]
        where = "--namespace"
    elif origin == "$POD_NAMESPACE":
        env["POD_NAMESPACE"] = "workload-map"
        where = "$POD_NAMESPACE"
    else:
        kubeconfig = fresh.kubeconfig_for(fresh.admin_token, tmp_path / "kubeconfig", namespace="workload-map")
        where = "the namespace of kubeconfig context 'wmap-test'"
    proc = _run_to_exit(_operator_argv(kubeconfig, *args), env)
    line = _assert_one_error(proc, "namespace 'workload-map' not found", f"({where}, cluster {fresh.server})")
    assert line.endswith(": the operator keeps its leader-election Lease there"), line
    assert "hint: create it (kubectl create namespace workload-map) or name an existing one with --namespace" in (
        proc.stderr
    )
    assert _lease(conn, "workload-map", "never-created") is None


def test_missing_events_namespace_is_one_error_line(fresh: TestCluster) -> None:
    proc = _run_to_exit(_operator_argv(fresh.kubeconfig_path, "--health-port", "0", "--events-namespace", "nope"))
    _assert_one_error(proc, "namespace 'nope' not found (--events-namespace, cluster ", "the Events about Kartas go")


@pytest.mark.parametrize("flag", ["--health-port", "--webhook-port"])
def test_busy_port_is_one_error_line(fresh: TestCluster, conn: Connection, flag: str) -> None:
    """A port another process holds: exit 1 with the address and the flag to change, nothing written."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        args = ["--lease-name", "busy-port", "--health-host", "127.0.0.1", "--webhook-host", "127.0.0.1"]
        if flag == "--health-port":
            args += ["--health-port", str(port)]
        else:
            args += ["--health-port", "0", "--webhooks", "--webhook-port", str(port)]
        proc = _run_to_exit(_operator_argv(fresh.kubeconfig_path, *args))
    _assert_one_error(proc, f"error: cannot listen on 127.0.0.1:{port} ({flag}): Address already in use")
    assert f"pick a free one with {flag} PORT" in proc.stderr
    assert _lease(conn, "default", "busy-port") is None


def test_unreachable_cluster_and_missing_kubeconfig_are_one_error_line(fresh: TestCluster, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-kubeconfig"
    proc = _run_to_exit(_operator_argv(missing, "--health-port", "0"))
    _assert_one_error(proc, f"cannot read kubeconfig ({missing}): no such file")
    closed = free_port()
    config = json.loads(fresh.kubeconfig_path.read_text())
    config["clusters"][0]["cluster"]["server"] = f"https://127.0.0.1:{closed}"
    unreachable = tmp_path / "unreachable"
    unreachable.write_text(json.dumps(config))
    proc = _run_to_exit(_operator_argv(unreachable, "--health-port", "0", "--request-timeout", "5s"))
    _assert_one_error(proc, f"cluster unreachable (https://127.0.0.1:{closed})")


def test_usage_errors_exit_2(fresh: TestCluster) -> None:
    proc = _run_to_exit(_operator_argv(fresh.kubeconfig_path, "--health-port", "http"))
    assert proc.returncode == 2 and "Invalid value for '--health-port'" in proc.stderr, proc.stderr
    proc = _run_to_exit([sys.executable, "-m", "workload_map.operator", "--no-such-flag"])
    assert proc.returncode == 2 and "No such option '--no-such-flag'" in proc.stderr, proc.stderr


def test_reconciling_does_not_wait_for_the_webhook_certificate(
    fresh: TestCluster, conn: Connection, tmp_path: Path
) -> None:
    """Webhooks on, their certificate missing: the Kartas are reconciled anyway, /readyz says what is
    missing, and the webhooks serve as soon as the certificate files appear."""
    names = {d.name for d in builtin_definitions()}
    catalog_sync.install(conn)
    for name in names:  # no conditions left by an earlier operator: only this one can bring them back
        conn.request(
            "PATCH",
            f"{KARTAS}/{name}/status",
            body={"status": {"conditions": []}},
            content_type="application/merge-patch+json",
        )
    assert not _reconciled(conn, names)
    cert_dir = tmp_path / "tls"
    health, webhook = free_port(), free_port()
    log_path = tmp_path / "operator.log"
    argv = _operator_argv(
        fresh.kubeconfig_path,
        *("--lease-name", "certless", "--identity", "certless"),
        *("--health-host", "127.0.0.1", "--health-port", str(health)),
        *("--webhooks", "--webhook-host", "127.0.0.1", "--webhook-port", str(webhook)),
        *("--cert-mode", "files", "--cert-dir", str(cert_dir)),
    )
    with log_path.open("wb") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=outside_cluster_env())
        try:
            eventually(lambda: _reconciled(conn, names), timeout=120, what=f"Kartas reconciled (log: {log_path})")
            status, body = _readyz(health)
            assert status == 503 and body.startswith("webhook certificate not loaded: "), (status, body)
            assert "tls.crt" in body
            ca, ca_key = certs.generate_ca()
            cert, key = certs.issue_serving(ca, ca_key, ["127.0.0.1"])
            cert_dir.mkdir()
            (cert_dir / "tls.key").write_bytes(key)
            (cert_dir / "tls.crt").write_bytes(cert)
            eventually(lambda: _readyz(health) == (200, "leader\n"), timeout=120, what="/readyz after the cert")
            review = {
                "apiVersion": "admission.k8s.io/v1",
                "kind": "AdmissionReview",
                "request": {"uid": "u-1", "operation": "CREATE", "object": {"kind": "Karta"}},
            }
            assert _post_tls(webhook, "/mutate-karta", review, ca)["response"]["uid"] == "u-1"
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
    assert code == 0, log_path.read_text()[-3000:]


def _post_tls(port: int, path: str, body: dict[str, Any], ca_pem: bytes) -> dict[str, Any]:
    context = ssl.create_default_context(cadata=ca_pem.decode())
    request = urllib.request.Request(
        f"https://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10, context=context) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer
