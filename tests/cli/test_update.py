from __future__ import annotations

import json

import yaml

from .conftest import Invoke


def test_update_prints_patch_and_object(wmap: Invoke) -> None:
    result = wmap(
        "update",
        "minijob/train",
        "--scheduler-name",
        "kai",
        "--label",
        "team=nlp",
        "--component",
        "role",
        "--instance",
        "worker",
    )
    assert result.exit_code == 0, result.output
    updated = yaml.safe_load(result.stdout)
    worker = updated["spec"]["roles"][1]["template"]
    assert worker["spec"]["schedulerName"] == "kai"
    assert worker["metadata"]["labels"] == {"team": "nlp"}
    assert "schedulerName" not in updated["spec"]["roles"][0]["template"]["spec"]
    patch = json.loads(result.stderr)
    assert "spec" in patch


def test_update_usage(wmap: Invoke) -> None:
    assert wmap("update", "minijob/train").exit_code == 2
    assert wmap("update", "minijob/train", "--label", "novalue").exit_code == 2


def test_update_bad_component(wmap: Invoke) -> None:
    result = wmap("update", "minijob/train", "--scheduler-name", "x", "--component", "nope")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: cannot update minijob.test.wmap.io/train in default")
    assert "no pod-producing component named 'nope'" in result.stderr
