"""A Deployment under kube-controller-manager: first rollout, scale up, a rolling update made with
``wmap update`` (whose changes the new pods carry), scale to zero. docs/semantics.md "Deployment"."""

from __future__ import annotations

import pytest

from .kube import Obj
from .lab import Lab
from .scenario import (
    GPU,
    Scenario,
    Step,
    Story,
    assert_updated,
    condition,
    container,
    live,
    phase_counts,
    pod_set,
    update_flags,
)

NS = "lab-deployment"
NAME = "web"


def deployment(replicas: int) -> Obj:
    return pod_set("Deployment", NS, NAME, replicas, container("server", "registry.local/web:1", "1", 1))


def _per(n: int) -> dict[str, int]:
    return {"deployment": n}


SCENARIO = Scenario(
    framework="deployment",
    name="scale-and-rollout",
    workload={"apiVersion": "apps/v1", "kind": "Deployment", "namespace": NS, "name": NAME},
    wmap_type="deployments",
    record_kinds=[("apps/v1", "Deployment"), ("apps/v1", "ReplicaSet"), ("v1", "Pod")],
    steps=[
        Step(
            "first rollout, pods starting",
            {
                "primary": "Initializing",
                "pods": _per(2),
                "podsCurrent": _per(2),
                "podsReady": _per(0),
                "gpus": 2,
                "gpusCurrent": 2,
            },
        ),
        Step(
            "available",
            {
                "primary": "Running",
                "pods": _per(2),
                "podsCurrent": _per(2),
                "podsReady": _per(2),
                "gpus": 2,
                "gpusCurrent": 2,
            },
        ),
        # "after a completed rollout, not Available or fewer available pods than replicas (a loss or a
        # scale-up: the status cannot tell them apart)" is Degraded.
        Step(
            "scaling up to 4",
            {
                "primary": "Degraded",
                "pods": _per(4),
                "podsCurrent": _per(4),
                "podsReady": _per(2),
                "gpus": 4,
                "gpusCurrent": 4,
            },
        ),
        Step(
            "scaled up",
            {
                "primary": "Running",
                "pods": _per(4),
                "podsCurrent": _per(4),
                "podsReady": _per(4),
                "gpus": 4,
                "gpusCurrent": 4,
            },
        ),
        # maxSurge 1, maxUnavailable 1 of 4: the old ReplicaSet keeps 3 Ready pods, the new one has 2
        # starting; Available stays True, so a rolling update within budget is Running.
        Step(
            "rolling update within budget",
            {
                "primary": "Running",
                "pods": _per(4),
                "podsCurrent": _per(5),
                "podsReady": _per(3),
                "gpus": 4,
                "gpusCurrent": 5,
            },
        ),
        Step(
            "rolled out",
            {
                "primary": "Running",
                "pods": _per(4),
                "podsCurrent": _per(4),
                "podsReady": _per(4),
                "gpus": 4,
                "gpusCurrent": 4,
            },
        ),
        Step(
            "scaled to zero",
            {
                "primary": "Suspended",
                "pods": _per(0),
                "podsCurrent": _per(0),
                "podsReady": _per(0),
                "gpus": 0,
                "gpusCurrent": 0,
            },
        ),
    ],
)


def _status(d: Obj, **wanted: int) -> bool:
    status = d.get("status") or {}
    return all(status.get(k, 0) == v for k, v in wanted.items())


def story(s: Story) -> None:
    lab = s.lab
    lab.kube.create(deployment(2))
    s.wait_pods(lambda pods: phase_counts(pods) == {"Pending": 2}, "2 pods bound and starting")
    s.wait_workload(
        lambda d: _status(d, replicas=2, unavailableReplicas=2) and condition(d, "Available").get("status") == "False",
        "2 replicas, none available",
    )
    s.observe("first rollout, pods starting")

    lab.set_phase(NS, "Ready", label_selector=f"app={NAME}")
    s.wait_workload(
        lambda d: (
            _status(d, availableReplicas=2, readyReplicas=2)
            and condition(d, "Progressing").get("reason") == "NewReplicaSetAvailable"
        ),
        "available, rollout complete",
    )
    s.observe("available")

    lab.kube.patch("apps/v1", "Deployment", NAME, {"spec": {"replicas": 4}}, namespace=NS)
    s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 2, "Pending": 2}, "2 more pods starting")
    s.wait_workload(
        lambda d: _status(d, replicas=4, availableReplicas=2, unavailableReplicas=2), "4 replicas, 2 available"
    )
    s.observe("scaling up to 4")

    lab.set_phase(NS, "Ready", label_selector=f"app={NAME}")
    s.wait_workload(lambda d: _status(d, replicas=4, availableReplicas=4, readyReplicas=4), "4 available")
    s.observe("scaled up")

    lab.wmap("update", f"deployments/{NAME}", "-n", NS, *update_flags("h100"), "--requests", "cpu=2")
    s.wait_pods(
        lambda pods: (
            phase_counts(pods) == {"Ready": 3, "Pending": 2}
            and sum(1 for p in pods if p["metadata"]["labels"].get("tier") == "gold") == 2
        ),
        "3 old pods Ready, 2 new ones starting",
    )
    s.wait_workload(lambda d: _status(d, replicas=5, updatedReplicas=2, availableReplicas=3), "5 pods, 2 updated")
    s.observe("rolling update within budget")
    s.scenario.captured["pods created after the update"] = live(s.pods("tier=gold"))

    with lab.auto_phase(NS, "Ready"):
        s.wait_workload(
            lambda d: (
                _status(d, replicas=4, updatedReplicas=4, availableReplicas=4)
                and condition(d, "Progressing").get("reason") == "NewReplicaSetAvailable"
            ),
            "rolled out: 4 updated pods available",
        )
        s.wait_pods(lambda pods: len(pods) == 4, "the old pods gone")
    s.observe("rolled out")
    s.scenario.captured["pods after the rollout"] = s.pods()

    lab.kube.patch("apps/v1", "Deployment", NAME, {"spec": {"replicas": 0}}, namespace=NS)
    s.wait_pods(lambda pods: not pods, "every pod gone")
    s.wait_workload(
        lambda d: _status(d, replicas=0) and d["status"].get("observedGeneration") == d["metadata"]["generation"],
        "0 replicas observed",
    )
    s.observe("scaled to zero")
    lab.kube.delete("apps/v1", "Deployment", NAME, NS)


@pytest.mark.parametrize("when", ["pods created after the update", "pods after the rollout"])
def test_update_reaches_pods(scenario: Scenario, when: str) -> None:
    """The pods the controller creates after ``wmap update`` carry every field the update wrote."""
    pods = scenario.captured[when]
    assert len(pods) == {"pods created after the update": 2, "pods after the rollout": 4}[when]
    for pod in pods:
        assert_carries_update(pod)


def assert_carries_update(pod: Obj) -> None:
    assert_updated(pod, "h100", resources={"requests": {"cpu": "2", GPU: "1"}, "limits": {GPU: "1"}})


@pytest.fixture(scope="module")
def scenario(lab: Lab) -> Scenario:
    return SCENARIO.run(lab, story)


@pytest.mark.parametrize("step", SCENARIO.params())
def test_step(scenario: Scenario, step: str) -> None:
    scenario.check(step)
