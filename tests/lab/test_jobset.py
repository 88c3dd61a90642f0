"""JobSet v0.10.1 with kube-controller-manager's Job controller: to completion; a failing pod, a restart by
the failure policy, then Failed; suspend and resume through ``wmap update`` with pod template changes made
while suspended (the only time JobSet's webhook allows them). docs/semantics.md "JobSet"."""

from __future__ import annotations

from typing import Any

import pytest

from .kube import Obj
from .lab import SECOND_SCHEDULER, Lab
from .scenario import (
    UPDATE_LABEL,
    Scenario,
    Step,
    Story,
    assert_updated,
    condition,
    container,
    live,
    phase_counts,
    update_flags,
)

API = "jobset.x-k8s.io/v1alpha2"
RESTART_LABEL = "jobset.sigs.k8s.io/restart-attempt"


def jobset(namespace: str, name: str, *, jobs: int, per_job: int, max_restarts: int = 0) -> Obj:
    return {
        "apiVersion": API,
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "failurePolicy": {"maxRestarts": max_restarts},
            "replicatedJobs": [
                {
                    "name": "workers",
                    "replicas": jobs,
                    "template": {
                        "spec": {
                            "parallelism": per_job,
                            "completions": per_job,
                            "backoffLimit": 0,
                            "template": {
                                "spec": {
                                    "restartPolicy": "Never",
                                    "containers": [container("trainer", "registry.local/trainer:1", "2", 2)],
                                }
                            },
                        }
                    },
                }
            ],
        },
    }


def _expect(
    primary: str, desired: int, current: int, ready: int, gpus_current: int, *, gpus: int | None = None
) -> dict[str, Any]:
    return {
        "primary": primary,
        "pods": {"replicatedJob": desired},
        "podsCurrent": {"replicatedJob": current},
        "podsReady": {"replicatedJob": ready},
        "gpus": 2 * desired if gpus is None else gpus,
        "gpusCurrent": gpus_current,
    }


def _jobs_status(obj: Obj) -> dict[str, int]:
    statuses = (obj.get("status") or {}).get("replicatedJobsStatus") or [{}]
    return {k: int(v) for k, v in statuses[0].items() if k != "name"}


def _scenario(name: str, steps: list[Step], namespace: str) -> Scenario:
    return Scenario(
        framework="jobset",
        name=name,
        workload={"apiVersion": API, "kind": "JobSet", "namespace": namespace, "name": "train"},
        wmap_type="jobsets",
        record_kinds=[(API, "JobSet"), ("batch/v1", "Job"), ("v1", "Pod")],
        steps=steps,
        operator="jobset",
    )


# ----------------------------------------------------------------- to completion

COMPLETION = _scenario(
    "to-completion",
    [
        Step("created, pods starting", _expect("Initializing", 4, 4, 0, 8)),
        # Running containers that are not Ready: no Job is ready, the JobSet was never ready.
        Step("containers running, not ready", _expect("Initializing", 4, 4, 0, 8)),
        Step("every job ready", _expect("Running", 4, 4, 4, 8)),
        # Finished pods are present, not ready, hold no GPU; desired pods stay the spec's, GPUs requested are
        # those of active pods only once Completed (docs/semantics.md "Pod counts of finished pods").
        Step("completed", _expect("Completed", 4, 4, 0, 0, gpus=0)),
    ],
    "lab-jobset-complete",
)


def completion_story(s: Story) -> None:
    lab = s.lab
    lab.kube.create(jobset(s.namespace, "train", jobs=2, per_job=2))
    s.wait_pods(lambda pods: phase_counts(pods) == {"Pending": 4}, "4 pods bound, starting")
    s.wait_workload(lambda o: _jobs_status(o).get("active") == 2, "2 Jobs active")
    s.observe("created, pods starting")

    lab.set_phase(s.namespace, "Running")
    s.wait_pods(lambda pods: phase_counts(pods) == {"Running": 4}, "4 pods Running, not Ready")
    lab.wait_for(
        "batch/v1",
        "Job",
        s.namespace,
        lambda jobs: len(jobs) == 2 and all(j.get("status", {}).get("ready") == 0 for j in jobs),
        what="both Jobs counted their pods: 0 ready",
    )
    s.observe("containers running, not ready")

    lab.set_phase(s.namespace, "Ready")
    s.wait_workload(lambda o: _jobs_status(o).get("ready") == 2, "2 Jobs ready")
    s.observe("every job ready")

    lab.set_phase(s.namespace, "Succeeded")
    s.wait_workload(
        lambda o: condition(o, "Completed").get("status") == "True" and o["status"].get("terminalState") == "Completed",
        "Completed",
    )
    s.observe("completed")
    s.scenario.captured["get after completion"] = lab.wmap("get", "jobsets", "-n", s.namespace).stdout
    lab.kube.delete(API, "JobSet", "train", s.namespace)
    s.wait_pods(lambda pods: not pods, "the JobSet's pods deleted with it")
    s.scenario.captured["describe after delete"] = lab.wmap("describe", "jobsets/train", "-n", s.namespace, check=False)


@pytest.fixture(scope="module")
def completion(lab: Lab) -> Scenario:
    return COMPLETION.run(lab, completion_story)


@pytest.mark.parametrize("step", COMPLETION.params())
def test_completion(completion: Scenario, step: str) -> None:
    completion.check(step)


def test_deleted_jobset_is_not_found(completion: Scenario) -> None:
    proc = completion.captured["describe after delete"]
    assert proc.returncode == 3, proc.stderr
    assert 'not found in namespace "lab-jobset-complete"' in proc.stderr


# ----------------------------------------------------------------- failure, restart, failed

FAILURE = _scenario(
    "restart-then-failed",
    [
        Step("every job ready", _expect("Running", 2, 2, 2, 4)),
        # "Degraded: restarted (restarts above 0) with fewer Jobs ready than expected": v0.10 writes no
        # condition for the failure policy's restart of every Job, only the count; the new pods start.
        Step("a pod failed, restarting", _expect("Degraded", 2, 2, 0, 4)),
        Step("ready again after the restart", _expect("Running", 2, 2, 2, 4)),
        # No restart left: Failed; the failed pod stays, its Job's other pod is removed.
        Step("failed again, no restart left", _expect("Failed", 2, 1, 0, 0, gpus=0)),
    ],
    "lab-jobset-failure",
)


def failure_story(s: Story) -> None:
    lab = s.lab
    lab.kube.create(jobset(s.namespace, "train", jobs=1, per_job=2, max_restarts=1))
    with lab.auto_phase(s.namespace, "Ready"):
        s.wait_workload(lambda o: _jobs_status(o).get("ready") == 1, "the Job ready")
    s.observe("every job ready")

    lab.set_phase(s.namespace, "Failed", [s.pods()[0]["metadata"]["name"]])
    s.wait_workload(lambda o: (o.get("status") or {}).get("restarts") == 1, "restarted once")
    s.wait_pods(
        lambda pods: (
            phase_counts(pods) == {"Pending": 2}
            and all(p["metadata"]["labels"].get(RESTART_LABEL) == "1" for p in pods)
        ),
        "the restarted Job's 2 pods starting, the old ones gone",
    )
    s.wait_workload(
        lambda o: _jobs_status(o).get("active") == 1 and not _jobs_status(o).get("failed"), "the new Job active"
    )
    s.observe("a pod failed, restarting")

    lab.set_phase(s.namespace, "Ready")
    s.wait_workload(lambda o: _jobs_status(o).get("ready") == 1, "the restarted Job ready")
    s.observe("ready again after the restart")

    lab.set_phase(s.namespace, "Failed", [s.pods()[0]["metadata"]["name"]])
    s.wait_workload(lambda o: condition(o, "Failed").get("status") == "True", "Failed")
    s.wait_pods(lambda pods: phase_counts(pods) == {"Failed": 1}, "only the failed pod left")
    s.observe("failed again, no restart left")


@pytest.fixture(scope="module")
def failure(lab: Lab) -> Scenario:
    return FAILURE.run(lab, failure_story)


@pytest.mark.parametrize("step", FAILURE.params())
def test_failure(failure: Scenario, step: str) -> None:
    failure.check(step)


# ----------------------------------------------------------------- suspend, update, resume

SUSPEND = _scenario(
    "suspend-update-resume",
    [
        Step("every job ready", _expect("Running", 4, 4, 4, 8)),
        # docs/semantics.md "Transitions": "Suspending is a stop asked for or acted on while pods are still
        # going away" (terminating pods hold no GPU in use).
        Step(
            "suspend acted on, pods still terminating",
            {
                "primary": "Suspending",
                "pods": {"replicatedJob": 4},
                "podsCurrent": {"replicatedJob": 4},
                "gpus": 8,
                "gpusCurrent": 0,
            },
        ),
        # "Suspended: Suspended=True and no child Job active".
        Step("suspended", _expect("Suspended", 4, 0, 0, 0)),
        # "Resuming: Suspended=False reason ResumeJobs ... Jobs still suspended or not all ready".
        Step("resumed, pods starting", _expect("Resuming", 4, 4, 0, 8)),
        Step("ready again", _expect("Running", 4, 4, 4, 8)),
    ],
    "lab-jobset-suspend",
)


def suspend_story(s: Story) -> None:
    lab = s.lab
    lab.kube.create(jobset(s.namespace, "train", jobs=2, per_job=2))
    with lab.auto_phase(s.namespace, "Ready"):
        s.wait_workload(lambda o: _jobs_status(o).get("ready") == 2, "2 Jobs ready")
    s.observe("every job ready")

    s.scenario.captured["update while running"] = lab.wmap(
        "update", "jobsets/train", "-n", s.namespace, "--label", "=".join(UPDATE_LABEL), check=False
    )
    lab.hold_deletion(s.namespace, [p["metadata"]["name"] for p in s.pods()])  # the kubelet takes its time
    lab.wmap("update", "jobsets/train", "-n", s.namespace, "--suspend")
    s.wait_pods(lambda pods: phase_counts(pods) == {"Terminating": 4}, "every pod terminating")
    s.wait_workload(
        lambda o: condition(o, "Suspended").get("status") == "True" and not _jobs_status(o).get("active"),
        "Suspended=True, no Job active",
    )
    lab.quiet(s.namespace)
    s.observe("suspend acted on, pods still terminating")

    lab.hold_deletion(s.namespace, [p["metadata"]["name"] for p in s.pods()], hold=False)
    s.wait_pods(lambda pods: not pods, "every pod gone")
    s.observe("suspended")

    # While suspended JobSet's webhook lets labels, annotations, nodeSelector and tolerations change.
    lab.wmap(
        "update",
        "jobsets/train",
        "-n",
        s.namespace,
        *update_flags("a100", scheduler=False, affinity=False),
        "--node-selector",
        "lab.workload-map.run.ai/pool=a100",
    )
    s.scenario.captured["scheduler name while suspended"] = lab.wmap(
        "update", "jobsets/train", "-n", s.namespace, "--scheduler-name", SECOND_SCHEDULER, check=False
    )
    lab.wmap("update", "jobsets/train", "-n", s.namespace, "--resume")
    s.wait_pods(lambda pods: phase_counts(pods) == {"Pending": 4}, "4 pods bound again, starting")
    s.wait_workload(
        lambda o: condition(o, "Suspended").get("status") == "False" and _jobs_status(o).get("active") == 2,
        "resumed: Suspended=False, 2 Jobs active",
    )
    s.observe("resumed, pods starting")
    s.scenario.captured["pods after resume"] = live(s.pods())

    lab.set_phase(s.namespace, "Ready")
    s.wait_workload(lambda o: _jobs_status(o).get("ready") == 2, "2 Jobs ready again")
    s.observe("ready again")


@pytest.fixture(scope="module")
def suspend(lab: Lab) -> Scenario:
    return SUSPEND.run(lab, suspend_story)


@pytest.mark.parametrize("step", SUSPEND.params())
def test_suspend(suspend: Scenario, step: str) -> None:
    suspend.check(step)


def test_update_reaches_pods_after_resume(suspend: Scenario) -> None:
    pods = suspend.captured["pods after resume"]
    assert len(pods) == 4
    for pod in pods:
        name = pod["metadata"]["name"]
        assert_updated(pod, "a100", scheduler=False, affinity=False)
        assert pod["spec"]["nodeSelector"] == {"lab.workload-map.run.ai/pool": "a100"}, name
        assert pod["spec"]["nodeName"].startswith("gpu-a100-"), name


def test_template_changes_of_a_running_jobset_are_refused_by_the_server(suspend: Scenario) -> None:
    """JobSet's webhook refuses pod template changes unless the JobSet is (being) suspended; wmap says so."""
    proc = suspend.captured["update while running"]
    assert proc.returncode == 1, proc.stdout
    assert "field is immutable" in proc.stderr, proc.stderr


def test_scheduler_name_is_immutable_even_suspended(suspend: Scenario) -> None:
    proc = suspend.captured["scheduler name while suspended"]
    assert proc.returncode == 1, proc.stdout
    assert "field is immutable" in proc.stderr, proc.stderr
