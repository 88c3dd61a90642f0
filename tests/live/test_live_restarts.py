"""Long operations across API faults: the apiserver restarted during a paged list and during watches, a
token revoked in the middle of a run.

The module runs its own etcd + kube-apiserver (restarts would disturb the session cluster's other users).
A restart keeps etcd, so a continue token stays valid; the new apiserver's watch cache starts at the
current revision, so a watch reopened at an older resourceVersion gets a genuine ``410 Gone``. Tokens
are ServiceAccount tokens from the TokenRequest API, bound to their ServiceAccount: deleting it revokes
them at once, as a real cluster does.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from live_data import admin, create, create_namespace, deployment_scenario, eventually, set_pod_running
from test_live_serve_gaps import serving
from tests.cluster.apiserver import TestCluster
from tests.operator.support import CRD_FILE, OperatorProcess, free_port, webhook_configurations

from workload_map.catalog import builtin_definitions
from workload_map.cli.main import cli
from workload_map.live.model import LiveModel
from workload_map.serve import api
from workload_map.sources.kube import LiveOptions, live_source
from workload_map.sources.kube.connection import Connection
from workload_map.sources.kube.watch import watch_snapshots
from workload_map.tree.build import trees_of

pytestmark = pytest.mark.live

WMAP = Path(sys.executable).parent / "wmap"
SA_NAMESPACE = "wmap-sa"
KARTA_CRD_MISSING = "the Karta CRD (kartas.run.ai) is not installed"
# what the built-in catalog lists on this cluster (no CRDs): one watch each
RESOURCES = ("pods", "daemonsets", "deployments", "replicasets", "statefulsets", "cronjobs", "jobs")


@pytest.fixture(scope="module")
def cluster(testcluster_bin_dir: Path) -> Iterator[TestCluster]:
    own = TestCluster(testcluster_bin_dir)
    own.start()
    try:
        yield own
    finally:
        own.stop()


@pytest.fixture(scope="module")
def world(cluster: TestCluster) -> Iterator[dict[str, Any]]:
    conn = admin(cluster)
    ns = create_namespace(conn, "restarts")
    for name, replicas in (("api", 2), ("web", 3)):
        deployment_scenario(conn, ns, name=name, replicas=replicas)
    # deleted after the restart: one DELETED event (a pod's deletion is a MODIFIED then a DELETED, and a
    # relist sees only the second, so pods would make the count depend on timing)
    job = {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}
    cronjob = {"schedule": "0 0 * * *", "suspend": True, "jobTemplate": {"spec": job}}
    create(
        conn,
        {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"}, "spec": cronjob},
        "cronjobs",
        ns,
    )
    create_namespace(conn, SA_NAMESPACE)
    yield {"ns": ns, "conn": conn}
    conn.close()


def _keys(items: list[Any]) -> list[tuple[str, str, str]]:
    return [(t.namespace, t.kind, t.name) for t in items]


def _answer(cluster: TestCluster) -> dict[tuple[str, str, str], tuple[int, int, str]]:
    """``wmap get -A`` now, as (namespace, kind, name) -> (ready, desired, status)."""
    source = live_source(LiveOptions(kubeconfig=str(cluster.kubeconfig_path), all_namespaces=True))
    try:
        view = source.index()
        trees, _ = trees_of(view, view.workloads(None, None))
        return {
            (t.namespace, t.kind, t.name): (t.counts.ready, t.counts.desired, t.status.primary.value) for t in trees
        }
    finally:
        source.connection.close()


def _model_answer(model: LiveModel) -> dict[tuple[str, str, str], tuple[int, int, str]]:
    items = model.workloads()
    keys = _keys([i.tree for i in items])
    assert len(keys) == len(set(keys)), [k for k, n in Counter(keys).items() if n > 1]  # no duplicates
    return {
        (i.tree.namespace, i.tree.kind, i.tree.name): (
            i.tree.counts.ready,
            i.tree.counts.desired,
            i.tree.status.primary.value,
        )
        for i in items
    }


def _pod_count(conn: Connection) -> int:
    return len(conn.get("/api/v1/pods").get("items") or [])


# --------------------------------------------------------------------------- the live model


def _resources_in(lines: list[str]) -> int:
    """How many resources lines such as ``watches of pods, jobs.batch and 3 more failed ...`` name."""
    total = 0
    for line in lines:
        names = re.match(r"(?:Warning: )?watch(?:es)? of (.*?)(?: and (\d+) more)? (?:failed|listed|expired)", line)
        assert names, line
        total += len(names.group(1).split(", ")) + int(names.group(2) or 0)
    return total


def _events(model: LiveModel) -> dict[str, Counter[str]]:
    return {name: Counter(state.events) for name, state in model.resources.items()}


def _changes_after_restart(conn: Connection, ns: str, name: str) -> None:
    """Pods: 2 ADDED, 1 MODIFIED; a ReplicaSet and a Deployment ADDED; a CronJob DELETED."""
    deployment_scenario(conn, ns, name=name, replicas=2)
    set_pod_running(conn, ns, "web-5d9f7c-00001")
    conn.request("DELETE", f"/apis/batch/v1/namespaces/{ns}/cronjobs/nightly")


def test_model_resumes_after_a_restart(cluster: TestCluster, world: dict[str, Any]) -> None:
    """The apiserver restarted under a running model, changes made as soon as it is back: the model reaches
    the answer of a fresh read, each change counted once whether a watch or a relist brought it."""
    ns, conn = world["ns"], world["conn"]
    notices: list[str] = []
    model = LiveModel(LiveOptions(kubeconfig=str(cluster.kubeconfig_path)), on_notice=notices.append)
    model.start()
    try:
        assert _model_answer(model) == _answer(cluster)
        watched = {w.listed.resource.plural: w for w in model._watchers}
        before_versions = {plural: int(w.resource_version) for plural, w in watched.items()}
        before = _events(model)
        cluster.restart_apiserver()
        _changes_after_restart(conn, ns, "after")
        expected = _answer(cluster)
        assert expected[(ns, "Deployment", "after")][1] == 2
        eventually(lambda: _model_answer(model) == expected, timeout=120, what="the model to catch up")
        pods = model.resources["pods"]
        eventually(lambda: pods.objects == _pod_count(conn), timeout=60, what="the pod count")
        eventually(lambda: not model.problems(), timeout=60, what=f"every watch current: {model.problems()}")
        after = _events(model)
        since = {name: after[name] - before.get(name, Counter()) for name in after}
        changed = {
            "pods": Counter({"ADDED": 2, "MODIFIED": 1}),
            "replicasets.apps": Counter({"ADDED": 1}),
            "deployments.apps": Counter({"ADDED": 1}),
            "cronjobs.batch": Counter({"DELETED": 1}),
        }
        assert since == {name: changed.get(name, Counter()) for name in since}, since
        # resourceVersion continuity: every watch went on from where it was, none started over
        for plural, w in watched.items():
            assert int(w.resource_version) >= before_versions[plural], plural
        assert all(state.readable and state.error is None for state in model.resources.values())
        # each watch said failing once and back once (not once per try), a few lines in all
        assert _resources_in([line for line in notices if " failed, retrying: " in line]) == len(watched), notices
        assert _resources_in([line for line in notices if " listed again" in line]) == len(watched), notices
    finally:
        model.stop()


# --------------------------------------------------------------------------- a paged list


def _rows(stdout: str) -> list[list[str]]:
    return [line.split()[:-1] for line in stdout.splitlines() if line.strip()]  # AGE may tick


def test_get_waits_for_a_restart_mid_list(
    cluster: TestCluster, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The apiserver stopped after the first page of pods and started again while the command waits: the
    next page is refused, then sent again (the continue token survives a restart), and the command ends as
    if nothing happened."""
    ns = world["ns"]
    args = ["get", "-n", ns, "--kubeconfig", str(cluster.kubeconfig_path), "--chunk-size", "2", "--timeout", "120s"]
    expected = CliRunner().invoke(cli, args)
    assert expected.exit_code == 0, expected.output
    original = Connection.get
    stopped = threading.Event()

    def get(self: Connection, path: str, query: Any = None, **kwargs: Any) -> Any:
        doc = original(self, path, query, **kwargs)
        if path.endswith("/pods") and not stopped.is_set() and (doc.get("metadata") or {}).get("continue"):
            cluster.stop_apiserver()
            stopped.set()
        return doc

    monkeypatch.setattr(Connection, "get", get)
    results: list[Any] = []
    command = threading.Thread(
        target=lambda: results.append(CliRunner(env={"WMAP_DEBUG_REQUESTS": "1"}).invoke(cli, args))
    )
    command.start()
    try:
        assert stopped.wait(60), "the pods were not paged"
        time.sleep(1)  # the next page is refused meanwhile
    finally:
        cluster.start_apiserver()  # from this thread: the apiserver dies with the thread that started it
        command.join()
    (result,) = results
    assert result.exit_code == 0, result.output
    assert _rows(result.stdout) == _rows(expected.stdout)
    warnings = [line for line in result.stderr.splitlines() if line.startswith(("Warning:", "error:"))]
    assert warnings == [line for line in expected.stderr.splitlines() if line.startswith(("Warning:", "error:"))]
    assert _retried(result.stderr) >= 1, result.stderr  # the next page was refused at least once, then waited


def test_a_server_gone_for_good_is_one_error(cluster: TestCluster, world: dict[str, Any]) -> None:
    """Stopped and not started again: after the grace (here --timeout) one error line, exit 1."""
    ns = world["ns"]
    args = ["get", "-n", ns, "--kubeconfig", str(cluster.kubeconfig_path), "--chunk-size", "2", "--timeout", "5s"]
    original = Connection.get
    stopped: list[bool] = []

    def get(self: Connection, path: str, query: Any = None, **kwargs: Any) -> Any:
        doc = original(self, path, query, **kwargs)
        if path.endswith("/pods") and not stopped:
            stopped.append(True)
            cluster.stop_apiserver()
        return doc

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Connection, "get", get)
        try:
            result = CliRunner().invoke(cli, args)
        finally:
            cluster.start_apiserver()
    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "cluster unreachable" in errors[0], result.stderr
    assert errors[0].endswith(("connection refused", "the server closed the connection")), result.stderr
    assert "Traceback" not in result.output


def _retried(stderr: str) -> int:
    for line in stderr.splitlines():
        if line.startswith("Requests: ") and "retried " in line:
            return int(line.rsplit("retried ", 1)[1].strip())
    return 0


# --------------------------------------------------------------------------- get --watch


class _Lines:
    """The stdout lines of a running process, read by a thread."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.seen: list[str] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._lock:
                self.seen.append(line.rstrip("\n"))

    def has(self, prefix: str) -> bool:
        with self._lock:
            return any(line.startswith(prefix) for line in self.seen)


def test_get_watch_resumes_after_a_restart(cluster: TestCluster, world: dict[str, Any]) -> None:
    ns, conn = world["ns"], world["conn"]
    proc = subprocess.Popen(
        [str(WMAP), "get", "-n", ns, "--watch", "--watch-timeout", "120", "--kubeconfig", str(cluster.kubeconfig_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    lines = _Lines(proc)
    try:
        eventually(lambda: lines.has("web "), timeout=60, what="the first listing")
        time.sleep(0.5)  # the watches are open once the table is printed
        cluster.restart_apiserver()
        deployment_scenario(conn, ns, name="late", replicas=1)
        eventually(lambda: lines.has("late "), timeout=90, what=f"the new row (stderr so far: {lines.seen})")
        proc.send_signal(2)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr  # Ctrl-C ends a watch quietly
    lines_out = [line for line in stderr.splitlines() if line.strip() and KARTA_CRD_MISSING not in line]
    # never an error or a traceback; each watch said failing once and back once, a few lines in all
    assert all(line.startswith(("Warning: watches of ", "Warning: watch of ")) for line in lines_out), stderr
    watched = len(RESOURCES)
    assert _resources_in([line for line in lines_out if " failed, retrying: " in line]) == watched, stderr
    assert _resources_in([line for line in lines_out if " listed again" in line]) == watched, stderr
    late = [line.split() for line in lines.seen if line.startswith("late ")]
    assert late[-1][:2] == ["late", "Deployment"] and late[-1][4] == "0/1", late


def test_serve_across_a_restart(cluster: TestCluster, world: dict[str, Any], tmp_path: Path) -> None:
    """A `wmap serve` process: the outage on stderr once per cause, ``stale`` in the API while it lasts,
    the change made after the restart served, and nothing stale at the end."""

    ns, conn = world["ns"], world["conn"]
    with serving(cluster.kubeconfig_path, tmp_path) as serve:
        names = {item["name"] for item in serve.api("workloads")["items"]}
        assert {"api", "web"} <= names
        cluster.restart_apiserver()
        deployment_scenario(conn, ns, name="served", replicas=1)

        def served() -> bool:
            answer = serve.api("workloads")
            return "served" in {item["name"] for item in answer["items"]} and answer["stale"] == []

        eventually(served, timeout=120, what=f"the new workload served, nothing stale ({serve.warnings()})")
        # ready again once its probe of the API server (every 5 s) has an answer
        eventually(lambda: serve.readyz()[0] == 200, timeout=30, what="ready again")
        assert serve.proc.poll() is None
        lines = [line for line in serve.warnings() if KARTA_CRD_MISSING not in line]
        # serve also watches the workloads' Events (one more watch, said back on a line of its own)
        watched = len(RESOURCES) + 1
        back = [line for line in lines if " listed again" in line or "watch of events can be read again" in line]
        assert _resources_in([line for line in lines if " failed, retrying: " in line]) == watched, lines
        assert _resources_in(back) == watched, lines
        assert not [line for line in lines if " failed, retrying: " not in line and line not in back]


# --------------------------------------------------------------------------- tokens revoked mid-run


def _token(cluster: TestCluster, conn: Connection, name: str) -> str:
    """A ServiceAccount that may read everything, and a token of it (TokenRequest, bound to the account)."""
    conn.request(
        "POST",
        f"/api/v1/namespaces/{SA_NAMESPACE}/serviceaccounts",
        body={"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}},
    )
    cluster.kubectl(
        "create",
        "clusterrolebinding",
        f"{name}-admin",
        "--clusterrole=cluster-admin",
        f"--serviceaccount={SA_NAMESPACE}:{name}",
        check=True,
    )
    request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 3600}}
    answer = conn.request("POST", f"/api/v1/namespaces/{SA_NAMESPACE}/serviceaccounts/{name}/token", body=request)
    token = str(answer["status"]["token"])
    eventually(lambda: cluster.get("/api", token=token)[0] == 200, what=f"token of {name} accepted")
    return token


def _revoke(cluster: TestCluster, conn: Connection, name: str, token: str) -> None:
    """Delete the ServiceAccount: its tokens are rejected from then on."""
    conn.request("DELETE", f"/api/v1/namespaces/{SA_NAMESPACE}/serviceaccounts/{name}")
    eventually(lambda: cluster.get("/api", token=token)[0] == 401, what=f"token of {name} rejected")


def _exec_kubeconfig(cluster: TestCluster, directory: Path, token_file: Path) -> tuple[Path, Path]:
    """A kubeconfig whose user is an exec plugin handing out the token in ``token_file`` (read at each run);
    each run appends a line to the returned log."""
    runs = directory / "plugin-runs"
    script = directory / "plugin.py"
    script.write_text(
        f"#!{sys.executable}\nimport json, pathlib\n"
        f"pathlib.Path({str(runs)!r}).open('a').write('run\\n')\n"
        f"token = pathlib.Path({str(token_file)!r}).read_text().strip()\n"
        "print(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1', 'kind': 'ExecCredential',"
        " 'status': {'token': token}}))\n"
    )
    script.chmod(0o755)
    kubeconfig = cluster.kubeconfig_for("unused", directory / "exec.kubeconfig", user="exec")
    config = json.loads(kubeconfig.read_text())
    config["users"] = [
        {
            "name": "exec",
            "user": {
                "exec": {
                    "apiVersion": "client.authentication.k8s.io/v1",
                    "command": str(script),
                    "interactiveMode": "Never",
                }
            },
        }
    ]
    kubeconfig.write_text(json.dumps(config))
    return kubeconfig, runs


def _revoking_after_first_pod_page(monkeypatch: pytest.MonkeyPatch, then: Any) -> list[bool]:
    original = Connection.get
    done: list[bool] = []

    def get(self: Connection, path: str, query: Any = None, **kwargs: Any) -> Any:
        doc = original(self, path, query, **kwargs)
        if path.endswith("/pods") and not done and (doc.get("metadata") or {}).get("continue"):
            done.append(True)
            then()
        return doc

    monkeypatch.setattr(Connection, "get", get)
    return done


def test_a_token_revoked_mid_list_is_one_error(
    cluster: TestCluster, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ns, conn = world["ns"], world["conn"]
    token = _token(cluster, conn, "revoked-cli")
    kubeconfig = cluster.kubeconfig_for(token, tmp_path / "sa.kubeconfig", user="revoked-cli")
    done = _revoking_after_first_pod_page(monkeypatch, lambda: _revoke(cluster, conn, "revoked-cli", token))
    result = CliRunner().invoke(cli, ["get", "-n", ns, "--kubeconfig", str(kubeconfig), "--chunk-size", "2"])
    assert done
    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: Unauthorized: the token was rejected ({cluster.server}): the credentials are invalid or expired"
    ], result.stderr
    assert "Traceback" not in result.output and result.stdout == ""  # no table of half the pods


def test_an_exec_credential_rejected_mid_list_is_renewed(
    cluster: TestCluster, world: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The plugin's token is revoked between two pages and the plugin now has another: on the 401 the
    plugin runs again (as client-go does) and the command goes on."""
    ns, conn = world["ns"], world["conn"]
    first, second = _token(cluster, conn, "rotated-a"), _token(cluster, conn, "rotated-b")
    token_file = tmp_path / "token"
    token_file.write_text(first)
    kubeconfig, runs = _exec_kubeconfig(cluster, tmp_path, token_file)
    args = ["get", "-n", ns, "--chunk-size", "2"]
    expected = CliRunner().invoke(cli, [*args, "--kubeconfig", str(cluster.kubeconfig_path)])

    def rotate() -> None:
        token_file.write_text(second)
        _revoke(cluster, conn, "rotated-a", first)

    done = _revoking_after_first_pod_page(monkeypatch, rotate)
    result = CliRunner().invoke(cli, [*args, "--kubeconfig", str(kubeconfig)])
    assert done
    assert result.exit_code == 0, result.output
    assert _rows(result.stdout) == _rows(expected.stdout)
    assert len(runs.read_text().splitlines()) == 2  # once at start, once after the 401


def test_a_short_lived_exec_credential_is_used(cluster: TestCluster, world: dict[str, Any], tmp_path: Path) -> None:
    """A plugin token with two minutes left is valid: the client's 5-minute margin is for renewing it."""
    soon = (dt.datetime.now(dt.UTC) + dt.timedelta(minutes=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    token_file = tmp_path / "token"
    token_file.write_text(cluster.admin_token)
    kubeconfig, _ = _exec_kubeconfig(cluster, tmp_path, token_file)
    script = tmp_path / "plugin.py"
    script.write_text(
        script.read_text().replace(
            "'status': {'token': token}", f"'status': {{'token': token, 'expirationTimestamp': {soon!r}}}"
        )
    )
    result = CliRunner().invoke(cli, ["get", "-n", world["ns"], "--kubeconfig", str(kubeconfig)])
    assert result.exit_code == 0, result.output
    assert ["api", "Deployment"] in [row[:2] for row in _rows(result.stdout)]


def test_model_with_a_revoked_token_says_it_is_stale(
    cluster: TestCluster, world: dict[str, Any], tmp_path: Path
) -> None:
    """wmap serve's model whose token is revoked: it keeps its last answer, says once that every watch
    fails and why, marks the resources unreadable, and the API's ``stale`` says since when."""

    conn = world["conn"]
    token = _token(cluster, conn, "revoked-model")
    kubeconfig = cluster.kubeconfig_for(token, tmp_path / "sa.kubeconfig", user="revoked-model")
    notices: list[str] = []
    # 2 s watches: each is reopened (and authenticated) again at once; an open watch outlives its token
    model = LiveModel(LiveOptions(kubeconfig=str(kubeconfig)), watch_seconds=2, on_notice=notices.append)
    model.start()
    try:
        before = _model_answer(model)
        _revoke(cluster, conn, "revoked-model", token)
        # the probe is refused too: first why the model is not ready, then the watches failing
        eventually(lambda: len(model.problems()) == 2, timeout=60, what=f"the model to say it is stale: {notices}")
        unready, line = model.problems()
        assert unready.startswith("the API server has not answered") and "Unauthorized" in unready, unready
        assert " not current since " in line and "Unauthorized: the token was rejected" in line, line
        eventually(lambda: _resources_in(notices) == len(RESOURCES), timeout=60, what=f"every watch: {notices}")
        assert all(" failed, retrying: Unauthorized: the token was rejected" in n for n in notices), notices
        assert not any(state.readable for state in model.resources.values())
        assert _model_answer(model) == before  # the last answer, kept and flagged
        assert api.workloads(model)["stale"] == model.problems()
    finally:
        model.stop()


def test_model_follows_a_rotated_exec_credential(cluster: TestCluster, world: dict[str, Any], tmp_path: Path) -> None:
    ns, conn = world["ns"], world["conn"]
    first, second = _token(cluster, conn, "model-a"), _token(cluster, conn, "model-b")
    token_file = tmp_path / "token"
    token_file.write_text(first)
    kubeconfig, runs = _exec_kubeconfig(cluster, tmp_path, token_file)
    notices: list[str] = []
    model = LiveModel(LiveOptions(kubeconfig=str(kubeconfig)), watch_seconds=2, on_notice=notices.append)
    model.start()
    try:
        token_file.write_text(second)
        _revoke(cluster, conn, "model-a", first)
        # the watches are reopened every 2 s: the first one refused runs the plugin again
        eventually(lambda: len(runs.read_text().splitlines()) >= 2, timeout=60, what="the plugin to run again")
        deployment_scenario(conn, ns, name="rotated", replicas=1)
        eventually(lambda: (ns, "Deployment", "rotated") in _model_answer(model), timeout=60, what="the new workload")
        assert _model_answer(model) == _answer(cluster)
        assert notices == [] and model.problems() == []  # renewed on the first 401: nothing was stale
    finally:
        model.stop()


# --------------------------------------------------------------------------- 410 Gone on a watch


def _compact(cluster: TestCluster) -> None:
    """Compact etcd at its current revision: every older resourceVersion is gone."""

    def etcd(path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(cluster.etcd_endpoint + path, data=json.dumps(body).encode(), method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            return dict(json.loads(response.read()))

    key = base64.b64encode(b"/registry").decode()
    revision = int(etcd("/v3/kv/range", {"key": key, "limit": 1})["header"]["revision"])
    etcd("/v3/kv/compaction", {"revision": revision, "physical": True})


def test_model_relists_on_410_without_counting_twice(testcluster_bin_dir: Path) -> None:
    """A genuine 410 on watches: an API server without watch cache (watches go to etcd, no bookmarks move
    an idle watch's resourceVersion on) and etcd compacted past every watch's version. Each watch is
    reopened every 2 s, gets 410 Gone, lists again; the relist changes nothing and counts nothing, and the
    one pod change made just before is counted once."""
    cluster = TestCluster(testcluster_bin_dir, extra_apiserver_args=["--watch-cache=false"])
    cluster.start()
    model: LiveModel | None = None
    try:
        conn = admin(cluster)
        ns = create_namespace(conn, "gone")
        deployment_scenario(conn, ns, name="web", replicas=2)
        notices: list[str] = []
        model = LiveModel(
            LiveOptions(kubeconfig=str(cluster.kubeconfig_path)), watch_seconds=2, on_notice=notices.append
        )
        model.start()
        before, relists = _events(model), {name: s.relists for name, s in model.resources.items()}
        # `wmap get --watch`'s watches too: they list again as silently as kubectl's
        source = live_source(LiveOptions(kubeconfig=str(cluster.kubeconfig_path), all_namespaces=True))
        watch_warnings: list[str] = []
        relisted: list[str] = []

        def follow() -> None:
            for event in watch_snapshots(source.connection, source.lists, timeout=40, watch_seconds=2):
                watch_warnings.extend(event.warnings)
                if event.type == "RELISTED":
                    relisted.append(event.type)

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        version = model.version
        set_pod_running(conn, ns, "web-5d9f7c-00000")
        model.wait_for_version(version, timeout=30)
        # etcd moves on by two revisions: a watch from the pods' version starts one before the compaction
        for _ in range(2):
            conn.request(
                "POST",
                f"/api/v1/namespaces/{ns}/configmaps",
                body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "bump-"}},
            )
        _compact(cluster)
        eventually(
            lambda: all(model.resources[name].relists > relists[name] for name in relists),
            timeout=90,
            what="every watch to get 410 and list again",
        )
        assert _model_answer(model) == _answer(cluster)
        after = _events(model)
        since = {name: after[name] - before.get(name, Counter()) for name in after}
        assert since == {name: Counter({"MODIFIED": 1}) if name == "pods" else Counter() for name in since}, since
        assert notices == []  # a routine relist is no news
        assert any("expired (410 Gone): listed again" in w for w in model.warnings), model.warnings
        eventually(lambda: relisted, timeout=40, what="get --watch's watches to get 410 and list again")
        assert watch_warnings == []
        source.connection.close()
        conn.close()
    finally:
        if model is not None:
            model.stop()
        cluster.stop()


# --------------------------------------------------------------------------- the operator (last: it installs the CRD)


def _karta_ready(conn: Connection, name: str) -> bool:
    obj = conn.request("GET", f"/apis/run.ai/v1alpha1/kartas/{name}")
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (obj.get("status") or {}).get("conditions") or []
    )


def _karta_events(cluster: TestCluster, name: str) -> list[str]:
    out = cluster.kubectl(
        "get", "events", "-A", "-o", "json", "--field-selector", f"involvedObject.name={name},involvedObject.kind=Karta"
    )
    assert out.returncode == 0, out.stderr
    return sorted(str(e["reason"]) for e in json.loads(out.stdout)["items"])


def test_operator_resumes_after_a_restart(cluster: TestCluster, world: dict[str, Any], tmp_path: Path) -> None:
    """The operator keeps running across an apiserver restart: it loses and takes back its Lease, lists and
    watches again, reconciles a Karta created afterwards, and announces nothing twice. Frozen, the API server
    makes the leader step down within its Lease."""

    conn = world["conn"]
    cluster.kubectl("apply", "--server-side", "-f", str(CRD_FILE), check=True)
    eventually(lambda: cluster.kubectl("get", "krt").returncode == 0, timeout=60, what="krt served")
    cluster.kubectl("create", "namespace", "wmap-operator", check=True)
    port = free_port()
    configs = webhook_configurations(f"https://127.0.0.1:{port}", name="workload-map")
    cluster.kubectl(
        "apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": configs}), check=True
    )
    log = tmp_path / "operator.log"
    operator = OperatorProcess(
        cluster.kubeconfig_path, "wmap-operator", log, webhook_port=port, health_port=free_port()
    )
    definitions = {d.name: d for d in builtin_definitions()}

    def create(name: str) -> None:
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(definitions[name].karta.to_dict()))
        eventually(
            lambda: cluster.kubectl("create", "-f", str(path)).returncode == 0, timeout=60, what=f"{name} created"
        )

    operator.start()
    try:
        eventually(operator.ready, timeout=90, what=f"operator ready (log: {log})")
        create("apps-daemonset-v1")
        eventually(lambda: _karta_ready(conn, "apps-daemonset-v1"), timeout=60, what="the first Karta Ready")
        eventually(
            lambda: {"Ready", "Served", "Valid"} <= set(_karta_events(cluster, "apps-daemonset-v1")),
            timeout=60,
            what="its Events",
        )
        cluster.restart_apiserver()
        create("apps-statefulset-v1")
        eventually(
            lambda: _karta_ready(conn, "apps-statefulset-v1"), timeout=120, what=f"Ready after the restart ({log})"
        )
        eventually(operator.ready, timeout=60, what="the operator leading again")
        assert operator.proc is not None and operator.proc.poll() is None  # it never exited
        for name in ("apps-daemonset-v1", "apps-statefulset-v1"):
            reasons = _karta_events(cluster, name)
            assert len(reasons) == len(set(reasons)) and {"Ready", "Served", "Valid"} <= set(reasons), (name, reasons)
        lines = operator.log_lines()
        assert not [line for line in lines if line.get("level") in ("error", "critical")], lines[-20:]
        assert not [line for line in lines if str(line.get("logger")).startswith("urllib3")], lines[-20:]
        # the Lease lapsed during the restart at most once, and was taken back: no flapping
        messages = [line.get("msg") for line in lines]
        assert messages.count("lost leadership") <= 1, messages
        assert messages.count("became leader") == messages.count("lost leadership") + 1, messages
        # A frozen API server (nothing answers): the leader steps down while it is frozen, before its
        # 4 s Lease could be taken over elsewhere, not after the 30 s request timeout; and leads again.
        lost = messages.count("lost leadership")
        with cluster.frozen_apiserver():
            eventually(
                lambda: [line.get("msg") for line in operator.log_lines()].count("lost leadership") > lost,
                timeout=20,
                what="the leader to step down while the API server is frozen",
            )
        eventually(operator.ready, timeout=60, what="the operator leading again after the freeze")
    finally:
        operator.stop()
        cluster.kubectl("delete", "validatingwebhookconfiguration,mutatingwebhookconfiguration", "workload-map")
        cluster.kubectl("delete", "-f", str(CRD_FILE), "--ignore-not-found")
