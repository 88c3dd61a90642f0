"""A Suspended workload whose pods are still terminating is Suspending (docs/semantics.md "Transitions", the
resolver's rule). Found in the cluster lab: JobSet v0.10.1 says Suspended=True with no Job active while the
suspended Jobs' pods are still terminating (replicatedJobsStatus counts Jobs with active pods only)."""

from __future__ import annotations

from typing import Any

from helpers import pod
from workload_map.base.snapshot import Snapshot
from workload_map.catalog import builtin_definitions
from workload_map.cli.render import ASCII, status_lines
from workload_map.definition.registry import DefinitionRegistry
from workload_map.resolve.status import RESOLVER_RULE
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.tree.build import tree_of
from workload_map.tree.model import WorkloadTree

REGISTRY = DefinitionRegistry(builtin_definitions())
SUSPENDED = {
    "restarts": 0,
    "conditions": [{"type": "Suspended", "status": "True", "reason": "SuspendedJobs"}],
    "replicatedJobsStatus": [{"name": "workers", "suspended": 1}],
}


def _tree(pods: list[dict[str, Any]]) -> WorkloadTree:
    """A suspended JobSet of one Job of two pods, as JobSet v0.10.1 reports it once the Job is suspended."""
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "pi", "namespace": "default", "uid": "js-uid"},
        "spec": {
            "suspend": True,
            "replicatedJobs": [
                {
                    "name": "workers",
                    "template": {"spec": {"parallelism": 2, "template": {"spec": {"containers": [{"name": "pi"}]}}}},
                }
            ],
        },
        "status": SUSPENDED,
    }
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "pi-workers-0",
            "namespace": "default",
            "uid": "job-0",
            "ownerReferences": [
                {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "pi", "uid": "js-uid"}
            ],
        },
    }
    view = WorkloadIndex(Snapshot([jobset, job, *pods]), REGISTRY)
    return tree_of(view, jobset)


def _pod(index: int, *, phase: str = "Running", terminating: bool = False) -> dict[str, Any]:
    labels = {"jobset.sigs.k8s.io/replicatedjob-name": "workers", "jobset.sigs.k8s.io/job-index": "0"}
    made = pod(f"pi-workers-0-{index}", labels=labels, owner=("batch/v1", "Job", "pi-workers-0"), owner_uid="job-0")
    made["status"]["phase"] = phase
    if terminating:
        made["metadata"]["deletionTimestamp"] = "2026-12-06T23:10:00Z"
    return made


def test_a_suspended_jobset_whose_pods_are_terminating_is_suspending() -> None:
    tree = _tree([_pod(0, terminating=True), _pod(1, terminating=True)])
    assert tree.status.primary.value == "Suspending"
    assert [s.value for s in tree.status.matched] == ["Suspending", "Suspended"]
    rule = next(e for e in tree.status.explanations if e.status.value == "Suspending").matchers[-1]
    assert (rule.index, rule.matched, rule.checks[0].kind, rule.checks[0].actual) == (
        RESOLVER_RULE,
        True,
        "pods",
        "2 terminating",
    )
    assert "  the resolver's rule: matched" in status_lines(tree.status, ASCII, full=True)


def test_suspended_once_the_pods_are_gone_or_finished() -> None:
    assert _tree([]).status.primary.value == "Suspended"
    finished = [_pod(0, phase="Failed", terminating=True), _pod(1, phase="Succeeded")]
    assert _tree(finished).status.primary.value == "Suspended"


def test_a_pod_running_beside_the_terminating_ones_leaves_it_suspended() -> None:
    """Not every pod is going away (a paused Deployment scaled down is Suspended and keeps its pods)."""
    tree = _tree([_pod(0, terminating=True), _pod(1)])
    assert tree.status.primary.value == "Suspended"
    assert "Suspending" not in [s.value for s in tree.status.matched]
