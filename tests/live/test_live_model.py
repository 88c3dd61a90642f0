"""The live model on the genuine API server: the answer of `wmap get -A`, before and after changes, from
projected objects only."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from live_data import admin, create, create_namespace, ensure_crds, eventually, jobset_scenario, owner_ref
from tests.cluster.apiserver import TestCluster

import workload_map as wm
from workload_map.cluster.connection import Connection
from workload_map.live.model import LiveModel

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def setup(test_cluster: TestCluster) -> Iterator[tuple[Connection, str, dict[str, Any], LiveModel]]:
    ensure_crds(test_cluster, "jobsets.jobset.x-k8s.io")
    conn = admin(test_cluster)
    ns = create_namespace(conn, f"model-{secrets.token_hex(3)}")
    scenario = jobset_scenario(conn, ns, running=False)
    model = wm.watch_cluster(kubeconfig=str(test_cluster.kubeconfig_path))
    try:
        yield conn, ns, scenario, model
    finally:
        model.stop()
        conn.close()


def _model_answer(model: LiveModel, ns: str) -> list[dict[str, Any]]:
    return [r.tree.to_json() for r in model.workloads() if r.tree.namespace == ns]


def _get_answer(cluster: TestCluster, ns: str) -> list[dict[str, Any]]:
    view = wm.open_cluster(kubeconfig=str(cluster.kubeconfig_path), all_namespaces=True)
    try:
        return [tree.to_json() for tree in view.workloads(namespace=ns)]
    finally:
        view.close()


def test_the_synced_model_says_what_get_says_and_keeps_no_full_objects(
    test_cluster: TestCluster, setup: tuple[Connection, str, dict[str, Any], LiveModel]
) -> None:
    _conn, ns, _scenario, model = setup
    answer = _get_answer(test_cluster, ns)
    assert [t["workload"]["kind"] for t in answer] == ["JobSet"]
    assert _model_answer(model, ns) == answer
    pods = [o for o in model._objects.values() if o["kind"] == "Pod" and o["metadata"].get("namespace") == ns]
    assert pods
    for pod in pods:  # projected: no volumes, images, commands or service account
        assert not {"volumes", "serviceAccountName", "dnsPolicy"} & set(pod["spec"]), pod
        assert all(set(c) <= {"name", "resources"} for c in pod["spec"]["containers"]), pod
    assert model.source is not None
    assert not list(model.source.snapshot) and not any(listed.items for listed in model.source.lists)


def test_a_child_created_later_takes_the_place_a_fresh_read_gives_it(
    test_cluster: TestCluster, setup: tuple[Connection, str, dict[str, Any], LiveModel]
) -> None:
    conn, ns, jobset, model = setup
    version = model.version
    # Named to sort before the JobSet's other Jobs: a fresh LIST returns it first.
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "aaa-late", "namespace": ns, "ownerReferences": [owner_ref(jobset)]},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}},
    }
    create(conn, job, "jobs", ns)

    def caught_up() -> bool:
        model.wait_for_version(version, timeout=5)
        names = [c["name"] for t in _model_answer(model, ns) for c in t.get("children", [])]
        return "aaa-late" in names

    eventually(caught_up, timeout=30, what="the model sees the new Job")
    answer = _get_answer(test_cluster, ns)
    assert answer[0]["children"][0]["name"] == "aaa-late"
    assert _model_answer(model, ns) == answer
