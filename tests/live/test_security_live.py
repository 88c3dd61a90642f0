"""Least privilege on the genuine kube-apiserver: the operator and its gang controller run under the chart's
own ServiceAccount with the RBAC the chart renders (a TokenRequest token for that ServiceAccount); the CLI
runs under exactly the Role ``wmap auth`` prints. Access reviews say no to everything docs/security.md
does not list; the Karta webhook's failure policy is shown with the operator down."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.cli.conftest import run_wmap
from tests.cluster.apiserver import TestCluster
from tests.live.live_data import admin, ensure_crds, jobset_scenario
from tests.live.test_gang_manifests import VOLCANO_CRD, _coscheduling_crd
from tests.operator.support import OperatorProcess, eventually, free_port, helm_template
from tests.operator.test_security import Grant, _table

from workload_map.catalog import builtin_definitions
from workload_map.gang.emit import VOLCANO_GROUP_ANNOTATION
from workload_map.operator.gang import NAMESPACE_LABEL
from workload_map.operator.kube import operator_connection
from workload_map.sources.kube.access import serve_rules
from workload_map.sources.kube.connection import ClusterError, Connection

pytestmark = pytest.mark.live

RELEASE = "wm-workload-map"  # helm_template's release "wm": the chart's fullname
KARTAS = "/apis/run.ai/v1alpha1/kartas"
# What every authenticated identity may do by default (system:basic-user and co.): not the chart's doing.
BASIC_USER = {
    ("authorization.k8s.io", "selfsubjectaccessreviews", "create", False),
    ("authorization.k8s.io", "selfsubjectrulesreviews", "create", False),
    ("authentication.k8s.io", "selfsubjectreviews", "create", False),
    # public CA bundles, readable by every authenticated identity by default
    ("certificates.k8s.io", "clustertrustbundles", "get", False),
    ("certificates.k8s.io", "clustertrustbundles", "list", False),
    ("certificates.k8s.io", "clustertrustbundles", "watch", False),
}


def _ok(proc: Any) -> Any:
    assert proc.returncode == 0, proc.stderr
    return proc


def _apply(cluster: TestCluster, docs: list[dict[str, Any]]) -> None:
    _ok(cluster.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": docs})))


def _token_kubeconfig(cluster: TestCluster, sa: str, namespace: str, path: Path) -> Path:
    """A kubeconfig holding a TokenRequest token of the ServiceAccount: the API server authenticates it as
    system:serviceaccount:<namespace>:<sa> exactly as it would the token mounted in the chart's pod."""
    token = _ok(cluster.kubectl("create", "token", sa, "-n", namespace, "--duration=2h")).stdout.strip()
    return cluster.kubeconfig_for(token, path, user=f"{namespace}-{sa}", namespace=namespace)


def _karta(group: str) -> dict[str, Any]:
    """The built-in JobSet definition moved to a kind of its own (one Karta per root kind)."""
    base = next(d for d in builtin_definitions() if d.karta.identity and d.karta.identity.kind == "JobSet")
    doc = base.karta.to_dict()
    doc["metadata"] = {"name": f"widgets.{group}"}
    doc["spec"]["structureDefinition"]["rootComponent"]["kind"] = {"group": group, "version": "v1", "kind": "Widget"}
    return doc


class Release:
    def __init__(self, namespace: str, op: OperatorProcess, kubeconfig: Path, docs: list[dict[str, Any]]) -> None:
        self.namespace, self.op, self.kubeconfig, self.docs = namespace, op, kubeconfig, docs


@pytest.fixture(scope="module")
def release(test_cluster: TestCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Release]:
    for crd in (VOLCANO_CRD, _coscheduling_crd()):
        _ok(test_cluster.kubectl("apply", "--server-side", "-f", str(crd)))
    for name in ("podgroups.scheduling.volcano.sh", "podgroups.scheduling.x-k8s.io"):
        _ok(test_cluster.kubectl("wait", "--for=condition=Established", f"crd/{name}", "--timeout=60s"))
    ensure_crds(test_cluster, "jobsets.jobset.x-k8s.io", "kartas.run.ai")
    ns = f"wmap-sec-{secrets.token_hex(3)}"
    _ok(test_cluster.kubectl("create", "namespace", ns))
    values = ("--set", "gangController.enabled=true", "--set", "serve.enabled=true")
    docs = [d for d in yaml.safe_load_all(helm_template(*values, namespace=ns)) if d]
    rbac_kinds = {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Secret"}
    _apply(test_cluster, [d for d in docs if d["kind"] in rbac_kinds])
    port = free_port()
    hooks = []
    for doc in docs:
        if doc["kind"] in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"):
            for hook in doc["webhooks"]:
                # The test API server reaches the operator on 127.0.0.1, not through the chart's Service.
                hook["clientConfig"] = {"url": f"https://127.0.0.1:{port}{hook['clientConfig']['service']['path']}"}
            hooks.append(doc)
    _apply(test_cluster, hooks)
    deployment = next(d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == RELEASE)
    args = [a for a in deployment["spec"]["template"]["spec"]["containers"][0]["args"] if "--webhook-port" not in a]
    tmp = tmp_path_factory.mktemp("security")
    kubeconfig = _token_kubeconfig(test_cluster, RELEASE, ns, tmp / "operator.kubeconfig")
    log = tmp / "operator.log"
    op = OperatorProcess(
        kubeconfig,
        ns,
        log,
        webhook_port=port,
        health_port=free_port(),
        identity="sa-operator",
        extra_args=(*args, "--gang-debounce-seconds=0.3"),
    )
    op.start()
    try:
        eventually(op.ready, timeout=90, what=f"operator ready under its ServiceAccount (log: {log})")
        yield Release(ns, op, kubeconfig, docs)
    finally:
        op.stop()
        print(log.read_text()[-5000:])
        test_cluster.kubectl("delete", "validatingwebhookconfiguration,mutatingwebhookconfiguration", RELEASE)
        test_cluster.kubectl("delete", "clusterrolebinding,clusterrole", RELEASE, f"{RELEASE}-serve")
        test_cluster.kubectl("delete", "namespace", ns, "--wait=false")


@pytest.fixture(scope="module")
def conn(test_cluster: TestCluster) -> Iterator[Connection]:
    c = admin(test_cluster)
    yield c
    c.close()


def _namespace(conn: Connection, labels: dict[str, str]) -> str:
    name = f"wmap-sec-data-{secrets.token_hex(3)}"
    conn.request(
        "POST",
        "/api/v1/namespaces",
        body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}},
    )
    return name


def _conditions(conn: Connection, name: str) -> dict[str, str]:
    obj = conn.request("GET", f"{KARTAS}/{name}")
    return {c["type"]: c["status"] for c in (obj.get("status") or {}).get("conditions") or []}


def test_operator_and_gang_controller_work_under_the_charts_serviceaccount(
    test_cluster: TestCluster, release: Release, conn: Connection
) -> None:
    # Admission (validate + mutate) and reconcile: a new Karta is labelled, then gets its conditions.
    group = f"sec-{secrets.token_hex(3)}.example.com"
    created = conn.request("POST", KARTAS, body=_karta(group))
    assert created["metadata"]["labels"]["run.ai/karta-kind"] == "Widget"  # stamped by /mutate-karta
    name = created["metadata"]["name"]
    conditions = eventually(
        lambda: (c := _conditions(conn, name)) and "Validated" in c and c, timeout=60, what="Karta reconciled"
    )
    assert conditions["Validated"] == "True" and conditions["CRDExists"] == "False"
    # The gang controller: a JobSet in an opted-in namespace gets its Volcano PodGroup, and a new pod of it
    # is attached by the pod webhook (which walks the pod's owners with the operator's token).
    ns = _namespace(conn, {NAMESPACE_LABEL: "volcano"})
    jobset = jobset_scenario(conn, ns, running=False)
    path = f"/apis/scheduling.volcano.sh/v1beta1/namespaces/{ns}/podgroups"
    groups = eventually(lambda: conn.get(path).get("items") or None, timeout=60, what="PodGroup created")
    assert [g["metadata"]["name"] for g in groups] == [f"pg-{jobset['metadata']['uid']}"]
    pods = conn.get(f"/api/v1/namespaces/{ns}/pods").get("items") or []
    assert pods and all(VOLCANO_GROUP_ANNOTATION in (p["metadata"].get("annotations") or {}) for p in pods)
    # The certificate lives in the Secret the chart created; Helm's metadata on it survived the operator's write.
    secret = conn.request("GET", f"/api/v1/namespaces/{release.namespace}/secrets/{RELEASE}-webhook-tls")
    assert {"ca.crt", "tls.crt", "tls.key"} <= set(secret["data"])
    assert secret["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "Helm"
    # Nothing the operator does was refused: its rules cover everything it reads and writes.
    # (A refused request is logged with the API server's reason, "Forbidden (GET ...)".)
    refused = [line for line in release.op.log_lines() if any("forbidden" in str(v).lower() for v in line.values())]
    assert refused == [], refused[:3]
    conn.request("DELETE", f"{KARTAS}/{name}")


def _can(cluster: TestCluster, kubeconfig: Path, *args: str) -> bool:
    proc = cluster.kubectl("auth", "can-i", *args, kubeconfig=kubeconfig)
    assert proc.stdout.strip() in ("yes", "no"), (args, proc.stdout, proc.stderr)
    return proc.stdout.strip() == "yes"


def _rules_review(kubeconfig: Path, namespace: str) -> set[Grant]:
    c = operator_connection(str(kubeconfig))
    try:
        review = c.request(
            "POST",
            "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
            body={
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SelfSubjectRulesReview",
                "spec": {"namespace": namespace},
            },
        )
    finally:
        c.close()
    assert not review["status"].get("incomplete"), review["status"]
    return {
        (group, resource, verb, bool(rule.get("resourceNames")))
        for rule in review["status"]["resourceRules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    }


def test_access_reviews_say_no_to_secrets_writes_and_everything_not_documented(
    test_cluster: TestCluster, release: Release, conn: Connection
) -> None:
    kc, ns = release.kubeconfig, release.namespace
    other = _namespace(conn, {})
    # Secrets: only the operator's own certificate, by name, and only get/update.
    assert _can(test_cluster, kc, "get", f"secret/{RELEASE}-webhook-tls", "-n", ns)
    assert _can(test_cluster, kc, "update", f"secret/{RELEASE}-webhook-tls", "-n", ns)
    for args in (
        ("get", "secret/anything-else", "-n", ns),
        ("list", "secrets", "-n", ns),
        ("watch", "secrets", "-n", ns),
        ("create", "secrets", "-n", ns),
        ("delete", f"secret/{RELEASE}-webhook-tls", "-n", ns),
        ("get", "secrets", "-n", other),
        ("list", "secrets", "--all-namespaces"),
        ("list", "configmaps", "--all-namespaces"),
        ("list", "services", "--all-namespaces"),
        ("create", "serviceaccounts/token", "-n", other),
    ):
        assert not _can(test_cluster, kc, *args), args
    # No write on workloads or pods.
    for resource in ("pods", "jobsets.jobset.x-k8s.io", "jobs.batch", "deployments.apps", "pytorchjobs.kubeflow.org"):
        for verb in ("create", "update", "patch", "delete"):
            assert not _can(test_cluster, kc, verb, resource, "-n", other), (verb, resource)
        if resource != "pytorchjobs.kubeflow.org":  # not served here: kubectl cannot resolve it to ask
            assert _can(test_cluster, kc, "list", resource, "-n", other), resource
    assert not _can(test_cluster, kc, "create", "kartas.run.ai") and not _can(
        test_cluster, kc, "delete", "kartas.run.ai"
    )
    # Everything the API server grants is in the tables: in the release's namespace (ClusterRole + Role) and
    # in any other namespace (ClusterRole only).
    cluster_table = _table("Operator: ClusterRole")
    role_table = _table("Operator: Role in its own namespace")
    for namespace, documented in ((ns, cluster_table | role_table), (other, cluster_table)):
        granted = _rules_review(kc, namespace) - BASIC_USER
        assert granted <= documented, sorted(granted - documented)
        assert documented - granted <= {g for g in documented if g[0] == "admissionregistration.k8s.io"}, sorted(
            documented - granted
        )


def _resource_versions(conn: Connection, ns: str) -> dict[str, str]:
    out = {}
    for path in (f"/api/v1/namespaces/{ns}/pods", f"/apis/batch/v1/namespaces/{ns}/jobs"):
        for item in conn.get(path).get("items") or []:
            out[f"{path}/{item['metadata']['name']}"] = item["metadata"]["resourceVersion"]
    js = conn.get(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{ns}/jobsets").get("items") or []
    out.update({f"jobset/{j['metadata']['name']}": j["metadata"]["resourceVersion"] for j in js})
    return out


def _cli_user(test_cluster: TestCluster, ns: str, name: str, tmp: Path, *auth_args: str) -> Path:
    """A ServiceAccount bound to exactly the roles ``wmap auth -n NS`` prints; its kubeconfig."""
    printed = _ok(run_wmap("auth", "-n", ns, "--name", name, *auth_args)).stdout
    roles = [d for d in yaml.safe_load_all(printed) if d]
    for role in roles:
        for rule in role["rules"]:
            assert "secrets" not in rule["resources"], rule
    _ok(test_cluster.kubectl("create", "serviceaccount", name, "-n", ns))
    _apply(test_cluster, roles)
    subject = f"--serviceaccount={ns}:{name}"
    _ok(test_cluster.kubectl("create", "rolebinding", name, "-n", ns, f"--role={name}", subject))
    _ok(
        test_cluster.kubectl(
            "create", "clusterrolebinding", f"{name}-{ns}", f"--clusterrole={name}-definitions", subject
        )
    )
    return _token_kubeconfig(test_cluster, name, ns, tmp / f"{name}.kubeconfig")


def test_cli_read_only_commands_work_under_exactly_the_printed_role_and_never_write(
    test_cluster: TestCluster, release: Release, conn: Connection, tmp_path: Path
) -> None:
    ns = _namespace(conn, {})
    jobset = jobset_scenario(conn, ns, name="train", running=True)
    reader = _cli_user(test_cluster, ns, "wmap-reader", tmp_path)
    env = {"KUBECONFIG": str(reader)}
    before = _resource_versions(conn, ns)
    try:
        listed = _ok(run_wmap("get", env=env))
        assert "forbidden" not in listed.stderr.lower(), listed.stderr
        assert "train" in listed.stdout, listed.stdout
        _ok(run_wmap("describe", "jobset/train", env=env))
        _ok(run_wmap("explain", "jobset/train", env=env))
        _ok(run_wmap("gang", "jobset/train", env=env))
        _ok(run_wmap("snapshot", "-o", str(tmp_path / "dump.yaml"), env=env))
        assert "train" in (tmp_path / "dump.yaml").read_text()
        # A write is refused under the read-only role...
        refused = run_wmap("update", "jobset/train", "--label", "tier=gold", env=env)
        assert refused.returncode != 0 and "forbidden" in refused.stderr.lower(), refused.stderr
        assert _resource_versions(conn, ns) == before  # nothing the reader ran wrote anything
        # ...and allowed, as a patch of the workload only, under the --update role.
        updater = _cli_user(test_cluster, ns, "wmap-updater", tmp_path, "--update")
        _ok(run_wmap("update", "jobset/train", "--label", "tier=gold", env={"KUBECONFIG": str(updater)}))
        after = _resource_versions(conn, ns)
        changed = {k for k in after if after[k] != before.get(k)}
        assert changed == {"jobset/train"}, changed
        assert jobset["metadata"]["uid"]
    finally:
        test_cluster.kubectl("delete", "clusterrolebinding", f"wmap-reader-{ns}", f"wmap-updater-{ns}")
        test_cluster.kubectl("delete", "clusterrole", "wmap-reader-definitions", "wmap-updater-definitions")


def test_wmap_serve_of_one_namespace_works_under_the_role_wmap_auth_prints(
    test_cluster: TestCluster, release: Release, conn: Connection, tmp_path: Path
) -> None:
    """A team's dashboard: `wmap serve -n NS` under exactly the Role of `wmap auth -n NS --queues` (and its
    ClusterRole for the Kartas and the cluster-scoped queues) serves that namespace's workloads, and watches
    whichever queue kinds are served, with every resource readable and nothing forbidden."""

    ns = _namespace(conn, {})
    jobset_scenario(conn, ns, name="team-train", running=True)
    reader = _cli_user(test_cluster, ns, "wmap-team", tmp_path, "--queues")
    port = free_port()
    argv = [sys.executable, "-m", "workload_map.cli.main", "serve", "-n", ns, "--capacity-interval=0"]
    log = tmp_path / "serve-ns.log"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [*argv, f"--port={port}", "--kubeconfig", str(reader)], stdout=subprocess.DEVNULL, stderr=err
        )
    try:

        def get(path: str) -> str:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
                return str(response.read().decode())

        eventually(lambda: get("/readyz") == "ready\n", timeout=90, what=f"wmap serve -n ready (log: {log})")
        rows = json.loads(get("/api/v1/workloads"))["items"]
        assert [(w["namespace"], w["name"], w["type"]) for w in rows] == [(ns, "team-train", "JobSet")], rows
        metrics = get("/metrics")
        readable = [line for line in metrics.splitlines() if line.startswith("wmap_watch_resource_readable{")]
        assert readable and all(float(line.rsplit(" ", 1)[1]) == 1 for line in readable), readable
        assert "forbidden" not in log.read_text().lower(), log.read_text()[-2000:]
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        test_cluster.kubectl("delete", "clusterrolebinding", f"wmap-team-{ns}")
        test_cluster.kubectl("delete", "clusterrole", "wmap-team-definitions")


def test_wmap_serve_works_under_its_own_account_and_reads_nothing_else(
    test_cluster: TestCluster, release: Release, conn: Connection, tmp_path: Path
) -> None:
    """The chart's serve Deployment args under a token of the chart's serve ServiceAccount: metrics served
    for every covered workload, every resource readable, and no Secret, write or rule beyond `wmap auth`."""

    ns = _namespace(conn, {})
    jobset_scenario(conn, ns, name="metered", running=True)
    account = f"{RELEASE}-serve"
    kubeconfig = _token_kubeconfig(test_cluster, account, release.namespace, tmp_path / "serve.kubeconfig")
    [deployment] = [d for d in release.docs if d["kind"] == "Deployment" and d["metadata"]["name"] == account]
    spec = deployment["spec"]["template"]["spec"]
    assert spec["serviceAccountName"] == account
    [container] = spec["containers"]
    assert container["command"] == ["wmap", "serve"]
    port = free_port()
    # The token the chart mounts from its Secret at --token-file: here a file of ours, sent as the chart's
    # ServiceMonitor sends it.
    token = "t" * 32
    (tmp_path / "token").write_text(token)
    assert "--token-file=/etc/wmap-serve/token" in container["args"]
    args = [
        f"--token-file={tmp_path / 'token'}" if a.startswith("--token-file=") else a
        for a in container["args"]
        if not a.startswith(("--port", "--address"))
    ]
    argv = [sys.executable, "-m", "workload_map.cli.main", "serve", *args, "--address=127.0.0.1", f"--port={port}"]
    log = tmp_path / "serve.log"
    with log.open("w") as err:
        proc = subprocess.Popen([*argv, "--kubeconfig", str(kubeconfig)], stdout=subprocess.DEVNULL, stderr=err)
    try:

        def get(path: str) -> str:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"Bearer {token}"}
            )
            with urllib.request.urlopen(request, timeout=5) as response:
                return str(response.read().decode())

        eventually(lambda: get("/readyz") == "ready\n", timeout=90, what=f"wmap serve ready (log: {log})")
        metrics = eventually(
            lambda: (m := get("/metrics")) and 'workload="metered"' in m and m, timeout=60, what="metered exported"
        )
        readable = [line for line in metrics.splitlines() if line.startswith("wmap_watch_resource_readable{")]
        assert readable and all(float(line.rsplit(" ", 1)[1]) == 1 for line in readable), readable
        assert "forbidden" not in log.read_text().lower(), log.read_text()[-2000:]
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    for args in (
        ("list", "secrets", "--all-namespaces"),
        ("get", f"secret/{RELEASE}-webhook-tls", "-n", release.namespace),
        ("list", "configmaps", "--all-namespaces"),
        ("patch", "jobsets.jobset.x-k8s.io", "-n", ns),
        ("delete", "pods", "-n", ns),
        ("create", "podgroups.scheduling.volcano.sh", "-n", ns),
        ("patch", "kartas.run.ai"),
    ):
        assert not _can(test_cluster, kubeconfig, *args), args
    documented = {
        (g, r, v, False)
        for rule in serve_rules(builtin_definitions())
        for g in rule["apiGroups"]
        for r in rule["resources"]
        for v in rule["verbs"]
    }
    granted = _rules_review(kubeconfig, ns) - BASIC_USER
    assert granted == documented, (sorted(granted - documented), sorted(documented - granted))


def test_karta_webhook_failure_policy_with_the_operator_down(
    test_cluster: TestCluster, release: Release, conn: Connection
) -> None:
    """Runs last in the module: it stops the operator."""
    pod_ns = _namespace(conn, {NAMESPACE_LABEL: "volcano"})
    keep = conn.request("POST", KARTAS, body=_karta(f"sec-{secrets.token_hex(3)}.example.com"))
    release.op.stop()
    # failurePolicy Fail: no Karta is created or updated unvalidated while no replica answers...
    with pytest.raises(ClusterError) as refused:
        conn.request("POST", KARTAS, body=_karta(f"sec-{secrets.token_hex(3)}.example.com"))
    assert "failed calling webhook" in str(refused.value), refused.value
    with pytest.raises(ClusterError):
        conn.request(
            "PATCH",
            f"{KARTAS}/{keep['metadata']['name']}",
            body={"metadata": {"annotations": {"x": "y"}}},
            content_type="application/merge-patch+json",
        )
    # ...deleting still works, and pods are created (the pod webhook is Ignore), just not attached.
    conn.request("DELETE", f"{KARTAS}/{keep['metadata']['name']}")
    jobset_scenario(conn, pod_ns, running=False)
    pods = conn.get(f"/api/v1/namespaces/{pod_ns}/pods").get("items") or []
    assert pods and not any(VOLCANO_GROUP_ANNOTATION in (p["metadata"].get("annotations") or {}) for p in pods)
    # webhook.failurePolicy=Ignore: Kartas go in unvalidated during the outage.
    for kind in ("validatingwebhookconfiguration", "mutatingwebhookconfiguration"):
        patch = json.dumps([{"op": "replace", "path": "/webhooks/0/failurePolicy", "value": "Ignore"}])
        _ok(test_cluster.kubectl("patch", kind, RELEASE, "--type=json", "-p", patch))
    # The apiserver sees a changed webhook configuration through its own watch, a moment later (seconds
    # on a loaded machine): until then it still calls the webhook and refuses, so the create is retried.
    created = eventually(
        lambda: conn.request("POST", KARTAS, body=_karta(f"sec-{secrets.token_hex(3)}.example.com")),
        timeout=30,
        what="a Karta created once the webhooks' failurePolicy Ignore is in effect",
    )
    assert "run.ai/karta-kind" not in (created["metadata"].get("labels") or {})  # nothing mutated it
    conn.request("DELETE", f"{KARTAS}/{created['metadata']['name']}")
