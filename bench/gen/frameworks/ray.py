"""KubeRay (ray.io): RayCluster, RayJob, RayService."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from ..controllers import job_tree
from ..core import BASE_TIME, Built, Ctx, Obj, W, cond, obj, ts
from ..pods import container, count, pod, states_for, svc, template
from ..registry import framework, sample_gpus

IMG_RAY = "rayproject/ray:2.46.0-py311-gpu"


def _sample_ray(rng: random.Random, target: int) -> dict[str, Any]:
    groups = []
    left = max(1, target - 1)
    for gi in range(rng.choice((1, 1, 2, 3))):
        hosts = rng.choice((1, 1, 1, 2, 4))
        reps = max(1, min(8, left // (hosts * (2 if gi == 0 else 3))))
        groups.append(
            {
                "name": ("gpu-group", "cpu-group", "h100-multihost")[gi],
                "replicas": reps,
                "numOfHosts": hosts,
                "gpus": 0 if gi == 1 else sample_gpus(rng, (1, 4, 8)),
            }
        )
    return {"groups": groups}


def _ray_spec(groups: list[dict[str, Any]], image: str = IMG_RAY) -> Obj:
    return {
        "rayVersion": "2.46.0",
        "headGroupSpec": {
            "rayStartParams": {"dashboard-host": "0.0.0.0", "num-cpus": "0"},
            "serviceType": "ClusterIP",
            "template": template(None, _ray_head_ct(image)),
        },
        "workerGroupSpecs": [
            {
                "groupName": g["name"],
                "replicas": g["replicas"],
                "minReplicas": g["replicas"],
                "maxReplicas": 2 * g["replicas"],
                "numOfHosts": g["numOfHosts"],
                "rayStartParams": {},
                "template": template(None, _ray_worker_ct(g, image)),
            }
            for g in groups
        ],
    }


def _ray_head_ct(image: str) -> list[Obj]:
    return [container("ray-head", image, cpu="8", mem="32Gi", ports=[6379, 8265, 10001])]


def _ray_worker_ct(g: dict[str, Any], image: str) -> list[Obj]:
    return [
        container(
            "ray-worker", image, gpus=g["gpus"], cpu=str(max(4, 12 * g["gpus"])), mem=f"{max(16, 128 * g['gpus'])}Gi"
        )
    ]


def _ray_cluster(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj | None,
    *,
    groups: list[dict[str, Any]],
    state: str,
    labels: Obj | None = None,
    serve: bool = False,
    image: str = IMG_RAY,
) -> Built:
    """RayCluster → head pod <rc>-head-<5> + worker pods <rc>-<group>-worker-<5> (numOfHosts pods per replica);
    state running / initializing / pending / degraded / suspended."""
    rc = obj(c, "ray.io/v1", "RayCluster", name, ns, t=t, labels=labels, owner=owner)
    suspended = state == "suspended"
    rc["spec"] = {"enableInTreeAutoscaling": False, "suspend": suspended} | _ray_spec(groups, image)
    out = Built(rc)
    t1 = t + timedelta(seconds=1)
    base = {
        "app.kubernetes.io/created-by": "kuberay-operator",
        "app.kubernetes.io/name": "kuberay",
        "ray.io/cluster": name,
        "ray.io/is-ray-node": "yes",
    }
    head_svc_name = f"{name}-head-svc"
    head_svc = None
    if not suspended:
        head_svc = svc(
            c,
            head_svc_name,
            ns,
            t1,
            rc,
            selector={"ray.io/cluster": name, "ray.io/node-type": "head"},
            port=8265,
            labels={"ray.io/cluster": name, "ray.io/node-type": "head", "ray.io/identifier": f"{name}-head"},
        )
        out.children.append(head_svc)
    desired = sum(g["replicas"] * g["numOfHosts"] for g in groups)
    n = 0 if suspended else desired
    wstates = (
        ["unschedulable"] * n
        if state == "pending"
        else states_for(n, state, c.rng)
        if state in ("degraded", "initializing")
        else ["running"] * n
    )
    head_state = "starting" if state == "initializing" and c.rng.random() < 0.3 else "running"
    head_pod = None
    if not suspended:
        hl = base | {"ray.io/group": "headgroup", "ray.io/identifier": f"{name}-head", "ray.io/node-type": "head"}
        if serve:
            hl["ray.io/serve"] = "true" if head_state == "running" else "false"
        head_pod = pod(
            c,
            f"{name}-head-{c.rand()}",
            ns,
            t1,
            rc,
            state=head_state,
            containers=_ray_head_ct(image),
            labels=hl,
            restart="Always",
            annotations={"ray.io/ft-enabled": "false"},
            generate_name=f"{name}-head-",
        )
        out.pods.append(head_pod)
    k = 0
    for g in groups if not suspended else []:
        if g["numOfHosts"] > 1:
            out.children.append(
                svc(
                    c,
                    f"{name}-{g['name']}-headless",
                    ns,
                    t1,
                    rc,
                    selector={"ray.io/cluster": name, "ray.io/group": g["name"]},
                    headless=True,
                    port=6379,
                    labels={"ray.io/cluster": name, "ray.io/headless-worker-svc": f"{name}-{g['name']}-headless"},
                )
            )
        for r in range(g["replicas"]):
            replica_name = f"{g['name']}-{c.rand()}"
            for h in range(g["numOfHosts"]):
                st = wstates[k]
                k += 1
                wl = base | {
                    "ray.io/group": g["name"],
                    "ray.io/identifier": f"{name}-worker",
                    "ray.io/node-type": "worker",
                }
                if g["numOfHosts"] > 1:
                    wl |= {
                        "ray.io/worker-group-replica-name": replica_name,
                        "ray.io/worker-group-replica-index": str(r),
                        "ray.io/replica-host-index": str(h),
                    }
                if serve:
                    wl["ray.io/serve"] = "true" if st == "running" else "false"
                out.pods.append(
                    pod(
                        c,
                        f"{name}-{g['name']}-worker-{c.rand()}",
                        ns,
                        t1,
                        rc,
                        state=st,
                        containers=_ray_worker_ct(g, image),
                        labels=wl,
                        restart="Always",
                        generate_name=f"{name}-{g['name']}-worker-",
                    )
                )
    ready_workers = count(wstates, "running")
    t_ready = t + timedelta(minutes=c.rng.randint(2, 12))
    status: Obj = {}
    if suspended:
        status["conditions"] = [cond("RayClusterSuspended", "True", t, "RayClusterSuspended")]
        status["state"] = "suspended"
    else:
        assert head_pod is not None and head_svc is not None
        head_ok = head_state == "running"
        provisioned = state in ("running", "degraded")
        status["conditions"] = [
            cond(
                "HeadPodReady",
                "True" if head_ok else "False",
                t_ready,
                "HeadPodRunningAndReady" if head_ok else "ContainersNotReady",
                None if head_ok else "containers with unready status: [ray-head]",
            ),
            cond(
                "RayClusterProvisioned",
                "True" if provisioned else "False",
                t_ready,
                "AllPodRunningAndReadyFirstTime" if provisioned else "RayClusterPodsProvisioning",
                "All Ray Pods are ready for the first time"
                if provisioned
                else "RayCluster Pods are being provisioned for first time",
            ),
        ]
        if provisioned:
            status["state"] = "ready"
            status["stateTransitionTimes"] = {"ready": ts(t_ready)}
        status["head"] = {
            "podName": head_pod["metadata"]["name"],
            "podIP": head_pod["status"].get("podIP", ""),
            "serviceName": head_svc_name,
            "serviceIP": head_svc["spec"]["clusterIP"],
        }
        status["endpoints"] = {"client": "10001", "dashboard": "8265", "gcs-server": "6379", "metrics": "8080"}
    status |= {
        "desiredWorkerReplicas": desired,
        "minWorkerReplicas": desired,
        "maxWorkerReplicas": 2 * desired,
        "readyWorkerReplicas": ready_workers,
        "availableWorkerReplicas": ready_workers,
        "desiredCPU": str(8 + sum(g["replicas"] * g["numOfHosts"] * max(4, 12 * g["gpus"]) for g in groups)),
        "desiredGPU": str(sum(g["replicas"] * g["numOfHosts"] * g["gpus"] for g in groups)),
        "desiredMemory": f"{32 + sum(g['replicas'] * g['numOfHosts'] * max(16, 128 * g['gpus']) for g in groups)}Gi",
        "desiredTPU": "0",
        "lastUpdateTime": ts(BASE_TIME - timedelta(seconds=30)),
        "observedGeneration": 1,
    }
    rc["status"] = status
    return out


@framework(
    "raycluster",
    weight=6,
    states={"running": 6, "initializing": 1, "pending": 2, "degraded": 1, "suspended": 1},
    names=("ray-dev", "ray-batch-infer", "verl-rlhf", "ray-tune-hpo", "ray-data-etl"),
    sample=_sample_ray,
)
def build_raycluster(c: Ctx, w: W) -> Built:
    return _ray_cluster(c, w.name, w.namespace, w.created, None, groups=w.shape["groups"], state=w.state)


@framework(
    "rayjob",
    weight=5,
    states={"running": 5, "completed": 3, "failed": 1, "initializing": 1, "pending": 1, "suspended": 1},
    names=("ray-train-llama", "ray-batch-embed", "ray-ppo", "ray-data-dedup"),
    sample=_sample_ray,
)
def build_rayjob(c: Ctx, w: W) -> Built:
    """RayJob → RayCluster <rayjob>-<5> (deleted after success: shutdownAfterJobFinishes) + submitter Job
    <rayjob> → pod."""
    ns, t, name, state = w.namespace, w.created, w.name, w.state
    rj = obj(c, "ray.io/v1", "RayJob", name, ns, t=t)
    shutdown = state != "failed"
    entry = w.shape.get("entrypoint", "python /home/ray/samples/train.py --num-workers 8")
    groups = w.shape["groups"]
    rj["spec"] = {
        "entrypoint": entry,
        "submissionMode": "K8sJobMode",
        "shutdownAfterJobFinishes": shutdown,
        "ttlSecondsAfterFinished": 600,
        "suspend": state == "suspended",
        "backoffLimit": 0,
        "rayClusterSpec": _ray_spec(groups),
    }
    out = Built(rj)
    rc_name = f"{name}-{c.rand()}"
    t1 = t + timedelta(seconds=1)
    cluster_status: Obj = {}
    if state != "suspended":
        cstate = {"initializing": "initializing", "pending": "pending"}.get(state, "running")
        sub = _ray_cluster(
            c,
            rc_name,
            ns,
            t1,
            rj,
            groups=groups,
            state=cstate,
            labels={
                "ray.io/job-submission-mode": "K8sJobMode",
                "ray.io/originated-from-cr-name": name,
                "ray.io/originated-from-crd": "RayJob",
            },
        )
        cluster_status = sub.workload["status"]
        if not (shutdown and state == "completed"):
            out.add(sub)
            out.children.append(
                svc(
                    c,
                    f"{name}-head-svc",
                    ns,
                    t1,
                    rj,
                    selector={"ray.io/cluster": rc_name, "ray.io/node-type": "head"},
                    port=8265,
                    labels={
                        "ray.io/identifier": f"{rc_name}-head",
                        "ray.io/node-type": "head",
                        "ray.io/originated-from-cr-name": name,
                        "ray.io/originated-from-crd": "RayJob",
                    },
                )
            )
    if state in ("running", "completed", "failed"):
        sub_ct = [
            container(
                "ray-job-submitter",
                IMG_RAY,
                cpu="1",
                mem="1Gi",
                command=[
                    "ray",
                    "job",
                    "submit",
                    "--address",
                    f"http://{rc_name}-head-svc.{ns}.svc.cluster.local:8265",
                    "--",
                    *entry.split(),
                ],
            )
        ]
        out.add(
            job_tree(
                c,
                name,
                ns,
                t + timedelta(minutes=3),
                rj,
                containers=sub_ct,
                outcome=state,
                backoff=2,
                pod_states={"running": ["running"], "completed": ["succeeded"], "failed": ["failed"]}[state],
            )
        )
    t_end = t + timedelta(hours=c.rng.randint(1, 10))
    st: Obj = {
        "jobDeploymentStatus": {
            "running": "Running",
            "completed": "Complete",
            "failed": "Failed",
            "initializing": "Initializing",
            "pending": "Initializing",
            "suspended": "Suspended",
        }[state]
    }
    if state in ("running", "completed", "failed"):
        st["jobStatus"] = {"running": "RUNNING", "completed": "SUCCEEDED", "failed": "FAILED"}[state]
        st["jobId"] = f"{name}-{c.rand()}"
    if state == "failed":
        st["reason"] = "AppFailed"
        st["message"] = (
            "Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):\n"
            "RuntimeError: CUDA error: an illegal memory access was encountered"
        )
    if state != "suspended":
        st["rayClusterName"] = rc_name
        st["dashboardURL"] = f"{rc_name}-head-svc.{ns}.svc.cluster.local:8265"
        st["startTime"] = ts(t)
        st["rayClusterStatus"] = cluster_status
    if state in ("completed", "failed"):
        st["endTime"] = ts(t_end)
        st["succeeded"] = 1 if state == "completed" else 0
        st["failed"] = 1 if state == "failed" else 0
    st["observedGeneration"] = 1
    rj["status"] = st
    return out


@framework(
    "rayservice",
    weight=3,
    states={"running": 5, "initializing": 1, "degraded": 1},
    names=("llm-serve", "deepseek-r1-serve", "stable-diffusion-serve"),
    sample=lambda rng, target: {
        "groups": [
            {
                "name": "gpu-group",
                "replicas": max(1, min(8, target // 2)),
                "numOfHosts": 1,
                "gpus": sample_gpus(rng, (1, 2, 4, 8)),
            }
        ]
    },
)
def build_rayservice(c: Ctx, w: W) -> Built:
    """RayService → RayCluster <rs>-<5> (+ <rs>-head-svc, <rs>-serve-svc); pods carry ray.io/serve."""
    ns, t, name, state = w.namespace, w.created, w.name, w.state
    rs = obj(c, "ray.io/v1", "RayService", name, ns, t=t)
    groups = w.shape["groups"]
    rs["spec"] = {
        "serveConfigV2": (
            "applications:\n- name: llm\n  route_prefix: /\n  import_path: ray.serve.llm:build_openai_app\n"
            "  args:\n    llm_configs:\n    - model_loading_config:\n        model_id: qwen-2.5-7b\n"
        ),
        "upgradeStrategy": {"type": "NewCluster"},
        "rayClusterConfig": _ray_spec(groups),
    }
    out = Built(rs)
    rc_name = f"{name}-{c.rand()}"
    t1 = t + timedelta(seconds=1)
    sub = _ray_cluster(
        c,
        rc_name,
        ns,
        t1,
        rs,
        groups=groups,
        state=state,
        serve=True,
        labels={"ray.io/originated-from-cr-name": name, "ray.io/originated-from-crd": "RayService"},
    )
    out.add(sub)
    sel = {"ray.io/cluster": rc_name}
    out.children.append(svc(c, f"{name}-head-svc", ns, t1, rs, selector=sel | {"ray.io/node-type": "head"}, port=8265))
    out.children.append(svc(c, f"{name}-serve-svc", ns, t1, rs, selector=sel | {"ray.io/serve": "true"}, port=8000))
    serving = sum(1 for p in sub.pods if p["metadata"]["labels"].get("ray.io/serve") == "true")
    t_ready = t + timedelta(minutes=c.rng.randint(5, 20))
    now = ts(BASE_TIME - timedelta(seconds=5))
    app_status = {"running": "RUNNING", "degraded": "UNHEALTHY", "initializing": "DEPLOYING"}[state]
    dep_status = {"running": "HEALTHY", "degraded": "UNHEALTHY", "initializing": "UPDATING"}[state]
    svc_status: Obj = {
        "rayClusterName": rc_name,
        "rayClusterStatus": sub.workload["status"],
        "applicationStatuses": {
            "llm": {
                "status": app_status,
                "healthLastUpdateTime": now,
                "deployments": {
                    "LLMServer:qwen-2_5-7b": {"status": dep_status, "healthLastUpdateTime": now},
                    "LLMRouter": {"status": "HEALTHY", "healthLastUpdateTime": now},
                },
            }
        },
    }
    if state == "degraded":
        svc_status["applicationStatuses"]["llm"]["message"] = "The deployment LLMServer:qwen-2_5-7b is UNHEALTHY."
    if state == "initializing":
        status: Obj = {
            "conditions": [
                cond("Ready", "False", t, "Initializing", "RayService is initializing", generation=1),
                cond(
                    "UpgradeInProgress",
                    "False",
                    t,
                    "NoActiveCluster",
                    "The Ray cluster is not active yet",
                    generation=1,
                ),
            ],
            "activeServiceStatus": {},
            "pendingServiceStatus": svc_status,
        }
    else:
        status = {
            "conditions": [
                cond(
                    "Ready",
                    "True",
                    t_ready,
                    "NonZeroServeEndpoints",
                    "Number of serve endpoints is greater than 0",
                    generation=1,
                ),
                cond(
                    "UpgradeInProgress",
                    "False",
                    t_ready,
                    "NoPendingCluster",
                    "Active Ray cluster exists and no pending Ray cluster",
                    generation=1,
                ),
            ],
            "serviceStatus": "Running",
            "activeServiceStatus": svc_status,
            "pendingServiceStatus": {},
        }
    status |= {"numServeEndpoints": serving, "observedGeneration": 1, "lastUpdateTime": now}
    rs["status"] = status
    return out
