from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from workload_map import catalog
from workload_map.catalog import builtin_definitions
from workload_map.cli.main import cli
from workload_map.errors import Finding, Location, WorkloadMapError


def test_list_includes_user_definitions(defs_file: Path) -> None:
    result = CliRunner().invoke(cli, ["definitions", "--definitions", str(defs_file)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "KIND", "VERSION", "COMPONENTS", "GANG", "ORIGIN"]
    row = next(line.split() for line in lines if line.startswith("test-wmap-io-minijob-v1"))
    assert row == ["test-wmap-io-minijob-v1", "MiniJob.test.wmap.io", "v1", "minijob,role", "no", "file"]


def test_show_one_by_name_and_type(defs_file: Path) -> None:
    by_name = CliRunner().invoke(cli, ["definitions", "test-wmap-io-group-v1", "--definitions", str(defs_file)])
    assert by_name.exit_code == 0
    doc = yaml.safe_load(by_name.stdout)
    assert doc["kind"] == "Karta" and doc["metadata"]["name"] == "test-wmap-io-group-v1"
    by_type = CliRunner().invoke(cli, ["definitions", "minijobs", "-o", "json", "--definitions", str(defs_file)])
    assert json.loads(by_type.stdout)["metadata"]["name"] == "test-wmap-io-minijob-v1"


def test_unknown_definition_exit_4() -> None:
    result = CliRunner().invoke(cli, ["definitions", "no-such-thing"])
    assert result.exit_code == 4
    assert result.stderr.startswith('error: no definition named or covering "no-such-thing"')


def test_broken_builtin_is_a_warning(monkeypatch: pytest.MonkeyPatch, defs_file: Path) -> None:
    broken = (Finding(Location("builtin:bad.yaml", 0, "spec"), "required field is missing"),)
    monkeypatch.setattr("workload_map.catalog.load_builtin", lambda: ((), broken))
    result = CliRunner().invoke(cli, ["definitions", "--definitions", str(defs_file)])
    assert result.exit_code == 0
    assert "Warning: built-in catalog: builtin:bad.yaml, document 0, spec: error: required field is missing" in (
        result.stderr
    )


def test_broken_user_definitions_are_an_error(tmp_path: Path, dump_file: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x}\nspec: {}\n")
    result = CliRunner().invoke(cli, ["get", "--from-file", str(dump_file), "--definitions", str(bad)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: cannot load definitions ({bad}, document 0, spec.structureDefinition)")
    assert "hint: run: wmap validate" in result.stderr


def test_builtin_catalog_is_valid() -> None:
    """The packaged catalog must load and validate: a broken built-in file fails loudly here."""

    definitions = builtin_definitions()
    names = [d.name for d in definitions]
    assert len(names) == len(set(names))
    assert all(d.origin == "builtin" for d in definitions)


def test_builtin_strict_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalog, "load_builtin", lambda: ((), (Finding(Location("builtin:x.yaml"), "boom"),)))
    monkeypatch.setattr(catalog, "_validation_errors", lambda: ())
    with pytest.raises(WorkloadMapError, match="boom"):
        catalog.builtin_definitions()
    assert catalog.builtin_definitions(strict=False) == []
