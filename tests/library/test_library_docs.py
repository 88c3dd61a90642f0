"""docs/library.md's examples run, the public API is what __all__ says, and it type-checks for users."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.library.doc_blocks import ROOT, blocks, run

import workload_map as wm
from workload_map.cli.main import cli
from workload_map.cli.workloads import kind_name
from workload_map.cmdline.errors import from_library
from workload_map.sources.kube.connection import ClusterError


def test_the_dump_examples_run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    code = blocks("dump")
    assert len(code) >= 8
    run(code, {})
    out = capsys.readouterr().out
    assert "workloads" in out
    assert "vllm-llama-405b" in out
    assert 'jobset.jobset.x-k8s.io "does-not-exist" not found in namespace "ml-training"' in out


def test_every_public_name_resolves_and_is_documented() -> None:
    doc = (ROOT / "docs" / "library.md").read_text()
    for name in wm.__all__:
        assert getattr(wm, name) is not None
    for name in ("open_dump", "open_objects", "open_cluster", "View", "WorkloadTree", "PodSpecChange"):
        assert name in doc


def test_listing_filters_match_the_cli() -> None:
    """The API's filters are get's: same rows for TYPE, -l, --status and -n."""

    example = str(ROOT / "src" / "workload_map" / "examples" / "ai-cluster.yaml")
    view = wm.open_dump(example, namespace=None)
    for args, listing in [
        (["-A"], view.workloads()),
        (["pytorchjobs", "-A"], view.workloads("pytorchjobs")),
        (["-A", "--status", "running"], view.workloads(status="running")),
        (["-n", "ml-serving"], view.workloads(namespace="ml-serving")),
    ]:
        result = CliRunner().invoke(cli, ["get", *args, "-o", "name", "--from-file", example])
        assert result.exit_code == 0, result.output

        assert result.stdout.split() == [kind_name(t.workload) for t in listing]


def test_errors_are_typed() -> None:
    view = wm.open_dump(str(ROOT / "src" / "workload_map" / "examples" / "ai-cluster.yaml"))
    with pytest.raises(wm.UnknownTypeError):
        view.workloads("nosuchkind")
    with pytest.raises(wm.NotFoundError):
        view.workload("jobset/nope")
    with pytest.raises(wm.WorkloadMapError, match="cannot apply an update to objects read from files"):
        view.suspend("job/eval-mmlu", namespace="ml-training").apply()
    with pytest.raises(wm.WorkloadMapError, match="cannot read objects"):
        wm.open_dump(str(ROOT / "no-such-file.yaml"))


USER_SCRIPT = """
from decimal import Decimal

import workload_map as wm


def gpus_running(path: str) -> Decimal:
    total = Decimal(0)
    with wm.open_dump(path, namespace=None) as view:
        for workload in view.workloads(status="Running"):
            total += workload.gpus
        job = view.workload("mpijob/nccl-allreduce", namespace="ml-training")
        plan: wm.GangPlan = view.gang(job)
        sizes: list[int] = [group.min_member for group in plan.groups]
        change: wm.PendingUpdate = view.update(job, wm.PodSpecChange(scheduler_name="kai-scheduler"))
        patch: dict[str, object] = change.patch
        assert sizes and patch
    return total
"""


def test_a_user_script_passes_mypy_strict(tmp_path: Path) -> None:
    """py.typed is honoured: a user's script type-checks against the installed package, strict."""
    script = tmp_path / "user_script.py"
    script.write_text(USER_SCRIPT)
    env = {**os.environ, "MYPY_CACHE_DIR": str(tmp_path / ".mypy_cache")}
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bad = tmp_path / "bad_script.py"
    bad.write_text("import workload_map as wm\nx: int = wm.open_dump('a').namespace\n")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(bad)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert proc.returncode == 1 and "incompatible types" in proc.stdout.lower(), proc.stdout


def test_a_cluster_error_reads_as_one_line_without_its_status_reason() -> None:
    """A ClusterError's ``reason`` is the API's Status reason (Forbidden), not a second explanation."""

    error = ClusterError("Forbidden: alice cannot list pods", status=403, reason="Forbidden")
    assert from_library(error).line() == "Forbidden: alice cannot list pods"
    assert str(error) == "Forbidden: alice cannot list pods"
    located = wm.WorkloadMapError("cannot load definitions", wm.Location("a.yaml"), detail="bad field")
    assert from_library(located).line() == "cannot load definitions (a.yaml): bad field"
