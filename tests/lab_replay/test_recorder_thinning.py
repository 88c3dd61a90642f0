"""The lab recorder's thinning (tests/lab/recorder.py ``thinned``): only events that changed nothing but the
resourceVersion and the lab's own annotations go, and only when a later event of the same object comes before
the next checkpoint; checkpoints keep naming the states wmap read."""

from __future__ import annotations

from typing import Any

from lab.recorder import thinned
from workload_map.sources.recording import Checkpoint, Recorded, RecordedEvent, Recording, WorkloadRef

PHASE = "lab.workload-map.run.ai/phase"


def pod(version: int, *, phase: str = "Pending", annotations: dict[str, str] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "p", "namespace": "ns", "uid": "u", "resourceVersion": str(version)}
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "status": {"phase": phase}}


def recording(events: list[tuple[str, dict[str, Any]]], checkpoints: list[int]) -> Recording:
    return Recording(
        workload=WorkloadRef("v1", "Pod", "ns", "p"),
        recorded=Recorded("lab", "2026-12-07T00:00:00.000Z"),
        events=[RecordedEvent(f"2026-12-07T00:00:{i:02d}.000Z", kind, obj) for i, (kind, obj) in enumerate(events)],
        checkpoints=[Checkpoint(f"c{after}", after, {}) for after in checkpoints],
    )


def test_an_instruction_superseded_before_the_checkpoint_goes_and_checkpoints_follow() -> None:
    original = recording(
        [
            ("ADDED", pod(1)),
            ("MODIFIED", pod(2, annotations={PHASE: "Running"})),  # the test's instruction only
            ("MODIFIED", pod(3, phase="Running", annotations={PHASE: "Running"})),  # KWOK acted on it
            ("MODIFIED", pod(4, phase="Succeeded", annotations={PHASE: "Running"})),
        ],
        checkpoints=[3, 4],
    )
    thin = thinned(original)
    assert [e.object["metadata"]["resourceVersion"] for e in thin.events] == ["1", "3", "4"]
    assert [c.after for c in thin.checkpoints] == [2, 3]
    for before, after in zip(original.checkpoints, thin.checkpoints, strict=True):
        assert original.state_at(before.after).objects == thin.state_at(after.after).objects


def test_an_instruction_that_is_the_last_change_before_a_checkpoint_stays() -> None:
    original = recording(
        [
            ("ADDED", pod(1)),
            ("MODIFIED", pod(2, annotations={PHASE: "Running"})),
            ("MODIFIED", pod(3, phase="Running", annotations={PHASE: "Running"})),
        ],
        checkpoints=[2, 3],
    )
    assert thinned(original).events == original.events


def test_a_change_of_anything_else_stays() -> None:
    relabelled = pod(2)
    relabelled["metadata"]["labels"] = {"tier": "gold"}
    original = recording([("ADDED", pod(1)), ("MODIFIED", relabelled), ("MODIFIED", pod(3, phase="Running"))], [3])
    assert thinned(original).events == original.events
