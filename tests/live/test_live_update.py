"""``wmap update`` patches against the genuine kube-apiserver with each framework's real CRD installed.

For every catalog kind whose CRD the shared corpus holds (read in place from ../shared/corpus/<framework>/
crd/, never copied) and for the built-in kinds, corpus and expectation objects are created, read back, and
updated through their definition: the merge patch must be accepted by a server-side dry run with nothing
pruned (every field we meant to store comes back as we wrote it), a concurrent change must make our
patch a Conflict (the resourceVersion precondition) instead of a lost update, and a real patch must be
stored so that re-resolving the stored object shows the change.

Kinds without a CRD in the corpus (no test here): MPIJob, JAXJob, TFJob, PaddleJob, XGBoostJob, Knative
Service, DynamoGraphDeployment, SparkApplication, Sandbox. InferenceService's corpus CRD is minimal
(x-kubernetes-preserve-unknown-fields: nothing can be pruned), and so are LLMInferenceService v1alpha1's
(v1alpha2 has the full schema), Katib's Experiment (its webhook validates instead) and Argo's Workflow
(the minimal CRD Argo installs by default).
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from live_data import CORPUS, admin, create_namespace, eventually
from tests.catalog.expectations import cases
from tests.cluster.apiserver import TestCluster

from workload_map.api.cluster_update import patch_workload
from workload_map.base.snapshot import Snapshot
from workload_map.catalog import builtin_definitions
from workload_map.definition.registry import DefinitionRegistry
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.resolve.writes import PodSpecChange, WriteError, update_workload
from workload_map.sources.kube import ClusterError
from workload_map.sources.kube.connection import Connection, resource_path
from workload_map.sources.kube.discovery import Discovery, discover
from workload_map.tree.build import tree_of

pytestmark = pytest.mark.live

REGISTRY = DefinitionRegistry(builtin_definitions())
PER_KIND = 3  # objects per kind (the first that the server accepts)

# kind.group -> the corpus CRD file (None: built into the API server)
KINDS: dict[str, Path | None] = {
    "Pod.": None,
    "Deployment.apps": None,
    "StatefulSet.apps": None,
    "DaemonSet.apps": None,
    "ReplicaSet.apps": None,
    "Job.batch": None,
    "CronJob.batch": None,
    "JobSet.jobset.x-k8s.io": CORPUS / "jobset/crd/jobset.x-k8s.io_jobsets.yaml",
    "LeaderWorkerSet.leaderworkerset.x-k8s.io": CORPUS
    / "leaderworkerset/crd/leaderworkerset.x-k8s.io_leaderworkersets.yaml",
    "PyTorchJob.kubeflow.org": CORPUS / "pytorchjob/crd/kubeflow.org_pytorchjobs.yaml",
    "Notebook.kubeflow.org": CORPUS / "notebook/crd/kubeflow.org_notebooks.yaml",
    "RayCluster.ray.io": CORPUS / "raycluster/crd/ray.io_rayclusters.yaml",
    "RayJob.ray.io": CORPUS / "rayjob/crd/ray.io_rayjobs.yaml",
    "RayService.ray.io": CORPUS / "rayservice/crd/ray.io_rayservices.yaml",
    "PodCliqueSet.grove.io": CORPUS / "grove-podcliqueset/crd/grove.io_podcliquesets.yaml",
    "Milvus.milvus.io": CORPUS / "milvus/crd/milvus.io_milvuses.yaml",
    "NIMService.apps.nvidia.com": CORPUS / "nimservice/crd/apps.nvidia.com_nimservices.yaml",
    "NIMCache.apps.nvidia.com": CORPUS / "nimcache/crd/apps.nvidia.com_nimcaches.yaml",
    "TrainJob.trainer.kubeflow.org": CORPUS / "trainjob/crd/trainer.kubeflow.org_trainjobs.yaml",
    "Job.batch.volcano.sh": CORPUS / "volcano-job/crd/batch.volcano.sh_jobs.yaml",
    "InferenceService.serving.kserve.io": CORPUS
    / "kserve-inferenceservice/crd/serving.kserve.io_inferenceservices.minimal.yaml",
    "LLMInferenceService.serving.kserve.io": CORPUS
    / "kserve-llminferenceservice/crd/serving.kserve.io_llminferenceservices.minimal.yaml",
    "FlinkDeployment.flink.apache.org": CORPUS / "flink-deployment/crd/flinkdeployments.flink.apache.org-v1.yml",
    "DaskCluster.kubernetes.dask.org": CORPUS / "dask-cluster/crd/daskcluster.yaml",
    "DaskWorkerGroup.kubernetes.dask.org": CORPUS / "dask-cluster/crd/daskworkergroup.yaml",
    "DaskJob.kubernetes.dask.org": CORPUS / "dask-cluster/crd/daskjob.yaml",
    "Experiment.kubeflow.org": CORPUS / "katib-experiment/crd/experiment.yaml",
    "Workflow.argoproj.io": CORPUS / "argo-workflow/crd/argoproj.io_workflows-minimal.yaml",
    # Tekton's CRDs convert v1beta1 through its webhook, absent here: only the v1 objects are created.
    "TaskRun.tekton.dev": CORPUS / "tekton-pipelinerun/crd/300-taskrun.yaml",
    "PipelineRun.tekton.dev": CORPUS / "tekton-pipelinerun/crd/300-pipelinerun.yaml",
}

QUEUE = {"kai.scheduler/queue": "team-a"}
# Each pod field of the format, sent alone so that the server's answer is attributed to it.
FIELDS: dict[str, PodSpecChange] = {
    "scheduler_name": PodSpecChange(scheduler_name="kai-scheduler"),
    "labels": PodSpecChange(labels=QUEUE),
    "annotations": PodSpecChange(annotations={"example.com/note": "x"}),
    "priority_class_name": PodSpecChange(priority_class_name="high"),
    "resources": PodSpecChange(resources={"requests": {"cpu": "250m"}, "limits": {"cpu": "1"}}),
    "node_selector": PodSpecChange(node_selector={"pool": "a"}),
    "tolerations": PodSpecChange(tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]),
    "node_affinity": PodSpecChange(
        node_affinity={
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]}]
            }
        }
    ),
    "pod_affinity": PodSpecChange(
        pod_affinity={
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 1, "podAffinityTerm": {"topologyKey": "zone", "labelSelector": {"matchLabels": {"a": "b"}}}}
            ]
        }
    ),
    "resource_claims": PodSpecChange(resource_claims=[{"name": "gpu", "resourceClaimName": "shared-gpu"}]),
    "image": PodSpecChange(image="example.com/image:2"),
}
# What the API server itself refuses to change on a stored object (the update is right, the kind's
# validation says no): kind -> field -> text of the server's message.
_POD_IMMUTABLE = "pod updates may not change fields"
_JOB_IMMUTABLE = "field is immutable"
SERVER_REFUSES: dict[str, dict[str, str]] = {
    # PodSpec is immutable but for images, tolerations additions and a few more (ValidatePodUpdate); our
    # tolerations replace the list, which only adds when the pod has none (see _refusal).
    "Pod.": dict.fromkeys(
        ("scheduler_name", "priority_class_name", "resources", "node_selector", "node_affinity", "pod_affinity",
         "resource_claims"),
        _POD_IMMUTABLE,
    ),
    # A Job's pod template is immutable (mutable scheduling directives only while suspended and never started).
    "Job.batch": dict.fromkeys(FIELDS, _JOB_IMMUTABLE),
    # The Notebook CRD embeds a PodSpec schema without resourceClaims: strict field validation refuses it
    # (without it the field would be pruned while the patch "succeeds").
    "Notebook.kubeflow.org": {"resource_claims": 'unknown field "spec.template.spec.resourceClaims"'},
    # The Dask CRDs embed a PodSpec schema older than resourceClaims: refused the same way.
    **{
        kind: {"resource_claims": '.spec.resourceClaims"'}
        for kind in KINDS
        if kind.endswith(".kubernetes.dask.org")
    },
    # TrainJob: spec.trainer is immutable (CEL self == oldSelf); image and resources live there.
    "TrainJob.trainer.kubeflow.org": {"image": _JOB_IMMUTABLE, "resources": _JOB_IMMUTABLE},
}  # fmt: skip
# The tolerations the DefaultTolerationSeconds admission plugin gives every pod (and gives back on update).
_DEFAULT_TOLERATIONS = {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}


def _without_defaults(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A pod's default tolerations come and go with admission (DefaultTolerationSeconds): not ours to compare."""
    if kind != "Pod.":
        return fields
    fields = copy.deepcopy(fields)
    spec = fields.get("spec") or {}
    spec["tolerations"] = [t for t in spec.get("tolerations") or [] if t.get("key") not in _DEFAULT_TOLERATIONS]
    return fields


def _refusal(kind: str, what: str, live: dict[str, Any]) -> str | None:
    """The server's message expected for changing ``what`` on ``live``, or None when it must accept it."""
    spec = live.get("spec") or {}
    if kind == "Pod." and what == "tolerations":
        # Existing tolerations may not be removed; ours replace the list (the defaults come back).
        kept = [t for t in spec.get("tolerations") or [] if t.get("key") not in _DEFAULT_TOLERATIONS]
        return "existing toleration can not be modified" if kept else None
    if kind == "NIMCache.apps.nvidia.com" and what == "image" and (spec.get("source") or {}).get("ngc"):
        # The NGC model puller (the caching pod's image) is immutable (CEL self == oldSelf on source.ngc).
        return "modelPuller is an immutable field"
    return SERVER_REFUSES.get(kind, {}).get(what)


def _kind_of(obj: dict[str, Any]) -> str:
    api_version = str(obj.get("apiVersion") or "")
    return f"{obj.get('kind')}.{api_version.split('/', maxsplit=1)[0] if '/' in api_version else ''}"


def _lost(intended: Any, answer: Any, path: str = "") -> list[str]:
    """Where ``answer`` (the server's object) lacks or changed what ``intended`` holds (it may add defaults)."""
    if isinstance(intended, dict):
        if not isinstance(answer, dict):
            return [f"{path or '.'}: {answer!r} instead of an object"]
        out = []
        for key, value in intended.items():
            if key not in answer:
                out.append(f"{path}.{key}: pruned")
            else:
                out.extend(_lost(value, answer[key], f"{path}.{key}"))
        return out
    if isinstance(intended, list):
        if not isinstance(answer, list) or len(answer) != len(intended):
            return [f"{path}: {answer!r} instead of {intended!r}"]
        return [
            line for i, (a, b) in enumerate(zip(intended, answer, strict=True)) for line in _lost(a, b, f"{path}[{i}]")
        ]
    return [] if intended == answer else [f"{path}: {answer!r} instead of {intended!r}"]


def _stored_fields(obj: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """The spec, and the object's labels/annotations the patch writes (the server manages others, e.g.
    deprecated.daemonset.template.generation)."""
    metadata = obj.get("metadata") or {}
    written = patch.get("metadata") or {}
    return {
        "spec": obj.get("spec"),
        "metadata": {
            k: {name: (metadata.get(k) or {}).get(name) for name in written[k]}
            for k in ("labels", "annotations")
            if isinstance(written.get(k), dict)
        },
    }


@dataclass
class Installed:
    conn: Connection
    discovery: Discovery
    namespace: str
    objects: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # kind -> live objects
    refused: dict[str, list[str]] = field(default_factory=dict)  # kind -> why the server refused a case


def _install_crd(cluster: TestCluster, path: Path) -> None:
    proc = cluster.kubectl("create", "-f", str(path))
    assert proc.returncode == 0 or "AlreadyExists" in proc.stderr, proc.stderr


def _candidates() -> dict[str, list[tuple[str, dict[str, Any]]]]:
    out: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for case in cases():
        kind = _kind_of(case.obj)
        if kind in KINDS and REGISTRY.for_object(case.obj)[0] is not None and case.obj.get("spec"):
            out.setdefault(kind, []).append((case.id, case.obj))
    return out


def _creatable(obj: dict[str, Any], namespace: str, name: str) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    obj.pop("status", None)
    metadata = obj.setdefault("metadata", {})
    for key in ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "ownerReferences"):
        metadata.pop(key, None)
    metadata.update(name=name, namespace=namespace)
    return obj


def _path(discovery: Discovery, obj: dict[str, Any]) -> str:
    api_version = str(obj["apiVersion"])
    group, version = api_version.split("/") if "/" in api_version else ("", api_version)
    [resource] = [r for r in discovery.served(group, obj["kind"]) if r.version == version]
    return resource_path(group, version, resource.plural, obj["metadata"]["namespace"], obj["metadata"]["name"])


@pytest.fixture(scope="module")
def cluster(testcluster_bin_dir: Path) -> Iterator[TestCluster]:
    # A cluster of its own: every framework's CRD is installed here, and a module sharing the session cluster
    # would see them served (more kinds its restricted users may not list, more lists in `wmap get -A`).
    with TestCluster(testcluster_bin_dir) as own:
        yield own


@pytest.fixture(scope="module")
def installed(cluster: TestCluster) -> Iterator[Installed]:
    for path in {p for p in KINDS.values() if p is not None}:
        _install_crd(cluster, path)
    conn = admin(cluster)
    groups = {k.split(".", 1)[1] for k in KINDS}

    def served() -> Discovery | None:
        found = discover(conn)
        wanted = [(k.split(".", 1)[1], k.split(".", 1)[0]) for k in KINDS]
        return found if all(found.served(g, k) for g, k in wanted) else None

    discovery = eventually(served, timeout=60, what=f"discovery of {sorted(groups)}")
    namespace = create_namespace(conn, f"update-{secrets.token_hex(3)}")
    state = Installed(conn, discovery, namespace)
    for kind, candidates in _candidates().items():
        for index, (label, obj) in enumerate(candidates):
            if len(state.objects.get(kind, [])) >= PER_KIND:
                break
            body = _creatable(obj, namespace, f"{kind.split('.')[0].lower()}-{index}")
            api_version = str(body["apiVersion"])
            group, version = api_version.split("/") if "/" in api_version else ("", api_version)
            resources = [r for r in discovery.served(group, body["kind"]) if r.version == version]
            if not resources:
                state.refused.setdefault(kind, []).append(f"{label}: version {version} not served")
                continue
            try:
                created = conn.request("POST", resource_path(group, version, resources[0].plural, namespace), body=body)
            except ClusterError as exc:
                state.refused.setdefault(kind, []).append(f"{label}: {exc.message}")
                continue
            created.setdefault("apiVersion", api_version)
            created.setdefault("kind", body["kind"])
            created["x-case"] = label
            state.objects.setdefault(kind, []).append(created)
    yield state
    conn.close()


def _fresh(state: Installed, obj: dict[str, Any]) -> dict[str, Any]:
    live = state.conn.get(_path(state.discovery, obj))
    live.setdefault("apiVersion", obj["apiVersion"])
    live.setdefault("kind", obj["kind"])
    return live


def _objects(state: Installed, kind: str) -> list[dict[str, Any]]:
    objects = state.objects.get(kind) or []
    assert objects, f"the server accepted no {kind} example: {state.refused.get(kind)}"
    return objects


def _templates(obj: dict[str, Any]) -> list[dict[str, Any]]:
    view = WorkloadIndex(Snapshot([obj]), REGISTRY)
    tree = tree_of(view, view.snapshot.objects[0]).to_json()
    return [
        i["podTemplate"]
        for c in tree["components"]
        if c["producesPods"]
        for i in c["instances"]
        if i.get("podTemplate")
    ]


def _attempts(karta: Any) -> list[tuple[str, PodSpecChange | None, bool | None]]:
    out: list[tuple[str, PodSpecChange | None, bool | None]] = [(name, c, None) for name, c in FIELDS.items()]
    if any(c.suspend_definition for c in karta.components):
        out += [("suspend", None, True), ("resume", None, False)]
    return out


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_server_dry_run_accepts_the_patch_with_nothing_pruned(installed: Installed, kind: str) -> None:
    report: dict[str, list[str]] = {"accepted": [], "not expressible": [], "refused by the server": []}
    for created in _objects(installed, kind):
        live = _fresh(installed, created)
        definition = REGISTRY.for_object(live)[0]
        assert definition is not None
        for what, change, suspend in _attempts(definition.karta):
            try:
                result = update_workload(definition.karta, live, change=change, suspend=suspend)
            except WriteError as exc:
                # The definition cannot express it (see tests/resolve/test_writes_catalog.py NOT_EXPRESSIBLE).
                # "list ... does not exist": a Tekton taskRef task without the taskRunSpecs entry an update cannot add.
                expressible = ("no path", "no location", "no pod templates", "no containers", "does not exist")
                assert any(t in exc.message for t in expressible), exc.message
                report["not expressible"].append(what)
                continue
            if not result.patch:
                continue
            refusal = _refusal(kind, what, live)
            try:
                answer = patch_workload(installed.conn, installed.discovery, live, result.patch, dry_run="server")
            except ClusterError as exc:
                assert refusal is not None and refusal in exc.message, f"{created['x-case']}: {what}: {exc}"
                report["refused by the server"].append(what)
                continue
            assert refusal is None, f"{created['x-case']}: {what}: expected the server to refuse it ({refusal})"
            intended = _stored_fields(result.obj, result.patch)
            lost = _lost(
                _without_defaults(kind, intended), _without_defaults(kind, _stored_fields(answer, result.patch))
            )
            assert lost == [], f"{created['x-case']}: {what}: the server pruned or changed {lost}"
            report["accepted"].append(what)
        stored = _fresh(installed, created)
        assert stored["metadata"]["resourceVersion"] == live["metadata"]["resourceVersion"], "a dry run stored"
    assert report["accepted"], report
    objects = len(_objects(installed, kind))
    summary = "; ".join(f"{k}: {', '.join(sorted(set(v)))}" for k, v in report.items() if v)
    print(f"\nDRY-RUN {kind} ({objects} objects): {summary}")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_concurrent_change_is_a_conflict_then_a_fresh_patch_is_stored(installed: Installed, kind: str) -> None:
    # The scheduler name and queue label where the definition and the server allow them, else the first
    # change of the kind that both accept (a Pod's labels, a Job's suspend, a NIMCache's image).
    both = PodSpecChange(scheduler_name="kai-scheduler", labels=QUEUE)

    def acceptable(live: dict[str, Any]) -> tuple[PodSpecChange | None, bool | None, Any] | None:
        definition = REGISTRY.for_object(live)[0]
        assert definition is not None
        for what, change, suspend in [("scheduler_name", both, None), *_attempts(definition.karta)]:
            if _refusal(kind, what, live) or (what == "scheduler_name" and _refusal(kind, "labels", live)):
                continue
            try:
                result = update_workload(definition.karta, live, change=change, suspend=suspend)
            except WriteError:
                continue
            if result.patch:
                return change, suspend, result
        return None

    found = next(
        ((c, live, a) for c in _objects(installed, kind) if (a := acceptable(live := _fresh(installed, c)))), None
    )
    assert found is not None, f"{kind}: no change both the definition and the server accept"
    created, live, (change, suspend, result) = found
    definition = REGISTRY.for_object(live)[0]
    assert definition is not None
    # Someone else changes the object after we read it.
    installed.conn.request(
        "PATCH",
        _path(installed.discovery, live),
        body={"metadata": {"annotations": {"example.com/concurrent": "yes"}}},
        content_type="application/merge-patch+json",
    )
    with pytest.raises(ClusterError, match="Conflict") as raised:
        patch_workload(installed.conn, installed.discovery, live, result.patch)
    assert raised.value.status == 409
    after = _fresh(installed, created)
    assert after["metadata"]["annotations"]["example.com/concurrent"] == "yes"  # theirs kept
    assert _lost(_stored_fields(result.obj, result.patch), _stored_fields(after, result.patch)) != []  # not ours
    # Read again and patch again: stored, and the stored object re-resolves with the change.
    again = update_workload(definition.karta, after, change=change, suspend=suspend)
    stored = patch_workload(installed.conn, installed.discovery, after, again.patch)
    assert _lost(_stored_fields(again.obj, again.patch), _stored_fields(stored, again.patch)) == []
    assert stored["metadata"]["annotations"]["example.com/concurrent"] == "yes"
    if change is both:
        templates = _templates(_fresh(installed, created))
        assert templates
        for template in templates:
            assert (template.get("spec") or {}).get("schedulerName") == "kai-scheduler"
            assert ((template.get("metadata") or {}).get("labels") or {}).get("kai.scheduler/queue") == "team-a"
