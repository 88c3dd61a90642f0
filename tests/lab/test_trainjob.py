"""TrainJob with Kubeflow Trainer v2.0.0 over JobSet v0.10.1 and kube-controller-manager's Job controller: a
TrainingRuntime of our own (one "node" step, the trainer's ancestor), a TrainJob of 2 nodes -> JobSet -> Job ->
2 pods. To completion, then deleted; a node failing (the Job's backoffLimit 0: Job, JobSet and TrainJob
Failed); suspend and resume through ``wmap update`` with the resources changed while suspended, and through
``spec.suspend``. docs/semantics.md "Kubeflow TrainJob": v2.0 writes no jobsStatus, so between its start and
its end (suspensions aside) a v2.0 TrainJob reads Undefined; its JobSet (same name) is read on its own."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .kube import Obj
from .lab import SECOND_SCHEDULER, Lab
from .scenario import GPU, Scenario, Step, Story, condition, expect, live, on, phase_counts

API = "trainer.kubeflow.org/v1alpha1"
JOBSET_API = "jobset.x-k8s.io/v1alpha2"
RUNTIME = "lab-torch"
STEP_LABEL = "jobset.sigs.k8s.io/replicatedjob-name"
NO_INITIALIZER = {"dataset-initializer": 0, "model-initializer": 0}


def training_runtime(namespace: str) -> Obj:
    """A TrainingRuntime of our own: torch, one "node" step labelled as the trainer's ancestor, whose Job fails
    at the first failed pod."""
    container = {"name": "node", "image": "registry.local/torch:1", "command": ["torchrun", "train.py"]}
    node = {
        "name": "node",
        "template": {
            "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
            "spec": {
                "backoffLimit": 0,
                "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
            },
        },
    }
    return {
        "apiVersion": API,
        "kind": "TrainingRuntime",
        "metadata": {"name": RUNTIME, "namespace": namespace, "labels": {"trainer.kubeflow.org/framework": "torch"}},
        "spec": {
            "mlPolicy": {"numNodes": 1, "torch": {"numProcPerNode": "auto"}},
            "template": {"spec": {"replicatedJobs": [node]}},
        },
    }


def trainjob(namespace: str, name: str, *, nodes: int = 2, gpus: int = 2) -> Obj:
    return {
        "apiVersion": API,
        "kind": "TrainJob",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "runtimeRef": {"name": RUNTIME, "kind": "TrainingRuntime", "apiGroup": "trainer.kubeflow.org"},
            "trainer": {
                "numNodes": nodes,
                "resourcesPerNode": {"requests": {"cpu": "1", GPU: str(gpus)}, "limits": {GPU: str(gpus)}},
            },
        },
    }


def _expect(primary: str, current: int, ready: int, gpus: int, gpus_current: int) -> dict[str, Any]:
    # The initializer components predict no pod: the TrainJob configures no initializer.
    none = (0, 0, 0)
    return expect(
        primary,
        gpus,
        gpus_current,
        node=(2, current, ready),
        **{"dataset-initializer": none, "model-initializer": none},
    )


def _scenario(name: str, steps: list[Step], namespace: str) -> Scenario:
    return Scenario(
        framework="trainjob",
        name=name,
        workload={"apiVersion": API, "kind": "TrainJob", "namespace": namespace, "name": "train"},
        wmap_type="trainjobs",
        record_kinds=[(API, "TrainJob"), (JOBSET_API, "JobSet"), ("batch/v1", "Job"), ("v1", "Pod")],
        steps=steps,
        operator="trainer",
    )


def _run(lab: Lab, scenario: Scenario, story: Any) -> Scenario:
    """The JobSet operator first: Trainer watches JobSets only when their CRD is served at its start."""
    lab.start_operator("jobset")
    return scenario.run(lab, story)


def _start(lab: Lab, s: Story) -> None:
    """The runtime, the TrainJob."""
    lab.kube.create(training_runtime(s.namespace))
    lab.kube.create(trainjob(s.namespace, "train"))


def _denied(event: Obj) -> bool:
    """The Trainer's event for a JobSet change a webhook refused. At creation a webhook may refuse too, for a
    lagging cache ('mjobset.kb.io' ... 'TrainJob ... not found'); only a refused change of the replicated Jobs
    is the resume's."""
    refused = "denied the request: spec.replicatedJobs" in event.get("message", "")
    return event.get("reason") == "TrainJobResourcesCreationFailed" and refused


def _jobset_ready(jobset: Obj) -> bool:
    return all(r.get("ready") == 1 for r in (jobset.get("status") or {}).get("replicatedJobsStatus") or [{}])


def _jobset(s: Story, predicate: Any, what: str) -> Any:
    return s.lab.wait_for(
        JOBSET_API,
        "JobSet",
        s.namespace,
        lambda items: next((predicate(o) for o in items if o["metadata"]["name"] == "train"), None),
        what=f"JobSet/train: {what}",
    )


# ----------------------------------------------------------------- to completion, then deleted

COMPLETION = _scenario(
    "to-completion",
    [
        # No status at all: v2.0 writes nothing until the JobSet finishes.
        Step("created, pods starting", _expect("Undefined", 2, 0, 4, 4)),
        Step("containers running, not ready", _expect("Undefined", 2, 0, 4, 4)),
        Step("every pod ready", _expect("Undefined", 2, 2, 4, 4)),
        # The JobSet completed: Complete=True copied to the TrainJob; finished pods stay, request nothing.
        Step("completed", _expect("Completed", 2, 0, 0, 0)),
    ],
    "lab-trainjob-complete",
)


def completion_story(s: Story) -> None:
    lab = s.lab
    _start(lab, s)
    s.wait_pods(lambda pods: phase_counts(pods) == {"Pending": 2}, "2 pods bound, starting")
    s.observe("created, pods starting")

    lab.set_phase(s.namespace, "Running")
    s.wait_pods(lambda pods: phase_counts(pods) == {"Running": 2}, "2 pods Running, not Ready")
    s.observe("containers running, not ready")

    lab.set_phase(s.namespace, "Ready")
    s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 2}, "2 pods Ready")
    _jobset(s, _jobset_ready, "ready")
    s.observe("every pod ready")
    s.scenario.captured["jobset while running"] = lab.wmap_json("describe", "jobsets/train", "-n", s.namespace)

    lab.set_phase(s.namespace, "Succeeded")
    s.wait_workload(lambda o: on(o, "Complete"), "Complete")
    s.observe("completed")
    s.scenario.captured["pods"] = s.pods()

    lab.kube.delete(API, "TrainJob", "train", s.namespace, propagationPolicy="Foreground")
    s.wait_pods(lambda pods: not pods, "every pod gone with the TrainJob")
    lab.wait_for(JOBSET_API, "JobSet", s.namespace, lambda items: not items, what="the JobSet gone")
    # Foreground deletion removes the owner last: the garbage collector drops the TrainJob's
    # foregroundDeletion finalizer only after its JobSet is gone, so until then kubectl and wmap list it.
    lab.wait_for(API, "TrainJob", s.namespace, lambda items: not items, what="the TrainJob gone")
    s.scenario.captured["after delete"] = lab.wmap("get", "trainjobs", "-n", s.namespace, check=False)


@pytest.fixture(scope="module")
def completion(lab: Lab) -> Scenario:
    return _run(lab, COMPLETION, completion_story)


@pytest.mark.parametrize("step", COMPLETION.params())
def test_completion(completion: Scenario, step: str) -> None:
    completion.check(step)


def test_pods_come_from_the_runtime_and_the_trainjob(completion: Scenario) -> None:
    """The trainer's numNodes and resourcesPerNode land on the runtime's "node" step: 2 pods, 2 GPUs each."""
    pods = completion.captured["pods"]
    assert sorted(p["metadata"]["labels"][STEP_LABEL] for p in pods) == ["node", "node"]
    for pod in pods:
        node = next(c for c in pod["spec"]["containers"] if c["name"] == "node")
        assert node["resources"]["requests"][GPU] == "2", pod["metadata"]["name"]


def test_its_jobset_reads_running_while_the_trainjob_says_nothing(completion: Scenario) -> None:
    """What a v2.0 TrainJob cannot tell, its JobSet (same name, owned by it) does."""
    tree = completion.captured["jobset while running"]
    assert tree["status"]["primary"] == "Running", tree["status"]
    assert tree["totals"]["pods"]["ready"] == 2


def test_deleted_trainjob_is_gone_for_wmap(completion: Scenario) -> None:
    """Deleted in the foreground: the JobSet, its Job and pods went first; wmap lists nothing."""
    proc = completion.captured["after delete"]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "" and "No resources found" in proc.stderr, (proc.stdout, proc.stderr)


# ----------------------------------------------------------------- a node fails

FAILURE = _scenario(
    "node-failed",
    [
        Step("every pod ready", _expect("Undefined", 2, 2, 4, 4)),
        # One node's pod failed: its Job (backoffLimit 0) failed, so did the JobSet (no restarts) and the
        # TrainJob (Failed=True copied); the other pod is deleted with the failed Job's active pods.
        Step("a node failed", {"primary": "Failed", "pods": {"node": 2, **NO_INITIALIZER}}),
    ],
    "lab-trainjob-failure",
)


def failure_story(s: Story) -> None:
    lab = s.lab
    _start(lab, s)
    with lab.auto_phase(s.namespace, "Ready"):
        s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 2}, "2 pods Ready")
    s.observe("every pod ready")

    lab.set_phase(s.namespace, "Failed", [s.pods()[0]["metadata"]["name"]])
    s.wait_workload(lambda o: on(o, "Failed"), "Failed")
    s.wait_pods(lambda pods: "Ready" not in phase_counts(pods), "no pod running")
    s.observe("a node failed", counted=lambda pods: {"podsCurrent": {"node": len(pods), **NO_INITIALIZER}})


@pytest.fixture(scope="module")
def failure(lab: Lab) -> Scenario:
    return _run(lab, FAILURE, failure_story)


@pytest.mark.parametrize("step", FAILURE.params())
def test_failure(failure: Scenario, step: str) -> None:
    failure.check(step)


# ----------------------------------------------------------------- suspend, update, resume

SUSPEND = _scenario(
    "suspend-update-resume",
    [
        Step("every pod ready", _expect("Undefined", 2, 2, 4, 4)),
        # Suspended=True: the JobSet suspended its Job, the pods are gone; the demand stays.
        Step("suspended", _expect("Suspended", 0, 0, 4, 0)),
        # resourcesPerNode 1 GPU while suspended: the TrainJob asks for 2.
        Step("updated while suspended", _expect("Suspended", 0, 0, 2, 0)),
        # Suspended=False reason Resumed, but the Trainer's apply of the JobSet (resume and new resources in
        # one) is denied by JobSet's webhook (a suspended JobSet's pod template takes labels, annotations,
        # nodeSelector and tolerations only): the JobSet stays suspended, no pod comes.
        Step("resumed, refused by the JobSet's webhook", _expect("Undefined", 0, 0, 2, 0)),
        # The resources set back: the apply goes through, the JobSet resumes.
        Step("resources restored, pods starting", _expect("Undefined", 2, 0, 4, 4)),
        Step("ready again", _expect("Undefined", 2, 2, 4, 4)),
        # The operator's own path: spec.suspend written directly.
        Step("suspended through spec.suspend", _expect("Suspended", 0, 0, 4, 0)),
        Step("resumed through spec.suspend, ready", _expect("Undefined", 2, 2, 4, 4)),
    ],
    "lab-trainjob-suspend",
)


# What a TrainJob v2.0 cannot carry to its pods (the runtime holds them; v2.2+ patches them per step through
# runtimePatches, which the v2.0 API does not have), with what wmap answers.
POD_FIELD_UPDATES = {
    "--label": "tier=gold",
    "--scheduler-name": SECOND_SCHEDULER,
    "--tolerations": json.dumps([{"key": "lab.workload-map.run.ai/dedicated", "operator": "Exists"}]),
    "--node-affinity": json.dumps({"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}),
}
REFUSALS = {
    "--label": "cannot write labels: node.labelsPath: ",
    "--scheduler-name": "the definition gives no path to write schedulerName",
    "--tolerations": "the definition gives no path to write tolerations",
    "--node-affinity": "the definition gives no path to write nodeAffinity",
}


def _resources(gpus: int) -> list[str]:
    return ["--requests", f"{GPU}={gpus}", "--limits", f"{GPU}={gpus}"]


def suspend_story(s: Story) -> None:
    lab = s.lab
    _start(lab, s)
    with lab.auto_phase(s.namespace, "Ready"):
        s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 2}, "2 pods Ready")
    s.observe("every pod ready")

    lab.wmap("update", "trainjobs/train", "-n", s.namespace, "--suspend")
    s.wait_pods(lambda pods: not pods, "every pod gone")
    s.wait_workload(lambda o: on(o, "Suspended"), "Suspended=True")
    s.observe("suspended")

    s.scenario.captured["pod field updates"] = {
        flag: lab.wmap("update", "trainjobs/train", "-n", s.namespace, flag, value, check=False)
        for flag, value in POD_FIELD_UPDATES.items()
    }
    lab.wmap("update", "trainjobs/train", "-n", s.namespace, *_resources(1))
    s.observe("updated while suspended")

    lab.wmap("update", "trainjobs/train", "-n", s.namespace, "--resume")
    s.wait_workload(lambda o: condition(o, "Suspended").get("reason") == "Resumed", "Resumed")
    lab.wait_for(
        "v1",
        "Event",
        s.namespace,
        # The same reason may be given at creation too ("TrainingRuntime ... not found": the trainer saw the
        # TrainJob before its cache had the runtime created just before it; or a webhook's lagging cache);
        # the resume's is the refusal of the replicated Jobs' change (_denied).
        lambda events: [e for e in events if _denied(e)],
        what="the Trainer's TrainJobResourcesCreationFailed event carrying the JobSet webhook's refusal",
    )
    lab.quiet(s.namespace)
    assert not s.pods(), "pods after a resume the JobSet's webhook refused"
    assert lab.kube.get(JOBSET_API, "JobSet", "train", s.namespace)["spec"]["suspend"] is True
    s.observe("resumed, refused by the JobSet's webhook")
    s.scenario.captured["refusal"] = [e["message"] for e in lab.kube.list("v1", "Event", s.namespace) if _denied(e)]

    lab.wmap("update", "trainjobs/train", "-n", s.namespace, *_resources(2))
    s.wait_pods(lambda pods: phase_counts(pods) == {"Pending": 2}, "2 pods bound again, starting")
    s.observe("resources restored, pods starting")
    s.scenario.captured["pods after resume"] = live(s.pods())

    lab.set_phase(s.namespace, "Ready")
    s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 2}, "2 pods Ready")
    s.observe("ready again")

    lab.kube.patch(API, "TrainJob", "train", {"spec": {"suspend": True}}, namespace=s.namespace)
    s.wait_pods(lambda pods: not pods, "every pod gone")
    s.wait_workload(lambda o: on(o, "Suspended"), "Suspended=True")
    s.observe("suspended through spec.suspend")

    lab.kube.patch(API, "TrainJob", "train", {"spec": {"suspend": False}}, namespace=s.namespace)
    with lab.auto_phase(s.namespace, "Ready"):
        s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 2}, "2 pods Ready")
    s.wait_workload(lambda o: condition(o, "Suspended").get("reason") == "Resumed", "Resumed")
    s.observe("resumed through spec.suspend, ready")


@pytest.fixture(scope="module")
def suspend(lab: Lab) -> Scenario:
    return _run(lab, SUSPEND, suspend_story)


@pytest.mark.parametrize("step", SUSPEND.params())
def test_suspend(suspend: Scenario, step: str) -> None:
    suspend.check(step)


def test_resources_changed_while_suspended_are_refused_downstream(suspend: Scenario) -> None:
    """Trainer v2.0.0 puts resourcesPerNode into the JobSet's pod template, which JobSet v0.10.1's webhook
    keeps immutable even while suspended: the resume carrying it is refused as a whole (docs/semantics.md
    "Kubeflow TrainJob")."""
    (message, *_) = suspend.captured["refusal"]
    assert "vjobset.kb.io" in message and "denied the request" in message, message


def test_pods_after_resume_have_the_restored_resources(suspend: Scenario) -> None:
    pods = suspend.captured["pods after resume"]
    assert len(pods) == 2
    for pod in pods:
        node = next(c for c in pod["spec"]["containers"] if c["name"] == "node")
        assert node["resources"]["requests"][GPU] == "2", pod["metadata"]["name"]


@pytest.mark.parametrize("flag", sorted(POD_FIELD_UPDATES))
def test_pod_fields_a_v2_0_trainjob_cannot_carry_are_refused_by_wmap(suspend: Scenario, flag: str) -> None:
    """Labels, scheduler name, tolerations and affinity of a TrainJob's pods are the runtime's: wmap refuses
    to write them, naming the component and why (rc 1, nothing written), rather than write what the
    Trainer would prune or ignore."""
    proc = suspend.captured["pod field updates"][flag]
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "component 'node'" in proc.stderr and REFUSALS[flag] in proc.stderr, proc.stderr
