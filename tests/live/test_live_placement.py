"""capacity and fit against the genuine API server: Node objects of realistic capacity (the API server takes
nodes without a kubelet), pods bound with spec.nodeName, a ResourceQuota, and the verdicts computed by hand.

The test's nodes carry a label of their own and its workloads select it, so the nodes and pods other tests
leave in the shared cluster change nothing here. On them: g0 holds a 4-GPU pod of another namespace, g1 a
2-GPU pod of the workloads' namespace, g2 is free but tainted dedicated=research. The namespace's quota
allows 12 GPUs (2 used).
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.cli.conftest import run_wmap
from tests.cluster.apiserver import TestCluster
from tests.live.live_data import admin, create, create_namespace, set_pod_running
from tests.live.placement_data import GPU, bound_pod, create_node, gpu_node, suspended_job

import workload_map as wm

pytestmark = pytest.mark.live
TAINT = {"key": "dedicated", "value": "research", "effect": "NoSchedule"}


@pytest.fixture(scope="module")
def placement(test_cluster: TestCluster) -> dict[str, Any]:
    token = secrets.token_hex(3)
    conn = admin(test_cluster)
    try:
        ns, other = f"fit-{token}", f"fit-other-{token}"
        for name in (ns, other):
            create_namespace(conn, name)
        nodes = {f"g{i}-{token}": gpu_node(f"g{i}-{token}", token, [TAINT] if i == 2 else []) for i in range(3)}
        for node in nodes.values():
            create_node(conn, node)
        for namespace, name, node, gpus in ((other, "infer", f"g0-{token}", 4), (ns, "serve", f"g1-{token}", 2)):
            create(conn, bound_pod(name, node, gpus), "pods", namespace)
            set_pod_running(conn, namespace, name)
        quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "gpus"},
                 "spec": {"hard": {f"requests.{GPU}": "12"}}}  # fmt: skip
        create(conn, quota, "resourcequotas", ns)
        create(conn, suspended_job("eight", token, 1, 8), "jobs", ns)
        create(conn, suspended_job("four", token, 2, 4), "jobs", ns)
        tolerating = [{"key": "dedicated", "operator": "Equal", "value": "research", "effect": "NoSchedule"}]
        create(conn, suspended_job("tolerating", token, 1, 8, tolerating), "jobs", ns)
    finally:
        conn.close()
    return {"ns": ns, "token": token, "kubeconfig": str(test_cluster.kubeconfig_path)}


def test_capacity_from_live_nodes_pods_and_quota(placement: dict[str, Any]) -> None:
    with wm.open_cluster(kubeconfig=placement["kubeconfig"], namespace=placement["ns"], capacity="only") as view:
        capacity = view.capacity()
    pools = {p.name: p for p in capacity.pools("placement-test")}
    mine = pools[placement["token"]]
    # g2's 8 free GPUs are for pods that tolerate dedicated=research: apart, not free for every pod
    assert (mine.nodes, mine.schedulable, mine.gpus, mine.gpus_free) == (3, 2, 24, 10)
    assert (mine.tainted, mine.tainted_free[GPU]) == (1, 8)
    node = capacity.node(f"g0-{placement['token']}")
    assert node is not None and node.pods == 1 and node.used["cpu"] == 8
    (quota,) = capacity.quotas_in(placement["ns"])
    assert quota.used == {f"requests.{GPU}": 2}


@pytest.mark.parametrize(
    ("job", "copies", "kind", "message"),
    [
        (
            "eight", 0, "room",
            "job: 1 pod x 8 GPUs needs 1 node with 8 GPUs free; 0 such nodes (10 GPUs are free on them in total, "
            "but at most 6 on one node)",
        ),
        # best fit: g0 (4 free) then g1 (6 free); the quota's 10 left then allow no second copy of 8
        ("four", 1, "quota", None),
        ("tolerating", 1, "quota", None),  # on g2, the only node it may use; then the quota
    ],
)  # fmt: skip
def test_fit_of_live_workloads(
    placement: dict[str, Any], job: str, copies: int, kind: str, message: str | None
) -> None:
    with wm.open_cluster(
        kubeconfig=placement["kubeconfig"], namespace=placement["ns"], workload=f"job/{job}", capacity=True
    ) as view:
        result = view.fit(f"job/{job}")
    assert result.copies == copies
    assert result.blocking is not None and result.blocking.kind == kind
    if message:
        assert result.blocking.message == message
    if job == "four":
        assert result.first_copy is not None
        assert sorted(result.first_copy.nodes) == [f"g0-{placement['token']}", f"g1-{placement['token']}"]
        assert "12; 2 used and 1 copy placed leave 2, one copy needs 8" in result.blocking.message
    if job == "tolerating":
        assert result.first_copy is not None and list(result.first_copy.nodes) == [f"g2-{placement['token']}"]


def test_cli_fit_of_a_manifest_and_capacity(placement: dict[str, Any], tmp_path: Path) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(yaml.safe_dump(suspended_job("new", placement["token"], 2, 2)))
    env = {"KUBECONFIG": placement["kubeconfig"]}
    proc = run_wmap("fit", "-f", str(manifest), "-n", placement["ns"], "-o", "json", env=env)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    # room for 2-GPU pods: g0 2, g1 3 (g2's taint is not tolerated); the quota's 10 left: 2 copies of 4 GPUs
    assert (result["copies"], result["blocking"]["kind"]) == (2, "quota")
    proc = run_wmap("capacity", "-n", placement["ns"], "--pool-label", "placement-test", env=env)
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith(placement["token"]))
    assert row.split()[1:4] == ["3", "2", "10/24"]  # g2 is tainted: its 8 GPUs are in TAINTED (FREE)
    assert row.endswith("   1 (8 GPUs, 191.4 CPU, 2.0Ti)"), row


def _role_user(test_cluster: TestCluster, ns: str, name: str, tmp: Path, *auth_args: str) -> Path:
    """A ServiceAccount bound to exactly what ``wmap auth -n NS`` prints; its kubeconfig."""
    printed = run_wmap("auth", "-n", ns, "--name", name, *auth_args)
    assert printed.returncode == 0, printed.stderr
    roles = [d for d in yaml.safe_load_all(printed.stdout) if d]
    proc = test_cluster.kubectl(
        "apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": roles})
    )
    assert proc.returncode == 0, proc.stderr
    subject = f"--serviceaccount={ns}:{name}"
    for args in (
        ("create", "serviceaccount", name, "-n", ns),
        ("create", "rolebinding", name, "-n", ns, f"--role={name}", subject),
        ("create", "clusterrolebinding", f"{name}-{ns}", f"--clusterrole={name}-definitions", subject),
    ):
        proc = test_cluster.kubectl(*args)
        assert proc.returncode == 0, proc.stderr
    token = test_cluster.kubectl("create", "token", name, "-n", ns, "--duration=1h")
    assert token.returncode == 0, token.stderr
    return test_cluster.kubeconfig_for(token.stdout.strip(), tmp / f"{name}.kubeconfig", user=name, namespace=ns)


def test_capacity_and_fit_need_exactly_the_capacity_role(
    test_cluster: TestCluster, placement: dict[str, Any], tmp_path: Path
) -> None:
    ns = placement["ns"]
    planner = {"KUBECONFIG": str(_role_user(test_cluster, ns, "wmap-planner", tmp_path, "--capacity"))}
    proc = run_wmap("fit", "job/four", "-o", "json", env=planner)
    assert proc.returncode == 0, proc.stderr
    assert "may not list" not in proc.stderr, proc.stderr
    assert json.loads(proc.stdout)["copies"] == 1
    # The read-only role lacks nodes (and other namespaces' pods): one warning each, partial-result exit.
    reader = {"KUBECONFIG": str(_role_user(test_cluster, ns, "wmap-reader", tmp_path))}
    proc = run_wmap("fit", "job/four", env=reader)
    assert proc.returncode == 5, proc.stderr
    assert "may not list nodes" in proc.stderr and "grant list on nodes cluster-wide" in proc.stderr, proc.stderr
    assert "does not fit: the cluster has no nodes" in proc.stdout
    proc = run_wmap("capacity", env=reader)
    assert proc.returncode == 5 and "may not list pods cluster-wide" in proc.stderr, proc.stderr


def test_a_snapshot_carries_nodes_and_quotas_and_gives_the_same_verdicts(
    placement: dict[str, Any], tmp_path: Path
) -> None:
    env = {"KUBECONFIG": placement["kubeconfig"]}
    dump = tmp_path / "cluster.json"
    proc = run_wmap("snapshot", "-A", "-o", str(dump), env=env)
    assert proc.returncode == 0, proc.stderr
    ns = placement["ns"]
    for args in (("capacity", "-A", "-o", "json"), ("fit", "job/four", "-n", ns, "-o", "json")):
        live = run_wmap(*args, env=env)
        dumped = run_wmap(*args, "--from-file", str(dump), env=env)
        assert live.returncode == 0 and dumped.returncode == 0, (live.stderr, dumped.stderr)
        if args[0] == "capacity":  # other tests keep changing the shared cluster: compare this test's nodes
            mine = [
                [n for n in json.loads(p.stdout)["nodes"] if n["name"].endswith(placement["token"])]
                for p in (live, dumped)
            ]
            assert len(mine[1]) == 3
            assert mine[0] == mine[1]
        else:
            assert json.loads(live.stdout) == json.loads(dumped.stdout)


def test_a_cluster_wide_read_reuses_its_pod_list_for_capacity(placement: dict[str, Any]) -> None:
    """get -A with capacity lists nodes and quotas only: the workload read's pods serve the model too."""
    kubeconfig = placement["kubeconfig"]
    with wm.open_cluster(kubeconfig=kubeconfig, all_namespaces=True, capacity=True) as full:
        counter = full.requests
        assert counter is not None
        pod_lists = [path for (verb, path), _ in counter.counts.items() if verb == "LIST" and path.endswith("/pods")]
        assert pod_lists == ["/api/v1/pods"]  # once, not again for the capacity
        mine = [n.to_json() for n in full.capacity().nodes if n.name.endswith(placement["token"])]
    with wm.open_cluster(kubeconfig=kubeconfig, all_namespaces=True, capacity="only") as only:
        assert [n.to_json() for n in only.capacity().nodes if n.name.endswith(placement["token"])] == mine
    assert len(mine) == 3
