"""Emitted gang manifests against the genuine API server with the schedulers' real CRDs.

KAI Scheduler's PodGroup and Queue CRDs (scheduling.run.ai) and the Volcano PodGroup CRD are the corpus
copies, the coscheduling one comes from the scheduler-plugins Go module (read in place from the module
cache), and the Workload API is served by kube-apiserver itself. Creating the objects (not a dry run)
proves the server accepts their schema, names and owner references.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.cluster.apiserver import TestCluster
from tests.gang import gang_defs
from tests.gang.gang_defs import SINGLE, TRAIN, member_pod, template
from tests.helpers import karta
from tests.live.live_data import CORPUS, REPO_ROOT, admin, create_namespace, ensure_crds, jobset_scenario, lws_scenario

from workload_map.base.snapshot import Snapshot
from workload_map.catalog import builtin_definitions
from workload_map.gang import plan_gang
from workload_map.gang.compute import plan_in_view
from workload_map.gang.emit import emit
from workload_map.resolve.workloads import WorkloadIndex

VOLCANO_CRD = CORPUS / "volcano-job" / "crd" / "scheduling.volcano.sh_podgroups.lws-test-copy.yaml"
KAI_CRDS = [CORPUS / "kai-scheduler" / "crd" / f"scheduling.run.ai_{plural}.yaml" for plural in ("podgroups", "queues")]
# Fields of Volcano's PodGroupSpec (volcano.sh/apis scheduling/v1beta1) that the trimmed corpus copy of the
# CRD leaves out; the full CRD is not obtainable here (its modules are refused by the proxy), so the
# server prunes them and we check that nothing else is unknown.
VOLCANO_FIELDS_MISSING_FROM_TRIMMED_CRD = ("minTaskMember", "queue", "priorityClassName")


def _coscheduling_crd() -> Path:
    proc = subprocess.run(
        ["bash", str(REPO_ROOT / "tools" / "testcluster" / "scheduler-crds.sh")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if proc.returncode != 0:
        pytest.fail(f"cannot fetch the scheduler-plugins CRD: {proc.stderr.strip()}", pytrace=False)
    return Path(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def scheduler_crds(test_cluster: TestCluster) -> None:
    for crd in (VOLCANO_CRD, *KAI_CRDS, _coscheduling_crd()):
        proc = test_cluster.kubectl("apply", "--server-side", "-f", str(crd))
        assert proc.returncode == 0, proc.stderr
    for name in (
        "podgroups.scheduling.volcano.sh",
        "podgroups.scheduling.x-k8s.io",
        "podgroups.scheduling.run.ai",
        "queues.scheduling.run.ai",
    ):
        proc = test_cluster.kubectl("wait", "--for=condition=Established", f"crd/{name}", "--timeout=60s")
        assert proc.returncode == 0, proc.stderr


def _objects(cluster: TestCluster, namespace: str) -> list[dict[str, Any]]:
    kinds = "jobsets.jobset.x-k8s.io,leaderworkersets.leaderworkerset.x-k8s.io,statefulsets,jobs,pods"
    proc = cluster.kubectl("get", kinds, "-n", namespace, "-o", "json")
    assert proc.returncode == 0, proc.stderr
    return list(json.loads(proc.stdout)["items"])


def _create(cluster: TestCluster, objects: list[dict[str, Any]], namespace: str) -> None:
    listing = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects})
    trimmed = any(o["apiVersion"].startswith("scheduling.volcano.sh/") for o in objects)
    validate = "--validate=warn" if trimmed else "--validate=strict"
    proc = cluster.kubectl("create", validate, "-n", namespace, "-f", "-", input=listing)
    assert proc.returncode == 0, proc.stderr
    for line in proc.stderr.splitlines():
        if "unknown field" in line:
            assert trimmed and any(f in line for f in VOLCANO_FIELDS_MISSING_FROM_TRIMMED_CRD), line


@pytest.mark.parametrize("scheduler", ["kai", "volcano", "coscheduling", "workload-api"])
def test_emitted_groups_are_accepted_by_the_api_server(
    test_cluster: TestCluster, scheduler_crds: None, scheduler: str
) -> None:
    conn = admin(test_cluster)
    ensure_crds(test_cluster, "jobsets.jobset.x-k8s.io", "leaderworkersets.leaderworkerset.x-k8s.io")
    namespace = create_namespace(conn, f"gang-{scheduler}")
    jobset_scenario(conn, namespace)
    lws_scenario(conn, namespace)
    view = WorkloadIndex(Snapshot(_objects(test_cluster, namespace)), builtin_definitions())
    workloads = {w["kind"]: w for w in view.workloads()}
    expected_min = {"JobSet": [5], "LeaderWorkerSet": [2, 2]}
    for kind, workload in workloads.items():
        plan = plan_in_view(view, workload)
        assert sorted(g.min_member for g in plan.groups) == expected_min[kind], kind
        emission = emit(plan, scheduler)
        assert emission.objects, emission.warnings
        assert all(o["metadata"].get("ownerReferences") for o in emission.objects if o["kind"] != "List")
        _create(test_cluster, emission.objects, namespace)
        for manifest in emission.objects:
            plural = {"PodGroup": "podgroups", "Workload": "workloads"}[manifest["kind"]]
            group = manifest["apiVersion"].split("/")[0]
            proc = test_cluster.kubectl(
                "get", f"{plural}.{group}", manifest["metadata"]["name"], "-n", namespace, "-o", "json"
            )
            assert proc.returncode == 0, proc.stderr
            stored = json.loads(proc.stdout)
            pruned = VOLCANO_FIELDS_MISSING_FROM_TRIMMED_CRD if scheduler == "volcano" else ()
            assert _sent_fields_kept(manifest["spec"], stored["spec"], pruned), (manifest["spec"], stored["spec"])


def _sent_fields_kept(sent: Any, stored: Any, pruned: tuple[str, ...]) -> bool:
    """Every field we sent is stored unchanged (the server may add defaults; a trimmed CRD may prune)."""
    if isinstance(sent, dict):
        return isinstance(stored, dict) and all(
            key in pruned or (key in stored and _sent_fields_kept(value, stored[key], pruned))
            for key, value in sent.items()
        )
    if isinstance(sent, list):
        return (
            isinstance(stored, list)
            and len(sent) == len(stored)
            and all(_sent_fields_kept(a, b, pruned) for a, b in zip(sent, stored, strict=True))
        )
    return bool(sent == stored)


def test_pods_carry_the_attachment_the_scheduler_reads(test_cluster: TestCluster, scheduler_crds: None) -> None:
    conn = admin(test_cluster)
    ensure_crds(test_cluster, "jobsets.jobset.x-k8s.io", "leaderworkersets.leaderworkerset.x-k8s.io")
    namespace = create_namespace(conn, "gang-attach")
    jobset_scenario(conn, namespace, running=False)
    view = WorkloadIndex(Snapshot(_objects(test_cluster, namespace)), builtin_definitions())
    [workload] = view.workloads()
    plan = plan_in_view(view, workload)
    for scheduler in ("volcano", "coscheduling"):
        emission = emit(plan, scheduler)
        assert emission.attachments
        for attachment in emission.attachments:
            # Labels and annotations attach existing pods; spec fields (schedulerName) are immutable on a
            # pod and belong in the template, so only metadata is patched here.
            metadata = attachment.patch().get("metadata")
            assert metadata, attachment
            for pod_name in attachment.pods:
                patch = json.dumps({"metadata": metadata})
                proc = test_cluster.kubectl("patch", "pod", pod_name, "-n", namespace, "--type=merge", "-p", patch)
                assert proc.returncode == 0, proc.stderr
                stored = json.loads(test_cluster.kubectl("get", "pod", pod_name, "-n", namespace, "-o", "json").stdout)
                for key, value in {**attachment.labels, **attachment.annotations}.items():
                    assert {**stored["metadata"].get("labels", {}), **stored["metadata"].get("annotations", {})}[
                        key
                    ] == value
    # The Workload API attachment is an immutable spec field: it is set on a new pod from the template.
    emission = emit(plan, "workload-api")
    _create(test_cluster, emission.objects, namespace)
    [attachment] = emission.attachments
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "gang-member-new", "namespace": namespace},
        "spec": {"containers": [{"name": "c", "image": "busybox"}], **attachment.spec},
    }
    _create(test_cluster, [pod], namespace)
    proc = test_cluster.kubectl("get", "pod", "gang-member-new", "-n", namespace, "-o", "json")
    stored = json.loads(proc.stdout)
    for key, value in attachment.spec.items():
        assert stored["spec"][key] == value


def test_kai_sub_groups_and_topology_match_kais_schema(test_cluster: TestCluster, scheduler_crds: None) -> None:
    """The richer KAI forms (minSubGroup, subGroups with their own minMember, topologyConstraint) are
    accepted by KAI's own CRD with strict field validation and stored unchanged."""

    conn = admin(test_cluster)
    namespace = create_namespace(conn, "gang-kai-forms")
    disaggregated = gang_defs.workload(
        "Disagg",
        {
            "leader": {"replicas": 1, "template": template("leader")},
            "worker": {"replicas": 3, "template": template("w")},
        },
    )
    training = gang_defs.workload(
        "TrainJob",
        {
            "master": {"replicas": 1, "template": template("master", cpu="500m")},
            "worker": {"replicas": 4, "minReplicas": 2, "template": template("worker", gpus=8)},
        },
    )
    emissions = [
        emit(plan_gang(karta(TRAIN), training), "kai", kai_derived_subgroups=True, queue="team-a"),
        emit(plan_gang(karta(SINGLE), disaggregated, [member_pod("l-0", {"role": "leader"})]), "kai"),
    ]
    for emission in emissions:
        [manifest] = emission.objects
        manifest["metadata"]["namespace"] = namespace
        assert "subGroups" in manifest["spec"]
        _create(test_cluster, [manifest], namespace)
        proc = test_cluster.kubectl(
            "get", "podgroups.scheduling.run.ai", manifest["metadata"]["name"], "-n", namespace, "-o", "json"
        )
        assert proc.returncode == 0, proc.stderr
        assert _sent_fields_kept(manifest["spec"], json.loads(proc.stdout)["spec"], ()), manifest["spec"]
