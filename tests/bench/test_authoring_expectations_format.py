"""Every round of bench/authoring_expectations is well formed before anything is drafted or scored.

The scorer reads these files only after an upstream snapshot is fetched and a draft is made; a typo (a status
name no definition knows, a jq expression that does not compile, a kind scored twice) would only show there,
as a crash or a silently wrong figure. These checks read the files alone: no network, no snapshot, no draft.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from workload_map import ResourceStatus
from workload_map.jq import compile_expression

EXPECTATIONS = Path(__file__).resolve().parents[2] / "bench" / "authoring_expectations"
FILES = sorted(EXPECTATIONS.glob("round*/*.yaml"))
REQUIRED = {"name", "repo", "commit", "crd", "samples", "components", "statuses", "suspend"}
OPTIONAL = {"phasePath", "samples_repo", "samples_commit"}
STATUS_KEYS = ("phase", "condition", "readyCount")
SHARED_STATUSES = {s.value.lower() for s in ResourceStatus if s is not ResourceStatus.UNDEFINED}
COMMIT = re.compile(r"[0-9a-f]{40}")
REPO = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*")


def _load(path: Path) -> dict[str, Any]:
    spec = yaml.safe_load(path.read_text())
    assert isinstance(spec, dict), f"{path}: not a mapping"
    return spec


def _is_path(value: object) -> bool:
    return isinstance(value, str) and value.startswith(".")


def test_every_round_has_files() -> None:
    rounds = sorted({p.parent.name for p in FILES})
    assert rounds, "no expectations found"
    for name in rounds:
        # A round is a table of kinds; its -extra holds whatever candidates came after the eighth, one or more.
        least = 1 if name.endswith("-extra") else 2
        assert len([p for p in FILES if p.parent.name == name]) >= least, f"{name}: fewer than {least} kinds"


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_file_is_well_formed(path: Path) -> None:
    spec = _load(path)
    assert spec.keys() >= REQUIRED, f"{path.name}: missing {sorted(REQUIRED - spec.keys())}"
    assert spec.keys() <= REQUIRED | OPTIONAL, f"{path.name}: unknown keys {sorted(spec.keys() - REQUIRED - OPTIONAL)}"
    for key in ("repo", "samples_repo"):
        if key in spec:
            assert REPO.fullmatch(str(spec[key])), f"{path.name}: {key} {spec[key]!r} is not owner/name"
    for key in ("commit", "samples_commit"):
        if key in spec:
            assert COMMIT.fullmatch(str(spec[key])), f"{path.name}: {key} is not a full commit hash"
    assert isinstance(spec["crd"], str) and spec["crd"].endswith((".yaml", ".yml")), f"{path.name}: crd"
    samples = spec["samples"]
    # may be empty: a kind whose only published objects are Helm templates is drafted from its CRD alone
    assert isinstance(samples, list), f"{path.name}: samples must be a list of globs"
    assert all(isinstance(s, str) and s for s in samples), f"{path.name}: samples must be globs"
    if "phasePath" in spec:
        assert _is_path(spec["phasePath"]), f"{path.name}: phasePath {spec['phasePath']!r}"
    assert spec["suspend"] is None or _is_path(spec["suspend"]), f"{path.name}: suspend {spec['suspend']!r}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_components_compile(path: Path) -> None:
    components = _load(path)["components"]
    assert isinstance(components, list) and components, f"{path.name}: no components"
    for index, component in enumerate(components):
        where = f"{path.name} components[{index}]"
        assert set(component) == {"owner", "template", "replicas"}, f"{where}: keys {sorted(component)}"
        owner = component["owner"]
        assert isinstance(owner, list) and owner and all(isinstance(k, str) and k for k in owner), f"{where}: owner"
        assert component["template"] is None or _is_path(component["template"]), f"{where}: template"
        replicas = component["replicas"]
        if replicas is not None:
            assert isinstance(replicas, str), f"{where}: replicas must be a jq expression (a string) or null"
            compile_expression(replicas)  # raises a located JqSyntaxError on a bad expression


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_statuses_name_shared_statuses(path: Path) -> None:
    statuses = _load(path)["statuses"]
    assert isinstance(statuses, list), f"{path.name}: statuses must be a list"
    seen = set()
    for index, entry in enumerate(statuses):
        where = f"{path.name} statuses[{index}]"
        keys = [k for k in STATUS_KEYS if k in entry]
        assert len(keys) == 1, f"{where}: needs exactly one of {STATUS_KEYS}"
        assert set(entry) == {keys[0], "status"}, f"{where}: keys {sorted(entry)}"
        assert isinstance(entry[keys[0]], str) and entry[keys[0]], f"{where}: {keys[0]} must be a name"
        assert (keys[0], entry[keys[0]]) not in seen, f"{where}: {keys[0]} {entry[keys[0]]} listed twice"
        seen.add((keys[0], entry[keys[0]]))
        named = entry["status"]
        assert isinstance(named, list) and named, f"{where}: status must be a non-empty list"
        assert set(named) <= SHARED_STATUSES, f"{where}: {sorted(set(named) - SHARED_STATUSES)} not shared statuses"


def test_no_kind_is_scored_twice() -> None:
    """A CRD file is named <group>_<plural>.yaml by controller-gen, so its name identifies the kind across
    repositories (a CRD vendored into a second operator's repository has the same name)."""
    owners: dict[str, str] = {}
    for path in FILES:
        spec = _load(path)
        key = Path(spec["crd"]).name.lower()
        here = f"{path.parent.name}/{path.name}"
        assert key not in owners, f"{here} scores the CRD {key} that {owners[key]} already scores"
        owners[key] = here
    names = [_load(path)["name"] for path in FILES]
    assert len(names) == len(set(names)), "two files have the same name"
