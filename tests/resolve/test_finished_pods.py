"""Pods of finished work are counted as done and request nothing (docs/semantics.md "Pod counts of finished pods").

Found with the real JobSet operator and KWOK: a Completed JobSet's PODS went from 4/4 to 0/4 once its
Succeeded pods' Ready condition turned False, and GPUS still said 8.
"""

from __future__ import annotations

from typing import Any

from helpers import pod
from workload_map.base.snapshot import Snapshot
from workload_map.catalog import builtin_definitions
from workload_map.cli.commands.get import row
from workload_map.definition.registry import DefinitionRegistry
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.tree.build import tree_of
from workload_map.tree.model import WorkloadTree

REGISTRY = DefinitionRegistry(builtin_definitions())
JOBSET_LABELS = "jobset.sigs.k8s.io"


def _tree(objects: list[dict[str, Any]]) -> WorkloadTree:
    view = WorkloadIndex(Snapshot(objects), REGISTRY)
    return tree_of(view, view.snapshot.objects[0])


def _jobset(status: dict[str, Any]) -> list[dict[str, Any]]:
    """A JobSet of one replicatedJob (2 Jobs x 2 pods, 2 GPUs each), its Jobs and pods, as the controller names
    and labels them; ``status`` is the JobSet's."""
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "pi", "namespace": "default", "uid": "js-uid"},
        "spec": {
            "replicatedJobs": [
                {
                    "name": "workers",
                    "replicas": 2,
                    "template": {
                        "spec": {
                            "parallelism": 2,
                            "completions": 2,
                            "template": {
                                "spec": {
                                    "restartPolicy": "Never",
                                    "containers": [
                                        {
                                            "name": "pi",
                                            "image": "perl",
                                            "resources": {"limits": {"nvidia.com/gpu": "2"}},
                                        }
                                    ],
                                }
                            },
                        }
                    },
                }
            ]
        },
        "status": status,
    }
    objects: list[dict[str, Any]] = [jobset]
    for job_index in range(2):
        job_name = f"pi-workers-{job_index}"
        objects.append(
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {
                    "name": job_name,
                    "namespace": "default",
                    "uid": f"job-{job_index}",
                    "ownerReferences": [
                        {
                            "apiVersion": "jobset.x-k8s.io/v1alpha2",
                            "kind": "JobSet",
                            "name": "pi",
                            "uid": "js-uid",
                            "controller": True,
                        }
                    ],
                },
            }
        )
    return objects


def _jobset_pod(job_index: int, pod_index: int, *, phase: str, ready: bool) -> dict[str, Any]:
    labels = {
        f"{JOBSET_LABELS}/jobset-name": "pi",
        f"{JOBSET_LABELS}/replicatedjob-name": "workers",
        f"{JOBSET_LABELS}/job-index": str(job_index),
    }
    return pod(
        f"pi-workers-{job_index}-{pod_index}",
        labels=labels,
        owner=("batch/v1", "Job", f"pi-workers-{job_index}"),
        owner_uid=f"job-{job_index}",
        phase=phase,
        ready=ready,
        gpus=2,
    )


COMPLETED = {
    "terminalState": "Completed",
    "conditions": [{"type": "Completed", "status": "True", "reason": "AllJobsCompleted"}],
}


def test_a_completed_jobsets_succeeded_pods_are_done_and_request_no_gpus() -> None:
    pods = [_jobset_pod(j, p, phase="Succeeded", ready=False) for j in range(2) for p in range(2)]
    tree = _tree([*_jobset(COMPLETED), *pods])
    assert tree.status.primary.value == "Completed"
    assert (tree.counts.ready, tree.counts.done, tree.counts.desired) == (0, 4, 4)
    assert tree.gpus == 0
    totals = tree.to_json()["totals"]
    assert (totals["pods"]["done"], totals["gpus"], totals["requests"]) == (4, 0, {})
    cells = row(tree, wide=False, with_namespace=False)
    assert cells[4:6] == ["4/4", "0"]


def test_a_running_jobset_does_not_request_gpus_for_pods_that_succeeded() -> None:
    running = {"replicatedJobsStatus": [{"name": "workers", "ready": 1, "succeeded": 1, "active": 1}]}
    pods = [
        _jobset_pod(0, 0, phase="Succeeded", ready=False),
        _jobset_pod(0, 1, phase="Succeeded", ready=False),
        _jobset_pod(1, 0, phase="Running", ready=True),
        _jobset_pod(1, 1, phase="Running", ready=True),
    ]
    tree = _tree([*_jobset(running), *pods])
    assert tree.status.primary.value not in ("Completed", "Failed")
    assert (tree.counts.done, tree.counts.desired) == (4, 4)
    assert tree.gpus == 4


def test_a_completed_workload_still_counts_the_gpus_of_its_pods_still_running() -> None:
    pods = [
        _jobset_pod(0, 0, phase="Succeeded", ready=False),
        _jobset_pod(0, 1, phase="Succeeded", ready=False),
        _jobset_pod(1, 0, phase="Succeeded", ready=False),
        _jobset_pod(1, 1, phase="Running", ready=True),  # a pod of a Job the success policy did not wait for
    ]
    tree = _tree([*_jobset(COMPLETED), *pods])
    assert tree.gpus == 2


def _job(parallelism: int, completions: int, succeeded: int) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "sweep", "namespace": "default", "uid": "job-uid"},
        "spec": {
            "parallelism": parallelism,
            "completions": completions,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {"name": "main", "image": "busybox", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
                    ],
                }
            },
        },
        "status": {
            "active": parallelism,
            "ready": parallelism,
            "succeeded": succeeded,
            "startTime": "2026-01-01T00:00:00Z",
        },
    }


def test_a_job_running_its_completions_one_parallelism_at_a_time() -> None:
    finished = [
        pod(
            f"sweep-{i}",
            owner=("batch/v1", "Job", "sweep"),
            owner_uid="job-uid",
            phase="Succeeded",
            ready=False,
            gpus=1,
        )
        for i in range(8)
    ]
    running = [pod(f"sweep-{i}", owner=("batch/v1", "Job", "sweep"), owner_uid="job-uid", gpus=1) for i in range(8, 10)]
    tree = _tree([_job(2, 10, 8), *finished, *running])
    assert (tree.counts.ready, tree.counts.done, tree.counts.desired) == (2, 2, 2)
    assert tree.gpus == 2
