"""``wmap queues``, ``get --queue`` / the QUEUE column and ``describe``'s Queue line, on the three-scheduler
cluster of tests/queues/cluster.py read from a dump."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

import workload_map as wm
from workload_map.cli.main import cli

from .cluster import all_objects, volcano_pytorchjob


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("queues") / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(all_objects()))
    return path


def run(dump: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--from-file", str(dump)], catch_exceptions=False)


def test_queues_tree(dump: Path) -> None:
    result = run(dump, "queues", "--scheduler", "kueue")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[:3] == ["SCHEDULER", "QUEUE", "KIND"]
    rows = [line.split() for line in lines[1:]]
    assert rows[0][:3] == ["kueue", "research", "(no"]
    team_a = next(r for r in rows if "team-a" in r and "ClusterQueue" in r)
    # GPU QUOTA, LIMIT, USED, BORROWED, ADMITTED, WAITING, GPUS WAITING
    assert team_a[-7:] == ["8", "12", "12", "4", "2", "1", "8"]
    assert any(line.lstrip().startswith("kueue       │  └─ team-a/a-queue") for line in lines), result.output


def test_queues_one_queue_with_its_workloads(dump: Path) -> None:
    result = run(dump, "queues", "team-x", "--workloads")
    assert result.exit_code == 0, result.output
    assert "department" not in result.output  # only the queue asked for and those below it
    assert "OverLimit: Non-preemptible workload is over quota" in result.output
    assert "job/x1" in result.output and "Admitted" in result.output


def test_queues_json_matches_the_library(dump: Path) -> None:
    result = run(dump, "queues", "-o", "json")
    document = json.loads(result.output)
    expected = wm.open_dump(str(dump), namespace=None).queues().to_json()
    assert document["queues"] == expected["queues"]
    assert document["workloads"] == expected["workloads"]


def test_queues_unknown_name_is_not_found(dump: Path) -> None:
    result = CliRunner().invoke(cli, ["queues", "nope", "--from-file", str(dump)])
    assert result.exit_code == 1
    assert "queue 'nope' not found" in result.output


def test_get_queue_filter_and_wide_column(dump: Path) -> None:
    result = run(dump, "get", "-A", "--queue", "a-queue", "-o", "name")
    assert result.output.split() == ["job.batch/a1", "job.batch/a2", "job.batch/a3"]
    wide = run(dump, "get", "-A", "-o", "wide").output.splitlines()
    assert wide[0].split()[-1] == "QUEUE"
    assert {line.split()[1]: line.split()[-1] for line in wide[1:]} == {
        "a1": "a-queue",
        "a2": "a-queue",
        "a3": "a-queue",
        "v1": "vq",
        "x1": "team-x",
        "x2": "team-x",
    }


def test_describe_queue_line(dump: Path) -> None:
    result = run(dump, "describe", "job/a3", "-n", "team-a")
    line = next(line for line in result.output.splitlines() if line.startswith("Queue:"))
    assert "kueue a-queue: Pending (Pending: couldn't assign flavors" in line


def test_a_queue_only_the_podgroup_names_is_the_workloads_queue_everywhere(tmp_path: Path) -> None:
    """The training operator puts a PyTorchJob in a Volcano queue through its PodGroup alone: get's
    --queue and QUEUE column say the queue `wmap queues` counts it in."""
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([*all_objects(), *volcano_pytorchjob()]))
    assert run(path, "get", "-A", "--queue", "vq", "-o", "name").output.split() == [
        "pytorchjob.kubeflow.org/pt-vq",
        "job.batch.volcano.sh/v1",
    ]
    wide = run(path, "get", "pytorchjob", "-n", "team-v", "-o", "wide").output.splitlines()
    assert wide[1].split()[-1] == "vq"
    report = wm.open_dump(str(path), namespace=None).queues()
    item = report.workload("team-v", "PyTorchJob", "pt-vq")
    assert item is not None and (item.queue, item.state) == ("vq", "Admitted")
