from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from helpers import JOBSET_DEFINITION, LWS_DEFINITION, karta
from workload_map.definition import definition_from_dict, load_paths
from workload_map.errors import Location


def test_round_trip_load_dump_load_is_identical() -> None:
    first = karta(LWS_DEFINITION)
    wire = first.to_dict()
    second = karta(yaml.safe_dump(wire))
    assert second == first
    assert second.to_dict() == wire
    assert json.loads(json.dumps(wire)) == wire


def test_identity_is_root_group_version_kind() -> None:
    identity = karta(LWS_DEFINITION).identity
    assert identity is not None
    assert (identity.group, identity.version, identity.kind) == ("leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet")


def test_unknown_field_is_an_error_with_suggestion_and_location() -> None:
    data = yaml.safe_load(LWS_DEFINITION)
    data["spec"]["structureDefinition"]["childComponents"][2]["scaleDefinition"] = {"replicaPath": ".x"}
    loaded, findings = definition_from_dict(data, Location("lws.yaml", 3))
    assert loaded is None
    assert len(findings) == 1
    text = str(findings[0])
    assert "lws.yaml, document 3, spec.structureDefinition.childComponents[2].scaleDefinition.replicaPath" in text
    assert "did you mean 'replicasPath'" in text


def test_wrong_api_version_and_kind() -> None:
    _, findings = definition_from_dict({"apiVersion": "v1", "kind": "ConfigMap"}, Location("x.yaml", 0))
    messages = [str(f) for f in findings]
    assert any("apiVersion must be 'run.ai/v1alpha1'" in m for m in messages)
    assert any("kind must be 'Karta'" in m for m in messages)


def test_missing_root_is_reported() -> None:
    data = {
        "apiVersion": "run.ai/v1alpha1",
        "kind": "Karta",
        "metadata": {"name": "x"},
        "spec": {"structureDefinition": {}},
    }
    _, findings = definition_from_dict(data, Location("x.yaml", 0))
    assert [f.location.path for f in findings] == ["spec.structureDefinition.rootComponent"]
    assert "required field is missing" in findings[0].message


def test_wrong_types_are_reported_all_at_once() -> None:
    data = yaml.safe_load(JOBSET_DEFINITION)
    data["spec"]["structureDefinition"]["childComponents"][0]["instanceIdPath"] = 7
    data["spec"]["structureDefinition"]["rootComponent"]["name"] = ["x"]
    _, findings = definition_from_dict(data, Location("j.yaml", 0))
    paths = {f.location.path for f in findings}
    assert "spec.structureDefinition.childComponents[0].instanceIdPath" in paths
    assert "spec.structureDefinition.rootComponent.name" in paths


def test_multi_document_list_and_json(tmp_path: Path) -> None:
    one = yaml.safe_load(LWS_DEFINITION)
    two = yaml.safe_load(JOBSET_DEFINITION)
    stream = tmp_path / "defs.yaml"
    stream.write_text(yaml.safe_dump(one) + "---\n" + yaml.safe_dump(two))
    as_list = tmp_path / "list.json"
    as_list.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [one, two]}))
    for path in (stream, as_list):
        loaded, findings = load_paths([str(path)])
        assert not findings
        assert [d.name for d in loaded] == ["test-lws", "test-jobset"]
    loaded, _ = load_paths([str(as_list)])
    assert str(loaded[1].location) == f"{as_list}, document 0, items[1]"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", "file is empty"),
        ("apiVersion: run.ai/v1alpha1\nkind: [Karta\n", "YAML syntax error at line"),
        ("{", "invalid JSON"),
    ],
)
def test_unreadable_files_give_one_precise_finding(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / ("bad.json" if content == "{" else "bad.yaml")
    path.write_text(content)
    loaded, findings = load_paths([str(path)])
    assert loaded == []
    assert len(findings) == 1
    assert expected in findings[0].message
    assert findings[0].location.source == str(path)


def test_missing_file() -> None:
    _, findings = load_paths(["/nonexistent/defs.yaml"])
    assert findings[0].message == "no such file or directory"


def test_deeply_nested_json_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    loaded, findings = load_paths([str(path)])
    assert loaded == []
    assert len(findings) == 1


def test_suspend_values_must_be_json_encoded() -> None:
    data = yaml.safe_load(JOBSET_DEFINITION)
    data["spec"]["structureDefinition"]["rootComponent"]["suspendDefinition"]["suspendActions"][0]["value"] = "yes"
    _, findings = definition_from_dict(data, Location("j.yaml", 0))
    assert "JSON-encoded" in findings[0].message
    assert findings[0].location.path.endswith("suspendActions[0].value")


def test_empty_condition_field_names_from_go_clients_mean_the_defaults() -> None:
    data = yaml.safe_load(LWS_DEFINITION)
    status = data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    status["conditionsDefinition"].update(typeFieldName="", statusFieldName="", messageFieldName=None)
    loaded, findings = definition_from_dict(data, Location("go.yaml", 0))
    assert findings == [] and loaded is not None
    conditions = loaded.root.status_definition.conditions_definition
    assert (conditions.type_field_name, conditions.status_field_name, conditions.message_field_name) == (
        "type",
        "status",
        "message",
    )
