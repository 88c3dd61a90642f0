"""docs/library.md's live examples against the genuine API server, and the View's live answers."""

from __future__ import annotations

import secrets

import pytest
from live_data import admin, busybox_job, create, create_namespace
from tests.cluster.apiserver import TestCluster
from tests.library.doc_blocks import blocks, run

import workload_map as wm

pytestmark = pytest.mark.live


def test_the_live_examples_run(test_cluster: TestCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = admin(test_cluster)
    namespace = create_namespace(conn, f"library-{secrets.token_hex(3)}")
    create(conn, busybox_job("docs-job", suspend=False), "jobs", namespace)
    conn.close()
    monkeypatch.setenv("KUBECONFIG", str(test_cluster.kubeconfig_path))
    code = blocks("live")
    assert len(code) >= 2
    run(code, {"wm": wm, "NAMESPACE": namespace, "JOB": "docs-job"})

    with wm.open_cluster(namespace=namespace) as live:
        job = live.workload("job/docs-job")
        assert job.namespace == namespace
        assert [w.name for w in live.workloads("jobs")] == ["docs-job"]
        # the server dry run above stored nothing
        assert job.workload["spec"]["suspend"] is False
        stored = live.suspend(job).apply()
        assert stored["spec"]["suspend"] is True
    with wm.open_cluster(namespace=namespace, workload="job/docs-job") as narrowed:
        assert narrowed.workload("job", "docs-job").workload["spec"]["suspend"] is True
