"""The queue model on a cluster of Kueue, KAI and Volcano queues (tests/queues/cluster.py): hierarchy,
quota and limits per resource, usage, borrowing, waiting demand, per-workload admission and reason."""

from __future__ import annotations

import copy

import pytest

import workload_map as wm

from .cluster import all_objects, kai_objects, kueue_objects


@pytest.fixture(scope="module")
def report() -> wm.QueueReport:
    return wm.open_objects(all_objects(), namespace=None).queues()


def gpus(report: wm.QueueReport, key: str) -> dict[str, object]:
    queue = report.queue(key)
    assert queue is not None, key
    return queue.to_json()["gpus"]


def test_kueue_hierarchy_and_implicit_cohort(report: wm.QueueReport) -> None:
    cohort = report.queue("kueue/Cohort/research")
    assert cohort is not None and cohort.implicit
    assert cohort.children == ["kueue/ClusterQueue/team-a", "kueue/ClusterQueue/team-b"]
    assert report.queue("kueue/LocalQueue/team-a/a-queue").parent == "kueue/ClusterQueue/team-a"  # type: ignore[union-attr]
    assert [q.key for q in report.roots() if q.scheduler == "kueue"] == ["kueue/Cohort/research"]


def test_kueue_quota_usage_borrowing(report: wm.QueueReport) -> None:
    # 8 nominal + 4 borrowing limit; a1 (8) and a2 (4) admitted: 4 borrowed from the cohort; a3 asks 8 more.
    assert gpus(report, "kueue/ClusterQueue/team-a") == {
        "quota": 8,
        "limit": 12,
        "used": 12,
        "borrowed": 4,
        "inUse": 12,
        "waiting": 8,
    }
    # No borrowing limit in a cohort: no limit; the cohort's quota is what its members put in.
    assert gpus(report, "kueue/ClusterQueue/team-b")["limit"] is None
    assert gpus(report, "kueue/Cohort/research")["quota"] == 16
    team_a = report.queue("kueue/ClusterQueue/team-a")
    assert team_a is not None
    gpu = team_a.resource("nvidia.com/gpu", "h100")
    # What wmap computes from the Workloads' admissions equals the ClusterQueue's own status here.
    assert (gpu.used, gpu.admitted, gpu.borrowed) == (gpu.reported_used, gpu.reported_admitted, gpu.reported_borrowed)
    assert (team_a.count("Pending"), team_a.admitted) == (
        team_a.reported_counts["pendingWorkloads"],
        team_a.reported_counts["admittedWorkloads"],
    )


def test_kueue_workload_admission_and_reason(report: wm.QueueReport) -> None:
    a3 = report.workload("team-a", "Job", "a3")
    assert a3 is not None
    assert (a3.scheduler, a3.queue, a3.state, a3.reason) == ("kueue", "a-queue", "Pending", "Pending")
    assert "insufficient unused quota for nvidia.com/gpu" in a3.message
    assert a3.scheduler_object == "workload.kueue.x-k8s.io/job-a3-1a2b3"
    a1 = report.workload("team-a", "Job", "a1")
    assert (
        a1 is not None and a1.state == "Admitted" and a1.to_json()["usage"] == {"h100": {"cpu": 4, "nvidia.com/gpu": 8}}
    )


def test_kai_hierarchy_units_and_over_quota(report: wm.QueueReport) -> None:
    team = report.queue("kai/Queue/team-x")
    assert team is not None and team.parent == "kai/Queue/department"
    # cpu in millicpus and memory in megabytes on KAI's Queue; -1 is no limit.
    assert team.resource("cpu").quota == 8 and team.resource("cpu").limit is None
    assert team.resource("memory").quota == 64 * 10**9
    assert team.resource("nvidia.com/gpu").over_quota_weight == 2
    assert gpus(report, "kai/Queue/team-x") == {
        "quota": 4,
        "limit": 8,
        "used": 6,
        "borrowed": 2,
        "inUse": 6,
        "waiting": 8,
    }
    assert team.resource("nvidia.com/gpu").reported_used == 6
    assert gpus(report, "kai/Queue/department")["used"] == 6  # a parent holds what its children hold


def test_kai_queue_from_pods_and_podgroup_reason(report: wm.QueueReport) -> None:
    x2 = report.workload("team-x", "Job", "x2")
    assert x2 is not None
    assert (x2.scheduler, x2.queue, x2.state, x2.reason) == ("kai", "team-x", "Pending", "OverLimit")
    assert "over quota" in x2.message


def test_volcano_queue_and_podgroup(report: wm.QueueReport) -> None:
    queue = report.queue("volcano/Queue/vq")
    assert queue is not None and queue.parent == "volcano/Queue/root" and queue.weight == 3
    gpu = queue.resource("nvidia.com/gpu")
    assert (gpu.quota, gpu.limit, gpu.guarantee) == (4, 8, 2)
    v1 = report.workload("team-v", "Job", "v1")
    assert v1 is not None and (v1.scheduler, v1.queue, v1.state, v1.reason) == (
        "volcano",
        "vq",
        "Pending",
        "NotEnoughResources",
    )
    assert gpus(report, "volcano/Queue/vq")["waiting"] == 8


def test_workload_without_scheduler_object_is_unknown() -> None:
    objects = [o for o in kai_objects() if o["kind"] != "PodGroup"]
    x2 = wm.open_objects(objects, namespace=None).queues().workload("team-x", "Job", "x2")
    assert x2 is not None and (x2.state, x2.reason) == ("Unknown", "NoPodGroup")


def test_missing_local_queue_leaves_workload_unattributed() -> None:
    objects = [o for o in kueue_objects() if o["kind"] != "LocalQueue"]
    for obj in objects:
        if obj["kind"] == "Workload":
            obj.get("status", {}).pop("admission", None)
    report = wm.open_objects(objects, namespace=None).queues()
    a3 = report.workload("team-a", "Job", "a3")
    assert a3 is not None and a3.queue_key is None
    assert report.queue("kueue/ClusterQueue/team-a").waiting == 0  # type: ignore[union-attr]


def test_bad_quantity_is_a_located_warning_not_a_failure() -> None:
    objects = copy.deepcopy(kueue_objects())
    objects[1]["spec"]["resourceGroups"][0]["flavors"][0]["resources"][1]["nominalQuota"] = "eight"
    report = wm.open_objects(objects, namespace=None).queues()
    assert any("clusterqueue.kueue.x-k8s.io/team-a" in w and "nominalQuota" in w for w in report.warnings)
    assert report.queue("kueue/ClusterQueue/team-b") is not None


def test_namespace_narrows_the_workloads() -> None:
    report = wm.open_objects(all_objects(), namespace="team-x").queues()
    assert {w.namespace for w in report.workloads} == {"team-x"}
    assert report.queue("kueue/ClusterQueue/team-a").waiting == 0  # type: ignore[union-attr]
