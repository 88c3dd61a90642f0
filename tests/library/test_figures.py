"""The figures every surface shows (docs/semantics.md "Figures", "Pod problems"), on the built-in example and
on pods written for one problem each."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import workload_map as wm
from workload_map.resolve.pods import pod_state

EXAMPLE = Path(wm.__file__).parent / "examples" / "ai-cluster.yaml"


@pytest.fixture(scope="module")
def view() -> wm.View:
    return wm.open_dump(str(EXAMPLE), namespace=None)


def _figures(view: wm.View) -> dict[str, wm.WorkloadFigures]:
    return {t.name: wm.figures_of(t) for t in view.workloads().workloads}


def test_gpus_in_use_are_the_gpus_capacity_counts_as_used(view: wm.View) -> None:
    figures = _figures(view)
    total, pools = wm.gpu_figures(view.capacity(), "nvidia.com/gpu.product")
    in_use = sum((f.gpus_in_use or Decimal(0) for f in figures.values()), Decimal(0))
    # every GPU pod of the example belongs to a workload: the two counts are one
    assert in_use == total.in_use == 99
    assert total.total == 104 and total.free == 5
    assert total.in_use + total.free + total.free_tainted + total.unavailable == total.total
    assert [p.name for p in pools] == ["NVIDIA-H100-80GB-HBM3"]
    # Pending pods hold no GPU: the PyTorchJob whose pods wait for room desires 16 and uses none
    assert figures["bert-finetune"].gpus_desired == 16 and figures["bert-finetune"].gpus_in_use == 0


def test_requested_by_running_workloads_leaves_out_finished_and_suspended(view: wm.View) -> None:
    figures = _figures(view)
    assert figures["eval-mmlu"].status == "Suspended"
    assert figures["eval-mmlu"].gpus_desired == 2 and figures["eval-mmlu"].gpus_requested == 0
    totals = wm.WorkloadTotals.of(figures.values())
    assert totals.gpus_desired - totals.gpus_requested == 2
    assert totals.gpus_requested == sum(f.gpus_desired for f in figures.values() if f.running)


def test_a_finished_workload_counts_its_done_pods_and_none_not_ready(view: wm.View) -> None:
    figures = _figures(view)
    done = figures["resnet-train"]
    assert (done.status, done.pods_ready, done.pods_desired, done.pods_not_ready) == ("Completed", 3, 3, 0)
    failed = figures["nccl-allreduce"]
    assert failed.status == "Failed" and failed.pods_not_ready == 0
    assert figures["tei-embeddings"].pods_not_ready == 1


def test_a_crash_looping_pod_is_a_problem_and_the_status_reason_says_so(view: wm.View) -> None:
    figures = _figures(view)
    tei = figures["tei-embeddings"]
    assert tei.problems == {"CrashLoopBackOff": 1}
    assert tei.reason is not None and tei.reason.startswith("1 pod crash-looping (CrashLoopBackOff)")
    assert "Error (exit 1)" in tei.reason
    # nothing wrong, nothing said
    assert figures["llama3-8b-pretrain"].reason is None and not figures["llama3-8b-pretrain"].problems


def _pod(phase: str, containers: list[dict[str, Any]], **status: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {"nodeName": "n1"},
        "status": {"phase": phase, "containerStatuses": containers, **status},
    }


@pytest.mark.parametrize(
    ("pod", "problem"),
    [
        (_pod("Pending", [{"name": "c", "state": {"waiting": {"reason": "ImagePullBackOff"}}}]), "ImagePullBackOff"),
        (
            _pod("Pending", [{"name": "c", "state": {"waiting": {"reason": "CreateContainerConfigError"}}}]),
            "CreateContainerConfigError",
        ),
        (_pod("Pending", [{"name": "c", "state": {"waiting": {"reason": "ContainerCreating"}}}]), None),
        (
            _pod("Running", [{"name": "c", "state": {"terminated": {"reason": "OOMKilled", "exitCode": 137}}}]),
            "OOMKilled",
        ),
        (_pod("Succeeded", [{"name": "c", "state": {"terminated": {"reason": "Completed", "exitCode": 0}}}]), None),
        (_pod("Failed", [], reason="Evicted", message="The node was low on resource: memory."), "Evicted"),
        (_pod("Running", [{"name": "c", "ready": True, "state": {"running": {}}}]), None),
    ],
)
def test_the_problem_of_a_pod(pod: dict[str, Any], problem: str | None) -> None:
    assert pod_state(pod).problem == problem


def test_the_last_termination_is_the_latest_end_that_did_not_exit_0() -> None:
    state = pod_state(
        _pod(
            "Running",
            [
                {
                    "name": "a",
                    "restartCount": 3,
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                    "lastState": {
                        "terminated": {"reason": "OOMKilled", "exitCode": 137, "finishedAt": "2025-01-01T00:02:00Z"}
                    },
                },
                {
                    "name": "b",
                    "restartCount": 1,
                    "lastState": {
                        "terminated": {"reason": "Error", "exitCode": 1, "finishedAt": "2025-01-01T00:01:00Z"}
                    },
                },
            ],
        )
    )
    assert (state.problem, state.restarts) == ("CrashLoopBackOff", 4)
    assert state.last_termination is not None
    assert state.last_termination.text() == "a: OOMKilled (exit 137) at 2025-01-01T00:02:00Z"


def test_fit_names_gang_groups_as_gang_resolves_them(view: wm.View) -> None:
    """The spec alone cannot know a label the operator puts on pods; the workload's pods can."""
    requirements = view.components("rayjob/ray-batch-embed", namespace="ml-training")
    names = [g.name for g in requirements.gang_groups]
    assert names and not any("<" in n for n in names), names
    planned = {g.name for g in view.gang("rayjob/ray-batch-embed", namespace="ml-training").groups}
    assert set(names) <= planned
