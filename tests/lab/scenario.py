"""Scenarios: a workload driven through the API step by step, wmap's reading asserted at every step.

A scenario module declares its steps (name, what docs/semantics.md says wmap must report then) and a
story: a function that acts as users and controllers act and calls ``story.observe(step)`` at each step,
once the cluster has reached it (seen through a watch). The story runs once per module (a fixture); each
step is then its own test, so a step where wmap disagrees with the documented rule is one test marked
``xfail(strict=True)`` with the rule it breaks, and the steps after it are still checked.

Each run is saved as a Recording (recorder.py) with one checkpoint per step whose expectation is the
step's; ``WMAP_LAB_RECORD=1`` writes it to tests/lab/recordings/<framework>/<scenario>.yaml, which
tests/lab_replay replays without the lab.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .known_wrong import KNOWN_WRONG
from .kube import Obj
from .lab import SECOND_SCHEDULER, Lab, LabError
from .recorder import Recorder

RECORDINGS = Path(__file__).resolve().parent / "recordings"
# wmap's tree document fields each expectation key is read from (docs/tree-json.md); the same keys as
# a Recording checkpoint's expect (workload_map.base.expectation.EXPECT_KEYS).
PER_COMPONENT = {"pods": "desired", "podsCurrent": "current", "podsReady": "ready"}


def facts(tree: dict[str, Any]) -> dict[str, Any]:
    """What a step can assert, read from ``wmap describe -o json``."""
    out: dict[str, Any] = {
        "primary": tree["status"]["primary"],
        "matched": sorted(tree["status"]["matched"]),
        "desiredPods": tree["totals"]["pods"]["desired"],
        "gpus": tree["totals"]["gpus"],
        "gpusCurrent": tree["totals"].get("gpusCurrent"),
    }
    for key, field_name in PER_COMPONENT.items():
        out[key] = {c["name"]: c["pods"][field_name] for c in tree["components"] if c.get("producesPods")}
    return out


@dataclass(frozen=True)
class Step:
    name: str
    expect: dict[str, Any]


@dataclass
class Observation:
    step: Step
    facts: dict[str, Any]
    tree: dict[str, Any]
    after: int
    seconds: float  # since the story started


@dataclass
class Scenario:
    framework: str
    name: str
    workload: dict[str, str]  # apiVersion, kind, namespace, name
    wmap_type: str  # TYPE for wmap (a plural or short name)
    record_kinds: list[tuple[str, str]]
    steps: list[Step]
    operator: str | None = None
    observations: dict[str, Observation] = field(default_factory=dict)
    captured: dict[str, Any] = field(default_factory=dict)  # what a story keeps for tests beside the steps
    seconds: float | None = None

    def params(self) -> list[Any]:
        """One pytest param per step; a step in known_wrong.KNOWN_WRONG is xfail(strict=True)."""
        params = []
        for step in self.steps:
            reason = KNOWN_WRONG.get((self.framework, self.name, step.name))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(step.name, id=step.name, marks=marks))
        return params

    @property
    def namespace(self) -> str:
        return self.workload["namespace"]

    def run(self, lab: Lab, story: Callable[[Story], None]) -> Scenario:
        operator = None
        if self.operator:
            module = lab.start_operator(self.operator)
            operator = {"name": self.operator, "version": module.VERSION}
        lab.namespace(self.namespace)
        recorder = Recorder(lab.kube, self.namespace, self.record_kinds, self.workload, operator)
        recorder.start()
        began = time.monotonic()
        try:
            story(Story(self, lab, recorder, began))
        finally:
            recorder.stop()
        self.seconds = time.monotonic() - began
        lab.timings[f"{self.framework}/{self.name}"] = self.seconds
        missing = [s.name for s in self.steps if s.name not in self.observations]
        if missing:
            raise LabError(f"the story of {self.framework}/{self.name} never reached step(s) {missing}")
        server = lab.kube.request("GET", "/version").get("gitVersion", "")
        recorder.save(lab.work_dir / "recordings" / self.framework / f"{self.name}.yaml", server)
        if os.environ.get("WMAP_LAB_RECORD") == "1":
            recorder.save(RECORDINGS / self.framework / f"{self.name}.yaml", server)
        return self

    def check(self, step_name: str) -> None:
        """Assert one step: every expected fact as wmap read it."""
        observation = self.observations[step_name]
        wanted = observation.step.expect
        got = {key: observation.facts.get(key) for key in wanted}
        assert got == wanted, (
            f"step {step_name!r} (after {observation.after} events, {observation.seconds:.1f} s): "
            f"wmap read {got}, docs/semantics.md says {wanted}; status explanation: "
            f"{[e for e in observation.tree['status']['explanations'] if e.get('matched')]}"
        )


class Story:
    """What a scenario's story uses: the lab, the workload's namespace, ``observe`` at each step."""

    def __init__(self, scenario: Scenario, lab: Lab, recorder: Recorder, began: float) -> None:
        self.scenario = scenario
        self.lab = lab
        self.recorder = recorder
        self.began = began
        self.namespace = scenario.namespace
        self._next = 0

    def observe(self, step_name: str, counted: Callable[[list[Obj]], dict[str, Any]] | None = None) -> Observation:
        """wmap's reading now (the cluster settled), checkpointed in the recording as this step.

        ``counted(pods)``, for a step whose pod counts depend on what the controllers and the scheduler
        did (which pods a lost node held), adds expectations computed from the pods at the same moment
        wmap read them."""
        steps = self.scenario.steps
        if self._next >= len(steps) or steps[self._next].name != step_name:
            expected = steps[self._next].name if self._next < len(steps) else "(no more steps)"
            raise LabError(f"story observes {step_name!r} where the scenario declares {expected!r}")
        step = steps[self._next]
        self._next += 1
        target = f"{self.scenario.wmap_type}/{self.scenario.workload['name']}"
        expect = dict(step.expect)
        for _attempt in range(5):
            before = self.recorder.settle()
            if counted is not None:
                expect = {**step.expect, **counted(self.pods())}
            tree = self.lab.wmap_json("describe", target, "-n", self.namespace)
            if self.recorder.settle() == before:  # nothing moved while wmap read: the checkpoint is exact
                break
        else:
            raise LabError(f"step {step_name!r}: the workload kept changing while wmap read it")
        self.recorder.checkpoint(step_name, before, expect)
        step = Step(step.name, expect)
        observation = Observation(step, facts(tree), tree, before, time.monotonic() - self.began)
        self.scenario.observations[step_name] = observation
        return observation

    # helpers the stories share

    def pods(self, label_selector: str | None = None) -> list[Obj]:
        return self.lab.pods(self.namespace, label_selector)

    def wait_pods(self, predicate: Callable[[list[Obj]], Any], what: str, label_selector: str | None = None) -> Any:
        return self.lab.wait_for("v1", "Pod", self.namespace, predicate, what=what, label_selector=label_selector)

    def wait_workload(self, predicate: Callable[[Obj], Any], what: str) -> Any:
        w = self.scenario.workload
        name = w["name"]

        def found(objects: list[Obj]) -> Any:
            return next((predicate(o) for o in objects if o["metadata"]["name"] == name), None)

        return self.lab.wait_for(w["apiVersion"], w["kind"], self.namespace, found, what=f"{w['kind']}/{name}: {what}")


def phase_counts(pods: list[Obj]) -> dict[str, int]:
    """Pods by what KWOK made of them: Pending (bound, starting), Running, Ready, Succeeded, Failed;
    Terminating and Unbound counted apart."""
    counts: dict[str, int] = {}
    for pod in pods:
        counts[pod_state(pod)] = counts.get(pod_state(pod), 0) + 1
    return counts


def pod_state(pod: Obj) -> str:
    if pod["metadata"].get("deletionTimestamp"):
        return "Terminating"
    status = pod.get("status") or {}
    phase = status.get("phase", "Pending")
    if phase == "Pending":
        return "Pending" if status.get("podIP") else "Unbound"
    if phase == "Running":
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])
        return "Ready" if ready else "Running"
    return str(phase)


def live(pods: list[Obj]) -> list[Obj]:
    """Pods neither terminating nor finished."""
    return [p for p in pods if pod_state(p) not in ("Terminating", "Succeeded", "Failed")]


# --- what stories build and check alike ---------------------------------------------------------------------

GPU = "nvidia.com/gpu"


def condition(obj: Obj, kind: str) -> dict[str, Any]:
    """The object's condition of that type ({} when it has none)."""
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == kind), {})


def on(obj: Obj, kind: str) -> bool:
    """The condition of that type is True."""
    return condition(obj, kind).get("status") == "True"


def expect(primary: str, gpus: int, gpus_current: int, **components: tuple[int, int, int]) -> dict[str, Any]:
    """A step's expectation: the primary status, GPUs requested and in use, and each pod-producing component
    as (desired, present, ready) pods."""
    return {
        "primary": primary,
        "pods": {name: c[0] for name, c in components.items()},
        "podsCurrent": {name: c[1] for name, c in components.items()},
        "podsReady": {name: c[2] for name, c in components.items()},
        "gpus": gpus,
        "gpusCurrent": gpus_current,
    }


def container(name: str, image: str, cpu: str, gpus: int) -> Obj:
    """A container requesting ``cpu`` and, when ``gpus``, that many GPUs (limit and request)."""
    resources: Obj = {"requests": {"cpu": cpu}}
    if gpus:
        resources["requests"][GPU] = resources.setdefault("limits", {})[GPU] = str(gpus)
    return {"name": name, "image": image, "resources": resources}


def pod_set(kind: str, namespace: str, name: str, replicas: int, main: Obj, **spec: Any) -> Obj:
    """An apps/v1 Deployment or StatefulSet of ``replicas`` pods labelled app=<name> running ``main``."""
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": replicas,
            **spec,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [main]}},
        },
    }


# `wmap update` of the pod fields every lab operator must carry to the pods it creates (issue 34): a label, the
# lab's second scheduler, a toleration of the lab's dedicated taint, and a node affinity to one GPU pool.
UPDATE_LABEL = ("tier", "gold")
TOLERATIONS = [{"key": "lab.workload-map.run.ai/dedicated", "operator": "Exists", "effect": "NoSchedule"}]


def node_affinity(pool: str) -> Obj:
    term = {"matchExpressions": [{"key": "lab.workload-map.run.ai/pool", "operator": "In", "values": [pool]}]}
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}


def update_flags(pool: str, *, scheduler: bool = True, affinity: bool = True) -> list[str]:
    """The ``wmap update`` flags of those fields (scheduler name and affinity left out where the operator's
    own admission refuses them)."""
    flags = ["--label", "=".join(UPDATE_LABEL), "--tolerations", json.dumps(TOLERATIONS)]
    if scheduler:
        flags += ["--scheduler-name", SECOND_SCHEDULER]
    if affinity:
        flags += ["--node-affinity", json.dumps(node_affinity(pool))]
    return flags


def assert_updated(
    pod: Obj, pool: str, *, resources: Obj | None = None, container_name: str | None = None, scheduler: bool = True,
    affinity: bool = True,
) -> None:  # fmt: skip
    """The pod carries what ``update_flags(pool, ...)`` wrote, and the resources of ``container_name`` (the
    first container when None) are ``resources`` when given; with the affinity it was placed in that pool."""
    name = pod["metadata"]["name"]
    spec = pod["spec"]
    assert pod["metadata"]["labels"].get(UPDATE_LABEL[0]) == UPDATE_LABEL[1], name
    assert [t for t in spec.get("tolerations", []) if t["key"].startswith("lab.")] == TOLERATIONS, name
    if scheduler:
        assert spec["schedulerName"] == SECOND_SCHEDULER, name
    if affinity:
        assert spec["affinity"]["nodeAffinity"] == node_affinity(pool), name
        assert spec.get("nodeName", "").startswith(f"gpu-{pool}-"), f"{name} placed on {spec.get('nodeName')}"
    if resources is not None:
        main = next((c for c in spec["containers"] if c["name"] == container_name), spec["containers"][0])
        assert main["resources"] == resources, name


def suspend_update_resume(
    s: Story, job: Obj, pods: int, updates: list[list[str]], *, idle: Callable[[Obj], bool], resumed: str
) -> None:
    """The suspend/update/resume story of a Kubeflow job (its operator deletes the pods on suspension and
    recreates them on resume): every pod ready; ``wmap update --suspend`` until the job says Suspended=True and
    ``idle`` (nothing active); each of ``updates`` (``wmap update`` flags); ``wmap update --resume`` until its
    Suspended condition has reason ``resumed`` and every pod is bound again (captured as "pods after resume");
    every pod ready again."""
    lab = s.lab
    target = f"{s.scenario.wmap_type}/{job['metadata']['name']}"
    lab.kube.create(job)
    with lab.auto_phase(s.namespace, "Ready"):
        s.wait_workload(lambda o: on(o, "Running"), "Running")
        s.wait_pods(lambda found: phase_counts(found) == {"Ready": pods}, f"{pods} pods Ready")
    s.observe("every pod ready")

    lab.wmap("update", target, "-n", s.namespace, "--suspend")
    s.wait_pods(lambda found: not found, "every pod gone")
    s.wait_workload(lambda o: on(o, "Suspended") and idle(o), "Suspended=True, nothing active")
    s.observe("suspended")

    for flags in updates:
        lab.wmap("update", target, "-n", s.namespace, *flags)
    s.observe("updated while suspended")

    lab.wmap("update", target, "-n", s.namespace, "--resume")
    s.wait_workload(lambda o: condition(o, "Suspended").get("reason") == resumed, "Resumed")
    s.wait_pods(lambda found: phase_counts(found) == {"Pending": pods}, f"{pods} pods bound again, starting")
    s.observe("resumed, pods starting")
    s.scenario.captured["pods after resume"] = live(s.pods())

    lab.set_phase(s.namespace, "Ready")
    s.wait_workload(lambda o: on(o, "Running"), "Running again")
    s.wait_pods(lambda found: phase_counts(found) == {"Ready": pods}, f"{pods} pods Ready")
    s.observe("ready again")
