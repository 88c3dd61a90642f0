"""A fleet of three genuine API servers (each with its own etcd) read at once through one kubeconfig.

``get``/``describe``/``gang`` with ``--context`` repeated and ``--all-contexts``, the library's
``open_fleet``, and the failures a fleet must survive: a forbidden context, a frozen API server and one
stopped in the middle of a ``get``. One module-scoped fleet: the session's cluster plus two of its own.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from fleet_data import FleetClusters, gpu_job, gpu_nodes, own_clusters, write_kubeconfig
from live_data import eventually
from tests.browser.support import browser_page, screenshot, serve
from tests.cluster.apiserver import TestCluster

import workload_map as wm
from workload_map.cli.main import cli
from workload_map.cmdline.errors import EXIT_NOT_FOUND, EXIT_PARTIAL

pytestmark = pytest.mark.live

WMAP = Path(sys.executable).parent / "wmap"


@pytest.fixture(scope="module")
def fleet(
    test_cluster: TestCluster, testcluster_bin_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    with own_clusters(testcluster_bin_dir, 2) as (west, north):
        clusters = {"east": test_cluster, "west": west, "north": north}
        kubeconfig = write_kubeconfig(tmp_path_factory.mktemp("fleet") / "kubeconfig", clusters, {"locked": "west"})
        namespace = f"fleet-{secrets.token_hex(3)}"
        gpu_job(test_cluster, namespace, "train", pods=2, gpus=8, running=2)
        gpu_job(west, namespace, "train", pods=4, gpus=8, running=4)
        gpu_job(west, namespace, "eval", pods=1, gpus=1, running=0, node="eval-node")
        # west's nodes: the train pods fill gpu-node-0..3, eval takes 1 of eval-node-0's 8, idle-0 is free: 15
        gpu_nodes(west, [*(f"gpu-node-{i}" for i in range(4)), "eval-node-0", "idle-0"])
        gpu_job(north, namespace, "train", pods=1, gpus=4, running=1)
        yield {
            "clusters": FleetClusters(clusters, kubeconfig, {"locked": "west"}),
            "kubeconfig": str(kubeconfig),
            "ns": namespace,
        }


def wmap(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _contexts(*names: str) -> list[str]:
    return [arg for name in names for arg in ("--context", name)]


def test_get_over_three_clusters_one_table_cluster_first(fleet: dict[str, Any]) -> None:
    ns = fleet["ns"]
    result = wmap("get", "-n", ns, "--kubeconfig", fleet["kubeconfig"], *_contexts("east", "west", "north"))
    assert result.exit_code == 0, result.output
    header = result.stdout.splitlines()[0].split()
    assert header[:3] == ["CLUSTER", "NAME", "TYPE"], header
    rows = [line.split() for line in result.stdout.splitlines()[1:]]
    by_cluster = {(r[0], r[1]): r for r in rows}
    assert sorted(by_cluster) == [("east", "train"), ("north", "train"), ("west", "eval"), ("west", "train")]
    gpus = header.index("GPUS")
    assert {k: by_cluster[k][gpus] for k in by_cluster} == {
        ("east", "train"): "16",
        ("west", "train"): "32",
        ("west", "eval"): "1",
        ("north", "train"): "4",
    }
    assert [r[0] for r in rows] == sorted((r[0] for r in rows), key=["east", "west", "north"].index)  # fleet order
    # A warning several clusters give is one line naming them all. Only the two clusters of this module are
    # known to lack the Karta CRD: the session cluster (east) has it once an earlier module installed it.
    karta_lines = [line for line in result.stderr.splitlines() if "Karta CRD" in line]
    assert karta_lines in [
        [
            f"Warning: cluster {names}: the Karta CRD (kartas.run.ai) is not installed in the cluster: "
            "using built-in definitions only"
        ]
        for names in ("east, west, north", "west, north")
    ], result.stderr


def test_get_all_contexts_json_carries_the_cluster_and_a_forbidden_one_is_one_warning(
    fleet: dict[str, Any],
) -> None:
    ns = fleet["ns"]
    result = wmap("get", "-A", "--all-contexts", "--kubeconfig", fleet["kubeconfig"], "-o", "json")
    assert result.exit_code == EXIT_PARTIAL, result.output
    items = [i for i in json.loads(result.stdout)["items"] if i["workload"]["namespace"] == ns]
    assert sorted((i["cluster"], i["workload"]["name"]) for i in items) == [
        ("east", "train"),
        ("north", "train"),
        ("west", "eval"),
        ("west", "train"),
    ]
    assert all(next(iter(i)) == "cluster" for i in items)  # the field comes first
    warnings = [line for line in result.stderr.splitlines() if "locked" in line]
    assert len(warnings) == 1, result.stderr
    assert warnings[0].startswith("Warning: cluster locked: not read: Forbidden: user 'test-restricted'"), warnings


def test_get_name_and_one_context_is_one_cluster(fleet: dict[str, Any]) -> None:
    ns = fleet["ns"]
    kubeconfig = fleet["kubeconfig"]
    names = wmap("get", "-n", ns, "--kubeconfig", kubeconfig, *_contexts("west", "north"), "-o", "name")
    assert names.exit_code == 0, names.output
    assert sorted(names.stdout.splitlines()) == ["north job.batch/train", "west job.batch/eval", "west job.batch/train"]
    one = wmap("get", "-n", ns, "--kubeconfig", kubeconfig, "--context", "north")
    assert one.exit_code == 0, one.output
    assert one.stdout.split()[0] == "NAME"  # one --context: one cluster, no CLUSTER column


def test_the_fleet_is_the_union_of_its_clusters_read_alone(fleet: dict[str, Any]) -> None:
    """Every namespace of the three clusters: the fleet's rows are each cluster's own rows with the cluster
    in front, its JSON items each cluster's items with ``cluster`` first, every warning a cluster alone
    gives is a fleet warning naming that cluster, and the exit code is the worst of the three."""
    kubeconfig = fleet["kubeconfig"]
    names = ["east", "west", "north"]
    rows = {c: wmap("get", "-A", "--kubeconfig", kubeconfig, "--context", c) for c in names}
    together = wmap("get", "-A", "--kubeconfig", kubeconfig, *_contexts(*names))
    assert together.exit_code == max(r.exit_code for r in rows.values()), together.output

    def cells(line: str) -> list[str]:
        return line.split()[:-1]  # AGE aside: a second may pass between the reads

    expected = [[c, *cells(line)] for c in names for line in rows[c].stdout.splitlines()[1:]]
    assert [cells(line) for line in together.stdout.splitlines()[1:]] == expected
    fleet_warnings = [
        line.removeprefix("Warning: cluster ").split(": ", 1) for line in together.stderr.splitlines()
    ]  # "Warning: cluster east, west: <what they said>"
    for cluster, alone in rows.items():
        for line in alone.stderr.splitlines():
            said = line.removeprefix("Warning: ")
            naming = [w[1] for w in fleet_warnings if len(w) == 2 and cluster in w[0].split(", ")]
            assert said in naming, (line, together.stderr)
    docs = {c: wmap("get", "-A", "--kubeconfig", kubeconfig, "--context", c, "-o", "json") for c in names}
    fleet_doc = wmap("get", "-A", "--kubeconfig", kubeconfig, *_contexts(*names), "-o", "json")
    items = json.loads(fleet_doc.stdout)["items"]
    union = [{"cluster": c, **item} for c in names for item in json.loads(docs[c].stdout)["items"]]
    assert [next(iter(i)) for i in items] == ["cluster"] * len(items)
    assert [(i["cluster"], i["workload"]) for i in items] == [(i["cluster"], i["workload"]) for i in union]
    assert [i.get("status") for i in items] == [i.get("status") for i in union]


def test_get_a_name_present_in_some_clusters_and_one_present_nowhere(fleet: dict[str, Any]) -> None:
    ns = fleet["ns"]
    kubeconfig = fleet["kubeconfig"]
    some = wmap("get", "job/eval", "-n", ns, "--kubeconfig", kubeconfig, *_contexts("east", "west"))
    assert some.exit_code == 0, some.output
    assert [r[:2] for r in (line.split() for line in some.stdout.splitlines()[1:])] == [["west", "eval"]]
    nowhere = wmap("get", "job/absent", "-n", ns, "--kubeconfig", kubeconfig, *_contexts("east", "west"))
    assert nowhere.exit_code == EXIT_NOT_FOUND, nowhere.output
    assert 'job.batch "absent" not found in any cluster (east, west)' in nowhere.stderr


def test_usage_errors_of_fleet_flags(fleet: dict[str, Any]) -> None:
    kubeconfig = fleet["kubeconfig"]
    both = wmap("get", "--kubeconfig", kubeconfig, "--all-contexts", "--context", "east")
    assert both.exit_code == 2 and "either --all-contexts or --context" in both.stderr, both.output
    unknown = wmap("get", "--kubeconfig", kubeconfig, *_contexts("east", "nowhere"))
    assert unknown.exit_code == EXIT_PARTIAL, unknown.output
    lines = [line for line in unknown.stderr.splitlines() if "nowhere" in line]
    assert len(lines) == 1 and lines[0].startswith("Warning: cluster nowhere: not read: context 'nowhere' not found")


def test_library_open_fleet_workloads_carry_their_cluster(fleet: dict[str, Any]) -> None:
    ns = fleet["ns"]
    with wm.open_fleet(contexts=["west", "north"], kubeconfig=fleet["kubeconfig"], namespace=ns) as opened:
        assert opened.clusters == ["west", "north"] and not opened.failures and not opened.partial
        listing = opened.workloads()
        assert sorted((w.cluster, w.tree.name, float(w.tree.gpus)) for w in listing) == [
            ("north", "train", 4.0),
            ("west", "eval", 1.0),
            ("west", "train", 32.0),
        ]
        assert listing.workloads[0].to_json()["cluster"] == "west"
        assert [c for c, _ in opened.find("job/train")] == ["west", "north"]
        assert opened.view("north").workload("job/train").counts.running == 1


def test_describe_and_gang_over_the_fleet(fleet: dict[str, Any]) -> None:
    ns = fleet["ns"]
    kubeconfig = fleet["kubeconfig"]
    text = wmap("describe", "job/train", "-n", ns, "--kubeconfig", kubeconfig, *_contexts("west", "north"))
    assert text.exit_code == 0, text.output
    assert [line for line in text.stdout.splitlines() if line.startswith("Cluster:")] == [
        "Cluster:    west",
        "Cluster:    north",
    ]
    doc = wmap("describe", "job/eval", "-n", ns, "--kubeconfig", kubeconfig, *_contexts("west", "north"), "-o", "json")
    assert doc.exit_code == 0, doc.output
    items = json.loads(doc.stdout)["items"]
    assert [(i["cluster"], i["workload"]["name"]) for i in items] == [("west", "eval")]
    gang = wmap("gang", "job/train", "-n", ns, "--kubeconfig", kubeconfig, *_contexts("east", "west"), "-o", "json")
    assert gang.exit_code == 0, gang.output
    plans = json.loads(gang.stdout)["items"]
    assert [p["cluster"] for p in plans] == ["east", "west"]
    missing = wmap("describe", "job/absent", "-n", ns, "--kubeconfig", kubeconfig, *_contexts("west", "north"))
    assert missing.exit_code == EXIT_NOT_FOUND, missing.output


def test_a_frozen_cluster_is_one_warning_and_the_reads_overlap(fleet: dict[str, Any]) -> None:
    ns = fleet["ns"]
    north = fleet["clusters"].clusters["north"]
    with north.frozen_apiserver():
        opened = wm.open_fleet(
            contexts=["east", "west", "north"], kubeconfig=fleet["kubeconfig"], namespace=ns, request_timeout="3s"
        )
    with opened:
        assert [f.cluster for f in opened.failures] == ["north"] and opened.partial
        assert "request timed out after 3s" in opened.failures[0].message, opened.failures
        assert sorted((w.cluster, w.tree.name) for w in opened.workloads()) == [
            ("east", "train"),
            ("west", "eval"),
            ("west", "train"),
        ]
        # Concurrent, not one after the other: north was being waited for while the others were read.
        north_began, north_ended = opened.spans["north"]
        assert all(north_began < ended < north_ended for _, ended in (opened.spans[c] for c in ("east", "west")))


def test_a_cluster_stopped_in_the_middle_of_a_get(fleet: dict[str, Any]) -> None:
    """north stops answering while the command waits for it (SIGSTOP), then its API server is killed: the
    command ends with the other clusters' rows, one warning for north and exit code 5."""
    ns = fleet["ns"]
    north = fleet["clusters"].clusters["north"]
    argv = [str(WMAP), "get", "-n", ns, "--kubeconfig", fleet["kubeconfig"], *_contexts("east", "west", "north")]
    env = {**os.environ, "WMAP_DEBUG_REQUESTS": "0"}
    try:
        with north.frozen_apiserver():
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            time.sleep(2.0)  # let it connect to all three and wait on north (the test holds either way)
            north.stop_apiserver(graceful=False)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        north.start_apiserver()
    assert proc.returncode == EXIT_PARTIAL, (stdout, stderr)
    assert sorted(tuple(line.split()[:2]) for line in stdout.splitlines()[1:]) == [
        ("east", "train"),
        ("west", "eval"),
        ("west", "train"),
    ], stdout
    warnings = [line for line in stderr.splitlines() if "north" in line]
    assert len(warnings) == 1 and warnings[0].startswith("Warning: cluster north: not read: cluster unreachable"), (
        stderr
    )


def _samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)", line)
        assert m, line
        out.append((m.group(1), dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or "")), float(m.group(3))))
    return out


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())


def test_serve_a_fleet_series_api_and_dashboard(fleet: dict[str, Any]) -> None:
    """`wmap serve --all-contexts`: the forbidden context is one warning and cluster_up 0, the three others
    are served; every series names its cluster; the API filters by cluster; the dashboard's Fleet page."""
    ns = fleet["ns"]
    with serve("--kubeconfig", fleet["kubeconfig"], "--all-contexts", "--capacity-interval", "1") as base:
        # free GPUs come from the capacity model (nodes, the pods bound to them), read again every second
        def free_read() -> dict[str, Any] | None:
            free = {c["cluster"]: c["gpusFree"] for c in _get(base + "/api/v1/fleet")["clusters"]}
            return free if free.get("west") is not None else None

        free = eventually(free_read, what="a capacity read")
        assert free["west"] == 15.0 and free["locked"] is None, free
        with urllib.request.urlopen(base + "/metrics", timeout=10) as answer:
            samples = _samples(answer.read().decode())
        assert all("cluster" in labels for name, labels, _ in samples if name != "wmap_build_info")
        assert next(labels for name, labels, _ in samples if name == "wmap_build_info")["metrics_version"] == "2"
        up = {labels["cluster"]: value for name, labels, value in samples if name == "wmap_cluster_up"}
        assert up == {"east": 1.0, "west": 1.0, "north": 1.0, "locked": 0.0}
        requested: dict[str, float] = {}
        for name, labels, value in samples:
            if name == "wmap_workload_gpus_requested" and labels["namespace"] == ns:
                requested[labels["cluster"]] = requested.get(labels["cluster"], 0.0) + value
        assert requested == {"east": 16.0, "west": 33.0, "north": 4.0}
        assert [v for n, labels, v in samples if n == "wmap_cluster_gpus_free" and labels["cluster"] == "west"] == [
            15.0
        ]

        rows = _get(base + f"/api/v1/workloads?namespace={ns}")["items"]
        assert sorted((r["cluster"], r["name"]) for r in rows) == [
            ("east", "train"),
            ("north", "train"),
            ("west", "eval"),
            ("west", "train"),
        ]
        west = _get(base + f"/api/v1/workloads?namespace={ns}&cluster=west")["items"]
        assert sorted(r["name"] for r in west) == ["eval", "train"]
        one = _get(base + f"/api/v1/workloads/{ns}/job.batch/train?cluster=north")
        assert (one["cluster"], one["row"]["gpus"]) == ("north", 4.0)
        summary = {c["cluster"]: c for c in _get(base + "/api/v1/fleet")["clusters"]}
        assert list(summary) == ["east", "west", "north", "locked"]
        assert not summary["locked"]["served"] and "Forbidden" in summary["locked"]["reason"]
        assert (summary["north"]["gpusRequested"], summary["north"]["gpusInUse"]) == (4.0, 4.0)
        assert summary["west"]["gpusRequested"] == 33.0 and summary["west"]["workloads"] == 2

        with browser_page() as page:
            page.goto(base + "/#/fleet")
            page.wait_for_selector("#fleet tbody tr")
            shown = page.eval_on_selector_all(
                "#fleet tbody tr",
                "rows => rows.map(r => [r.dataset.cluster, r.querySelector('[data-col=gpus]').innerText])",
            )
            screenshot(page, "dashboard-fleet")
            assert [c for c, _ in shown] == ["east", "west", "north", "locked"]
            assert dict(shown)["west"] == "33" and dict(shown)["north"] == "4" and dict(shown)["locked"] == "?"
            assert page.inner_text('#fleet tr[data-cluster="west"] [data-col=free]') == "15"
            assert "not read" in page.inner_text('#fleet tr[data-cluster="locked"]')
            page.click('#fleet tr[data-cluster="north"] a')  # a cluster's name opens its workloads
            page.wait_for_selector("#workloads tbody tr")
            page.select_option("#f-namespace", ns)
            page.wait_for_function(
                "[...document.querySelectorAll('#workloads tbody tr')].every(r => r.dataset.cluster === 'north')"
                " && document.querySelectorAll('#workloads tbody tr').length === 1"
            )
            assert page.input_value("#f-cluster") == "north"
            screenshot(page, "dashboard-fleet-table")
            page.click("#workloads tbody tr a")
            page.wait_for_selector("#tree-graph")
            assert "north: " in page.inner_text("h1")
