"""Knative Service (serving.knative.dev): Configuration, Route, Revision, Deployment; also KServe's
serverless mode.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from ..controllers import deploy_tree
from ..core import Built, Ctx, Obj, W, cond, hash_hex, obj, uid_of
from ..pods import container, count
from ..registry import framework

IMG_QUEUE = (
    "gcr.io/knative-releases/knative.dev/serving/cmd/queue"
    "@sha256:7b1d4a56b63c7ad5bc1a8a5ec6e2e4b1c0cbe2cf1c1e0a0a3d59f8b1f8f0a2c4"
)


def knative_tree(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj | None,
    *,
    replicas: int,
    containers: list[Obj],
    state: str,
    extra_pod_labels: Obj | None = None,
    labels: Obj | None = None,
    min_scale: int = 1,
) -> Built:
    """ksvc → Configuration + Route (same name) → Revision <svc>-00001 → Deployment <rev>-deployment → ReplicaSet
    → Pods. state: running / initializing / failed / idle (scaled to zero)."""
    ks = obj(
        c,
        "serving.knative.dev/v1",
        "Service",
        name,
        ns,
        t=t,
        labels=labels,
        owner=owner,
        annotations={
            "serving.knative.dev/creator": "system:serviceaccount:kserve:kserve-controller-manager"
            if owner
            else "alice@example.com",
            "serving.knative.dev/lastModifier": "alice@example.com",
        },
    )
    tmpl_ann = {
        "autoscaling.knative.dev/min-scale": str(min_scale),
        "autoscaling.knative.dev/max-scale": str(max(replicas, 1) * 2),
    }
    ks["spec"] = {
        "template": {
            "metadata": {"annotations": tmpl_ann} | ({"labels": extra_pod_labels} if extra_pod_labels else {}),
            "spec": {"containerConcurrency": 0, "timeoutSeconds": 300, "containers": containers},
        },
        "traffic": [{"latestRevision": True, "percent": 100}],
    }
    out = Built(ks)
    t1 = t + timedelta(seconds=1)
    kl = {"serving.knative.dev/service": name, "serving.knative.dev/serviceUID": uid_of(ks)}
    cfg = obj(c, "serving.knative.dev/v1", "Configuration", name, ns, t=t1, labels=(labels or {}) | kl, owner=ks)
    route = obj(c, "serving.knative.dev/v1", "Route", name, ns, t=t1, labels=(labels or {}) | kl, owner=ks)
    rev_name = f"{name}-00001"
    cl = kl | {
        "serving.knative.dev/configuration": name,
        "serving.knative.dev/configurationUID": uid_of(cfg),
        "serving.knative.dev/configurationGeneration": "1",
    }
    rev = obj(
        c,
        "serving.knative.dev/v1",
        "Revision",
        rev_name,
        ns,
        t=t1 + timedelta(seconds=1),
        labels=(labels or {}) | cl | {"serving.knative.dev/routingState": "active"},
        owner=cfg,
        annotations=tmpl_ann,
    )
    rev["spec"] = {"containerConcurrency": 0, "timeoutSeconds": 300, "containers": containers}
    pl = (
        (extra_pod_labels or {})
        | cl
        | {"serving.knative.dev/revision": rev_name, "serving.knative.dev/revisionUID": uid_of(rev), "app": rev_name}
    )
    n = 0 if state == "idle" else replicas
    pstates = {"running": ["running"] * n, "idle": [], "initializing": ["starting"] * n, "failed": ["crashloop"] * n}[
        state
    ]
    qp = container(
        "queue-proxy",
        IMG_QUEUE,
        cpu="25m",
        mem="50Mi",
        ports=[8022, 8012, 9090, 9091],
        env={
            "SERVING_NAMESPACE": ns,
            "SERVING_SERVICE": name,
            "SERVING_CONFIGURATION": name,
            "SERVING_REVISION": rev_name,
        },
    )
    dep = deploy_tree(
        c,
        f"{rev_name}-deployment",
        ns,
        t1 + timedelta(seconds=2),
        rev,
        replicas=n,
        pod_labels=pl,
        containers=[*containers, qp],
        states=pstates,
        labels=pl,
        selector={"serving.knative.dev/revisionUID": uid_of(rev)},
        pod_annotations=tmpl_ann
        | {"serving.knative.dev/creator": ks["metadata"]["annotations"]["serving.knative.dev/creator"]},
        progress_deadline=state == "failed",
    )
    out.children += [cfg, route, rev]
    out.add(dep)
    t_ready = t + timedelta(minutes=c.rng.randint(1, 8))
    host = f"{name}.{ns}.example.com"
    ok = state in ("running", "idle")
    waiting = f'Configuration "{name}" is waiting for a Revision to become ready.'
    failed_msg = f'Revision "{rev_name}" failed with message: Container failed with: RuntimeError: CUDA out of memory.'
    if ok:
        kconds = [
            cond("ConfigurationsReady", "True", t_ready),
            cond("Ready", "True", t_ready),
            cond("RoutesReady", "True", t_ready),
        ]
    elif state == "initializing":
        kconds = [
            cond("ConfigurationsReady", "Unknown", t, "RevisionMissing", waiting),
            cond("Ready", "Unknown", t, "RevisionMissing", waiting),
            cond("RoutesReady", "Unknown", t, "RevisionMissing", waiting),
        ]
    else:
        kconds = [
            cond("ConfigurationsReady", "False", t_ready, "RevisionFailed", failed_msg),
            cond("Ready", "False", t_ready, "RevisionFailed", failed_msg),
            cond("RoutesReady", "Unknown", t, "RevisionMissing", waiting),
        ]
    traffic = [{"latestRevision": True, "percent": 100, "revisionName": rev_name}] if ok else []
    ks["status"] = {
        "conditions": kconds,
        "latestCreatedRevisionName": rev_name,
        "observedGeneration": 1,
        "url": f"https://{host}",
        "address": {"url": f"http://{name}.{ns}.svc.cluster.local"},
    }
    if ok:
        ks["status"] |= {"latestReadyRevisionName": rev_name, "traffic": traffic}
    cfg["spec"] = {"template": ks["spec"]["template"]}
    cfg["status"] = {
        "conditions": [cond("Ready", kconds[0]["status"], t_ready, kconds[0].get("reason"), kconds[0].get("message"))],
        "latestCreatedRevisionName": rev_name,
        "observedGeneration": 1,
    } | ({"latestReadyRevisionName": rev_name} if ok else {})
    route["spec"] = {"traffic": [{"configurationName": name, "latestRevision": True, "percent": 100}]}
    route["status"] = {
        "conditions": [
            cond("AllTrafficAssigned", "True" if ok else "Unknown", t_ready),
            cond("CertificateProvisioned", "True", t_ready, "TLSNotEnabled", "autoTLS is not enabled"),
            cond("IngressReady", "True" if ok else "Unknown", t_ready),
            cond("Ready", "True" if ok else "Unknown", t_ready),
        ],
        "observedGeneration": 1,
        "url": f"https://{host}",
        "traffic": traffic,
    }
    ready = count(pstates, "running")
    rconds = [
        cond(
            "Active",
            "True" if ready else "False",
            t_ready,
            None if ready else ("NoTraffic" if state == "idle" else "Deploying"),
            None if ready else ("The target is not receiving traffic." if state == "idle" else None),
        ),
        cond(
            "ContainerHealthy",
            "False" if state == "failed" else "True",
            t_ready,
            "ExitCode1" if state == "failed" else None,
            "Container failed with: RuntimeError: CUDA out of memory." if state == "failed" else None,
        ),
        cond(
            "Ready",
            "True" if ok else ("False" if state == "failed" else "Unknown"),
            t_ready,
            "ExitCode1" if state == "failed" else ("Deploying" if state == "initializing" else None),
        ),
        cond(
            "ResourcesAvailable",
            "True" if state != "initializing" else "Unknown",
            t_ready,
            "Deploying" if state == "initializing" else None,
        ),
    ]
    rev["status"] = {
        "conditions": rconds,
        "actualReplicas": ready,
        "desiredReplicas": n,
        "observedGeneration": 1,
        "containerStatuses": [
            {"name": ct["name"], "imageDigest": f"{ct['image'].split(':')[0]}@sha256:{hash_hex(ct['image'])}"}
            for ct in containers
        ],
    }
    return out


@framework(
    "knative-service",
    weight=3,
    states={"running": 5, "initializing": 1, "failed": 1, "idle": 2},
    names=("embeddings-api", "whisper-transcribe", "rerank-api", "tokenizer-svc"),
    sample=lambda rng, target: {"replicas": max(1, min(10, target // 3)), "gpus": rng.choice((0, 1, 1))},
)
def build_ksvc(c: Ctx, w: W) -> Built:
    s = w.shape
    ct = [
        container(
            "user-container",
            s.get("image", "ghcr.io/acme/embeddings-api:2.3.0"),
            gpus=s["gpus"],
            cpu="4",
            mem="16Gi",
            ports=[8080],
        )
    ]
    return knative_tree(
        c,
        w.name,
        w.namespace,
        w.created,
        None,
        replicas=s["replicas"],
        containers=ct,
        state=w.state,
        min_scale=0 if w.state == "idle" else 1,
    )
