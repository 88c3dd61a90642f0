"""Kueue on the lab: jobs submitted suspended to a LocalQueue, admitted within a GPU quota, or kept queued.

At every step wmap's status, pods and GPUs are asserted (docs/semantics.md). The peer agreement: for every job
kind both Kueue and our catalog cover, the PodSets of the Workload Kueue creates (names, counts, minCount) are
wmap's pod-producing components and desired pods (docs/gang.md "Kueue PodSets")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from .kwok import PHASE_ANNOTATION
from .scenario import ClusterWatch, expect

pytestmark = pytest.mark.lab

NAMESPACE = "lab-kueue"
QUEUE = "lab-queue"
GPU_QUOTA = 8
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


def queue_objects() -> list[dict[str, Any]]:
    flavor = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "lab-flavor"}}
    cluster_queue = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "lab-cq"},
        "spec": {
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                    "flavors": [
                        {
                            "name": "lab-flavor",
                            "resources": [
                                {"name": "cpu", "nominalQuota": "64"},
                                {"name": "memory", "nominalQuota": "512Gi"},
                                {"name": "nvidia.com/gpu", "nominalQuota": str(GPU_QUOTA)},
                            ],
                        }
                    ],
                }
            ],
        },
    }
    local_queue = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": QUEUE, "namespace": NAMESPACE},
        "spec": {"clusterQueue": "lab-cq"},
    }
    return [flavor, cluster_queue, local_queue]


def pod_template(gpus: int) -> dict[str, Any]:
    return {
        "metadata": {"annotations": {PHASE_ANNOTATION: "Ready"}},
        "spec": {
            "restartPolicy": "Never",
            "containers": [
                {
                    "name": "main",
                    "image": "busybox",
                    "resources": {
                        "requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": str(gpus)},
                        "limits": {"nvidia.com/gpu": str(gpus)},
                    },
                }
            ],
        },
    }


def queued_job(name: str, pods: int, gpus: int) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {QUEUE_LABEL: QUEUE}},
        "spec": {"suspend": True, "parallelism": pods, "completions": pods, "template": pod_template(gpus)},
    }


def queued_jobset(name: str, workers: int, gpus: int) -> dict[str, Any]:
    def replicated(role: str, replicas: int, parallelism: int, role_gpus: int) -> dict[str, Any]:
        job_spec = {"parallelism": parallelism, "completions": parallelism, "template": pod_template(role_gpus)}
        return {"name": role, "replicas": replicas, "template": {"spec": job_spec}}

    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {QUEUE_LABEL: QUEUE}},
        "spec": {
            "suspend": True,
            "replicatedJobs": [replicated("driver", 1, 1, 0), replicated("workers", 1, workers, gpus)],
        },
    }


def queued_raycluster(name: str, workers: int, gpus: int) -> dict[str, Any]:
    def template(pod_gpus: int) -> dict[str, Any]:
        requests = {"cpu": "1", "memory": "1Gi"}
        if pod_gpus:
            requests["nvidia.com/gpu"] = str(pod_gpus)
        return {
            "spec": {
                "containers": [
                    {
                        "name": "ray",
                        "image": "rayproject/ray:2.46.0",
                        "resources": {"requests": requests, "limits": requests},
                    }
                ]
            }
        }

    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {QUEUE_LABEL: QUEUE}},
        "spec": {
            "rayVersion": "2.46.0",
            "headGroupSpec": {"rayStartParams": {}, "template": template(0)},
            "workerGroupSpecs": [
                {
                    "groupName": "gpu",
                    "replicas": workers,
                    "minReplicas": 0,
                    "maxReplicas": 8,
                    "rayStartParams": {},
                    "template": template(gpus),
                }
            ],
        },
    }


def kueue_workload(kube: Any, owner_uid: str) -> dict[str, Any]:
    for workload in kube.list("kueue.x-k8s.io/v1beta2", "Workload", NAMESPACE):
        if any(ref.get("uid") == owner_uid for ref in workload["metadata"].get("ownerReferences", [])):
            return workload
    raise AssertionError(f"no Kueue Workload owned by {owner_uid}")


def podsets(workload: Mapping[str, Any]) -> dict[str, tuple[int, int | None]]:
    """Kueue's PodSets: name -> (count, minCount)."""
    return {p["name"]: (int(p["count"]), p.get("minCount")) for p in workload["spec"]["podSets"]}


# Kueue names a batch Job's one PodSet "main"; every other kind's PodSets are named as wmap's instances
# (JobSet replicated jobs, Ray's "head" and worker group names).
JOB_PODSET = "main"


def wmap_podsets(tree: Mapping[str, Any]) -> dict[str, tuple[int, int | None]]:
    """wmap's pod-producing instances in Kueue's terms: name -> (desired pods, min replicas when it gangs less)."""
    found: dict[str, tuple[int, int | None]] = {}
    for component in tree["components"]:
        if not component["producesPods"]:
            continue
        for instance in component["instances"]:
            name = instance["id"] if instance["id"] is not None else JOB_PODSET
            found[name] = (int(instance["desiredPods"]), None)
    return found


def peer_podsets(lab: Any, type_name: str, name: str, uid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(Kueue's PodSets, wmap's) of one workload, in the same terms."""
    workload = kueue_workload(lab.kube, uid)
    tree = lab.wmap_json("describe", f"{type_name}/{name}", "-n", NAMESPACE)
    return podsets(workload), wmap_podsets(tree)


def assert_peer_agreement(lab: Any, type_name: str, name: str, uid: str) -> None:
    kueue, ours = peer_podsets(lab, type_name, name, uid)
    assert kueue == ours, (kueue, ours)


def assert_queued_first(primaries: list[str | None]) -> None:
    """Submitted suspended, the workload reads Suspended until Kueue admits it, and never Undefined."""
    assert "Undefined" not in primaries, primaries
    assert "Suspended" in primaries and primaries.index("Suspended") < primaries.index("Running"), primaries


def admitted(workload: Mapping[str, Any]) -> bool:
    return any(
        c["type"] == "Admitted" and c["status"] == "True" for c in workload.get("status", {}).get("conditions", [])
    )


@pytest.fixture
def queue(lab: Any) -> Any:
    for operator in ("kuberay", "jobset", "kueue"):
        lab.start_operator(operator)
    kube = lab.kube
    lab.namespace(NAMESPACE)
    for obj in queue_objects():
        kube.apply(obj)
    return kube


def test_kueue_job_admitted_runs_and_completes(lab: Any, queue: Any) -> None:
    with ClusterWatch(lab, NAMESPACE).running() as watch:
        job = watch.follow("job", "train")
        start = job.mark()
        created = queue.create(queued_job("train", 2, 4))
        uid = created["metadata"]["uid"]
        job.settle(expect("Running", {"job": 2}, gpus=8, gpus_in_use=8), timeout=120)
        primaries = job.primaries_since(start)
        assert_queued_first(primaries)
        assert admitted(kueue_workload(queue, uid))
        assert_peer_agreement(lab, "job", "train", uid)

        lab.set_phase(NAMESPACE, "Succeeded", label_selector=f"batch.kubernetes.io/controller-uid={uid}")
        job.settle(expect("Completed", {"job": 0}, desired={"job": 2}, gpus=8, gpus_in_use=0), timeout=120)


def test_kueue_raycluster_quota(lab: Any, queue: Any) -> None:
    with ClusterWatch(lab, NAMESPACE).running() as watch:
        first, second = watch.follow("raycluster", "first"), watch.follow("raycluster", "second")
        start = first.mark()
        created = queue.create(queued_raycluster("first", 2, 4))
        first.settle(expect("Running", {"head": 1, "worker": 2}, gpus=8, gpus_in_use=8), timeout=120)
        assert "Suspended" in first.primaries_since(start), first.primaries_since(start)
        assert_peer_agreement(lab, "raycluster", "first", created["metadata"]["uid"])

        waiting = queue.create(queued_raycluster("second", 1, 4))
        parked = expect("Suspended", {"head": 0, "worker": 0}, gpus=0, gpus_in_use=0)
        second.settle(parked)
        workload = kueue_workload(queue, waiting["metadata"]["uid"])
        assert not admitted(workload), workload.get("status")
        # Documented difference (docs/gang.md "Kueue PodSets"): Kueue sizes a queued RayCluster by what it will
        # run once admitted; wmap's desired pods of a suspended RayCluster are 0 (it runs none).
        kueue, ours = peer_podsets(lab, "raycluster", "second", waiting["metadata"]["uid"])
        assert kueue == {"head": (1, None), "gpu": (1, None)} and ours == {"head": (0, None), "gpu": (0, None)}

        step = second.mark()
        queue.delete("ray.io/v1", "RayCluster", "first", NAMESPACE)
        second.settle(expect("Running", {"head": 1, "worker": 1}, gpus=4, gpus_in_use=4), timeout=120)
        assert "Undefined" not in second.primaries_since(step), second.primaries_since(step)


def test_kueue_jobset_admitted(lab: Any, queue: Any) -> None:
    with ClusterWatch(lab, NAMESPACE).running() as watch:
        jobset = watch.follow("jobset", "pretrain")
        start = jobset.mark()
        created = queue.create(queued_jobset("pretrain", 2, 4))
        jobset.settle(expect("Running", {"replicatedJob": 3}, gpus=8, gpus_in_use=8), timeout=120)
        primaries = jobset.primaries_since(start)
        assert_queued_first(primaries)
        assert_peer_agreement(lab, "jobset", "pretrain", created["metadata"]["uid"])
