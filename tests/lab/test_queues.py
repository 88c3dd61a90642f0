"""Queues against the real Kueue v0.17.0: wmap's per-queue figures and per-workload admission equal Kueue's own
status at every step of a story that fills a ClusterQueue, borrows from its cohort, waits, and is preempted.

Two ClusterQueues in one cohort, 8 GPUs of nominal quota each (``lab-qa`` may borrow 4 more, ``lab-qb``
reclaims what is lent within the cohort), a LocalQueue for each. Steps:
  fill     a1 (2 pods x 4 GPUs) admitted in lab-qa: 8 used, nothing borrowed;
  borrow   a2 (1 x 4) admitted too: 12 used, 4 borrowed from lab-qb's unused quota;
  wait     a3 (1 x 8) pending: lab-qa's borrowing limit is reached; Kueue says why;
  preempt  b1 (2 x 4) in lab-qb reclaims its quota: Kueue evicts a2 (borrowing), b1 admitted.
At each step, for both ClusterQueues and every Workload, what ``wmap queues -o json`` computes from the
Workloads' admissions (docs/queues.md) equals ClusterQueue .status.flavorsReservation / flavorsUsage
(total, borrowed), pendingWorkloads, reservingWorkloads, admittedWorkloads, and each Workload's
.status.admission and conditions, read right after wmap; every Kueue figure is also asserted by value.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest

from workload_map.resolve.quantity import parse_quantity

from .kube import ApiError
from .lab import Lab

NAMESPACE = "lab-queues"
KUEUE = "kueue.x-k8s.io/v1beta2"
FLAVOR = "lab-queues-flavor"
COHORT = "lab-queues-cohort"
QUEUES = {"lab-qa": "qa", "lab-qb": "qb"}  # ClusterQueue -> its LocalQueue in NAMESPACE
STEPS = ("fill", "borrow", "wait", "preempt")


@dataclass
class Observation:
    wmap: dict[str, Any]  # wmap queues -o json
    cluster_queues: dict[str, dict[str, Any]]  # name -> ClusterQueue, read right after wmap
    local_queues: dict[str, dict[str, Any]]  # name -> LocalQueue
    workloads: dict[str, dict[str, Any]]  # owning Job's name -> Kueue Workload


def cluster_queue(name: str, *, borrowing_limit: str | None, reclaim: bool) -> dict[str, Any]:
    gpu: dict[str, Any] = {"name": "nvidia.com/gpu", "nominalQuota": "8"}
    if borrowing_limit is not None:
        gpu["borrowingLimit"] = borrowing_limit
    resources = [{"name": "cpu", "nominalQuota": "32"}, {"name": "memory", "nominalQuota": "128Gi"}, gpu]
    spec: dict[str, Any] = {
        "cohortName": COHORT,
        "namespaceSelector": {},
        "resourceGroups": [
            {
                "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                "flavors": [{"name": FLAVOR, "resources": resources}],
            }
        ],
    }
    if reclaim:
        spec["preemption"] = {"reclaimWithinCohort": "Any", "withinClusterQueue": "Never"}
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def job(name: str, queue: str, pods: int, gpus: int) -> dict[str, Any]:
    resources = {
        "requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": str(gpus)},
        "limits": {"nvidia.com/gpu": str(gpus)},
    }
    container = {"name": "main", "image": "busybox", "resources": resources}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {"kueue.x-k8s.io/queue-name": queue}},
        "spec": {
            "suspend": True,
            "parallelism": pods,
            "completions": pods,
            "template": {
                "metadata": {"annotations": {"lab.workload-map.run.ai/phase": "Ready"}},
                "spec": {"restartPolicy": "Never", "containers": [container]},
            },
        },
    }


def condition(obj: Mapping[str, Any], kind: str) -> dict[str, Any]:
    found = [c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == kind]
    return found[-1] if found else {}


def owner_job(workload: Mapping[str, Any]) -> str:
    return next(r["name"] for r in workload["metadata"].get("ownerReferences", []) if r.get("kind") == "Job")


def counts(lab: Lab) -> dict[str, tuple[int, int]]:
    """ClusterQueue -> (admittedWorkloads, pendingWorkloads) as Kueue reports them."""
    out = {}
    for name in QUEUES:
        status = lab.kube.get(KUEUE, "ClusterQueue", name).get("status") or {}
        out[name] = (status.get("admittedWorkloads", 0), status.get("pendingWorkloads", 0))
    return out


def settle(lab: Lab, expected: dict[str, tuple[int, int]], what: str) -> None:
    """Until both ClusterQueues report (admitted, pending) as expected, and nothing moves for a moment."""

    def reached(items: list[dict[str, Any]]) -> bool:
        found = {
            cq["metadata"]["name"]: (
                (cq.get("status") or {}).get("admittedWorkloads", 0),
                (cq.get("status") or {}).get("pendingWorkloads", 0),
            )
            for cq in items
            if cq["metadata"]["name"] in QUEUES
        }
        return found == expected

    lab.wait_for(KUEUE, "ClusterQueue", None, reached, what=what)
    lab.quiet(NAMESPACE, 2.0)
    lab.wait_for(KUEUE, "ClusterQueue", None, reached, what=what + " (after the pods settled)")


def observe(lab: Lab) -> Observation:
    document = lab.wmap_json("queues")
    queues = {name: lab.kube.get(KUEUE, "ClusterQueue", name) for name in QUEUES}
    local = {name: lab.kube.get(KUEUE, "LocalQueue", name, NAMESPACE) for name in QUEUES.values()}
    workloads = {owner_job(w): w for w in lab.kube.list(KUEUE, "Workload", NAMESPACE)}
    return Observation(document, queues, local, workloads)


@pytest.fixture(scope="module")
def story(lab: Lab) -> dict[str, Observation]:
    for operator in ("kuberay", "jobset", "kueue"):  # Kueue enables the integrations whose CRDs it finds
        lab.start_operator(operator)
    lab.namespace(NAMESPACE)
    lab.kube.apply({"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": FLAVOR}})
    lab.kube.apply(cluster_queue("lab-qa", borrowing_limit="4", reclaim=False))
    lab.kube.apply(cluster_queue("lab-qb", borrowing_limit=None, reclaim=True))
    for cq, lq in QUEUES.items():
        lab.kube.apply(
            {
                "apiVersion": KUEUE,
                "kind": "LocalQueue",
                "metadata": {"name": lq, "namespace": NAMESPACE},
                "spec": {"clusterQueue": cq},
            }
        )
    seen: dict[str, Observation] = {}
    try:
        lab.kube.create(job("a1", "qa", 2, 4))
        settle(lab, {"lab-qa": (1, 0), "lab-qb": (0, 0)}, "a1 admitted")
        seen["fill"] = observe(lab)
        lab.kube.create(job("a2", "qa", 1, 4))
        settle(lab, {"lab-qa": (2, 0), "lab-qb": (0, 0)}, "a2 admitted, borrowing")
        seen["borrow"] = observe(lab)
        lab.kube.create(job("a3", "qa", 1, 8))
        settle(lab, {"lab-qa": (2, 1), "lab-qb": (0, 0)}, "a3 pending")
        seen["wait"] = observe(lab)
        lab.kube.create(job("b1", "qb", 2, 4))
        settle(lab, {"lab-qa": (1, 2), "lab-qb": (1, 0)}, "b1 admitted, a2 preempted")
        seen["preempt"] = observe(lab)
    finally:
        for name in ("a1", "a2", "a3", "b1"):
            with contextlib.suppress(ApiError):  # a step that failed before creating it
                lab.kube.delete("batch/v1", "Job", name, NAMESPACE, propagationPolicy="Background")
        for name in QUEUES:  # cluster-scoped: the lab outlives this module
            with contextlib.suppress(ApiError):
                lab.kube.delete(KUEUE, "ClusterQueue", name)
    return seen


def _queue(observation: Observation, name: str) -> dict[str, Any]:
    return next(q for q in observation.wmap["queues"] if q["key"] == f"kueue/ClusterQueue/{name}")


def _kueue_usage(cq: Mapping[str, Any], field: str) -> dict[tuple[str, str], tuple[Decimal, Decimal]]:
    out = {}
    for flavor in (cq.get("status") or {}).get(field) or []:
        for usage in flavor.get("resources") or []:
            out[(flavor["name"], usage["name"])] = (
                parse_quantity(usage.get("total", "0")),
                parse_quantity(usage.get("borrowed", "0")),
            )
    return out


def _wmap_usage(queue: Mapping[str, Any], attribute: str) -> dict[tuple[str, str], tuple[Decimal, Decimal]]:
    return {
        (r["flavor"], r["resource"]): (
            Decimal(str(r[attribute])),
            Decimal(str(r["borrowed"] if attribute == "used" else 0)),
        )
        for r in queue["resources"]
    }


def _story(story: dict[str, Observation], step: str) -> Observation:
    if step not in story:
        pytest.fail(f"the story stopped before step {step!r}", pytrace=False)
    return story[step]


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("cq", sorted(QUEUES))
def test_queue_usage_equals_kueue(story: dict[str, Observation], step: str, cq: str) -> None:
    """Per flavor and resource: wmap's used (quota reserved by the queue's Workloads' admissions) and borrowed
    equal flavorsReservation; its admitted equals flavorsUsage; its counts equal Kueue's counters."""
    observation = _story(story, step)
    kueue, ours = observation.cluster_queues[cq], _queue(observation, cq)
    reserved = _kueue_usage(kueue, "flavorsReservation")
    admitted = _kueue_usage(kueue, "flavorsUsage")
    used = _wmap_usage(ours, "used")
    assert {k: used.get(k) for k in reserved} == reserved
    assert {k: (v[0], Decimal(0)) for k, v in _wmap_usage(ours, "admitted").items() if k in admitted} == {
        k: (v[0], Decimal(0)) for k, v in admitted.items()
    }
    status = kueue.get("status") or {}
    states = ours["workloads"]["byState"]
    assert states.get("Pending", 0) == status.get("pendingWorkloads", 0)
    assert states.get("Admitted", 0) == status.get("admittedWorkloads", 0)
    assert states.get("Admitted", 0) + states.get("QuotaReserved", 0) == status.get("reservingWorkloads", 0)
    # What wmap read of Kueue's own status is Kueue's status.
    assert {
        k: (Decimal(str(r["reported"]["used"])), Decimal(str(r["reported"]["borrowed"] or 0)))
        for r in ours["resources"]
        for k in [(r["flavor"], r["resource"])]
        if k in reserved
    } == reserved


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("lq", sorted(QUEUES.values()))
def test_local_queue_usage_equals_kueue(story: dict[str, Observation], step: str, lq: str) -> None:
    """A LocalQueue's reserved and admitted usage and its counters, as wmap computes them from its Workloads,
    equal the LocalQueue's status."""
    observation = _story(story, step)
    kueue = observation.local_queues[lq]
    ours = next(q for q in observation.wmap["queues"] if q["key"] == f"kueue/LocalQueue/{NAMESPACE}/{lq}")
    for field, attribute in (("flavorsReservation", "used"), ("flavorsUsage", "admitted")):
        reported = {k: v[0] for k, v in _kueue_usage(kueue, field).items()}
        computed = {k: v[0] for k, v in _wmap_usage(ours, attribute).items()}
        assert {k: computed.get(k, Decimal(0)) for k in reported} == reported, field
    status = kueue.get("status") or {}
    states = ours["workloads"]["byState"]
    assert states.get("Pending", 0) == status.get("pendingWorkloads", 0)
    assert states.get("Admitted", 0) == status.get("admittedWorkloads", 0)
    assert states.get("Admitted", 0) + states.get("QuotaReserved", 0) == status.get("reservingWorkloads", 0)


EXPECTED = {  # step -> ClusterQueue -> (GPUs used, borrowed, admitted workloads, pending workloads)
    "fill": {"lab-qa": (8, 0, 1, 0), "lab-qb": (0, 0, 0, 0)},
    "borrow": {"lab-qa": (12, 4, 2, 0), "lab-qb": (0, 0, 0, 0)},
    "wait": {"lab-qa": (12, 4, 2, 1), "lab-qb": (0, 0, 0, 0)},
    "preempt": {"lab-qa": (8, 0, 1, 2), "lab-qb": (8, 0, 1, 0)},
}


@pytest.mark.parametrize("step", STEPS)
def test_queue_figures_by_value(story: dict[str, Observation], step: str) -> None:
    observation = _story(story, step)
    found = {}
    for cq in QUEUES:
        gpus = _queue(observation, cq)["gpus"]
        states = _queue(observation, cq)["workloads"]["byState"]
        found[cq] = (gpus["used"], gpus["borrowed"], states.get("Admitted", 0), states.get("Pending", 0))
    assert found == EXPECTED[step]
    cohort = next(q for q in observation.wmap["queues"] if q["key"] == f"kueue/Cohort/{COHORT}")
    assert cohort["implicit"] and cohort["gpus"]["quota"] == 16
    assert cohort["gpus"]["used"] == sum(v[0] for v in EXPECTED[step].values())


def _kueue_state(workload: Mapping[str, Any]) -> str:
    """Kueue's conditions in the states of docs/queues.md "Admission"."""
    if condition(workload, "Finished").get("status") == "True":
        return "Finished"
    if condition(workload, "Admitted").get("status") == "True":
        return "Admitted"
    if condition(workload, "QuotaReserved").get("status") == "True":
        return "QuotaReserved"
    return "Pending"


@pytest.mark.parametrize("step", STEPS)
def test_workload_admission_equals_kueue(story: dict[str, Observation], step: str) -> None:
    """Each Job's state, admitting ClusterQueue and usage in wmap equal its Kueue Workload's conditions and
    .status.admission; a pending one carries Kueue's own message."""
    observation = _story(story, step)
    ours = {w["name"]: w for w in observation.wmap["workloads"] if w["namespace"] == NAMESPACE}
    assert set(ours) == set(observation.workloads)
    for name, workload in observation.workloads.items():
        mine = ours[name]
        assert mine["state"] == _kueue_state(workload), name
        assert mine["schedulerObject"] == f"workload.kueue.x-k8s.io/{workload['metadata']['name']}"
        admission = (workload.get("status") or {}).get("admission")
        if mine["state"] in ("Admitted", "QuotaReserved"):
            assert admission is not None
            assert mine["queueKey"] == f"kueue/LocalQueue/{NAMESPACE}/{QUEUES[admission['clusterQueue']]}"
            usage: dict[str, dict[str, Decimal]] = {}
            for assignment in admission["podSetAssignments"]:
                for resource, value in assignment["resourceUsage"].items():
                    flavor = assignment["flavors"][resource]
                    usage.setdefault(flavor, {})[resource] = parse_quantity(value)
            assert {f: {r: Decimal(str(v)) for r, v in a.items()} for f, a in mine["usage"].items()} == usage
        else:
            assert mine["usage"] == {}
            pending = condition(workload, "QuotaReserved")
            evicted = condition(workload, "Evicted")
            if evicted.get("status") == "True":
                assert mine["message"] == evicted.get("message", "")
            else:
                assert mine["message"] == pending.get("message", "")


def test_story_did_what_it_says(story: dict[str, Observation]) -> None:
    """The preemption is Kueue's reclaim within the cohort, of the borrowing Job; the waiting Job is held by
    the borrowing limit, and wmap says so in Kueue's words."""
    wait = _story(story, "wait")
    a3 = next(w for w in wait.wmap["workloads"] if w["name"] == "a3")
    assert a3["state"] == "Pending" and "insufficient" in a3["message"], a3
    preempt = _story(story, "preempt")
    a2 = preempt.workloads["a2"]
    assert condition(a2, "Preempted").get("reason") == "InCohortReclamation", a2["status"]
    ours = next(w for w in preempt.wmap["workloads"] if w["name"] == "a2")
    assert ours["state"] == "Pending" and ours["gpus"] == 4
    assert _queue(preempt, "lab-qa")["gpus"]["waiting"] == 12  # a2 (4) and a3 (8) wait
