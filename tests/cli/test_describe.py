from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from .conftest import Invoke, minijob, pod


def test_describe_text(wmap: Invoke) -> None:
    result = wmap("describe", "minijob/train")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Name:" in out and "train" in out
    assert "Definition: test-wmap-io-minijob-v1 (file:" in out
    assert "Status:     Running (matched: Running)" in out
    assert "Pods:       2/3 ready" in out
    assert "GPUs:       5 desired, 3 in use" in out
    # the tree: component, instances, pods with role, readiness, GPUs, node, pending reason
    assert "instance master  replicas 1  1/1 ready" in out
    assert "instance worker  replicas 2  1/2 ready, 1 pending" in out
    assert "train-master-0  master  1/1  Running  gpu 1  node node-a" in out
    assert "train-worker-1  worker  0/1  Pending  (Unschedulable: 0/3 nodes are available" in out
    assert "├── " in out or "└── " in out
    # the status explanation
    assert "Running: MATCHED" in out
    assert "✓ phase: expected 'Running', actual 'Running'" in out
    # the status once, why it matched, and no rule that did not match nor jq: those are explain's
    assert "Primary:" not in out and out.count("(matched: Running)") == 1
    assert "Completed: not matched" not in out
    assert "wmap explain minijob/train -n default" in out
    # what is wrong, in words, before the tree
    assert "Reason:     1 pod waiting for a node (Unschedulable), e.g. train-worker-1: 0/3 nodes" in out
    # resources
    assert "COMPONENT   INSTANCE   REPLICAS   PODS   GPU   CPU   MEMORY" in out
    total = next(line for line in out.splitlines() if line.strip().startswith("TOTAL"))
    assert total.split() == ["TOTAL", "3/3", "5", "6", "12Gi"]
    assert "\x1b[" not in out  # no colour when not a terminal


def test_describe_replica_groups(wmap: Invoke) -> None:
    out = wmap("describe", "group", "llm", "-n", "serving").stdout
    lines = out.splitlines()
    replica0 = next(i for i, line in enumerate(lines) if "replica 0  2/2 ready" in line)
    replica1 = next(i for i, line in enumerate(lines) if "replica 1  2/2 ready" in line)
    between = "\n".join(lines[replica0:replica1])
    assert "llm-0  leader" in between and "llm-0-1  worker" in between
    assert "llm-1 " not in between


def test_describe_tree_only(wmap: Invoke) -> None:
    out = wmap("describe", "minijob/train", "-o", "tree").stdout
    assert out.startswith("MiniJob/train  Running")
    assert "Status:" not in out


def test_describe_ascii_fallback(wmap: Invoke, monkeypatch: object) -> None:
    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setattr("workload_map.cli.output.stdout_encoding", lambda: "ascii")
    out = wmap("describe", "minijob/train").stdout
    assert "+-- " in out or "`-- " in out
    assert "├" not in out and "✓" not in out
    assert "+ phase: expected 'Running'" in out


def test_describe_json(wmap: Invoke) -> None:
    doc = json.loads(wmap("describe", "minijob/train", "-o", "json").stdout)
    assert doc["status"]["primary"] == "Running"
    assert doc["status"]["matched"] == ["Running"]
    assert [c["name"] for c in doc["components"]] == ["minijob", "role"]
    assert doc["totals"]["pods"]["desired"] == 3
    assert doc["totals"]["pods"]["ready"] == 2
    assert doc["totals"]["gpus"] == 5
    instances = doc["components"][1]["instances"]
    assert [i["id"] for i in instances] == ["master", "worker"]


def test_describe_yaml(wmap: Invoke) -> None:
    doc = yaml.safe_load(wmap("describe", "minijob/train", "-o", "yaml").stdout)
    assert doc["kind"] == "WorkloadTree"


def test_describe_not_found_and_usage(wmap: Invoke) -> None:
    missing = wmap("describe", "minijob/nope")
    assert missing.exit_code == 3
    assert 'not found in namespace "default"' in missing.stderr
    usage = wmap("describe", "minijob")
    assert usage.exit_code == 2


def test_describe_unattributed(wmap: Invoke, tmp_path: object) -> None:
    dump = Path(str(tmp_path)) / "stray.yaml"
    dump.write_text(
        yaml.safe_dump_all(
            [minijob("solo", None, "u-solo"), pod("solo-stray", "default", ("MiniJob", "solo", "u-solo"), {})]
        )
    )
    out = wmap("describe", "minijob/solo", "--from-file", str(dump)).stdout
    assert "unattributed pods  1" in out
    assert "reason: no component's podSelector matches this pod" in out


def test_explain(wmap: Invoke) -> None:
    result = wmap("explain", "minijob/broken")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Primary: Failed" in out
    assert "Precedence: Failed > Completed" in out
    assert "Phase: Failed" in out
    assert "TYPE       STATUS   REASON    MESSAGE" in out
    assert "Complete   False    Running   still going" in out
    # every mapped status, matched or not, with expected/actual
    assert "Running: not matched" in out
    assert "✗ phase: expected 'Running', actual 'Failed'" in out
    assert "Failed: MATCHED" in out
    assert "✓ expression: expected 'true', actual 'true'" in out


def test_explain_json(wmap: Invoke) -> None:
    doc = json.loads(wmap("explain", "minijob/train", "-o", "json").stdout)
    assert doc["primary"] == "Running"
    assert {e["status"] for e in doc["explanations"]} == {"Running", "Completed", "Failed"}
