"""Milvus (milvus.io, milvus-operator): the cluster's component Deployments."""

from __future__ import annotations

from datetime import timedelta

from ..controllers import deploy_tree
from ..core import Built, Ctx, Obj, W, obj, ts
from ..pods import container, count, svc
from ..registry import framework


@framework(
    "milvus",
    weight=2,
    states={"running": 4, "degraded": 1, "initializing": 1},
    names=("vector-db", "rag-milvus", "search-milvus"),
    sample=lambda rng, target: {
        "mode": rng.choice(("cluster", "cluster", "standalone")),
        "proxy": rng.choice((1, 2)),
        "querynode": max(1, min(12, target // 3)),
        "datanode": rng.choice((1, 2)),
        "indexnode": rng.choice((1, 2)),
    },
)
def build_milvus(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    img = "milvusdb/milvus:v2.5.10"
    mv = obj(
        c,
        "milvus.io/v1beta1",
        "Milvus",
        name,
        ns,
        t=t,
        labels={"app": "milvus"},
        annotations={"milvus.io/dependency-values-merged": "true", "milvus.io/pod-service-label-added": "true"},
    )
    if s["mode"] == "standalone":
        comps = [("standalone", "standalone", 1)]
    else:
        comps = [
            ("mixCoord", "mixcoord", 1),
            ("proxy", "proxy", s["proxy"]),
            ("dataNode", "datanode", s["datanode"]),
            ("queryNode", "querynode", s["querynode"]),
            ("indexNode", "indexnode", s["indexnode"]),
        ]
    mv["spec"] = {
        "mode": s["mode"],
        "dependencies": {
            "etcd": {"external": True, "endpoints": ["etcd-0.etcd.infra.svc:2379"]},
            "storage": {
                "external": True,
                "type": "S3",
                "endpoint": "s3.us-east-1.amazonaws.com:443",
                "secretRef": "milvus-s3-secret",
            },
            **(
                {
                    "msgStreamType": "pulsar",
                    "pulsar": {"external": True, "endpoint": "pulsar://pulsar-proxy.infra:6650"},
                }
                if s["mode"] == "cluster"
                else {"msgStreamType": "rocksmq"}
            ),
        },
        "components": {
            "image": img,
            **{k: {"replicas": r} for k, _, r in comps if k != "standalone"},
            **({"standalone": {"replicas": 1}} if s["mode"] == "standalone" else {}),
        },
        "config": {},
    }
    out = Built(mv)
    t1 = t + timedelta(seconds=1)
    bad = c.rng.randrange(len(comps)) if state == "degraded" else -1
    deploy_status: Obj = {}
    not_ready = []
    for i, (_key, comp, reps) in enumerate(comps):
        pl = {
            "app.kubernetes.io/component": comp,
            "app.kubernetes.io/instance": name,
            "app.kubernetes.io/managed-by": "milvus-operator",
            "app.kubernetes.io/name": "milvus",
        }
        if comp in ("proxy", "standalone"):
            pl["milvus.io/service"] = "true"
        pstates = (
            ["crashloop"] + ["running"] * (reps - 1)
            if i == bad
            else ["starting"] * reps
            if state == "initializing"
            else ["running"] * reps
        )
        if "running" not in pstates or count(pstates, "running") < reps:
            not_ready.append(comp)
        ct = [
            container(
                comp,
                img,
                gpus=1 if comp == "querynode" and s.get("gpu") else 0,
                cpu="4",
                mem="16Gi",
                command=["/milvus/tools/run.sh", "milvus", "run", comp],
                ports=[19530, 9091] if comp in ("proxy", "standalone") else [9091],
            )
        ]
        sub = deploy_tree(
            c,
            f"{name}-milvus-{comp}",
            ns,
            t1,
            mv,
            replicas=reps,
            pod_labels=pl,
            containers=ct,
            states=pstates,
            labels=pl,
            selector={k: v for k, v in pl.items() if k != "milvus.io/service"},
            pod_annotations={"milvus.io/dependency-values-merged": "true", "milvus.io/using-configmap": name},
        )
        out.add(sub)
        deploy_status[comp] = {"generation": 1, "image": img, "status": sub.workload["status"]}
    cm = obj(c, "v1", "ConfigMap", name, ns, t=t1, owner=mv, generation=None)
    cm["data"] = {"milvus.yaml": "etcd:\n  endpoints:\n  - etcd-0.etcd.infra.svc:2379\n"}
    out.children.append(cm)
    out.children.append(
        svc(
            c,
            f"{name}-milvus",
            ns,
            t1,
            mv,
            selector={
                "app.kubernetes.io/instance": name,
                "app.kubernetes.io/name": "milvus",
                "milvus.io/service": "true",
            },
            port=19530,
        )
    )
    t_ready = t + timedelta(minutes=c.rng.randint(2, 10))
    healthy = not not_ready
    conds = [
        {
            "type": "EtcdReady",
            "status": "True",
            "reason": "EtcdReady",
            "message": "All etcd endpoints are healthy",
            "lastTransitionTime": ts(t1),
        },
        {
            "type": "StorageReady",
            "status": "True",
            "reason": "S3StorageAssumeReady",
            "message": "Storage is ready",
            "lastTransitionTime": ts(t1),
        },
        {
            "type": "MsgStreamReady",
            "status": "True",
            "reason": "MsgStreamReady",
            "message": "MsgStream is ready",
            "lastTransitionTime": ts(t1),
        },
        {
            "type": "MilvusReady",
            "status": "True" if healthy else "False",
            "reason": "ReasonMilvusHealthy" if healthy else "MilvusComponentNotHealthy",
            "message": "All Milvus components are healthy"
            if healthy
            else f"[{' '.join(not_ready)}] not ready, detail: container {not_ready[0]} is not ready",
            "lastTransitionTime": ts(t_ready),
        },
        {
            "type": "MilvusUpdated",
            "status": "True",
            "reason": "MilvusComponentsUpdated",
            "message": "Milvus components are all updated",
            "lastTransitionTime": ts(t_ready),
        },
    ]
    mv["status"] = {
        "status": "Healthy" if healthy else ("Pending" if state == "initializing" else "Unhealthy"),
        "conditions": conds,
        "endpoint": f"{name}-milvus.{ns}:19530",
        "componentsDeployStatus": deploy_status,
        "observedGeneration": 1,
        "currentImage": img,
        "currentVersion": "2.5.10",
        "rollingModeVersion": 2,
    }
    return out
