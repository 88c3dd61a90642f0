"""A cluster with queues of three schedulers, built from their documented APIs (our own objects).

Kueue (v1beta2): a cohort ``research`` named by two ClusterQueues (no Cohort object), ``team-a`` with 8
GPUs of nominal quota (borrowing limit 4) and ``team-b`` with 8; LocalQueue ``team-a/a-queue``. Three Jobs in
it: ``a1`` admitted with 8 GPUs, ``a2`` admitted with 4 GPUs borrowed from the cohort, ``a3`` pending (no
flavor fits). KAI: Queue ``department`` (16 GPUs) above ``team-x`` (quota 4, limit 8, over-quota weight 2);
Job ``x1`` with 3 pods of 2 GPUs bound, Job ``x2`` waiting with a PodGroup KAI did not schedule. Volcano:
Queue ``vq`` (deserved 4 GPUs, capability 8, guarantee 2, weight 3); Volcano Job ``v1`` pending; apart
(``volcano_pytorchjob``), PyTorchJob ``pt-vq`` in ``vq`` named only by its PodGroup.
"""

from __future__ import annotations

from typing import Any

KUEUE = "kueue.x-k8s.io/v1beta2"
NS = "team-a"


def _pod(
    name: str, owner: dict[str, Any], gpus: int, *, node: str | None, labels: dict[str, str] | None = None
) -> dict[str, Any]:
    ref = {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
    }
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "main",
                "image": "x",
                "resources": {
                    "requests": {"nvidia.com/gpu": str(gpus), "cpu": "1"},
                    "limits": {"nvidia.com/gpu": str(gpus)},
                },
            }
        ]
    }
    status: dict[str, Any] = {"phase": "Pending"}
    if node:
        spec["nodeName"] = node
        status = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": owner["metadata"]["namespace"],
            "uid": f"uid-{name}",
            "labels": labels or {},
            "ownerReferences": [ref],
        },
        "spec": spec,
        "status": status,
    }


def _job(
    name: str, ns: str, pods: int, gpus: int, labels: dict[str, str], *, suspended: bool = False
) -> dict[str, Any]:
    container = {
        "name": "main",
        "image": "x",
        "resources": {"requests": {"nvidia.com/gpu": str(gpus), "cpu": "1"}, "limits": {"nvidia.com/gpu": str(gpus)}},
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}", "labels": labels},
        "spec": {
            "suspend": suspended,
            "parallelism": pods,
            "completions": pods,
            "template": {"metadata": {"labels": labels}, "spec": {"restartPolicy": "Never", "containers": [container]}},
        },
        "status": {"active": 0 if suspended else pods},
    }


def _condition(kind: str, status: str, reason: str = "", message: str = "") -> dict[str, Any]:
    return {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message,
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }


def _kueue_workload(job: dict[str, Any], pods: int, gpus: int, *, admitted: bool, message: str = "") -> dict[str, Any]:
    name = job["metadata"]["name"]
    ref = {"apiVersion": "batch/v1", "kind": "Job", "name": name, "uid": job["metadata"]["uid"], "controller": True}
    workload: dict[str, Any] = {
        "apiVersion": KUEUE,
        "kind": "Workload",
        "metadata": {"name": f"job-{name}-1a2b3", "namespace": NS, "uid": f"uid-wl-{name}", "ownerReferences": [ref]},
        "spec": {"queueName": "a-queue", "podSets": [{"name": "main", "count": pods, "template": {}}]},
        "status": {},
    }
    if admitted:
        workload["status"] = {
            "admission": {
                "clusterQueue": "team-a",
                "podSetAssignments": [
                    {
                        "name": "main",
                        "count": pods,
                        "flavors": {"nvidia.com/gpu": "h100", "cpu": "h100"},
                        "resourceUsage": {"nvidia.com/gpu": str(pods * gpus), "cpu": str(pods)},
                    }
                ],
            },
            "conditions": [
                _condition("QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue team-a"),
                _condition("Admitted", "True", "Admitted", "The workload is admitted"),
            ],
        }
    else:
        workload["status"] = {"conditions": [_condition("QuotaReserved", "False", "Pending", message)]}
    return workload


def kueue_objects() -> list[dict[str, Any]]:
    def cluster_queue(name: str, borrowing: str | None, reserved: int, borrowed: int) -> dict[str, Any]:
        gpu: dict[str, Any] = {"name": "nvidia.com/gpu", "nominalQuota": "8"}
        if borrowing:
            gpu["borrowingLimit"] = borrowing
        return {
            "apiVersion": KUEUE,
            "kind": "ClusterQueue",
            "metadata": {"name": name},
            "spec": {
                "cohortName": "research",
                "namespaceSelector": {},
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "nvidia.com/gpu"],
                        "flavors": [{"name": "h100", "resources": [{"name": "cpu", "nominalQuota": "64"}, gpu]}],
                    }
                ],
            },
            "status": {
                "flavorsReservation": [
                    {
                        "name": "h100",
                        "resources": [
                            {"name": "cpu", "total": str(reserved // 2), "borrowed": "0"},
                            {"name": "nvidia.com/gpu", "total": str(reserved), "borrowed": str(borrowed)},
                        ],
                    }
                ],
                "flavorsUsage": [
                    {
                        "name": "h100",
                        "resources": [
                            {"name": "cpu", "total": str(reserved // 2), "borrowed": "0"},
                            {"name": "nvidia.com/gpu", "total": str(reserved), "borrowed": str(borrowed)},
                        ],
                    }
                ],
                "pendingWorkloads": 1 if name == "team-a" else 0,
                "reservingWorkloads": 2 if name == "team-a" else 0,
                "admittedWorkloads": 2 if name == "team-a" else 0,
            },
        }

    a1 = _job("a1", NS, 4, 2, {"kueue.x-k8s.io/queue-name": "a-queue"})
    a2 = _job("a2", NS, 2, 2, {"kueue.x-k8s.io/queue-name": "a-queue"})
    a3 = _job("a3", NS, 1, 8, {"kueue.x-k8s.io/queue-name": "a-queue"}, suspended=True)
    objects = [
        {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "h100"}},
        cluster_queue("team-a", "4", 12, 4),
        cluster_queue("team-b", None, 0, 0),
        {
            "apiVersion": KUEUE,
            "kind": "LocalQueue",
            "metadata": {"name": "a-queue", "namespace": NS},
            "spec": {"clusterQueue": "team-a"},
        },
        a1,
        a2,
        a3,
        _kueue_workload(a1, 4, 2, admitted=True),
        _kueue_workload(a2, 2, 2, admitted=True),
        _kueue_workload(
            a3,
            1,
            8,
            admitted=False,
            message="couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu "
            "in flavor h100, 8 more needed",
        ),
    ]
    objects += [_pod(f"a1-{i}", a1, 2, node=f"gpu-{i % 2}") for i in range(4)]
    objects += [_pod(f"a2-{i}", a2, 2, node="gpu-2") for i in range(2)]
    return objects


def kai_objects() -> list[dict[str, Any]]:
    queue = "scheduling.run.ai/v2"
    x1 = _job("x1", "team-x", 3, 2, {"kai.scheduler/queue": "team-x"})
    x2 = _job("x2", "team-x", 2, 4, {})  # its queue only on its pods' template and PodGroup
    pod_group = {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {
            "name": "pg-x2",
            "namespace": "team-x",
            "ownerReferences": [
                {"apiVersion": "batch/v1", "kind": "Job", "name": "x2", "uid": "uid-x2", "controller": True}
            ],
        },
        "spec": {"queue": "team-x", "minMember": 2},
        "status": {
            "schedulingConditions": [
                {
                    "type": "UnschedulableOnNodePool",
                    "reason": "OverLimit",
                    "nodePool": "default",
                    "message": "Non-preemptible workload is over quota. "
                    "Workload requested 8 GPUs, but team-x quota is 4 GPUs",
                }
            ]
        },
    }
    return [
        {
            "apiVersion": queue,
            "kind": "Queue",
            "metadata": {"name": "department"},
            "spec": {
                "resources": {
                    "gpu": {"quota": 16, "limit": -1, "overQuotaWeight": 1},
                    "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                }
            },
        },
        {
            "apiVersion": queue,
            "kind": "Queue",
            "metadata": {"name": "team-x"},
            "spec": {
                "parentQueue": "department",
                "resources": {
                    "gpu": {"quota": 4, "limit": 8, "overQuotaWeight": 2},
                    "cpu": {"quota": 8000, "limit": -1, "overQuotaWeight": 1},
                    "memory": {"quota": 64000, "limit": -1, "overQuotaWeight": 1},
                },
            },
            "status": {"allocated": {"nvidia.com/gpu": "6", "cpu": "3"}},
        },
        x1,
        x2,
        pod_group,
        *[_pod(f"x1-{i}", x1, 2, node="gpu-3") for i in range(3)],
        *[_pod(f"x2-{i}", x2, 4, node=None, labels={"kai.scheduler/queue": "team-x"}) for i in range(2)],
    ]


def volcano_objects() -> list[dict[str, Any]]:
    job = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "v1", "namespace": "team-v", "uid": "uid-v1"},
        "spec": {
            "queue": "vq",
            "minAvailable": 2,
            "schedulerName": "volcano",
            "tasks": [
                {
                    "name": "worker",
                    "replicas": 2,
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "main",
                                    "image": "x",
                                    "resources": {
                                        "requests": {"nvidia.com/gpu": "4"},
                                        "limits": {"nvidia.com/gpu": "4"},
                                    },
                                }
                            ]
                        }
                    },
                }
            ],
        },
        "status": {"state": {"phase": "Pending"}},
    }
    pod_group = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {
            "name": "v1-uid-v1",
            "namespace": "team-v",
            "ownerReferences": [
                {
                    "apiVersion": "batch.volcano.sh/v1alpha1",
                    "kind": "Job",
                    "name": "v1",
                    "uid": "uid-v1",
                    "controller": True,
                }
            ],
        },
        "spec": {"queue": "vq", "minMember": 2, "minResources": {"nvidia.com/gpu": "8"}},
        "status": {
            "phase": "Pending",
            "conditions": [
                {
                    "type": "Unschedulable",
                    "status": "True",
                    "reason": "NotEnoughResources",
                    "message": "2/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 2 minAvailable",
                }
            ],
        },
    }
    queue = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": "vq"},
        "spec": {
            "weight": 3,
            "reclaimable": True,
            "parent": "root",
            "capability": {"nvidia.com/gpu": "8"},
            "deserved": {"nvidia.com/gpu": "4"},
            "guarantee": {"resource": {"nvidia.com/gpu": "2"}},
        },
        "status": {"state": "Open", "pending": 1, "running": 0, "inqueue": 0},
    }
    root = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": "root"},
        "spec": {"weight": 1},
        "status": {"state": "Open"},
    }
    return [job, pod_group, queue, root]


def volcano_pytorchjob() -> list[dict[str, Any]]:
    """A PyTorchJob the training operator gang-schedules with Volcano: only its PodGroup names the queue
    (``runPolicy.schedulingPolicy.queue`` becomes the PodGroup's ``spec.queue``), which Volcano let in."""
    replica = {
        "replicas": 1,
        "template": {
            "spec": {"containers": [{"name": "pytorch", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 2}}}]}
        },
    }
    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "pt-vq", "namespace": "team-v", "uid": "uid-pt-vq"},
        "spec": {
            "runPolicy": {"schedulingPolicy": {"queue": "vq", "minAvailable": 2}},
            "pytorchReplicaSpecs": {"Master": replica, "Worker": replica},
        },
        "status": {"conditions": [{"type": "Created", "status": "True", "reason": "PyTorchJobCreated"}]},
    }
    owner = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": "pt-vq", "uid": "uid-pt-vq"}
    pod_group = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "pt-vq", "namespace": "team-v", "ownerReferences": [{**owner, "controller": True}]},
        "spec": {"queue": "vq", "minMember": 2, "minResources": {"nvidia.com/gpu": "4"}},
        "status": {"phase": "Inqueue"},
    }
    return [job, pod_group]


def all_objects() -> list[dict[str, Any]]:
    return [*kueue_objects(), *kai_objects(), *volcano_objects()]
