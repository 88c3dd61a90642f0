"""RayCluster on the real KubeRay v1.5.0 operator, its pods on KWOK nodes: wmap's reading at every step.

The rules are docs/semantics.md "RayCluster". KWOK moves the lab's pods only when the story says so
(tests/lab/kwok.py), so each state — pods bound but starting, a scale-up half ready, pods still terminating
during a suspension — holds until the step is observed. The recording of each run is replayed state by
state to check the transient states between steps too."""

from __future__ import annotations

from typing import Any

import pytest

from .kwok import FROZEN_ANNOTATION
from .lab import Lab
from .replayed import between, primaries, recording_path
from .scenario import Scenario, Step, Story, live

NAMESPACE = "lab-ray"
GPUS = 4  # per worker
RECORD = [("ray.io/v1", "RayCluster"), ("v1", "Pod")]
RAY = ("ray.io/v1", "RayCluster")


def expect(
    primary: str, workers: int, ready: tuple[int, int] | None, *, present: tuple[int, int] | None = None
) -> dict[str, Any]:
    """The facts of one step: desired pods and GPUs follow the spec (a suspended cluster keeps its full size,
    docs/semantics.md "Replicas and desired pods"), present and ready the pods, gpusCurrent the active ones."""
    here = present if present is not None else (1, workers)
    ready_pods = ready if ready is not None else (0, 0)
    return {
        "primary": primary,
        "pods": {"head": 1, "worker": workers},
        "podsCurrent": {"head": here[0], "worker": here[1]},
        "podsReady": {"head": ready_pods[0], "worker": ready_pods[1]},
        "gpus": workers * GPUS,
        "gpusCurrent": here[1] * GPUS,
    }


def raycluster(name: str, workers: int, *, suspend: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "rayVersion": "2.46.0",
        "headGroupSpec": {"rayStartParams": {}, "template": ray_pod(0)},
        "workerGroupSpecs": worker_groups(workers),
    }
    if suspend:
        spec["suspend"] = True
    return {"apiVersion": RAY[0], "kind": RAY[1], "metadata": {"name": name, "namespace": NAMESPACE}, "spec": spec}


def ray_pod(gpus: int) -> dict[str, Any]:
    requests: dict[str, str] = {"cpu": "1", "memory": "2Gi"}
    limits: dict[str, str] = {}
    if gpus:
        requests["nvidia.com/gpu"] = limits["nvidia.com/gpu"] = str(gpus)
    container = {"name": "ray", "image": "rayproject/ray:2.46.0", "resources": {"requests": requests, "limits": limits}}
    return {"spec": {"containers": [container]}}


def worker_groups(workers: int) -> list[dict[str, Any]]:
    return [
        {
            "groupName": "gpu",
            "replicas": workers,
            "minReplicas": 0,
            "maxReplicas": 8,
            "rayStartParams": {},
            "template": ray_pod(GPUS),
        }
    ]


def condition(obj: dict[str, Any], kind: str) -> str | None:
    found = [c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == kind]
    return found[-1].get("status") if found else None


def bound(pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for p in live(pods) if (p.get("status") or {}).get("podIP")]


LIFECYCLE = Scenario(
    framework="ray",
    name="raycluster-lifecycle",
    workload={"apiVersion": RAY[0], "kind": RAY[1], "namespace": NAMESPACE, "name": "rc"},
    wmap_type="raycluster",
    record_kinds=RECORD,
    operator="kuberay",
    steps=[
        Step("pods starting", expect("Initializing", 2, None)),
        Step("running", expect("Running", 2, (1, 2))),
        Step("scaling up", expect("Degraded", 3, (1, 2))),
        Step("scaled up", expect("Running", 3, (1, 3))),
        Step("scaled down", expect("Running", 1, (1, 1))),
        # The pods are still there, Terminating (present and as Ready as they were), and hold no GPUs any more.
        Step("suspending", {**expect("Suspending", 1, (1, 1), present=(1, 1)), "gpusCurrent": 0}),
        Step("suspended", expect("Suspended", 1, None, present=(0, 0))),
        Step("resuming", expect("Resuming", 1, None)),
        Step("resumed", expect("Running", 1, (1, 1))),
        Step("worker failed", expect("Degraded", 1, (1, 0))),
        Step("recovered", expect("Running", 1, (1, 1))),
    ],
)


def lifecycle(story: Story) -> None:
    lab, ns = story.lab, story.namespace
    selector = "ray.io/cluster=rc"

    def pods_bound(head: int, workers: int) -> None:
        def ok(pods: list[dict[str, Any]]) -> bool:
            up = bound(pods)
            kinds = [p["metadata"]["labels"].get("ray.io/node-type") for p in up]
            return (
                len(live(pods)) == head + workers and kinds.count("head") == head and kinds.count("worker") == workers
            )

        story.wait_pods(ok, f"{head} head and {workers} workers bound", label_selector=selector)

    def ready_all() -> None:
        lab.set_phase(ns, "Ready", label_selector=selector)

    lab.kube.create(raycluster("rc", 2))
    pods_bound(1, 2)
    story.wait_workload(lambda rc: condition(rc, "RayClusterProvisioned") == "False", "provisioning")
    story.observe("pods starting")

    ready_all()
    story.wait_workload(lambda rc: condition(rc, "RayClusterProvisioned") == "True", "provisioned")
    story.observe("running")

    lab.kube.patch(*RAY, "rc", {"spec": {"workerGroupSpecs": worker_groups(3)}}, namespace=ns)
    pods_bound(1, 3)
    story.wait_workload(lambda rc: (rc.get("status") or {}).get("desiredWorkerReplicas") == 3, "3 workers desired")
    story.observe("scaling up")

    ready_all()
    story.wait_workload(lambda rc: (rc.get("status") or {}).get("readyWorkerReplicas") == 3, "3 workers ready")
    story.observe("scaled up")

    lab.kube.patch(*RAY, "rc", {"spec": {"workerGroupSpecs": worker_groups(1)}}, namespace=ns)
    pods_bound(1, 1)
    story.wait_workload(lambda rc: (rc.get("status") or {}).get("readyWorkerReplicas") == 1, "1 worker ready")
    story.observe("scaled down")

    # Held Terminating (as a kubelet still stopping containers would), the pods keep the suspension in progress.
    for pod in story.pods(selector):
        lab.kube.patch(
            "v1",
            "Pod",
            pod["metadata"]["name"],
            {"metadata": {"annotations": {FROZEN_ANNOTATION: "true"}}},
            namespace=ns,
        )
    lab.wmap("update", "raycluster/rc", "-n", ns, "--suspend")
    story.wait_workload(lambda rc: condition(rc, "RayClusterSuspending") == "True", "suspending")
    story.wait_pods(
        lambda pods: pods and all(p["metadata"].get("deletionTimestamp") for p in pods),
        "pods terminating",
        label_selector=selector,
    )
    story.observe("suspending")

    for pod in story.pods(selector):
        lab.kube.patch(
            "v1", "Pod", pod["metadata"]["name"], {"metadata": {"annotations": {FROZEN_ANNOTATION: None}}}, namespace=ns
        )
    story.wait_workload(lambda rc: condition(rc, "RayClusterSuspended") == "True", "suspended")
    story.observe("suspended")

    lab.wmap("update", "raycluster/rc", "-n", ns, "--resume")
    pods_bound(1, 1)
    story.wait_workload(lambda rc: condition(rc, "RayClusterSuspended") == "False", "resumed by KubeRay")
    story.observe("resuming")

    ready_all()
    story.wait_workload(lambda rc: (rc.get("status") or {}).get("state") == "ready", "ready again")
    story.observe("resumed")

    worker = story.pods(selector + ",ray.io/node-type=worker")[0]["metadata"]["name"]
    lab.set_phase(ns, "Failed", [worker])
    story.wait_pods(
        lambda pods: worker not in {p["metadata"]["name"] for p in pods} and len(bound(pods)) == 2,
        "the failed worker replaced",
        label_selector=selector,
    )
    story.wait_workload(lambda rc: ((rc.get("status") or {}).get("readyWorkerReplicas") or 0) == 0, "0 workers ready")
    story.observe("worker failed")

    ready_all()
    story.wait_workload(lambda rc: (rc.get("status") or {}).get("readyWorkerReplicas") == 1, "1 worker ready")
    story.observe("recovered")

    lab.kube.delete(*RAY, "rc", ns)
    story.wait_pods(lambda pods: not pods, "every pod of the deleted cluster gone", label_selector=selector)


CREATED_SUSPENDED = Scenario(
    framework="ray",
    name="raycluster-created-suspended",
    workload={"apiVersion": RAY[0], "kind": RAY[1], "namespace": NAMESPACE, "name": "parked"},
    wmap_type="raycluster",
    record_kinds=RECORD,
    operator="kuberay",
    steps=[Step("created suspended", expect("Suspended", 2, None, present=(0, 0)))],
)


def created_suspended(story: Story) -> None:
    story.lab.kube.create(raycluster("parked", 2, suspend=True))
    story.wait_workload(
        lambda rc: (
            (rc.get("status") or {}).get("state") == "suspended" or condition(rc, "RayClusterSuspended") == "True"
        ),
        "suspended by KubeRay",
    )
    story.observe("created suspended")
    story.lab.kube.delete(*RAY, "parked", story.namespace)


@pytest.fixture(scope="module")
def lifecycle_run(lab: Lab) -> tuple[Scenario, Lab]:
    return LIFECYCLE.run(lab, lifecycle), lab


@pytest.fixture(scope="module")
def created_suspended_run(lab: Lab) -> tuple[Scenario, Lab]:
    return CREATED_SUSPENDED.run(lab, created_suspended), lab


@pytest.mark.parametrize("step", LIFECYCLE.params())
def test_raycluster_lifecycle(lifecycle_run: tuple[Scenario, Lab], step: str) -> None:
    lifecycle_run[0].check(step)


def test_raycluster_lifecycle_transitions(lifecycle_run: tuple[Scenario, Lab]) -> None:
    """Once KubeRay has given the cluster a status wmap never reads Undefined, and a resume is never read
    Suspending."""
    scenario, lab = lifecycle_run
    changes = primaries(recording_path(scenario, lab.work_dir), "raycluster", NAMESPACE, "rc")
    after = {name: o.after for name, o in scenario.observations.items()}
    assert "Undefined" not in between(changes, after["pods starting"], after["recovered"]), changes
    assert "Suspending" not in between(changes, after["suspended"], after["resumed"]), changes


def test_raycluster_just_created_reads_initializing(lifecycle_run: tuple[Scenario, Lab]) -> None:
    """From the object's creation to the first step, before and after KubeRay's first status: Initializing."""
    scenario, lab = lifecycle_run
    changes = primaries(recording_path(scenario, lab.work_dir), "raycluster", NAMESPACE, "rc")
    first = scenario.observations["pods starting"].after
    seen = [p for index, p in changes if index <= first and p is not None]
    assert seen and set(seen) == {"Initializing"}, changes


@pytest.mark.parametrize("step", CREATED_SUSPENDED.params())
def test_raycluster_created_suspended(created_suspended_run: tuple[Scenario, Lab], step: str) -> None:
    created_suspended_run[0].check(step)


def test_raycluster_created_suspended_never_undefined(created_suspended_run: tuple[Scenario, Lab]) -> None:
    """From its creation (before KubeRay's first status, and in the reconcile that finds no pod to delete) a
    RayCluster with spec.suspend reads Suspended (docs/semantics.md "RayCluster")."""
    scenario, lab = created_suspended_run
    changes = primaries(recording_path(scenario, lab.work_dir), "raycluster", NAMESPACE, "parked")
    seen = [p for _, p in changes if p is not None]
    assert seen and set(seen) == {"Suspended"}, changes
