"""LeaderWorkerSet v0.7.0 with kube-controller-manager's StatefulSet controller: first rollout, scale up, a
rolling update made with ``wmap update`` (the recreated groups' pods carry it), a node lost under a group
and taken out of service, scale to zero. docs/semantics.md "LeaderWorkerSet"."""

from __future__ import annotations

import json
from typing import Any

import pytest

from . import kwok
from .kube import Obj
from .lab import SECOND_SCHEDULER, Lab
from .scenario import Scenario, Step, Story, live, phase_counts, pod_state

NS = "lab-lws"
NAME = "serve"
API = "leaderworkerset.x-k8s.io/v1"
GPU = "nvidia.com/gpu"
SIZE = 3  # a leader and 2 workers per group
WORKER_INDEX = "leaderworkerset.sigs.k8s.io/worker-index"


def lws(replicas: int) -> Obj:
    return {
        "apiVersion": API,
        "kind": "LeaderWorkerSet",
        "metadata": {"name": NAME, "namespace": NS},
        "spec": {
            "replicas": replicas,
            "leaderWorkerTemplate": {
                "size": SIZE,
                "workerTemplate": {
                    "spec": {
                        "containers": [
                            {
                                "name": "vllm",
                                "image": "registry.local/vllm:1",
                                "resources": {"requests": {"cpu": "1", GPU: "1"}, "limits": {GPU: "1"}},
                            }
                        ]
                    }
                },
            },
        },
    }


def _expect(primary: str, groups: int, current: int, ready: int) -> dict[str, Any]:
    """``current`` and ``ready`` in groups (all of a group's pods alike)."""
    return {
        "primary": primary,
        "pods": {"leader": groups, "worker": groups * (SIZE - 1)},
        "podsCurrent": {"leader": current, "worker": current * (SIZE - 1)},
        "podsReady": {"leader": ready, "worker": ready * (SIZE - 1)},
        "gpus": groups * SIZE,
        "gpusCurrent": current * SIZE,
    }


def counted(pods: list[Obj], statefulsets: list[Obj], root: Obj) -> dict[str, Any]:
    """Pods present and ready per component, GPUs of the present active pods (docs/tree-json.md).

    Only pods whose whole controller chain up to the LeaderWorkerSet is present, by uid (docs/semantics.md
    "Pods": a pod belongs to a workload through its owner chain): a worker pod -> its group's worker
    StatefulSet -> the group's leader pod -> the leader StatefulSet -> the LeaderWorkerSet. When the lost node
    held a group's leader, LWS recreates it (a new leader pod, a new uid) while the old worker StatefulSet and
    its pods wait for the garbage collector: they no longer belong to the set (one run counted them by their
    StatefulSet alone and said 4 workers where wmap rightly read 2; another, a worker of another group on the
    lost node, said 6 where wmap read 5)."""
    by_uid = {o["metadata"]["uid"]: o for o in [*pods, *statefulsets]}
    top = root["metadata"]["uid"]

    def belongs(obj: Obj) -> bool:
        seen: set[str] = set()
        while True:
            controller = next((r for r in obj["metadata"].get("ownerReferences") or [] if r.get("controller")), None)
            if controller is None or controller["uid"] in seen:
                return False
            if controller["uid"] == top:
                return True
            seen.add(controller["uid"])
            owner = by_uid.get(controller["uid"])
            if owner is None:
                return False
            obj = owner

    current = {"leader": 0, "worker": 0}
    ready = {"leader": 0, "worker": 0}
    gpus = 0
    for pod in pods:
        if not belongs(pod):
            continue
        role = "leader" if pod["metadata"]["labels"].get(WORKER_INDEX) == "0" else "worker"
        current[role] += 1
        ready[role] += pod_state(pod) == "Ready"
        gpus += pod_state(pod) not in ("Terminating", "Succeeded", "Failed")
    return {"podsCurrent": current, "podsReady": ready, "gpusCurrent": gpus}


SCENARIO = Scenario(
    framework="lws",
    name="rollout-scale-update-node-lost",
    workload={"apiVersion": API, "kind": "LeaderWorkerSet", "namespace": NS, "name": NAME},
    wmap_type="leaderworkersets",
    record_kinds=[(API, "LeaderWorkerSet"), ("apps/v1", "StatefulSet"), ("v1", "Pod")],
    steps=[
        # "Initializing: no Available condition yet (first rollout)".
        Step("groups starting", _expect("Initializing", 2, 2, 0)),
        Step("available", _expect("Running", 2, 2, 2)),
        # "Degraded: Available=False ... a scale-up (LWS itself reports it not Available)".
        Step("scaling up to 3", _expect("Degraded", 3, 3, 2)),
        Step("scaled up", _expect("Running", 3, 3, 3)),
        # "Running: ... UpdateInProgress=True on a set that was Available with readyReplicas >= replicas -
        # maxUnavailable (default 1)": one group recreated at a time.
        Step("rolling update, one group recreated", _expect("Running", 3, 3, 2)),
        Step("rolled out", _expect("Running", 3, 3, 3)),
        # "Degraded: Available=False outside a rolling update within budget: a group lost".
        Step("node lost under a group", {"primary": "Degraded", "pods": {"leader": 3, "worker": 6}, "gpus": 9}),
        Step("node out of service, group recreated", _expect("Running", 3, 3, 3)),
        # "Suspended: spec.replicas 0".
        Step("scaled to zero", _expect("Suspended", 0, 0, 0)),
    ],
    operator="lws",
)

TOLERATIONS = [{"key": "lab.workload-map.run.ai/dedicated", "operator": "Exists", "effect": "NoSchedule"}]
NODE_AFFINITY = {
    "requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": kwok.POOL_LABEL, "operator": "In", "values": ["h100", "a100"]}]}
        ]
    }
}


def _condition(obj: Obj, kind: str) -> str | None:
    return next(
        (c.get("status") for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == kind), None
    )


def _ready_replicas(obj: Obj) -> int:
    return int((obj.get("status") or {}).get("readyReplicas") or 0)


def story(s: Story) -> None:
    lab = s.lab
    lab.kube.create(lws(2))
    s.wait_pods(lambda pods: phase_counts(pods) == {"Pending": 2 * SIZE}, "2 groups' pods bound, starting")
    s.wait_workload(lambda o: _condition(o, "Progressing") == "True", "Progressing")
    s.observe("groups starting")

    with lab.auto_phase(NS, "Ready"):
        s.wait_workload(lambda o: _condition(o, "Available") == "True" and _ready_replicas(o) == 2, "Available")
        # LWS counts a group ready by its leader: a whole-lab run saw readyReplicas 3 and Available=True
        # while a worker of the new group was still starting, and wmap rightly read one worker fewer ready.
        s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 2 * SIZE}, "every pod Ready")
    s.observe("available")

    lab.kube.patch(API, "LeaderWorkerSet", NAME, {"spec": {"replicas": 3}}, namespace=NS)
    s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 2 * SIZE, "Pending": SIZE}, "the third group starting")
    s.wait_workload(lambda o: _condition(o, "Available") == "False" and _ready_replicas(o) == 2, "not Available")
    s.observe("scaling up to 3")

    with lab.auto_phase(NS, "Ready"):
        s.wait_workload(lambda o: _condition(o, "Available") == "True" and _ready_replicas(o) == 3, "Available")
        s.wait_pods(lambda pods: phase_counts(pods) == {"Ready": 3 * SIZE}, "every pod Ready")
    s.observe("scaled up")

    lab.wmap(
        "update",
        f"leaderworkersets/{NAME}",
        "-n",
        NS,
        "--label",
        "tier=gold",
        "--scheduler-name",
        SECOND_SCHEDULER,
        "--requests",
        "cpu=2",
        "--tolerations",
        json.dumps(TOLERATIONS),
        "--node-affinity",
        json.dumps(NODE_AFFINITY),
    )
    s.wait_pods(
        lambda pods: (
            phase_counts(pods) == {"Ready": 2 * SIZE, "Pending": SIZE}
            and sum(p["metadata"]["labels"].get("tier") == "gold" for p in pods) == SIZE
        ),
        "one group recreated from the new template, starting",
    )
    s.wait_workload(
        lambda o: _condition(o, "UpdateInProgress") == "True" and _ready_replicas(o) == 2, "update in progress"
    )
    s.observe("rolling update, one group recreated")

    with lab.auto_phase(NS, "Ready"):
        s.wait_workload(
            lambda o: (
                _condition(o, "Available") == "True"
                and _condition(o, "UpdateInProgress") != "True"
                and _ready_replicas(o) == 3
                and int(o["status"].get("updatedReplicas") or 0) == 3
            ),
            "rolled out",
        )
        s.wait_pods(
            lambda pods: (
                phase_counts(pods) == {"Ready": 3 * SIZE}
                and all(p["metadata"]["labels"].get("tier") == "gold" for p in pods)
            ),
            "every pod from the new template, Ready",
        )
    s.observe("rolled out")
    s.scenario.captured["pods after the rollout"] = s.pods()

    leader = next(p for p in s.pods() if p["metadata"]["name"] == f"{NAME}-1")
    node = leader["spec"]["nodeName"]
    s.scenario.captured["lost node"] = node
    lab.lose_node(node)
    lab.wait_for(
        "v1",
        "Node",
        None,
        lambda nodes: any(n["metadata"]["name"] == node and _condition(n, "Ready") == "Unknown" for n in nodes),
        what=f"{node} NotReady (Unknown) after its heartbeats stopped",
    )
    s.wait_pods(
        lambda pods: all(pod_state(p) == "Terminating" for p in pods if p["spec"].get("nodeName") == node),
        f"the pods on {node} evicted (Terminating: no kubelet confirms)",
    )
    s.wait_workload(lambda o: _condition(o, "Available") == "False", "not Available")
    lab.quiet(NS)  # LWS recreating the group as far as it can while the lost node's pods stay Terminating

    def counted_now(pods: list[Obj]) -> dict[str, Any]:
        return counted(
            pods, lab.kube.list("apps/v1", "StatefulSet", NS), lab.kube.get(API, "LeaderWorkerSet", NAME, NS)
        )

    s.observe("node lost under a group", counted_now)

    with lab.auto_phase(NS, "Ready"):
        lab.take_out_of_service(node)
        s.wait_pods(
            lambda pods: (
                len(pods) == 3 * SIZE
                and all(pod_state(p) == "Ready" and p["spec"].get("nodeName") != node for p in pods)
            ),
            f"every group Ready again, nothing on {node}",
        )
        s.wait_workload(lambda o: _condition(o, "Available") == "True" and _ready_replicas(o) == 3, "Available again")
    s.observe("node out of service, group recreated")

    lab.kube.patch(API, "LeaderWorkerSet", NAME, {"spec": {"replicas": 0}}, namespace=NS)
    s.wait_pods(lambda pods: not pods, "every pod gone")
    s.wait_workload(
        lambda o: _ready_replicas(o) == 0 and not (o.get("status") or {}).get("replicas"), "no replica counted"
    )
    s.observe("scaled to zero")


@pytest.fixture(scope="module")
def scenario(lab: Lab) -> Scenario:
    return SCENARIO.run(lab, story)


@pytest.mark.parametrize("step", SCENARIO.params())
def test_step(scenario: Scenario, step: str) -> None:
    scenario.check(step)


def test_update_reaches_pods(scenario: Scenario) -> None:
    """Leaders and workers the rolling update recreated carry every field ``wmap update`` wrote."""
    pods = live(scenario.captured["pods after the rollout"])
    assert len(pods) == 3 * SIZE
    for pod in pods:
        spec, name = pod["spec"], pod["metadata"]["name"]
        assert pod["metadata"]["labels"].get("tier") == "gold", name
        assert spec["schedulerName"] == SECOND_SCHEDULER, name
        assert spec["containers"][0]["resources"]["requests"] == {"cpu": "2", GPU: "1"}, name
        assert [t for t in spec.get("tolerations", []) if t["key"].startswith("lab.")] == TOLERATIONS, name
        assert spec["affinity"]["nodeAffinity"] == NODE_AFFINITY, name
        assert spec["nodeName"].startswith("gpu-"), name
