"""The ``wmap`` CLI against the genuine API server through a kubeconfig (no --from-file).

get/describe/explain/gang, update (client and server dry run, a real patch, suspend), snapshot +
--from-file round trip, ``kubectl wmap`` as a plugin, ``get --watch``, shell completion callbacks,
and the request budget of ``get -A`` and ``describe`` as the CLI makes them (WMAP_DEBUG_REQUESTS).
"""

from __future__ import annotations

import json
import os
import queue
import re
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from click.testing import CliRunner, Result
from live_data import admin, create_namespace, deployment_scenario, ensure_crds, jobset_scenario, lws_scenario
from tests.cluster.apiserver import TestCluster

from workload_map.cli.commands import describe as describe_cmd, get as get_cmd
from workload_map.cli.complete import complete_namespace, complete_target
from workload_map.cli.main import cli
from workload_map.sources.kube import LiveOptions, live_source
from workload_map.sources.kube.reads import child_kinds

pytestmark = pytest.mark.live

BIN = Path(sys.executable).parent
WMAP = BIN / "wmap"


@pytest.fixture(scope="module")
def scenario(test_cluster: TestCluster) -> Iterator[dict[str, Any]]:
    ensure_crds(test_cluster, "jobsets.jobset.x-k8s.io", "leaderworkersets.leaderworkerset.x-k8s.io")
    conn = admin(test_cluster)
    suffix = secrets.token_hex(3)
    train, serve = create_namespace(conn, f"cli-train-{suffix}"), create_namespace(conn, f"cli-serve-{suffix}")
    jobset_scenario(conn, train)
    lws_scenario(conn, serve)
    deployment_scenario(conn, serve)
    conn.close()
    yield {"train": train, "serve": serve, "kubeconfig": str(test_cluster.kubeconfig_path)}


def wmap(*args: str, env: dict[str, str] | None = None) -> Result:
    """``wmap ARGS`` in-process; stdout and stderr apart."""
    return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)


def run(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv), capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=120, check=False
    )


def cells(line: str) -> list[str]:
    return re.split(r" {3,}", line.strip())


def without_age(table: str) -> list[list[str]]:
    """Table rows without the AGE column (the last one), which may tick between two runs."""
    rows = [cells(line) for line in table.splitlines() if line.strip()]
    assert rows and rows[0][-1] == "AGE", table
    return [r[:-1] for r in rows]


def first_json(text: str) -> Any:
    """The JSON document at the start of ``text`` (the patch; warnings or the request log follow)."""
    return json.JSONDecoder().raw_decode(text)[0]


def rows_by_name(table: str) -> dict[tuple[str, str], list[str]]:
    rows = [cells(line) for line in table.splitlines()[1:] if line.strip()]
    return {(r[0], r[1]): r for r in rows}


# --------------------------------------------------------------------------- reading


def test_get_all(scenario: dict[str, Any]) -> None:
    result = wmap("get", "-A", "--kubeconfig", scenario["kubeconfig"])
    assert result.exit_code == 0, result.output
    assert cells(result.stdout.splitlines()[0]) == [
        "NAMESPACE",
        "NAME",
        "TYPE",
        "STATUS",
        "COMPONENTS",
        "PODS",
        "GPUS",
        "AGE",
    ]
    rows = rows_by_name(result.stdout)
    jobset = rows[(scenario["train"], "paralleljobs")]
    # No controller runs: the JobSet has no status (Initializing), its five pods are running and ready.
    assert jobset[2] == "JobSet" and jobset[4:6] == ["workers(4) driver(1)", "5/5"], jobset
    assert rows[(scenario["serve"], "vllm")][2] == "LeaderWorkerSet"
    assert rows[(scenario["serve"], "web")][2] == "Deployment"
    # Owned workloads (the JobSet's Jobs, the LWS StatefulSets, the ReplicaSet) are not top-level rows.
    mine = sorted(name for ns, name in rows if ns in (scenario["train"], scenario["serve"]))
    assert mine == ["paralleljobs", "vllm", "web"], mine
    assert "Traceback" not in result.stderr


def test_get_type_uses_discovery_names_and_the_namespace(scenario: dict[str, Any]) -> None:
    # "lws" is the CRD's short name (discovery); -n picks the namespace; TYPE/NAME narrows.
    result = wmap("get", "lws", "-n", scenario["serve"], "--kubeconfig", scenario["kubeconfig"], "-o", "name")
    assert result.exit_code == 0, result.output
    assert result.stdout == "leaderworkerset.leaderworkerset.x-k8s.io/vllm\n"
    result = wmap("get", "jobs", "-n", scenario["train"], "--kubeconfig", scenario["kubeconfig"], "-o", "name")
    assert result.exit_code == 0, result.output
    # The JobSet's Jobs: owned workloads are listed by TYPE.
    assert result.stdout.split() == ["job.batch/paralleljobs-driver-0", "job.batch/paralleljobs-workers-0"]
    result = wmap("get", "jobset/nope", "-n", scenario["train"], "--kubeconfig", scenario["kubeconfig"])
    assert result.exit_code == 3
    assert 'jobset.jobset.x-k8s.io "nope" not found' in result.stderr
    result = wmap("get", "widgets", "--kubeconfig", scenario["kubeconfig"])
    assert result.exit_code == 4, result.output


def test_namespace_defaults_to_the_context(test_cluster: TestCluster, scenario: dict[str, Any], tmp_path: Path) -> None:
    kubeconfig = test_cluster.kubeconfig_for(
        test_cluster.admin_token, tmp_path / "ns.kubeconfig", user="test-admin", namespace=scenario["serve"]
    )
    result = wmap("get", "--kubeconfig", str(kubeconfig), "-o", "name")
    assert result.exit_code == 0, result.output
    assert sorted(result.stdout.split()) == [
        "deployment.apps/web",
        "leaderworkerset.leaderworkerset.x-k8s.io/vllm",
    ]
    result = wmap("describe", "lws/vllm", "--kubeconfig", str(kubeconfig), "-o", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["workload"]["namespace"] == scenario["serve"]
    # Nothing in a namespace: kubectl's message on stderr, exit 0.
    result = wmap("get", "-n", "kube-public", "--kubeconfig", str(kubeconfig))
    assert (result.exit_code, result.stdout) == (0, "")
    assert "No resources found in kube-public namespace." in result.stderr


def test_describe(scenario: dict[str, Any]) -> None:
    result = wmap("describe", "jobset", "paralleljobs", "-n", scenario["train"], "--kubeconfig", scenario["kubeconfig"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert re.search(r"^Name:\s+paralleljobs$", out, re.M), out
    assert re.search(rf"^Namespace:\s+{scenario['train']}$", out, re.M), out
    assert "Tree:" in out and "Status:" in out and "Resources" in out
    assert out.count("paralleljobs-") >= 5  # the Jobs and their pods in the tree
    tree = json.loads(
        wmap(
            "describe",
            "jobsets/paralleljobs",
            "-n",
            scenario["train"],
            "--kubeconfig",
            scenario["kubeconfig"],
            "-o",
            "json",
        ).stdout
    )
    assert tree["workload"]["name"] == "paralleljobs" and len(tree["pods"]) == 5


def test_explain(scenario: dict[str, Any]) -> None:
    result = wmap("explain", "lws/vllm", "-n", scenario["serve"], "--kubeconfig", scenario["kubeconfig"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"LeaderWorkerSet/vllm in namespace {scenario['serve']}\n")
    assert "Definition: " in result.stdout
    status = json.loads(
        wmap(
            "explain", "lws/vllm", "-n", scenario["serve"], "--kubeconfig", scenario["kubeconfig"], "-o", "json"
        ).stdout
    )
    assert "primary" in status


def test_gang(scenario: dict[str, Any]) -> None:
    result = wmap("gang", "lws/vllm", "-n", scenario["serve"], "--kubeconfig", scenario["kubeconfig"], "-o", "json")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["groups"], plan
    text = wmap("gang", "lws/vllm", "-n", scenario["serve"], "--kubeconfig", scenario["kubeconfig"])
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith(f"LeaderWorkerSet/vllm in namespace {scenario['serve']}\n")


# --------------------------------------------------------------------------- update


def _deployment(test_cluster: TestCluster, ns: str) -> dict[str, Any]:
    conn = admin(test_cluster)
    try:
        doc: dict[str, Any] = conn.get(f"/apis/apps/v1/namespaces/{ns}/deployments/web")
        return doc
    finally:
        conn.close()


def test_update_dry_runs_then_a_real_patch(test_cluster: TestCluster, scenario: dict[str, Any]) -> None:
    ns, kubeconfig = scenario["serve"], scenario["kubeconfig"]
    before = _deployment(test_cluster, ns)
    base = ("update", "deployment/web", "-n", ns, "--kubeconfig", kubeconfig, "--scheduler-name", "kai-scheduler")
    env = {"WMAP_DEBUG_REQUESTS": "1"}

    # --dry-run alone = client: the patch on stderr, nothing sent.
    client = wmap(*base, "--dry-run", env=env)
    assert client.exit_code == 0, client.output
    assert client.stdout == "deployment.apps/web patched (dry run)\n"
    patch = first_json(client.stderr)
    assert patch == {"spec": {"template": {"spec": {"schedulerName": "kai-scheduler"}}}}
    assert " PATCH " not in client.stderr

    # --dry-run=server: admitted and answered, not stored.
    server = wmap(*base, "--dry-run=server", "-o", "yaml", env=env)
    assert server.exit_code == 0, server.output
    answered = yaml.safe_load(server.stdout)
    assert answered["spec"]["template"]["spec"]["schedulerName"] == "kai-scheduler"
    assert re.search(r"^  PATCH /apis/apps/v1/namespaces/\S+/deployments/web\?.*dryRun=All", server.stderr, re.M)
    after = _deployment(test_cluster, ns)
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert after["spec"]["template"]["spec"].get("schedulerName") != "kai-scheduler"

    # A real patch changes the object.
    real = wmap(*base, "--label", "team=nlp")
    assert real.exit_code == 0, real.output
    assert real.stdout == "deployment.apps/web patched\n"
    changed = _deployment(test_cluster, ns)
    assert changed["spec"]["template"]["spec"]["schedulerName"] == "kai-scheduler"
    assert changed["spec"]["template"]["metadata"]["labels"]["team"] == "nlp"
    assert changed["metadata"]["resourceVersion"] != before["metadata"]["resourceVersion"]

    # Same change again: nothing to send.
    again = wmap(*base, "--label", "team=nlp", env=env)
    assert again.stdout == "deployment.apps/web patched (no change)\n"
    assert " PATCH " not in again.stderr


def test_update_suspend_server_dry_run(test_cluster: TestCluster, scenario: dict[str, Any]) -> None:
    ns = scenario["train"]
    result = wmap(
        "update", "jobset/paralleljobs", "-n", ns, "--kubeconfig", scenario["kubeconfig"], "--suspend",
        "--dry-run=server", "-o", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert first_json(result.stderr) == {"spec": {"suspend": True}}
    assert json.loads(result.stdout)["spec"]["suspend"] is True
    conn = admin(test_cluster)
    stored = conn.get(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{ns}/jobsets/paralleljobs")
    conn.close()
    assert not stored["spec"].get("suspend")


# --------------------------------------------------------------------------- snapshot, plugin


def test_snapshot_round_trip(scenario: dict[str, Any], tmp_path: Path) -> None:
    kubeconfig = scenario["kubeconfig"]
    path = tmp_path / "cluster.yaml"
    started = time.monotonic()
    saved = wmap("snapshot", "-A", "-o", str(path), "--kubeconfig", kubeconfig)
    assert saved.exit_code == 0, saved.output
    assert saved.stdout == ""
    assert re.search(r"^Wrote \d+ objects \(all namespaces\) to ", saved.stderr, re.M), saved.stderr
    document = yaml.safe_load(path.read_text())
    assert document["kind"] == "List" and document["items"]

    live_json = wmap("get", "-A", "-o", "json", "--kubeconfig", kubeconfig)
    file_json = wmap("get", "-A", "-o", "json", "--from-file", str(path))
    assert live_json.exit_code == file_json.exit_code == 0, (live_json.output, file_json.output)
    assert json.loads(live_json.stdout) == json.loads(file_json.stdout)
    live_table = wmap("get", "-A", "--kubeconfig", kubeconfig).stdout
    file_table = wmap("get", "-A", "--from-file", str(path)).stdout
    assert without_age(live_table) == without_age(file_table)
    # One namespace, JSON file; describe reads it back too.
    one = tmp_path / "train.json"
    assert wmap("snapshot", "-n", scenario["train"], "-o", str(one), "--kubeconfig", kubeconfig).exit_code == 0
    described = wmap("describe", "jobset/paralleljobs", "-n", scenario["train"], "--from-file", str(one), "-o", "json")
    live = wmap("describe", "jobset/paralleljobs", "-n", scenario["train"], "--kubeconfig", kubeconfig, "-o", "json")
    assert json.loads(described.stdout) == json.loads(live.stdout)
    print(f"\nsnapshot round trip: {time.monotonic() - started:.2f}s")


def test_kubectl_plugin(test_cluster: TestCluster, scenario: dict[str, Any]) -> None:
    env = {
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "KUBECONFIG": scenario["kubeconfig"],
        "KUBECACHEDIR": str(test_cluster.workdir / "kubectl-cache"),
    }
    listed = run(str(test_cluster.kubectl_bin), "plugin", "list", env=env)
    assert "kubectl-wmap" in listed.stdout, (listed.stdout, listed.stderr)
    plugin = run(str(test_cluster.kubectl_bin), "wmap", "get", "-A", env=env)
    direct = run(str(WMAP), "get", "-A", env=env)
    assert plugin.returncode == direct.returncode == 0, (plugin.stderr, direct.stderr)
    assert without_age(plugin.stdout) == without_age(direct.stdout)
    assert scenario["train"] in plugin.stdout
    # Flags after the plugin name reach wmap; usage lines name the plugin as kubectl does.
    flagged = run(
        str(test_cluster.kubectl_bin), "wmap", "get", "lws", "-n", scenario["serve"], "--kubeconfig",
        scenario["kubeconfig"], "-o", "name", env={"PATH": env["PATH"]},
    )  # fmt: skip
    assert flagged.stdout == "leaderworkerset.leaderworkerset.x-k8s.io/vllm\n", flagged.stderr
    usage = run(str(test_cluster.kubectl_bin), "wmap", "get", "--bogus", env=env)
    assert usage.returncode == 2 and "Usage: kubectl wmap get" in usage.stderr, usage.stderr


# --------------------------------------------------------------------------- watch


def test_watch_sees_a_new_workload(test_cluster: TestCluster, scenario: dict[str, Any]) -> None:
    ns = scenario["serve"]
    proc = subprocess.Popen(
        [str(WMAP), "get", "-n", ns, "--watch", "--watch-timeout", "60", "--kubeconfig", scenario["kubeconfig"]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()

    def wait_for(pattern: str, timeout: float = 30.0) -> list[str]:
        seen: list[str] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                if proc.poll() is not None:
                    break
                continue
            seen.append(line)
            if re.search(pattern, line):
                return seen
        stderr = proc.stderr.read() if proc.poll() is not None and proc.stderr else ""
        raise AssertionError(f"no line matching {pattern!r} in {seen} (stderr: {stderr})")

    try:
        first = wait_for(r"^web\s")
        first += [] if any(line.startswith("vllm ") for line in first) else wait_for(r"^vllm\s")
        assert first[0].startswith("NAME ") and len(first) == 3, first
        time.sleep(0.5)  # the watches are open once the table is printed; give them a moment
        conn = admin(test_cluster)
        deployment_scenario(conn, ns, name="watched", replicas=2)
        conn.close()
        seen = wait_for(r"^watched\s")
        row = cells(seen[-1])
        assert row[1] == "Deployment", row
        assert not any(line.startswith("NAME ") for line in seen)  # the header is printed once

        # Gone: printed once more as last seen (AGE aside), as kubectl prints a deleted object's final state.
        # (No garbage collector runs here: the ReplicaSet and pods stay, the ReplicaSet a workload of its own.)
        done = test_cluster.kubectl("delete", "deployment", "watched", "-n", ns)
        assert done.returncode == 0, done.stderr
        gone = cells(wait_for(r"^watched\s")[-1])
        assert gone[:6] == row[:6], (gone, row)
        done = test_cluster.kubectl("delete", "replicasets,pods", "-n", ns, "-l", "app=watched", "--force")
        assert done.returncode == 0, done.stderr
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_watch_timeout_ends_and_from_file_is_refused(scenario: dict[str, Any], tmp_path: Path) -> None:
    started = time.monotonic()
    result = wmap("get", "-n", scenario["train"], "-w", "--watch-timeout", "1", "--kubeconfig", scenario["kubeconfig"])
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started < 20
    assert "paralleljobs" in result.stdout
    dump = tmp_path / "x.json"
    dump.write_text('{"apiVersion": "v1", "kind": "List", "items": []}')
    refused = wmap("get", "--watch", "--from-file", str(dump))
    assert refused.exit_code == 2 and "--watch needs a live cluster" in refused.stderr


def test_timeout_ends_an_open_watch(scenario: dict[str, Any]) -> None:
    """--timeout bounds the whole command: an open watch stream (no request being made) ends at it too."""
    started = time.monotonic()
    result = wmap("get", "-n", scenario["train"], "--watch", "--timeout", "4s", "--kubeconfig", scenario["kubeconfig"])
    elapsed = time.monotonic() - started
    assert result.exit_code == 1, result.output
    assert "paralleljobs" in result.stdout
    assert "error: timed out" in result.stderr and "within 4s (--timeout)" in result.stderr, result.stderr
    assert result.stderr.count("error:") == 1, result.stderr
    assert elapsed < 30, elapsed  # not the 5 minutes of a watch request (the test's bound, not a benchmark)


# --------------------------------------------------------------------------- completion


def _ctx(command: click.Command, *args: str) -> click.Context:
    return command.make_context(command.name or "", list(args), resilient_parsing=True)


def _values(items: list[Any]) -> list[str]:
    return [item.value for item in items]


def test_completion_callbacks(scenario: dict[str, Any], tmp_path: Path) -> None:
    kubeconfig = scenario["kubeconfig"]
    get = get_cmd.command
    target = next(p for p in get.params if p.name == "target")
    namespace = next(p for p in get.params if p.name == "namespace")

    types = _values(complete_target(_ctx(get, "--kubeconfig", kubeconfig), target, ""))
    assert {"jobsets", "leaderworkersets", "lws", "deployments", "pods"} <= set(types), types
    assert _values(complete_target(_ctx(get, "--kubeconfig", kubeconfig), target, "leader")) == ["leaderworkersets"]

    ctx = _ctx(get, "--kubeconfig", kubeconfig, "-n", scenario["serve"], "lws")
    assert _values(complete_target(ctx, target, "")) == ["vllm"]
    ctx = _ctx(get, "--kubeconfig", kubeconfig, "-n", scenario["train"])
    assert _values(complete_target(ctx, target, "jobset/para")) == ["jobset/paralleljobs"]
    ctx = _ctx(get, "--kubeconfig", kubeconfig, "-A", "jobs")
    assert _values(complete_target(ctx, target, "paralleljobs-")) == [
        "paralleljobs-driver-0",
        "paralleljobs-workers-0",
    ]
    # describe takes one name: nothing after it.
    describe = describe_cmd.command
    dtarget = next(p for p in describe.params if p.name == "target")
    ctx = _ctx(describe, "--kubeconfig", kubeconfig, "-n", scenario["serve"], "lws", "vllm")
    assert complete_target(ctx, dtarget, "") == []

    spaces = _values(complete_namespace(_ctx(get, "--kubeconfig", kubeconfig), namespace, "cli-"))
    assert {scenario["train"], scenario["serve"]} <= set(spaces)

    # Never raising: no cluster behind the kubeconfig, a missing kubeconfig, an unknown type.
    dead = tmp_path / "dead.kubeconfig"
    dead.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:9"}}],
                "users": [{"name": "u", "user": {"token": "x"}}],
                "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "x",
            }
        )
    )
    assert "jobsets" in _values(complete_target(_ctx(get, "--kubeconfig", str(dead)), target, ""))
    assert complete_target(_ctx(get, "--kubeconfig", str(dead), "jobsets"), target, "") == []
    assert complete_namespace(_ctx(get, "--kubeconfig", str(dead)), namespace, "") == []
    assert complete_target(_ctx(get, "--kubeconfig", str(tmp_path / "missing")), target, "x/") == []
    assert complete_target(_ctx(get, "--kubeconfig", kubeconfig, "widgets"), target, "") == []


def test_completion_through_the_shell_protocol(scenario: dict[str, Any]) -> None:
    env = {
        "_WMAP_COMPLETE": "bash_complete",
        "COMP_WORDS": f"wmap get --kubeconfig {scenario['kubeconfig']} -n {scenario['serve']} deployments ",
        "COMP_CWORD": "7",
    }
    result = run(str(WMAP), env=env)
    assert result.returncode == 0, result.stderr
    assert "plain,web" in result.stdout.splitlines(), result.stdout


# --------------------------------------------------------------------------- request budget


def _requests(stderr: str) -> tuple[dict[str, int], list[str]]:
    match = re.search(r"^Requests: (\d+) \(([^)]*)\)$", stderr, re.M)
    assert match, stderr
    verbs = {v: int(n) for v, n in (part.split() for part in match.group(2).split(", "))}
    assert sum(verbs.values()) == int(match.group(1))
    lines = [line.strip() for line in stderr[match.end() :].splitlines() if line.startswith("  ")]
    return verbs, lines


def test_request_budget_through_the_cli(test_cluster: TestCluster, scenario: dict[str, Any]) -> None:
    kubeconfig = scenario["kubeconfig"]
    env = {"WMAP_DEBUG_REQUESTS": "1"}
    # What the budget allows: one list per covered kind served, the pods, the kinds between them.
    source = live_source(LiveOptions(kubeconfig=kubeconfig, all_namespaces=True))
    registry, discovery = source.registry, source.discovery
    source.connection.close()
    covered = {
        (d.karta.identity.group, d.karta.identity.kind)
        for d in registry.definitions
        if d.karta.identity and discovery.served(d.karta.identity.group, d.karta.identity.kind)
    }
    children = {k for k in child_kinds(registry.definitions) if discovery.served(*k)} - covered
    karta = 1 if discovery.served("run.ai", "Karta") else 0
    expected_lists = len(covered | children | {("", "Pod")}) + karta

    result = wmap("get", "-A", "--kubeconfig", kubeconfig, env=env)
    assert result.exit_code == 0, result.output
    verbs, lines = _requests(result.stderr)
    assert verbs == {"GET": 2, "LIST": expected_lists}, lines  # one page per list at this size
    assert sorted(line.split("?")[0] for line in lines if line.startswith("GET")) == ["GET /api", "GET /apis"]
    assert not any("/pods/" in line for line in lines)  # never a GET per pod
    print(f"\nwmap get -A: {sum(verbs.values())} requests {verbs}")

    result = wmap("describe", "jobset/paralleljobs", "-n", scenario["train"], "--kubeconfig", kubeconfig, env=env)
    assert result.exit_code == 0, result.output
    verbs, lines = _requests(result.stderr)
    # /api + /apis, (Karta list,) the JobSet by name, its Jobs, its pods by label selector, for describe's
    # Queue line one list per queue kind the cluster serves (other live tests install Kueue, KAI, Volcano CRDs)
    # and for its Events section one list of the namespace's Events.
    queue_groups = ("kueue.x-k8s.io", "scheduling.run.ai", "scheduling.volcano.sh")
    queue_lists = sum(1 for line in lines if line.startswith("LIST /apis/") and any(g in line for g in queue_groups))
    assert verbs == {"GET": 2, "LIST": 3 + karta + queue_lists + 1}, lines
    assert [line for line in lines if "/events?" in line] == [
        f"LIST /api/v1/namespaces/{scenario['train']}/events?limit=500"
    ], lines
    pods = next(line for line in lines if line.startswith("LIST /api/v1/namespaces/") and "/pods?" in line)
    assert "labelSelector=" in pods and "jobset-name%3Dparalleljobs" in pods, pods
    assert any("fieldSelector=metadata.name%3Dparalleljobs" in line for line in lines), lines
    print(f"wmap describe jobset/paralleljobs: {sum(verbs.values())} requests {verbs}")

    # --chunk-size: the page size of every list; 0 turns paging off (kubectl's meaning).
    result = wmap("get", "-A", "--kubeconfig", kubeconfig, "--chunk-size", "2", env=env)
    verbs, lines = _requests(result.stderr)
    assert all("limit=2" in line for line in lines if line.startswith("LIST")), lines
    assert verbs["LIST"] > expected_lists  # the pods take several pages of 2
    result = wmap("get", "-A", "--kubeconfig", kubeconfig, "--chunk-size", "0", env=env)
    verbs, lines = _requests(result.stderr)
    assert verbs == {"GET": 2, "LIST": expected_lists} and not any("limit=" in line for line in lines), lines
