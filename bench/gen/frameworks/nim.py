"""NVIDIA NIM operator (apps.nvidia.com): NIMService and NIMCache."""

from __future__ import annotations

from datetime import timedelta

from ..controllers import deploy_tree, job_tree
from ..core import GPU, Built, Ctx, Obj, W, cond, hash_hex, obj
from ..pods import container, svc
from ..registry import framework
from .lws import lws_tree


@framework(
    "nimservice",
    weight=4,
    states={"running": 6, "initializing": 2, "failed": 1, "pending": 1},
    names=("llama-3-1-8b-nim", "nemotron-70b-nim", "nv-embedqa-nim", "llama-405b-nim"),
    sample=lambda rng, target: {
        "replicas": max(1, min(8, target // 3)),
        "pipeline": rng.choice((1, 1, 1, 2)),
        "gpus": rng.choice((1, 2, 4, 8)),
    },
)
def build_nimservice(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    repo, tag = s.get("image", "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.4").rsplit(":", 1)
    nim = obj(c, "apps.nvidia.com/v1alpha1", "NIMService", name, ns, t=t)
    g = s["gpus"]
    spec: Obj = {
        "image": {"repository": repo, "tag": tag, "pullPolicy": "IfNotPresent", "pullSecrets": ["ngc-secret"]},
        "authSecret": "ngc-api-secret",
        "replicas": s["replicas"],
        "resources": {"limits": {GPU: str(g)}},
        "expose": {"service": {"type": "ClusterIP", "port": 8000}},
    }
    spec["storage"] = (
        {"nimCache": {"name": s["cache"], "profile": ""}}
        if s.get("cache")
        else {"pvc": {"create": True, "size": "200Gi", "volumeAccessMode": "ReadWriteOnce"}}
    )
    multi = s["pipeline"] > 1
    if multi:
        spec["multiNode"] = {"backendType": "lws", "parallelism": {"pipeline": s["pipeline"], "tensor": g}}
    nim["spec"] = spec
    out = Built(nim)
    std = {
        "app.kubernetes.io/instance": name,
        "app.kubernetes.io/managed-by": "k8s-nim-operator",
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/operator-version": "v3.0.0",
        "app.kubernetes.io/part-of": "nim-service",
    }
    ct = [
        container(
            name if not multi else "nim-leader",
            f"{repo}:{tag}",
            gpus=g,
            cpu=str(8 * g),
            mem=f"{64 * g}Gi",
            ports=[8000],
            env={"NIM_CACHE_PATH": "/model-store", "NIM_SERVER_PORT": "8000"},
        )
    ]
    t1 = t + timedelta(seconds=1)
    wstate = {"failed": "failed", "initializing": "initializing", "pending": "pending"}.get(state, "running")
    if multi:
        sub = lws_tree(
            c,
            f"{name}-lws",
            ns,
            t1,
            nim,
            replicas=s["replicas"],
            size=s["pipeline"],
            leader_ct=ct,
            worker_ct=[dict(ct[0], name="nim-worker")],
            state=wstate,
            labels=std,
            leader_labels=std | {"app": f"{name}-lws", "nim-llm-role": "leader"},
            worker_labels=std | {"app": f"{name}-lws"},
        )
        out.children.append(
            svc(c, name, ns, t1, nim, selector={"app": f"{name}-lws", "nim-llm-role": "leader"}, port=8000, labels=std)
        )
    else:
        n = s["replicas"]
        pstates = {
            "running": ["running"] * n,
            "initializing": ["starting"] * n,
            "failed": ["crashloop"] * n,
            "pending": ["unschedulable"] * n,
        }[wstate]
        sub = deploy_tree(
            c,
            name,
            ns,
            t1,
            nim,
            replicas=n,
            pod_labels=std | {"app": name},
            containers=ct,
            states=pstates,
            labels=std,
            selector={"app": name},
            service_account=name,
            progress_deadline=state == "failed",
        )
        out.children.append(svc(c, name, ns, t1, nim, selector={"app": name}, port=8000, labels=std))
    out.add(sub)
    t_ready = t + timedelta(minutes=c.rng.randint(5, 40))
    kind_name = f'deployment "{name}"' if not multi else f'leaderworkerset "{name}-lws"'
    if state == "running":
        conds = [
            cond("NIM_SERVICE_READY", "True", t_ready, "Ready", f"{kind_name} successfully rolled out\n"),
            cond("NIM_SERVICE_FAILED", "False", t_ready, "Ready"),
        ]
        st = "Ready"
    elif state == "failed":
        conds = [
            cond(
                "NIM_SERVICE_READY",
                "False",
                t_ready,
                "NotReady",
                f"Waiting for {kind_name} rollout to finish: 0 of {s['replicas']} updated replicas are available...\n",
            ),
            cond("NIM_SERVICE_FAILED", "True", t_ready, "Failed", f"{kind_name} exceeded its progress deadline"),
        ]
        st = "Failed"
    else:
        conds = [
            cond(
                "NIM_SERVICE_READY",
                "False",
                t,
                "NotReady",
                f"Waiting for {kind_name} rollout to finish: 0 of {s['replicas']} updated replicas are available...\n",
            ),
            cond("NIM_SERVICE_FAILED", "False", t, "Ready"),
        ]
        st = "NotReady" if state == "initializing" else "Pending"
    ready = sum(
        1
        for p in sub.pods
        if p["status"]["phase"] == "Running"
        and p["status"]["conditions"][2]["status"] == "True"
        and p["metadata"]["labels"].get("leaderworkerset.sigs.k8s.io/worker-index", "0") == "0"
    )
    nim["status"] = {
        "state": st,
        "conditions": conds,
        "availableReplicas": ready,
        "model": {
            "name": repo.rsplit("/", 1)[-1],
            "clusterEndpoint": f"{name}.{ns}.svc.cluster.local:8000",
            "externalEndpoint": "",
        },
    }
    return out


@framework(
    "nimcache",
    weight=2,
    states={"completed": 5, "running": 2, "failed": 1},
    names=("llama-3-1-8b-cache", "nemotron-cache", "embedqa-cache"),
    sample=lambda rng, target: {"gpus": rng.choice((0, 1))},
)
def build_nimcache(c: Ctx, w: W) -> Built:
    ns, t, name, state = w.namespace, w.created, w.name, w.state
    nc = obj(
        c,
        "apps.nvidia.com/v1alpha1",
        "NIMCache",
        name,
        ns,
        t=t,
        labels={
            "app": "k8s-nim-operator",
            "app.kubernetes.io/instance": name,
            "app.kubernetes.io/managed-by": "k8s-nim-operator",
            "app.kubernetes.io/name": name,
            "app.kubernetes.io/part-of": "nim-cache",
        },
    )
    model_puller = w.shape.get("image", "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.4")
    nc["spec"] = {
        "source": {
            "ngc": {
                "modelPuller": model_puller,
                "pullSecret": "ngc-secret",
                "authSecret": "ngc-api-secret",
                "model": {"engine": "tensorrt_llm", "tensorParallelism": "1", "qosProfile": "throughput"},
            }
        },
        "storage": {
            "pvc": {"create": True, "storageClass": "gp3", "size": "100Gi", "volumeAccessMode": "ReadWriteOnce"}
        },
        "resources": {"cpu": "4", "memory": "16Gi"},
    }
    out = Built(nc)
    t1 = t + timedelta(seconds=1)
    pvc = obj(c, "v1", "PersistentVolumeClaim", f"{name}-pvc", ns, t=t1, owner=nc, generation=None)
    pvc["spec"] = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "100Gi"}},
        "storageClassName": "gp3",
        "volumeMode": "Filesystem",
        "volumeName": f"pvc-{c.uid()}",
    }
    pvc["status"] = {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "100Gi"}}
    out.children.append(pvc)
    pl = {"app": "k8s-nim-operator", "app.kubernetes.io/managed-by": "k8s-nim-operator", "app.kubernetes.io/name": name}
    ct = [container("nim-cache-ctr", model_puller, cpu="4", mem="16Gi", command=["download-to-cache"])]
    out.add(
        job_tree(
            c,
            f"{name}-job",
            ns,
            t1,
            nc,
            containers=ct,
            outcome=state,
            labels=pl,
            pod_labels=pl,
            backoff=5,
            pod_annotations={"sidecar.istio.io/inject": "false"},
            pod_states={"completed": ["succeeded"], "running": ["running"], "failed": ["failed"]}[state],
        )
    )
    t_end = t + timedelta(minutes=c.rng.randint(10, 60))
    conds = [
        cond("NIM_CACHE_PVC_CREATED", "True", t1, "PVCCreated", "The PVC has been created for caching NIM model"),
        cond("NIM_CACHE_JOB_CREATED", "True", t1, "JobCreated", "The Job to cache NIM has been created"),
        cond("NIM_CACHE_JOB_PENDING", "False", t1, "JobPending", "The Job to cache NIM is in pending state"),
    ]
    if state == "completed":
        conds.append(
            cond(
                "NIM_CACHE_JOB_COMPLETED",
                "True",
                t_end,
                "JobCompleted",
                "The Job to cache NIM has successfully completed",
            )
        )
    if state == "failed":
        conds.append(cond("NIM_CACHE_RECONCILE_FAILED", "True", t_end, "JobFailed", "The Job to cache NIM has failed"))
    nc["status"] = {
        "state": {"completed": "Ready", "running": "InProgress", "failed": "Failed"}[state],
        "pvc": f"{name}-pvc",
        "conditions": conds,
    }
    if state == "completed":
        nc["status"]["profiles"] = [
            {
                "name": hash_hex(name)[:64],
                "model": "meta/llama-3.1-8b-instruct",
                "release": "1.8.4",
                "config": {
                    "feat_lora": "false",
                    "gpu": "H100",
                    "llm_engine": "tensorrt_llm",
                    "precision": "bf16",
                    "profile": "throughput",
                    "tp": "1",
                },
            }
        ]
    return out
