"""Status transitions as real operators write them: every step of every flow has its expected status.

The fixtures (tests/transitions/<framework>/<flow>.yaml, format in README.md) are sequences of objects
built from operator sources and e2e tests; a step is a whole object or a JSON merge patch on the previous
one. Each step must resolve with the built-in catalog to the expected primary status (and, when given,
exactly the expected matched statuses), with no status errors.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from workload_map.catalog import builtin_definitions
from workload_map.definition.registry import DefinitionRegistry
from workload_map.resolve.status import evaluate_status

HERE = Path(__file__).resolve().parent
REGISTRY = DefinitionRegistry(builtin_definitions())
FLOW_FILES = sorted(HERE.glob("*/*.yaml"))


@dataclass(frozen=True)
class Step:
    flow: str
    index: int
    name: str
    source: str
    expect: str
    matched: tuple[str, ...] | None
    obj: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.flow}#{self.index} {self.name}"


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: objects merge key by key, null deletes, anything else (lists included) replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def load_flow(path: Path) -> list[Step]:
    flow = f"{path.parent.name}/{path.stem}"
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict), f"{flow}: not a mapping"
    assert data.get("framework") == path.parent.name, f"{flow}: framework must be the folder name"
    assert data.get("sources"), f"{flow}: no sources"
    steps: list[Step] = []
    current: dict[str, Any] | None = None
    for index, raw in enumerate(data.get("steps") or []):
        assert ("object" in raw) != ("patch" in raw), f"{flow}#{index}: exactly one of object or patch"
        if "object" in raw:
            current = copy.deepcopy(raw["object"])
        else:
            assert current is not None, f"{flow}#{index}: a patch needs a previous object"
            current = merge_patch(current, raw["patch"])
        assert raw.get("source"), f"{flow}#{index}: no source"
        matched = raw.get("matched")
        steps.append(
            Step(
                flow,
                index,
                str(raw.get("name") or index),
                str(raw["source"]),
                str(raw["expect"]),
                None if matched is None else tuple(matched),
                copy.deepcopy(current),
            )
        )
    assert steps, f"{flow}: no steps"
    return steps


def all_steps() -> list[Step]:
    return [step for path in FLOW_FILES for step in load_flow(path)]


def test_there_are_flows() -> None:
    assert FLOW_FILES, "no transition fixtures found"


def test_merge_patch() -> None:
    assert merge_patch({"a": {"b": 1, "c": [1]}, "d": 1}, {"a": {"c": [2], "e": None}, "d": None}) == {
        "a": {"b": 1, "c": [2]}
    }


@pytest.mark.parametrize("step", all_steps(), ids=lambda s: s.id)
def test_step_status(step: Step) -> None:
    definition, version_warning = REGISTRY.for_object(step.obj)
    assert definition is not None, f"no catalog definition for {step.obj.get('apiVersion')} {step.obj.get('kind')}"
    assert version_warning is None, version_warning
    result = evaluate_status(definition.karta.root.status_definition, step.obj)
    assert not result.errors, result.errors
    assert result.primary.value == step.expect, f"{step.id} ({step.source}): {result.to_json()['explanations']}"
    if step.matched is not None:
        assert tuple(s.value for s in result.matched) == step.matched
