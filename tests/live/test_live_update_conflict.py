"""``PendingUpdate.apply`` (and so ``wmap update``) when the workload changes between its read and its write:
the write is guarded by the version read, and a Conflict is answered by reading again and sending the same
change computed on what the server holds, as kubectl retries its writes."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from live_data import admin, busybox_job, create, create_namespace
from tests.cluster.apiserver import TestCluster

import workload_map as wm
from workload_map.api.view import CONFLICT_ATTEMPTS

pytestmark = pytest.mark.live


@pytest.fixture
def job(test_cluster: TestCluster, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    conn = admin(test_cluster)
    namespace = create_namespace(conn, f"conflict-{secrets.token_hex(3)}")
    create(conn, busybox_job("train", suspend=True), "jobs", namespace)
    conn.close()
    monkeypatch.setenv("KUBECONFIG", str(test_cluster.kubeconfig_path))
    return namespace, "train"


def _annotate(test_cluster: TestCluster, namespace: str, name: str, value: str) -> None:
    """Someone else's write: an annotation on the Job (a new resourceVersion, no field of ours)."""
    conn = admin(test_cluster)
    try:
        conn.request(
            "PATCH",
            f"/apis/batch/v1/namespaces/{namespace}/jobs/{name}",
            body={"metadata": {"annotations": {"example.com/other-writer": value}}},
            content_type="application/merge-patch+json",
        )
    finally:
        conn.close()


def test_a_write_between_read_and_patch_is_kept_and_the_change_still_lands(
    test_cluster: TestCluster, job: tuple[str, str]
) -> None:
    namespace, name = job
    with wm.open_cluster(namespace=namespace) as view:
        # a suspended Job's pod template takes scheduling changes (labels, node selector): the Job API allows them
        pending = view.update(f"job/{name}", wm.PodSpecChange(labels={"team": "nlp"}, node_selector={"pool": "a"}))
        read_version = pending.workload["metadata"]["resourceVersion"]
        _annotate(test_cluster, namespace, name, "first")
        stored = pending.apply()
    assert stored["spec"]["template"]["metadata"]["labels"]["team"] == "nlp"
    assert stored["spec"]["template"]["spec"]["nodeSelector"] == {"pool": "a"}
    assert stored["metadata"]["annotations"]["example.com/other-writer"] == "first"  # theirs kept
    assert pending.workload["metadata"]["resourceVersion"] != read_version  # sent against the fresh read


def test_a_workload_changing_at_every_attempt_ends_in_a_conflict_error(
    test_cluster: TestCluster, job: tuple[str, str]
) -> None:
    namespace, name = job
    with wm.open_cluster(namespace=namespace) as view:
        pending = view.update(f"job/{name}", wm.PodSpecChange(labels={"team": "nlp"}))
        reads = []
        recompute = pending._recompute
        assert recompute is not None

        def another_write_after_each_read(fresh: dict[str, Any]) -> wm.PendingUpdate:
            reads.append(fresh["metadata"]["resourceVersion"])
            _annotate(test_cluster, namespace, name, str(len(reads)))
            return recompute(fresh)

        pending._recompute = another_write_after_each_read
        _annotate(test_cluster, namespace, name, "0")
        with pytest.raises(wm.WorkloadMapError, match="Conflict") as raised:
            pending.apply()
    assert getattr(raised.value, "status", None) == 409
    assert len(reads) == CONFLICT_ATTEMPTS - 1  # a read before each attempt but the first
    conn = admin(test_cluster)
    try:
        stored = conn.get(f"/apis/batch/v1/namespaces/{namespace}/jobs/{name}")
    finally:
        conn.close()
    assert "team" not in (stored["spec"]["template"].get("metadata") or {}).get("labels", {})  # never written blind
