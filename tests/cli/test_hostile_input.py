"""Input found by outside checks to crash a command or give a silently wrong answer: each case is a located
error, a warning or the exact value, never a traceback (docs/cli.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from workload_map.cli.main import cli

from .conftest import objects

HUGE = 2**64 + 1  # a float would read it as 2**64
NEGATIVE = -(2**63) - 1


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "internal error" not in result.output, result.output
    return result


def with_big_integers() -> list[dict[str, Any]]:
    items = objects()
    train = items[0]
    train["spec"]["roles"][1]["replicas"] = HUGE
    train["status"]["conditions"][0]["observedGeneration"] = NEGATIVE
    train["status"]["huge"] = [HUGE, {"deep": -HUGE}]
    return items


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_integers_beyond_64_bits_print_exactly(tmp_path: Path, defs_file: Path, suffix: str) -> None:
    dump = tmp_path / f"dump{suffix}"
    document = {"apiVersion": "v1", "kind": "List", "items": with_big_integers()}
    dump.write_text(json.dumps(document) if suffix == ".json" else yaml.safe_dump(document))
    source = ["--from-file", str(dump), "--definitions", str(defs_file)]

    listing = invoke("get", "-A", "-o", "json", *source)
    assert listing.exit_code == 0
    rows = {item["workload"]["name"]: item for item in json.loads(listing.stdout)["items"]}
    assert set(rows) == {"train", "broken", "eval", "llm"}
    assert f"worker({HUGE})" in invoke("get", "-A", *source).stdout
    assert str(HUGE) in invoke("get", "-A", "-o", "yaml", *source).stdout

    for output in ("json", "yaml"):
        described = invoke("describe", "minijob/train", "-o", output, *source)
        assert described.exit_code == 0
        tree = json.loads(described.stdout) if output == "json" else yaml.safe_load(described.stdout)
        replicas = [i["replicas"]["replicas"] for c in tree["components"] for i in c["instances"] if i["id"] == "worker"]
        assert replicas == [HUGE]
    patched = invoke("update", "minijob/train", "--label", "a=b", "-o", "json", *source)
    assert patched.exit_code == 0
    status = json.loads(patched.stdout)["status"]
    assert status["huge"] == [HUGE, {"deep": -HUGE}]
    assert status["conditions"][0]["observedGeneration"] == NEGATIVE
