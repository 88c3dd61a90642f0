"""PodGroups from ``wmap gang --for coscheduling`` on the real scheduler-plugins v0.33.5 coscheduling scheduler.

Each Job is created suspended with the coscheduling scheduler's name; its PodGroup is what ``wmap gang``
emits, the pods attach through ``wmap update --label`` (docs/gang.md section 9) and start with ``wmap update
--resume``. A gang that cannot fit stays wholly Pending, one that fits is bound whole, and the scheduler waits
for exactly the minMember wmap computed: one pod short, nothing binds."""

from __future__ import annotations

from typing import Any

import pytest

from .kwok import POOL_LABEL
from .lab import Lab, LabError
from .operators.coscheduling import PERMIT_WAITING_SECONDS, SCHEDULER_NAME
from .scenario import Scenario, Step, Story

NAMESPACE = "lab-gang"
POOL = "h100"  # two nodes of 8 GPUs (tests/lab/kwok.py)
MIN_MEMBER_ANNOTATION = "kai.scheduler/batch-min-member"  # the Job definition's gang size (docs/gang.md 10)
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
# How long a gang that must not bind is watched once the scheduler has tried every member: longer than the
# plugin's Permit wait, so members held in Permit would have been bound or released by then.
QUIET_S = PERMIT_WAITING_SECONDS + 10
# What the stories saw besides the steps' facts: (scenario, what) -> value.
SEEN: dict[tuple[str, str], Any] = {}


def gang_job(name: str, pods: int, gpus: int, min_member: int) -> dict[str, Any]:
    requests = {"cpu": "1", "nvidia.com/gpu": str(gpus)}
    container = {
        "name": "main",
        "image": "busybox",
        "resources": {"requests": requests, "limits": {"nvidia.com/gpu": str(gpus)}},
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
                "spec": {
                    "schedulerName": SCHEDULER_NAME,
                    "restartPolicy": "Never",
                    "nodeSelector": {POOL_LABEL: POOL},
                    "containers": [container],
                }
            },
        },
    }


def facts(primary: str, desired: int, present: int, ready: int, gpus: int) -> dict[str, Any]:
    return {
        "primary": primary,
        "pods": {"job": desired},
        "podsCurrent": {"job": present},
        "podsReady": {"job": ready},
        "gpus": desired * gpus,
        "gpusCurrent": present * gpus,
    }


def attach_gang(story: Story, name: str) -> dict[str, Any]:
    """Apply the PodGroup ``wmap gang --for coscheduling`` emits and label the Job's pods with it."""
    lab = story.lab
    emitted = lab.wmap_json("gang", f"job/{name}", "-n", NAMESPACE, "--for", "coscheduling")
    groups = emitted["items"] if emitted.get("kind") == "List" else [emitted]
    assert [g["kind"] for g in groups] == ["PodGroup"], groups
    group: dict[str, Any] = groups[0]
    lab.kube.create(group)
    lab.wmap("update", f"job/{name}", "-n", NAMESPACE, "--label", f"{POD_GROUP_LABEL}={group['metadata']['name']}")
    SEEN[(story.scenario.name, "minMember")] = group["spec"]["minMember"]
    return group


def tried(pod: dict[str, Any]) -> bool:
    """The scheduler has looked at the pod and left it unbound (PodScheduled=False)."""
    conditions = (pod.get("status") or {}).get("conditions") or []
    return not pod["spec"].get("nodeName") and any(
        c["type"] == "PodScheduled" and c["status"] == "False" for c in conditions
    )


def bound(pods: list[dict[str, Any]]) -> int:
    return sum(1 for p in pods if p["spec"].get("nodeName") and not p["metadata"].get("deletionTimestamp"))


def hold_unbound(story: Story, name: str, pods: int) -> None:
    """Every pod of the Job is tried and left Pending, and none binds for longer than the Permit wait."""
    selector = f"job-name={name}"
    story.wait_pods(
        lambda ps: len(ps) == pods and all(tried(p) for p in ps),
        f"{pods} pods tried, none bound",
        label_selector=selector,
    )
    try:
        story.lab.wait_for(
            "v1",
            "Pod",
            NAMESPACE,
            lambda ps: bound(ps) > 0,
            what="a pod bound",
            timeout=QUIET_S,
            label_selector=selector,
        )
    except LabError:
        SEEN[(story.scenario.name, "bound while waiting")] = 0
    else:
        SEEN[(story.scenario.name, "bound while waiting")] = bound(story.pods(selector))


def wait_bound(story: Story, name: str, pods: int) -> None:
    story.wait_pods(lambda ps: bound(ps) == pods, f"{pods} pods bound", label_selector=f"job-name={name}")


def gang_scenario(name: str, job: str, steps: list[Step]) -> Scenario:
    return Scenario(
        framework="coscheduling",
        name=name,
        workload={"apiVersion": "batch/v1", "kind": "Job", "namespace": NAMESPACE, "name": job},
        wmap_type="job",
        record_kinds=[("batch/v1", "Job"), ("v1", "Pod"), ("scheduling.x-k8s.io/v1alpha1", "PodGroup")],
        operator="coscheduling",
        steps=steps,
    )


# 3 pods x 8 GPUs on a pool of two 8-GPU nodes.
CANNOT_FIT = gang_scenario("gang-cannot-fit", "too-big", [Step("waiting whole", facts("Resuming", 3, 3, 0, 8))])


def cannot_fit(story: Story) -> None:
    lab = story.lab
    lab.kube.create(gang_job("too-big", 3, 8, 3))
    SEEN[(story.scenario.name, "fit copies")] = lab.wmap_json("fit", "job/too-big", "-n", NAMESPACE)["copies"]
    attach_gang(story, "too-big")
    lab.wmap("update", "job/too-big", "-n", NAMESPACE, "--resume")
    hold_unbound(story, "too-big", 3)
    story.observe("waiting whole")
    lab.kube.delete("batch/v1", "Job", "too-big", NAMESPACE, propagationPolicy="Background")


FITS = gang_scenario(
    "gang-fits",
    "fits",
    [
        Step("bound whole", facts("Resuming", 2, 2, 0, 8)),
        Step("running", facts("Running", 2, 2, 2, 8)),
    ],
)


def fits(story: Story) -> None:
    lab = story.lab
    lab.kube.create(gang_job("fits", 2, 8, 2))
    SEEN[(story.scenario.name, "fit copies")] = lab.wmap_json("fit", "job/fits", "-n", NAMESPACE)["copies"]
    attach_gang(story, "fits")
    lab.wmap("update", "job/fits", "-n", NAMESPACE, "--resume")
    wait_bound(story, "fits", 2)
    story.observe("bound whole")
    lab.set_phase(NAMESPACE, "Ready", label_selector="job-name=fits")
    story.wait_workload(lambda job: (job.get("status") or {}).get("ready") == 2, "2 pods ready")
    story.observe("running")
    lab.kube.delete("batch/v1", "Job", "fits", NAMESPACE, propagationPolicy="Background")


ONE_SHORT = gang_scenario(
    "gang-one-short",
    "short",
    [
        Step("one pod short", facts("Resuming", 1, 1, 0, 4)),
        Step("gang complete", facts("Resuming", 2, 2, 0, 4)),
    ],
)


def one_short(story: Story) -> None:
    lab = story.lab
    lab.kube.create(gang_job("short", 2, 4, 2))
    attach_gang(story, "short")
    # The PodGroup asks for the 2 members wmap computed; the Job now runs 1.
    lab.kube.patch("batch/v1", "Job", "short", {"spec": {"parallelism": 1}}, namespace=NAMESPACE)
    lab.wmap("update", "job/short", "-n", NAMESPACE, "--resume")
    hold_unbound(story, "short", 1)
    story.observe("one pod short")
    lab.kube.patch("batch/v1", "Job", "short", {"spec": {"parallelism": 2}}, namespace=NAMESPACE)
    wait_bound(story, "short", 2)
    story.observe("gang complete")
    lab.kube.delete("batch/v1", "Job", "short", NAMESPACE, propagationPolicy="Background")


def run(lab: Lab, scenario: Scenario, story: Any) -> Scenario:
    lab.start_operator("coscheduling")
    return scenario.run(lab, story)


@pytest.fixture(scope="module")
def cannot_fit_run(lab: Lab) -> Scenario:
    return run(lab, CANNOT_FIT, cannot_fit)


@pytest.fixture(scope="module")
def fits_run(lab: Lab) -> Scenario:
    return run(lab, FITS, fits)


@pytest.fixture(scope="module")
def one_short_run(lab: Lab) -> Scenario:
    return run(lab, ONE_SHORT, one_short)


@pytest.mark.parametrize("step", CANNOT_FIT.params())
def test_gang_that_cannot_fit(cannot_fit_run: Scenario, step: str) -> None:
    cannot_fit_run.check(step)


def test_gang_that_cannot_fit_binds_nothing(cannot_fit_run: Scenario) -> None:
    name = cannot_fit_run.name
    assert SEEN[(name, "minMember")] == 3
    assert SEEN[(name, "fit copies")] == 0  # wmap fit says so before the scheduler tries
    assert SEEN[(name, "bound while waiting")] == 0


@pytest.mark.parametrize("step", FITS.params())
def test_gang_that_fits(fits_run: Scenario, step: str) -> None:
    fits_run.check(step)


def test_gang_that_fits_was_fitted(fits_run: Scenario) -> None:
    assert SEEN[(fits_run.name, "minMember")] == 2
    assert SEEN[(fits_run.name, "fit copies")] == 1


@pytest.mark.parametrize("step", ONE_SHORT.params())
def test_gang_one_pod_short(one_short_run: Scenario, step: str) -> None:
    one_short_run.check(step)


def test_scheduler_waits_for_wmaps_min_member(one_short_run: Scenario) -> None:
    assert SEEN[(one_short_run.name, "minMember")] == 2
    assert SEEN[(one_short_run.name, "bound while waiting")] == 0
