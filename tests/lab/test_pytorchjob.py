"""PyTorchJob with Kubeflow training-operator v1.9.2: to completion; a master failing under restartPolicy
OnFailure (Restarting, recreated), then a worker failing under ExitCode with a permanent exit code
(Failed); suspend and resume through ``wmap update`` with pod template changes made while suspended,
which the pods the operator creates on resume carry. docs/semantics.md "Kubeflow training-operator v1"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from workload_map.sources.recording import Checkpoint, dump_recording, load_recording

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

API = "kubeflow.org/v1"
TYPE_LABEL = "training.kubeflow.org/replica-type"


def replica(replicas: int, restart_policy: str, gpus: int) -> Obj:
    return {
        "replicas": replicas,
        "restartPolicy": restart_policy,
        # "pytorch": the container whose exit code the operator reads
        "template": {"spec": {"containers": [container("pytorch", "registry.local/trainer:1", "2", gpus)]}},
    }


def pytorchjob(namespace: str, name: str, *, master_policy: str = "OnFailure", worker_policy: str = "OnFailure") -> Obj:
    return {
        "apiVersion": API,
        "kind": "PyTorchJob",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "runPolicy": {"suspend": False},
            "pytorchReplicaSpecs": {"Master": replica(1, master_policy, 2), "Worker": replica(2, worker_policy, 2)},
        },
    }


def _expect(
    primary: str, current: tuple[int, int], ready: tuple[int, int], gpus: int, gpus_current: int
) -> dict[str, Any]:
    return expect(primary, gpus, gpus_current, master=(1, current[0], ready[0]), worker=(2, current[1], ready[1]))


def _active(obj: Obj) -> dict[str, int]:
    statuses = (obj.get("status") or {}).get("replicaStatuses") or {}
    return {k.lower(): int(v.get("active") or 0) for k, v in statuses.items()}


def _scenario(name: str, steps: list[Step], namespace: str) -> Scenario:
    return Scenario(
        framework="pytorchjob",
        name=name,
        workload={"apiVersion": API, "kind": "PyTorchJob", "namespace": namespace, "name": "train"},
        wmap_type="pytorchjobs",
        record_kinds=[(API, "PyTorchJob"), ("v1", "Pod")],
        steps=steps,
        operator="training_operator",
    )


# ----------------------------------------------------------------- to completion

COMPLETION = _scenario(
    "to-completion",
    [
        # Created=True only: the pods are bound and starting.
        Step("created, pods starting", _expect("Initializing", (1, 2), (0, 0), 6, 6)),
        # Running=True as soon as the master's pod runs, ready or not.
        Step("containers running, not ready", _expect("Running", (1, 2), (0, 0), 6, 6)),
        Step("every pod ready", _expect("Running", (1, 2), (1, 2), 6, 6)),
        # The master succeeded: Succeeded=True. Finished pods stay (cleanPodPolicy None), are not ready and
        # hold no GPU; desired pods stay the spec's.
        Step("completed", _expect("Completed", (1, 2), (0, 0), 0, 0)),
    ],
    "lab-pytorchjob-complete",
)


def completion_story(s: Story) -> None:
    lab = s.lab
    lab.kube.create(pytorchjob(s.namespace, "train"))
    s.wait_pods(lambda pods: phase_counts(pods) == {"Pending": 3}, "3 pods bound, starting")
    s.wait_workload(lambda o: on(o, "Created"), "Created")
    s.observe("created, pods starting")

    lab.set_phase(s.namespace, "Running")
    s.wait_pods(lambda pods: phase_counts(pods) == {"Running": 3}, "3 pods Running, not Ready")
    s.wait_workload(lambda o: on(o, "Running") and _active(o) == {"master": 1, "worker": 2}, "Running, 3 active")
    s.observe("containers running, not ready")

    lab.set_phase(s.namespace, "Ready")
    s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 3}, "3 pods Ready")
    s.observe("every pod ready")

    lab.set_phase(s.namespace, "Succeeded")
    s.wait_pods(lambda pods: phase_counts(pods) == {"Succeeded": 3}, "3 pods Succeeded")
    s.wait_workload(lambda o: on(o, "Succeeded"), "Succeeded")
    s.observe("completed")


@pytest.fixture(scope="module")
def completion(lab: Lab) -> Scenario:
    return COMPLETION.run(lab, completion_story)


@pytest.mark.parametrize("step", COMPLETION.params())
def test_completion(completion: Scenario, step: str) -> None:
    completion.check(step)


# ----------------------------------------------------------------- restart, then failed

FAILURE = _scenario(
    "restart-then-failed",
    [
        Step("every pod ready", _expect("Running", (1, 2), (1, 2), 6, 6)),
        # The master failed under OnFailure: its pod is deleted and recreated, Restarting=True replaces
        # Running until the master runs again: Degraded.
        Step("master failed, restarting", _expect("Degraded", (1, 2), (0, 2), 6, 6)),
        Step("ready again after the restart", _expect("Running", (1, 2), (1, 2), 6, 6)),
        # A worker failed with exit code 1 under ExitCode: a permanent error, Failed=True. The other pods are
        # left running (cleanPodPolicy None): they alone still hold GPUs.
        Step("worker failed for good", _expect("Failed", (1, 2), (1, 1), 4, 4)),
    ],
    "lab-pytorchjob-failure",
)


def failure_story(s: Story) -> None:
    lab = s.lab
    lab.kube.create(pytorchjob(s.namespace, "train", master_policy="OnFailure", worker_policy="ExitCode"))
    with lab.auto_phase(s.namespace, "Ready"):
        s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 3}, "3 pods Ready")
        s.wait_workload(lambda o: on(o, "Running"), "Running")
    s.observe("every pod ready")

    master = s.pods(f"{TYPE_LABEL}=master")[0]
    lab.set_phase(s.namespace, "Failed", [master["metadata"]["name"]])
    s.wait_workload(lambda o: on(o, "Restarting"), "Restarting")
    s.wait_pods(
        lambda pods: (
            phase_counts(pods) == {"Pending": 1, "Ready": 2}
            and all(p["metadata"]["uid"] != master["metadata"]["uid"] for p in pods)
        ),
        "the master recreated and starting, the workers ready",
    )
    s.observe("master failed, restarting")

    lab.set_phase(s.namespace, "Ready", label_selector=f"{TYPE_LABEL}=master")
    s.wait_workload(lambda o: on(o, "Running"), "Running again")
    s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 3}, "3 pods Ready")
    s.observe("ready again after the restart")

    worker = sorted(p["metadata"]["name"] for p in s.pods(f"{TYPE_LABEL}=worker"))[0]
    lab.set_phase(s.namespace, "Failed", [worker])
    s.wait_workload(lambda o: on(o, "Failed"), "Failed")
    s.wait_pods(lambda pods: phase_counts(pods) == {"Failed": 1, "Ready": 2}, "one worker Failed, the rest left")
    s.observe("worker failed for good")


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
        Step("every pod ready", _expect("Running", (1, 2), (1, 2), 6, 6)),
        # Suspended=True is written in the reconcile that deletes the pods; a suspended job keeps its demand.
        Step("suspended", _expect("Suspended", (0, 0), (0, 0), 6, 0)),
        # While suspended the template took 1 GPU per pod (wmap update --requests/--limits).
        Step("updated while suspended", _expect("Suspended", (0, 0), (0, 0), 3, 0)),
        # Suspended=False reason PyTorchJobResumed, the pods recreated and starting, no Running yet.
        Step("resumed, pods starting", _expect("Resuming", (1, 2), (0, 0), 3, 3)),
        Step("ready again", _expect("Running", (1, 2), (1, 2), 3, 3)),
    ],
    "lab-pytorchjob-suspend",
)

UPDATE = [[*update_flags("a100"), "--requests", f"{GPU}=1", "--limits", f"{GPU}=1"]]


def suspend_story(s: Story) -> None:
    suspend_update_resume(
        s,
        pytorchjob(s.namespace, "train"),
        3,
        UPDATE,
        idle=lambda o: not any(_active(o).values()),
        resumed="PyTorchJobResumed",
    )


@pytest.fixture(scope="module")
def suspend(lab: Lab) -> Scenario:
    return SUSPEND.run(lab, suspend_story)


@pytest.mark.parametrize("step", SUSPEND.params())
def test_suspend(suspend: Scenario, step: str) -> None:
    suspend.check(step)


def test_update_reaches_pods_after_resume(suspend: Scenario) -> None:
    """Scheduler name, labels, resources, tolerations and node affinity written by ``wmap update`` while
    suspended are on every pod the operator creates on resume, which the second scheduler placed on the
    a100 pool."""
    pods = suspend.captured["pods after resume"]
    assert sorted(p["metadata"]["labels"][TYPE_LABEL] for p in pods) == ["master", "worker", "worker"]
    for pod in pods:
        assert_updated(
            pod, "a100", resources={"requests": {"cpu": "2", GPU: "1"}, "limits": {GPU: "1"}}, container_name="pytorch"
        )


# ----------------------------------------------------------------- wmap record against the real operator

RECORD_NS = "lab-pytorchjob-record"
DEFINITION = "kubeflow-org-pytorchjob-v1"


def _wmap_argv() -> list[str]:
    script = Path(sys.executable).with_name("wmap")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "workload_map.cli.main"]


def _definitions_test(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``wmap definitions test`` of the catalog's PyTorchJob definition on a recording (no cluster)."""
    return subprocess.run(
        [*_wmap_argv(), "definitions", "test", DEFINITION, "--samples", str(path), *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _shown_primaries(path: Path) -> list[str]:
    """The workload's primary status at each transition the replay of the recording shows."""
    proc = _definitions_test(path, "-o", "json")
    assert proc.returncode == 0, proc.stderr
    samples = json.loads(proc.stdout)["samples"]
    return [s["tree"]["status"]["primary"] for s in samples if s["verdict"] == "SHOWN"]


@pytest.fixture(scope="module")
def recorded(lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``wmap record --until Completed`` run as a process while the training-operator takes a PyTorchJob
    from creation to completion."""
    lab.start_operator("training_operator")
    lab.namespace(RECORD_NS)
    lab.kube.create(pytorchjob(RECORD_NS, "train"))
    path = tmp_path_factory.mktemp("record") / "train.yaml"
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    recorder = subprocess.Popen(
        [*_wmap_argv(), "record", "pytorchjobs/train", "-n", RECORD_NS, "-o", str(path), "--until", "Completed",
         "--timeout", "5m", "--kubeconfig", str(lab.kubeconfig)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    assert recorder.stderr is not None
    first = recorder.stderr.readline()  # the status at the start: the watch is set up, drive the job now
    try:
        lab.wait_for("v1", "Pod", RECORD_NS, lambda pods: phase_counts(pods) == {"Pending": 3}, what="3 pods bound")
        for phase in ("Running", "Ready"):
            lab.set_phase(RECORD_NS, phase)
            lab.wait_for("v1", "Pod", RECORD_NS, lambda pods, p=phase: phase_counts(pods) == {p: 3}, what=phase)
            lab.quiet(RECORD_NS)
        # The workers finish first: the master's success is the job's (and ends the recording).
        lab.set_phase(RECORD_NS, "Succeeded", label_selector=f"{TYPE_LABEL}=worker")
        lab.wait_for(
            "v1", "Pod", RECORD_NS, lambda pods: phase_counts(pods) == {"Ready": 1, "Succeeded": 2}, what="workers done"
        )
        lab.quiet(RECORD_NS)
        lab.set_phase(RECORD_NS, "Succeeded", label_selector=f"{TYPE_LABEL}=master")
        stdout, stderr = recorder.communicate(timeout=120)
    finally:
        if recorder.poll() is None:
            recorder.kill()
            recorder.wait()
    return {"path": path, "returncode": recorder.returncode, "stdout": stdout, "stderr": first + stderr}


def test_wmap_record_until_completed(recorded: dict[str, Any]) -> None:
    assert recorded["returncode"] == 0, recorded["stderr"]
    assert "reached Completed" in recorded["stderr"].splitlines()[-1], recorded["stderr"]
    recording = load_recording(str(recorded["path"]))
    assert (recording.workload.kind, recording.workload.name) == ("PyTorchJob", "train")
    assert recording.recorded.by == "wmap record"
    # The replay shows the transitions wmap record printed as it saw them, in the same order.
    lines = [line.split() for line in recorded["stderr"].splitlines()]
    printed = [parts[2] for parts in lines if len(parts) > 2 and parts[1].endswith("/train")]
    replayed = _shown_primaries(recorded["path"])
    assert replayed == printed
    assert replayed[0] == "Initializing" and replayed[-1] == "Completed" and "Running" in replayed


def test_recording_with_a_checkpoint_passes_definitions_test(recorded: dict[str, Any], tmp_path: Path) -> None:
    recording = load_recording(str(recorded["path"]))
    end = len(recording.events)
    recording.checkpoints.append(
        Checkpoint(
            "completed",
            end,
            # Not the master's readiness: --until stops at the job's Succeeded=True, which can reach the watch
            # before the master pod's own Succeeded update that caused it.
            {"primary": "Completed", "pods": {"master": 1, "worker": 2}, "podsReady": {"worker": 0}},
        )
    )
    path = tmp_path / "checked.yaml"
    with path.open("w") as out:
        dump_recording(recording, out)
    proc = _definitions_test(path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS" in proc.stdout and f"checkpoint 'completed', after {end} event(s)" in proc.stdout
