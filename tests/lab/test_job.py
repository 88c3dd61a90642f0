"""A batch Job under kube-controller-manager: pods starting, running, one failing and replaced after the
backoff, the next completions, Complete. docs/semantics.md "Job (batch/v1)" and the catalog's Job rules
(Running: active pods, some Ready; Initializing: active pods, none Ready)."""

from __future__ import annotations

import pytest

from .kube import Obj
from .lab import Lab
from .scenario import Scenario, Step, Story, phase_counts

NS = "lab-job"
NAME = "train"
GPU = "nvidia.com/gpu"


def job() -> Obj:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": NAME, "namespace": NS},
        "spec": {
            "parallelism": 2,
            "completions": 4,
            "backoffLimit": 2,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "trainer",
                            "image": "registry.local/trainer:1",
                            "resources": {"requests": {"cpu": "4", GPU: "4"}, "limits": {GPU: "4"}},
                        }
                    ],
                }
            },
        },
    }


def _expect(primary: str, current: int, ready: int, gpus_current: int) -> dict[str, object]:
    # desired pods: min(parallelism, completions) = 2, whatever has run
    return {
        "primary": primary,
        "pods": {"job": 2},
        "podsCurrent": {"job": current},
        "podsReady": {"job": ready},
        "gpus": 8,
        "gpusCurrent": gpus_current,
    }


SCENARIO = Scenario(
    framework="job",
    name="failure-and-completion",
    workload={"apiVersion": "batch/v1", "kind": "Job", "namespace": NS, "name": NAME},
    wmap_type="jobs",
    record_kinds=[("batch/v1", "Job"), ("v1", "Pod")],
    steps=[
        Step("pods starting", _expect("Initializing", 2, 0, 8)),
        Step("running", _expect("Running", 2, 2, 8)),
        # "Degraded: a pod has failed ... and not every active pod is Ready (the replacement starting)";
        # the failed pod is still present (current), holds no GPU.
        Step("a pod failed, replacement starting", _expect("Degraded", 3, 1, 8)),
        Step("recovered", _expect("Running", 3, 2, 8)),
        # The failure stays counted (status.failed) while the next two completions start.
        Step("second pair starting", _expect("Degraded", 5, 0, 8)),
        Step("complete", _expect("Completed", 5, 0, 0)),
    ],
)


def _status(obj: Obj, **wanted: int) -> bool:
    status = obj.get("status") or {}
    return all(status.get(k, 0) == v for k, v in wanted.items())


def _complete(obj: Obj) -> bool:
    return any(
        c.get("type") == "Complete" and c.get("status") == "True"
        for c in (obj.get("status") or {}).get("conditions") or []
    )


def story(s: Story) -> None:
    lab = s.lab
    lab.kube.create(job())
    s.wait_pods(lambda pods: phase_counts(pods) == {"Pending": 2}, "2 pods bound, starting")
    s.wait_workload(lambda o: _status(o, active=2, ready=0), "2 active, none ready")
    s.observe("pods starting")

    first = lab.set_phase(NS, "Ready")
    s.wait_workload(lambda o: _status(o, active=2, ready=2), "2 active and ready")
    s.observe("running")

    lab.set_phase(NS, "Failed", [first[0]])
    s.wait_pods(lambda pods: phase_counts(pods) == {"Failed": 1, "Ready": 1, "Pending": 1}, "a replacement starting")
    s.wait_workload(lambda o: _status(o, active=2, ready=1, failed=1), "1 failed, 2 active, 1 ready")
    s.observe("a pod failed, replacement starting")

    replacement = [p["metadata"]["name"] for p in s.pods() if p["metadata"]["name"] not in first]
    lab.set_phase(NS, "Ready", replacement)
    s.wait_workload(lambda o: _status(o, active=2, ready=2, failed=1), "2 active and ready again")
    s.observe("recovered")

    running = [p["metadata"]["name"] for p in s.pods() if (p.get("status") or {}).get("phase") == "Running"]
    lab.set_phase(NS, "Succeeded", running)
    s.wait_pods(
        lambda pods: phase_counts(pods) == {"Failed": 1, "Succeeded": 2, "Pending": 2},
        "the last 2 completions starting",
    )
    s.wait_workload(lambda o: _status(o, active=2, ready=0, succeeded=2, failed=1), "2 succeeded, 2 active")
    s.observe("second pair starting")

    with lab.auto_phase(NS, "Succeeded"):
        s.wait_workload(lambda o: _complete(o) and _status(o, active=0, succeeded=4), "Complete")
    s.observe("complete")
    lab.kube.delete("batch/v1", "Job", NAME, NS, propagationPolicy="Background")


@pytest.fixture(scope="module")
def scenario(lab: Lab) -> Scenario:
    return SCENARIO.run(lab, story)


@pytest.mark.parametrize("step", SCENARIO.params())
def test_step(scenario: Scenario, step: str) -> None:
    scenario.check(step)
