"""The synthetic cluster generator (bench/gen_cluster.py) only produces objects a real API server accepts.

A small generated cluster is loaded into its own genuine kube-apiserver with bench/bench_live.py's loader (CRDs
from the corpus plus permissive ones for the rest, owners first, status written through the status subresource);
no object may be rejected, and workload_map must resolve the same workloads from the API server as from the dump.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.cluster.apiserver import TestCluster

from workload_map.tree.build import trees_of

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import bench_live  # noqa: E402
import gen_cluster  # noqa: E402
from workload_map.base.snapshot import Snapshot  # noqa: E402
from workload_map.catalog import builtin_definitions  # noqa: E402
from workload_map.cli.commands.get import row  # noqa: E402
from workload_map.resolve.workloads import WorkloadIndex  # noqa: E402

pytestmark = pytest.mark.live

WORKLOADS, NAMESPACES, SEED = 30, 3, 11


@pytest.fixture(scope="module")
def loaded(testcluster_bin_dir: Path) -> Iterator[dict[str, Any]]:
    # A cluster of its own: the generated CRDs and ~1,000 objects must not leak into the shared one.
    cluster = TestCluster(testcluster_bin_dir)
    try:
        cluster.start()
    except Exception as exc:
        pytest.fail(f"second test cluster failed to start: {exc}", pytrace=False)
    log: list[str] = []
    try:
        objects = gen_cluster.generate(WORKLOADS, NAMESPACES, SEED)
        crds = bench_live.install_crds(cluster, objects, log.append)
        result = bench_live.load(cluster, objects, crds["served"], log.append)
        yield {"cluster": cluster, "objects": objects, "crds": crds, "load": result, "log": log}
    finally:
        cluster.stop()


def _rows(rows: list[list[str]]) -> dict[tuple[str, str, str], list[str]]:
    """(namespace, name, type) -> STATUS, COMPONENTS, PODS, GPUS (AGE differs: the server stamps creation)."""
    return {(r[0], r[1], r[2]): r[3:7] for r in rows}


def test_every_generated_object_is_accepted(loaded: dict[str, Any]) -> None:
    log = "\n".join(loaded["log"])
    crds = loaded["crds"]
    assert not crds["failed"] and not crds["missing"], log
    result = loaded["load"]
    assert result["errors"] == {}, log
    generated = Counter(o["kind"] for o in loaded["objects"])
    assert result["created"] == dict(generated), log
    assert generated["Pod"] > 100 and len(generated) > 25  # a real mix, not a trivial cluster


def test_same_workloads_from_the_api_server_as_from_the_dump(loaded: dict[str, Any]) -> None:
    live_rows, _ = bench_live.wmap_get(str(loaded["cluster"].kubeconfig_path))
    view = WorkloadIndex(Snapshot(loaded["objects"]), builtin_definitions())
    trees, problems = trees_of(view, view.workloads())
    assert not problems, problems
    dump_rows = [row(t, wide=False, with_namespace=True) for t in trees]
    assert len(dump_rows) == WORKLOADS
    assert _rows(live_rows) == _rows(dump_rows)
