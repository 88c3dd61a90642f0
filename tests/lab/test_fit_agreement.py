"""``wmap fit`` and ``wmap capacity`` against what kube-scheduler then places on the KWOK nodes.

For each generated workload shape (GPUs per pod, pods per copy, node selector, tolerations, taints, pools,
gangs) wmap says k copies fit now; the test creates k copies and checks that the scheduler binds every pod
of them, then one copy more and checks that it is not placed whole, and that ``wmap capacity``'s free GPUs
dropped by what the scheduler bound. Shapes without a gang are Deployments (the default scheduler places pod
by pod, so the extra copy may be placed in part); gang shapes are Jobs whose pods the coscheduling scheduler
places under the PodGroup ``wmap gang`` emits (the extra copy must bind nothing). The agreement table is
printed at the end of the module (bench/README.md "Fit against kube-scheduler")."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from .kwok import POOL_LABEL, NodeSpec
from .operators.coscheduling import SCHEDULER_NAME

pytestmark = pytest.mark.lab

NAMESPACE = "lab-fit"
SHAPE_LABEL = "lab.workload-map.run.ai/fit-shape"
MAX_COPIES = 5
RESEARCH_TAINT = {"key": "dedicated", "value": "research", "effect": "NoSchedule"}
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
# Nodes this module adds to the lab's (tests/lab/kwok.py) for the taint cases, removed at the end.
EXTRA_NODES = (
    NodeSpec(
        "fit-research-0",
        "research",
        "64",
        "512Gi",
        gpus=8,
        gpu_product="NVIDIA-H100-80GB-HBM3",
        taints=[RESEARCH_TAINT],
    ),
    NodeSpec("fit-gpu-tainted-0", "gpu-tainted", "32", "256Gi", gpus=4, gpu_product="NVIDIA-L4", taints=[GPU_TAINT]),
)
POOLS = (None, "h100", "a100", "research", "gpu-tainted")


@dataclass(frozen=True)
class Shape:
    gpus: int  # per pod; 0: a CPU pod (8 CPU)
    pods: int  # per copy
    pool: str | None  # nodeSelector on the pool label
    tolerate: bool  # tolerates dedicated=research:NoSchedule
    gang: bool  # a Job gang-scheduled by coscheduling (all pods of a copy or none)

    @property
    def id(self) -> str:
        parts = [f"g{self.gpus}", f"p{self.pods}", self.pool or "any"]
        if self.tolerate:
            parts.append("tol")
        if self.gang:
            parts.append("gang")
        return "-".join(parts)

    def template(self, copy: str) -> dict[str, Any]:
        requests = {"cpu": "8" if self.gpus == 0 else "1", "memory": "4Gi"}
        resources: dict[str, Any] = {"requests": requests}
        if self.gpus:
            requests["nvidia.com/gpu"] = str(self.gpus)
            resources["limits"] = {"nvidia.com/gpu": str(self.gpus)}
        spec: dict[str, Any] = {"containers": [{"name": "main", "image": "busybox", "resources": resources}]}
        if self.pool:
            spec["nodeSelector"] = {POOL_LABEL: self.pool}
        if self.tolerate:
            spec["tolerations"] = [{**RESEARCH_TAINT, "operator": "Equal"}]
        if self.gang:
            spec["schedulerName"] = SCHEDULER_NAME
            spec["restartPolicy"] = "Never"
        return {"metadata": {"labels": {SHAPE_LABEL: self.id, "copy": copy}}, "spec": spec}

    def manifest(self, copy: str) -> dict[str, Any]:
        name = f"{self.id}-{copy}"
        metadata: dict[str, Any] = {"name": name, "namespace": NAMESPACE, "labels": {SHAPE_LABEL: self.id}}
        if self.gang:
            # The Job definition's gang size (docs/gang.md 10): every pod of the copy at once.
            metadata["annotations"] = {"kai.scheduler/batch-min-member": str(self.pods)}
            spec = {
                "suspend": True,
                "parallelism": self.pods,
                "completions": self.pods,
                "template": self.template(copy),
            }
            return {"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec}
        spec = {
            "replicas": self.pods,
            "selector": {"matchLabels": {SHAPE_LABEL: self.id, "copy": copy}},
            "template": self.template(copy),
        }
        return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata, "spec": spec}


def shapes() -> list[Shape]:
    """Every pool and gang choice at least once, the rest a fixed sample of the combinations."""
    every = [
        Shape(gpus, pods, pool, tolerate, gang)
        for gpus, pods, pool, tolerate, gang in itertools.product(
            (0, 1, 2, 4, 8), (1, 2, 3), POOLS, (False, True), (False, True)
        )
        if not (gpus == 0 and pool == "gpu-tainted")
    ]
    chosen = [
        Shape(8, 1, "research", False, False),  # the taint keeps it off: 0 copies
        Shape(8, 1, "research", True, False),
        Shape(2, 1, "gpu-tainted", False, False),  # GPU pods and a taint keyed by the GPU resource
        Shape(0, 2, "gpu-tainted", False, False),
        Shape(4, 3, "h100", False, True),
        Shape(8, 3, "a100", False, True),  # a gang larger than the pool: 0 copies, nothing bound
    ]
    rng = random.Random(20261206)
    chosen += [s for s in rng.sample(every, 14) if s not in chosen]
    return chosen


@dataclass
class Row:
    shape: str
    kind: str
    copies: int
    capped: bool
    bound_k: int
    bound_extra: int
    pods: int
    free_before: float
    free_after: float
    gpus_bound: float

    @property
    def agrees(self) -> bool:
        whole = self.bound_k == self.copies * self.pods
        extra_short = self.capped or self.bound_extra < self.pods
        return whole and extra_short and self.free_before - self.free_after == self.gpus_bound


ROWS: list[Row] = []


def table(rows: list[Row]) -> str:
    lines = [
        "| shape | kind | `wmap fit` copies | pods bound (k copies) | pods bound (copy k+1)"
        " | GPUs free before/after (capacity) | agree |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        copies = f"{r.copies}{'+ (capped)' if r.capped else ''}"
        extra = "—" if r.capped else f"{r.bound_extra}/{r.pods}"
        lines.append(
            f"| {r.shape} | {r.kind} | {copies} | {r.bound_k}/{r.copies * r.pods} | {extra} |"
            f" {r.free_before:g} / {r.free_after:g} | {'yes' if r.agrees else 'NO'} |"
        )
    return "\n".join(lines)


@pytest.fixture(scope="module")
def fit_lab(lab: Any) -> Iterator[Any]:
    lab.namespace(NAMESPACE)
    for spec in EXTRA_NODES:
        lab.kube.create(spec.to_object())
    names = {spec.name for spec in EXTRA_NODES}
    lab.wait_for(
        "v1",
        "Node",
        None,
        lambda nodes: names <= {n["metadata"]["name"] for n in nodes if _ready(n)},
        what="the fit nodes Ready",
    )
    yield lab
    for spec in EXTRA_NODES:
        lab.kube.delete("v1", "Node", spec.name)
    print("\n" + table(ROWS))
    (lab.work_dir / "fit-agreement.json").write_text(
        json.dumps([r.__dict__ | {"agrees": r.agrees} for r in ROWS], indent=1)
    )


def _ready(node: dict[str, Any]) -> bool:
    return any(c["type"] == "Ready" and c["status"] == "True" for c in node.get("status", {}).get("conditions", []))


def _gpus_free(lab: Any) -> float:
    """GPUs free on every schedulable node, tainted ones included: capacity counts a tainted node's apart
    (``total.tainted``), and the shapes that tolerate a taint are placed there."""
    total = lab.wmap_json("capacity")["total"]
    return float(total["gpus"]["free"]) + float((total.get("tainted") or {}).get("gpus") or 0)


# Coscheduling's PreFilter turns a gang member away while the Job controller is still creating its siblings;
# the scheduler tries it again once they exist, so that Pending is no decision yet (with wmap run in the test
# process, the copies are created fast enough for the wait to see it).
_GANG_INCOMPLETE = "cannot find enough sibling pods"


def _settled(pods: list[dict[str, Any]], expected: int, *, to_fit: bool) -> bool:
    """Every pod exists and the scheduler has decided on it: bound, or tried and left Pending (for copies
    fit says fit, not while coscheduling only waits for the gang's siblings: it tries again)."""

    def decided(pod: dict[str, Any]) -> bool:
        if pod.get("spec", {}).get("nodeName"):
            return True
        return any(
            c["type"] == "PodScheduled"
            and c["status"] == "False"
            and not (to_fit and _GANG_INCOMPLETE in c.get("message", ""))
            for c in pod.get("status", {}).get("conditions", [])
        )

    return len(pods) == expected and all(decided(p) for p in pods)


def _pods_of(pods: list[dict[str, Any]], copy: str | None = None) -> list[dict[str, Any]]:
    """The pods (not being deleted) of one copy of the shape, or of every copy."""
    return [
        p
        for p in pods
        if not p["metadata"].get("deletionTimestamp")
        and copy in (None, (p["metadata"].get("labels") or {}).get("copy"))
    ]


def _wait_settled(lab: Any, shape: Shape, copy: str | None, expected: int) -> list[dict[str, Any]]:
    """The shape's pods (``expected`` > 0) once the scheduler has decided on each (watched, not polled)."""

    def settled(pods: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        mine = _pods_of(pods, copy)
        return mine if _settled(mine, expected, to_fit=copy is None) else None

    found: list[dict[str, Any]] = lab.wait_for(
        "v1",
        "Pod",
        NAMESPACE,
        settled,
        # Generous: under load (a 2-core machine at load 7) coscheduling's back-off after a gang's Permit
        # times out ("failed recently") took one clean-clone run past 180 s; a quiet run settles in seconds.
        timeout=420,
        label_selector=f"{SHAPE_LABEL}={shape.id}",
        what=f"{expected} pods of {shape.id} (copy {copy or 'all'}) scheduled or left pending",
    )
    return found


def _bound(pods: list[dict[str, Any]]) -> int:
    return sum(1 for p in pods if p.get("spec", {}).get("nodeName"))


def _create_copy(lab: Any, shape: Shape, copy: str) -> None:
    lab.kube.create(shape.manifest(copy))
    if shape.gang:
        name = f"{shape.id}-{copy}"
        emitted = lab.wmap_json("gang", f"job/{name}", "-n", NAMESPACE, "--for", "coscheduling")
        group = emitted["items"][0] if emitted.get("kind") == "List" else emitted
        assert group["spec"]["minMember"] == shape.pods, group
        lab.kube.create(group)
        _update(lab, f"job/{name}", "--label", f"scheduling.x-k8s.io/pod-group={group['metadata']['name']}")
        _update(lab, f"job/{name}", "--resume")


def _update(lab: Any, target: str, *change: str) -> None:
    """``wmap update``: the Job controller may write the Job between wmap's read and its write; wmap reads
    again and resends on that Conflict (docs/cli.md, update), so the command succeeds."""
    lab.wmap("update", target, "-n", NAMESPACE, *change)


def known_disagreement(shape: Shape) -> str | None:
    """Why wmap and the scheduler part on this shape, where the cause is known and documented."""
    tainted_gpus = next(spec.gpus for spec in EXTRA_NODES if spec.pool == "gpu-tainted")
    if shape.pool == "gpu-tainted" and shape.gpus and shape.pods * shape.gpus <= tainted_gpus:
        return (
            "docs/placement.md 3.1: wmap fit lets GPU pods tolerate taints keyed by nvidia.com/gpu, as the "
            "ExtendedResourceToleration admission plugin makes them; the lab's kube-apiserver runs without that "
            "plugin (it is off by default), so the scheduler keeps these pods off the tainted node"
        )
    return None


def params() -> list[Any]:
    return [
        pytest.param(shape, id=shape.id, marks=[pytest.mark.xfail(strict=True, reason=why)] if why else [])
        for shape in shapes()
        for why in [known_disagreement(shape)]
    ]


@pytest.mark.parametrize("shape", params())
def test_fit_matches_scheduler(fit_lab: Any, shape: Shape, tmp_path: Any) -> None:
    lab = fit_lab
    if shape.gang:
        lab.start_operator("coscheduling")
    manifest = tmp_path / "shape.json"
    manifest.write_text(json.dumps(shape.manifest("probe")))
    fit = lab.wmap_json("fit", "-f", str(manifest), "-n", NAMESPACE, "--max-copies", str(MAX_COPIES))
    copies, capped = int(fit["copies"]), bool(fit["copiesCapped"])
    free_before = _gpus_free(lab)
    kind = "Job+coscheduling" if shape.gang else "Deployment"
    kinds = ("batch/v1", "Job") if shape.gang else ("apps/v1", "Deployment")
    try:
        for index in range(copies):
            _create_copy(lab, shape, str(index))
        bound_k = _bound(_wait_settled(lab, shape, None, copies * shape.pods)) if copies else 0
        gpus_bound = float(bound_k * shape.gpus)
        free_after = _gpus_free(lab)
        bound_extra = 0
        if not capped:
            extra = str(copies)
            _create_copy(lab, shape, extra)
            bound_extra = _bound(_wait_settled(lab, shape, extra, shape.pods))
        row = Row(shape.id, kind, copies, capped, bound_k, bound_extra, shape.pods, free_before, free_after, gpus_bound)
        ROWS.append(row)
    finally:
        # Also when the shape fails: its pods would hold GPUs the next shape counts as free (one clean-clone
        # run's gang shape timed out and the shape after it read 6 GPUs fewer than it had).
        for index in range(copies + 1):  # the extra copy is index `copies`; a copy never made is a 404
            lab.kube.delete(*kinds, f"{shape.id}-{index}", NAMESPACE, propagationPolicy="Background")
        lab.wait_for(
            "v1",
            "Pod",
            NAMESPACE,
            lambda pods: not pods,
            what=f"the pods of {shape.id} gone",
            timeout=120,
            label_selector=f"{SHAPE_LABEL}={shape.id}",
        )
    assert row.agrees, (fit["verdict"], row)
