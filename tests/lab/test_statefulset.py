"""A StatefulSet under kube-controller-manager: the ordered first rollout, scale up, a rolling update made
with ``wmap update``, scale down, scale to zero. docs/semantics.md "StatefulSet"."""

from __future__ import annotations

import pytest

from .kube import Obj
from .lab import Lab
from .scenario import Scenario, Step, Story, container, phase_counts, pod_set

NS = "lab-statefulset"
NAME = "db"


def statefulset(replicas: int) -> Obj:
    main = container("shard", "registry.local/db:1", "2", 2)
    return pod_set("StatefulSet", NS, NAME, replicas, main, serviceName=NAME)


def _expect(primary: str, desired: int, current: int, ready: int) -> dict[str, object]:
    return {
        "primary": primary,
        "pods": {"statefulset": desired},
        "podsCurrent": {"statefulset": current},
        "podsReady": {"statefulset": ready},
        "gpus": 2 * desired,
        "gpusCurrent": 2 * current,
    }


SCENARIO = Scenario(
    framework="statefulset",
    name="ordered-rollout-scale-update",
    workload={"apiVersion": "apps/v1", "kind": "StatefulSet", "namespace": NS, "name": NAME},
    wmap_type="statefulsets",
    record_kinds=[("apps/v1", "StatefulSet"), ("v1", "Pod")],
    steps=[
        # "none Ready (just created ...)" and "the first rollout: generation 1 while pods are still being
        # created (OrderedReady creates pod N only after 0..N-1 are Ready)" are Initializing.
        Step("first pod starting", _expect("Initializing", 3, 1, 0)),
        Step("first rollout, second pod starting", _expect("Initializing", 3, 2, 1)),
        Step("all ready", _expect("Running", 3, 3, 3)),
        # "Running: ... a scale-up in flight: generation > 1, some pods Ready and fewer pods created than
        # wanted" (OrderedReady creates db-4 once db-3 is Ready).
        Step("scaling up to 5", _expect("Running", 5, 4, 3)),
        Step("scaled up", _expect("Running", 5, 5, 5)),
        # "a rolling update (currentRevision != updateRevision) with no more pods unready than
        # maxUnavailable (default 1)" is Running.
        Step("rolling update, last pod replaced", _expect("Running", 5, 5, 4)),
        Step("rolled out", _expect("Running", 5, 5, 5)),
        Step("scaled down to 2", _expect("Running", 2, 2, 2)),
        # "spec.replicas 0 with ... none left" is Suspended.
        Step("scaled to zero", _expect("Suspended", 0, 0, 0)),
    ],
)


def _status(obj: Obj, **wanted: object) -> bool:
    status = obj.get("status") or {}
    return all(status.get(k, 0) == v for k, v in wanted.items())


def story(s: Story) -> None:
    lab = s.lab
    lab.kube.create(statefulset(3))
    s.wait_pods(lambda pods: phase_counts(pods) == {"Pending": 1}, "db-0 bound and starting")
    s.wait_workload(lambda o: _status(o, replicas=1, readyReplicas=0), "1 pod counted")
    s.observe("first pod starting")

    lab.set_phase(NS, "Ready", [f"{NAME}-0"])
    s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 1, "Pending": 1}, "db-0 Ready, db-1 starting")
    s.wait_workload(lambda o: _status(o, replicas=2, readyReplicas=1), "2 pods counted, 1 Ready")
    s.observe("first rollout, second pod starting")

    with lab.auto_phase(NS, "Ready"):
        s.wait_workload(lambda o: _status(o, replicas=3, readyReplicas=3), "3 Ready")
    s.observe("all ready")

    lab.kube.patch("apps/v1", "StatefulSet", NAME, {"spec": {"replicas": 5}}, namespace=NS)
    s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 3, "Pending": 1}, "db-3 starting")
    s.wait_workload(lambda o: _status(o, replicas=4, readyReplicas=3), "4 pods counted, 3 Ready")
    s.observe("scaling up to 5")

    with lab.auto_phase(NS, "Ready"):
        s.wait_workload(lambda o: _status(o, replicas=5, readyReplicas=5), "5 Ready")
    s.observe("scaled up")

    lab.wmap("update", f"statefulsets/{NAME}", "-n", NS, "--label", "tier=gold")
    s.wait_pods(
        lambda pods: (
            phase_counts(pods) == {"Ready": 4, "Pending": 1}
            and [p["metadata"]["name"] for p in pods if p["metadata"]["labels"].get("tier") == "gold"] == [f"{NAME}-4"]
        ),
        "db-4 replaced by a pod of the new revision, starting",
    )
    s.wait_workload(
        lambda o: (
            _status(o, replicas=5, readyReplicas=4, updatedReplicas=1)
            and o["status"].get("currentRevision") != o["status"].get("updateRevision")
        ),
        "rolling update: 1 updated, 4 Ready",
    )
    s.observe("rolling update, last pod replaced")

    with lab.auto_phase(NS, "Ready"):
        s.wait_workload(
            lambda o: (
                _status(o, replicas=5, readyReplicas=5, updatedReplicas=5)
                and o["status"].get("currentRevision") == o["status"].get("updateRevision")
            ),
            "rolled out: 5 updated and Ready",
        )
    s.observe("rolled out")
    s.scenario.captured["pods after the rollout"] = s.pods()

    lab.kube.patch("apps/v1", "StatefulSet", NAME, {"spec": {"replicas": 2}}, namespace=NS)
    s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 2}, "db-2..4 gone")
    s.wait_workload(lambda o: _status(o, replicas=2, readyReplicas=2), "2 pods counted")
    s.observe("scaled down to 2")

    lab.kube.patch("apps/v1", "StatefulSet", NAME, {"spec": {"replicas": 0}}, namespace=NS)
    s.wait_pods(lambda pods: not pods, "every pod gone")
    s.wait_workload(lambda o: _status(o, replicas=0), "no pod counted")
    s.observe("scaled to zero")
    lab.kube.delete("apps/v1", "StatefulSet", NAME, NS)


@pytest.fixture(scope="module")
def scenario(lab: Lab) -> Scenario:
    return SCENARIO.run(lab, story)


@pytest.mark.parametrize("step", SCENARIO.params())
def test_step(scenario: Scenario, step: str) -> None:
    scenario.check(step)


def test_update_reaches_pods(scenario: Scenario) -> None:
    pods = scenario.captured["pods after the rollout"]
    assert [p["metadata"]["name"] for p in pods] == [f"{NAME}-{i}" for i in range(5)]
    assert all(p["metadata"]["labels"].get("tier") == "gold" for p in pods)
