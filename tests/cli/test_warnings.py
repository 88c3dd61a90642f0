"""Warnings that scale: one line per missing owner kind and namespace; every object with -v."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from workload_map.cli.main import cli


def _orphan(name: str, job: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "ownerReferences": [
                {"apiVersion": "batch/v1", "kind": "Job", "name": job, "uid": f"uid-{job}", "controller": True}
            ],
        },
        "spec": {"containers": [{"name": "main", "image": "busybox"}]},
        "status": {"phase": "Running"},
    }


def test_missing_owners_are_bounded_and_listed_in_full_with_verbose(tmp_path: Path) -> None:
    dump = tmp_path / "dump.yaml"
    dump.write_text(
        yaml.safe_dump(
            {"apiVersion": "v1", "kind": "List", "items": [_orphan(f"p-{i}", f"gone-{i}") for i in range(300)]}
        )
    )
    quiet = CliRunner().invoke(cli, ["get", "-A", "--from-file", str(dump)])
    assert quiet.exit_code == 0, quiet.output
    lines = [line for line in quiet.stderr.splitlines() if "missing Job owner" in line]
    assert len(lines) == 1 and lines[0].startswith("Warning: 300 objects in namespace default with a missing Job owner")
    assert "gone-299" not in lines[0] or "gone-0" not in lines[0]  # one example, not the list
    full = CliRunner().invoke(cli, ["get", "-A", "-v", "--from-file", str(dump)])
    assert full.exit_code == 0, full.output
    text = "\n".join(line for line in full.stderr.splitlines() if "missing Job owner" in line)
    assert all(f"Job/gone-{i} " in text for i in range(300))
    assert full.stdout == quiet.stdout
