"""A fleet whose cluster goes down and comes back: ``wmap serve`` started while it is down, ``get --watch``
over the fleet while it stops, comes back and refuses the watch.

Two genuine API servers (each with its own etcd): the session's cluster (``east``) and one of this module
(``late``; context ``limited`` reads it as a user bound to a ClusterRole the tests delete), whose API
server the tests stop and start again while the command runs.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from fleet_data import gpu_job, own_clusters, write_kubeconfig
from live_data import eventually, kubectl_apply, user_cluster_role
from tests.browser.support import browser_page, free_port, screenshot
from tests.cluster.apiserver import RESTRICTED_USER, TestCluster

import workload_map as wm
from workload_map.cli.main import cli
from workload_map.cmdline.errors import EXIT_NOT_FOUND, EXIT_PARTIAL

pytestmark = pytest.mark.live

WMAP = Path(sys.executable).parent / "wmap"


@pytest.fixture(scope="module")
def fleet(
    test_cluster: TestCluster, testcluster_bin_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    with own_clusters(testcluster_bin_dir, 1) as (late,):
        clusters = {"east": test_cluster, "late": late}
        kubeconfig = write_kubeconfig(
            tmp_path_factory.mktemp("fleet-gaps") / "kubeconfig", clusters, {"limited": "late", "limited2": "late"}
        )
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


class Streamed:
    """A command whose stdout and stderr lines are collected as they come (one reader thread each)."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.out: list[str] = []
        self.err: list[str] = []
        self.readers = [
            threading.Thread(target=self._read, args=(stream, lines), daemon=True)
            for stream, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))
        ]
        for reader in self.readers:
            reader.start()

    @staticmethod
    def _read(stream: Any, lines: list[str]) -> None:
        for line in stream:
            lines.append(line.rstrip("\n"))

    def rows(self) -> list[list[str]]:
        return [line.split() for line in list(self.out)]

    def end(self) -> int:
        """Ctrl-C, as a user ends a watch; the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=60)
        for reader in self.readers:
            reader.join(timeout=10)
        return code


def test_get_watch_over_a_fleet_streams_every_cluster_and_survives_one_failing(fleet: dict[str, Any]) -> None:
    """`get --watch` over east and limited (late as a user whose ClusterRole is then deleted): one table,
    CLUSTER first; late's API server stopping is one warning and east's changes keep coming; when it is
    back the watch is refused (403): one more warning, east still streams, and Ctrl-C exits 5 (partial)."""
    ns, east, late = fleet["ns"], fleet["east"], fleet["late"]
    role = "wmap-fleet-watch"
    rules = [
        {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
    ]
    kubectl_apply(late, *user_cluster_role(role, rules, RESTRICTED_USER))
    argv = [str(WMAP), "get", "jobs", "-n", ns, "--watch", "--watch-timeout", "300"]
    command = Streamed([*argv, "--kubeconfig", fleet["kubeconfig"], "--context", "east", "--context", "limited"])
    try:

        def row(cluster: str, name: str) -> list[str] | None:
            return next((r for r in command.rows() if r[:2] == [cluster, name]), None)

        eventually(lambda: row("east", "train") and row("limited", "train"), timeout=60, what="the first listing")
        assert command.rows()[0][:3] == ["CLUSTER", "NAME", "TYPE"], command.out
        gpus = command.rows()[0].index("GPUS")
        assert [r[gpus] for r in command.rows()[1:] if r[1] == "train"] == ["16", "32"], command.out

        revoked = late.kubectl("delete", "clusterrolebinding", role)  # open watches outlive it, the next request not
        assert revoked.returncode == 0, revoked.stderr
        late.stop_apiserver()
        failing = eventually(
            lambda: [line for line in command.err if line.startswith("Warning: cluster limited: watch")],
            timeout=60,
            what="a warning for late's watches failing",
        )
        assert len(failing) == 1 and " failed, retrying: " in failing[0], command.err
        gpu_job(east, ns, "during", pods=1, gpus=1, running=0)
        eventually(lambda: row("east", "during"), timeout=60, what="east's change while late is down")

        late.start_apiserver()
        ended = eventually(
            lambda: [line for line in command.err if "cluster limited: watch ended:" in line],
            timeout=90,
            what="late's watch refused once its API server is back",
        )
        assert len(ended) == 1 and "Forbidden" in ended[0], command.err
        gpu_job(east, ns, "after", pods=1, gpus=1, running=0)
        eventually(lambda: row("east", "after"), timeout=60, what="east's change after late's watch ended")
        assert command.proc.poll() is None, command.err
    finally:
        late.start_apiserver()
        code = command.end()
    assert code == EXIT_PARTIAL, (code, command.out, command.err)
    # late: one line when its watches start failing, one when its watch ends; nothing per try or per resource
    # (whether late's missing Karta CRD is a line of its own or merged with east's depends on whether an
    # earlier module installed that CRD in the session cluster: not counted)
    late_lines = [
        line for line in command.err if line.startswith("Warning: cluster limited:") and "Karta CRD" not in line
    ]
    assert len(late_lines) == 2 and " failed, retrying: cluster unreachable" in late_lines[0], command.err
    assert not [line for line in command.err if "Traceback" in line], command.err
    # the header once, every row in it with CLUSTER first
    assert [r[0] for r in command.rows()].count("CLUSTER") == 1, command.out
    assert {r[0] for r in command.rows()[1:]} <= {"east", "limited"}, command.out


def _wmap(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_get_watch_over_a_fleet_json_name_and_a_cluster_not_read(fleet: dict[str, Any]) -> None:
    ns, kubeconfig = fleet["ns"], fleet["kubeconfig"]
    watch = ("get", "jobs", "-n", ns, "--watch", "--watch-timeout", "2", "--kubeconfig", kubeconfig)
    partial = _wmap(*watch, "--context", "east", "--context", "nowhere", "-o", "json")
    assert partial.exit_code == EXIT_PARTIAL, partial.output
    first = json.loads(partial.stdout)  # no change within 2 s: the first listing only
    assert {(i["cluster"], i["workload"]["name"]) for i in first["items"]} >= {("east", "train")}
    assert all(next(iter(i)) == "cluster" for i in first["items"])
    said = [line for line in partial.stderr.splitlines() if "nowhere" in line]
    assert len(said) == 1 and said[0].startswith("Warning: cluster nowhere: not read: context 'nowhere' not found")
    whole = _wmap(*watch, "--context", "east", "--context", "late", "-o", "name")
    assert whole.exit_code == 0, whole.output
    assert {"east job.batch/train", "late job.batch/train"} <= set(whole.stdout.splitlines()), whole.stdout


def test_library_fleet_watch_yields_each_clusters_changes_and_closes_its_watches(fleet: dict[str, Any]) -> None:
    ns, late = fleet["ns"], fleet["late"]
    with wm.open_fleet(contexts=["east", "late"], kubeconfig=fleet["kubeconfig"], namespace=ns) as opened:
        gpu_job(late, ns, "library", pods=1, gpus=1, running=0)  # after the lists: the watches bring it
        seen = None
        for change in opened.watch(timeout=60):
            assert change.view is not None and change.failure is None, change
            if change.cluster == "late" and "library" in {t.name for t in change.view.workloads()}:
                seen = change
                break
        assert seen is not None, "late's new workload never came"
    assert not [t.name for t in threading.enumerate() if t.name.startswith("wmap watch ")]


def test_components_over_a_fleet_one_entry_per_cluster(fleet: dict[str, Any]) -> None:
    """`wmap components` with --context repeated / --all-contexts: the workload of every cluster that has it,
    each through its own cluster (east's train is 2 pods, late's 4), CLUSTER first; a cluster not read
    (limited and limited2 read late as a user without the permission) is one warning each, exit 5."""
    ns, kubeconfig = fleet["ns"], fleet["kubeconfig"]
    both = _wmap(
        "components", "job/train", "-n", ns, "--kubeconfig", kubeconfig, "--context", "east", "--context", "late"
    )
    assert both.exit_code == 0, both.output
    lines = both.stdout.splitlines()
    assert lines[0].split()[:3] == ["CLUSTER", "COMPONENT", "REPLICAS"], lines
    assert [line.split()[:4] for line in lines[1:3]] == [
        ["east", "job", "2", "nvidia.com/gpu=8"],
        ["late", "job", "4", "nvidia.com/gpu=8"],
    ], lines
    gang_header = lines.index("") + 1
    assert lines[gang_header].split()[:3] == ["CLUSTER", "GANG", "GROUP"], lines
    assert [line.split()[0] for line in lines[gang_header + 1 :]] == ["east", "late"], lines

    doc = _wmap("components", "job/train", "-n", ns, "--kubeconfig", kubeconfig, "--all-contexts", "-o", "json")
    assert doc.exit_code == EXIT_PARTIAL, doc.output
    items = json.loads(doc.stdout)["items"]
    assert [(i["cluster"], i["components"][0]["replicas"]) for i in items] == [("east", 2), ("late", 4)]
    assert all(next(iter(i)) == "cluster" for i in items)
    assert items[1]["components"][0]["replicaRequirements"]["resourceRequest"] == {"nvidia.com/gpu": "8"}
    said = [line for line in doc.stderr.splitlines() if "cluster limited" in line]
    assert [line.split(": not read: ")[0] for line in said] == ["Warning: cluster limited", "Warning: cluster limited2"]
    assert all(": not read: Forbidden" in line for line in said), doc.stderr

    one = _wmap("components", "job/train", "-n", ns, "--kubeconfig", kubeconfig, "--context", "late", "-o", "json")
    assert one.exit_code == 0, one.output
    alone = json.loads(one.stdout)
    assert "cluster" not in alone and alone["components"][0]["replicas"] == 4  # one cluster: its document, as before
    with wm.open_fleet(contexts=["east", "late"], kubeconfig=kubeconfig, namespace=ns) as opened:
        by_cluster = opened.components("job/train")
    assert {c: [r.replicas for r in req.components] for c, req in by_cluster.items()} == {"east": [2], "late": [4]}
    assert by_cluster["late"].to_json() == alone  # the library's answer is the command's
    missing = _wmap(
        "components", "job/absent", "-n", ns, "--kubeconfig", kubeconfig, "--context", "east", "--context", "late"
    )
    assert missing.exit_code == EXIT_NOT_FOUND, missing.output
    assert "not found" in missing.stderr and "any cluster (east, late)" in missing.stderr, missing.stderr


def test_get_watch_over_a_fleet_whose_every_watch_ends_is_an_error(fleet: dict[str, Any]) -> None:
    """Both contexts read late as the user whose ClusterRole is deleted while they watch: once late's API
    server restarts, both watches are refused, one line each, and the command ends: exit 1."""
    ns, late = fleet["ns"], fleet["late"]
    role = "wmap-fleet-watch-all"
    rules = [{"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list", "watch"]}]
    rules.append({"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]})
    kubectl_apply(late, *user_cluster_role(role, rules, RESTRICTED_USER))
    argv = [
        str(WMAP),
        "get",
        "jobs",
        "-n",
        ns,
        "--watch",
        "--watch-timeout",
        "300",
        "--kubeconfig",
        fleet["kubeconfig"],
    ]
    command = Streamed([*argv, "--context", "limited", "--context", "limited2"])
    try:
        eventually(lambda: len(command.rows()) >= 3, timeout=60, what="the first listing of both contexts")
        revoked = late.kubectl("delete", "clusterrolebinding", role)
        assert revoked.returncode == 0, revoked.stderr
        late.restart_apiserver()
        command.proc.wait(timeout=120)  # ends by itself: nothing is left to watch
    finally:
        code = command.end()
    assert code == 1, (code, command.out, command.err)
    for context in ("limited", "limited2"):
        said = [line for line in command.err if line.startswith(f"Warning: cluster {context}: watch ended: ")]
        assert len(said) == 1 and "Forbidden" in said[0], command.err
    last = "error: no cluster of the fleet is watched any more (limited, limited2): every watch ended"
    assert command.err[-1] == last, command.err
