"""MPIJob (kubeflow.org/v2beta1) with mpi-operator v0.6.0 and kube-controller-manager's Job controller (the
launcher is a batch/v1 Job): to completion with launcherCreationPolicy WaitForWorkersReady (no launcher
until every worker is Ready); a launcher failing within the launcher Job's backoffLimit, then past it;
suspend and resume through ``wmap update`` with pod template changes made while suspended. docs/semantics.md
"MPIJob"."""

from __future__ import annotations

from typing import Any

import pytest

from .kube import Obj
from .lab import Lab
from .scenario import (
    GPU,
    Scenario,
    Step,
    Story,
    assert_updated,
    container,
    expect,
    on,
    phase_counts,
    suspend_update_resume,
    update_flags,
)

API = "kubeflow.org/v2beta1"
ROLE = "training.kubeflow.org/job-role"


def mpijob(namespace: str, name: str, *, creation: str = "AtStartup", backoff_limit: int = 6) -> Obj:
    def template(gpus: int) -> Obj:
        return {"spec": {"containers": [container("mpi", "registry.local/mpi:1", "1", gpus)]}}

    return {
        "apiVersion": API,
        "kind": "MPIJob",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "slotsPerWorker": 2,
            "launcherCreationPolicy": creation,
            # Running workers (sshd, serving forever) go once the launcher is done.
            "runPolicy": {"suspend": False, "cleanPodPolicy": "Running", "backoffLimit": backoff_limit},
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "restartPolicy": "Never", "template": template(0)},
                "Worker": {"replicas": 2, "template": template(2)},
            },
        },
    }


def _expect(
    primary: str, current: tuple[int, int], ready: tuple[int, int], gpus: int, gpus_current: int
) -> dict[str, Any]:
    return expect(primary, gpus, gpus_current, launcher=(1, current[0], ready[0]), worker=(2, current[1], ready[1]))


def _replicas(obj: Obj, kind: str) -> dict[str, int]:
    statuses = (obj.get("status") or {}).get("replicaStatuses") or {}
    return {k: int(v) for k, v in (statuses.get(kind) or {}).items() if isinstance(v, int)}


def _roles(pods: list[Obj]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for role in ("launcher", "worker"):
        out[role] = phase_counts([p for p in pods if p["metadata"]["labels"].get(ROLE) == role])
    return out


def _scenario(name: str, steps: list[Step], namespace: str) -> Scenario:
    return Scenario(
        framework="mpijob",
        name=name,
        workload={"apiVersion": API, "kind": "MPIJob", "namespace": namespace, "name": "pi"},
        wmap_type="mpijobs",
        record_kinds=[(API, "MPIJob"), ("batch/v1", "Job"), ("v1", "Pod")],
        steps=steps,
        operator="mpi_operator",
    )


# ----------------------------------------------------------------- to completion, launcher after the workers

COMPLETION = _scenario(
    "wait-for-workers-to-completion",
    [
        # Created=True only; the workers are bound and starting, no launcher Job yet (its pod is still wanted).
        Step("workers starting, no launcher", _expect("Initializing", (0, 2), (0, 0), 4, 4)),
        # Workers running but not Ready: still no launcher.
        Step("workers running, not ready, no launcher", _expect("Initializing", (0, 2), (0, 0), 4, 4)),
        # Every worker Ready: the launcher Job is created, its pod starting; Running waits for it.
        Step("workers ready, launcher starting", _expect("Initializing", (1, 2), (0, 2), 4, 4)),
        # Running=True: the launcher pod runs and every worker runs.
        Step("launcher running", _expect("Running", (1, 2), (1, 2), 4, 4)),
        # The launcher Job completed: Succeeded=True, the running workers deleted (cleanPodPolicy Running).
        Step("completed", _expect("Completed", (1, 0), (0, 0), 0, 0)),
    ],
    "lab-mpijob-complete",
)


def completion_story(s: Story) -> None:
    lab = s.lab
    lab.kube.create(mpijob(s.namespace, "pi", creation="WaitForWorkersReady"))
    s.wait_pods(lambda pods: _roles(pods) == {"launcher": {}, "worker": {"Pending": 2}}, "2 workers starting")
    s.wait_workload(lambda o: on(o, "Created"), "Created")
    s.observe("workers starting, no launcher")

    lab.set_phase(s.namespace, "Running")
    s.wait_workload(lambda o: _replicas(o, "Worker").get("active") == 2, "2 workers active")
    lab.quiet(s.namespace)
    assert not lab.kube.list("batch/v1", "Job", s.namespace), "a launcher Job before the workers are Ready"
    s.observe("workers running, not ready, no launcher")

    lab.set_phase(s.namespace, "Ready")
    s.wait_pods(
        lambda pods: _roles(pods) == {"launcher": {"Pending": 1}, "worker": {"Ready": 2}}, "the launcher pod starting"
    )
    s.observe("workers ready, launcher starting")

    lab.set_phase(s.namespace, "Ready", label_selector=f"{ROLE}=launcher")
    s.wait_workload(lambda o: on(o, "Running"), "Running")
    s.wait_pods(lambda pods: _roles(pods) == {"launcher": {"Ready": 1}, "worker": {"Ready": 2}}, "every pod Ready")
    s.observe("launcher running")

    lab.set_phase(s.namespace, "Succeeded", label_selector=f"{ROLE}=launcher")
    s.wait_workload(lambda o: on(o, "Succeeded"), "Succeeded")
    s.wait_pods(lambda pods: _roles(pods) == {"launcher": {"Succeeded": 1}, "worker": {}}, "workers cleaned up")
    s.observe("completed")


@pytest.fixture(scope="module")
def completion(lab: Lab) -> Scenario:
    return COMPLETION.run(lab, completion_story)


@pytest.mark.parametrize("step", COMPLETION.params())
def test_completion(completion: Scenario, step: str) -> None:
    completion.check(step)


# ----------------------------------------------------------------- launcher retried, then failed

FAILURE = _scenario(
    "launcher-retry-then-failed",
    [
        Step("every pod ready", _expect("Running", (1, 2), (1, 2), 4, 4)),
        # The launcher pod failed; the launcher Job (backoffLimit 1) starts another: Launcher.failed = 1 reads
        # Degraded. The failed pod stays (the Job keeps it), the new one is starting.
        Step("launcher failed, retrying", _expect("Degraded", (2, 2), (0, 2), 4, 4)),
        # The second launcher pod failed: the Job is Failed (BackoffLimitExceeded), so is the MPIJob; the
        # running workers are deleted (cleanPodPolicy Running).
        Step("launcher failed past the backoff limit", _expect("Failed", (2, 0), (0, 0), 0, 0)),
    ],
    "lab-mpijob-failure",
)


def failure_story(s: Story) -> None:
    lab = s.lab
    lab.kube.create(mpijob(s.namespace, "pi", backoff_limit=1))
    with lab.auto_phase(s.namespace, "Ready"):
        s.wait_workload(lambda o: on(o, "Running"), "Running")
        s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 3}, "every pod Ready")
    s.observe("every pod ready")

    lab.set_phase(s.namespace, "Failed", label_selector=f"{ROLE}=launcher")
    s.wait_workload(lambda o: _replicas(o, "Launcher").get("failed") == 1, "Launcher.failed 1")
    s.wait_pods(
        lambda pods: _roles(pods) == {"launcher": {"Failed": 1, "Pending": 1}, "worker": {"Ready": 2}},
        "a second launcher pod starting",
    )
    s.observe("launcher failed, retrying")

    pending = [p["metadata"]["name"] for p in s.pods(f"{ROLE}=launcher") if p["status"].get("phase") == "Pending"]
    lab.set_phase(s.namespace, "Failed", pending)
    s.wait_workload(lambda o: on(o, "Failed"), "Failed")
    s.wait_pods(lambda pods: _roles(pods) == {"launcher": {"Failed": 2}, "worker": {}}, "workers cleaned up")
    s.observe("launcher failed past the backoff limit")


@pytest.fixture(scope="module")
def failure(lab: Lab) -> Scenario:
    return FAILURE.run(lab, failure_story)


@pytest.mark.parametrize("step", FAILURE.params())
def test_failure(failure: Scenario, step: str) -> None:
    failure.check(step)


# ----------------------------------------------------------------- suspend, update, resume

UPDATE = [update_flags("a100"), ["--component", "worker", "--requests", f"{GPU}=1", "--limits", f"{GPU}=1"]]

SUSPEND = _scenario(
    "suspend-update-resume",
    [
        Step("every pod ready", _expect("Running", (1, 2), (1, 2), 4, 4)),
        # Suspended=True once the launcher Job is suspended (its pod deleted by the Job controller) and the
        # workers deleted; the demand stays.
        Step("suspended", _expect("Suspended", (0, 0), (0, 0), 4, 0)),
        Step("updated while suspended", _expect("Suspended", (0, 0), (0, 0), 2, 0)),
        # Suspended=False MPIJobResumed, Running not True yet: the workers and the launcher pod starting.
        Step("resumed, pods starting", _expect("Resuming", (1, 2), (0, 0), 2, 2)),
        Step("ready again", _expect("Running", (1, 2), (1, 2), 2, 2)),
    ],
    "lab-mpijob-suspend",
)


def suspend_story(s: Story) -> None:
    suspend_update_resume(
        s,
        mpijob(s.namespace, "pi"),
        3,
        UPDATE,
        idle=lambda o: not any(_replicas(o, k).get("active") for k in ("Launcher", "Worker")),
        resumed="MPIJobResumed",
    )


@pytest.fixture(scope="module")
def suspend(lab: Lab) -> Scenario:
    return SUSPEND.run(lab, suspend_story)


@pytest.mark.parametrize("step", SUSPEND.params())
def test_suspend(suspend: Scenario, step: str) -> None:
    suspend.check(step)


def _by_role(pods: list[Obj], role: str) -> list[Obj]:
    return [p for p in pods if p["metadata"]["labels"].get(ROLE) == role]


def test_update_reaches_worker_pods_after_resume(suspend: Scenario) -> None:
    """The workers the operator recreates on resume carry the scheduler name, labels, resources,
    tolerations and node affinity ``wmap update`` wrote while suspended."""
    workers = _by_role(suspend.captured["pods after resume"], "worker")
    assert len(workers) == 2
    for pod in workers:
        assert_updated(pod, "a100", resources={"requests": {"cpu": "1", GPU: "1"}, "limits": {GPU: "1"}})


def test_resumed_launcher_keeps_the_launcher_jobs_template(suspend: Scenario) -> None:
    """mpi-operator v0.6.0 resumes the launcher Job it made before the suspension (it only flips
    ``spec.suspend``), so the launcher pod is created from the old template: an update of a suspended
    MPIJob reaches the launcher only once a new launcher Job is made."""
    (launcher,) = _by_role(suspend.captured["pods after resume"], "launcher")
    assert "tier" not in launcher["metadata"]["labels"]
    assert launcher["spec"]["schedulerName"] == "default-scheduler"
