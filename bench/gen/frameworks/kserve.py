"""KServe (serving.kserve.io): InferenceService (Standard and Knative modes) and LLMInferenceService."""

from __future__ import annotations

from datetime import datetime, timedelta

from ..controllers import deploy_tree
from ..core import GPU, Built, Ctx, Obj, W, cond, obj, ts
from ..pods import container, qos_class, svc
from ..registry import framework
from .knative import knative_tree
from .lws import lws_tree


def _isvc_conditions(t: datetime, state: str, mode: str, rev: str) -> list[Obj]:
    if state == "suspended":
        return [
            cond("PredictorReady", "False", t, "Stopped"),
            cond("Ready", "False", t, "Stopped"),
            cond("Stopped", "True", t, severity="Info"),
        ]
    stopped = cond("Stopped", "False", t, severity="Info")
    if state == "running":
        base = [cond("IngressReady", "True", t)]
        if mode == "Knative":
            base += [
                cond("LatestDeploymentReady", "True", t, severity="Info"),
                cond("PredictorConfigurationReady", "True", t, severity="Info"),
            ]
        base.append(cond("PredictorReady", "True", t))
        if mode == "Knative":
            base += [cond("PredictorRouteReady", "True", t, severity="Info")]
        return [*base, cond("Ready", "True", t), stopped]
    if state == "failed":
        msg = (
            f'Revision "{rev}" failed with message: Container failed with: ValueError: '
            "No supported config format found in /mnt/models."
        )
        if mode == "Knative":
            return [
                cond("IngressReady", "False", t, "Predictor ingress not created"),
                cond("PredictorConfigurationReady", "False", t, "RevisionFailed", msg),
                cond("PredictorReady", "False", t, "RevisionFailed", msg),
                cond("PredictorRouteReady", "True", t, severity="Info"),
                cond("Ready", "False", t, "Predictor ingress not created"),
                stopped,
            ]
        return [
            cond("IngressReady", "True", t),
            cond(
                "PredictorReady",
                "False",
                t,
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.",
            ),
            cond("Ready", "False", t, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."),
            stopped,
        ]
    # initializing / pending
    if mode == "Knative":
        waiting = f'Configuration "{rev.rsplit("-", 1)[0]}" is waiting for a Revision to become ready.'
        return [
            cond("PredictorConfigurationReady", "Unknown", t, severity="Info"),
            cond("PredictorReady", "Unknown", t, "RevisionMissing", waiting),
            cond("PredictorRouteReady", "Unknown", t, "RevisionMissing", waiting, severity="Info"),
            cond("Ready", "Unknown", t, "RevisionMissing", waiting),
            stopped,
        ]
    return [
        cond("IngressReady", "True", t),
        cond(
            "PredictorReady", "False", t, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."
        ),
        cond("Ready", "False", t, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."),
        stopped,
    ]


@framework(
    "kserve-inferenceservice",
    weight=7,
    states={"running": 6, "initializing": 1, "pending": 1, "failed": 1, "suspended": 1},
    names=("llama3-8b-chat", "sklearn-iris", "bge-embed", "mistral-7b-instruct", "torchserve-mnist", "xgb-fraud"),
    sample=lambda rng, target: {
        "mode": rng.choice(("Standard", "Standard", "Knative")),
        "replicas": max(1, min(12, target // 2)),
        "gpus": rng.choice((0, 1, 1, 2, 4)),
        "transformer": rng.random() < 0.15,
    },
)
def build_isvc(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    mode = s["mode"]
    ann = {"serving.kserve.io/deploymentMode": mode}
    if state == "suspended":
        ann["serving.kserve.io/stop"] = "true"
    isvc = obj(c, "serving.kserve.io/v1beta1", "InferenceService", name, ns, t=t, annotations=ann)
    g = s["gpus"]
    model = s.get("model", "hf://meta-llama/Llama-3.1-8B-Instruct")
    res = {
        "limits": {"cpu": "8", "memory": "32Gi"} | ({GPU: str(g)} if g else {}),
        "requests": {"cpu": "4", "memory": "16Gi"} | ({GPU: str(g)} if g else {}),
    }
    isvc["spec"] = {
        "predictor": {
            "minReplicas": s["replicas"],
            "maxReplicas": s["replicas"] * 2,
            "model": {
                "modelFormat": {"name": "huggingface"},
                "storageUri": model,
                "args": ["--model_name", name],
                "resources": res,
            },
        }
    }
    if s.get("transformer"):
        isvc["spec"]["transformer"] = {
            "minReplicas": 1,
            "containers": [
                container("kserve-container", "ghcr.io/acme/tokenizer-transformer:0.4.1", cpu="2", mem="4Gi")
            ],
        }
    out = Built(isvc)
    img = "kserve/huggingfaceserver:v0.15.2-gpu" if g else "kserve/huggingfaceserver:v0.15.2"
    comps = [
        (
            "predictor",
            s["replicas"],
            [
                container(
                    "kserve-container",
                    img,
                    gpus=g,
                    cpu="8",
                    mem="32Gi",
                    ports=[8080],
                    args=["--model_name", name, "--model_dir", "/mnt/models", "--http_port", "8080"],
                )
            ],
        )
    ]
    if s.get("transformer"):
        comps.append(("transformer", 1, isvc["spec"]["transformer"]["containers"]))
    t1 = t + timedelta(seconds=1)
    rev = f"{name}-predictor-00001"
    comp_status: Obj = {}
    for comp, reps, cts in comps if state != "suspended" else []:
        cname = f"{name}-{comp}"
        kl = {"serving.kserve.io/inferenceservice": name, "component": comp}
        pstates = {
            "running": ["running"] * reps,
            "initializing": ["starting"] * reps,
            "failed": ["crashloop"] * reps,
            "pending": ["unschedulable"] * reps,
        }[state if comp == "predictor" else "running"]
        if mode == "Knative":
            sub = knative_tree(
                c,
                cname,
                ns,
                t1,
                isvc,
                replicas=reps,
                containers=cts,
                state={"pending": "initializing"}.get(state, state) if comp == "predictor" else "running",
                extra_pod_labels=kl,
                labels=kl,
                min_scale=reps,
            )
            if state == "pending" and comp == "predictor":
                for p in sub.pods:  # the revision's pods could not be placed
                    p["spec"].pop("nodeName", None)
                    cd = cond("PodScheduled", "False", t1, "Unschedulable", "")
                    cd["lastProbeTime"] = None
                    cd["sample_gpus"] = g
                    c.unschedulable.append(cd)
                    p["status"] = {"phase": "Pending", "conditions": [cd], "qosClass": qos_class(p["spec"])}
            out.add(sub)
            comp_status[comp] = {"latestCreatedRevision": f"{cname}-00001", "url": f"https://{cname}.{ns}.example.com"}
            if state == "running" or comp != "predictor":
                comp_status[comp] |= {
                    "latestReadyRevision": f"{cname}-00001",
                    "latestRolledoutRevision": f"{cname}-00001",
                    "traffic": [{"latestRevision": True, "percent": 100, "revisionName": f"{cname}-00001"}],
                }
        else:
            pl = kl | {"app": f"isvc.{cname}"}
            sub = deploy_tree(
                c,
                cname,
                ns,
                t1,
                isvc,
                replicas=reps,
                pod_labels=pl,
                containers=cts,
                states=pstates,
                labels=pl,
                selector={"app": f"isvc.{cname}"},
                pod_annotations={"serving.kserve.io/deploymentMode": mode},
            )
            out.add(sub)
            out.children.append(svc(c, cname, ns, t1, isvc, selector={"app": f"isvc.{cname}"}, port=80, labels=pl))
            hpa = obj(
                c, "autoscaling/v2", "HorizontalPodAutoscaler", cname, ns, t=t1, labels=pl, owner=isvc, generation=None
            )
            hpa["spec"] = {
                "minReplicas": reps,
                "maxReplicas": reps * 2,
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": cname},
                "metrics": [
                    {
                        "type": "Resource",
                        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
                    }
                ],
            }
            hpa["status"] = {"currentReplicas": reps, "desiredReplicas": reps}
            out.children.append(hpa)
            comp_status[comp] = {"url": f"http://{cname}-{ns}.example.com"}
    t_ready = t + timedelta(minutes=c.rng.randint(2, 15))
    status: Obj = {
        "conditions": _isvc_conditions(t_ready, state, mode, rev),
        "observedGeneration": 1,
        "deploymentMode": mode,
    }
    if state != "suspended":
        status["url"] = f"http://{name}-{ns}.example.com" if mode == "Standard" else f"https://{name}.{ns}.example.com"
        status["address"] = {"url": f"http://{name}-predictor.{ns}.svc.cluster.local"}
        status["components"] = comp_status
    ms = {
        "running": ("UpToDate", "Loaded", "Loaded"),
        "failed": ("BlockedByFailedLoad", "", "FailedToLoad"),
        "initializing": ("InProgress", "", "Loading"),
        "pending": ("InProgress", "", "Pending"),
        "suspended": ("UpToDate", "", ""),
    }[state]
    status["modelStatus"] = {
        "transitionStatus": ms[0],
        "states": {"activeModelState": ms[1], "targetModelState": ms[2]},
        "copies": {
            "failedCopies": s["replicas"] if state == "failed" else 0,
            "totalCopies": s["replicas"] if state == "running" else 0,
        },
    }
    if state == "failed":
        status["modelStatus"]["lastFailureInfo"] = {
            "reason": "ModelLoadFailed",
            "message": "No supported config format found in /mnt/models",
            "time": ts(t_ready),
        }
    isvc["status"] = status
    return out


@framework(
    "kserve-llminferenceservice",
    weight=3,
    states={"running": 5, "initializing": 1, "pending": 1},
    names=("qwen3-8b", "llama-70b-pd", "deepseek-r1-dp"),
    sample=lambda rng, target: {
        "replicas": max(1, min(8, target // 3)),
        "prefill": rng.choice((0, 0, 1, 2)),
        "size": rng.choice((1, 1, 1, 2)),
        "gpus": rng.choice((1, 2, 8)),
    },
)
def build_llmisvc(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    llm = obj(c, "serving.kserve.io/v1alpha2", "LLMInferenceService", name, ns, t=t)
    model = s.get("model", "hf://Qwen/Qwen3-8B")
    g = s["gpus"]
    main_ct = [
        container(
            "main",
            "ghcr.io/llm-d/llm-d:v0.2.0",
            gpus=g,
            cpu="16",
            mem="128Gi",
            ports=[8000],
            args=["--served-model-name", model.split("/")[-1], "--tensor-parallel-size", str(g)],
        )
    ]
    spec: Obj = {
        "model": {"uri": model, "name": model.split("/", 3)[-1]},
        "replicas": s["replicas"],
        "template": {"containers": [{"name": "main", "resources": main_ct[0]["resources"]}]},
        "router": {"route": {}, "gateway": {}, "scheduler": {}},
    }
    multi = s["size"] > 1
    if multi:
        spec["parallelism"] = {"tensor": g, "data": s["size"] * g, "dataLocal": g}
        spec["worker"] = {"containers": [{"name": "main", "resources": main_ct[0]["resources"]}]}
    if s["prefill"]:
        spec["prefill"] = {
            "replicas": s["prefill"],
            "template": {"containers": [{"name": "main", "resources": main_ct[0]["resources"]}]},
        }
    llm["spec"] = spec
    out = Built(llm)
    t1 = t + timedelta(seconds=1)
    base = {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "llminferenceservice"}
    primary = None
    for role, reps, suffix in [
        ("decode" if s["prefill"] else "both", s["replicas"], ""),
        ("prefill", s["prefill"], "-prefill"),
    ]:
        if not reps:
            continue
        st = state if role != "prefill" else "running"
        if multi:
            sub = lws_tree(
                c,
                f"{name}-kserve-mn{suffix}",
                ns,
                t1,
                llm,
                replicas=reps,
                size=s["size"],
                leader_ct=main_ct,
                worker_ct=main_ct,
                state={"pending": "pending", "initializing": "initializing"}.get(st, "running"),
                labels=base,
                leader_labels=base
                | {
                    "app.kubernetes.io/component": f"llminferenceservice-workload-leader{suffix}",
                    "kserve.io/component": "workload",
                    "llm-d.ai/role": role,
                },
                worker_labels=base
                | {
                    "app.kubernetes.io/component": f"llminferenceservice-workload-worker{suffix}",
                    "kserve.io/component": "workload",
                    "llm-d.ai/role": role,
                },
            )
        else:
            pl = base | {
                "app.kubernetes.io/component": f"llminferenceservice-workload{suffix}",
                "kserve.io/component": "workload",
                "llm-d.ai/role": role,
            }
            pstates = {
                "running": ["running"] * reps,
                "initializing": ["starting"] * reps,
                "pending": ["running"] * (reps - 1) + ["unschedulable"],
            }[st]
            sub = deploy_tree(
                c,
                f"{name}-kserve{suffix}",
                ns,
                t1,
                llm,
                replicas=reps,
                pod_labels=pl,
                containers=main_ct,
                states=pstates,
                labels=base,
                service_account=f"{name}-kserve",
            )
        primary = primary or sub
        out.add(sub)
    sched_l = base | {"app.kubernetes.io/component": "llminferenceservice-router-scheduler"}
    out.add(
        deploy_tree(
            c,
            f"{name}-kserve-router-scheduler",
            ns,
            t1,
            llm,
            replicas=1,
            pod_labels=sched_l,
            containers=[
                container(
                    "main",
                    "ghcr.io/llm-d/llm-d-inference-scheduler:v0.2.1",
                    cpu="2",
                    mem="4Gi",
                    ports=[9002, 9003, 9090],
                )
            ],
            states=["running"],
            labels=base,
            service_account=f"{name}-epp-sa",
        )
    )
    out.children.append(
        svc(
            c,
            f"{name}-kserve-workload-svc",
            ns,
            t1,
            llm,
            selector=base | {"kserve.io/component": "workload"},
            port=8000,
            labels=base,
        )
    )
    t_ready = t + timedelta(minutes=c.rng.randint(5, 30))
    ok = state == "running"
    not_ready = ("MinimumReplicasUnavailable", "Deployment does not have minimum availability.")
    conds = [
        cond("HTTPRoutesReady", "True", t_ready),
        cond("InferencePoolReady", "True", t_ready),
        cond("MainWorkloadReady", "True", t_ready) if ok else cond("MainWorkloadReady", "False", t_ready, *not_ready),
    ]
    if s["prefill"]:
        conds.append(cond("PrefillWorkloadReady", "True", t_ready))
    conds += [
        cond("PresetsCombined", "True", t),
        cond("Ready", "True" if ok else "False", t_ready, *(() if ok else not_ready)),
        cond("RouterReady", "True", t_ready),
        cond("SchedulerWorkloadReady", "True", t_ready),
        cond("WorkloadsReady", "True" if ok else "False", t_ready, *(() if ok else not_ready)),
    ]
    for cd in conds:
        cd.setdefault("severity", None)
        if cd["severity"] is None:
            del cd["severity"]
    llm["status"] = {
        "conditions": conds,
        "observedGeneration": 1,
        "url": f"http://{name}.{ns}.example.com",
        "address": {"url": f"http://{name}-kserve-workload-svc.{ns}.svc.cluster.local:8000"},
    }
    return out
