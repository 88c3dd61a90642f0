"""Every state a scenario's recording holds, read by wmap: the transient states between two steps.

A step (scenario.py) is observed once the cluster has settled; what wmap reads in between — Suspending while
KubeRay deletes pods, Initializing before the first status — lasts milliseconds. The recording has every
event the watches delivered, so replaying it state by state (``Recording.states()``, the same replay
``wmap definitions test`` does) gives each of those states to the resolver."""

from __future__ import annotations

from pathlib import Path

import workload_map as wm
from workload_map.sources.recording import load_recording

from .scenario import Scenario


def recording_path(scenario: Scenario, lab_work_dir: Path) -> Path:
    """Where Scenario.run saved the recording of its run."""
    return lab_work_dir / "recordings" / scenario.framework / f"{scenario.name}.yaml"


def primaries(path: Path, type_name: str, namespace: str, name: str) -> list[tuple[int, str | None]]:
    """``(events applied, primary)`` at each change of wmap's primary status over the recording (None: the
    workload does not exist in that state)."""
    changes: list[tuple[int, str | None]] = []
    for index, snapshot in load_recording(path).states():
        view = wm.open_objects(snapshot.objects, namespace=namespace)
        tree = next((t for t in view.workloads(type_name) if t.name == name), None)
        primary = tree.status.primary.value if tree is not None else None
        if not changes or changes[-1][1] != primary:
            changes.append((index, primary))
    return changes


def between(changes: list[tuple[int, str | None]], after: int, until: int) -> list[str | None]:
    """The primaries wmap read from the state after ``after`` events up to the one after ``until``."""
    current = [primary for index, primary in changes if index <= after][-1:]
    return current + [primary for index, primary in changes if after < index <= until]
