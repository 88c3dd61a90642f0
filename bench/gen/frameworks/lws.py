"""LeaderWorkerSet (leaderworkerset.x-k8s.io), also the multi-node backend of LLMInferenceService and
NIMService.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from ..controllers import sts_tree
from ..core import Built, Ctx, Obj, W, cond, hash_hex, obj
from ..pods import container, states_for, svc, template
from ..registry import framework


def lws_tree(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj | None,
    *,
    replicas: int,
    size: int,
    leader_ct: list[Obj],
    worker_ct: list[Obj],
    state: str,
    labels: Obj | None = None,
    leader_labels: Obj | None = None,
    worker_labels: Obj | None = None,
) -> Built:
    """LWS → leader StatefulSet <lws> → leader pods <lws>-<g>; per group a worker StatefulSet <lws>-<g> owned by the
    leader Pod → worker pods <lws>-<g>-<w>, w = 1..size-1.

    state: running / initializing / pending / degraded / failed."""
    lws = obj(c, "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", name, ns, t=t, labels=labels, owner=owner)
    lws["spec"] = {
        "replicas": replicas,
        "startupPolicy": "LeaderCreated",
        "rolloutStrategy": {
            "type": "RollingUpdate",
            "rollingUpdateConfiguration": {"maxSurge": 0, "maxUnavailable": 1},
        },
        "networkConfig": {"subdomainPolicy": "Shared"},
        "leaderWorkerTemplate": {
            "size": size,
            "restartPolicy": "RecreateGroupOnPodRestart",
            "leaderTemplate": template(leader_labels, leader_ct),
            "workerTemplate": template(worker_labels, worker_ct),
        },
    }
    out = Built(lws)
    rev = hash_hex(f"{ns}/{name}/rev")[:16]
    t1 = t + timedelta(seconds=1)
    name_l = {"leaderworkerset.sigs.k8s.io/name": name}
    gstates: list[list[str]] = []
    for g in range(replicas):
        if state == "pending" and g == replicas - 1:
            gstates.append(["unschedulable"] * size)
        elif state == "initializing":
            gstates.append(states_for(size, "initializing", c.rng))
        elif state == "degraded" and g == replicas - 1:
            gstates.append(["running"] + ["crashloop"] * (size - 1) if size > 1 else ["crashloop"])
        elif state == "failed":
            gstates.append(["crashloop"] * size)
        else:
            gstates.append(["running"] * size)

    def gkey(g: int) -> str:
        return hash_hex(f"{ns}/{name}-{g}")

    leader_sel = name_l | {"leaderworkerset.sigs.k8s.io/worker-index": "0"}
    leader = sts_tree(
        c,
        name,
        ns,
        t1,
        lws,
        replicas=replicas,
        pod_labels=(leader_labels or {}) | leader_sel,
        containers=leader_ct,
        states=[gs[0] for gs in gstates],
        labels=name_l | {"leaderworkerset.sigs.k8s.io/template-revision-hash": rev},
        annotations={"leaderworkerset.sigs.k8s.io/replicas": str(replicas)},
        selector=leader_sel,
        pod_labels_fn=lambda g: {
            "leaderworkerset.sigs.k8s.io/group-index": str(g),
            "leaderworkerset.sigs.k8s.io/group-key": gkey(g),
            "leaderworkerset.sigs.k8s.io/template-revision-hash": rev,
        },
        pod_annotations_fn=lambda g: {"leaderworkerset.sigs.k8s.io/size": str(size)},
    )
    out.add(leader)
    out.children.append(svc(c, name, ns, t1, lws, selector=name_l, headless=True, labels=name_l))
    for g, lp in enumerate(leader.pods):
        if size == 1:
            continue
        gl = name_l | {
            "leaderworkerset.sigs.k8s.io/group-index": str(g),
            "leaderworkerset.sigs.k8s.io/group-key": gkey(g),
        }
        ws = sts_tree(
            c,
            f"{name}-{g}",
            ns,
            t1 + timedelta(seconds=2),
            lp,
            replicas=size - 1,
            pod_labels=(worker_labels or {}) | gl,
            containers=worker_ct,
            states=gstates[g][1:],
            labels=gl | {"leaderworkerset.sigs.k8s.io/template-revision-hash": rev},
            selector=gl,
            start=1,
            service_name=name,
            subdomain=name,
            pod_labels_fn=lambda w_: {
                "leaderworkerset.sigs.k8s.io/worker-index": str(w_),
                "leaderworkerset.sigs.k8s.io/template-revision-hash": rev,
            },
            pod_annotations_fn=lambda w_, lpn=lp["metadata"]["name"]: {
                "leaderworkerset.sigs.k8s.io/size": str(size),
                "leaderworkerset.sigs.k8s.io/leader-name": lpn,
            },
        )
        out.add(ws)
    ready_groups = sum(all(s == "running" for s in gs) for gs in gstates)
    t_ready = t + timedelta(minutes=c.rng.randint(3, 25))
    available = ready_groups > 0 and state != "initializing"
    conds = [cond("Available", "True", t_ready, "AllGroupsReady", "All replicas are ready")] if available else []
    conds.append(
        cond(
            "Progressing",
            "True" if ready_groups < replicas else "False",
            t if ready_groups < replicas else t_ready,
            "GroupsProgressing",
            "Replicas are progressing",
        )
    )
    lws["status"] = {
        "conditions": conds,
        "replicas": replicas,
        "readyReplicas": ready_groups,
        "updatedReplicas": replicas,
        "hpaPodSelector": f"leaderworkerset.sigs.k8s.io/name={name},leaderworkerset.sigs.k8s.io/worker-index=0",
        "observedGeneration": 1,
    }
    return out


def _sample_lws(rng: random.Random, target: int) -> dict[str, Any]:
    size = rng.choice((2, 2, 4))
    return {"size": size, "replicas": max(1, min(8, target // size)), "gpus": 8}


@framework(
    "leaderworkerset",
    weight=5,
    states={"running": 6, "initializing": 1, "pending": 1, "degraded": 1},
    names=("vllm-llama-405b", "sglang-deepseek-v3", "vllm-qwen-72b", "trtllm-mixtral"),
    sample=_sample_lws,
)
def build_lws(c: Ctx, w: W) -> Built:
    s = w.shape
    img = s.get("image", "vllm/vllm-openai:v0.9.1")
    model = s.get("model", "meta-llama/Llama-3.1-405B-Instruct")
    leader = [
        container(
            "vllm-leader",
            img,
            gpus=s["gpus"],
            cpu="96",
            mem="1024Gi",
            ports=[8080],
            command=[
                "sh",
                "-c",
                "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader "
                "--ray_cluster_size=$(LWS_GROUP_SIZE); python3 -m vllm.entrypoints.openai.api_server --port 8080 "
                f"--model {model} --tensor-parallel-size {s['gpus']} --pipeline_parallel_size {s['size']}",
            ],
        )
    ]
    worker = [
        container(
            "vllm-worker",
            img,
            gpus=s["gpus"],
            cpu="96",
            mem="1024Gi",
            command=[
                "sh",
                "-c",
                "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker "
                "--ray_address=$(LWS_LEADER_ADDRESS)",
            ],
        )
    ]
    return lws_tree(
        c,
        w.name,
        w.namespace,
        w.created,
        None,
        replicas=s["replicas"],
        size=s["size"],
        leader_ct=leader,
        worker_ct=worker,
        state=w.state,
        leader_labels={"app": w.name, "role": "leader"},
        worker_labels={"app": w.name, "role": "worker"},
    )
