"""`wmap serve` against the genuine API server, scraped by a real Prometheus.

PromQL over the scraped series must say what `wmap get -A -o json` says for the same objects, before and
after changes made through the API (a pod becoming ready, a pod deleted, a workload created).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_data import (
    admin,
    create_namespace,
    deployment_scenario,
    ensure_crds,
    eventually,
    jobset_scenario,
    set_pod_running,
)
from tests.cluster.apiserver import TestCluster

pytestmark = pytest.mark.live

PROMETHEUS = shutil.which("prometheus")
WMAP = (sys.executable, "-m", "workload_map.cli.main")
MONITORING = Path(__file__).resolve().parents[2] / "deploy" / "monitoring"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as response:
        return bytes(response.read())


@pytest.fixture(scope="module")
def namespace(test_cluster: TestCluster) -> str:
    ensure_crds(test_cluster, "jobsets.jobset.x-k8s.io")
    conn = admin(test_cluster)
    ns = create_namespace(conn, f"serve-{secrets.token_hex(3)}")
    jobset_scenario(conn, ns, running=False)
    deployment_scenario(conn, ns, replicas=3)
    conn.close()
    return ns


@pytest.fixture(scope="module")
def exporter(test_cluster: TestCluster, namespace: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [*WMAP, "serve", "--port", str(port), "--kubeconfig", str(test_cluster.kubeconfig_path)],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        eventually(
            lambda: _get(base + "/readyz") == b"ready\n",
            timeout=60,
            what="wmap serve ready",
            retry_on=(OSError, AssertionError),
        )
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(scope="module")
def prometheus(exporter: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if PROMETHEUS is None:
        if os.environ.get("CI"):
            pytest.fail("prometheus is not installed (.ci/run installs the Debian package)")
        pytest.skip("prometheus is not installed: apt-get install prometheus")
    work = tmp_path_factory.mktemp("prometheus")
    target = exporter.removeprefix("http://")
    (work / "prometheus.yml").write_text(
        "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        f"rule_files: ['{MONITORING / 'recording-rules.yaml'}']\n"
        "scrape_configs:\n"
        f"  - job_name: wmap\n    static_configs: [{{targets: ['{target}']}}]\n"
    )
    port = _free_port()
    proc = subprocess.Popen(
        [
            PROMETHEUS,
            f"--config.file={work / 'prometheus.yml'}",
            f"--storage.tsdb.path={work / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=(work / "prometheus.log").open("w"),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        eventually(lambda: _get(base + "/-/ready"), timeout=60, what="prometheus ready", retry_on=(OSError,))
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _query(prometheus: str, promql: str) -> list[dict[str, Any]]:
    url = prometheus + "/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    answer = json.loads(_get(url))
    assert answer["status"] == "success", answer
    return list(answer["data"]["result"])


def _wmap_get(cluster: TestCluster, namespace: str) -> dict[tuple[str, str], dict[str, Any]]:
    proc = subprocess.run(
        [*WMAP, "get", "-n", namespace, "-o", "json", "--kubeconfig", str(cluster.kubeconfig_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    trees = document["items"] if document.get("kind") == "List" else [document]
    return {(t["workload"]["kind"], t["workload"]["name"]): t for t in trees}


def _from_prometheus(prometheus: str, namespace: str) -> dict[tuple[str, str], dict[str, Any]]:
    ns = f'namespace="{namespace}"'
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for sample in _query(prometheus, f"wmap_workload_status{{{ns}}} == 1"):
        labels = sample["metric"]
        out[(labels["workload_kind"], labels["workload"])] = {
            "status": labels["status"],
            "ready": 0,
            "desired": 0,
            "gpus": 0.0,
            "pods": 0,
        }
    for metric, key in (("wmap_workload_pods", "ready"), ("wmap_workload_pods", "desired")):
        promql = f'sum by (workload_kind, workload) ({metric}{{{ns}, state="{key}"}})'
        for sample in _query(prometheus, promql):
            labels = sample["metric"]
            out.setdefault((labels["workload_kind"], labels["workload"]), {})[key] = int(float(sample["value"][1]))
    promql = f"sum by (workload_kind, workload) (wmap_workload_gpus_requested{{{ns}}})"
    for sample in _query(prometheus, promql):
        labels = sample["metric"]
        out.setdefault((labels["workload_kind"], labels["workload"]), {})["gpus"] = float(sample["value"][1])
    pods = _query(prometheus, f"count by (workload_kind, workload) (wmap_pod_workload{{{ns}}})")
    for sample in pods:
        labels = sample["metric"]
        out.setdefault((labels["workload_kind"], labels["workload"]), {})["pods"] = int(float(sample["value"][1]))
    return out


def _expected(trees: dict[tuple[str, str], dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for key, tree in trees.items():
        totals = tree["totals"]
        out[key] = {
            "status": tree["status"]["primary"],
            "ready": totals["pods"]["ready"],
            "desired": totals["pods"]["desired"],
            "gpus": float(totals["gpus"]),
            "pods": len(tree["pods"]) + len(tree["unattributed"]),
        }
    return out


def _agree(cluster: TestCluster, prometheus: str, namespace: str) -> bool:
    expected = _expected(_wmap_get(cluster, namespace))
    actual = _from_prometheus(prometheus, namespace)
    assert actual == expected, f"prometheus {actual} != wmap get {expected}"
    return True


def test_prometheus_says_what_wmap_get_says(test_cluster: TestCluster, namespace: str, prometheus: str) -> None:
    eventually(lambda: _agree(test_cluster, prometheus, namespace), timeout=60, what="PromQL == wmap get")


def test_changes_through_the_api_reach_prometheus(
    test_cluster: TestCluster, namespace: str, prometheus: str, exporter: str
) -> None:
    conn = admin(test_cluster)
    pods = conn.request("GET", f"/api/v1/namespaces/{namespace}/pods")["items"]
    web = sorted(p["metadata"]["name"] for p in pods if p["metadata"]["name"].startswith("web-"))
    for name in web[:2]:
        set_pod_running(conn, namespace, name)
    # no kubelet finishes a graceful deletion here: delete at once, as the kubelet would after it
    conn.request("DELETE", f"/api/v1/namespaces/{namespace}/pods/{web[2]}", {"gracePeriodSeconds": "0"})
    deployment_scenario(conn, namespace, name="late", replicas=2)
    conn.close()

    def changed() -> bool:
        actual = _from_prometheus(prometheus, namespace)
        assert actual.get(("Deployment", "web"), {}).get("ready") == 2
        assert ("Deployment", "late") in actual
        return _agree(test_cluster, prometheus, namespace)

    eventually(changed, timeout=60, what="the changes in PromQL")
    freshness = _query(prometheus, 'wmap_watch_last_event_age_seconds{resource="pods"}')
    assert freshness and float(freshness[0]["value"][1]) < 60
    events = _query(prometheus, 'wmap_watch_events_total{resource="pods", type="DELETED"}')
    assert events and float(events[0]["value"][1]) >= 1


def test_health_endpoints(exporter: str) -> None:
    assert _get(exporter + "/healthz") == b"ok\n"
    assert _get(exporter + "/readyz") == b"ready\n"
    text = _get(exporter + "/metrics").decode()
    assert 'wmap_build_info{metrics_version="2"' in text
    with pytest.raises(urllib.error.HTTPError):
        _get(exporter + "/nope")


def test_a_busy_port_is_one_clear_error(test_cluster: TestCluster, exporter: str) -> None:
    port = exporter.rsplit(":", 1)[1]
    proc = subprocess.run(
        [*WMAP, "serve", "--port", port, "--kubeconfig", str(test_cluster.kubeconfig_path), "--serve-timeout", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[0].startswith(f"error: cannot listen (127.0.0.1:{port})"), proc.stderr
    assert "Traceback" not in proc.stderr


def test_serve_needs_no_more_than_its_kubeconfig(tmp_path: Path) -> None:
    """Without a reachable cluster it is one error line and exit 1, not a retry loop or a traceback."""
    config = tmp_path / "kubeconfig"
    config.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
        "users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n"
    )
    proc = subprocess.run(
        [*WMAP, "serve", "--port", "0", "--kubeconfig", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr


def test_recording_rules_and_dashboard_queries_evaluate(
    test_cluster: TestCluster, namespace: str, prometheus: str
) -> None:
    """The shipped rules record what wmap get says, and every dashboard query is valid PromQL with data."""
    expected = sum(float(t["totals"]["gpus"]) for t in _wmap_get(test_cluster, namespace).values())

    def recorded() -> bool:
        rows = _query(prometheus, f'namespace:wmap_gpus_requested:sum{{namespace="{namespace}"}}')
        assert rows and float(rows[0]["value"][1]) == expected, rows
        return True

    eventually(recorded, timeout=60, what="the recording rules")
    dashboard = json.loads((MONITORING / "grafana-dashboard.json").read_text())
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            promql = target["expr"].replace("$namespace", namespace)
            _query(prometheus, promql)  # a malformed query fails here: Prometheus answers 400
