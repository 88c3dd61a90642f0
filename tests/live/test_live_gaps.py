"""Partial reads against the genuine apiserver: RBAC limits, a removed CRD, unrelated workloads.

Users (static tokens of the session cluster, tests/live/conftest.py) get real Roles and ClusterRoles:
``wmap-no-kind`` may read everything but JobSets, ``wmap-no-pods-ns`` everything but pods in one
namespace, ``wmap-ns-only`` only one namespace. Each scenario asserts the rows, the counts, a bounded
number of warning lines and the exit code (5 = partial result, docs/cli.md).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
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
    kubectl_apply,
    lws_scenario,
    set_pod_running,
    user_cluster_role,
)
from tests.cluster.apiserver import TestCluster

from workload_map.sources.kube import ClusterError, LiveOptions, live_source

pytestmark = pytest.mark.live

WMAP = Path(sys.executable).parent / "wmap"
READ = ["get", "list", "watch"]


def wmap(kubeconfig: Path | str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(WMAP), *args, "--kubeconfig", str(kubeconfig), "--timeout", "60s"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def rows(stdout: str) -> list[list[str]]:
    lines = [re.split(r" {3,}", line.strip()) for line in stdout.splitlines() if line.strip()]
    return [r[:-1] for r in lines[1:]]  # no header, no AGE


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("Warning:")]


def _kubeconfig(cluster: TestCluster, tmp: Path, user: str, namespace: str | None = None) -> Path:
    return cluster.kubeconfig_for(cluster.token_for(user), tmp / f"{user}.kubeconfig", user=user, namespace=namespace)


@pytest.fixture(scope="module")
def world(test_cluster: TestCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Two namespaces: a JobSet, an LWS and Deployments, next to an unrelated bare-owner workload."""
    ensure_crds(test_cluster, "jobsets.jobset.x-k8s.io", "leaderworkersets.leaderworkerset.x-k8s.io")
    conn = admin(test_cluster)
    suffix = secrets.token_hex(3)
    train, serve = create_namespace(conn, f"gaps-train-{suffix}"), create_namespace(conn, f"gaps-serve-{suffix}")
    jobset_scenario(conn, train)
    deployment_scenario(conn, train, name="tensorboard", replicas=2)
    lws_scenario(conn, serve)
    deployment_scenario(conn, serve, name="web", replicas=3)
    conn.close()
    tmp = tmp_path_factory.mktemp("gaps")
    everything_but_jobsets = [
        {"apiGroups": [""], "resources": ["pods", "namespaces"], "verbs": READ},
        {"apiGroups": ["apps", "batch", "leaderworkerset.x-k8s.io", "run.ai"], "resources": ["*"], "verbs": READ},
    ]
    no_pods = [
        {"apiGroups": [""], "resources": ["namespaces"], "verbs": READ},
        {
            "apiGroups": ["apps", "batch", "leaderworkerset.x-k8s.io", "jobset.x-k8s.io", "run.ai"],
            "resources": ["*"],
            "verbs": READ,
        },
    ]
    # Bound per namespace below. Not the built-in view/admin: they are aggregated by the controller
    # manager, which the test cluster does not run.
    read_all = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "wmap-read-all"},
        "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": READ}],
    }
    kubectl_apply(
        test_cluster,
        read_all,
        *user_cluster_role("wmap-no-kind", everything_but_jobsets, "wmap-no-kind"),
        *user_cluster_role("wmap-no-pods-ns", no_pods, "wmap-no-pods-ns"),
        # pods readable in the train namespace only
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "wmap-pods", "namespace": train},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "wmap-read-all"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "wmap-no-pods-ns"}],
        },
        *user_cluster_role(
            "wmap-ns-list", [{"apiGroups": [""], "resources": ["namespaces"], "verbs": READ}], "wmap-ns-list"
        ),
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "wmap-ns-list", "namespace": serve},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "wmap-read-all"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "wmap-ns-list"}],
        },
        # everything, in the serve namespace only
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "wmap-ns-only", "namespace": serve},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "wmap-read-all"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "wmap-ns-only"}],
        },
    )
    world = {
        "train": train,
        "serve": serve,
        "admin": test_cluster.kubeconfig_path,
        "no-kind": _kubeconfig(test_cluster, tmp, "wmap-no-kind"),
        "no-pods": _kubeconfig(test_cluster, tmp, "wmap-no-pods-ns"),
        "ns-only": _kubeconfig(test_cluster, tmp, "wmap-ns-only"),
        "ns-list": _kubeconfig(test_cluster, tmp, "wmap-ns-list"),
    }
    for user, ns in (("no-kind", train), ("no-pods", train), ("ns-only", serve), ("ns-list", serve)):
        eventually(lambda u=user, n=ns: wmap(world[u], "get", "deployments", "-n", n).returncode == 0, what="RBAC")
    yield world


def test_admin_sees_everything(world: dict[str, Any]) -> None:
    proc = wmap(world["admin"], "get", "-A")
    assert proc.returncode == 0, proc.stderr
    names = {(r[0], r[1], r[2]) for r in rows(proc.stdout)}
    assert (world["train"], "paralleljobs", "JobSet") in names
    assert (world["serve"], "vllm", "LeaderWorkerSet") in names


def test_a_forbidden_kind_is_no_phantom_rows(world: dict[str, Any]) -> None:
    admin_rows = rows(wmap(world["admin"], "get", "-n", world["train"]).stdout)
    proc = wmap(world["no-kind"], "get", "-n", world["train"])
    assert proc.returncode == 5, proc.stderr
    got = rows(proc.stdout)
    assert [r for r in got if r[1] != "JobSet"] == got
    assert got == [r for r in admin_rows if r[1] != "JobSet"]  # no Job or Pod rows of the JobSet's parts
    lines = warnings(proc.stderr)
    gap = [w for w in lines if "jobsets.jobset.x-k8s.io" in w]
    assert len(gap) == 1 and "may not list" in gap[0] and "grant list on jobsets.jobset.x-k8s.io" in gap[0], lines
    assert len(lines) <= 2, lines  # the gap, and the Karta CRD note


def test_forbidden_pods_are_unknown_counts(world: dict[str, Any]) -> None:
    proc = wmap(world["no-pods"], "get", "-n", world["serve"])
    assert proc.returncode == 5, proc.stderr
    got = {r[0]: r for r in rows(proc.stdout)}
    assert set(got) == {"vllm", "web"}, proc.stdout  # no phantom StatefulSet rows of the LWS workers
    assert got["web"][4] == "?/3" and got["web"][2].endswith("(incomplete)")
    assert got["vllm"][4].startswith("?/")
    lines = warnings(proc.stderr)
    pods = [w for w in lines if "may not list pods" in w]
    assert len(pods) == 1 and f"in namespace {world['serve']}" in pods[0], lines
    assert "pod counts of the workloads there are unknown" in pods[0], lines
    assert len(lines) <= 2, lines
    readable = wmap(world["no-pods"], "get", "-n", world["train"])
    assert readable.returncode == 0, readable.stderr
    assert not any("?" in r[4] for r in rows(readable.stdout))


def test_namespace_only_role(world: dict[str, Any]) -> None:
    everything = wmap(world["ns-only"], "get", "-A")
    assert everything.returncode == 1, everything.stderr
    errors = [line for line in everything.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: Forbidden: user 'wmap-ns-only' cannot list"), errors
    assert "No resources found" not in everything.stderr
    one = wmap(world["ns-only"], "get", "-n", world["serve"])
    assert one.returncode == 0, one.stderr
    assert {r[0] for r in rows(one.stdout)} == {"vllm", "web"}


def test_namespace_only_role_that_may_list_namespaces(world: dict[str, Any]) -> None:
    """A namespaced Role, and list on namespaces: `-A` reads the namespace it may, says in one line per cause
    which namespaces it may not (pods; every other kind together), and exits 5."""
    serve = world["serve"]
    proc = wmap(world["ns-list"], "get", "-A")
    assert proc.returncode == 5, proc.stderr
    admin = {r[0]: r for r in rows(wmap(world["admin"], "get", "-n", serve).stdout)}
    assert {r[1]: r[1:] for r in rows(proc.stdout)} == admin, proc.stdout  # what it may read, complete
    gaps = [w for w in warnings(proc.stderr) if "may not list" in w]
    assert len(gaps) == 2, proc.stderr
    pods = next(w for w in gaps if "may not list pods in" in w)
    kinds = next(w for w in gaps if w is not pods)
    assert re.search(r"may not list pods in \d+ namespaces", pods) and serve not in pods, pods
    assert re.search(r"may not list [a-z.]+, [a-z.]+, .* in \d+ namespaces .*: their workloads there", kinds), kinds
    assert "deployments.apps" in kinds and "grant list on them in those namespaces" in kinds


def test_narrowed_reads_say_nothing_about_other_workloads(world: dict[str, Any]) -> None:
    describe = wmap(world["admin"], "describe", "jobset/paralleljobs", "-n", world["train"])
    assert describe.returncode == 0, describe.stderr
    assert [w for w in warnings(describe.stderr) if "Karta" not in w] == []
    jobsets = wmap(world["admin"], "get", "jobsets", "-A")
    assert jobsets.returncode == 0, jobsets.stderr
    assert [w for w in warnings(jobsets.stderr) if "Karta" not in w] == []
    assert {r[1] for r in rows(jobsets.stdout)} >= {"paralleljobs"}


def test_describe_and_update_say_nothing_about_owners_of_their_kind_they_did_not_read(
    test_cluster: TestCluster,
) -> None:
    """Two Deployments in one namespace: ``describe deployment/web`` reads Deployments by name but every
    ReplicaSet, so api's ReplicaSet has an owner the read left out on purpose, not a missing one."""
    conn = admin(test_cluster)
    namespace = create_namespace(conn, f"gaps-owners-{secrets.token_hex(3)}")
    deployment_scenario(conn, namespace, name="web", replicas=2)
    deployment_scenario(conn, namespace, name="api", replicas=1)
    conn.close()
    kubeconfig = test_cluster.kubeconfig_path
    describe = wmap(kubeconfig, "describe", "deployment/web", "-n", namespace)
    assert describe.returncode == 0, describe.stderr
    update = wmap(kubeconfig, "update", "deployment/web", "-n", namespace, "--scheduler-name", "kai", "--dry-run")
    assert update.returncode == 0, update.stderr
    for result in (describe, update):
        assert [w for w in warnings(result.stderr) if "Karta" not in w] == [], result.stderr
        assert "created after the list was read" not in result.stderr


def test_an_unserved_type_is_an_error_after_discovery(test_cluster: TestCluster, world: dict[str, Any]) -> None:
    proc = wmap(world["admin"], "get", "rayclusters", "-A")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == 'error: the server doesn\'t have a resource type "rayclusters"', proc.stderr
    assert "rayclusters.ray.io" in proc.stderr
    conn = admin(test_cluster)
    try:
        with pytest.raises(ClusterError):
            live_source(LiveOptions(connection=conn, kinds=["rayclusters"], all_namespaces=True))
        lists = [p for p in conn.counter.paths("LIST") if "kartas" not in p]
        assert lists == []  # no pod listing
    finally:
        conn.close()


def test_a_narrowed_read_of_a_forbidden_kind_is_forbidden(world: dict[str, Any]) -> None:
    """`get jobsets` / `describe jobset/x` without list on JobSets: kubectl's Forbidden, not "No resources
    found" (the Jobs and pods read answer nothing that was asked) nor "not found"."""
    for args in (("get", "jobsets", "-A"), ("describe", "jobset/paralleljobs", "-n", world["train"])):
        proc = wmap(world["no-kind"], *args)
        assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
        errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
        assert errors and errors[0].startswith(
            "error: Forbidden: user 'wmap-no-kind' cannot list jobsets.jobset.x-k8s.io"
        ), proc.stderr
        assert "No resources found" not in proc.stdout + proc.stderr and "not found" not in proc.stderr
    deployments = wmap(world["no-kind"], "get", "deployments", "-n", world["train"])
    assert deployments.returncode == 0, deployments.stderr  # JobSets are no part of Deployments
    assert {r[0] for r in rows(deployments.stdout)} == {"tensorboard"}


def test_all_namespaces_reads_the_namespaces_it_may(world: dict[str, Any]) -> None:
    """Pods readable in one namespace only, not cluster-wide: `get -A` lists pods namespace by namespace, so
    that namespace's counts are known and the others are `?`, with one line naming where it may not."""
    proc = wmap(world["no-pods"], "get", "-A")
    assert proc.returncode == 5, proc.stderr
    got = {(r[0], r[1]): r for r in rows(proc.stdout)}
    train, serve = world["train"], world["serve"]
    admin = {r[0]: r for r in rows(wmap(world["admin"], "get", "-n", train).stdout)}
    assert {name: r[1:] for (ns, name), r in got.items() if ns == train} == admin  # complete where readable
    assert got[(serve, "web")][5] == "?/3" and got[(serve, "web")][3].endswith("(incomplete)")
    assert {r[1] for r in got.values() if r[0] == serve} == {"web", "vllm"}  # no phantom StatefulSet rows
    lines = warnings(proc.stderr)
    pods = [w for w in lines if "may not list pods" in w]
    assert len(pods) == 1, lines  # one line for every namespace it may not list pods in
    assert re.search(r"may not list pods in \d+ namespaces \(", pods[0]), pods
    assert "pod counts of the workloads there are unknown" in pods[0] and "in those namespaces" in pods[0]
    # besides the Karta note, only what other test modules left in the shared cluster (owners of kinds no
    # definition covers, in their namespaces)
    others = [w for w in lines if w not in pods and "Karta" not in w]
    assert not [w for w in others if train in w or serve in w], lines
    document = json.loads(wmap(world["no-pods"], "get", "-A", "-o", "json").stdout)
    web = next(t for t in document["items"] if (t["workload"]["namespace"], t["workload"]["name"]) == (serve, "web"))
    assert web["incomplete"] == [f"user 'wmap-no-pods-ns' may not list pods in namespace {serve}"]


def test_a_kind_forbidden_everywhere_is_one_cluster_wide_gap(world: dict[str, Any]) -> None:
    proc = wmap(world["no-kind"], "get", "-A")
    assert proc.returncode == 5, proc.stderr
    lines = [w for w in warnings(proc.stderr) if "jobsets.jobset.x-k8s.io" in w]
    assert len(lines) == 1 and "cluster-wide" in lines[0], lines
    assert not any(r[2] in ("Job", "Pod") for r in rows(proc.stdout) if r[0] == world["train"])


def test_describe_with_pods_forbidden_says_unknown(world: dict[str, Any]) -> None:
    """`describe` of a workload whose pods may not be read: `?`, never the zeros of pods it could not see, and
    the partial-result exit code."""
    proc = wmap(world["no-pods"], "describe", "deployment/web", "-n", world["serve"])
    assert proc.returncode == 5, proc.stderr
    header = dict(re.split(r":\s+", line, maxsplit=1) for line in proc.stdout.split("\n\n")[0].splitlines())
    assert header["Pods"] == "?/3 ready, ? present, ? pending, ? failed", proc.stdout
    assert header["Status"].startswith("Undefined (incomplete)")
    assert header["GPUs"] == "0 desired, ? in use (held by pods bound to a node)"
    assert header["Incomplete"] == f"user 'wmap-no-pods-ns' may not list pods in namespace {world['serve']}"
    tree = proc.stdout.split("Tree:\n", 1)[1].splitlines()[0]
    assert tree.startswith("Deployment/web  Undefined  (incomplete)  ?/3 ready"), tree
    pods = [w for w in warnings(proc.stderr) if "may not list pods" in w]
    assert len(pods) == 1, proc.stderr
    readable = wmap(world["no-pods"], "describe", "deployment/tensorboard", "-n", world["train"])
    assert readable.returncode == 0, readable.stderr
    assert "?" not in readable.stdout.split("Tree:")[0] and "Incomplete:" not in readable.stdout


def test_explain_gang_components_with_pods_forbidden(world: dict[str, Any]) -> None:
    """The other one-workload commands on a LeaderWorkerSet whose pods may not be read: what rests on pods is
    `?`/unknown, never "0 present, 2 missing", and they exit 5."""
    serve = world["serve"]
    explain = wmap(world["no-pods"], "explain", "lws/vllm", "-n", serve)
    assert explain.returncode == 5, explain.stderr
    assert f"Incomplete: user 'wmap-no-pods-ns' may not list pods in namespace {serve}" in explain.stdout
    gang = wmap(world["no-pods"], "gang", "lws/vllm", "-n", serve)
    assert gang.returncode == 5, gang.stderr
    assert "its pods could not be read" in gang.stdout and "no pods yet" not in gang.stdout, gang.stdout
    table = [re.split(r" {3,}", line.strip()) for line in gang.stdout.split("\n\n")[1].splitlines()]
    assert table[0][4:8] == ["PRESENT", "SCHEDULED", "PENDING", "MISSING"], table
    assert table[1:] and all(row[4:8] == ["?"] * 4 and row[-1] == "unknown" for row in table[1:]), table
    assert "(0 present)" not in gang.stdout and " seen." not in gang.stdout
    document = json.loads(wmap(world["no-pods"], "gang", "lws/vllm", "-n", serve, "-o", "json").stdout)
    assert document["incomplete"] == [f"user 'wmap-no-pods-ns' may not list pods in namespace {serve}"]
    components = wmap(world["no-pods"], "components", "lws/vllm", "-n", serve)
    assert components.returncode == 5, components.stderr
    readable = wmap(world["admin"], "gang", "lws/vllm", "-n", serve)
    assert readable.returncode == 0 and "incomplete" not in readable.stdout and "unknown" not in readable.stdout


def test_watch_keeps_the_gaps_of_its_first_read(test_cluster: TestCluster, world: dict[str, Any]) -> None:
    """`get --watch` as a user who may not list JobSets: after an event the JobSet's Jobs and pods are still
    no rows: each state is resolved with the first read's gaps."""
    train = world["train"]
    watcher = subprocess.Popen(
        [str(WMAP), "get", "-n", train, "--watch", "--watch-timeout", "15", "--kubeconfig", str(world["no-kind"])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    try:
        assert watcher.stdout is not None
        header = watcher.stdout.readline()
        assert header.startswith("NAME "), header
        first = watcher.stdout.readline()
        assert first.startswith("tensorboard "), first
        conn = admin(test_cluster)
        pods = conn.request("GET", f"/api/v1/namespaces/{train}/pods", {"labelSelector": "app=tensorboard"})
        for pod in pods["items"]:
            set_pod_running(conn, train, pod["metadata"]["name"])
        conn.close()
        out, err = watcher.communicate(timeout=60)
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait(timeout=10)
    assert watcher.returncode == 0, err
    changed = [re.split(r" {3,}", line.strip()) for line in out.splitlines() if line.strip()]
    assert changed and {r[0] for r in changed} == {"tensorboard"}, out  # no Job or Pod rows of the JobSet
    assert changed[-1][4] == "2/2", out
    assert not [w for w in warnings(err) if "jobsets" not in w and "Karta" not in w], err


def test_a_removed_crd_leaves_pods_counted_not_promoted(test_cluster: TestCluster, world: dict[str, Any]) -> None:
    """The LWS CRD is deleted (its objects go with it); the StatefulSets and pods it made stay."""
    serve = world["serve"]
    before = rows(wmap(world["admin"], "get", "-n", serve).stdout)
    assert test_cluster.kubectl("delete", "crd", "leaderworkersets.leaderworkerset.x-k8s.io").returncode == 0
    try:
        eventually(
            lambda: "leaderworkerset" not in test_cluster.kubectl("api-resources").stdout, what="LWS no longer served"
        )
        proc = wmap(world["admin"], "get", "-n", serve)
        assert proc.returncode == 0, proc.stderr
        assert rows(proc.stdout) == [r for r in before if r[1] != "LeaderWorkerSet"]  # no StatefulSet/Pod rows
        lines = warnings(proc.stderr)
        crd = [w for w in lines if "leaderworkersets.leaderworkerset.x-k8s.io" in w]
        assert (len(crd) == 1 and "install the CRD" in crd[0] and " pods " in crd[0]) or "objects" in crd[0], lines
        assert len(lines) <= 2, lines
    finally:
        ensure_crds(test_cluster, "leaderworkersets.leaderworkerset.x-k8s.io")


def test_a_snapshot_of_a_partial_read_answers_as_the_live_read(world: dict[str, Any], tmp_path: Path) -> None:
    """`wmap snapshot` as a limited user records its gaps in the file: `get --from-file` then prints the
    same rows, `?` counts and gap line as live, and exits 5, instead of phantom rows and zeros."""
    for user, resource in (("no-kind", "jobsets.jobset.x-k8s.io"), ("no-pods", "may not list pods")):
        path = tmp_path / f"{user}.json"
        saved = wmap(world[user], "snapshot", "-A", "-o", str(path))
        assert saved.returncode == 5, saved.stderr
        gap_lines = [w for w in warnings(saved.stderr) if resource in w]
        assert len(gap_lines) == 1, saved.stderr
        live = wmap(world[user], "get", "-A")
        dump = subprocess.run(
            [str(WMAP), "get", "-A", "--from-file", str(path)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        assert dump.returncode == live.returncode == 5, (dump.stderr, live.stderr)
        ours = (world["train"], world["serve"])
        assert [r for r in rows(dump.stdout) if r[0] in ours] == [r for r in rows(live.stdout) if r[0] in ours]
        live_gaps = [w for w in warnings(live.stderr) if "may not list" in w or "belong to" in w]
        assert [w for w in warnings(dump.stderr) if "may not list" in w or "belong to" in w] == live_gaps
