"""Tainted nodes in the capacity model: what a pod that tolerates nothing can use is the free capacity; a
control plane's or a dedicated pool's room is shown apart, and `fit` places a workload that tolerates the
taint there (docs/placement.md, "The capacity model")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

import workload_map as wm
from workload_map.cli.main import cli

CONTROL_PLANE = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}


def node(name: str, cpu: int, *, taints: list[dict[str, str]] | None = None, **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
        "spec": {"taints": taints or []},
        "status": {
            "allocatable": {"cpu": str(cpu), "memory": "64Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def job(name: str, cpu: int, tolerations: list[dict[str, str]] | None = None) -> dict[str, Any]:
    pod_spec: dict[str, Any] = {"containers": [{"name": "main", "resources": {"requests": {"cpu": str(cpu)}}}]}
    if tolerations:
        pod_spec["tolerations"] = tolerations
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"parallelism": 1, "completions": 1, "template": {"spec": pod_spec}},
    }


# A kind-style cluster: the control plane is the biggest node, tainted; two small workers, one of them
# dedicated to a team (NoExecute); a pool label on the workers only.
NODES = [
    node("control-plane", 32, taints=[CONTROL_PLANE]),
    node("worker-0", 8, **{"node.kubernetes.io/instance-type": "m5.2xlarge"}),
    node(
        "worker-1",
        8,
        taints=[{"key": "dedicated", "value": "team-a", "effect": "NoExecute"}],
        **{"node.kubernetes.io/instance-type": "m5.2xlarge"},
    ),
]


def test_tainted_nodes_are_not_free_for_every_pod_but_shown_apart() -> None:
    capacity = wm.open_objects(NODES, namespace="default").capacity()
    total = capacity.total()
    assert (total.nodes, total.schedulable, total.tainted) == (3, 1, 2)
    assert total.free["cpu"] == 8  # worker-0 alone, not 48
    assert total.tainted_free["cpu"] == 40
    assert total.largest is not None and total.largest.name == "worker-0"  # not the control plane
    document = capacity.to_json()
    assert document["total"]["schedulableNodes"] == 1
    assert document["total"]["tainted"]["nodes"] == 2 and document["total"]["tainted"]["free"]["cpu"] == "40"
    assert [(n["name"], n["schedulable"], n["tainted"]) for n in document["nodes"]] == [
        ("control-plane", True, True),
        ("worker-0", True, False),
        ("worker-1", True, True),
    ]


def test_a_preferred_taint_blocks_nothing() -> None:
    soft = node("soft", 16, taints=[{"key": "spot", "effect": "PreferNoSchedule"}])
    total = wm.open_objects([soft], namespace="default").capacity().total()
    assert (total.schedulable, total.tainted, total.free["cpu"]) == (1, 0, 16)


def test_fit_uses_a_tainted_node_only_for_a_workload_that_tolerates_the_taint() -> None:
    plain = wm.open_objects([*NODES, job("plain", 16)], namespace="default")
    assert plain.fit("job/plain").copies == 0  # only the control plane has 16 CPU free
    tolerant = wm.open_objects(
        [*NODES, job("admin", 16, [{**CONTROL_PLANE, "operator": "Exists"}])], namespace="default"
    )
    result = tolerant.fit("job/admin")
    assert result.copies == 2 and result.first_copy is not None
    assert list(result.first_copy.nodes) == ["control-plane"]


def dump(tmp_path: Path) -> str:
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": NODES}))
    return str(path)


def test_cli_capacity_shows_the_tainted_room_apart(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["capacity", "--from-file", dump(tmp_path)])
    assert result.exit_code == 0, result.output
    header, total = result.stdout.splitlines()
    assert header.split("  ")[-1].strip() == "TAINTED (FREE)"
    cells = [cell.strip() for cell in total.split("  ") if cell.strip()]
    assert cells[:3] == ["total", "3", "1"]
    assert cells[4] == "8/48"  # CPU free/total
    assert cells[-2:] == ["8 CPU, 64Gi on worker-0", "2 (40 CPU, 128Gi)"]


def test_a_pool_label_no_node_has_is_a_warning_naming_the_labels_that_look_close(tmp_path: Path) -> None:
    nodes = dump(tmp_path)
    runner = CliRunner()
    typo = runner.invoke(cli, ["capacity", "--from-file", nodes, "--pool-label", "instance-type"])
    unknown = runner.invoke(cli, ["capacity", "--from-file", nodes, "--pool-label", "nvidia.com/gpu.product"])
    present = runner.invoke(cli, ["capacity", "--from-file", nodes, "--pool-label", "node.kubernetes.io/instance-type"])
    assert typo.exit_code == 0
    assert (
        "no node has the label 'instance-type' (all 3 nodes are in pool <none>); node labels that look close: "
        "node.kubernetes.io/instance-type"
    ) in typo.stderr
    assert "no node has the label 'nvidia.com/gpu.product' (all 3 nodes are in pool <none>)" in unknown.stderr
    assert "look close" not in unknown.stderr
    assert "no node has the label" not in present.stderr  # the control plane lacks it: that is a pool, <none>
    capacity = wm.open_objects(NODES, namespace="default").capacity()
    assert capacity.to_json("instance-type")["warnings"] == capacity.label_warnings("instance-type")
