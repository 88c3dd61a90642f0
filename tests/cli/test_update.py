from __future__ import annotations

import json
from pathlib import Path

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


def test_update_every_pod_field(wmap: Invoke, tmp_path: Path) -> None:
    tolerations = tmp_path / "tolerations.yaml"
    tolerations.write_text("- {key: gpu, operator: Exists, effect: NoSchedule}\n")
    result = wmap(
        "update",
        "minijob/train",
        "--requests",
        "cpu=500m,memory=1Gi",
        "--limits",
        "nvidia.com/gpu=1",
        "--image",
        "trainer:2",
        "--node-selector",
        "pool=a",
        "--tolerations",
        f"@{tolerations}",
        "--node-affinity",
        '{"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}',
        "--pod-affinity",
        "{}",
        "--resource-claims",
        '[{"name": "gpu", "resourceClaimName": "shared"}]',
        "--priority-class",
        "high",
        "--annotation",
        "a=b",
        "-o",
        "json",
    )
    assert result.exit_code == 0, result.output
    for role in json.loads(result.stdout)["spec"]["roles"]:
        template = role["template"]
        spec = template["spec"]
        container = spec["containers"][0]
        assert container["image"] == "trainer:2"
        assert container["resources"]["requests"].items() >= {"cpu": "500m", "memory": "1Gi"}.items()  # merged
        assert container["resources"]["limits"]["nvidia.com/gpu"] == "1"
        assert spec["nodeSelector"] == {"pool": "a"}
        assert spec["tolerations"] == [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]
        assert spec["affinity"] == {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}},
            "podAffinity": {},
        }
        assert spec["resourceClaims"] == [{"name": "gpu", "resourceClaimName": "shared"}]
        assert spec["priorityClassName"] == "high"
        assert template["metadata"]["annotations"] == {"a": "b"}


def test_update_bad_documents_are_usage_errors(wmap: Invoke, tmp_path: Path) -> None:
    wrong_kind = wmap("update", "minijob/train", "--tolerations", '{"key": "gpu"}')
    assert wrong_kind.exit_code == 2 and "expected a list, got dict" in wrong_kind.stderr
    not_yaml = wmap("update", "minijob/train", "--node-affinity", "{a: [")
    assert not_yaml.exit_code == 2 and "not JSON or YAML" in not_yaml.stderr
    missing = wmap("update", "minijob/train", "--tolerations", f"@{tmp_path / 'nope.yaml'}")
    assert missing.exit_code == 2 and "cannot read" in missing.stderr
    pairs = wmap("update", "minijob/train", "--limits", "cpu")
    assert pairs.exit_code == 2 and "is not KEY=VALUE" in pairs.stderr
