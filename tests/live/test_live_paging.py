"""Paging (2,000+ pods in pages of 500), an expired continue token (genuine 410 after an etcd
compaction) and an API server that stops in the middle of a paged list."""

from __future__ import annotations

import base64
import json
import secrets
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from live_data import admin, create_many, create_namespace, deployment_scenario, pod
from tests.cluster.apiserver import TestCluster

from workload_map.sources.kube import ClusterError, ConnectionOptions, LiveOptions, connect, live_source
from workload_map.tree.build import tree_of

pytestmark = pytest.mark.live

PODS = 2100


@pytest.fixture(scope="module")
def big(test_cluster: TestCluster) -> Iterator[dict[str, Any]]:
    conn = admin(test_cluster)
    ns = create_namespace(conn, f"big-{secrets.token_hex(3)}")
    deployment = deployment_scenario(conn, ns, name="fleet", replicas=1)
    rs = conn.get(f"/apis/apps/v1/namespaces/{ns}/replicasets")["items"][0]
    rs.update(apiVersion="apps/v1", kind="ReplicaSet")
    labels = rs["spec"]["selector"]["matchLabels"]
    template = {"spec": {"containers": [{"name": "main", "image": "nginx"}]}}
    jobs = [(pod(f"fleet-x-{i:05d}", ns, template, labels, rs), "pods", ns) for i in range(PODS - 1)]
    create_many(conn, jobs, workers=12)
    conn.close()
    yield {"ns": ns, "deployment": deployment}
    # The session's cluster is shared: later modules (wmap serve's model reads every namespace) must not
    # pay for these 2,100 pods. No kubelet finishes a graceful deletion here, so delete them at once.
    conn = admin(test_cluster)
    conn.request("DELETE", f"/api/v1/namespaces/{ns}/pods", {"gracePeriodSeconds": "0"})
    conn.close()


def test_pods_are_paged(test_cluster: TestCluster, big: dict[str, Any]) -> None:
    conn = connect(ConnectionOptions(kubeconfig=str(test_cluster.kubeconfig_path), chunk_size=500))
    source = live_source(LiveOptions(namespace=big["ns"], connection=conn, chunk_size=500))
    pod_path = f"/api/v1/namespaces/{big['ns']}/pods"
    assert conn.counter.counts[("LIST", pod_path)] == 5  # 2100 pods / 500
    assert len(source.snapshot.pods) == PODS
    view = source.index()
    (deployment,) = view.workloads(None, big["ns"])
    assert len(tree_of(view, deployment).all_pods) == PODS
    # No request other than discovery and lists.
    assert {verb for verb, _ in conn.counter.counts} <= {"GET", "LIST"}
    assert conn.counter.total("GET") == 2
    conn.close()


def _etcd(cluster: TestCluster, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(cluster.etcd_endpoint + path, data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(req, timeout=30) as resp:
        return dict(json.loads(resp.read()))


def _compact(cluster: TestCluster) -> None:
    key = base64.b64encode(b"/registry").decode()
    revision = int(_etcd(cluster, "/v3/kv/range", {"key": key, "limit": 1})["header"]["revision"])
    _etcd(cluster, "/v3/kv/compaction", {"revision": revision, "physical": True})


def test_expired_continue_token_relists_once(test_cluster: TestCluster) -> None:
    """A genuine 410: etcd is compacted past the revision of the first page's continue token.

    v1.37 serves paged lists from watch-cache snapshots that outlive etcd compaction, so this test
    runs its own API server with ``--watch-cache=false``: continue tokens then go to etcd.
    """
    cluster = TestCluster(test_cluster.kube_apiserver_bin.parent, extra_apiserver_args=["--watch-cache=false"])
    cluster.start()
    try:
        setup = admin(cluster)
        ns = create_namespace(setup, "expire")
        template = {"spec": {"containers": [{"name": "main", "image": "nginx"}]}}
        create_many(setup, [(pod(f"p-{i:04d}", ns, template, {"app": "x"}, None), "pods", ns) for i in range(25)])
        conn = connect(ConnectionOptions(kubeconfig=str(cluster.kubeconfig_path)))
        pod_path = f"/api/v1/namespaces/{ns}/pods"
        original = conn.get
        state = {"pages": 0}

        def get(path: str, query: Any = None, **kwargs: Any) -> Any:
            doc = original(path, query, **kwargs)
            if path == pod_path and state["pages"] == 0:
                state["pages"] += 1
                # Move etcd on, then compact: the continue token's revision no longer exists.
                setup.request(
                    "POST",
                    "/api/v1/namespaces/default/configmaps",
                    body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "bump-"}},
                )
                _compact(cluster)
            return doc

        conn.get = get  # type: ignore[method-assign]
        source = live_source(LiveOptions(namespace=ns, connection=conn, chunk_size=10))
        assert len(source.snapshot.pods) == 25
        gone = [w for w in source.warnings if "410 Gone" in w]
        assert gone == [
            f"listing pods in namespace {ns}: the continue token expired (410 Gone) after 1 page(s); "
            "listed again from the start"
        ], source.warnings
        # 1 page, the 410 on the second, then 3 pages again.
        assert conn.counter.counts[("LIST", pod_path)] == 5
        conn.close()
        setup.close()
    finally:
        cluster.stop()


def test_server_stops_mid_list(test_cluster: TestCluster, big: dict[str, Any]) -> None:
    """Stopped for good: the reads wait for it to come back until --timeout, then fail with why."""
    conn = connect(ConnectionOptions(kubeconfig=str(test_cluster.kubeconfig_path), request_timeout="10s", timeout="4s"))
    pod_path = f"/api/v1/namespaces/{big['ns']}/pods"
    original = conn.get

    def get(path: str, query: Any = None, **kwargs: Any) -> Any:
        doc = original(path, query, **kwargs)
        if path == pod_path and not (query or {}).get("continue"):
            test_cluster.stop_apiserver()
        return doc

    conn.get = get  # type: ignore[method-assign]
    try:
        with pytest.raises(ClusterError) as info:
            live_source(LiveOptions(namespace=big["ns"], connection=conn, chunk_size=500))
        message = info.value.message
        assert message.startswith(f"cluster unreachable ({test_cluster.server}): "), message
        assert "\n" not in message
        assert message.endswith(("connection refused", "the server closed the connection")), message
    finally:
        test_cluster.start_apiserver()
        conn.close()
