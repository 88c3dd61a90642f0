"""MPIJob (kubeflow.org v2beta1, mpi-operator): a launcher Job, worker pods, SSH Secret and ConfigMap."""

from __future__ import annotations

from datetime import timedelta

from ..controllers import job_tree
from ..core import BASE_TIME, Built, Ctx, Obj, W, cond, obj, ssh_auth_data, ts
from ..pods import container, pod, svc, template
from ..registry import framework
from .pytorchjob import sample_workers


@framework(
    "mpijob",
    weight=5,
    states={"running": 5, "completed": 3, "failed": 1, "pending": 1, "suspended": 1},
    names=("nccl-tests", "horovod-resnet", "mpi-allreduce-bench", "deepspeed-mpi"),
    sample=sample_workers,
)
def build_mpijob(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    g, workers = s["gpus"], max(1, s["workers"])
    img = s.get("image", "mpioperator/nccl-tests:2.13.8")
    job = obj(c, "kubeflow.org/v2beta1", "MPIJob", name, ns, t=t)
    launcher_ct = [
        container(
            "launcher",
            img,
            cpu="2",
            mem="4Gi",
            command=["mpirun", "-np", str(workers * g), "/opt/nccl-tests/build/all_reduce_perf", "-b", "8", "-e", "8G"],
        )
    ]
    worker_ct = [
        container(
            "worker",
            img,
            gpus=g,
            cpu=str(max(2, 12 * g)),
            mem=f"{max(8, 128 * g)}Gi",
            command=["/usr/sbin/sshd", "-De"],
        )
    ]
    wait = state == "pending"
    job["spec"] = {
        "slotsPerWorker": g,
        "mpiImplementation": "OpenMPI",
        "sshAuthMountPath": "/root/.ssh",
        "launcherCreationPolicy": "WaitForWorkersReady" if wait else "AtStartup",
        "runPolicy": {"cleanPodPolicy": "Running", "suspend": state == "suspended", "backoffLimit": 2},
        "mpiReplicaSpecs": {
            "Launcher": {"replicas": 1, "restartPolicy": "OnFailure", "template": template(None, launcher_ct)},
            "Worker": {"replicas": workers, "restartPolicy": "Never", "template": template(None, worker_ct)},
        },
    }
    out = Built(job)
    t1 = t + timedelta(seconds=1)
    base = {"training.kubeflow.org/job-name": name, "training.kubeflow.org/operator-name": "mpi-operator"}
    out.children.append(
        svc(
            c,
            f"{name}-worker",
            ns,
            t1,
            job,
            selector=base | {"training.kubeflow.org/job-role": "worker"},
            headless=True,
            port=22,
        )
    )
    cm = obj(c, "v1", "ConfigMap", f"{name}-config", ns, t=t1, labels={"app": name}, owner=job, generation=None)
    cm["data"] = {
        "hostfile": "".join(f"{name}-worker-{i}.{name}-worker.{ns}.svc slots={g}\n" for i in range(workers)),
        "discover_hosts.sh": "#!/bin/sh\n"
        + "".join(f"echo {name}-worker-{i}.{name}-worker.{ns}.svc\n" for i in range(workers)),
    }
    sec = obj(c, "v1", "Secret", f"{name}-ssh", ns, t=t1, labels={"app": name}, owner=job, generation=None)
    sec["data"] = ssh_auth_data(name)
    sec["type"] = "kubernetes.io/ssh-auth"
    out.children += [cm, sec]
    # cleanPodPolicy Running: workers are deleted once the job finished; WaitForWorkersReady: no launcher yet
    worker_states = (
        []
        if state in ("completed", "failed", "suspended")
        else ["unschedulable"] * workers
        if wait
        else ["running"] * workers
    )
    for i, st in enumerate(worker_states):
        pname = f"{name}-worker-{i}"
        out.pods.append(
            pod(
                c,
                pname,
                ns,
                t1,
                job,
                state=st,
                containers=worker_ct,
                hostname=pname,
                subdomain=f"{name}-worker",
                labels=base
                | {"training.kubeflow.org/job-role": "worker", "training.kubeflow.org/replica-index": str(i)},
            )
        )
    if not wait:
        llab = base | {"training.kubeflow.org/job-role": "launcher"}
        out.add(
            job_tree(
                c,
                f"{name}-launcher",
                ns,
                t1,
                job,
                containers=launcher_ct,
                outcome=state,
                labels=llab,
                pod_labels=llab,
                suspend=state == "suspended",
                backoff=2,
                pod_states={"running": ["running"], "completed": ["succeeded"], "failed": ["failed"], "suspended": []}[
                    state
                ],
            )
        )
    t_end = t + timedelta(hours=c.rng.randint(1, 12))
    full = f"{ns}/{name}"
    conds = [cond("Created", "True", t, "MPIJobCreated", f"MPIJob {full} is created.", update=True)]
    if state == "suspended":
        conds.append(cond("Suspended", "True", t, "MPIJobSuspended", f"MPIJob {full} is suspended.", update=True))
    elif state == "running":
        conds.append(
            cond(
                "Running", "True", t + timedelta(minutes=1), "MPIJobRunning", f"MPIJob {full} is running.", update=True
            )
        )
    elif state == "completed":
        conds += [
            cond("Running", "False", t_end, "MPIJobRunning", f"MPIJob {full} is running.", update=True),
            cond("Succeeded", "True", t_end, "MPIJobSucceeded", f"MPIJob {full} successfully completed.", update=True),
        ]
    elif state == "failed":
        conds += [
            cond("Running", "False", t_end, "MPIJobRunning", f"MPIJob {full} is running.", update=True),
            cond(
                "Failed",
                "True",
                t_end,
                "MPIJobFailed",
                f"MPIJob {full} has failed: Job has reached the specified backoff limit",
                update=True,
            ),
        ]
    launcher = {"running": {"active": 1}, "completed": {"succeeded": 1}, "failed": {"failed": 1}}.get(state, {})
    worker = {"active": workers} if state in ("running", "pending") else {}
    status: Obj = {"conditions": conds, "replicaStatuses": {"Launcher": launcher, "Worker": worker}}
    if state != "suspended":
        status["startTime"] = ts(t)
        status["lastReconcileTime"] = ts(
            t_end if state in ("completed", "failed") else BASE_TIME - timedelta(minutes=2)
        )
    if state in ("completed", "failed"):
        status["completionTime"] = ts(t_end)
    job["status"] = status
    return out
