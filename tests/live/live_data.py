"""Objects for the live tests, created the way each operator creates them (no controller runs).

Not a conftest: the live test modules import the helpers they need. Every object is created through
the API server (defaulting, validation and uids are real); children carry the owner references and
labels the operators stamp (see each corpus folder's FACTS.md).
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml
from tests.cluster.apiserver import TestCluster

from workload_map.sources.kube import LiveOptions, live_source
from workload_map.sources.kube.connection import ClusterError, Connection, ConnectionOptions, connect, resource_path
from workload_map.tree.build import tree_of

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS = REPO_ROOT.parent / "shared" / "corpus"
LIVE_DIR = Path(__file__).resolve().parent
# The project's generated CRD when present (other live tests apply it server-side); else a minimal one.
GENERATED_KARTA_CRD = REPO_ROOT / "deploy" / "crd" / "kartas.run.ai.yaml"
KARTA_CRD = GENERATED_KARTA_CRD if GENERATED_KARTA_CRD.is_file() else LIVE_DIR / "data" / "kartas.run.ai.crd.yaml"

CRDS = {
    "jobsets.jobset.x-k8s.io": CORPUS / "jobset" / "crd" / "jobset.x-k8s.io_jobsets.yaml",
    "leaderworkersets.leaderworkerset.x-k8s.io": CORPUS
    / "leaderworkerset"
    / "crd"
    / "leaderworkerset.x-k8s.io_leaderworkersets.yaml",
    "kartas.run.ai": KARTA_CRD,
}


def admin(cluster: TestCluster) -> Connection:
    return connect(ConnectionOptions(kubeconfig=str(cluster.kubeconfig_path)))


def eventually(
    fn: Callable[[], Any],
    *,
    timeout: float = 30.0,
    what: str = "condition",
    retry_on: tuple[type[BaseException], ...] = (AssertionError, ClusterError),
    interval: float = 0.2,
) -> Any:
    """Call ``fn`` until it returns something truthy; ``retry_on`` errors count as "not yet"."""
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            result = fn()
            if result:
                return result
        except retry_on as exc:
            last = exc
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}: {last!r}")


def live_options(cluster: TestCluster, **kwargs: Any) -> LiveOptions:
    """The live-read options of ``cluster`` as an administrator (``kwargs``: namespace, describe, ...)."""
    return LiveOptions(kubeconfig=str(cluster.kubeconfig_path), **kwargs)


def assert_narrow_read_matches_full(
    cluster: TestCluster, namespace: str, kind: str, name: str, must_list: set[str]
) -> None:
    """describe's narrowed read of ``kind``/``name`` lists at least ``must_list`` (plurals) and gives the same
    tree as a read of every namespace."""
    source = live_source(live_options(cluster, namespace=namespace, describe=(kind, name)))
    try:
        view = source.index()
        (workload,) = view.find(source.registry.resolve_type(kind), name, namespace)
        listed = {r.resource.plural for r in source.lists}
        assert must_list <= listed, listed
        tree = tree_of(view, workload).to_json()
    finally:
        source.connection.close()
    full_source = live_source(live_options(cluster, all_namespaces=True))
    try:
        full = full_source.index()
        (same,) = full.find(full.registry.resolve_type(kind), name, namespace)
        assert tree == tree_of(full, same).to_json()
    finally:
        full_source.connection.close()


def ensure_crds(cluster: TestCluster, *names: str) -> None:
    for name in names:
        if name == "kartas.run.ai":
            proc = cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(CRDS[name]))
            assert proc.returncode == 0, proc.stderr
        else:
            proc = cluster.kubectl("create", "-f", str(CRDS[name]))
            assert proc.returncode == 0 or "AlreadyExists" in proc.stderr, proc.stderr

        def established(name: str = name) -> bool:
            proc = cluster.kubectl(
                "get", f"crd/{name}", "-o", 'jsonpath={.status.conditions[?(@.type=="Established")].status}'
            )
            return proc.stdout.strip() == "True"

        eventually(established, timeout=60, what=f"{name} Established")
    conn = admin(cluster)
    try:
        # Established can precede the REST endpoint and discovery by a moment.
        for name in names:
            plural, group = name.split(".", 1)
            version = {"run.ai": "v1alpha1", "jobset.x-k8s.io": "v1alpha2"}.get(group, "v1")
            path = f"/apis/{group}/{version}/{plural}"
            eventually(lambda path=path: conn.get(path, {"limit": 1}) is not None, what=name)
    finally:
        conn.close()


def create_namespace(conn: Connection, name: str) -> str:
    try:
        conn.request(
            "POST", "/api/v1/namespaces", body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        )
    except ClusterError as exc:
        if exc.status != 409:
            raise
    return name


def create(conn: Connection, obj: dict[str, Any], plural: str, namespace: str | None) -> dict[str, Any]:
    api_version = obj["apiVersion"]
    group, version = api_version.split("/") if "/" in api_version else ("", api_version)
    created = conn.request("POST", resource_path(group, version, plural, namespace), body=obj)
    created.setdefault("apiVersion", api_version)
    created.setdefault("kind", obj["kind"])
    return created


def busybox_job(name: str, *, suspend: bool) -> dict[str, Any]:
    """A batch/v1 Job of one busybox container (create it with ``create(conn, job, "jobs", namespace)``)."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "suspend": suspend,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox:1.36"}]}},
        },
    }


def owner_ref(owner: dict[str, Any], *, controller: bool = True) -> dict[str, Any]:
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": controller,
        "blockOwnerDeletion": True,
    }


def pod(
    name: str,
    namespace: str,
    template: dict[str, Any],
    labels: dict[str, str],
    owner: dict[str, Any] | None,
    *,
    node: str | None = "node-a",
) -> dict[str, Any]:
    spec = copy.deepcopy(template.get("spec") or {})
    spec.setdefault("containers", [{"name": "main", "image": "busybox"}])
    if node:
        spec["nodeName"] = node
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "labels": {**((template.get("metadata") or {}).get("labels") or {}), **labels},
    }
    if owner is not None:
        metadata["ownerReferences"] = [owner_ref(owner)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def set_pod_running(conn: Connection, namespace: str, name: str) -> None:
    status = {
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}, {"type": "PodScheduled", "status": "True"}],
            "containerStatuses": [
                {
                    "name": "main",
                    "ready": True,
                    "restartCount": 0,
                    "image": "busybox",
                    "imageID": "",
                    "state": {"running": {}},
                }
            ],
        }
    }
    conn.request(
        "PATCH",
        f"/api/v1/namespaces/{namespace}/pods/{name}/status",
        body=status,
        content_type="application/merge-patch+json",
    )


def create_many(
    conn: Connection, objects: Iterable[tuple[dict[str, Any], str, str | None]], workers: int = 8
) -> list[dict[str, Any]]:
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda job: create(conn, *job), objects))


# --------------------------------------------------------------------------- scenarios


def jobset_scenario(
    conn: Connection, namespace: str, name: str = "paralleljobs", running: bool = True
) -> dict[str, Any]:
    """The corpus JobSet, one Job per (replicatedJob, index) owned by it, pods owned by the Jobs."""
    base = yaml.safe_load((CORPUS / "jobset" / "examples" / "paralleljobs.yaml").read_text())
    base["metadata"] = {"name": name, "namespace": namespace, "labels": {"team": "nlp"}}
    jobset = create(conn, base, "jobsets", namespace)
    pods = []
    for rjob in jobset["spec"]["replicatedJobs"]:
        replicas = int(rjob.get("replicas", 1))
        for index in range(replicas):
            job_name = f"{name}-{rjob['name']}-{index}"
            labels = {
                "jobset.sigs.k8s.io/jobset-name": name,
                "jobset.sigs.k8s.io/jobset-uid": jobset["metadata"]["uid"],
                "jobset.sigs.k8s.io/replicatedjob-name": rjob["name"],
                "jobset.sigs.k8s.io/replicatedjob-replicas": str(replicas),
                "jobset.sigs.k8s.io/job-index": str(index),
            }
            job_spec = copy.deepcopy(rjob["template"]["spec"])
            job_spec["template"].setdefault("metadata", {})["labels"] = dict(labels)
            # The JobSet webhook defaults the pod template's restartPolicy to OnFailure.
            job_spec["template"]["spec"].setdefault("restartPolicy", "OnFailure")
            job = create(
                conn,
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "metadata": {
                        "name": job_name,
                        "namespace": namespace,
                        "labels": labels,
                        "ownerReferences": [owner_ref(jobset)],
                    },
                    "spec": job_spec,
                },
                "jobs",
                namespace,
            )
            parallel = min(int(job_spec.get("parallelism", 1)), int(job_spec.get("completions", 1)))
            for p in range(parallel):
                pod_labels = {
                    **labels,
                    "batch.kubernetes.io/job-name": job_name,
                    "job-name": job_name,
                    "batch.kubernetes.io/controller-uid": job["metadata"]["uid"],
                }
                pods.append(
                    (pod(f"{job_name}-{p}", namespace, job_spec["template"], pod_labels, job), "pods", namespace)
                )
    created = create_many(conn, pods)
    if running:
        for p in created:
            set_pod_running(conn, namespace, p["metadata"]["name"])
    # A headless Service owned by the JobSet: never needed for ownership, never listed.
    create(
        conn,
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": name, "namespace": namespace, "ownerReferences": [owner_ref(jobset)]},
            "spec": {"clusterIP": "None", "selector": {"jobset.sigs.k8s.io/jobset-name": name}},
        },
        "services",
        namespace,
    )
    return jobset


def lws_scenario(conn: Connection, namespace: str, name: str = "vllm") -> dict[str, Any]:
    """LWS: leader StatefulSet (owner LWS) -> leader pods -> worker StatefulSet (owner leader pod) -> workers."""
    docs = list(yaml.safe_load_all((CORPUS / "leaderworkerset" / "examples" / "vllm-gpu-lws.yaml").read_text()))
    base = next(d for d in docs if d and d.get("kind") == "LeaderWorkerSet")
    base["metadata"] = {"name": name, "namespace": namespace}
    lws = create(conn, base, "leaderworkersets", namespace)
    spec = lws["spec"]
    replicas = int(spec.get("replicas", 1))
    size = int(spec["leaderWorkerTemplate"].get("size", 1))
    leader_template = (
        spec["leaderWorkerTemplate"].get("leaderTemplate") or spec["leaderWorkerTemplate"]["workerTemplate"]
    )
    worker_template = spec["leaderWorkerTemplate"]["workerTemplate"]
    common = {"leaderworkerset.sigs.k8s.io/name": name}

    def sts(
        sts_name: str, owner: dict[str, Any], count: int, template: dict[str, Any], labels: dict[str, str]
    ) -> dict[str, Any]:
        tmpl = copy.deepcopy(template)
        tmpl.setdefault("metadata", {})["labels"] = {**((tmpl.get("metadata") or {}).get("labels") or {}), **labels}
        return create(
            conn,
            {
                "apiVersion": "apps/v1",
                "kind": "StatefulSet",
                "metadata": {
                    "name": sts_name,
                    "namespace": namespace,
                    "labels": labels,
                    "ownerReferences": [owner_ref(owner)],
                },
                "spec": {"replicas": count, "serviceName": name, "selector": {"matchLabels": labels}, "template": tmpl},
            },
            "statefulsets",
            namespace,
        )

    leader_sts = sts(name, lws, replicas, leader_template, {**common, "leaderworkerset.sigs.k8s.io/worker-index": "0"})
    for group in range(replicas):
        glabels = {**common, "leaderworkerset.sigs.k8s.io/group-index": str(group)}
        leader = create(
            conn,
            pod(
                f"{name}-{group}",
                namespace,
                leader_template,
                {**glabels, "leaderworkerset.sigs.k8s.io/worker-index": "0"},
                leader_sts,
            ),
            "pods",
            namespace,
        )
        worker_sts = sts(f"{name}-{group}", leader, size - 1, worker_template, glabels)
        for w in range(1, size):
            create(
                conn,
                pod(
                    f"{name}-{group}-{w}",
                    namespace,
                    worker_template,
                    {**glabels, "leaderworkerset.sigs.k8s.io/worker-index": str(w)},
                    worker_sts,
                ),
                "pods",
                namespace,
            )
    return lws


def deployment_scenario(conn: Connection, namespace: str, name: str = "web", replicas: int = 3) -> dict[str, Any]:
    labels = {"app": name}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "main", "image": "nginx"}]}}
    deployment = create(
        conn,
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels}, "template": template},
        },
        "deployments",
        namespace,
    )
    rs_labels = {**labels, "pod-template-hash": "5d9f7c"}
    rs = create(
        conn,
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": f"{name}-5d9f7c",
                "namespace": namespace,
                "labels": rs_labels,
                "ownerReferences": [owner_ref(deployment)],
            },
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": rs_labels},
                "template": {**template, "metadata": {"labels": rs_labels}},
            },
        },
        "replicasets",
        namespace,
    )
    create_many(
        conn,
        [
            (pod(f"{name}-5d9f7c-{i:05d}", namespace, template, rs_labels, rs), "pods", namespace)
            for i in range(replicas)
        ],
    )
    return deployment


def list_names(conn: Connection, path: str) -> list[str]:
    doc = conn.get(path)
    return sorted(o["metadata"]["name"] for o in doc.get("items") or [])


def kubectl_apply(cluster: TestCluster, *docs: dict[str, Any]) -> None:
    """``kubectl apply`` of the documents, asserting success (stderr in the failure)."""
    proc = cluster.kubectl("apply", "-f", "-", input="\n---\n".join(json.dumps(d) for d in docs))
    assert proc.returncode == 0, proc.stderr


def user_cluster_role(name: str, rules: list[dict[str, Any]], user: str) -> list[dict[str, Any]]:
    """A ClusterRole with ``rules`` and its binding to ``user``."""
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": name},
            "rules": rules,
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}],
        },
    ]
