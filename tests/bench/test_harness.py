"""Fast correctness checks of the benchmark harness (bench/): same inputs on both sides, same answers."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import bench_faststart
import bench_live
import run
from workload_map.tree.build import trees_of

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import bench_dump  # noqa: E402
import gen_cluster  # noqa: E402
import kubectl_jq  # noqa: E402
from bench_common import Figure  # noqa: E402
from workload_map.base.snapshot import Snapshot  # noqa: E402
from workload_map.catalog import builtin_definitions  # noqa: E402
from workload_map.resolve.workloads import WorkloadIndex  # noqa: E402
from workload_map.sources.documents import read_sources  # noqa: E402

JQ = shutil.which("jq") or "/usr/bin/jq"


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bench") / "cluster.json"
    gen_cluster.write(gen_cluster.generate(24, 4, 3, pods_per_workload_target=6), path)
    return path


def _view(objects: list[dict[str, Any]]) -> WorkloadIndex:
    return WorkloadIndex(Snapshot(objects), builtin_definitions())


def test_floor_and_command_read_the_same_dump(dump: Path) -> None:
    floor = bench_dump.parse_floor(dump)
    documents = read_sources([str(dump)])
    assert len(floor) == len(documents) == bench_dump.read_documents(dump)
    assert [d.data for d in documents] == floor  # the floor parses exactly what the command reads
    args = bench_dump.get_args(dump)
    assert args[-1] == str(dump)
    output = bench_dump.invoke(args)
    view = _view(floor)
    assert len(output.splitlines()) - 1 == len(view.workloads())  # one row per top-level workload


def test_describe_targets_the_largest_workload(dump: Path) -> None:
    target, namespace, pods = bench_dump.largest_workload(dump)
    view = _view(bench_dump.parse_floor(dump))
    assert pods == max(len(view.pods_of(w)) for w in view.workloads())
    output = bench_dump.invoke(bench_dump.describe_args(dump, target, namespace))
    assert target.split("/", 1)[1] in output


@pytest.mark.skipif(not Path(JQ).exists(), reason="jq binary not installed")
def test_jq_pipeline_computes_the_same_status_and_pod_counts(dump: Path, tmp_path: Path) -> None:
    script = tmp_path / "workloads.jq"
    script.write_text(kubectl_jq.builtin_script())
    out = subprocess.run([JQ, "-r", "-f", str(script), str(dump)], capture_output=True, text=True, check=True).stdout
    theirs = sorted(tuple(line.split("\t")) for line in out.splitlines())
    view = _view(bench_dump.parse_floor(dump))
    trees, problems = trees_of(view, view.workloads())
    assert not problems
    ours = sorted(
        (t.namespace, t.kind, t.name, t.status.primary.value, f"{t.counts.ready}/{len(t.all_pods)}") for t in trees
    )
    assert theirs == ours
    assert {row[3] for row in ours} - {"Undefined"}  # statuses really computed, not all Undefined


def test_checked_in_jq_script_is_up_to_date() -> None:
    assert (BENCH / "workloads.jq").read_text() == kubectl_jq.builtin_script(), "run: python bench/kubectl_jq.py"


def test_figures_report_ratios_against_their_baseline() -> None:
    fig = Figure("dump", "get -A", 3.0, "s", 1.5, "floor", target="<= 2.0x floor", met=False)
    assert fig.ratio == 2.0
    text = run.table([fig])
    assert "2.00x" in text and "MISSED" in text


def test_live_comparison_keys_rows_by_namespace_and_name() -> None:
    # wmap: NAMESPACE NAME TYPE STATUS COMPONENTS PODS ...; the jq script: NAMESPACE KIND NAME STATUS READY/PODS
    wmap_rows = [
        ["ns", "vc-1", "Job.batch.volcano.sh", "Running", "1", "2/2"],
        ["ns", "train", "JobSet", "Failed", "2", "0/4"],
    ]
    jq_out = "ns\tJob\tvc-1\tRunning\t2/2\nns\tJobSet\ttrain\tFailed\t0/4\n"
    same = bench_live._compare(wmap_rows, jq_out)
    assert same["same_workloads_and_status"], same
    different = bench_live._compare(wmap_rows, jq_out.replace("Failed", "Running"))
    assert different["status_differences"] == 1


def test_faststart_measures_whole_processes_and_counts_leftovers(tmp_path: Path) -> None:
    quick = bench_faststart.measure([sys.executable, "-c", "pass"], 1, cache="n/a")
    assert quick["cpu_s"] > 0 and quick["wall_s"] >= quick["cpu_s"] / 2 and quick["left"] == 0
    assert 1 < quick["rss_mb"] < 200  # the child's own peak, not the benchmark process's
    pids = tmp_path / "pids"
    leaver = (
        "import subprocess, sys; "
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)']); "
        "open(sys.argv[1], 'a').write(f'{child.pid}\\n')"
    )
    try:
        left = bench_faststart.measure([sys.executable, "-c", leaver, str(pids)], 1, cache="n/a")
        assert left["left"] == 1  # a child outliving its parent is seen
    finally:
        for pid in pids.read_text().split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)


def test_faststart_phases_cover_a_whole_get(dump: Path, tmp_path: Path) -> None:
    env = dict(os.environ, WMAP_CACHE_DIR=str(tmp_path / "cache"))
    names = [name for name, _ in bench_faststart.phases(dump, env)]
    assert names[0].startswith("click") and "resolve (trees)" in names
    assert names[-1] == "interpreter start + teardown"
