"""Authentication and authorisation against the genuine API server.

Tested: static bearer token, client certificates (signed by the cluster CA), an exec credential
plugin (a script printing an ExecCredential, token and client-certificate forms), an expired exec
credential, a failing plugin, a rejected token, --context/--cluster/--user overrides, and a user
whose RBAC forbids one kind (one warning, the rest still listed).
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from live_data import admin, create_namespace, deployment_scenario, ensure_crds, eventually, jobset_scenario
from tests.cluster.apiserver import TestCluster

from workload_map.sources.kube import ClusterError, ConnectionOptions, LiveOptions, connect, live_source

pytestmark = pytest.mark.live


def _client_cert(cluster: TestCluster, directory: Path, user: str, groups: list[str]) -> tuple[Path, Path]:
    pki = cluster.workdir / "pki"
    ca_cert = x509.load_pem_x509_certificate((pki / "ca.crt").read_bytes())
    ca_key: Any = serialization.load_pem_private_key((pki / "ca.key").read_bytes(), None)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, user),
            *(x509.NameAttribute(NameOID.ORGANIZATION_NAME, g) for g in groups),
        ]
    )
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    cert_path, key_path = directory / f"{user}.crt", directory / f"{user}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    key_path.chmod(0o600)
    return cert_path, key_path


def _kubeconfig(
    cluster: TestCluster, path: Path, users: dict[str, dict[str, Any]], current_user: str, **extra: Any
) -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "wmap-test", "cluster": {"server": cluster.server, "certificate-authority": str(cluster.ca_path)}},
            {
                "name": "nowhere",
                "cluster": {"server": "https://127.0.0.1:1", "certificate-authority": str(cluster.ca_path)},
            },
        ],
        "users": [{"name": name, "user": user} for name, user in users.items()],
        "contexts": [
            {"name": "main", "context": {"cluster": "wmap-test", "user": current_user, **extra}},
            {"name": "broken", "context": {"cluster": "nowhere", "user": current_user}},
        ],
        "current-context": "main",
    }
    path.write_text(json.dumps(config))
    return path


@pytest.fixture(scope="module")
def objects(test_cluster: TestCluster) -> dict[str, str]:
    ensure_crds(test_cluster, "jobsets.jobset.x-k8s.io")
    conn = admin(test_cluster)
    ns = create_namespace(conn, f"auth-{secrets.token_hex(3)}")
    jobset_scenario(conn, ns, running=False)
    deployment_scenario(conn, ns, replicas=2)
    conn.close()
    return {"ns": ns}


def _count_workloads(options: LiveOptions) -> tuple[int, list[str]]:
    source = live_source(options)
    try:
        return len(source.index().workloads(None, None)), source.warnings
    finally:
        source.connection.close()


def test_token(test_cluster: TestCluster, objects: dict[str, str]) -> None:
    count, _ = _count_workloads(LiveOptions(kubeconfig=str(test_cluster.kubeconfig_path), namespace=objects["ns"]))
    assert count == 2  # the JobSet and the Deployment


def test_client_certificate(test_cluster: TestCluster, objects: dict[str, str], tmp_path: Path) -> None:
    cert, key = _client_cert(test_cluster, tmp_path, "cert-admin", ["system:masters"])
    kubeconfig = _kubeconfig(
        test_cluster,
        tmp_path / "cert.kubeconfig",
        {"cert": {"client-certificate": str(cert), "client-key": str(key)}},
        "cert",
    )
    count, _ = _count_workloads(LiveOptions(kubeconfig=str(kubeconfig), namespace=objects["ns"]))
    assert count == 2


def _plugin(tmp_path: Path, status: dict[str, Any], *, exit_code: int = 0) -> Path:
    script = tmp_path / f"plugin-{secrets.token_hex(3)}.py"
    credential = {"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": status}
    script.write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        + (f"sys.stderr.write('login required\\n'); sys.exit({exit_code})\n" if exit_code else "")
        + f"print(json.dumps({credential!r}))\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def _exec_user(script: Path) -> dict[str, Any]:
    return {
        "exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(script), "interactiveMode": "Never"}
    }


def test_exec_plugin_token(test_cluster: TestCluster, objects: dict[str, str], tmp_path: Path) -> None:
    later = (dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    script = _plugin(tmp_path, {"token": test_cluster.admin_token, "expirationTimestamp": later})
    kubeconfig = _kubeconfig(test_cluster, tmp_path / "exec.kubeconfig", {"exec": _exec_user(script)}, "exec")
    count, _ = _count_workloads(LiveOptions(kubeconfig=str(kubeconfig), namespace=objects["ns"]))
    assert count == 2


def test_exec_plugin_client_certificate(test_cluster: TestCluster, objects: dict[str, str], tmp_path: Path) -> None:
    cert, key = _client_cert(test_cluster, tmp_path, "exec-cert", ["system:masters"])
    script = _plugin(tmp_path, {"clientCertificateData": cert.read_text(), "clientKeyData": key.read_text()})
    kubeconfig = _kubeconfig(test_cluster, tmp_path / "exec-cert.kubeconfig", {"exec": _exec_user(script)}, "exec")
    count, _ = _count_workloads(LiveOptions(kubeconfig=str(kubeconfig), namespace=objects["ns"]))
    assert count == 2


def test_exec_plugin_expired_credential(test_cluster: TestCluster, tmp_path: Path) -> None:
    script = _plugin(tmp_path, {"token": test_cluster.admin_token, "expirationTimestamp": "2020-01-01T00:00:00Z"})
    kubeconfig = _kubeconfig(test_cluster, tmp_path / "expired.kubeconfig", {"exec": _exec_user(script)}, "exec")
    with pytest.raises(ClusterError) as info:
        connect(ConnectionOptions(kubeconfig=str(kubeconfig)))
    assert str(info.value).startswith("Unauthorized: the token was rejected"), str(info.value)
    assert "expired" in str(info.value)


def test_exec_plugin_failure(test_cluster: TestCluster, tmp_path: Path) -> None:
    script = _plugin(tmp_path, {}, exit_code=3)
    kubeconfig = _kubeconfig(test_cluster, tmp_path / "failing.kubeconfig", {"exec": _exec_user(script)}, "exec")
    with pytest.raises(ClusterError) as info:
        connect(ConnectionOptions(kubeconfig=str(kubeconfig)))
    assert str(info.value).startswith(f"exec credential plugin failed ({script})"), str(info.value)
    assert "\n" not in info.value.message


def test_rejected_token(test_cluster: TestCluster, tmp_path: Path) -> None:
    kubeconfig = test_cluster.kubeconfig_for("not-a-valid-token", tmp_path / "bad.kubeconfig")
    with pytest.raises(ClusterError) as info:
        live_source(LiveOptions(kubeconfig=str(kubeconfig), all_namespaces=True))
    assert info.value.status == 401
    assert info.value.message.startswith("Unauthorized: the token was rejected"), info.value.message
    assert "\n" not in info.value.message


def test_context_cluster_and_user_overrides(test_cluster: TestCluster, objects: dict[str, str], tmp_path: Path) -> None:
    kubeconfig = _kubeconfig(
        test_cluster,
        tmp_path / "multi.kubeconfig",
        {"good": {"token": test_cluster.admin_token}, "bad": {"token": "nope"}},
        "bad",
        namespace=objects["ns"],
    )
    # The current context's user is rejected; --user picks the good one, namespace still from the context.
    with pytest.raises(ClusterError):
        _count_workloads(LiveOptions(kubeconfig=str(kubeconfig)))
    count, _ = _count_workloads(LiveOptions(kubeconfig=str(kubeconfig), user="good"))
    assert count == 2
    # --context broken points at a closed port; --cluster brings it back.
    with pytest.raises(ClusterError) as info:
        _count_workloads(LiveOptions(kubeconfig=str(kubeconfig), context="broken", user="good"))
    assert info.value.message.startswith("cluster unreachable (https://127.0.0.1:1): connection refused"), (
        info.value.message
    )
    count, _ = _count_workloads(
        LiveOptions(
            kubeconfig=str(kubeconfig), context="broken", cluster="wmap-test", user="good", namespace=objects["ns"]
        )
    )
    assert count == 2
    with pytest.raises(ClusterError, match="context 'missing' not found"):
        connect(ConnectionOptions(kubeconfig=str(kubeconfig), context="missing"))


def test_proxy_url_is_honoured(test_cluster: TestCluster, tmp_path: Path) -> None:
    config = json.loads(test_cluster.kubeconfig_path.read_text())
    config["clusters"][0]["cluster"]["proxy-url"] = "http://127.0.0.1:3128"
    path = tmp_path / "proxy.kubeconfig"
    path.write_text(json.dumps(config))
    conn = connect(ConnectionOptions(kubeconfig=str(path)))
    try:
        assert conn.api_client.configuration.proxy == "http://127.0.0.1:3128"
        assert type(conn.api_client.rest_client.pool_manager).__name__ == "ProxyManager"
    finally:
        conn.close()


def test_rbac_forbidden_kind_is_one_warning(test_cluster: TestCluster, objects: dict[str, str], tmp_path: Path) -> None:
    """A user who may list everything the workloads need except JobSets."""
    user = f"limited-{secrets.token_hex(3)}"
    rules = json.dumps(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": user},
            "rules": [
                {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
                {
                    "apiGroups": ["apps", "batch", "leaderworkerset.x-k8s.io", "run.ai"],
                    "resources": ["*"],
                    "verbs": ["get", "list", "watch"],
                },
            ],
        }
    )
    assert test_cluster.kubectl("create", "-f", "-", input=rules).returncode == 0
    assert (
        test_cluster.kubectl("create", "clusterrolebinding", user, f"--clusterrole={user}", f"--user={user}").returncode
        == 0
    )
    cert, key = _client_cert(test_cluster, tmp_path, user, [])
    kubeconfig = _kubeconfig(
        test_cluster,
        tmp_path / "limited.kubeconfig",
        {user: {"client-certificate": str(cert), "client-key": str(key)}},
        user,
    )
    options = LiveOptions(kubeconfig=str(kubeconfig), namespace=objects["ns"])
    eventually(lambda: _count_workloads(options)[0] >= 1, what="RBAC grant")
    source = live_source(options)
    view = source.index()
    forbidden = [w for w in view.warnings if "jobsets.jobset.x-k8s.io" in w]
    assert len(forbidden) == 1, view.warnings
    assert f"which user '{user}' may not list: not shown as workloads" in forbidden[0]
    assert f"(fix: grant list on jobsets.jobset.x-k8s.io in namespace {objects['ns']})" in forbidden[0]
    kinds = {w["kind"] for w in view.workloads(None, None)}
    # The Jobs and pods of the JobSet are listed, but their owner lies in the gap: no rows of their own.
    assert "Deployment" in kinds and not kinds & {"JobSet", "Job", "Pod"}
    source.connection.close()
