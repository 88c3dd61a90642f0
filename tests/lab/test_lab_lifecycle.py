"""The lab itself: a lab stopped leaves no process behind (as tests/cli/test_no_leftovers.py checks for wmap),
whatever it ran; its nodes came up as declared."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

from processes import children_of, ended

from . import kwok
from .conftest import lab_bin
from .lab import Lab, remove_work_dir

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_a_stopped_lab_leaves_no_process(testcluster_bin: Path) -> None:
    work_dir = Path(tempfile.mkdtemp(prefix="wmap-lab-lifecycle-"))
    other = Lab(testcluster_bin, lab_bin, work_dir)
    before = set(children_of(os.getpid()))
    try:
        other.start()
        pids = sorted(set(children_of(os.getpid())) - before)
        # etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok
        assert len(pids) == 5, pids
    finally:
        other.stop()
    try:
        left = [pid for pid in pids if not ended(pid)]
        assert left == [], f"processes of the stopped lab still alive: {left}"
    finally:
        remove_work_dir(work_dir)


def test_nodes_as_declared(lab: Lab) -> None:
    nodes = {n["metadata"]["name"]: n for n in lab.kube.list("v1", "Node")}
    for spec in kwok.NODES:
        node = nodes[spec.name]
        assert node["status"]["allocatable"].get(kwok.GPU_RESOURCE) == (str(spec.gpus) if spec.gpus else None)
        assert node["metadata"]["labels"][kwok.POOL_LABEL] == spec.pool
        assert node["metadata"]["labels"].get(kwok.GPU_PRODUCT_LABEL) == spec.gpu_product
        assert [t["key"] for t in node["spec"].get("taints", [])] == [t["key"] for t in spec.taints]
    pools = lab.wmap("capacity", "--pool-label", kwok.POOL_LABEL).stdout
    assert "h100" in pools and "a100" in pools, pools
