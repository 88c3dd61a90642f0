"""The gang controller (operator subprocess, ``--gang-controller``) against the genuine kube-apiserver.

Real CRDs: the Volcano PodGroup (trimmed corpus copy: the server prunes the fields it lacks) and the
scheduler-plugins coscheduling PodGroup. No kube-controller-manager runs, so there is no garbage
collector: the tests check the owner references are right and that the controller itself deletes the
groups it no longer wants (workload gone, namespace relabelled or opted out).
"""

from __future__ import annotations

import copy
import json
import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest
from tests.cluster.apiserver import TestCluster
from tests.live.live_data import admin, create, ensure_crds, jobset_scenario, owner_ref, pod
from tests.live.test_gang_manifests import VOLCANO_CRD, _coscheduling_crd
from tests.operator.support import OperatorProcess, eventually, free_port, pod_webhook_configuration

from workload_map.catalog import builtin_definitions
from workload_map.gang.emit import COSCHEDULING_LABEL, VOLCANO_GROUP_ANNOTATION
from workload_map.operator.gang import MANAGED_BY, MANAGED_BY_LABEL, NAMESPACE_LABEL, WORKLOAD_UID_LABEL
from workload_map.sources.kube.connection import ClusterError, Connection

pytestmark = pytest.mark.live

WEBHOOK = "wmap-gang-pods"
VOLCANO_GROUPS = "/apis/scheduling.volcano.sh/v1beta1/namespaces/{ns}/podgroups"
COSCHEDULING_GROUPS = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/podgroups"
JOBSET_MIN_MEMBER = 5  # the corpus paralleljobs JobSet: Σ replicas × min(parallelism, completions)


def _ok(proc: Any) -> Any:
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def conn(test_cluster: TestCluster) -> Iterator[Connection]:
    c = admin(test_cluster)
    yield c
    c.close()


@pytest.fixture(scope="module")
def gang_operator(test_cluster: TestCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OperatorProcess]:
    for crd in (VOLCANO_CRD, _coscheduling_crd()):
        _ok(test_cluster.kubectl("apply", "--server-side", "-f", str(crd)))
    for name in ("podgroups.scheduling.volcano.sh", "podgroups.scheduling.x-k8s.io"):
        _ok(test_cluster.kubectl("wait", "--for=condition=Established", f"crd/{name}", "--timeout=60s"))
    # The Karta CRD too: the operator is ready once its Karta controller has synced.
    ensure_crds(test_cluster, "jobsets.jobset.x-k8s.io", "kartas.run.ai")
    lease_ns = f"wmap-gang-op-{secrets.token_hex(3)}"
    _ok(test_cluster.kubectl("create", "namespace", lease_ns))
    port = free_port()
    config = pod_webhook_configuration(f"https://127.0.0.1:{port}", WEBHOOK, NAMESPACE_LABEL)
    _ok(test_cluster.kubectl("apply", "-f", "-", input=json.dumps(config)))
    log = tmp_path_factory.mktemp("gang-operator") / "operator.log"
    op = OperatorProcess(
        test_cluster.kubeconfig_path,
        lease_ns,
        log,
        webhook_port=port,
        health_port=free_port(),
        identity="gang-operator",
        extra_args=(
            "--gang-controller",
            "--gang-debounce-seconds=0.3",
            "--validating-webhook=",
            f"--mutating-webhook={WEBHOOK}",
            "--lease-name=wmap-gang-operator",
        ),
    )
    op.start()
    try:
        eventually(op.ready, timeout=60, what=f"operator ready (log: {log})")

        def ca_patched() -> bool:
            out = test_cluster.kubectl(
                "get", "mutatingwebhookconfiguration", WEBHOOK, "-o", "jsonpath={.webhooks[0].clientConfig.caBundle}"
            ).stdout
            return bool(out.strip())

        eventually(ca_patched, timeout=30, what="caBundle patched")
        yield op
    finally:
        op.stop()
        test_cluster.kubectl("delete", "mutatingwebhookconfiguration", WEBHOOK, "--ignore-not-found")
        print(log.read_text()[-5000:])


def _namespace(conn: Connection, scheduler: str | None) -> str:
    name = f"gang-ctl-{secrets.token_hex(3)}"
    labels = {NAMESPACE_LABEL: scheduler} if scheduler else {}
    conn.request(
        "POST",
        "/api/v1/namespaces",
        body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}},
    )
    return name


def _groups(conn: Connection, path: str) -> list[dict[str, Any]]:
    return list(conn.get(path).get("items") or [])


def _pods(conn: Connection, ns: str) -> list[dict[str, Any]]:
    return list(conn.get(f"/api/v1/namespaces/{ns}/pods").get("items") or [])


def _new_member(conn: Connection, ns: str, jobset_name: str) -> dict[str, Any]:
    """A new pod of the first Job (what the Job controller would create), with generateName."""
    job = conn.get(f"/apis/batch/v1/namespaces/{ns}/jobs/{jobset_name}-workers-0")
    template = job["spec"]["template"]
    labels = {**template["metadata"]["labels"], "job-name": job["metadata"]["name"]}
    body = pod("unused", ns, template, labels, {**job, "apiVersion": "batch/v1", "kind": "Job"}, node=None)
    body["metadata"].pop("name")
    body["metadata"]["generateName"] = f"{job['metadata']['name']}-"
    return create(conn, body, "pods", ns)


def _delete_workload(conn: Connection, ns: str, jobset: dict[str, Any]) -> None:
    """What the garbage collector would do, by hand (none runs here): the JobSet, its Jobs and pods."""
    conn.request("DELETE", f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{ns}/jobsets/{jobset['metadata']['name']}")
    for kind in ("jobs", "pods"):
        group = "/apis/batch/v1" if kind == "jobs" else "/api/v1"
        for item in conn.get(f"{group}/namespaces/{ns}/{kind}").get("items") or []:
            try:
                conn.request("DELETE", f"{group}/namespaces/{ns}/{kind}/{item['metadata']['name']}")
            except ClusterError as exc:
                assert exc.status == 404


def test_volcano_groups_created_attached_and_removed(
    test_cluster: TestCluster, gang_operator: OperatorProcess, conn: Connection
) -> None:
    ns = _namespace(conn, "volcano")
    jobset = jobset_scenario(conn, ns, running=False)
    uid = jobset["metadata"]["uid"]
    path = VOLCANO_GROUPS.format(ns=ns)
    [group] = eventually(lambda: _groups(conn, path), timeout=30, what="volcano PodGroup created")
    assert group["metadata"]["name"] == f"pg-{uid}"
    assert group["spec"]["minMember"] == JOBSET_MIN_MEMBER
    assert group["metadata"]["ownerReferences"] == [owner_ref(jobset)]
    assert group["metadata"]["labels"][WORKLOAD_UID_LABEL] == uid
    assert group["metadata"]["labels"][MANAGED_BY_LABEL] == MANAGED_BY
    managers = {(m["manager"], m["operation"]) for m in group["metadata"]["managedFields"]}
    assert ("workload-map", "Apply") in managers, managers
    # The scenario's pods were created after the namespace opted in: the webhook attached every one.
    for p in _pods(conn, ns):
        assert p["metadata"]["annotations"][VOLCANO_GROUP_ANNOTATION] == f"pg-{uid}", p["metadata"]["name"]
    created = _new_member(conn, ns, jobset["metadata"]["name"])
    assert created["metadata"]["annotations"][VOLCANO_GROUP_ANNOTATION] == f"pg-{uid}"
    assert created["spec"]["schedulerName"] == "volcano"
    # New pods re-run the plan; the same group is not written again.
    rv = _groups(conn, path)[0]["metadata"]["resourceVersion"]
    time.sleep(1.5)
    assert [g["metadata"]["resourceVersion"] for g in _groups(conn, path)] == [rv]
    _delete_workload(conn, ns, jobset)
    eventually(lambda: _groups(conn, path) == [], timeout=30, what="PodGroup deleted with its workload")


def test_coscheduling_then_relabel_and_opt_out(
    test_cluster: TestCluster, gang_operator: OperatorProcess, conn: Connection
) -> None:
    ns = _namespace(conn, "coscheduling")
    jobset = jobset_scenario(conn, ns, running=False)
    uid = jobset["metadata"]["uid"]
    cos, vol = COSCHEDULING_GROUPS.format(ns=ns), VOLCANO_GROUPS.format(ns=ns)
    [group] = eventually(lambda: _groups(conn, cos), timeout=30, what="coscheduling PodGroup created")
    assert group["spec"]["minMember"] == JOBSET_MIN_MEMBER
    assert group["metadata"]["ownerReferences"] == [owner_ref(jobset)]
    created = _new_member(conn, ns, jobset["metadata"]["name"])
    assert created["metadata"]["labels"][COSCHEDULING_LABEL] == f"pg-{uid}"
    assert created["spec"].get("schedulerName") == "default-scheduler"  # the profile's name is the user's
    # Another scheduler: the coscheduling group goes, a Volcano one comes.
    _ok(test_cluster.kubectl("label", "namespace", ns, f"{NAMESPACE_LABEL}=volcano", "--overwrite"))
    eventually(lambda: _groups(conn, cos) == [] and len(_groups(conn, vol)) == 1, timeout=30, what="switched")
    # Opting out removes the groups the controller made; new pods are left alone.
    _ok(test_cluster.kubectl("label", "namespace", ns, f"{NAMESPACE_LABEL}-"))
    eventually(lambda: _groups(conn, vol) == [], timeout=30, what="groups removed on opt-out")
    plain = _new_member(conn, ns, jobset["metadata"]["name"])
    assert VOLCANO_GROUP_ANNOTATION not in (plain["metadata"].get("annotations") or {})


def test_pods_outside_opted_in_namespaces_untouched(
    test_cluster: TestCluster, gang_operator: OperatorProcess, conn: Connection
) -> None:
    ns = _namespace(conn, None)
    jobset = jobset_scenario(conn, ns, running=False)
    for p in _pods(conn, ns):
        assert VOLCANO_GROUP_ANNOTATION not in (p["metadata"].get("annotations") or {}), p["metadata"]
        assert COSCHEDULING_LABEL not in p["metadata"]["labels"], p["metadata"]
    assert _groups(conn, VOLCANO_GROUPS.format(ns=ns)) == []
    assert jobset["metadata"]["uid"]


KARTAS = "/apis/run.ai/v1alpha1/kartas"
JOBSET_KARTA = "jobset-x-k8s-io-jobset-v1alpha2"
REPLICATED_JOB_LABEL = 'metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]'


def _min_members(conn: Connection, path: str) -> dict[str, int]:
    return {g["metadata"]["name"]: g["spec"]["minMember"] for g in _groups(conn, path)}


def _put_karta_spec(conn: Connection, name: str, spec: dict[str, Any]) -> dict[str, Any] | None:
    """Create the Karta or replace its spec; returns the object it replaced (None: there was none)."""
    try:
        current = conn.get(f"{KARTAS}/{name}")
    except ClusterError as exc:
        assert exc.status == 404
        conn.request(
            "POST",
            KARTAS,
            body={"apiVersion": "run.ai/v1alpha1", "kind": "Karta", "metadata": {"name": name}, "spec": spec},
        )
        return None
    conn.request("PUT", f"{KARTAS}/{name}", body={**current, "spec": spec})
    return current


def test_cluster_karta_overrides_the_gang_rule(
    test_cluster: TestCluster, gang_operator: OperatorProcess, conn: Connection
) -> None:
    """A cluster Karta for JobSet (origin "cluster") replaces the built-in definition in the controller and the
    pod webhook: one group per replicatedJob instead of one for the whole JobSet; back when it goes."""
    ns = _namespace(conn, "volcano")
    jobset = jobset_scenario(conn, ns, running=False)
    uid = jobset["metadata"]["uid"]
    path = VOLCANO_GROUPS.format(ns=ns)
    builtin = next(d for d in builtin_definitions() if d.name == JOBSET_KARTA).karta.to_dict()
    per_job = copy.deepcopy(builtin["spec"])
    per_job["optimizationInstructions"]["gangScheduling"]["podGroups"][0]["members"] = [
        {"componentName": "replicatedJob", "groupByKeyPaths": [f".{REPLICATED_JOB_LABEL}"]}
    ]
    previous = _put_karta_spec(conn, JOBSET_KARTA, per_job)
    try:
        # The Karta may already be in the cluster from an earlier test (then the built-in rule is back first).
        split = {f"pg-{uid}-workers": 4, f"pg-{uid}-driver": 1}
        eventually(lambda: _min_members(conn, path) == split, timeout=30, what="groups re-planned per replicatedJob")
        created = _new_member(conn, ns, jobset["metadata"]["name"])  # a pod of the workers Job
        assert created["metadata"]["annotations"][VOLCANO_GROUP_ANNOTATION] == f"pg-{uid}-workers"
    finally:
        if previous is None:
            conn.request("DELETE", f"{KARTAS}/{JOBSET_KARTA}")
        else:
            _put_karta_spec(conn, JOBSET_KARTA, previous["spec"])
    whole = {f"pg-{uid}": JOBSET_MIN_MEMBER}
    eventually(lambda: _min_members(conn, path) == whole, timeout=30, what="built-in rule back")
