"""``wmap gang``: text, the plan as JSON/YAML, and manifests with --for (definitions written here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner
from gang_defs import LWS, member_pod, template

from workload_map.cli.main import cli

UID = "1111-2222"


def lws_pod(name: str, index: int, role: str, **kw: Any) -> dict[str, Any]:
    labels = {"role": role, "example.com/name": "llama", "example.com/group-index": str(index)}
    pod = member_pod(name, labels, **kw)
    pod["metadata"]["ownerReferences"] = [
        {"apiVersion": "example.com/v1", "kind": "LeaderSet", "name": "llama", "uid": UID, "controller": True}
    ]
    return pod


def dump(tmp_path: Path) -> str:
    workload = {
        "apiVersion": "example.com/v1",
        "kind": "LeaderSet",
        "metadata": {"name": "llama", "namespace": "ns", "uid": UID},
        "spec": {"replicas": 2, "size": 2, "template": template("x", gpus=8)},
    }
    pods = [
        lws_pod("llama-0", 0, "leader"),
        lws_pod("llama-0-1", 0, "worker", phase="Pending", reason="Unschedulable"),
    ]
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump_all([yaml.safe_load(LWS), workload, *pods]))
    return str(path)


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_text(tmp_path: Path) -> None:
    result = run("gang", "leaderset/llama", "-n", "ns", "--from-file", dump(tmp_path))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "gang form podGroups, groups computed from its pods" in out
    assert "pg-1111-2222-llama-0" in out and "pg-1111-2222-llama-1" in out
    assert "pending llama-0-1: Unschedulable: 0/4 nodes" in out
    assert "derived sub-groups: leader min 1 (1 present), worker min 1 (1 present)" in out


def test_json_plan(tmp_path: Path) -> None:
    result = run("gang", "leaderset", "llama", "-n", "ns", "-o", "json", "--from-file", dump(tmp_path))
    data = json.loads(result.stdout)
    assert data["kind"] == "GangPlan"
    assert [(g["name"], g["minMember"], g["expected"]) for g in data["groups"]] == [
        ("pg-1111-2222-llama-0", 2, False),
        ("pg-1111-2222-llama-1", 2, True),
    ]
    assert data["groups"][0]["pending"][0]["reason"] == "Unschedulable"


def test_manifests_for_volcano(tmp_path: Path) -> None:
    result = run("gang", "leaderset/llama", "-n", "ns", "-o", "yaml", "--for", "volcano", "--from-file", dump(tmp_path))
    assert result.exit_code == 0, result.output
    doc = yaml.safe_load(result.stdout)
    assert doc["kind"] == "List" and [i["spec"]["minMember"] for i in doc["items"]] == [2, 2]
    assert doc["items"][0]["metadata"]["ownerReferences"][0]["uid"] == UID
    assert "scheduling.k8s.io/group-name" in result.stderr


def test_for_needs_a_document_format(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["gang", "leaderset/llama", "-n", "ns", "--for", "kai", "--from-file", dump(tmp_path)]
    )
    assert result.exit_code == 2 and "-o yaml or -o json" in result.output
