"""The Go baseline of bench/bench_gobaseline.py does the same work as wmap: its agreement check passes on a
generated dump and fails on any difference in statuses or pods per component."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import bench_gobaseline  # noqa: E402
import gen_cluster  # noqa: E402
from bench_common import VENV_BIN  # noqa: E402

KEY = ("ns", "PyTorchJob", "train")


def test_differences_names_each_disagreement() -> None:
    wmap = {KEY: (("Running",), (("master", 1), ("worker", 3)), 0)}
    assert bench_gobaseline.differences(wmap, dict(wmap)) == []
    assert bench_gobaseline.differences(wmap, {KEY: (("Failed",), (("master", 1), ("worker", 3)), 0)}) == [
        "ns/PyTorchJob/train: matched statuses: wmap ('Running',), Go ('Failed',)"
    ]
    lines = bench_gobaseline.differences(wmap, {KEY: (("Running",), (("master", 1),), 3)})
    assert [line.split(":")[1].strip() for line in lines] == ["pods per component", "unattributed pods"]
    assert bench_gobaseline.differences(wmap, {}) == ["ns/PyTorchJob/train: only wmap lists it"]


def test_summaries_read_both_outputs_alike() -> None:
    tree = {
        "workload": {"namespace": "ns", "kind": "PyTorchJob", "name": "train"},
        "status": {"matched": ["Running"]},
        "pods": [{"component": "worker"}, {"component": "master"}, {"component": "worker"}],
        "unattributed": [],
    }
    go_line = (
        '{"namespace":"ns","kind":"PyTorchJob","name":"train","matched":["Running"],'
        '"components":{"pytorchjob":{"instances":1,"pods":0},"master":{"instances":1,"pods":1},'
        '"worker":{"instances":1,"pods":2}},"unattributed":0}'
    )
    ours = bench_gobaseline.wmap_summary({"kind": "List", "items": [tree]})
    assert ours == bench_gobaseline.go_summary([go_line]) == {KEY: (("Running",), (("master", 1), ("worker", 2)), 0)}


@pytest.mark.skipif(shutil.which("go") is None and not Path("/usr/local/go/bin/go").exists(), reason="no Go")
def test_go_baseline_agrees_with_wmap_on_a_generated_dump(tmp_path: Path) -> None:
    dump = tmp_path / "cluster.json"
    gen_cluster.write(gen_cluster.generate(24, 4, 3, pods_per_workload_target=6), dump)
    go = bench_gobaseline.build()
    env = dict(os.environ, WMAP_CACHE_DIR=str(tmp_path / "cache"))
    agreed = bench_gobaseline.agreement(str(VENV_BIN / "wmap"), go, bench_gobaseline.definitions_file(), dump, env)
    assert agreed["differences"] == []
    assert agreed["workloads"] == 24 and agreed["pods_placed"] > 24
