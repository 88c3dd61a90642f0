"""A workload's Events against the genuine API server: core/v1 Events created for a Deployment (the root) and
one of its pods, read by ``wmap describe`` (one LIST of the namespace's Events, none with
``--show-events=false``) and by ``wmap serve``'s workload endpoint, which follows them by watch: a new event
arrives, a repeat's count goes up, and the events of a pod deleted go with it."""

from __future__ import annotations

import json
import re
import secrets
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from live_data import admin, create, create_namespace, deployment_scenario, eventually
from tests.cluster.apiserver import TestCluster

from workload_map.cli.main import cli
from workload_map.sources.kube import Connection

pytestmark = pytest.mark.live

WMAP = (sys.executable, "-m", "workload_map.cli.main")
POD = "web-5d9f7c-00001"


def _stamp(minutes_ago: int) -> str:
    return (datetime.now(UTC) - timedelta(minutes=minutes_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _event(conn: Connection, namespace: str, obj: dict[str, Any], name: str, **fields: Any) -> dict[str, Any]:
    involved = {
        "apiVersion": obj["apiVersion"],
        "kind": obj["kind"],
        "name": obj["metadata"]["name"],
        "namespace": namespace,
        "uid": obj["metadata"]["uid"],
    }
    body = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name}, "involvedObject": involved, **fields}
    return create(conn, body, "events", namespace)


@pytest.fixture(scope="module")
def world(test_cluster: TestCluster) -> Iterator[dict[str, Any]]:
    conn = admin(test_cluster)
    ns = create_namespace(conn, f"events-{secrets.token_hex(3)}")
    deployment = deployment_scenario(conn, ns, replicas=2)
    pod = conn.get(f"/api/v1/namespaces/{ns}/pods/{POD}")
    pod.setdefault("apiVersion", "v1")
    pod.setdefault("kind", "Pod")
    _event(
        conn, ns, deployment, "web.scaled", type="Normal", reason="ScalingReplicaSet",
        message="Scaled up replica set web-5d9f7c to 2", count=1, firstTimestamp=_stamp(9), lastTimestamp=_stamp(9),
        source={"component": "deployment-controller"},
    )  # fmt: skip
    _event(
        conn, ns, pod, "web.backoff", type="Warning", reason="BackOff",
        message="Back-off restarting failed container main", count=3, firstTimestamp=_stamp(5),
        lastTimestamp=_stamp(1), source={"component": "kubelet", "host": "node-1"},
    )  # fmt: skip
    try:
        yield {"namespace": ns, "conn": conn, "deployment": deployment, "pod": pod}
    finally:
        conn.close()


def _requests(stderr: str) -> list[str]:
    match = re.search(r"^Requests: \d+ \([^)]*\)$", stderr, re.M)
    assert match, stderr
    return [line.strip() for line in stderr[match.end() :].splitlines() if line.startswith("  ")]


def test_describe_lists_the_roots_and_pods_events_in_one_request(
    test_cluster: TestCluster, world: dict[str, Any]
) -> None:
    ns, kubeconfig = world["namespace"], str(test_cluster.kubeconfig_path)
    args = ["describe", "deployment/web", "-n", ns, "--kubeconfig", kubeconfig]
    result = CliRunner().invoke(cli, args, env={"WMAP_DEBUG_REQUESTS": "1"}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    section = result.stdout[result.stdout.index("\nEvents:\n") :].strip().splitlines()
    assert [line.split()[:2] for line in section[3:]] == [["Normal", "ScalingReplicaSet"], ["Warning", "BackOff"]]
    assert re.search(
        rf"^  Warning +BackOff +\d+s \(x3 over 5m\d*s?\) +kubelet, node-1 +pod/{POD} +Back-off", section[-1]
    )
    events = [line for line in _requests(result.stderr) if "/events?" in line]
    assert len(events) == 1 and events[0].startswith(f"LIST /api/v1/namespaces/{ns}/events"), events

    result = CliRunner().invoke(
        cli, [*args, "--show-events=false"], env={"WMAP_DEBUG_REQUESTS": "1"}, catch_exceptions=False
    )
    assert result.exit_code == 0 and "Events:" not in result.stdout
    assert not [line for line in _requests(result.stderr) if "/events?" in line]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _workload(base: str, namespace: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/api/v1/workloads/{namespace}/deployment/web", timeout=10) as response:
        document: dict[str, Any] = json.loads(response.read())
    return document


def test_the_served_workload_follows_its_events(
    test_cluster: TestCluster, world: dict[str, Any], tmp_path: Path
) -> None:
    ns, conn = world["namespace"], world["conn"]
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    command = [*WMAP, "serve", "--port", str(port), "-n", ns, "--kubeconfig", str(test_cluster.kubeconfig_path)]
    with (tmp_path / "serve.log").open("w") as err:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
    try:

        def reasons() -> list[tuple[str, str, int]]:
            events = _workload(base, ns)["events"]
            return [(e["object"]["kind"], e["reason"], e["count"]) for e in events]

        first = [("Deployment", "ScalingReplicaSet", 1), ("Pod", "BackOff", 3)]
        eventually(lambda: reasons() == first, timeout=60, what="the events served", retry_on=(OSError, KeyError))
        served = _workload(base, ns)["events"][-1]
        assert served["type"] == "Warning" and served["from"] == "kubelet, node-1"
        assert served["object"] == {"kind": "Pod", "name": POD, "namespace": ns}

        # the repeat counted again, a new event on the other pod: both arrive by watch
        backoff = conn.get(f"/api/v1/namespaces/{ns}/events/web.backoff")
        conn.request(
            "PATCH",
            f"/api/v1/namespaces/{ns}/events/web.backoff",
            body={"count": 4, "lastTimestamp": _stamp(0)},
            content_type="application/merge-patch+json",
        )
        other = conn.get(f"/api/v1/namespaces/{ns}/pods/web-5d9f7c-00000")
        other.update(apiVersion="v1", kind="Pod")
        _event(conn, ns, other, "web.pulled", type="Normal", reason="Pulled", message="pulled", count=1,
               firstTimestamp=_stamp(0), lastTimestamp=_stamp(0), source={"component": "kubelet"})  # fmt: skip
        eventually(
            lambda: (
                sorted(reasons())
                == [("Deployment", "ScalingReplicaSet", 1), ("Pod", "BackOff", 4), ("Pod", "Pulled", 1)]
            ),
            timeout=60,
            what=f"the watched events (was {backoff['count']})",
        )

        # the pod goes away: so do its events
        conn.request("DELETE", f"/api/v1/namespaces/{ns}/pods/{POD}", {"gracePeriodSeconds": 0})
        eventually(
            lambda: ("Pod", "BackOff", 4) not in reasons() and ("Deployment", "ScalingReplicaSet", 1) in reasons(),
            timeout=60,
            what="the deleted pod's events dropped",
        )
    finally:
        proc.terminate()
        proc.wait(timeout=20)
