"""KAI and Volcano queues read live from the genuine API server (docs/queues.md).

KAI Scheduler's Queue and PodGroup CRDs are the corpus copies (read in place); Volcano's Queue CRD is our own,
written from Volcano's documentation (tests/live/data/volcano-queues.crd.yaml). Objects are built from the
schedulers' documentation: a KAI department queue over a team queue (quota, limit and over-quota weight in
KAI's units), a Job with a bound pod in it, a Job KAI did not schedule with the PodGroup condition KAI
writes, Volcano queues with weight, deserved, capability, guarantee and a parent. Kueue is not installed
here: reading its kinds is not even tried, and nothing fails.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from tests.browser.support import serve
from tests.cluster.apiserver import TestCluster
from tests.live.fleet_data import write_kubeconfig
from tests.live.live_data import (
    CORPUS,
    LIVE_DIR,
    admin,
    create,
    create_namespace,
    eventually,
    owner_ref,
    pod,
    set_pod_running,
)
from tests.live.test_security_live import _cli_user

import workload_map as wm

NAMESPACE = "live-queues"
WMAP = str(Path(sys.executable).with_name("wmap"))
KAI_CRDS = [CORPUS / "kai-scheduler" / "crd" / f"scheduling.run.ai_{plural}.yaml" for plural in ("podgroups", "queues")]
VOLCANO_QUEUE_CRD = LIVE_DIR / "data" / "volcano-queues.crd.yaml"


def _job(name: str, labels: dict[str, str], gpus: int) -> dict[str, Any]:
    container = {
        "name": "main",
        "image": "busybox",
        "resources": {"requests": {"nvidia.com/gpu": str(gpus)}, "limits": {"nvidia.com/gpu": str(gpus)}},
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels},
        "spec": {
            "parallelism": 1,
            "completions": 1,
            "template": {"metadata": {"labels": labels}, "spec": {"restartPolicy": "Never", "containers": [container]}},
        },
    }


def _status(conn: Any, path: str, status: dict[str, Any]) -> None:
    conn.request("PATCH", path + "/status", body={"status": status}, content_type="application/merge-patch+json")


@pytest.fixture(scope="module")
def cluster(test_cluster: TestCluster) -> Iterator[TestCluster]:
    for crd in (*KAI_CRDS, VOLCANO_QUEUE_CRD):
        proc = test_cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(crd))
        assert proc.returncode == 0, proc.stderr
    for name in ("podgroups.scheduling.run.ai", "queues.scheduling.run.ai", "queues.scheduling.volcano.sh"):
        proc = test_cluster.kubectl("wait", "--for=condition=Established", f"crd/{name}", "--timeout=60s")
        assert proc.returncode == 0, proc.stderr
    conn = admin(test_cluster)
    try:
        for path in ("/apis/scheduling.run.ai/v2/queues", "/apis/scheduling.volcano.sh/v1beta1/queues"):
            eventually(lambda path=path: conn.get(path, {"limit": 1}) is not None, what=path)
        create_namespace(conn, NAMESPACE)
        kai = "scheduling.run.ai/v2"
        create(
            conn,
            {
                "apiVersion": kai,
                "kind": "Queue",
                "metadata": {"name": "live-department"},
                "spec": {"resources": {"gpu": {"quota": 16, "limit": -1, "overQuotaWeight": 1}}},
            },
            "queues",
            None,
        )
        create(
            conn,
            {
                "apiVersion": kai,
                "kind": "Queue",
                "metadata": {"name": "live-team"},
                "spec": {
                    "parentQueue": "live-department",
                    "resources": {
                        "gpu": {"quota": 2, "limit": 6, "overQuotaWeight": 2},
                        "cpu": {"quota": 4000, "limit": -1, "overQuotaWeight": 1},
                        "memory": {"quota": 16000, "limit": -1, "overQuotaWeight": 1},
                    },
                },
            },
            "queues",
            None,
        )
        _status(conn, "/apis/scheduling.run.ai/v2/queues/live-team", {"allocated": {"nvidia.com/gpu": "4"}})
        running = create(conn, _job("trainer", {"kai.scheduler/queue": "live-team"}, 4), "jobs", NAMESPACE)
        create(
            conn, pod("trainer-0", NAMESPACE, running["spec"]["template"], {}, running, node="gpu-0"), "pods", NAMESPACE
        )
        set_pod_running(conn, NAMESPACE, "trainer-0")
        waiting = create(conn, _job("waiter", {}, 8), "jobs", NAMESPACE)
        create(
            conn,
            {
                "apiVersion": "scheduling.run.ai/v2alpha2",
                "kind": "PodGroup",
                "metadata": {"name": "pg-waiter", "namespace": NAMESPACE, "ownerReferences": [owner_ref(waiting)]},
                "spec": {"queue": "live-team", "minMember": 1},
            },
            "podgroups",
            NAMESPACE,
        )
        _status(
            conn,
            f"/apis/scheduling.run.ai/v2alpha2/namespaces/{NAMESPACE}/podgroups/pg-waiter",
            {
                "schedulingConditions": [
                    {
                        "type": "UnschedulableOnNodePool",
                        "nodePool": "default",
                        "reason": "OverLimit",
                        "message": "queue live-team: requested 8 GPUs over its limit of 6",
                        "transitionID": "0",
                        "lastTransitionTime": "2026-01-01T00:00:00Z",
                    }
                ]
            },
        )
        volcano = "scheduling.volcano.sh/v1beta1"
        create(
            conn,
            {"apiVersion": volcano, "kind": "Queue", "metadata": {"name": "live-vroot"}, "spec": {"weight": 1}},
            "queues",
            None,
        )
        create(
            conn,
            {
                "apiVersion": volcano,
                "kind": "Queue",
                "metadata": {"name": "live-vq"},
                "spec": {
                    "weight": 3,
                    "parent": "live-vroot",
                    "reclaimable": True,
                    "deserved": {"nvidia.com/gpu": "4", "cpu": "16"},
                    "capability": {"nvidia.com/gpu": "8"},
                    "guarantee": {"resource": {"nvidia.com/gpu": "2"}},
                },
            },
            "queues",
            None,
        )
        _status(conn, "/apis/scheduling.volcano.sh/v1beta1/queues/live-vq", {"state": "Open", "pending": 0})
    finally:
        conn.close()
    yield test_cluster


@pytest.fixture(scope="module")
def report(cluster: TestCluster) -> wm.QueueReport:
    with wm.open_cluster(kubeconfig=str(cluster.kubeconfig_path), all_namespaces=True, queues=True) as view:
        return view.queues()


def test_kai_queues_read_live(report: wm.QueueReport) -> None:
    team = report.queue("kai/Queue/live-team")
    assert team is not None and team.parent == "kai/Queue/live-department"
    assert "kai/Queue/live-team" in report.queue("kai/Queue/live-department").children  # type: ignore[union-attr]
    gpu = team.resource("nvidia.com/gpu")
    assert (gpu.quota, gpu.limit, gpu.over_quota_weight, gpu.reported_used) == (2, 6, 2, 4)
    assert team.resource("cpu").quota == 4 and team.resource("memory").quota == 16 * 10**9
    # The trainer's bound pod holds 4 GPUs: 2 over the queue's quota of 2; the waiter asks for 8.
    assert team.to_json()["gpus"] == {"quota": 2, "limit": 6, "used": 4, "borrowed": 2, "inUse": 4, "waiting": 8}


def test_kai_workloads_read_live(report: wm.QueueReport) -> None:
    trainer = report.workload(NAMESPACE, "Job", "trainer")
    waiter = report.workload(NAMESPACE, "Job", "waiter")
    assert trainer is not None and (trainer.queue, trainer.state) == ("live-team", "Admitted")
    assert waiter is not None
    assert (waiter.queue, waiter.state, waiter.reason) == ("live-team", "Pending", "OverLimit")
    assert waiter.message == "queue live-team: requested 8 GPUs over its limit of 6"
    assert waiter.scheduler_object == "podgroup.scheduling.run.ai/pg-waiter"


def test_get_shows_the_queue_only_a_podgroup_names_live(cluster: TestCluster) -> None:
    """`get -o wide` and `--queue` read the PodGroups too: the waiter, which only its PodGroup puts in
    live-team, is in it as `wmap queues` says."""
    kubeconfig = ["-n", NAMESPACE, "--kubeconfig", str(cluster.kubeconfig_path)]
    wide = subprocess.run(
        [WMAP, "get", "job", "-o", "wide", *kubeconfig], capture_output=True, text=True, timeout=120, check=False
    )
    assert wide.returncode == 0, wide.stderr
    header, *rows = wide.stdout.splitlines()
    assert header.split()[-1] == "QUEUE"
    assert {row.split()[0]: row.split()[-1] for row in rows} == {"trainer": "live-team", "waiter": "live-team"}
    named = subprocess.run(
        [WMAP, "get", "job", "--queue", "live-team", "-o", "name", *kubeconfig],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert named.stdout.split() == ["job.batch/trainer", "job.batch/waiter"], named.stderr


def test_volcano_queues_read_live(report: wm.QueueReport) -> None:
    queue = report.queue("volcano/Queue/live-vq")
    assert queue is not None and queue.parent == "volcano/Queue/live-vroot" and queue.weight == 3
    assert queue.state == "Open"
    gpu = queue.resource("nvidia.com/gpu")
    assert (gpu.quota, gpu.limit, gpu.guarantee) == (4, 8, 2)
    assert queue.resource("cpu").quota == 16


def test_kueue_not_served_is_not_read_and_no_warning(cluster: TestCluster, report: wm.QueueReport) -> None:
    assert not [q for q in report.queues if q.scheduler == "kueue"]
    with wm.open_cluster(kubeconfig=str(cluster.kubeconfig_path), all_namespaces=True, queues=True) as view:
        assert not [w for w in view.warnings if "kueue" in w]
        listed = {r.resource.display for r in view.live_source.lists}  # type: ignore[union-attr]
    assert {"queues.scheduling.run.ai", "podgroups.scheduling.run.ai", "queues.scheduling.volcano.sh"} <= listed
    assert not [r for r in listed if r.endswith("kueue.x-k8s.io")]


def test_view_without_queues_says_how(cluster: TestCluster) -> None:
    with (
        wm.open_cluster(kubeconfig=str(cluster.kubeconfig_path), namespace=NAMESPACE) as view,
        pytest.raises(wm.WorkloadMapError, match="without the queue objects") as caught,
    ):
        view.queues()
    assert "queues=True" in (caught.value.hint or "")


def test_cli_queues_live_equals_library(cluster: TestCluster, report: wm.QueueReport) -> None:
    proc = subprocess.run(
        [WMAP, "queues", "-o", "json", "--kubeconfig", str(cluster.kubeconfig_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    ours = {
        q["key"]: q for q in report.to_json()["queues"] if q["key"].startswith(("kai/Queue/live", "volcano/Queue/live"))
    }
    assert {q["key"]: q for q in document["queues"] if q["key"] in ours} == ours
    table = subprocess.run(
        [WMAP, "queues", "live-department", "--workloads", "--kubeconfig", str(cluster.kubeconfig_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "└─ live-team" in table.stdout and "OverLimit: queue live-team" in table.stdout, table.stdout


def test_snapshot_holds_the_queues(cluster: TestCluster, tmp_path: Path) -> None:
    """`wmap snapshot` writes the served queue kinds: `wmap queues --from-file` answers as live."""
    dump = tmp_path / "cluster.json"
    kubeconfig = ["--kubeconfig", str(cluster.kubeconfig_path)]
    wrote = subprocess.run(
        [WMAP, "snapshot", "-A", "-o", str(dump), *kubeconfig], capture_output=True, text=True, timeout=120, check=False
    )
    assert wrote.returncode == 0, wrote.stderr
    live = subprocess.run(
        [WMAP, "queues", "-o", "json", *kubeconfig], capture_output=True, text=True, timeout=120, check=False
    )
    offline = subprocess.run(
        [WMAP, "queues", "-o", "json", "--from-file", str(dump)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert offline.returncode == 0, offline.stderr
    mine = ("kai/Queue/live", "volcano/Queue/live")
    assert [q for q in json.loads(offline.stdout)["queues"] if q["key"].startswith(mine)] == [
        q for q in json.loads(live.stdout)["queues"] if q["key"].startswith(mine)
    ]


def test_fleet_queues(cluster: TestCluster, tmp_path: Path) -> None:
    """Over a fleet (two contexts, here of one API server), each cluster's report with its name: the library's
    Fleet.queues and `wmap queues --context ... --context ...` (a List, a CLUSTER column)."""

    kubeconfig = str(write_kubeconfig(tmp_path / "kubeconfig", {"one": cluster, "two": cluster}))
    with wm.open_fleet(contexts=["one", "two"], kubeconfig=kubeconfig, all_namespaces=True, queues=True) as fleet:
        reports = fleet.queues()
    assert list(reports) == ["one", "two"]
    assert reports["one"].to_json()["queues"] == reports["two"].to_json()["queues"]
    argv = [WMAP, "queues", "--context", "one", "--context", "two", "--kubeconfig", kubeconfig]
    listing = subprocess.run([*argv, "-o", "json"], capture_output=True, text=True, timeout=120, check=False)
    assert listing.returncode == 0, listing.stderr
    items = json.loads(listing.stdout)["items"]
    assert [i["cluster"] for i in items] == ["one", "two"]
    assert items[0]["queues"] == reports["one"].to_json()["queues"]
    table = subprocess.run([*argv, "live-department"], capture_output=True, text=True, timeout=120, check=False)
    lines = table.stdout.splitlines()
    assert lines[0].split()[:2] == ["CLUSTER", "SCHEDULER"]
    assert [line.split()[0] for line in lines[1:]] == ["one", "one", "two", "two"], table.stdout


def test_queues_under_the_role_wmap_auth_prints(cluster: TestCluster, tmp_path: Path) -> None:
    """`wmap queues -n NS` under exactly the roles of `wmap auth -n NS --queues` reads everything it needs;
    under the read-only roles alone each refused queue kind is one warning saying so, and it still answers."""

    granted = _cli_user(cluster, NAMESPACE, "wmap-queues", tmp_path, "--queues")
    plain = _cli_user(cluster, NAMESPACE, "wmap-plain", tmp_path)
    argv = [WMAP, "queues", "-n", NAMESPACE, "--workloads"]
    try:
        ok = subprocess.run(
            [*argv, "--kubeconfig", str(granted)], capture_output=True, text=True, timeout=120, check=False
        )
        assert ok.returncode == 0 and "forbidden" not in ok.stderr.lower(), ok.stderr
        assert "OverLimit: queue live-team" in ok.stdout, ok.stdout
        refused = subprocess.run(
            [*argv, "--kubeconfig", str(plain)], capture_output=True, text=True, timeout=120, check=False
        )
        assert refused.returncode == 0, refused.stderr
        said = [line for line in refused.stderr.splitlines() if "queues are shown without them" in line]
        assert len(said) >= 2 and any("queues.scheduling.run.ai" in line for line in said), refused.stderr
        assert len(said) == len(set(said)), refused.stderr  # each once
        # The report says it too (what /api/v1/queues serves).
        with wm.open_cluster(kubeconfig=str(plain), namespace=NAMESPACE, queues=True) as view:
            report = view.queues()
        assert any("queues.scheduling.run.ai" in line for line in report.warnings), report.warnings
    finally:
        for name in ("wmap-queues", "wmap-plain"):
            cluster.kubectl("delete", "clusterrolebinding", f"{name}-{NAMESPACE}")
            cluster.kubectl("delete", "clusterrole", f"{name}-definitions")


def _served_queues(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(base + "/api/v1/queues", timeout=10) as answer:
        (row,) = json.load(answer)["clusters"]
    return dict(row)


def _series(base: str, name: str, **labels: str) -> list[float]:
    """The values of ``name``'s samples that carry ``labels`` (and any others)."""
    with urllib.request.urlopen(base + "/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return [
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name and labels.items() <= sample.labels.items()
    ]


def test_serve_reads_the_queues_live(cluster: TestCluster) -> None:
    """`wmap serve` against the cluster: /api/v1/queues carries the live report from its first answer (the
    queue kinds are read with the workloads, through the command's connection flags)."""

    with serve("--kubeconfig", str(cluster.kubeconfig_path), "--capacity-interval=0") as base:
        row = _served_queues(base)
    assert row["queues"] is not None and row["stale"] == [], row
    team = next(q for q in row["queues"] if q["key"] == "kai/Queue/live-team")
    assert team["gpus"]["quota"] == 2 and team["gpus"]["waiting"] == 8


def test_serve_follows_a_quota_change_by_its_watch(cluster: TestCluster) -> None:
    """A KAI queue's quota changed while `wmap serve` runs reaches /api/v1/queues and the wmap_queue_quota
    series as a watch event of queues.scheduling.run.ai: nothing reads the cluster again."""

    conn = admin(cluster)
    path = "/apis/scheduling.run.ai/v2/queues/live-team"

    def quota(gpus: int) -> None:
        patch = {"spec": {"resources": {"gpu": {"quota": gpus, "limit": 6, "overQuotaWeight": 2}}}}
        conn.request("PATCH", path, body=patch, content_type="application/merge-patch+json")

    def team(base: str) -> dict[str, Any]:
        return next(q for q in _served_queues(base)["queues"] if q["key"] == "kai/Queue/live-team")

    queues = {"resource": "queues.scheduling.run.ai"}
    series = {"scheduler": "kai", "queue": "live-team", "resource": "nvidia.com/gpu"}
    try:
        with serve("--kubeconfig", str(cluster.kubeconfig_path), "--capacity-interval=0") as base:
            assert team(base)["gpus"]["quota"] == 2
            assert _series(base, "wmap_queue_quota", **series) == [2]
            assert sum(_series(base, "wmap_watch_events_total", **queues, type="MODIFIED")) == 0
            quota(3)
            eventually(lambda: team(base)["gpus"]["quota"] == 3, timeout=60, what="the new quota in /api/v1/queues")
            assert _series(base, "wmap_queue_quota", **series) == [3]
            assert sum(_series(base, "wmap_watch_events_total", **queues, type="MODIFIED")) >= 1
            assert sum(_series(base, "wmap_watch_relists_total", **queues)) == 0  # a watch event, no new list
    finally:
        quota(2)
        conn.close()
