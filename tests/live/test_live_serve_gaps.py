"""`wmap serve` when it cannot see everything: the genuine apiserver (API Priority and Fairness on), users
with real RBAC limits, a real `wmap serve` process read over HTTP (/readyz, /metrics, /api/v1).

The live model tracks gaps as `wmap get` does (docs/metrics.md, "What cannot be read"): a forbidden kind is
reported and the rest served, its parts are no phantom workloads, unknown counts are absent series (never
zeros, never NaN), a permission granted later is picked up without a restart, a removed CRD leaves its
pods counted in a gap, throttling at start is waited out, and a frozen apiserver makes /readyz fail.
"""

from __future__ import annotations

import json
import math
import re
import secrets
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
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
    kubectl_apply,
    lws_scenario,
    user_cluster_role,
)
from test_live_faults import _rejected, _seats_held, throttled  # noqa: F401 - a fixture, used by name
from tests.browser.support import browser_page, screenshot
from tests.cluster.apiserver import TestCluster

from workload_map.live.model import LiveModel
from workload_map.sources.kube import LiveOptions

pytestmark = pytest.mark.live

WMAP = (sys.executable, "-m", "workload_map.cli.main")
READ = ["get", "list", "watch"]
JOBSETS = "jobsets.jobset.x-k8s.io"
LWS = "leaderworkersets.leaderworkerset.x-k8s.io"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status), bytes(response.read())
    except urllib.error.HTTPError as exc:
        return int(exc.code), bytes(exc.read())


class Serve:
    """A `wmap serve` process; its stderr is kept in a file."""

    def __init__(self, proc: subprocess.Popen[bytes], base: str, log: Path) -> None:
        self.proc, self.base, self.log = proc, base, log

    def readyz(self) -> tuple[int, str]:
        code, body = _get(self.base + "/readyz")
        return code, body.decode().strip()

    def api(self, path: str) -> Any:
        code, body = _get(self.base + "/api/v1/" + path)
        assert code == 200, (path, code, body)
        return json.loads(body)

    def metrics(self) -> dict[str, list[tuple[dict[str, str], float]]]:
        code, body = _get(self.base + "/metrics")
        assert code == 200
        text = body.decode()
        assert "NaN" not in text
        out: dict[str, list[tuple[dict[str, str], float]]] = {}
        for line in text.splitlines():
            if not line or line.startswith("#"):
                continue
            m = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)", line)
            assert m, line
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
            value = float(m.group(3))
            assert not math.isnan(value), line
            out.setdefault(m.group(1), []).append((labels, value))
        return out

    def warnings(self) -> list[str]:
        return [line for line in self.log.read_text().splitlines() if line.startswith("Warning:")]


@contextmanager
def serving(kubeconfig: Path, tmp: Path, *, ready_timeout: float = 90) -> Iterator[Serve]:
    port = _free_port()
    log = tmp / f"serve-{port}.log"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [*WMAP, "serve", "--port", str(port), "--kubeconfig", str(kubeconfig)],
            stdout=subprocess.DEVNULL,
            stderr=err,
            stdin=subprocess.DEVNULL,
        )
    serve = Serve(proc, f"http://127.0.0.1:{port}", log)
    try:
        eventually(
            lambda: proc.poll() is None and serve.readyz()[0] == 200,
            timeout=ready_timeout,
            what=f"wmap serve ready ({log.read_text()[-2000:]})",
            retry_on=(OSError,),
            interval=0.3,
        )
        yield serve
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _kubeconfig(cluster: TestCluster, tmp: Path, user: str) -> Path:
    return cluster.kubeconfig_for(cluster.token_for(user), tmp / f"{user}.kubeconfig", user=user)


def _wmap_get(kubeconfig: Path, namespace: str) -> dict[tuple[str, str], dict[str, Any]]:
    proc = subprocess.run(
        [*WMAP, "get", "-n", namespace, "-o", "json", "--kubeconfig", str(kubeconfig), "--timeout", "60s"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode in (0, 5), proc.stderr
    document = json.loads(proc.stdout)
    trees = document["items"] if document.get("kind") == "List" else [document]
    return {(t["workload"]["kind"], t["workload"]["name"]): t for t in trees}


def _rows(serve: Serve, namespace: str) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["kind"], r["name"]): r for r in serve.api(f"workloads?namespace={namespace}")["items"]}


def _series(
    metrics: dict[str, list[tuple[dict[str, str], float]]], name: str, **match: str
) -> list[tuple[dict[str, str], float]]:
    return [(labels, v) for labels, v in metrics.get(name, []) if all(labels.get(k) == x for k, x in match.items())]


@pytest.fixture(scope="module")
def world(test_cluster: TestCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One namespace: a JobSet and a Deployment. ``wmap-serve-no-kind`` may read all but JobSets,
    ``wmap-serve-no-pods`` all but pods."""
    ensure_crds(test_cluster, JOBSETS, LWS)
    conn = admin(test_cluster)
    ns = create_namespace(conn, f"serve-gaps-{secrets.token_hex(3)}")
    jobset_scenario(conn, ns)
    deployment_scenario(conn, ns, name="web", replicas=3)
    conn.close()
    groups = ["apps", "batch", "leaderworkerset.x-k8s.io", "run.ai", "apiextensions.k8s.io"]
    kubectl_apply(
        test_cluster,
        *user_cluster_role(
            "wmap-serve-no-kind",
            [
                {"apiGroups": [""], "resources": ["pods", "namespaces"], "verbs": READ},
                {"apiGroups": groups, "resources": ["*"], "verbs": READ},
            ],
            "wmap-serve-no-kind",
        ),
        *user_cluster_role(
            "wmap-serve-no-pods",
            [
                {"apiGroups": [""], "resources": ["namespaces"], "verbs": READ},
                {"apiGroups": [*groups, "jobset.x-k8s.io"], "resources": ["*"], "verbs": READ},
            ],
            "wmap-serve-no-pods",
        ),
    )
    tmp = tmp_path_factory.mktemp("serve-gaps")
    yield {
        "namespace": ns,
        "tmp": tmp,
        "no-kind": _kubeconfig(test_cluster, tmp, "wmap-serve-no-kind"),
        "no-pods": _kubeconfig(test_cluster, tmp, "wmap-serve-no-pods"),
    }
    test_cluster.kubectl("delete", "clusterrolebinding,clusterrole", "wmap-serve-jobsets", "--ignore-not-found")


def test_a_forbidden_kind_is_reported_the_rest_served_then_recovered(
    test_cluster: TestCluster, world: dict[str, Any]
) -> None:
    ns, tmp = world["namespace"], world["tmp"]
    admin_view = _wmap_get(test_cluster.kubeconfig_path, ns)
    assert ("JobSet", "paralleljobs") in admin_view
    with serving(world["no-kind"], tmp) as serve:
        code, body = serve.readyz()
        assert code == 200 and body.startswith("ready, partial: "), body
        assert f"user 'wmap-serve-no-kind' may not list {JOBSETS}" in body
        rows = _rows(serve, ns)
        # the rest served: exactly what an admin sees but the JobSet, and no Job or Pod rows of its parts
        assert set(rows) == set(admin_view) - {("JobSet", "paralleljobs")}, rows
        assert rows[("Deployment", "web")]["pods"]["desired"] == 3
        assert rows[("Deployment", "web")]["incomplete"] == []
        cli = _wmap_get(world["no-kind"], ns)  # the CLI under the same user says the same
        assert set(cli) == set(rows)
        coverage = serve.api("workloads")["coverage"]
        assert not coverage["complete"]
        gaps = {g["resource"]: g for g in coverage["gaps"]}
        assert set(gaps) == {JOBSETS}, gaps
        assert gaps[JOBSETS]["cause"] == "forbidden" and gaps[JOBSETS]["objects"] >= 6  # its Jobs and pods here
        assert f"grant list on {JOBSETS}" in gaps[JOBSETS]["fix"]
        metrics = serve.metrics()
        assert _series(metrics, "wmap_coverage_gap", resource=JOBSETS) == [
            ({"cluster": "wmap-test", "resource": JOBSETS, "namespace": "", "cause": "forbidden"}, 1.0)
        ]
        assert _series(metrics, "wmap_watch_resource_readable", resource=JOBSETS)[0][1] == 0
        kinds = {labels["workload_kind"] for labels, _ in _series(metrics, "wmap_workload_info", namespace=ns)}
        assert kinds == {"Deployment"}
        lines = [w for w in serve.warnings() if JOBSETS in w]
        assert len(lines) == 1 and "not shown as workloads" in lines[0], serve.warnings()
        status = serve.api("status")
        assert status["ready"] and status["apiserver"]["answering"]

        # Granted while serving: the retry loop lists JobSets again, the gap closes, the JobSet is a row.
        kubectl_apply(
            test_cluster,
            *user_cluster_role(
                "wmap-serve-jobsets",
                [{"apiGroups": ["jobset.x-k8s.io"], "resources": ["jobsets"], "verbs": READ}],
                "wmap-serve-no-kind",
            ),
        )

        def recovered() -> bool:
            assert serve.readyz() == (200, "ready")
            assert set(_rows(serve, ns)) == set(admin_view)
            return True

        try:
            eventually(recovered, timeout=90, what="the JobSet served once list is granted", interval=1)
            metrics = serve.metrics()
            assert _series(metrics, "wmap_coverage_gap") == []
            assert _series(metrics, "wmap_watch_resource_readable", resource=JOBSETS)[0][1] == 1
            assert serve.api("workloads")["coverage"] == {"complete": True, "gaps": [], "warnings": []}
            back = [w for w in serve.warnings() if JOBSETS in w and "can be read again" in w]
            assert len(back) == 1, serve.warnings()  # said once on stderr
        finally:
            test_cluster.kubectl("delete", "clusterrolebinding,clusterrole", "wmap-serve-jobsets", "--ignore-not-found")


def test_forbidden_pods_are_unknown_not_zero(world: dict[str, Any]) -> None:
    ns = world["namespace"]
    with serving(world["no-pods"], world["tmp"]) as serve:
        rows = _rows(serve, ns)
        assert set(rows) == {("JobSet", "paralleljobs"), ("Deployment", "web")}, rows
        web = rows[("Deployment", "web")]
        assert web["pods"] == {
            "ready": None,
            "desired": 3,
            "notReady": None,
            "pending": None,
            "failed": None,
            "running": None,
        }
        assert web["gpusInUse"] is None
        assert web["incomplete"] == ["user 'wmap-serve-no-pods' may not list pods cluster-wide"]
        metrics = serve.metrics()
        web_pods = _series(metrics, "wmap_workload_pods", namespace=ns, workload="web")
        assert {labels["state"] for labels, _ in web_pods} == {"desired"}  # no zeros for what is unknown
        assert _series(metrics, "wmap_workload_gpus_in_use", namespace=ns) == []
        assert _series(metrics, "wmap_pod_workload", namespace=ns) == []
        incomplete = _series(metrics, "wmap_workload_incomplete", namespace=ns)
        assert {(labels["workload"], labels["resource"]) for labels, _ in incomplete} == {
            ("paralleljobs", "pods"),
            ("web", "pods"),
        }
        assert _series(metrics, "wmap_coverage_gap", resource="pods")[0][0]["cause"] == "forbidden"
        code, body = serve.readyz()
        assert code == 200 and "may not list pods" in body
        # (the pods, not a scheduler's podgroups, which this user may not list either when they are served; the
        # user, wmap-serve-no-pods, may not read events either: that is said on a line of its own)
        lines = [w for w in serve.warnings() if "may not list pods " in w]
        assert len(lines) == 1 and "pod counts of the workloads there are unknown" in lines[0], serve.warnings()
        events = [w for w in serve.warnings() if "watch of events cannot be read" in w]
        assert len(events) == 1 and "workloads are shown without events" in events[0], serve.warnings()


def test_a_removed_crd_leaves_its_parts_in_a_gap(test_cluster: TestCluster, world: dict[str, Any]) -> None:
    """The LWS CRD is deleted while serving (its objects go with it, the StatefulSets and pods it made stay:
    no controller manager here); the parts are counted in a gap, not promoted to workloads."""
    conn = admin(test_cluster)
    ns = create_namespace(conn, f"serve-crd-{secrets.token_hex(3)}")
    lws_scenario(conn, ns)
    deployment_scenario(conn, ns, name="web", replicas=2)
    conn.close()
    with serving(test_cluster.kubeconfig_path, world["tmp"]) as serve:
        assert set(_rows(serve, ns)) == {("LeaderWorkerSet", "vllm"), ("Deployment", "web")}
        assert test_cluster.kubectl("delete", "crd", LWS).returncode == 0
        try:

            def in_a_gap() -> bool:
                assert set(_rows(serve, ns)) == {("Deployment", "web")}
                gaps = {g["resource"]: g for g in serve.api("workloads")["coverage"]["gaps"]}
                assert gaps[LWS]["cause"] == "not served" and gaps[LWS]["objects"] > 0, gaps
                return True

            eventually(in_a_gap, timeout=60, what="the LWS parts in a gap", interval=0.5)
            metrics = serve.metrics()
            assert _series(metrics, "wmap_coverage_gap", resource=LWS)[0][0]["cause"] == "not served"
            kinds = {labels["workload_kind"] for labels, _ in _series(metrics, "wmap_workload_info", namespace=ns)}
            assert kinds == {"Deployment"}  # no StatefulSet or Pod rows
            code, body = serve.readyz()
            assert code == 200 and f"does not serve {LWS}" in body
        finally:
            ensure_crds(test_cluster, LWS)


def test_throttling_at_start_is_waited_out(
    test_cluster: TestCluster,
    throttled: Path,  # noqa: F811 - the fixture of test_live_faults
    world: dict[str, Any],
) -> None:
    """Every request of the user is a genuine 429 with Retry-After while serve starts; released after the
    first rejection, serve becomes ready with the whole answer and nothing to warn about."""
    ns = world["namespace"]
    expected = _wmap_get(test_cluster.kubeconfig_path, ns)
    holding = _seats_held(test_cluster, ns)
    holding.__enter__()
    baseline = _rejected(test_cluster)

    def release_after_a_rejection() -> None:
        try:
            eventually(lambda: _rejected(test_cluster) > baseline, timeout=60, what="a rejected request")
        finally:
            holding.__exit__(None, None, None)

    release = threading.Thread(target=release_after_a_rejection)
    release.start()
    try:
        with serving(throttled, world["tmp"]) as serve:
            release.join()
            assert serve.readyz() == (200, "ready")
            assert set(_rows(serve, ns)) == set(expected)
            assert serve.api("workloads")["coverage"]["complete"]
            assert [w for w in serve.warnings() if "Karta" not in w] == []
    finally:
        release.join()


def test_a_frozen_apiserver_fails_readiness(test_cluster: TestCluster, world: dict[str, Any]) -> None:
    """SIGSTOP: /readyz fails, the metrics and the dashboard say the answer is not current, the last answer is
    still served; SIGCONT: ready again."""
    ns = world["namespace"]
    with serving(test_cluster.kubeconfig_path, world["tmp"]) as serve, browser_page() as page:
        assert ("Deployment", "web") in _rows(serve, ns)
        page.goto(serve.base + "/")
        page.wait_for_selector(f'#workloads tbody tr[data-path="{ns}/deployment.apps/web"]')
        with test_cluster.frozen_apiserver():

            def not_ready() -> bool:
                code, body = serve.readyz()
                assert code == 503 and "the API server has not answered" in body, body
                return True

            eventually(not_ready, timeout=60, what="readiness failing while frozen", interval=0.5)
            metrics = serve.metrics()
            assert _series(metrics, "wmap_apiserver_up")[0][1] == 0
            assert _series(metrics, "wmap_apiserver_last_contact_age_seconds")[0][1] >= 5
            assert _series(metrics, "wmap_model_ready")[0][1] == 0  # as /readyz: the answer may be stale
            assert ("Deployment", "web") in _rows(serve, ns)  # the last answer is still served, and said stale
            stale = serve.api(f"workloads?namespace={ns}")["stale"]
            assert stale and stale[0].startswith("the API server has not answered"), stale
            assert not serve.api("status")["apiserver"]["answering"]
            page.wait_for_function(
                "(document.getElementById('coverage') || {}).innerText?.includes('Not current')", timeout=30_000
            )
            assert "the API server has not answered" in page.inner_text("#coverage")
            screenshot(page, "dashboard-not-current")
        eventually(lambda: serve.readyz() == (200, "ready"), timeout=60, what="ready again after SIGCONT")
        assert _series(serve.metrics(), "wmap_apiserver_up")[0][1] == 1
        assert _series(serve.metrics(), "wmap_model_ready")[0][1] == 1
        assert serve.api("workloads")["stale"] == []
        page.wait_for_function("!document.getElementById('coverage')", timeout=30_000)


def test_the_dashboard_shows_what_it_cannot_see(world: dict[str, Any]) -> None:
    """Chromium on the dashboard of a model that may not read pods: a banner says so, counts read `?`."""
    ns = world["namespace"]
    with serving(world["no-pods"], world["tmp"]) as serve, browser_page() as page:
        page.goto(serve.base + "/")
        row = f'#workloads tbody tr[data-path="{ns}/deployment.apps/web"]'
        page.wait_for_selector(row)
        assert page.inner_text(row + ' td[data-col="pods"]') == "?/3"
        assert "(incomplete)" in page.inner_text(row)
        banner = page.inner_text("#coverage")
        assert "Partial view" in banner and "may not list pods cluster-wide" in banner, banner
        screenshot(page, "dashboard-partial")
        page.goto(serve.base + f"/#/w/{ns}/deployment.apps/web")
        page.wait_for_selector("#incomplete")
        assert page.inner_text("#pods-ready") == "?/3"
        assert "may not list pods" in page.inner_text("#coverage")


def test_nothing_readable_at_start_is_one_error(test_cluster: TestCluster) -> None:
    """A user who may list nothing cluster-wide: one error line and exit 1, as `wmap get -A`."""
    proc = subprocess.run(
        [*WMAP, "serve", "--port", "0", "--kubeconfig", str(test_cluster.restricted_kubeconfig_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 1, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith(f"error: Forbidden: user '{test_cluster.restricted_user}'")
    assert "cluster-wide" in errors[0] and "Traceback" not in proc.stderr


def test_a_permission_revoked_while_watching_opens_a_gap(test_cluster: TestCluster, world: dict[str, Any]) -> None:
    """List on JobSets granted at start, revoked while the model watches (the model's own watch timeout is
    short here: an open watch is not authorized again until it is reopened), granted again."""

    ns = world["namespace"]
    grant = user_cluster_role(
        "wmap-serve-jobsets",
        [{"apiGroups": ["jobset.x-k8s.io"], "resources": ["jobsets"], "verbs": READ}],
        "wmap-serve-no-kind",
    )

    def kinds() -> set[str]:
        return {r.tree.kind for r in model.workloads() if r.tree.namespace == ns}

    kubectl_apply(test_cluster, *grant)
    notices: list[str] = []
    model = LiveModel(
        LiveOptions(kubeconfig=str(world["no-kind"])), watch_seconds=2, probe_seconds=0, on_notice=notices.append
    )
    try:
        eventually(lambda: _wmap_get(world["no-kind"], ns).get(("JobSet", "paralleljobs")), what="list granted")
        model.start()
        assert kinds() == {"JobSet", "Deployment"} and model.gap_objects() == {}
        test_cluster.kubectl("delete", "clusterrolebinding,clusterrole", "wmap-serve-jobsets")

        def gap_opened() -> bool:
            assert kinds() == {"Deployment"}  # the JobSet left, and its Jobs and pods are no workloads
            gaps = model.gap_objects()
            assert [(g.resource, g.cause.value) for g in gaps] == [(JOBSETS, "forbidden")], gaps
            assert next(iter(gaps.values())) >= 6
            return True

        eventually(gap_opened, timeout=60, what="a gap once list is revoked", interval=0.5)
        lines = model.gap_warnings()
        assert len(lines) == 1 and "not shown as workloads" in lines[0], lines
        opened = eventually(  # notices are sent after the answer they announce is in place
            lambda: [n for n in notices if JOBSETS in n and "cannot be read" in n],
            timeout=10,
            what="a notice of the gap",
        )
        assert len(opened) == 1 and "user 'wmap-serve-no-kind' may not list" in opened[0], notices
        kubectl_apply(test_cluster, *grant)
        eventually(
            lambda: kinds() == {"JobSet", "Deployment"} and model.gap_objects() == {},
            timeout=90,
            what="the JobSet back once granted again",
            interval=0.5,
        )
        eventually(
            lambda: [n for n in notices if JOBSETS in n and "can be read again" in n],
            timeout=10,
            what="a notice that jobsets can be read again",
        )
    finally:
        model.stop()
        test_cluster.kubectl("delete", "clusterrolebinding,clusterrole", "wmap-serve-jobsets", "--ignore-not-found")


def test_permissions_revoked_while_serving_are_noticed_within_the_watch_timeout(
    test_cluster: TestCluster, world: dict[str, Any]
) -> None:
    """`wmap serve` as it runs (its own watch timeout): an open watch is authorized only when it is opened, so
    a revoked permission shows once the watch is reopened. JobSets revoked: a gap within a minute. Every
    permission revoked: not ready, and the empty answer is said to be stale, never served as a cluster
    without workloads."""
    ns, tmp = world["namespace"], world["tmp"]
    user = "wmap-serve-revoked"
    groups = ["apps", "batch", "leaderworkerset.x-k8s.io", "run.ai", "apiextensions.k8s.io"]
    rest = user_cluster_role(
        "wmap-serve-revoked-rest",
        [
            {"apiGroups": [""], "resources": ["pods", "namespaces"], "verbs": READ},
            {"apiGroups": groups, "resources": ["*"], "verbs": READ},
        ],
        user,
    )
    jobset_rules = [{"apiGroups": ["jobset.x-k8s.io"], "resources": ["jobsets"], "verbs": READ}]
    jobsets = user_cluster_role("wmap-serve-revoked-jobsets", jobset_rules, user)
    kubectl_apply(test_cluster, *rest, *jobsets)
    kubeconfig = _kubeconfig(test_cluster, tmp, user)
    try:
        eventually(lambda: _wmap_get(kubeconfig, ns).get(("JobSet", "paralleljobs")), what="list granted")
        with serving(kubeconfig, tmp) as serve:
            assert serve.readyz() == (200, "ready")
            assert ("JobSet", "paralleljobs") in _rows(serve, ns)
            test_cluster.kubectl("delete", "clusterrolebinding,clusterrole", "wmap-serve-revoked-jobsets")

            def gap_opened() -> bool:
                answer = serve.api(f"workloads?namespace={ns}")
                assert [g["resource"] for g in answer["coverage"]["gaps"]] == [JOBSETS], answer["coverage"]
                assert ("JobSet", "paralleljobs") not in {(r["kind"], r["name"]) for r in answer["items"]}
                return True

            eventually(gap_opened, timeout=50, what="a gap once list on jobsets is revoked", interval=0.5)
            code, body = serve.readyz()
            assert code == 200 and body.startswith("ready, partial: "), body
            test_cluster.kubectl("delete", "clusterrolebinding,clusterrole", "wmap-serve-revoked-rest")

            def not_ready() -> bool:
                code, body = serve.readyz()
                assert code == 503 and body.startswith("not ready: nothing can be read any more: "), body
                return True

            eventually(not_ready, timeout=50, what="not ready once every permission is revoked", interval=0.5)
            answer = serve.api("workloads")
            assert answer["items"] == [] and not answer["coverage"]["complete"]
            assert answer["stale"] and answer["stale"][0].startswith("nothing can be read any more: "), answer
            assert _series(serve.metrics(), "wmap_model_ready")[0][1] == 0
    finally:
        for name in ("wmap-serve-revoked-rest", "wmap-serve-revoked-jobsets"):
            test_cluster.kubectl("delete", "clusterrolebinding,clusterrole", name, "--ignore-not-found")
