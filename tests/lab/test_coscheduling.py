"""PodGroups from ``wmap gang --for coscheduling`` on the real scheduler-plugins coscheduling scheduler.

Each Job is created suspended with the coscheduling scheduler's name, its PodGroup is what ``wmap gang``
emits, the pods attach through ``wmap update --label`` (docs/gang.md section 9) and start with ``wmap update
--resume``. A gang that cannot fit stays wholly Pending, one that fits is bound whole, and the scheduler waits
for exactly the minMember wmap computed: one pod short, nothing binds."""

from __future__ import annotations

from typing import Any

import pytest

from .kwok import PHASE_ANNOTATION, POOL_LABEL
from .operators.coscheduling import SCHEDULER_NAME
from .scenario import ClusterWatch, expect

pytestmark = pytest.mark.lab

NAMESPACE = "lab-gang"
POOL = "h100"  # two nodes of 8 GPUs (tests/lab/kwok.py)
GPUS_PER_NODE = 8
MIN_MEMBER_ANNOTATION = "kai.scheduler/batch-min-member"  # the Job definition's gang size (docs/gang.md 10)
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
# How long a gang that must not bind is watched after the scheduler has tried every member: longer than
# the plugin's Permit wait, so members held in Permit would have been released or bound by then.
QUIET_S = 40


def gang_job(name: str, pods: int, gpus: int, min_member: int) -> dict[str, Any]:
    container = {
        "name": "main",
        "image": "busybox",
        "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": str(gpus)}, "limits": {"nvidia.com/gpu": str(gpus)}},
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NAMESPACE, "annotations": {MIN_MEMBER_ANNOTATION: str(min_member)}},
        "spec": {
            "suspend": True,
            "parallelism": pods,
            "completions": pods,
            "template": {
                "metadata": {"annotations": {PHASE_ANNOTATION: "Ready"}},
                "spec": {
                    "schedulerName": SCHEDULER_NAME,
                    "restartPolicy": "Never",
                    "nodeSelector": {POOL_LABEL: POOL},
                    "containers": [container],
                },
            },
        },
    }


def attach_gang(lab: Any, name: str) -> dict[str, Any]:
    """Apply the PodGroup ``wmap gang --for coscheduling`` emits and label the Job's pods with it."""
    emitted = lab.wmap_json("gang", f"job/{name}", "-n", NAMESPACE, "--for", "coscheduling")
    groups = emitted["items"] if emitted.get("kind") == "List" else [emitted]
    assert [g["kind"] for g in groups] == ["PodGroup"], groups
    group = groups[0]
    lab.kube.create(group)
    lab.wmap("update", f"job/{name}", "-n", NAMESPACE, "--label", f"{POD_GROUP_LABEL}={group['metadata']['name']}")
    return group


def resume(lab: Any, name: str) -> None:
    lab.wmap("update", f"job/{name}", "-n", NAMESPACE, "--resume")


def pods_of(view: Any, name: str) -> list[dict[str, Any]]:
    return [
        o
        for o in view.objects
        if o.get("kind") == "Pod"
        and o["metadata"].get("namespace") == NAMESPACE
        and o["metadata"].get("labels", {}).get("job-name") == name
    ]


def tried(pod: dict[str, Any]) -> bool:
    """The scheduler has looked at the pod and left it unbound (PodScheduled=False)."""
    return any(
        c["type"] == "PodScheduled" and c["status"] == "False" for c in pod.get("status", {}).get("conditions", [])
    )


@pytest.fixture
def gang_lab(lab: Any) -> Any:
    lab.start_operator("coscheduling")
    lab.lab.namespace(NAMESPACE)
    return lab


def assert_never_binds(watch: ClusterWatch, follower: Any, name: str, pods: int) -> None:
    watch.wait_view(
        lambda v: len(pods_of(v, name)) == pods and all(tried(p) for p in pods_of(v, name)),
        timeout=90,
        what=f"every pod of {name} tried by the scheduler",
    )
    quiet = follower.mark()
    with pytest.raises(AssertionError):
        follower.wait_for(lambda s: s is not None and s.gpus_in_use > 0, timeout=QUIET_S, what="a bound pod")
    assert all(state is None or state.gpus_in_use == 0 for state in follower.states_since(quiet))


def test_gang_that_cannot_fit_stays_pending(gang_lab: Any) -> None:
    lab = gang_lab
    pods = 3  # 3 x 8 GPUs on a pool of two 8-GPU nodes
    with ClusterWatch(lab, NAMESPACE).running() as watch:
        job = watch.follow("job", "too-big")
        lab.kube.create(gang_job("too-big", pods, GPUS_PER_NODE, pods))
        fit = lab.wmap_json("fit", "job/too-big", "-n", NAMESPACE)
        assert fit["copies"] == 0, fit["verdict"]
        group = attach_gang(lab, "too-big")
        assert group["spec"]["minMember"] == pods
        resume(lab, "too-big")
        assert_never_binds(watch, job, "too-big", pods)
        job.settle(expect("Resuming", {"job": pods}, gpus=pods * GPUS_PER_NODE, gpus_in_use=0))
        lab.kube.delete("batch/v1", "Job", "too-big", NAMESPACE, propagationPolicy="Background")
        job.wait_for(lambda state: state is None, what="gone")


def test_gang_that_fits_is_bound_whole(gang_lab: Any) -> None:
    lab = gang_lab
    pods = 2
    with ClusterWatch(lab, NAMESPACE).running() as watch:
        job = watch.follow("job", "fits")
        lab.kube.create(gang_job("fits", pods, GPUS_PER_NODE, pods))
        assert lab.wmap_json("fit", "job/fits", "-n", NAMESPACE)["copies"] == 1
        assert attach_gang(lab, "fits")["spec"]["minMember"] == pods
        start = job.mark()
        resume(lab, "fits")
        job.settle(expect("Running", {"job": pods}, gpus=pods * GPUS_PER_NODE, gpus_in_use=pods * GPUS_PER_NODE))
        # Whole: no state with some members bound and others not.
        partial = [s for s in job.states_since(start) if s is not None and 0 < s.gpus_in_use < pods * GPUS_PER_NODE]
        assert not partial, partial
        lab.kube.delete("batch/v1", "Job", "fits", NAMESPACE, propagationPolicy="Background")
        job.wait_for(lambda state: state is None, what="gone")


def test_scheduler_waits_for_wmaps_min_member(gang_lab: Any) -> None:
    lab = gang_lab
    with ClusterWatch(lab, NAMESPACE).running() as watch:
        job = watch.follow("job", "short")
        lab.kube.create(gang_job("short", 2, 4, 2))
        group = attach_gang(lab, "short")
        assert group["spec"]["minMember"] == 2
        # One pod short of the gang wmap computed: the Job runs 1 pod, the PodGroup asks for 2.
        lab.kube.patch("batch/v1", "Job", "short", {"spec": {"parallelism": 1}}, namespace=NAMESPACE)
        resume(lab, "short")
        assert_never_binds(watch, job, "short", 1)
        start = job.mark()
        lab.kube.patch("batch/v1", "Job", "short", {"spec": {"parallelism": 2}}, namespace=NAMESPACE)
        job.settle(expect("Running", {"job": 2}, gpus=8, gpus_in_use=8))
        partial = [s for s in job.states_since(start) if s is not None and 0 < s.gpus_in_use < 8]
        assert not partial, partial
        lab.kube.delete("batch/v1", "Job", "short", NAMESPACE, propagationPolicy="Background")
        job.wait_for(lambda state: state is None, what="gone")
