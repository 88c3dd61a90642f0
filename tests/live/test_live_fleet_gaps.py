"""A fleet whose cluster is down when the command starts, then comes up: ``wmap serve`` and ``get --watch``.

Two genuine API servers (each with its own etcd): the session's cluster (``east``) and one of this module
(``late``), whose API server is stopped before each command starts and started again while it runs.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fleet_data import gpu_job, own_clusters, write_kubeconfig
from live_data import eventually
from tests.browser.support import browser_page, free_port, screenshot
from tests.cluster.apiserver import TestCluster

pytestmark = pytest.mark.live

WMAP = Path(sys.executable).parent / "wmap"


@pytest.fixture(scope="module")
def fleet(
    test_cluster: TestCluster, testcluster_bin_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    with own_clusters(testcluster_bin_dir, 1) as (late,):
        clusters = {"east": test_cluster, "late": late}
        kubeconfig = write_kubeconfig(tmp_path_factory.mktemp("fleet-gaps") / "kubeconfig", clusters)
        namespace = f"gaps-{secrets.token_hex(3)}"
        gpu_job(test_cluster, namespace, "train", pods=2, gpus=8, running=2)
        gpu_job(late, namespace, "train", pods=4, gpus=8, running=4)
        try:
            yield {"east": test_cluster, "late": late, "kubeconfig": str(kubeconfig), "ns": namespace}
        finally:
            late.start_apiserver()  # whatever a test left, the module's teardown stops a running cluster


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())


def _text(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _cluster_up(base: str) -> dict[str, float]:
    _, text = _text(base + "/metrics")
    return {
        m.group(1): float(m.group(2))
        for m in re.finditer(r'^wmap_cluster_up\{cluster="([^"]+)"\} (\S+)$', text, flags=re.MULTILINE)
    }


def test_serve_retries_a_cluster_down_at_start_and_it_joins(fleet: dict[str, Any], tmp_path: Path) -> None:
    """`late`'s API server is down when `wmap serve` starts: it is said (one warning, wmap_cluster_up 0,
    /readyz partial, the fleet API and page), east is served meanwhile, and once late's API server is up
    its workloads join, wmap_cluster_up goes to 1 and its watches keep it current."""
    ns, late = fleet["ns"], fleet["late"]
    late.stop_apiserver()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    stderr_path = tmp_path / "serve.stderr"
    argv = [str(WMAP), "serve", "--port", str(port), "--kubeconfig", fleet["kubeconfig"]]
    argv += ["--context", "east", "--context", "late", "--capacity-interval", "1"]
    with stderr_path.open("wb") as stderr:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr, env=dict(os.environ))
    try:
        status, ready = eventually(lambda: _ready_or_none(base, proc), timeout=90, what="serve answering /readyz")
        assert status == 200, ready
        assert "cluster late: not read: cluster unreachable" in ready and ready.rstrip().endswith("(retrying)"), ready
        assert _cluster_up(base) == {"east": 1.0, "late": 0.0}
        summary = {c["cluster"]: c for c in _get(base + "/api/v1/fleet")["clusters"]}
        assert list(summary) == ["east", "late"]
        assert (summary["late"]["served"], summary["late"]["retrying"]) == (False, True), summary["late"]
        assert summary["late"]["reason"].startswith("not read: cluster unreachable"), summary["late"]
        rows = _get(base + f"/api/v1/workloads?namespace={ns}")
        assert [(r["cluster"], r["name"]) for r in rows["items"]] == [("east", "train")]
        assert rows["clusters"] == ["east", "late"] and not rows["coverage"]["complete"]
        with browser_page() as page:
            page.goto(base + "/#/fleet")
            page.wait_for_selector('#fleet tr[data-cluster="late"]')
            assert "not read, retrying" in page.inner_text('#fleet tr[data-cluster="late"]')
            screenshot(page, "dashboard-fleet-retrying")

            late.start_apiserver()
            joined = eventually(
                lambda: _served(base, "late"), timeout=90, what="late joining the fleet once its API server is up"
            )
            assert joined["workloads"] >= 1 and joined["gpusRequested"] >= 32.0, joined
            # The page follows the event stream: the late cluster's row says ready without a reload.
            page.wait_for_function(
                "document.querySelector('#fleet tr[data-cluster=\"late\"]').innerText.includes('ready')"
                " && !document.querySelector('#fleet tr[data-cluster=\"late\"]').innerText.includes('not read')"
            )
            screenshot(page, "dashboard-fleet-joined")
        assert _cluster_up(base) == {"east": 1.0, "late": 1.0}
        rows = _get(base + f"/api/v1/workloads?namespace={ns}")
        assert sorted((r["cluster"], r["name"], r["gpus"]) for r in rows["items"]) == [
            ("east", "train", 16.0),
            ("late", "train", 32.0),
        ]
        status, ready = _text(base + "/readyz")
        assert status == 200 and "late" not in ready, ready
        # Joined as a cluster read at start is: watched, so a workload created now appears.
        gpu_job(late, ns, "after", pods=1, gpus=2, running=0)

        def names() -> set[tuple[str, str]]:
            return {(r["cluster"], r["name"]) for r in _get(base + f"/api/v1/workloads?namespace={ns}")["items"]}

        eventually(lambda: ("late", "after") in names(), timeout=60, what="a workload created in late after it joined")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    lines = stderr_path.read_text().splitlines()
    assert sum(line.startswith("Warning: cluster late: not read: cluster unreachable") for line in lines) == 1, lines
    joined_lines = [line for line in lines if "read after failing at start" in line]
    assert joined_lines == ["Warning: cluster late: read after failing at start, served now: 1 workload"], lines


def _ready_or_none(base: str, proc: subprocess.Popen[bytes]) -> tuple[int, str] | None:
    if proc.poll() is not None:
        raise RuntimeError(f"wmap serve ended with {proc.returncode}")  # not retried by eventually()
    try:
        status, text = _text(base + "/readyz")
    except OSError:
        return None
    return (status, text) if status == 200 else None


def _served(base: str, cluster: str) -> dict[str, Any] | None:
    row = next(c for c in _get(base + "/api/v1/fleet")["clusters"] if c["cluster"] == cluster)
    return row if row["served"] and row["ready"] else None
