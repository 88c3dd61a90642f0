from __future__ import annotations

import json
from pathlib import Path

import pytest
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


BAD_FLAGS = {
    "quantity that does not parse": (["--requests", "nvidia.com/gpu=abc"], "'--requests'", "'abc'"),
    "negative quantity": (["--limits", "cpu=-1"], "'--limits'", "must be greater than or equal to 0"),
    "resource name": (["--requests", "bad name!=1"], "'--requests'", "'bad name!'"),
    "label key": (["--label", "bad key!=v"], "'--label'", "name part must consist of alphanumeric characters"),
    "label key prefix": (["--label", "Bad_Prefix/a=v"], "'--label'", "prefix part"),
    "label value": (["--label", "team=not ok"], "'--label'", "a valid label must be an empty string"),
    "long label value": (["--label", "team=" + "x" * 64], "'--label'", "must be no more than 63 characters"),
    "annotation key": (["--annotation", "/x=v"], "'--annotation'", "prefix part must be non-empty"),
    "node selector value": (["--node-selector", "pool=a b"], "'--node-selector'", "a valid label"),
    "scheduler name": (["--scheduler-name", "Kai Scheduler"], "'--scheduler-name'", "RFC 1123 subdomain"),
    "priority class": (["--priority-class", "High!"], "'--priority-class'", "RFC 1123 subdomain"),
    "image": (["--image", " trainer:2"], "'--image'", "leading or trailing whitespace"),
    "suspend and resume": (["--suspend", "--resume"], "--suspend", "--resume"),
}


@pytest.mark.parametrize("case", sorted(BAD_FLAGS))
def test_values_kubernetes_refuses_are_usage_errors(wmap: Invoke, case: str) -> None:
    """What the API server (or kubectl) would refuse is a usage error naming the flag and the reason, before
    anything is read or sent: never an empty or invalid patch with exit 0."""
    flags, flag, reason = BAD_FLAGS[case]
    result = wmap("update", "minijob/train", *flags, "--dry-run")
    assert result.exit_code == 2, result.output
    assert flag in result.stderr and reason in result.stderr, result.stderr
    assert not result.stdout


def test_valid_values_still_pass(wmap: Invoke) -> None:
    result = wmap(
        "update",
        "minijob/train",
        "--label",
        "example.com/team=nlp-1.a_b",
        "--label",
        "empty=",
        "--annotation",
        "example.com/note=any text at all!",
        "--requests",
        "cpu=1.5,memory=2Gi,nvidia.com/gpu=1,hugepages-2Mi=0",
        "--scheduler-name",
        "kai.scheduler",
        "-o",
        "json",
    )
    assert result.exit_code == 0, result.output
    labels = json.loads(result.stdout)["spec"]["roles"][0]["template"]["metadata"]["labels"]
    assert labels == {"example.com/team": "nlp-1.a_b", "empty": ""}
