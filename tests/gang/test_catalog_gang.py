"""The catalog's gang sizes on the corpus examples, against what each framework really needs.

Each expected size is computed here from the object with the framework's own rule (its operator or KAI
Scheduler's native plugin), independently of the definition; the definition's arithmetic
(docs/gang.md) must give the same number. Examples are read in place from the shared corpus.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from corpus import CORPUS, corpus_files, corpus_objects
from workload_map.catalog import builtin_definitions
from workload_map.definition.registry import DefinitionRegistry
from workload_map.gang import GangPlan, plan_gang

Obj = dict[str, Any]

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available")


@pytest.fixture(scope="module")
def registry() -> DefinitionRegistry:
    return DefinitionRegistry(builtin_definitions())


def _n(value: Any, default: int) -> int:
    return default if value is None else int(value)


# ---------------------------------------------------------------- framework rules
def pytorchjob(obj: Obj) -> list[int]:
    spec = obj["spec"]
    target = (spec.get("runPolicy") or {}).get("schedulingPolicy", {}).get("minAvailable")
    if target is None:
        target = (spec.get("elasticPolicy") or {}).get("minReplicas")
    if target is None:
        target = sum(_n(r.get("replicas"), 1) for r in spec["pytorchReplicaSpecs"].values())
    return [target]


def mpijob(obj: Obj) -> list[int]:
    """KAI's MPI grouper: runPolicy.schedulingPolicy.minAvailable, else launcher + workers; less the launcher's
    replicas with launcherCreationPolicy WaitForWorkersReady (mpi-operator v0.6.0 creates the launcher only
    once every worker is Ready)."""
    spec = obj["spec"]
    specs = {k.lower(): v for k, v in spec["mpiReplicaSpecs"].items()}
    launcher = _n((specs.get("launcher") or {}).get("replicas"), 1) if specs.get("launcher") else 0
    target = ((spec.get("runPolicy") or {}).get("schedulingPolicy") or {}).get("minAvailable")
    if target is None:
        target = launcher + _n((specs.get("worker") or {}).get("replicas"), 0)
    if spec.get("launcherCreationPolicy") == "WaitForWorkersReady":
        target -= launcher
    return [target]


def raycluster(obj: Obj) -> list[int]:
    spec = obj["spec"]
    total = 1 if spec.get("headGroupSpec") else 0
    for group in spec.get("workerGroupSpecs") or []:
        if group.get("suspend"):
            continue
        minimum = _n(group.get("minReplicas"), 0)
        count = minimum if minimum > 0 else _n(group.get("replicas"), minimum)
        total += count * _n(group.get("numOfHosts"), 1)
    return [total]


def leaderworkerset(obj: Obj) -> list[int]:
    spec = obj["spec"]
    return [_n(spec["leaderWorkerTemplate"].get("size"), 1)] * _n(spec.get("replicas"), 1)


def jobset(obj: Obj) -> list[int]:
    total = 0
    for rjob in obj["spec"]["replicatedJobs"]:
        job = rjob["template"].get("spec") or {}
        parallelism = _n(job.get("parallelism"), 1)
        completions = _n(job.get("completions"), parallelism)
        total += _n(rjob.get("replicas"), 1) * min(parallelism, completions)
    return [total]


def knative(obj: Obj) -> list[int]:
    annotations = (obj["spec"].get("template", {}).get("metadata") or {}).get("annotations") or {}
    value = annotations.get("autoscaling.knative.dev/min-scale", annotations.get("autoscaling.knative.dev/minScale"))
    return [max(_n(value, 1), 1)]


def grove(obj: Obj) -> list[int]:
    """Grove's base PodGang per PodCliqueSet replica: standalone cliques at their minAvailable (default
    replicas), plus minAvailable (default 1) replicas of every scaling group, each with its cliques'."""
    template = obj["spec"]["template"]
    cliques = {c["name"]: c["spec"] for c in template["cliques"]}

    def clique_min(spec: Obj) -> int:
        return _n(spec.get("minAvailable"), _n(spec.get("replicas"), 1))

    scaling = template.get("podCliqueScalingGroups") or []
    in_groups = {name for g in scaling for name in g["cliqueNames"]}
    total = sum(clique_min(s) for n, s in cliques.items() if n not in in_groups)
    for group in scaling:
        total += _n(group.get("minAvailable"), 1) * sum(clique_min(cliques[n]) for n in group["cliqueNames"])
    return [total] * _n(obj["spec"].get("replicas"), 1)


def dynamo(obj: Obj) -> list[int]:
    """One gang per graph: every service at its replicas (these examples set no minimum), times nodes."""
    spec = obj["spec"]
    services = list((spec.get("services") or {}).values()) or list(spec.get("components") or [])
    return [
        sum(_n(s.get("replicas"), 1) * max(_n((s.get("multinode") or {}).get("nodeCount"), 1), 1) for s in services)
    ]


def job(obj: Obj) -> list[int]:
    """KAI's Job grouper: 1, or the kai.scheduler/batch-min-member annotation."""
    override = (obj.get("metadata", {}).get("annotations") or {}).get("kai.scheduler/batch-min-member")
    return [_n(override, 1)]


RULES: dict[str, tuple[str, Callable[[Obj], list[int]]]] = {
    "pytorchjob": ("PyTorchJob", pytorchjob),
    "mpijob": ("MPIJob", mpijob),
    "raycluster": ("RayCluster", raycluster),
    "leaderworkerset": ("LeaderWorkerSet", leaderworkerset),
    "jobset": ("JobSet", jobset),
    "knative-service": ("Service", knative),
    "grove-podcliqueset": ("PodCliqueSet", grove),
    "dynamo": ("DynamoGraphDeployment", dynamo),
    "job": ("Job", job),
}

# Catalog definitions known to give the wrong size, framework -> "<file>: <fix>" (xfail while listed).
# JobSet and Dynamo were listed (multi-instance pod component as the member) until their member became
# the root; keep this empty unless a definition regresses.
KNOWN_WRONG: dict[str, str] = {}


def cases() -> list[Any]:
    out = []
    for framework, (kind, _) in RULES.items():
        for relative in corpus_files(framework, "examples"):
            for item in corpus_objects(relative):
                if item.obj.get("kind") != kind:
                    continue
                marks = []
                if framework in KNOWN_WRONG:
                    marks.append(pytest.mark.xfail(reason=KNOWN_WRONG[framework], strict=True))
                out.append(pytest.param(framework, item.obj, id=item.label, marks=marks))
    return out


def plan_for(registry: DefinitionRegistry, obj: Obj) -> GangPlan:
    definition, _ = registry.for_object(obj)
    assert definition is not None, f"no catalog definition covers {obj.get('kind')}"
    obj = copy.deepcopy(obj)
    obj.setdefault("metadata", {})["uid"] = "0f0e0d0c"
    return plan_gang(definition, obj)


@pytest.mark.parametrize(("framework", "obj"), cases())
def test_catalog_gang_sizes(registry: DefinitionRegistry, framework: str, obj: Obj) -> None:
    plan = plan_for(registry, obj)
    assert not plan.errors, [e.message for e in plan.errors]
    expected = RULES[framework][1](obj)
    assert [g.min_member for g in plan.groups] == expected
    # a catalog definition must never make members of one group disagree on its size
    assert not [w for w in plan.warnings if "compute different minimums" in w]


def test_leaderworkerset_groups_are_per_replica(registry: DefinitionRegistry) -> None:
    [item] = [
        o for o in corpus_objects("leaderworkerset/examples/vllm-gpu-lws.yaml") if o.obj["kind"] == "LeaderWorkerSet"
    ]
    plan = plan_for(registry, item.obj)
    assert [g.key[-1] for g in plan.groups] == [str(i) for i in range(len(plan.groups))]
    assert all(g.expected and g.component == "group" for g in plan.groups)


def _mpijob(workers: int, *, policy: str | None = None, min_available: int | None = None) -> Obj:
    container = {"name": "mpi", "image": "mpioperator/mpi-pi:openmpi"}
    spec: Obj = {
        "slotsPerWorker": 1,
        "runPolicy": {"cleanPodPolicy": "Running"},
        "mpiReplicaSpecs": {
            "Launcher": {"replicas": 1, "template": {"spec": {"containers": [container]}}},
            "Worker": {"replicas": workers, "template": {"spec": {"containers": [container]}}},
        },
    }
    if policy is not None:
        spec["launcherCreationPolicy"] = policy
    if min_available is not None:
        spec["runPolicy"]["schedulingPolicy"] = {"minAvailable": min_available}
    return {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "pi"}, "spec": spec}


@pytest.mark.parametrize(
    ("workers", "policy", "min_available"),
    [
        (4, None, None),
        (4, "AtStartup", 3),
        (4, "WaitForWorkersReady", None),
        (2, "WaitForWorkersReady", None),
        (8, "WaitForWorkersReady", 6),
    ],
)
def test_mpijob_gang_leaves_out_a_launcher_created_after_the_workers(
    registry: DefinitionRegistry, workers: int, policy: str | None, min_available: int | None
) -> None:
    obj = _mpijob(workers, policy=policy, min_available=min_available)
    plan = plan_for(registry, obj)
    assert not plan.errors, [e.message for e in plan.errors]
    assert [g.min_member for g in plan.groups] == mpijob(obj)


def test_mpijob_gang_with_one_worker_and_a_delayed_launcher_cannot_go_below_two(registry: DefinitionRegistry) -> None:
    """The Karta arithmetic counts a component at its replicas when its minimum is 0 (docs/gang.md 4), so the
    launcher always adds its 1 and a lone worker cannot take it back: 2, where KAI's native plugin says 1."""
    plan = plan_for(registry, _mpijob(1, policy="WaitForWorkersReady"))
    assert [g.min_member for g in plan.groups] == [2]
    # the one worker cannot stand for the launcher's count: it stays on the launcher, with a warning
    assert [(s.component, s.count) for s in plan.groups[0].shapes] == [("worker", 1), ("launcher", 1)]
    assert any("created after the gang starts" in w for w in plan.warnings)


def _gpu_mpijob(policy: str | None) -> Obj:
    obj = _mpijob(2, policy=policy)
    worker = obj["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    worker["containers"] = [{**worker["containers"][0], "resources": {"limits": {"nvidia.com/gpu": 2}}}]
    return obj


def test_mpijob_gang_shapes_are_the_workers_while_the_launcher_waits_for_them(registry: DefinitionRegistry) -> None:
    """WaitForWorkersReady: the launcher's pod does not exist until the workers are Ready, so the gang's shapes
    and GPU minimum are the 2 workers' (docs/gang.md 4), with KAI's minMember unchanged."""
    [group] = plan_for(registry, _gpu_mpijob("WaitForWorkersReady")).groups
    assert group.min_member == 2
    assert [(s.component, s.count) for s in group.shapes] == [("worker", 2)]
    assert group.min_gpus == 4
    assert group.desired == 3


def test_mpijob_gang_shapes_keep_a_launcher_made_at_startup(registry: DefinitionRegistry) -> None:
    [group] = plan_for(registry, _gpu_mpijob(None)).groups
    assert group.min_member == 3
    assert [(s.component, s.count) for s in group.shapes] == [("launcher", 1), ("worker", 2)]
    assert group.min_gpus == 4
