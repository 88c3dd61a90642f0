"""Kueue v0.17.0 on the lab: jobs submitted suspended to a LocalQueue, admitted within a GPU quota, or queued.

At every step wmap's status, pods and GPUs are asserted (docs/semantics.md). The peer agreement: for every job
kind both Kueue and our catalog cover, the PodSets of the Workload Kueue creates (names, counts, minCount, the
GPUs their pod templates request) are wmap's pod-producing instances, desired pods and GPUs (docs/gang.md
section 11), taken at the same step; for the Kubeflow jobs (PyTorchJob, MPIJob), whose gang wmap computes as
their operator waits for it, Kueue's all-or-nothing admission is also held against ``wmap gang``'s minimum."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from .kube import Obj
from .lab import Lab
from .replayed import primaries, recording_path
from .scenario import GPU, Scenario, Step, Story, condition as scenario_condition, expect, live, on, phase_counts

NAMESPACE = "lab-kueue"
GPU_QUOTA = 8
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KUEUE = "kueue.x-k8s.io/v1beta2"
# Kueue names a batch Job's one PodSet "main"; every other kind's PodSets are named as wmap's instances
# (JobSet replicated jobs, Ray's "head" and worker group names).
JOB_PODSET = "main"
# (Kueue's PodSets, wmap's) per scenario and step, taken by the stories.
PEERS: dict[tuple[str, str], tuple[dict[str, Any], dict[str, Any]]] = {}
# wmap's gang (minMember, minGpus) per scenario and step, beside Kueue's PodSets of the same moment.
GANGS: dict[tuple[str, str], tuple[int, int]] = {}


def cluster_queue_objects() -> list[dict[str, Any]]:
    flavor = {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "lab-flavor"}}
    quota = [
        {"name": "cpu", "nominalQuota": "64"},
        {"name": "memory", "nominalQuota": "512Gi"},
        {"name": "nvidia.com/gpu", "nominalQuota": str(GPU_QUOTA)},
    ]
    cluster_queue = {
        "apiVersion": KUEUE,
        "kind": "ClusterQueue",
        "metadata": {"name": "lab-cq"},
        "spec": {
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                    "flavors": [{"name": "lab-flavor", "resources": quota}],
                }
            ],
        },
    }
    return [flavor, cluster_queue]


def local_queue(name: str) -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"clusterQueue": "lab-cq"},
    }


def pod_template(gpus: int) -> dict[str, Any]:
    requests = {"cpu": "1", "memory": "1Gi"}
    limits = {}
    if gpus:
        requests["nvidia.com/gpu"] = limits["nvidia.com/gpu"] = str(gpus)
    container = {"name": "main", "image": "busybox", "resources": {"requests": requests, "limits": limits}}
    return {"spec": {"restartPolicy": "Never", "containers": [container]}}


def queued_job(name: str, queue: str, pods: int, gpus: int) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {QUEUE_LABEL: queue}},
        "spec": {"suspend": True, "parallelism": pods, "completions": pods, "template": pod_template(gpus)},
    }


def queued_jobset(name: str, queue: str, workers: int, gpus: int) -> dict[str, Any]:
    def replicated(role: str, parallelism: int, role_gpus: int) -> dict[str, Any]:
        job = {"parallelism": parallelism, "completions": parallelism, "template": pod_template(role_gpus)}
        return {"name": role, "replicas": 1, "template": {"spec": job}}

    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {QUEUE_LABEL: queue}},
        "spec": {"suspend": True, "replicatedJobs": [replicated("driver", 1, 0), replicated("workers", workers, gpus)]},
    }


def queued_raycluster(name: str, queue: str, workers: int, gpus: int) -> dict[str, Any]:
    group = {
        "groupName": "gpu",
        "replicas": workers,
        "minReplicas": 0,
        "maxReplicas": 8,
        "rayStartParams": {},
        "template": pod_template(gpus),
    }
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {QUEUE_LABEL: queue}},
        "spec": {
            "rayVersion": "2.46.0",
            "headGroupSpec": {"rayStartParams": {}, "template": pod_template(0)},
            "workerGroupSpecs": [group],
        },
    }


def kueue_workload(lab: Lab, owner_uid: str) -> dict[str, Any] | None:
    for workload in lab.kube.list(KUEUE, "Workload", NAMESPACE):
        if any(ref.get("uid") == owner_uid for ref in workload["metadata"].get("ownerReferences", [])):
            return workload
    return None


def condition(obj: Obj | None, kind: str) -> str | None:
    """The status of the object's condition of that type."""
    return scenario_condition(obj or {}, kind).get("status")


def template_gpus(template: Mapping[str, Any]) -> int:
    """GPUs one pod of a PodSet's template requests as Kueue sizes it: the containers' requests (a limit alone
    stands for the request), the largest init container's when that is more."""
    spec = template.get("spec") or {}

    def asked(container: Mapping[str, Any]) -> int:
        resources = container.get("resources") or {}
        return int((resources.get("requests") or {}).get(GPU) or (resources.get("limits") or {}).get(GPU) or 0)

    running = sum(asked(c) for c in spec.get("containers") or [])
    return max([running, *(asked(c) for c in spec.get("initContainers") or [])])


def kueue_podsets(workload: Mapping[str, Any]) -> dict[str, Any]:
    """Kueue's PodSets: name -> [count, minCount, GPUs of count pods]."""
    return {
        p["name"]: [int(p["count"]), p.get("minCount"), int(p["count"]) * template_gpus(p["template"])]
        for p in workload["spec"]["podSets"]
    }


def wmap_podsets(tree: Mapping[str, Any]) -> dict[str, Any]:
    """wmap's pod-producing instances in Kueue's terms: name -> [desired pods, None, desired GPUs] (Kueue's
    minCount is partial admission, which wmap does not model: docs/gang.md section 11). An instance is named
    by its id, else by its component (a Kubeflow job's replica type, as Kueue names it, lower-cased); a batch
    Job's one component is Kueue's "main"."""
    found: dict[str, Any] = {}
    for component in tree["components"]:
        if component["producesPods"]:
            for instance in component["instances"]:
                name = instance["id"] if instance["id"] is not None else component["name"]
                if tree["workload"]["kind"] == "Job":
                    name = JOB_PODSET
                found[name] = [int(instance["desiredPods"]), None, int(instance["gpus"]["desired"])]
    return found


def take_peers(story: Story, step: str, type_name: str, name: str, uid: str) -> None:
    """Kueue's Workload and wmap's tree of the same object, read at the same step."""
    workload = story.lab.wait_for(
        KUEUE, "Workload", NAMESPACE, lambda _items: kueue_workload(story.lab, uid), what=f"Kueue's Workload of {name}"
    )
    tree = story.lab.wmap_json("describe", f"{type_name}/{name}", "-n", NAMESPACE)
    PEERS[(story.scenario.name, step)] = (kueue_podsets(workload), wmap_podsets(tree))
    plan = story.lab.wmap_json("gang", f"{type_name}/{name}", "-n", NAMESPACE, "-o", "json")
    if len(plan["groups"]) == 1:
        group = plan["groups"][0]
        GANGS[(story.scenario.name, step)] = (int(group["minMember"]), int(group["minGpus"]))


def setup_queues(lab: Lab) -> None:
    """Before a scenario starts Kueue: the operators whose CRDs Kueue's integrations need come first."""
    for operator in ("kuberay", "jobset", "training_operator", "mpi_operator", "kueue"):
        lab.start_operator(operator)
    lab.namespace(NAMESPACE)
    for obj in cluster_queue_objects():
        lab.kube.apply(obj)


@dataclass(frozen=True)
class Queued:
    """A job submitted suspended to a LocalQueue that does not exist yet, as its story drives it."""

    obj: dict[str, Any]
    type_name: str  # wmap's TYPE
    pods: int  # pods it runs once admitted
    selector: str  # label selector of its pods; "{uid}" stands for the job's uid
    suspended: Callable[[dict[str, Any]], bool]  # its controller has acted on the suspension
    ready: Callable[[dict[str, Any]], bool]  # its controller counts every pod ready
    done: Callable[[dict[str, Any]], bool] | None = None  # its controller says it completed


def admission_story(story: Story, queued: Queued) -> None:
    """Queued (no LocalQueue: Kueue keeps it suspended), its queue made (admitted, pods starting), every pod
    Ready (running), and, when the job has a ``done`` test, every pod Succeeded (completed); Kueue's PodSets
    and wmap's taken at "queued" and "running". A step the scenario does not declare is acted out, not
    observed."""
    lab, ns = story.lab, story.namespace
    declared = {step.name for step in story.scenario.steps}
    meta = queued.obj["metadata"]
    name = meta["name"]
    uid = lab.kube.create(queued.obj)["metadata"]["uid"]
    selector = queued.selector.format(uid=uid)
    story.wait_workload(queued.suspended, "suspended")
    take_peers(story, "queued", queued.type_name, name, uid)
    story.observe("queued")

    lab.kube.apply(local_queue(meta["labels"][QUEUE_LABEL]))
    story.wait_pods(
        lambda pods: len([p for p in live(pods) if (p.get("status") or {}).get("podIP")]) == queued.pods,
        f"{queued.pods} pods bound",
        label_selector=selector,
    )
    assert condition(kueue_workload(lab, uid), "Admitted") == "True"
    if "admitted, pods starting" in declared:
        story.observe("admitted, pods starting")

    lab.set_phase(ns, "Ready", label_selector=selector)
    story.wait_pods(lambda pods: phase_counts(pods) == {"Ready": queued.pods}, "every pod Ready", selector)
    story.wait_workload(queued.ready, "every pod ready")
    take_peers(story, "running", queued.type_name, name, uid)
    story.observe("running")

    if queued.done is not None:
        lab.set_phase(ns, "Succeeded", label_selector=selector)
        story.wait_workload(queued.done, "completed")
        story.observe("completed")
    api_version, kind = queued.obj["apiVersion"], queued.obj["kind"]
    lab.kube.delete(api_version, kind, name, ns, propagationPolicy="Background")


# --- batch Job -----------------------------------------------------------------------------------------------

JOB = Scenario(
    framework="kueue",
    name="job-admitted",
    workload={"apiVersion": "batch/v1", "kind": "Job", "namespace": NAMESPACE, "name": "train"},
    wmap_type="job",
    record_kinds=[("batch/v1", "Job"), ("v1", "Pod"), (KUEUE, "Workload")],
    operator="kueue",
    steps=[
        # Its LocalQueue does not exist yet: Kueue keeps it suspended (inadmissible).
        Step("queued", expect("Suspended", 8, 0, job=(2, 0, 0))),
        Step("admitted, pods starting", expect("Resuming", 8, 8, job=(2, 2, 0))),
        Step("running", expect("Running", 8, 8, job=(2, 2, 2))),
        # Finished, it requests nothing any more (docs/semantics.md "Pod counts of finished pods").
        Step("completed", expect("Completed", 0, 0, job=(2, 2, 0))),
    ],
)


def job_story(story: Story) -> None:
    admission_story(
        story,
        Queued(
            queued_job("train", "job-queue", 2, 4),
            "job",
            2,
            "batch.kubernetes.io/controller-uid={uid}",
            suspended=lambda job: job["spec"].get("suspend") is True,
            ready=lambda job: (job.get("status") or {}).get("ready") == 2,
            done=lambda job: condition(job, "Complete") == "True",
        ),
    )


@pytest.fixture(scope="module")
def job_run(lab: Lab) -> Scenario:
    setup_queues(lab)
    return JOB.run(lab, job_story)


@pytest.mark.parametrize("step", JOB.params())
def test_kueue_job(job_run: Scenario, step: str) -> None:
    job_run.check(step)


# --- RayCluster over quota -----------------------------------------------------------------------------------

RAY_QUOTA = Scenario(
    framework="kueue",
    name="raycluster-over-quota",
    workload={"apiVersion": "ray.io/v1", "kind": "RayCluster", "namespace": NAMESPACE, "name": "second"},
    wmap_type="raycluster",
    record_kinds=[("ray.io/v1", "RayCluster"), ("v1", "Pod"), (KUEUE, "Workload")],
    operator="kueue",
    steps=[
        # 8 GPUs of quota held by "first": Kueue keeps "second" suspended; it asks for its full size, holds nothing.
        Step("queued behind quota", expect("Suspended", 4, 0, head=(1, 0, 0), worker=(1, 0, 0))),
        Step(
            "admitted, pods starting",
            expect("Resuming", 4, 4, head=(1, 1, 0), worker=(1, 1, 0)),
        ),
        Step(
            "running",
            expect("Running", 4, 4, head=(1, 1, 1), worker=(1, 1, 1)),
        ),
    ],
)


def ray_quota_story(story: Story) -> None:
    lab, ns = story.lab, story.namespace
    lab.kube.apply(local_queue("ray-queue"))
    first = lab.kube.create(queued_raycluster("first", "ray-queue", 2, 4))["metadata"]["uid"]
    story.wait_pods(
        lambda pods: len([p for p in live(pods) if (p.get("status") or {}).get("podIP")]) == 3,
        "the first cluster's 3 pods bound",
        label_selector="ray.io/cluster=first",
    )
    lab.set_phase(ns, "Ready", label_selector="ray.io/cluster=first")
    take_peers(story, "first admitted", "raycluster", "first", first)

    second = lab.kube.create(queued_raycluster("second", "ray-queue", 1, 4))["metadata"]["uid"]
    lab.wait_for(
        KUEUE,
        "Workload",
        ns,
        lambda _items: condition(kueue_workload(lab, second), "QuotaReserved") == "False",
        what="the second cluster's Workload pending on quota",
    )
    story.wait_workload(
        lambda rc: (
            (rc.get("status") or {}).get("state") == "suspended" or condition(rc, "RayClusterSuspended") == "True"
        ),
        "suspended by KubeRay",
    )
    take_peers(story, "queued behind quota", "raycluster", "second", second)
    story.observe("queued behind quota")

    lab.kube.delete("ray.io/v1", "RayCluster", "first", ns)
    story.wait_pods(
        lambda pods: len([p for p in live(pods) if (p.get("status") or {}).get("podIP")]) == 2,
        "the second cluster's 2 pods bound",
        label_selector="ray.io/cluster=second",
    )
    story.observe("admitted, pods starting")

    lab.set_phase(ns, "Ready", label_selector="ray.io/cluster=second")
    story.wait_workload(lambda rc: condition(rc, "RayClusterProvisioned") == "True", "provisioned")
    take_peers(story, "running", "raycluster", "second", second)
    story.observe("running")
    lab.kube.delete("ray.io/v1", "RayCluster", "second", ns)


@pytest.fixture(scope="module")
def ray_quota_run(lab: Lab) -> Scenario:
    setup_queues(lab)
    return RAY_QUOTA.run(lab, ray_quota_story)


@pytest.mark.parametrize("step", RAY_QUOTA.params())
def test_kueue_raycluster_over_quota(ray_quota_run: Scenario, step: str) -> None:
    ray_quota_run.check(step)


def test_kueue_queued_raycluster_never_undefined(ray_quota_run: Scenario, lab: Lab) -> None:
    """Created without spec.suspend, the cluster is suspended by Kueue's webhook at admission to the API, so
    every state wmap reads before Kueue admits it is Suspended (docs/semantics.md "RayCluster")."""
    changes = primaries(recording_path(ray_quota_run, lab.work_dir), "raycluster", NAMESPACE, "second")
    queued = ray_quota_run.observations["queued behind quota"].after
    before = [p for index, p in changes if index <= queued and p is not None]
    assert before and set(before) == {"Suspended"}, changes


# --- JobSet --------------------------------------------------------------------------------------------------

JOBSET = Scenario(
    framework="kueue",
    name="jobset-admitted",
    workload={"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "namespace": NAMESPACE, "name": "pretrain"},
    wmap_type="jobset",
    record_kinds=[("jobset.x-k8s.io/v1alpha2", "JobSet"), ("batch/v1", "Job"), ("v1", "Pod"), (KUEUE, "Workload")],
    operator="kueue",
    steps=[
        Step("queued", expect("Suspended", 8, 0, replicatedJob=(3, 0, 0))),
        Step("running", expect("Running", 8, 8, replicatedJob=(3, 3, 3))),
    ],
)


def jobset_story(story: Story) -> None:
    admission_story(
        story,
        Queued(
            queued_jobset("pretrain", "jobset-queue", 2, 4),
            "jobset",
            3,
            "jobset.sigs.k8s.io/jobset-name=pretrain",
            suspended=lambda js: condition(js, "Suspended") == "True",
            ready=lambda js: all(
                r.get("ready") == 1 for r in (js.get("status") or {}).get("replicatedJobsStatus") or [{}]
            ),
        ),
    )


@pytest.fixture(scope="module")
def jobset_run(lab: Lab) -> Scenario:
    setup_queues(lab)
    return JOBSET.run(lab, jobset_story)


@pytest.mark.parametrize("step", JOBSET.params())
def test_kueue_jobset(jobset_run: Scenario, step: str) -> None:
    jobset_run.check(step)


def test_kueue_queued_jobset_never_undefined(jobset_run: Scenario, lab: Lab) -> None:
    """Submitted suspended, the JobSet reads Suspending or Suspended until Kueue admits it, also before the
    JobSet controller's first status (docs/semantics.md "JobSet")."""
    changes = primaries(recording_path(jobset_run, lab.work_dir), "jobset", NAMESPACE, "pretrain")
    queued = jobset_run.observations["queued"].after
    before = [p for index, p in changes if index <= queued and p is not None]
    assert before and set(before) <= {"Suspending", "Suspended"}, changes


# --- Kubeflow: PyTorchJob (training-operator v1.9.2), MPIJob (mpi-operator v0.6.0) ------------------------------

KUBEFLOW_V1 = "kubeflow.org/v1"
MPI_V2 = "kubeflow.org/v2beta1"
JOB_NAME_LABEL = "training.kubeflow.org/job-name"


def kubeflow_template(container: str, gpus: int) -> dict[str, Any]:
    template = pod_template(gpus)
    template["spec"]["containers"][0]["name"] = container  # the container the operator reads
    del template["spec"]["restartPolicy"]  # the replica spec's restartPolicy says it
    return template


def queued_pytorchjob(name: str, queue: str, workers: int, gpus: int) -> dict[str, Any]:
    def replicas(count: int) -> dict[str, Any]:
        return {"replicas": count, "restartPolicy": "OnFailure", "template": kubeflow_template("pytorch", gpus)}

    return {
        "apiVersion": KUBEFLOW_V1,
        "kind": "PyTorchJob",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {QUEUE_LABEL: queue}},
        "spec": {
            "runPolicy": {"suspend": True},
            "pytorchReplicaSpecs": {"Master": replicas(1), "Worker": replicas(workers)},
        },
    }


def queued_mpijob(name: str, queue: str, workers: int, gpus: int, creation: str = "AtStartup") -> dict[str, Any]:
    return {
        "apiVersion": MPI_V2,
        "kind": "MPIJob",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {QUEUE_LABEL: queue}},
        "spec": {
            "slotsPerWorker": 1,
            "launcherCreationPolicy": creation,
            "runPolicy": {"suspend": True, "cleanPodPolicy": "Running"},
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "restartPolicy": "Never", "template": kubeflow_template("mpi", 0)},
                "Worker": {"replicas": workers, "template": kubeflow_template("mpi", gpus)},
            },
        },
    }


PYTORCHJOB = Scenario(
    framework="kueue",
    name="pytorchjob-admitted",
    workload={"apiVersion": KUBEFLOW_V1, "kind": "PyTorchJob", "namespace": NAMESPACE, "name": "finetune"},
    wmap_type="pytorchjob",
    record_kinds=[(KUBEFLOW_V1, "PyTorchJob"), ("v1", "Pod"), (KUEUE, "Workload")],
    operator="kueue",
    steps=[
        # Suspended=True (PyTorchJobSuspended) written for a job created suspended; it asks for its full size.
        Step("queued", expect("Suspended", 6, 0, master=(1, 0, 0), worker=(2, 0, 0))),
        # Kueue unsuspended it: Suspended=False PyTorchJobResumed, no Running yet.
        Step("admitted, pods starting", expect("Resuming", 6, 6, master=(1, 1, 0), worker=(2, 2, 0))),
        Step("running", expect("Running", 6, 6, master=(1, 1, 1), worker=(2, 2, 2))),
        # Finished pods stay (cleanPodPolicy None), request nothing any more.
        Step("completed", expect("Completed", 0, 0, master=(1, 1, 0), worker=(2, 2, 0))),
    ],
)


def pytorchjob_story(story: Story) -> None:
    admission_story(
        story,
        Queued(
            queued_pytorchjob("finetune", "pytorch-queue", 2, 2),
            "pytorchjob",
            3,
            f"{JOB_NAME_LABEL}=finetune",
            suspended=lambda job: on(job, "Suspended"),
            ready=lambda job: on(job, "Running"),
            done=lambda job: on(job, "Succeeded"),
        ),
    )


@pytest.fixture(scope="module")
def pytorchjob_run(lab: Lab) -> Scenario:
    setup_queues(lab)
    return PYTORCHJOB.run(lab, pytorchjob_story)


@pytest.mark.parametrize("step", PYTORCHJOB.params())
def test_kueue_pytorchjob(pytorchjob_run: Scenario, step: str) -> None:
    pytorchjob_run.check(step)


@pytest.mark.parametrize("step", ["queued", "running"])
def test_kueue_pytorchjob_admits_what_the_gang_needs(pytorchjob_run: Scenario, step: str) -> None:
    """Kueue admits every PodSet whole (no minCount); wmap's gang (docs/gang.md section 4: the sum of the
    replica types) needs exactly those pods and their GPUs."""
    kueue, _ours = PEERS[(pytorchjob_run.name, step)]
    assert GANGS[(pytorchjob_run.name, step)] == (sum(c for c, _m, _g in kueue.values()), 6)
    assert sum(g for _c, _m, g in kueue.values()) == 6


MPIJOB = Scenario(
    framework="kueue",
    name="mpijob-admitted",
    workload={"apiVersion": MPI_V2, "kind": "MPIJob", "namespace": NAMESPACE, "name": "allreduce"},
    wmap_type="mpijob",
    record_kinds=[(MPI_V2, "MPIJob"), ("batch/v1", "Job"), ("v1", "Pod"), (KUEUE, "Workload")],
    operator="kueue",
    steps=[
        Step("queued", expect("Suspended", 4, 0, launcher=(1, 0, 0), worker=(2, 0, 0))),
        # Suspended=False MPIJobResumed: the launcher Job resumed and the workers created, starting.
        Step("admitted, pods starting", expect("Resuming", 4, 4, launcher=(1, 1, 0), worker=(2, 2, 0))),
        Step("running", expect("Running", 4, 4, launcher=(1, 1, 1), worker=(2, 2, 2))),
    ],
)
DELAYED = "delayed-launcher"


def mpijob_story(story: Story) -> None:
    admission_story(
        story,
        Queued(
            queued_mpijob("allreduce", "mpi-queue", 2, 2),
            "mpijob",
            3,
            f"{JOB_NAME_LABEL}=allreduce",
            suspended=lambda job: on(job, "Suspended"),
            ready=lambda job: on(job, "Running"),
        ),
    )
    # A launcher made only once the workers are Ready: the Workload Kueue creates for it, queued on a
    # LocalQueue that never exists, beside wmap's reading.
    lab = story.lab
    delayed = queued_mpijob("delayed", "closed-queue", 2, 2, creation="WaitForWorkersReady")
    uid = lab.kube.create(delayed)["metadata"]["uid"]
    lab.wait_for(
        MPI_V2,
        "MPIJob",
        NAMESPACE,
        lambda jobs: any(j["metadata"]["name"] == "delayed" and on(j, "Suspended") for j in jobs),
        what="MPIJob/delayed suspended",
    )
    take_peers(story, DELAYED, "mpijob", "delayed", uid)
    lab.kube.delete(MPI_V2, "MPIJob", "delayed", NAMESPACE, propagationPolicy="Background")


@pytest.fixture(scope="module")
def mpijob_run(lab: Lab) -> Scenario:
    setup_queues(lab)
    return MPIJOB.run(lab, mpijob_story)


@pytest.mark.parametrize("step", MPIJOB.params())
def test_kueue_mpijob(mpijob_run: Scenario, step: str) -> None:
    mpijob_run.check(step)


@pytest.mark.parametrize("step", ["queued", "running"])
def test_kueue_mpijob_admits_what_the_gang_needs(mpijob_run: Scenario, step: str) -> None:
    """Launcher made at startup: Kueue's whole admission is wmap's gang, launcher and workers."""
    kueue, _ours = PEERS[(mpijob_run.name, step)]
    assert GANGS[(mpijob_run.name, step)] == (sum(c for c, _m, _g in kueue.values()), 4)


def test_kueue_reserves_the_delayed_launcher_the_gang_leaves_out(mpijob_run: Scenario) -> None:
    """launcherCreationPolicy WaitForWorkersReady: Kueue reserves quota for the launcher from admission (its
    PodSet is counted), while the gang a scheduler waits for is the workers alone, the launcher being created
    only once they are Ready (docs/gang.md section 11)."""
    kueue, _ours = PEERS[(mpijob_run.name, DELAYED)]
    min_member, _gpus = GANGS[(mpijob_run.name, DELAYED)]
    assert kueue["launcher"][0] == 1 and kueue["worker"][0] == 2
    assert min_member == kueue["worker"][0]


def test_kueue_delayed_launcher_gang_gpus_are_the_workers(mpijob_run: Scenario) -> None:
    """The gang's GPU minimum is the workers' alone: the launcher, a deferred component (docs/gang.md section 4),
    gives its share of the shapes back to the workers."""
    kueue, _ours = PEERS[(mpijob_run.name, DELAYED)]
    assert GANGS[(mpijob_run.name, DELAYED)][1] == kueue["worker"][2]


# --- the peer agreement, every kind at once ---------------------------------------------------------------------

PEER_STEPS = [
    ("job_run", "queued"),
    ("job_run", "running"),
    ("ray_quota_run", "first admitted"),
    ("ray_quota_run", "queued behind quota"),
    ("ray_quota_run", "running"),
    ("jobset_run", "queued"),
    ("jobset_run", "running"),
    ("pytorchjob_run", "queued"),
    ("pytorchjob_run", "running"),
    ("mpijob_run", "queued"),
    ("mpijob_run", "running"),
    ("mpijob_run", DELAYED),
]


@pytest.mark.parametrize(("run", "step"), PEER_STEPS, ids=[f"{run[:-4]}: {step}" for run, step in PEER_STEPS])
def test_kueue_podsets_agree(request: pytest.FixtureRequest, run: str, step: str) -> None:
    """Kueue's PodSets of the Workload it made equal wmap's pod-producing instances (docs/gang.md section 11)."""
    scenario: Scenario = request.getfixturevalue(run)
    kueue, ours = PEERS[(scenario.name, step)]
    assert kueue == ours
