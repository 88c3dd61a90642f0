"""Capacity and fit over tests/placement/cluster.yaml (our fixture): every expectation computed by hand.

The fixture's GPU nodes, free GPUs on nodes any pod can use: h100-0 4 (a team-a pod holds 4), h100-1 6, h100-2 8
(its pod finished), h100-3 0, a100-0 8, a100-1 8 = 34 (their nvidia.com/gpu taint keeps off only pods that need
no GPU); reserved-0's 8 are apart (tainted dedicated=research: for pods that tolerate it); h100-4
is cordoned and h100-5 not Ready. cpu-0 runs a pod whose init container asks 8 CPU (its app 2): 24 of 32 free.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import workload_map as wm
from workload_map.cli.main import cli
from workload_map.resolve.resources import gpu_count

FIXTURE = Path(__file__).with_name("cluster.yaml")
GIB = Decimal(2**30)


@pytest.fixture(scope="module")
def view() -> wm.View:
    return wm.open_dump(str(FIXTURE), namespace="team-b")


def test_capacity_counts_bound_non_terminal_pods_with_their_effective_requests(view: wm.View) -> None:
    capacity = view.capacity()
    assert capacity.warnings == []
    assert capacity.gpus == 72
    assert capacity.gpus_free == 34
    assert [n.name for n in capacity.nodes if n.tainted] == ["reserved-0"]
    assert capacity.total().tainted_free["nvidia.com/gpu"] == 8
    free = {n.name: n.gpus_free for n in capacity.nodes}
    assert free == {
        "a100-0": 8, "a100-1": 8, "cpu-0": 0, "cpu-1": 0, "h100-0": 4, "h100-1": 6, "h100-2": 8, "h100-3": 0,
        "h100-4": 8, "h100-5": 8, "reserved-0": 8,
    }  # fmt: skip
    cpu0 = capacity.node("cpu-0")
    assert cpu0 is not None
    assert cpu0.used["cpu"] == 8  # the init container's 8, not the app's 2
    assert cpu0.free["memory"] == 124 * GIB
    assert cpu0.pods == 1
    h100_2 = capacity.node("h100-2")
    assert h100_2 is not None and h100_2.pods == 0  # the Succeeded pod holds nothing
    assert [n.name for n in capacity.nodes if not n.schedulable] == ["h100-4", "h100-5"]
    (quota,) = capacity.quotas_in("team-a")
    assert quota.used == {"requests.nvidia.com/gpu": 6, "pods": 2}


def test_pools_and_largest_free_block(view: wm.View) -> None:
    pools = {p.name: p for p in view.capacity().pools("nvidia.com/gpu.product")}
    assert sorted(pools) == ["<none>", "A100", "H100"]
    h100 = pools["H100"]
    assert (h100.nodes, h100.schedulable, h100.gpus, h100.gpus_free) == (7, 4, 56, 18)
    # reserved-0 has 8 free too, but only for pods that tolerate dedicated=research
    assert h100.largest is not None and h100.largest.name == "h100-2" and h100.largest_count == 1
    assert (h100.tainted, gpu_count(h100.tainted_free)) == (1, 8)
    assert pools["A100"].gpus_free == 16
    assert pools["<none>"].free["cpu"] == 56  # 24 + 32
    document = view.capacity().to_json("nvidia.com/gpu.product")
    assert document["total"]["gpus"] == {"allocatable": 72, "free": 34}
    assert document["total"]["tainted"] == {
        "nodes": 1, "free": {"cpu": "96", "memory": "1Ti", "nvidia.com/gpu": "8", "pods": "110"}, "gpus": 8
    }  # fmt: skip
    assert document["total"]["largestFreeBlock"]["gpus"] == 8


# (workload, namespace) -> (copies, nodes used by one copy, GPUs left after one copy, blocking kind, message)
CASES = {
    ("pytorchjob/big", "team-b"): (
        0, None, None, "room",
        "worker: 3 pods x 8 GPUs need 3 nodes with 8 GPUs free; 1 such node; gang group pg-uid-big needs all its "
        "4 members at once",
    ),
    ("pytorchjob/h200", "team-b"): (
        0, None, None, "claim",
        "master: no schedulable node matches nodeSelector nvidia.com/gpu.product=H200 "
        "(nvidia.com/gpu.product: A100, H100)",
    ),
    # fragmentation: 6 GPUs free in total after two copies, but no node has 6
    ("job/six", "team-b"): (
        2, 1, 36, "room",
        "job: 1 pod x 6 GPUs needs 1 node with 6 GPUs free; 0 such nodes (6 GPUs are free on them in total, "
        "but at most 4 on one node)",
    ),
    ("job/research", "team-b"): (
        0, None, None, "taints",
        "job: the 1 node matching nodeSelector dedicated-pool=research has a taint it does not tolerate "
        "(dedicated=research:NoSchedule on 1); add a toleration or use other nodes",
    ),
    ("job/research-tolerating", "team-b"): (
        1, 1, 34, "room", "job: 1 pod x 8 GPUs needs 1 node with 8 GPUs free; 0 such nodes",
    ),
    # two gang groups (leader + worker each) on two A100 nodes: the second group finds no node
    ("lws/pairs", "team-b"): (
        0, None, None, "room",
        'leader: 1 pod x 8 GPUs needs 1 node with 8 GPUs free; 0 such nodes, after the copy\'s 2 other pods are '
        'placed; gang group pg-uid-pairs-<.metadata.labels["leaderworkerset.sigs.k8s.io/name"]>-1 needs all its '
        "2 members at once",
    ),
    ("lws/pair", "team-b"): (1, 2, 26, "room", None),
    # CPU pods stay off the tainted GPU nodes: cpu-0 holds 6 (24 CPU free), cpu-1 8: 14 pods, 4 copies of 3
    ("deploy/web", "team-b"): (
        4, 1, 42, "room",
        "deployment: 3 pods x 4 CPU, 8Gi memory need room for 3; the 2 matching nodes have room for 2",
    ),
    ("job/quota-two", "team-a"): (
        0, None, None, "quota",
        "namespace team-a: ResourceQuota gpu-quota allows requests.nvidia.com/gpu 16; 6 used leave 10, one copy "
        "needs 16",
    ),
    ("job/quota-one", "team-a"): (
        1, 1, 34, "quota",
        "namespace team-a: ResourceQuota gpu-quota allows requests.nvidia.com/gpu 16; 6 used and 1 copy placed "
        "leave 2, one copy needs 8",
    ),
}  # fmt: skip


@pytest.mark.parametrize(("target", "namespace"), list(CASES))
def test_fit_verdicts_match_hand_computed_placements(view: wm.View, target: str, namespace: str) -> None:
    copies, nodes_used, gpus_left, kind, message = CASES[(target, namespace)]
    result = view.fit(target, namespace=namespace)
    assert result.copies == copies
    assert result.fits is (copies > 0)
    if copies:
        assert result.first_copy is not None
        assert (result.first_copy.nodes_used, result.first_copy.gpus_left) == (nodes_used, gpus_left)
    else:
        assert result.first_copy is None
    assert result.blocking is not None and result.blocking.kind == kind
    if message is not None:
        assert result.blocking.message == message
    assert result.gpus_free == 42


def test_a_fit_leaves_the_capacity_model_as_it_was(view: wm.View) -> None:
    capacity = view.capacity()
    before = [(n.name, dict(n.free)) for n in capacity.nodes]
    for target, namespace in CASES:
        view.fit(target, namespace=namespace)
    assert [(n.name, dict(n.free)) for n in capacity.nodes] == before


def test_the_first_copy_says_where_each_pod_goes(view: wm.View) -> None:
    result = view.fit("lws/pair", namespace="team-b")
    assert result.first_copy is not None
    assert {n: dict(c) for n, c in result.first_copy.nodes.items()} == {
        "a100-0": {"leader": 1},
        "a100-1": {"worker": 1},
    }
    six = view.fit("job/six", namespace="team-b").first_copy
    assert six is not None and list(six.nodes) == ["h100-1"]  # best fit: exactly 6 free, not h100-2's 8


def test_components_use_karmada_field_names(view: wm.View) -> None:
    document = view.components("pytorchjob/big").to_json()
    assert document["kind"] == "ComponentRequirements"
    by_name = {c["name"]: c for c in document["components"]}
    assert sorted(by_name) == ["master", "worker"]
    worker = by_name["worker"]
    assert worker["replicas"] == 3
    assert worker["minMembers"] == 3
    assert worker["replicaRequirements"] == {
        "resourceRequest": {"cpu": "16", "memory": "128Gi", "nvidia.com/gpu": "8"},
        "nodeClaim": {"nodeSelector": {"nvidia.com/gpu.product": "H100"}},
    }
    (group,) = document["gangGroups"]
    assert group == {"name": "pg-uid-big", "minMember": 4, "members": [
        {"name": "master", "count": 1}, {"name": "worker", "count": 3}]}  # fmt: skip
    tolerating = view.components("job/research-tolerating").to_json()["components"][0]["replicaRequirements"]
    assert tolerating["nodeClaim"]["tolerations"] == [
        {"key": "dedicated", "operator": "Equal", "value": "research", "effect": "NoSchedule"}
    ]


def test_the_library_fits_requirements_received_as_json(view: wm.View) -> None:
    """A federation layer holding `wmap components -o json` gets the same verdict as the view."""
    document = json.loads(json.dumps(view.components("pytorchjob/big").to_json()))
    assert wm.fit(document, view).to_json() == view.fit("pytorchjob/big").to_json()
    with pytest.raises(wm.WorkloadMapError, match="cannot read component requirements"):
        wm.fit({"components": [{"name": "x", "replicas": -1}]}, view)


def test_a_running_workload_is_placed_anew(view: wm.View) -> None:
    """Its own pods count as free: a Job holding h100-2's 8 GPUs still fits once, on that node."""
    objects = [*wm.open_dump(str(FIXTURE), namespace=None).objects]
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "running", "namespace": "team-b", "uid": "uid-running"},
        "spec": {"parallelism": 1, "completions": 1, "template": {"spec": {
            "nodeSelector": {"nvidia.com/gpu.product": "H100"},
            "containers": [{"name": "main", "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}},
    }  # fmt: skip
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "running-0", "namespace": "team-b", "uid": "pod-running-0",
            "labels": {"batch.kubernetes.io/job-name": "running"},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "running", "uid": "uid-running",
                                 "controller": True}],
        },
        "spec": {"nodeName": "h100-2", "containers": job["spec"]["template"]["spec"]["containers"]},
        "status": {"phase": "Running"},
    }  # fmt: skip
    running = wm.open_objects([*objects, job, pod], namespace="team-b")
    assert running.capacity().gpus_free == 26
    result = running.fit("job/running")
    assert (result.copies, result.own_pods, result.gpus_free) == (1, 1, 42)
    assert result.first_copy is not None and list(result.first_copy.nodes) == ["h100-2"]


def test_a_manifest_not_created_yet_is_resolved_through_its_definition(view: wm.View) -> None:
    manifest = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "new", "namespace": "team-b"},
        "spec": {"parallelism": 3, "completions": 3, "template": {"spec": {
            "containers": [{"name": "main", "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}},
    }  # fmt: skip
    result = view.fit(manifest)
    # 8 free GPUs on h100-2, a100-0, a100-1 (reserved-0's dedicated taint is not tolerated): one copy of 3
    assert (result.copies, result.pods_per_copy, result.gpus_per_copy) == (1, 3, 24)


def test_no_nodes_in_the_input_is_said() -> None:
    view = wm.open_objects([], namespace="team-b")
    assert view.capacity().warnings == ["the input has no Node objects to place pods on (wmap snapshot writes them)"]
    manifest = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x", "namespace": "team-b"},
                "spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}}  # fmt: skip
    result = view.fit(manifest)
    assert result.blocking is not None
    assert result.blocking.message == "the cluster has no nodes (no Node objects were read)"


def _wmap(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [*args, "--from-file", str(FIXTURE)])
    return result.exit_code, result.stdout, result.stderr


def test_cli_fit_prints_the_verdict_and_the_same_json_as_the_library(view: wm.View, tmp_path: Path) -> None:
    code, out, _ = _wmap("fit", "pytorchjob/big", "-n", "team-b")
    assert code == 0
    assert out.splitlines()[1] == f"does not fit: {CASES[('pytorchjob/big', 'team-b')][4]}"
    code, out, _ = _wmap("fit", "lws/pair", "-n", "team-b")
    assert code == 0 and out.splitlines()[2] == "One copy: leader 1 pod on a100-0; worker 1 pod on a100-1"
    code, out, _ = _wmap("fit", "job/six", "-n", "team-b", "-o", "json")
    assert code == 0
    assert json.loads(out) == view.fit("job/six").to_json()
    manifest = tmp_path / "job.yaml"
    items = yaml.safe_load(FIXTURE.read_text())["items"]
    six = next(o for o in items if o["metadata"]["name"] == "six")
    del six["metadata"]["namespace"]  # -n says where it will be created
    manifest.write_text(yaml.safe_dump(six))
    code, out, err = _wmap("fit", "-f", str(manifest), "-n", "team-b", "-o", "json")
    assert code == 0, err
    assert json.loads(out)["copies"] == 2  # job "six"
    code, _, err = _wmap("fit", "-n", "team-b")
    assert code == 2 and "name one workload" in err


def test_cli_capacity_and_components() -> None:
    code, out, _ = _wmap("capacity", "--pool-label", "nvidia.com/gpu.product", "--nodes")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["POOL", "NODES", "SCHEDULABLE"]
    h100 = next(line for line in lines if line.startswith("H100"))
    assert h100.split()[1:4] == ["7", "4", "18/56"]
    largest, tainted = [cell.strip() for cell in h100.split("  ") if cell.strip()][-2:]
    assert (largest, tainted) == ("8 GPUs, 96 CPU, 1.0Ti on h100-2", "1 (8 GPUs, 96 CPU, 1.0Ti)")
    assert any(line.startswith("cpu-0 ") and "24/32" in line for line in lines)
    assert any(line.split()[:3] == ["team-a", "gpu-quota", "requests.nvidia.com/gpu"] for line in lines)
    code, out, _ = _wmap("components", "pytorchjob/big", "-n", "team-b", "-o", "json")
    assert code == 0 and json.loads(out)["totals"] == {"pods": 4, "gpus": 32}


def test_fit_clusters_ranks_where_the_workload_fits(view: wm.View) -> None:
    """The fixture (busy) and the same nodes without any pod (idle, twice with different names): the
    PyTorchJob of 4 x 8 GPUs fits only on the idle ones, once each (four H100 nodes free)."""
    objects = wm.open_dump(str(FIXTURE), namespace=None).objects
    idle = [o for o in objects if o["kind"] != "Pod"]
    views = {
        "busy": view,
        "idle-b": wm.open_objects(idle, namespace="team-b"),
        "idle-a": wm.open_objects(idle, namespace="team-b"),
    }
    ranked = wm.fit_clusters(views, "pytorchjob/big")
    assert [(r.cluster, r.copies) for r in ranked] == [("idle-a", 1), ("idle-b", 1), ("busy", 0)]
    assert ranked[-1].blocking is not None and ranked[-1].blocking.kind == "room"
    assert ranked[0].to_json()["cluster"] == "idle-a"
    # The same from requirements of one cluster fitted on the others' capacity.
    assert wm.fit(view.components("pytorchjob/big"), views["idle-a"]).copies == 1
    with pytest.raises(wm.NotFoundError):
        wm.fit_clusters(views, "pytorchjob/nope")


def test_unreadable_quantities_are_one_warning_each_and_never_a_failure() -> None:
    def node(name: str, cpu: str) -> dict[str, object]:
        ready = [{"type": "Ready", "status": "True"}]
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                "status": {"allocatable": {"cpu": cpu, "pods": "10"}, "conditions": ready}}  # fmt: skip

    def pod(name: str, cpu: str) -> dict[str, object]:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "a"},
                "spec": {"nodeName": "good", "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
                "status": {"phase": "Running"}}  # fmt: skip

    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "a"},
             "spec": {"hard": {"pods": "many"}}}  # fmt: skip
    objects = [node("good", "8"), node("bad-1", "eight"), node("bad-2", "x"), pod("p1", "lots"), pod("p2", "?"),
               pod("p3", "2"), quota]  # fmt: skip
    capacity = wm.open_objects(objects, namespace="a").capacity()
    assert capacity.warnings == [
        "unreadable node or quota quantities are left out: node bad-1: allocatable[cpu]: invalid quantity "
        "'eight' (and 2 more)",
        "unreadable pod requests are counted as zero: pod a/p1: container 'c': requests[cpu]: invalid quantity "
        "'lots' (and 1 more pods)",
    ]
    good = capacity.node("good")
    assert good is not None and good.used == {"cpu": 2, "pods": 3}


def test_a_manifest_of_a_kind_no_definition_covers_exits_4(tmp_path: Path) -> None:
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n")
    code, _, err = _wmap("fit", "-f", str(manifest))
    assert code == 4
    assert err.startswith("error: no definition covers ConfigMap (v1)")


def test_a_definition_that_cannot_read_node_selectors_says_fit_places_its_pods_without_them() -> None:
    """Flink's definition reads pod fields one by one (the fragmented form has no nodeSelector or tolerations):
    its requirements say so once, naming the components, instead of silently claiming no constraint."""
    flink = yaml.safe_load(
        """
apiVersion: flink.apache.org/v1beta1
kind: FlinkDeployment
metadata: {name: etl, namespace: team-b}
spec:
  image: flink:1.20
  job: {jarURI: local:///opt/flink/job.jar, parallelism: 2}
  jobManager: {resource: {cpu: 1, memory: 2048m}}
  taskManager:
    resource: {cpu: 1, memory: 2048m}
    podTemplate:
      spec:
        nodeSelector: {pool: gpu}
        containers: [{name: flink-main-container, resources: {limits: {nvidia.com/gpu: "1"}}}]
"""
    )
    view = wm.open_objects([flink], namespace="team-b")
    warnings = view.components("flinkdeployment/etl").warnings
    lines = [w for w in warnings if "nodeSelector and tolerations" in w]
    assert lines == [
        "jobmanager, taskmanager: the definition reads pod fields one by one (fragmentedPodSpecDefinition), with no "
        "place for nodeSelector and tolerations: placed as if the pods had none"
    ], warnings
    big = wm.open_dump(str(FIXTURE), namespace="team-b").components("pytorchjob/big").warnings
    assert not [w for w in big if "nodeSelector and tolerations" in w], big  # a template-form kind
