"""Helpers shared by the operator tests (unit and live)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from tests.live.live_data import eventually as poll


def webhook_configurations(
    base_url: str, name: str = "workload-map", failure_policy: str = "Fail"
) -> list[dict[str, Any]]:
    """Validating + mutating webhook configurations for Kartas, reaching the operator by URL."""
    rules = [
        {
            "apiGroups": ["run.ai"],
            "apiVersions": ["v1alpha1"],
            "resources": ["kartas"],
            "operations": ["CREATE", "UPDATE"],
            "scope": "Cluster",
        }
    ]
    common = {
        "admissionReviewVersions": ["v1"],
        "sideEffects": "None",
        "failurePolicy": failure_policy,
        "timeoutSeconds": 10,
        "rules": rules,
    }
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingWebhookConfiguration",
            "metadata": {"name": name},
            "webhooks": [
                {
                    "name": "mutate.kartas.run.ai",
                    "clientConfig": {"url": f"{base_url}/mutate-karta"},
                    "reinvocationPolicy": "Never",
                    **common,
                }
            ],
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": name},
            "webhooks": [
                {"name": "validate.kartas.run.ai", "clientConfig": {"url": f"{base_url}/validate-karta"}, **common}
            ],
        },
    ]


def pod_webhook_configuration(base_url: str, name: str, namespace_label: str) -> dict[str, Any]:
    """The gang controller's pod webhook: new pods of opted-in namespaces, failurePolicy Ignore."""
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": name},
        "webhooks": [
            {
                "name": "mutate.pods.workload-map.run.ai",
                "clientConfig": {"url": f"{base_url}/mutate-pod"},
                "admissionReviewVersions": ["v1"],
                "sideEffects": "None",
                "failurePolicy": "Ignore",
                "timeoutSeconds": 10,
                "reinvocationPolicy": "Never",
                "namespaceSelector": {"matchExpressions": [{"key": namespace_label, "operator": "Exists"}]},
                "rules": [
                    {
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "resources": ["pods"],
                        "operations": ["CREATE"],
                        "scope": "Namespaced",
                    }
                ],
            }
        ],
    }


REPO_ROOT = Path(__file__).resolve().parents[2]
CRD_FILE = REPO_ROOT / "deploy" / "crd" / "kartas.run.ai.yaml"
CHART_DIR = REPO_ROOT / "charts" / "workload-map"
HELM_BUILD = REPO_ROOT / "tools" / "helm" / "build.sh"

T = TypeVar("T")


def eventually(fn: Callable[[], T], *, timeout: float = 30.0, what: str = "condition", interval: float = 0.2) -> T:
    """``live_data.eventually`` retrying on any error (the operator's own calls raise many kinds)."""

    result: T = poll(fn, timeout=timeout, what=what, retry_on=(Exception,), interval=interval)
    return result


def outside_cluster_env() -> dict[str, str]:
    """The environment of a process on a laptop: no kubeconfig variable, no pod (even if the tests run in one)."""
    env = dict(os.environ)
    for name in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "POD_NAMESPACE", "POD_NAME"):
        env.pop(name, None)
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class OperatorProcess:
    """``python -m workload_map.operator`` as a subprocess against a test cluster kubeconfig."""

    def __init__(
        self,
        kubeconfig: Path,
        namespace: str,
        log_path: Path,
        *,
        webhook_port: int,
        health_port: int,
        identity: str = "test-operator",
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.kubeconfig, self.namespace, self.log_path = kubeconfig, namespace, log_path
        self.webhook_port, self.health_port, self.identity = webhook_port, health_port, identity
        self.extra_args = extra_args
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = outside_cluster_env()
        argv = [
            sys.executable,
            "-m",
            "workload_map.operator",
            "--kubeconfig",
            str(self.kubeconfig),
            "--namespace",
            self.namespace,
            "--identity",
            self.identity,
            "--lease-seconds",
            "4",
            "--webhooks",  # the test API server reaches them by URL; outside a pod they are off by default
            "--webhook-host",
            "127.0.0.1",
            "--webhook-port",
            str(self.webhook_port),
            "--extra-host",
            "127.0.0.1",
            "--health-host",
            "127.0.0.1",
            "--health-port",
            str(self.health_port),
            "--resync-seconds",
            "30",
            *self.extra_args,
        ]
        self.log = open(self.log_path, "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, env=env)

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.health_port}/readyz", timeout=2) as r:
                return r.status == 200 and b"leader" in r.read()
        except Exception:
            return False

    def stop(self, *, kill: bool = False) -> None:
        if self.proc is None:
            return
        if kill:
            self.proc.kill()
        else:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        finally:
            self.proc = None
            self.log.close()

    def log_lines(self) -> list[dict[str, object]]:
        out = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
        return out


def helm_binary() -> Path | None:
    env = os.environ.get("WMAP_HELM")
    if env:
        return Path(env)
    if not HELM_BUILD.is_file():
        return None
    proc = subprocess.run(["bash", str(HELM_BUILD)], capture_output=True, text=True, timeout=1800, check=False)
    if proc.returncode != 0 or not proc.stdout.strip():
        return None
    return Path(proc.stdout.strip().splitlines()[-1]) / "helm"


def helm_template(*args: str, namespace: str = "workload-map") -> str:
    helm = helm_binary()
    if helm is None:
        pytest.skip("helm unavailable (tools/helm/build.sh failed)")
    proc = subprocess.run(
        [str(helm), "template", "wm", str(CHART_DIR), "-n", namespace, "--kube-version", "1.37.2", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
