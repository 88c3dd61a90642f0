"""A Katib Experiment against the genuine kube-apiserver with Katib's own CRDs (read in place from
../shared/corpus/katib-experiment/crd/; schema-less, as Katib ships them).

The objects are created as Katib's controllers create them (no controller runs): the Suggestion, its
Deployment and ReplicaSet and the suggestion pod; a Trial, its batch Job and the trial pod, with real
owner-reference uids and the labels the controllers and the pod webhook stamp. ``get -A`` shows one
Experiment row whose tree holds both pods (the trial's Job is no row of its own), ``describe`` reaches
the same tree through the Experiment's own chain, and ``wmap update`` stores the scheduler name and
queue label in ``.spec.trialTemplate.trialSpec``. The CRDs and every object are removed at the end:
the test apiserver runs no garbage collector, and leftovers would be orphans in later modules' reads.
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from live_data import (
    CORPUS,
    admin,
    assert_narrow_read_matches_full,
    create,
    create_namespace,
    eventually,
    live_options,
    owner_ref,
    pod,
    set_pod_running,
)
from tests.cluster.apiserver import TestCluster

from workload_map.api.cluster_update import patch_workload
from workload_map.base.snapshot import key_of
from workload_map.catalog import builtin_definitions
from workload_map.resolve.writes import PodSpecChange, update_workload
from workload_map.sources.kube import live_source
from workload_map.sources.kube.discovery import discover
from workload_map.tree.build import tree_of

pytestmark = pytest.mark.live

CRD_DIR = CORPUS / "katib-experiment" / "crd"
KATIB_RESOURCES = ("experiments", "trials", "suggestions")
GROUP = "kubeflow.org"
TRIAL = "random-7xq4b2nd"  # <experiment>-<8 random chars>, as the suggestion service names trials


def _served(cluster: TestCluster) -> set[str]:
    proc = cluster.kubectl("api-resources", "--api-group", GROUP, "-o", "name")
    return {line.split(".", 1)[0] for line in proc.stdout.split()} & set(KATIB_RESOURCES)


def _remove(cluster: TestCluster, namespace: str) -> None:
    # Built-in objects have no garbage collector here, and no kubelet confirms a bound pod's graceful
    # deletion; deleting the CRDs deletes the Katib objects.
    cluster.kubectl("delete", "pods", "--all", "-n", namespace, "--grace-period=0", "--force")
    cluster.kubectl("delete", "jobs,deployments,replicasets", "--all", "-n", namespace, "--wait=true")
    cluster.kubectl("delete", "namespace", namespace, "--wait=false")
    for name in KATIB_RESOURCES:
        cluster.kubectl("delete", "-f", str(CRD_DIR / f"{name[:-1]}.yaml"), "--ignore-not-found", "--wait=true")
    eventually(lambda: not _served(cluster), timeout=60, what="the Katib CRDs no longer served")
    left = cluster.kubectl("get", "pods,jobs,deployments,replicasets", "-n", namespace, "-o", "name").stdout.split()
    assert left == [], left


@pytest.fixture(scope="module")
def experiment(test_cluster: TestCluster) -> Iterator[dict[str, Any]]:
    for name in KATIB_RESOURCES:
        proc = test_cluster.kubectl("create", "-f", str(CRD_DIR / f"{name[:-1]}.yaml"))
        assert proc.returncode == 0 or "AlreadyExists" in proc.stderr, proc.stderr
    conn = admin(test_cluster)
    eventually(
        lambda: all(discover(conn).served(GROUP, k) for k in ("Experiment", "Trial", "Suggestion")),
        timeout=60,
        what="discovery of the Katib kinds",
    )
    namespace = create_namespace(conn, f"katib-{secrets.token_hex(3)}")
    try:
        body = yaml.safe_load((CORPUS / "katib-experiment" / "examples" / "random.yaml").read_text())
        body["metadata"]["namespace"] = namespace
        exp = create(conn, body, "experiments", namespace)
        owned = {"namespace": namespace}
        suggestion = create(
            conn,
            {
                "apiVersion": "kubeflow.org/v1beta1",
                "kind": "Suggestion",
                "metadata": {"name": "random", **owned, "ownerReferences": [owner_ref(exp)]},
                "spec": {"algorithm": {"algorithmName": "random"}, "requests": 3, "resumePolicy": "Never"},
            },
            "suggestions",
            namespace,
        )
        labels = {
            "katib.kubeflow.org/deployment": "random-random",
            "katib.kubeflow.org/experiment": "random",
            "katib.kubeflow.org/suggestion": "random",
            "sidecar.istio.io/inject": "false",
        }
        template = {
            "metadata": {"labels": labels},
            "spec": {"containers": [{"name": "suggestion", "image": "ghcr.io/kubeflow/katib/suggestion-hyperopt"}]},
        }
        deployment = create(
            conn,
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "random-random", **owned, "ownerReferences": [owner_ref(suggestion)]},
                "spec": {"selector": {"matchLabels": labels}, "template": template},
            },
            "deployments",
            namespace,
        )
        rs_labels = {**labels, "pod-template-hash": "5b4c8d7f9"}
        rs = create(
            conn,
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": {"name": "random-random-5b4c8d7f9", **owned, "ownerReferences": [owner_ref(deployment)]},
                "spec": {
                    "replicas": 1,
                    "selector": {"matchLabels": rs_labels},
                    "template": {**template, "metadata": {"labels": rs_labels}},
                },
            },
            "replicasets",
            namespace,
        )
        create(conn, pod("random-random-5b4c8d7f9-q7m2x", namespace, template, rs_labels, rs), "pods", namespace)
        trial = create(
            conn,
            {
                "apiVersion": "kubeflow.org/v1beta1",
                "kind": "Trial",
                "metadata": {
                    "name": TRIAL,
                    **owned,
                    "labels": {"katib.kubeflow.org/experiment": "random"},
                    "ownerReferences": [owner_ref(exp)],
                },
                "spec": {"runSpec": copy.deepcopy(exp["spec"]["trialTemplate"]["trialSpec"])},
            },
            "trials",
            namespace,
        )
        run = copy.deepcopy(exp["spec"]["trialTemplate"]["trialSpec"])
        run["metadata"] = {"name": TRIAL, **owned, "ownerReferences": [owner_ref(trial)]}
        job = create(conn, run, "jobs", namespace)
        # The API server stamps the Job's selector labels into its template; the pod webhook adds the trial's.
        job_labels = dict(job["spec"]["template"]["metadata"]["labels"])
        trial_labels = {"katib.kubeflow.org/experiment": "random", "katib.kubeflow.org/trial": TRIAL}
        create(conn, pod(f"{TRIAL}-k2v9p", namespace, job["spec"]["template"], trial_labels, job), "pods", namespace)
        assert job_labels.get("batch.kubernetes.io/job-name") == TRIAL, job_labels
        for name in ("random-random-5b4c8d7f9-q7m2x", f"{TRIAL}-k2v9p"):
            set_pod_running(conn, namespace, name)
        yield {"namespace": namespace, "experiment": exp}
    finally:
        conn.close()
        _remove(test_cluster, namespace)


def _placed(tree: Any) -> dict[str, tuple[str | None, str | None]]:
    return {p.name: (p.component, p.instance) for p in tree.all_pods}


def test_get_all_shows_one_experiment_with_both_pods(test_cluster: TestCluster, experiment: dict[str, Any]) -> None:
    namespace = experiment["namespace"]
    source = live_source(live_options(test_cluster, all_namespaces=True))
    view = source.index()
    mine = view.workloads(None, namespace)
    # The Job, Deployment and ReplicaSet are owned through the Trial and the Suggestion: no rows of their own.
    assert [str(key_of(w)) for w in mine] == [f"experiment.kubeflow.org/random in {namespace}"]
    tree = tree_of(view, mine[0])
    assert tree.warnings == []
    assert _placed(tree) == {
        "random-random-5b4c8d7f9-q7m2x": ("algorithm", None),
        f"{TRIAL}-k2v9p": ("run", "job"),
    }
    result = tree.to_json()
    assert result["totals"]["pods"]["desired"] == 4  # suggestion 1 + min(3, 12) trials x 1 Job pod
    assert not [w for w in view.warnings if namespace in w], view.warnings
    source.connection.close()


def test_describe_reads_the_chain_and_gives_the_same_tree(
    test_cluster: TestCluster, experiment: dict[str, Any]
) -> None:
    must_list = {"experiments", "trials", "suggestions", "jobs", "deployments", "replicasets", "pods"}
    assert_narrow_read_matches_full(test_cluster, experiment["namespace"], "experiment", "random", must_list)


def test_update_stores_the_scheduler_name_in_the_trial_template(
    test_cluster: TestCluster, experiment: dict[str, Any]
) -> None:
    namespace = experiment["namespace"]
    source = live_source(live_options(test_cluster, namespace=namespace, describe=("experiment", "random")))
    view = source.index()
    (live,) = view.find(source.registry.resolve_type("experiment"), "random", namespace)
    [definition] = [d for d in builtin_definitions() if d.name == "kubeflow-org-experiment-v1beta1"]
    change = PodSpecChange(scheduler_name="kai-scheduler", labels={"kai.scheduler/queue": "team-a"})
    result = update_workload(definition.karta, live, change=change)
    # The suggestion pod comes from katib-config, a TrainJob trial's from its runtime: left alone, and said so.
    assert [line.split(":")[0] for line in result.skipped] == ["component 'algorithm'", "component 'node'"]
    stored = patch_workload(source.connection, source.discovery, live, result.patch)
    template = stored["spec"]["trialTemplate"]["trialSpec"]["spec"]["template"]
    assert template["spec"]["schedulerName"] == "kai-scheduler"
    assert template["metadata"]["labels"] == {"kai.scheduler/queue": "team-a"}
    source.connection.close()
    again = live_source(live_options(test_cluster, namespace=namespace, describe=("experiment", "random"))).index()
    (reread,) = again.find(again.registry.resolve_type("experiment"), "random", namespace)
    [run] = [c for c in tree_of(again, reread).to_json()["components"] if c["name"] == "run"]
    assert run["instances"][0]["podTemplate"]["spec"]["schedulerName"] == "kai-scheduler"
