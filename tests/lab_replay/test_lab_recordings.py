"""Every recording the cluster lab saved (tests/lab/recordings, written by ``WMAP_LAB_RECORD=1 make lab``)
replayed without a cluster: at each checkpoint, the state the recording names resolved by the library must
give the expectation the lab asserted there. This is not a lab test (no marker): it runs with the unit tests,
so a change to a definition or the resolver is checked against what real controllers and operators did."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lab.known_wrong import KNOWN_WRONG
from workload_map.api.definitions import effective_definitions
from workload_map.api.recordings import check_recording
from workload_map.definition.registry import DefinitionRegistry
from workload_map.sources.recording import load_recording

RECORDINGS = Path(__file__).resolve().parents[1] / "lab" / "recordings"
FILES = sorted(RECORDINGS.glob("*/*.yaml"))


def _cases() -> list[object]:
    cases = []
    for path in FILES:
        framework, scenario = path.parent.name, path.stem
        for checkpoint in load_recording(str(path)).checkpoints:
            reason = KNOWN_WRONG.get((framework, scenario, checkpoint.name))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(
                pytest.param(path, checkpoint.name, id=f"{framework}/{scenario}: {checkpoint.name}", marks=marks)
            )
    return cases


def test_every_scenario_module_of_the_lab_has_recordings() -> None:
    # The framework each Scenario declares (a module may hold several, e.g. test_kuberay.py records "ray").
    frameworks = {
        match.group(1)
        for p in RECORDINGS.parent.glob("test_*.py")
        for match in re.finditer(r'\bframework="([^"]+)"', p.read_text())
    }
    recorded = {p.parent.name for p in FILES}
    assert frameworks - recorded == set(), "run WMAP_LAB_RECORD=1 make lab and commit tests/lab/recordings"


@pytest.mark.parametrize(("path", "checkpoint"), _cases())
def test_checkpoint(path: Path, checkpoint: str) -> None:
    recording = load_recording(str(path))
    definitions, _warnings = effective_definitions()
    w = recording.workload
    definition, problem = DefinitionRegistry(definitions).for_object({"apiVersion": w.api_version, "kind": w.kind})
    assert definition is not None, problem
    results = {r.checkpoint: r for r in check_recording(definition, recording)}
    result = results[checkpoint]
    assert not result.problems, result.problems
    failed = {c.key: (c.expected, c.actual) for c in result.checks if not c.ok}
    assert not failed, f"{result.location}: expected vs replayed: {failed}"
