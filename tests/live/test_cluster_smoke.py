"""Smoke test of the live test cluster: CRDs, custom objects, pods, RBAC, paging.

Proves the harness gives a genuine API server: what passes here behaves the
same against a real cluster (no controllers run, so nothing reconciles).
"""

from __future__ import annotations

import copy
import json
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest
import yaml
from kubernetes import client as k8s, config as k8s_config
from kubernetes.client.exceptions import ApiException
from tests.cluster.apiserver import TestCluster
from tests.live.live_data import eventually

pytestmark = pytest.mark.live

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS = REPO_ROOT.parent / "shared" / "corpus"
JOBSET_CRD_DIR = CORPUS / "jobset" / "crd"
JOBSET_EXAMPLE = CORPUS / "jobset" / "examples" / "paralleljobs.yaml"

GROUP, VERSION, PLURAL = "jobset.x-k8s.io", "v1alpha2", "jobsets"
CRD_NAME = f"{PLURAL}.{GROUP}"

T = TypeVar("T")


def _eventually(fn: Callable[[], T], *, timeout: float = 20.0, what: str = "condition") -> T:
    """``live_data.eventually`` with the official client's errors counted as "not yet"."""
    result: T = eventually(fn, timeout=timeout, what=what, retry_on=(AssertionError, ApiException))
    return result


def _client(kubeconfig: Path) -> k8s.ApiClient:
    api = k8s_config.new_client_from_config(config_file=str(kubeconfig))  # type: ignore[no-untyped-call,unused-ignore]
    return cast(k8s.ApiClient, api)


def _close(api: k8s.ApiClient) -> None:
    api.close()  # type: ignore[no-untyped-call,unused-ignore]


def _list_jobsets(api: k8s.ApiClient, namespace: str, **kwargs: Any) -> dict[str, Any]:
    return cast(
        "dict[str, Any]",
        k8s.CustomObjectsApi(api).list_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, **kwargs),
    )


def _ok(proc: Any) -> Any:
    assert proc.returncode == 0, f"kubectl failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def jobset_crd(test_cluster: TestCluster) -> str:
    crd_files = sorted(JOBSET_CRD_DIR.glob("*.yaml"))
    if not crd_files:
        msg = f"JobSet CRD not found under {JOBSET_CRD_DIR}"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    for f in crd_files:
        # `create`, not client-side `apply`: the CRD is larger than the
        # last-applied-configuration annotation limit.
        proc = test_cluster.kubectl("create", "-f", str(f))
        assert proc.returncode == 0 or "AlreadyExists" in proc.stderr, proc.stderr

    # Polled rather than `kubectl wait`, which errors out (instead of waiting)
    # while the new CRD has no .status.conditions yet.
    def established() -> bool:
        proc = test_cluster.kubectl(
            "get", f"crd/{CRD_NAME}", "-o", 'jsonpath={.status.conditions[?(@.type=="Established")].status}'
        )
        return proc.stdout.strip() == "True"

    _eventually(established, timeout=60, what=f"{CRD_NAME} to be Established")
    return CRD_NAME


@pytest.fixture(scope="module")
def namespace(test_cluster: TestCluster) -> Iterator[str]:
    ns = f"smoke-{secrets.token_hex(3)}"
    _ok(test_cluster.kubectl("create", "namespace", ns))
    yield ns
    # No namespace controller runs, so the namespace would stay Terminating;
    # leave it, the cluster is throw-away.


@pytest.fixture(scope="module")
def api_client(test_cluster: TestCluster) -> Iterator[k8s.ApiClient]:
    api = _client(test_cluster.kubeconfig_path)
    yield api
    _close(api)


@pytest.fixture(scope="module")
def jobsets(test_cluster: TestCluster, jobset_crd: str, namespace: str, api_client: k8s.ApiClient) -> list[str]:
    """paralleljobs from the corpus (via kubectl) plus four renamed copies (via the client)."""

    def create_example() -> bool:
        _ok(test_cluster.kubectl("create", "-n", namespace, "-f", str(JOBSET_EXAMPLE)))
        return True

    # The CRD's REST endpoint can lag "Established" by a moment.
    _eventually(create_example, timeout=20, what="JobSet creation")
    base = yaml.safe_load(JOBSET_EXAMPLE.read_text())
    names = [base["metadata"]["name"]]
    custom = k8s.CustomObjectsApi(api_client)
    for i in range(4):
        obj = copy.deepcopy(base)
        obj["metadata"]["name"] = f"{base['metadata']['name']}-{i}"
        custom.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, obj)
        names.append(obj["metadata"]["name"])
    return names


def test_jobset_listed_by_kubectl_and_client(
    test_cluster: TestCluster, namespace: str, jobsets: list[str], api_client: k8s.ApiClient
) -> None:
    out = _ok(test_cluster.kubectl("get", "jobsets", "-n", namespace, "-o", "json")).stdout
    listed = json.loads(out)["items"]
    assert sorted(o["metadata"]["name"] for o in listed) == sorted(jobsets)
    parallel = next(o for o in listed if o["metadata"]["name"] == "paralleljobs")
    assert [r["name"] for r in parallel["spec"]["replicatedJobs"]] == ["workers", "driver"]
    # Structural schema defaulting ran: the API server is the real thing.
    assert parallel["apiVersion"] == f"{GROUP}/{VERSION}"

    got = _list_jobsets(api_client, namespace)
    assert sorted(o["metadata"]["name"] for o in got["items"]) == sorted(jobsets)


def test_pods_created_directly(test_cluster: TestCluster, namespace: str, api_client: k8s.ApiClient) -> None:
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "bound-pod", "labels": {"app": "smoke"}},
        "spec": {"nodeName": "node-a", "containers": [{"name": "c", "image": "busybox"}]},
    }
    _ok(test_cluster.kubectl("create", "-n", namespace, "-f", "-", input=json.dumps(pod)))
    unbound = copy.deepcopy(pod)
    unbound["metadata"]["name"] = "pending-pod"
    del unbound["spec"]["nodeName"]
    core = k8s.CoreV1Api(api_client)
    core.create_namespaced_pod(namespace, cast(Any, unbound))  # a dict body is accepted

    out = _ok(test_cluster.kubectl("get", "pods", "-n", namespace, "-o", "name")).stdout
    assert sorted(out.split()) == ["pod/bound-pod", "pod/pending-pod"]
    pods = core.list_namespaced_pod(namespace, label_selector="app=smoke").items
    by_name = {p.metadata.name: p for p in pods if p.metadata}
    assert set(by_name) == {"bound-pod", "pending-pod"}
    bound, pending = by_name["bound-pod"], by_name["pending-pod"]
    assert bound.spec and bound.spec.node_name == "node-a"
    assert pending.spec and pending.spec.node_name is None
    assert pending.status and pending.status.phase == "Pending"


def test_rbac_restricts_user(test_cluster: TestCluster, namespace: str, jobsets: list[str]) -> None:
    restricted = test_cluster.restricted_kubeconfig_path
    user = test_cluster.restricted_user

    denied = test_cluster.kubectl("get", "jobsets", "-n", namespace, kubeconfig=restricted)
    assert denied.returncode != 0
    assert "forbidden" in denied.stderr.lower(), denied.stderr
    denied_pods = test_cluster.kubectl("get", "pods", "-n", namespace, kubeconfig=restricted)
    assert "forbidden" in denied_pods.stderr.lower(), denied_pods.stderr

    _ok(
        test_cluster.kubectl(
            "create",
            "role",
            "pod-reader",
            "-n",
            namespace,
            "--verb=get,list,watch",
            "--resource=pods",
        )
    )
    _ok(
        test_cluster.kubectl(
            "create",
            "rolebinding",
            "pod-reader",
            "-n",
            namespace,
            "--role=pod-reader",
            f"--user={user}",
        )
    )

    def pods_allowed() -> bool:
        return test_cluster.kubectl("get", "pods", "-n", namespace, kubeconfig=restricted).returncode == 0

    _eventually(pods_allowed, timeout=20, what="RBAC grant to propagate")

    # Same answers through the Python client with the restricted identity.
    api = _client(restricted)
    try:
        k8s.CoreV1Api(api).list_namespaced_pod(namespace)
        with pytest.raises(ApiException) as info:
            _list_jobsets(api, namespace)
        assert info.value.status == 403
        with pytest.raises(ApiException) as info:
            k8s.CoreV1Api(api).list_namespaced_pod("default")
        assert info.value.status == 403
    finally:
        _close(api)

    can_i = test_cluster.kubectl("auth", "can-i", "list", f"{PLURAL}.{GROUP}", "-n", namespace, kubeconfig=restricted)
    assert can_i.stdout.strip() == "no"


def test_paging_with_limit_and_continue(
    test_cluster: TestCluster, namespace: str, jobsets: list[str], api_client: k8s.ApiClient
) -> None:
    pages: list[list[str]] = []
    token: str | None = None
    while True:
        kwargs: dict[str, Any] = {"limit": 2}
        if token:
            kwargs["_continue"] = token
        page = _list_jobsets(api_client, namespace, **kwargs)
        pages.append([o["metadata"]["name"] for o in page["items"]])
        token = page["metadata"].get("continue")
        if not token:
            break
        assert page["metadata"].get("remainingItemCount", 1) > 0
    assert [len(p) for p in pages] == [2, 2, 1]
    assert sorted(n for p in pages for n in p) == sorted(jobsets)

    # kubectl pages too (--chunk-size): it follows the continue token itself.
    proc = _ok(test_cluster.kubectl("get", "jobsets", "-n", namespace, "--chunk-size=2", "-o", "name", "-v=6"))
    assert len(proc.stdout.split()) == len(jobsets)
    assert "continue=" in proc.stderr


def test_apiserver_restart_mid_list(
    test_cluster: TestCluster, namespace: str, jobsets: list[str], api_client: k8s.ApiClient
) -> None:
    """Runs last in this module: stop the server between two pages, restart, resume.

    The continue token stays valid across a restart (same etcd data, same port).
    """
    server = test_cluster.server
    first = _list_jobsets(api_client, namespace, limit=2)
    token = first["metadata"]["continue"]

    test_cluster.stop_apiserver()
    assert not test_cluster.apiserver_running
    down = test_cluster.kubectl("get", "jobsets", "-n", namespace, "--request-timeout=5s")
    assert down.returncode != 0

    test_cluster.start_apiserver()
    assert test_cluster.server == server
    names = [o["metadata"]["name"] for o in first["items"]]
    while token:
        page = _list_jobsets(api_client, namespace, limit=2, _continue=token)
        names += [o["metadata"]["name"] for o in page["items"]]
        token = page["metadata"].get("continue")
    assert sorted(names) == sorted(jobsets)
    out = _ok(test_cluster.kubectl("get", "jobsets", "-n", namespace, "-o", "name")).stdout
    assert len(out.split()) == len(jobsets)
