"""`wmap definitions test DEF --samples DIR`: expectation annotations decide pass/fail and the exit code."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from workload_map.cli.main import cli

from .conftest import run_wmap

EXPECT = "workload-map.run.ai/expect"


def _job(name: str, expect: dict[str, object] | str | None, *, active: int = 2) -> dict[str, object]:
    metadata: dict[str, object] = {"name": name, "namespace": "ml"}
    if expect is not None:
        metadata["annotations"] = {EXPECT: expect if isinstance(expect, str) else json.dumps(expect)}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata,
        "spec": {
            "parallelism": 2,
            "completions": 4,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {"name": "main", "image": "busybox", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
                    ],
                }
            },
        },
        "status": {"active": active, "ready": active, "startTime": "2024-01-01T00:00:00Z"},
    }


def _pod(name: str, job: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "ml",
            "labels": {"batch.kubernetes.io/job-name": job, "job-name": job},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job, "controller": True}],
        },
        "spec": {"containers": [{"name": "main", "image": "busybox"}]},
        "status": {"phase": "Running"},
    }


def _write(folder: Path, *docs: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "samples.yaml").write_text(yaml.safe_dump_all(docs))
    return folder


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, ["definitions", "test", *args], catch_exceptions=False)


def test_every_expectation_holding_exits_0_and_shows_the_tree(tmp_path: Path) -> None:
    samples = _write(
        tmp_path / "s",
        _job("train", {"primary": "Running", "matched": ["Running"], "pods": {"job": 2}, "desiredPods": 2, "gpus": 2}),
        _pod("train-a", "train"),
        _job("shown", None),
    )
    result = _run("batch-job-v1", "--samples", str(samples))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("PASS  job.batch/train in ml")
    assert "  tree:   job 2 (observed 1); 2 pods desired, GPUs 2" in lines
    assert "  status: Running (matched: Running)" in lines
    assert any(line.startswith("SHOWN job.batch/shown in ml") for line in lines)
    assert result.stderr.strip() == "2 sample(s), 1 with expectations, 0 failed"


def test_a_mismatch_exits_1_and_names_what_differs(tmp_path: Path) -> None:
    samples = _write(tmp_path / "s", _job("train", {"primary": "Completed", "pods": {"job": 2, "worker": 1}}))
    result = _run("batch-job-v1", "--samples", str(samples), "-o", "json")
    assert result.exit_code == 1
    [sample] = json.loads(result.stdout)["samples"]
    assert sample["verdict"] == "FAIL"
    checks = {c["key"]: (c["expected"], c["actual"], c["ok"]) for c in sample["checks"]}
    assert checks == {
        "primary": ("Completed", "Running", False),
        "pods.job": (2, 2, True),
        "pods.worker": (1, None, False),
    }


def test_unreadable_or_misspelt_expectations_fail(tmp_path: Path) -> None:
    samples = _write(tmp_path / "s", _job("a", "{not json"), _job("b", {"primry": "Running"}))
    result = _run("batch-job-v1", "--samples", str(samples))
    assert result.exit_code == 1
    assert f"  error: {EXPECT} is not JSON" in result.stdout
    assert "unknown key(s) ['primry']" in result.stdout


def test_no_sample_of_the_kind_is_an_error(tmp_path: Path) -> None:
    samples = _write(tmp_path / "s", _pod("lonely", "nobody"))
    result = _run("batch-job-v1", "--samples", str(samples))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: no sample object of kind Job.batch")


def test_a_definition_file_is_tested_and_an_invalid_one_refused(tmp_path: Path) -> None:
    karta = CliRunner().invoke(cli, ["definitions", "batch-job-v1", "-o", "yaml"]).stdout
    good = tmp_path / "job.yaml"
    good.write_text(karta)
    samples = _write(tmp_path / "s", _job("train", {"primary": "Running"}))
    assert _run(str(good), "--samples", str(samples)).exit_code == 0
    broken = yaml.safe_load(karta)
    del broken["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(broken))
    result = _run(str(bad), "--samples", str(samples))
    assert result.exit_code == 1
    assert "the definition is not valid" in result.stderr


def test_list_and_show_still_work_beside_the_subcommand() -> None:
    listing = CliRunner().invoke(cli, ["definitions"])
    assert listing.exit_code == 0 and listing.stdout.startswith("NAME")
    shown = CliRunner().invoke(cli, ["definitions", "-o", "json"])
    assert shown.exit_code == 0 and json.loads(shown.stdout)["kind"] == "List"
    help_text = CliRunner().invoke(cli, ["definitions", "--help"]).stdout
    assert "test" in help_text and "show" in help_text


def test_installed_console_script_end_to_end(tmp_path: Path) -> None:
    samples = _write(tmp_path / "s", _job("train", {"primary": "Running", "pods": {"job": 2}}))
    ok = run_wmap("definitions", "test", "jobs", "--samples", str(samples))
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("PASS  job.batch/train in ml")
    failing = _write(tmp_path / "f", _job("train", {"primary": "Failed"}))
    bad = run_wmap("definitions", "test", "jobs", "--samples", str(failing))
    assert bad.returncode == 1
    assert "expect primary: 'Failed' -> 'Running' MISMATCH" in bad.stdout


def test_annotations_that_are_not_a_mapping_are_no_expectation(tmp_path: Path) -> None:
    """A sample whose ``metadata.annotations`` is not a mapping carries no expectation (it is SHOWN); it was an
    internal error ('int' object has no attribute 'get'), found by make fuzz's wrong types where read."""
    odd = _job("odd", None)
    odd["metadata"]["annotations"] = -1  # type: ignore[index]
    samples = _write(tmp_path / "s", odd, _job("train", {"primary": "Running"}))
    result = _run("batch-job-v1", "--samples", str(samples))
    assert result.exit_code == 0, result.output
    assert any(line.startswith("SHOWN job.batch/odd in ml") for line in result.stdout.splitlines())
