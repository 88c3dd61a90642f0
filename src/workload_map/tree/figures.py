"""The figures every surface shows of a workload and of a set of them, each defined once (docs/semantics.md,
"Figures"): ``wmap get`` and ``describe``, the JSON API and dashboard of ``wmap serve`` and its ``/metrics``
read them from here and never count on their own.

- **GPUs desired**: what the workload asks for now (the tree's ``totals.gpus``, ``get``'s GPUS): every
  desired pod less those that succeeded; a Completed or Failed workload only its pods still active.
- **GPUs requested**: GPUs desired by a workload that wants to run: 0 for a Completed, Failed or
  Suspended one. Summed over a cluster: "GPUs requested by running workloads".
- **GPUs in use**: GPUs of the workload's pods bound to a node and not finished (Succeeded, Failed),
  terminating ones included: what the scheduler counts against the node, as ``wmap capacity`` does.
  Pending pods hold none.
- **Pods ready / desired**: ``done`` (Ready pods, plus Succeeded pods for the slots no Ready pod fills)
  over the desired pods: a Completed JobSet is 4/4, never 0/4.
- **Pods not ready**: desired pods neither ready nor done, of a workload that wants to run (0 otherwise).
- **Pods by problem**: pods with a problem (resolve/pods.py ``PodState.problem``), by reason.

A workload read in part (``incomplete``) has only what its spec says: the counts of pods seen are
``None`` (unknown), never zeros.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from workload_map.base.model import Model, field

if TYPE_CHECKING:
    from workload_map.resolve.pods import PlacedPod
    from workload_map.tree.model import WorkloadTree

from workload_map.resolve.resources import json_number as number

ZERO = Decimal(0)
FINISHED = ("Completed", "Failed")
NOT_RUNNING = (*FINISHED, "Suspended")  # statuses of a workload that wants no pod to run
# How a status reason words the problems an on-call engineer knows by their Kubernetes reason.
PROBLEM_WORDS = {
    "CrashLoopBackOff": "crash-looping",
    "ImagePullBackOff": "unable to pull the image",
    "ErrImagePull": "unable to pull the image",
    "CreateContainerConfigError": "with a broken container config",
    "OOMKilled": "killed out of memory",
    "Unschedulable": "waiting for a node",
    "Evicted": "evicted",
}


def holds_gpus(pod: PlacedPod) -> bool:
    """Bound to a node and not finished: its requests count against the node (as ``wmap capacity`` counts)."""
    return pod.state.node is not None and pod.state.phase not in ("Succeeded", "Failed")


class WorkloadFigures(Model, kw_only=False):
    """The figures of one workload (module docstring); ``None``: unknown (part of it could not be read)."""

    status: str
    gpus_desired: Decimal
    gpus_requested: Decimal
    gpus_in_use: Decimal | None
    pods_desired: int
    pods_ready: int | None
    pods_not_ready: int | None
    problems: dict[str, int] | None
    reason: str | None

    @property
    def running(self) -> bool:
        return self.status not in NOT_RUNNING

    def to_json(self) -> dict[str, Any]:
        return {
            "gpusDesired": number(self.gpus_desired),
            "gpusRequested": number(self.gpus_requested),
            "gpusInUse": None if self.gpus_in_use is None else number(self.gpus_in_use),
            "pods": {"ready": self.pods_ready, "desired": self.pods_desired, "notReady": self.pods_not_ready},
            "problems": self.problems,
            "reason": self.reason,
        }


def figures_of(tree: WorkloadTree) -> WorkloadFigures:
    """The figures of ``tree``, as every surface shows them."""
    status = tree.status.primary.value
    unknown = bool(tree.incomplete)
    counts = tree.counts
    desired = tree.gpus
    running = status not in NOT_RUNNING
    pods = tree.all_pods
    problems = problems_of(pods)
    return WorkloadFigures(
        status=status,
        gpus_desired=desired,
        gpus_requested=desired if running else ZERO,
        gpus_in_use=None if unknown else sum((p.resources.gpus for p in pods if holds_gpus(p)), ZERO),
        pods_desired=counts.desired,
        pods_ready=None if unknown else counts.done,
        pods_not_ready=None if unknown else (max(counts.desired - counts.done, 0) if running else 0),
        problems=None if unknown else problems,
        reason=status_reason(tree, pods),
    )


def problems_of(pods: Iterable[PlacedPod]) -> dict[str, int]:
    """Pods with a problem by its reason, most first (then by name)."""
    counted = Counter(p.state.problem for p in pods if p.state.problem and not p.state.terminating)
    return dict(sorted(counted.items(), key=lambda item: (-item[1], item[0])))


def status_reason(tree: WorkloadTree, pods: list[PlacedPod] | None = None) -> str | None:
    """Why the workload has its status, in words, when something is wrong: the problems of its pods still
    meant to run (``2 pods crash-looping (CrashLoopBackOff): web-0: Error (exit 1)``), else the message of
    the condition that made it Failed or Degraded. None when nothing is wrong."""
    pods = tree.all_pods if pods is None else pods
    status = tree.status.primary.value
    live = [p for p in pods if p.state.problem and not p.state.terminating]
    if status in ("Completed", "Suspended"):
        live = []
    elif status == "Failed" or any(p.state.phase != "Failed" for p in live):
        # A workload still running is about the pods that keep it from running, not those it left behind.
        live = [p for p in live if p.state.phase != "Failed"] or live
    parts = []
    for reason, count in problems_of(live).items():
        first = sorted((p for p in live if p.state.problem == reason), key=lambda p: p.name)[0]
        words = PROBLEM_WORDS.get(reason)
        label = f"{words} ({reason})" if words else reason
        detail = first.state.last_termination.text() if first.state.last_termination else first.state.problem_message
        example = f"{first.name}" + (f": {' '.join(str(detail).split())}" if detail else "")
        parts.append(f"{count} pod{'s' if count != 1 else ''} {label}, e.g. {example}")
    if parts:
        return "; ".join(parts)
    if status in ("Failed", "Degraded"):
        for condition in tree.status.conditions:
            if condition.status == "True" and (condition.message or condition.reason):
                text = condition.message or condition.reason or ""
                return f"{condition.type}: {' '.join(text.split())}"
    return None


class WorkloadTotals(Model, frozen=False, kw_only=False):
    """The figures summed over a set of workloads (a cluster, a namespace, what a dashboard filter keeps)."""

    workloads: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    gpus_desired: Decimal = ZERO
    gpus_requested: Decimal = ZERO  # by running workloads
    gpus_in_use: Decimal | None = ZERO  # None once any workload's is unknown
    pods_desired: int = 0
    pods_ready: int | None = 0
    problems: dict[str, int] = field(default_factory=dict)
    unknown: int = 0  # workloads read in part

    @classmethod
    def of(cls, figures: Iterable[WorkloadFigures]) -> WorkloadTotals:
        totals = cls()
        statuses: Counter[str] = Counter()
        problems: Counter[str] = Counter()
        for one in figures:
            totals.workloads += 1
            statuses[one.status] += 1
            totals.gpus_desired += one.gpus_desired
            totals.gpus_requested += one.gpus_requested
            totals.pods_desired += one.pods_desired
            if one.gpus_in_use is None or one.pods_ready is None:
                totals.unknown += 1
            totals.gpus_in_use = (
                None if totals.gpus_in_use is None or one.gpus_in_use is None else totals.gpus_in_use + one.gpus_in_use
            )
            totals.pods_ready = (
                None if totals.pods_ready is None or one.pods_ready is None else totals.pods_ready + one.pods_ready
            )
            problems.update(one.problems or {})
        totals.by_status = dict(sorted(statuses.items()))
        totals.problems = dict(sorted(problems.items(), key=lambda item: (-item[1], item[0])))
        return totals

    def to_json(self) -> dict[str, Any]:
        return {
            "workloads": self.workloads,
            "byStatus": self.by_status,
            "gpusDesired": number(self.gpus_desired),
            "gpusRequested": number(self.gpus_requested),
            "gpusInUse": None if self.gpus_in_use is None else number(self.gpus_in_use),
            "pods": {"ready": self.pods_ready, "desired": self.pods_desired},
            "problems": self.problems,
            "unknown": self.unknown,
        }
