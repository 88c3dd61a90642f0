"""get -A and describe against the genuine API server: same trees as a dump, and the request budget."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from live_data import (
    admin,
    create_namespace,
    deployment_scenario,
    ensure_crds,
    jobset_scenario,
    live_options,
    lws_scenario,
)
from tests.cluster.apiserver import TestCluster

from workload_map.base.snapshot import Snapshot, key_of
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.sources.kube import LiveOptions, connect, index_from_kubeconfig, live_source
from workload_map.sources.kube.connection import Connection, ConnectionOptions
from workload_map.sources.kube.fetch import pod_label_selector
from workload_map.sources.kube.reads import child_kinds
from workload_map.tree.build import tree_of, trees_of

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def scenario(test_cluster: TestCluster) -> Iterator[dict[str, Any]]:
    ensure_crds(test_cluster, "jobsets.jobset.x-k8s.io", "leaderworkersets.leaderworkerset.x-k8s.io")
    conn = admin(test_cluster)
    suffix = secrets.token_hex(3)
    ns_train, ns_serve = create_namespace(conn, f"train-{suffix}"), create_namespace(conn, f"serve-{suffix}")
    jobset = jobset_scenario(conn, ns_train)
    lws = lws_scenario(conn, ns_serve)
    deployment = deployment_scenario(conn, ns_serve)
    conn.close()
    yield {"train": ns_train, "serve": ns_serve, "jobset": jobset, "lws": lws, "deployment": deployment}


def _kubectl_dump(cluster: TestCluster, resources: str) -> list[dict[str, Any]]:
    proc = cluster.kubectl("get", resources, "-A", "-o", "json")
    assert proc.returncode == 0, proc.stderr
    return list(json.loads(proc.stdout)["items"])


def _trees(view: WorkloadIndex) -> dict[str, Any]:
    trees, problems = trees_of(view, view.workloads(None, None))
    assert not problems, problems
    return {str(key_of(t.workload)): t.to_json() for t in trees}


def test_get_all_same_trees_as_a_kubectl_dump(test_cluster: TestCluster, scenario: dict[str, Any]) -> None:
    source = live_source(live_options(test_cluster, all_namespaces=True))
    live = source.index()
    # The dump kubectl writes for the same objects: every kind the live layer listed.
    resources = ",".join(sorted({r.resource.display for r in source.lists}))
    dump = _kubectl_dump(test_cluster, resources)
    from_dump = WorkloadIndex(Snapshot(dump), source.registry.definitions)
    live_trees, dump_trees = _trees(live), _trees(from_dump)
    assert live_trees == dump_trees
    names = set(live_trees)
    assert f"jobset.jobset.x-k8s.io/paralleljobs in {scenario['train']}" in names
    assert f"leaderworkerset.leaderworkerset.x-k8s.io/vllm in {scenario['serve']}" in names
    assert f"deployment.apps/web in {scenario['serve']}" in names
    # Cross-check with kubectl: the same pods and the same workloads.
    assert len(source.snapshot.pods) == len(_kubectl_dump(test_cluster, "pods"))
    (jobset,) = live.find(source.registry.resolve_type("jobset"), "paralleljobs", scenario["train"])
    tree = tree_of(live, jobset)
    assert (len(tree.all_pods), tree.counts.desired, tree.counts.ready) == (5, 5, 5)
    source.connection.close()


def test_namespace_defaults_to_the_context(test_cluster: TestCluster, scenario: dict[str, Any], tmp_path: Any) -> None:
    kubeconfig = test_cluster.kubeconfig_for(
        test_cluster.admin_token, tmp_path / "ns.kubeconfig", user="test-admin", namespace=scenario["serve"]
    )
    view, _ = index_from_kubeconfig(LiveOptions(kubeconfig=str(kubeconfig)))
    namespaces = {w["metadata"]["namespace"] for w in view.workloads(None, None)}
    assert namespaces == {scenario["serve"]}
    # -n wins over the context's namespace
    view, _ = index_from_kubeconfig(LiveOptions(kubeconfig=str(kubeconfig), namespace=scenario["train"]))
    assert {w["metadata"]["namespace"] for w in view.workloads(None, None)} == {scenario["train"]}


def _budget(conn: Connection) -> dict[str, int]:
    counts = conn.counter.counts
    verbs: dict[str, int] = {}
    for (verb, _path), n in counts.items():
        verbs[verb] = verbs.get(verb, 0) + n
    return verbs


def test_request_budget_get_all(test_cluster: TestCluster, scenario: dict[str, Any]) -> None:
    conn = connect(ConnectionOptions(kubeconfig=str(test_cluster.kubeconfig_path)))
    source = live_source(live_options(test_cluster, all_namespaces=True, connection=conn))
    registry, discovery = source.registry, source.discovery
    covered_served = {
        (d.karta.identity.group, d.karta.identity.kind)
        for d in registry.definitions
        if d.karta.identity and discovery.served(d.karta.identity.group, d.karta.identity.kind)
    }
    children = {k for k in child_kinds(registry.definitions) if discovery.served(*k)} - covered_served
    expected_lists = len(covered_served | children | {("", "Pod")})
    expected_lists += 1 if discovery.served("run.ai", "Karta") else 0
    log = conn.counter.log
    verbs = _budget(conn)
    # Aggregated discovery: /api + /apis, then exactly one list per kind (one page each here).
    assert discovery.aggregated
    assert verbs.get("GET", 0) == 2, log
    assert set(verbs) <= {"GET", "LIST"}, log
    assert verbs["LIST"] == expected_lists, log
    assert all(n == 1 for (verb, _), n in conn.counter.counts.items()), conn.counter.counts
    listed = conn.counter.paths("LIST")
    assert "/api/v1/pods" in listed
    assert "/apis/batch/v1/jobs" in listed and "/apis/apps/v1/statefulsets" in listed
    assert not any("services" in p or "persistentvolumeclaims" in p or "controllerrevisions" in p for p in listed)
    print(f"\nget -A: {conn.counter.total()} requests ({verbs}); lists: {listed}")
    conn.close()


def test_request_budget_describe(test_cluster: TestCluster, scenario: dict[str, Any]) -> None:
    conn = connect(ConnectionOptions(kubeconfig=str(test_cluster.kubeconfig_path)))
    source = live_source(
        live_options(test_cluster, namespace=scenario["train"], describe=("jobset", "paralleljobs"), connection=conn)
    )
    view = source.index()
    (workload,) = view.find(source.registry.resolve_type("jobset"), "paralleljobs", scenario["train"])
    tree = tree_of(view, workload).to_json()
    # Same tree as the full listing gives.
    full = live_source(live_options(test_cluster, all_namespaces=True)).index()
    (same,) = full.find(full.registry.resolve_type("jobsets"), "paralleljobs", scenario["train"])
    assert tree_of(full, same).to_json() == tree
    verbs = _budget(conn)
    log = conn.counter.log
    # /api + /apis + kartas (when served) + the JobSet + its Jobs + its pods (label selector).
    karta = 1 if source.discovery.served("run.ai", "Karta") else 0
    assert verbs == {"GET": 2, "LIST": 3 + karta}, log
    pod_query = next(q for verb, path, q in log if path.endswith("/pods"))
    assert "labelSelector=" in pod_query and "jobset-name%3Dparalleljobs" in pod_query, pod_query
    assert len(source.snapshot.pods) == 5
    print(f"\ndescribe: {conn.counter.total()} requests ({verbs}); {log}")
    conn.close()


def test_describe_lws_uses_the_name_label(test_cluster: TestCluster, scenario: dict[str, Any]) -> None:
    source = live_source(live_options(test_cluster, namespace=scenario["serve"], describe=("lws", "vllm")))
    view = source.index()
    (workload,) = view.find(source.registry.resolve_type("lws"), "vllm", scenario["serve"])
    tree = tree_of(view, workload)
    assert tree.counts.desired == 4
    assert len(tree.all_pods) == 4
    definition, _ = source.registry.for_object(workload)
    assert definition is not None
    assert pod_label_selector(definition, "vllm") == "leaderworkerset.sigs.k8s.io/name=vllm"
    source.connection.close()


def test_discovery_short_names_resolve_types(test_cluster: TestCluster, scenario: dict[str, Any]) -> None:
    source = live_source(live_options(test_cluster, namespace=scenario["serve"]))
    registry = source.registry
    lws = registry.resolve_type("lws")
    assert lws is not None and lws.plural == "leaderworkersets"
    assert registry.resolve_type("leaderworkersets.leaderworkerset.x-k8s.io") == lws
    sts = registry.resolve_type("sts")
    assert sts is not None and sts.kind == "StatefulSet"
    source.connection.close()
