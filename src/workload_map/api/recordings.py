"""A recording (``wmap record``'s file, sources/recording.py) replayed against a definition: each checkpoint
checked on the state it names, or the states where the status changed shown (``wmap definitions test``)."""

from __future__ import annotations

from typing import Any

from workload_map.base.objects import ObjectKey, key_of
from workload_map.base.snapshot import Snapshot
from workload_map.checks.samples import SampleResult, check_state
from workload_map.definition.model import LoadedDefinition
from workload_map.sources.recording import Recording


def check_recording(definition: LoadedDefinition, recording: Recording) -> list[SampleResult]:
    """Each checkpoint checked on the state it names; without checkpoints, the state after each event
    where the workload's status (primary or matched) changed, shown (``wmap definitions test``)."""
    key = recording.workload.key

    def result(after: int, checkpoint: str | None) -> SampleResult:
        at = recording.events[after - 1].at if after else recording.recorded.started
        step = f"after {after} event(s), at {at}"
        location = f"{recording.location}: " + (step if checkpoint is None else f"checkpoint {checkpoint!r}, {step}")
        return SampleResult(str(key), location, None, after=after, at=at, checkpoint=checkpoint)

    if recording.checkpoints:
        return [
            check_state(definition, recording.state_at(c.after), key, result(c.after, c.name), c.expect)
            for c in recording.checkpoints
        ]
    shown: list[SampleResult] = []
    last: tuple[str, ...] | None = None
    for after, snapshot in recording.states():
        if not _present(snapshot, key):
            last = None  # not created yet, or deleted: shown again when it is (re)created
            continue
        state = check_state(definition, snapshot, key, result(after, None), None)
        status = ("", *state.problems) if state.tree is None else _status(state.tree)
        if status != last:
            shown.append(state)
            last = status
    return shown


def _present(snapshot: Snapshot, key: ObjectKey) -> bool:
    return any(key_of(o) == key for o in snapshot.of_kind(key.group, key.kind))


def _status(tree: dict[str, Any]) -> tuple[str, ...]:
    return (tree["status"]["primary"], *tree["status"]["matched"])
