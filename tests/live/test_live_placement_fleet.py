"""capacity and fit over a fleet of two genuine API servers (the session's and one of its own), through one
kubeconfig with a context per cluster, plus a context whose user may read nothing.

"big" has four free 8-GPU nodes; "small" (the shared session cluster) two, one holding a 4-GPU pod. The test's
nodes carry a label of their own and its workload selects it. A Job of 2 pods x 8 GPUs: 2 copies on big (one
copy on 2 nodes, 16 GPUs left), none on small (one node with 8 GPUs free).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fleet_data import own_clusters, write_kubeconfig
from tests.cli.conftest import run_wmap
from tests.cluster.apiserver import TestCluster
from tests.live.live_data import admin, create, create_namespace, set_pod_running
from tests.live.placement_data import bound_pod, create_node, gpu_node, suspended_job

import workload_map as wm

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def fleet(
    test_cluster: TestCluster, testcluster_bin_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    token = secrets.token_hex(3)
    ns = f"fleet-fit-{token}"
    with own_clusters(testcluster_bin_dir, 1) as (big,):
        for cluster, count in ((big, 4), (test_cluster, 2)):
            conn = admin(cluster)
            try:
                create_namespace(conn, ns)
                for i in range(count):
                    create_node(conn, gpu_node(f"f{i}-{token}", token, []))
            finally:
                conn.close()
        conn = admin(test_cluster)
        try:
            create(conn, bound_pod("infer", f"f1-{token}", 4), "pods", ns)
            set_pod_running(conn, ns, "infer")
        finally:
            conn.close()
        clusters = {"small": test_cluster, "big": big}
        kubeconfig = write_kubeconfig(tmp_path_factory.mktemp("fleet-fit") / "kubeconfig", clusters, {"locked": "big"})
        manifest = tmp_path_factory.mktemp("manifests") / "job.yaml"
        manifest.write_text(yaml.safe_dump(suspended_job("train", token, 2, 8)))
        yield {"kubeconfig": str(kubeconfig), "ns": ns, "token": token, "manifest": str(manifest)}


def _fleet(fleet: dict[str, Any], *args: str) -> Any:
    return run_wmap(*args, "--kubeconfig", fleet["kubeconfig"], "-n", fleet["ns"])


def test_fit_over_the_fleet_ranks_the_clusters(fleet: dict[str, Any]) -> None:
    proc = _fleet(fleet, "fit", "-f", fleet["manifest"], "--context", "small", "--context", "big", "-o", "json")
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)["items"]
    assert [(r["cluster"], r["copies"]) for r in results] == [("big", 2), ("small", 0)]
    assert results[0]["firstCopy"]["nodesUsed"] == 2
    # The Job's gang group holds one pod (KAI's Job minimum); the copy's second pod finds no node.
    assert results[1]["blocking"]["message"] == (
        "job: 1 pod x 8 GPUs needs 1 node with 8 GPUs free; 0 such nodes, after the copy's 1 other pod is placed"
    )
    text = _fleet(fleet, "fit", "-f", fleet["manifest"], "--context", "small", "--context", "big")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == f"Job/train in namespace {fleet['ns']}: 2 pods and 16 GPUs per copy"
    assert lines[1].split()[:4] == ["RANK", "CLUSTER", "FITS", "COPIES"]
    assert lines[2].split()[:5] == ["1", "big", "yes", "2", "2"]
    assert lines[3].split()[:4] == ["2", "small", "no", "0"]


def test_a_cluster_that_cannot_be_read_is_one_warning_and_exit_5(fleet: dict[str, Any]) -> None:
    proc = _fleet(fleet, "fit", "-f", fleet["manifest"], "--all-contexts", "-o", "json")
    assert proc.returncode == 5, proc.stderr
    assert [r["cluster"] for r in json.loads(proc.stdout)["items"]] == ["big", "small"]
    assert sum("cluster locked: not read" in line for line in proc.stderr.splitlines()) == 1, proc.stderr


def test_capacity_over_the_fleet_has_a_cluster_column(fleet: dict[str, Any]) -> None:
    proc = _fleet(fleet, "capacity", "--context", "small", "--context", "big", "--pool-label", "placement-test")
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines() if line.split()[1:2] == [fleet["token"]]]
    assert [r[:5] for r in rows] == [
        ["small", fleet["token"], "2", "2", "12/16"],
        ["big", fleet["token"], "4", "4", "32/32"],
    ]


def test_the_library_fleet_gives_the_same_ranking(fleet: dict[str, Any]) -> None:
    manifest = yaml.safe_load(Path(fleet["manifest"]).read_text())
    manifest["metadata"]["namespace"] = fleet["ns"]
    with wm.open_fleet(
        contexts=["small", "big"], kubeconfig=fleet["kubeconfig"], namespace=fleet["ns"], capacity=True
    ) as f:
        ranked = f.fit(manifest)
        assert [(r.cluster, r.copies) for r in ranked] == [("big", 2), ("small", 0)]
        assert sorted(f.capacity()) == ["big", "small"]
