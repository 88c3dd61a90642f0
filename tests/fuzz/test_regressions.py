"""What the fuzzing found, as plain tests with explicit objects (tests/fuzz/test_properties.py found them).

Each case is a pod whose status or spec holds JSON of the wrong type where Kubernetes puts a list of objects,
owned by a workload next to a well-formed one; every command ends normally and the good workload is intact.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from workload_map.cli.main import cli

SANDBOX = "agents.x-k8s.io/v1alpha1"


def sandbox(name: str) -> dict[str, Any]:
    return {"apiVersion": SANDBOX, "kind": "Sandbox", "metadata": {"name": name, "namespace": "fuzz", "uid": name}}


def pod(owner: str, status: Any, spec: Any) -> dict[str, Any]:
    owner_ref = {"apiVersion": SANDBOX, "kind": "Sandbox", "name": owner, "uid": owner, "controller": True}
    metadata = {"name": f"{owner}-pod", "namespace": "fuzz", "uid": f"{owner}-pod", "ownerReferences": [owner_ref]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}


GOOD_SPEC = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}], "nodeName": "n1"}
CASES = {
    # Found by make fuzz: 'bool' object has no attribute 'get' in pod_state (an internal error, exit 1).
    "containerStatuses of a boolean": ({"phase": "Running", "containerStatuses": [True]}, GOOD_SPEC),
    "containerStatuses of junk": (
        {"phase": "Pending", "containerStatuses": [None, 3, "x", {"state": [], "restartCount": "many"}]},
        GOOD_SPEC,
    ),
    "containerStatuses not a list": ({"phase": "Pending", "containerStatuses": "oops"}, GOOD_SPEC),
    "waiting state not a mapping": ({"phase": "Pending", "containerStatuses": [{"state": {"waiting": 7}}]}, GOOD_SPEC),
    "conditions not a list": ({"phase": "Running", "conditions": 5}, GOOD_SPEC),
    "nodeName not a string": ({"phase": "Running"}, {**GOOD_SPEC, "nodeName": {"a": 1}}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_pod_fields(tmp_path: Path, case: str) -> None:
    status, spec = CASES[case]
    items = [sandbox("bad"), pod("bad", status, spec), sandbox("good"), pod("good", {"phase": "Running"}, GOOD_SPEC)]
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    source = ["--from-file", str(dump)]
    listing = CliRunner().invoke(cli, ["get", "-A", "-o", "json", *source])
    assert listing.exit_code == 0, listing.output
    names = {item["workload"]["name"] for item in json.loads(listing.stdout)["items"]}
    assert names == {"bad", "good"}
    for args in (
        ["describe", "sandbox/bad", "-o", "json"],
        ["gang", "sandbox/bad", "-o", "json"],
        ["update", "sandbox/bad", "--scheduler-name", "kai", "--dry-run", "-o", "json"],
    ):
        result = CliRunner().invoke(cli, [*args, "-n", "fuzz", *source])
        assert result.exit_code == 0, (args, result.output)
        json.loads(result.stdout)


def test_uid_of_the_wrong_type(tmp_path: Path) -> None:
    """Found by make fuzz: a uid that is a list ([null]) in an owner reference was an internal error
    (unhashable type: 'list') in the ownership walk."""
    bad = sandbox("bad")
    bad["metadata"]["uid"] = [None]
    owned = pod("bad", {"phase": "Running"}, GOOD_SPEC)
    owned["metadata"]["ownerReferences"][0]["uid"] = [None]
    items = [bad, owned, sandbox("good"), pod("good", {"phase": "Running"}, GOOD_SPEC)]
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    for args in (["get", "-A", "-o", "json"], ["describe", "sandbox/bad", "-n", "fuzz", "-o", "json"]):
        result = CliRunner().invoke(cli, [*args, "--from-file", str(dump)])
        assert result.exit_code == 0, (args, result.output)
        json.loads(result.stdout)
    listing = CliRunner().invoke(cli, ["get", "-A", "-o", "json", "--from-file", str(dump)])
    assert {item["workload"]["name"] for item in json.loads(listing.stdout)["items"]} == {"bad", "good"}


@pytest.mark.parametrize("annotations", [-1, [1], "kubectl.kubernetes.io/last-applied-configuration", 2**70])
def test_annotations_of_the_wrong_type(tmp_path: Path, annotations: Any) -> None:
    """Found by make fuzz (wrong types where definitions read): ``metadata.annotations: -1`` on a workload
    was an internal error (argument of type 'int' is not iterable) in the projection ``get`` reads dumps
    through, for the whole listing."""
    bad = sandbox("bad")
    bad["metadata"]["annotations"] = annotations
    items = [
        bad,
        pod("bad", {"phase": "Running"}, GOOD_SPEC),
        sandbox("good"),
        pod("good", {"phase": "Running"}, GOOD_SPEC),
    ]
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    listing = CliRunner().invoke(cli, ["get", "-A", "-o", "json", "--from-file", str(dump)])
    assert listing.exit_code == 0, listing.output
    assert {item["workload"]["name"] for item in json.loads(listing.stdout)["items"]} == {"bad", "good"}


@pytest.mark.parametrize("labels", [-1, [1], "team", {"team": 5}])
def test_labels_of_the_wrong_type_with_a_selector(tmp_path: Path, labels: Any) -> None:
    """Labels that are not a mapping of strings match no selector (as the API server would never have
    stored them), and never fail the listing."""
    bad = sandbox("bad")
    bad["metadata"]["labels"] = labels
    good = sandbox("good")
    good["metadata"]["labels"] = {"team": "x"}
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [bad, good]}))
    for selector, expected in (("team", ["good"]), ("!team", ["bad"]), ("team!=y", ["bad", "good"])):
        result = CliRunner().invoke(cli, ["get", "-A", "-l", selector, "-o", "name", "--from-file", str(dump)])
        assert result.exit_code == 0, result.output
        assert sorted(line.partition("/")[2] for line in result.stdout.split()) == expected, selector


def test_pod_labels_of_the_wrong_type_everywhere(tmp_path: Path) -> None:
    """Every pod of the example cluster with ``labels: -1``: definitions that select pods by label
    (matchLabels, an MPIJob's) find none of them, and every workload is still listed."""
    example = Path(__file__).resolve().parents[2] / "src" / "workload_map" / "examples" / "ai-cluster.yaml"
    docs = [d for d in yaml.safe_load_all(example.read_text()) if isinstance(d, dict)]
    items = [i for d in docs for i in (d["items"] if isinstance(d.get("items"), list) else [d])]
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    for item in items:
        if item.get("kind") == "Pod":
            item["metadata"]["labels"] = -1
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))

    def names(path: Path) -> set[str]:
        result = CliRunner().invoke(cli, ["get", "-A", "-o", "json", "--from-file", str(path)])
        assert result.exit_code == 0, result.output
        return {item["workload"]["name"] for item in json.loads(result.stdout)["items"]}

    assert names(broken) >= names(plain)
