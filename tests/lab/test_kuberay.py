"""RayCluster on the real KubeRay operator, pods on KWOK nodes: wmap's status, pods and GPUs at every step.

The rules asserted are docs/semantics.md "RayCluster"; every step waits on wmap's own watch, keeps the states
it saw on the way, and reads the settled state once more through ``wmap get``/``wmap describe -o json``."""

from __future__ import annotations

from typing import Any

import pytest

from .kwok import PHASE_ANNOTATION
from .scenario import ClusterWatch, expect

pytestmark = pytest.mark.lab

NAMESPACE = "lab-ray"
GPUS_PER_WORKER = 4


def ray_pod(gpus: int) -> dict[str, Any]:
    resources: dict[str, Any] = {"requests": {"cpu": "1", "memory": "1Gi"}}
    if gpus:
        resources["requests"]["nvidia.com/gpu"] = str(gpus)
        resources["limits"] = {"nvidia.com/gpu": str(gpus)}
    return {
        # KWOK makes the lab's pods Running and Ready when their template asks for it (tests/lab/kwok.py).
        "metadata": {"annotations": {PHASE_ANNOTATION: "Ready"}},
        "spec": {"containers": [{"name": "ray", "image": "rayproject/ray:2.46.0", "resources": resources}]},
    }


def worker_groups(workers: int) -> list[dict[str, Any]]:
    return [
        {
            "groupName": "gpu",
            "replicas": workers,
            "minReplicas": 0,
            "maxReplicas": 8,
            "rayStartParams": {},
            "template": ray_pod(GPUS_PER_WORKER),
        }
    ]


def raycluster(name: str, workers: int, *, suspend: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "rayVersion": "2.46.0",
        "headGroupSpec": {"rayStartParams": {}, "template": ray_pod(0)},
        "workerGroupSpecs": worker_groups(workers),
    }
    if suspend:
        spec["suspend"] = True
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": spec,
    }


def scale(kube: Any, name: str, workers: int) -> None:
    kube.patch(
        "ray.io/v1", "RayCluster", name, {"spec": {"workerGroupSpecs": worker_groups(workers)}}, namespace=NAMESPACE
    )


def running(workers: int) -> Any:
    gpus = workers * GPUS_PER_WORKER
    return expect("Running", {"head": 1, "worker": workers}, gpus=gpus, gpus_in_use=gpus)


SUSPENDED = expect("Suspended", {"head": 0, "worker": 0}, gpus=0, gpus_in_use=0)


def test_raycluster_lifecycle(lab: Any) -> None:
    lab.start_operator("kuberay")
    kube = lab.kube
    lab.namespace(NAMESPACE)
    with ClusterWatch(lab, NAMESPACE).running() as watch:
        rc = watch.follow("raycluster", "rc")

        start = rc.mark()
        kube.create(raycluster("rc", 2))
        rc.settle(running(2))
        assert "Initializing" in rc.primaries_since(start), rc.primaries_since(start)

        step = rc.mark()
        scale(kube, "rc", 3)
        rc.settle(running(3))
        # New workers not Ready yet: fewer Ready than desired after provisioning is Degraded (docs/semantics.md).
        assert set(rc.primaries_since(step)) <= {"Running", "Degraded"}, rc.primaries_since(step)

        step = rc.mark()
        scale(kube, "rc", 1)
        rc.settle(running(1))
        assert set(rc.primaries_since(step)) <= {"Running", "Degraded"}, rc.primaries_since(step)

        step = rc.mark()
        lab.wmap("update", "raycluster/rc", "-n", NAMESPACE, "--suspend")
        rc.settle(SUSPENDED)
        assert "Suspending" in rc.primaries_since(step), rc.primaries_since(step)

        step = rc.mark()
        lab.wmap("update", "raycluster/rc", "-n", NAMESPACE, "--resume")
        rc.settle(running(1))
        seen = rc.primaries_since(step)
        assert "Resuming" in seen and "Undefined" not in seen, seen

        step = rc.mark()
        worker = kube.list("v1", "Pod", NAMESPACE, label_selector="ray.io/cluster=rc,ray.io/node-type=worker")[0]
        # The lab's KWOK stage terminates its containers with exit code 1: the pod is Failed.
        lab.set_phase(NAMESPACE, "Failed", [worker["metadata"]["name"]])
        rc.settle(running(1))
        assert "Degraded" in rc.primaries_since(step), rc.primaries_since(step)

        kube.delete("ray.io/v1", "RayCluster", "rc", NAMESPACE)
        rc.wait_for(lambda state: state is None, what="gone")


def test_raycluster_created_suspended(lab: Any) -> None:
    lab.start_operator("kuberay")
    kube = lab.kube
    lab.namespace(NAMESPACE)
    with ClusterWatch(lab, NAMESPACE).running() as watch:
        rc = watch.follow("raycluster", "parked")
        start = rc.mark()
        kube.create(raycluster("parked", 2, suspend=True))
        rc.settle(SUSPENDED)
        seen = rc.primaries_since(start)
        # Before KubeRay's first status the object already says suspend: never Undefined on the way.
        assert "Undefined" not in seen and "Initializing" not in seen, seen
        kube.delete("ray.io/v1", "RayCluster", "parked", NAMESPACE)
        rc.wait_for(lambda state: state is None, what="gone")
