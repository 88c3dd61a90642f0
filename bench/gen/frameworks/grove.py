"""Grove (grove.io): PodCliqueSet, PodCliqueScalingGroups, PodCliques and PodGangs."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from ..core import Built, Ctx, Obj, W, cond, hash_hex, obj
from ..pods import container, count, pod
from ..registry import framework

GROVE_MAX_COMBINED_NAME = 45  # Grove's PodCliqueSet webhook: len(PCS) [+ len(PCSG)] + len(PCLQ) <= 45


def grove_check_names(pcs: str, cliques: list[dict[str, Any]], groups: list[dict[str, Any]]) -> None:
    """Reject what Grove's webhook rejects, so that every generated pod name, hostname and label stays valid."""
    combos = [(pcs, cq["name"]) for cq in cliques] + [
        (pcs, g["name"], cq["name"]) for g in groups for cq in g["cliques"]
    ]
    for parts in combos:
        if sum(map(len, parts)) > GROVE_MAX_COMBINED_NAME:
            raise ValueError(f"Grove would reject {'/'.join(parts)}: combined name length > {GROVE_MAX_COMBINED_NAME}")


def grove_tree(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj | None,
    *,
    replicas: int,
    cliques: list[dict[str, Any]],
    groups: list[dict[str, Any]],
    state: str,
    labels: Obj | None = None,
    pod_labels_fn: Callable[[dict[str, Any]], Obj] | None = None,
) -> Built:
    """PCS → PodClique <pcs>-<r>-<clique> | PCSG <pcs>-<r>-<pcsg> → PodClique <pcs>-<r>-<pcsg>-<j>-<clique>; PodClique →
    Pods <pclq>-<5>; PodGang <pcs>-<r>. cliques: {name, replicas, containers, role, labels?}; groups: {name, replicas,
    cliques: [...]}. state running / initializing (unschedulable) / degraded."""
    grove_check_names(name, cliques, groups)
    all_cliques = cliques + [cq for g in groups for cq in g["cliques"]]
    pcs = obj(c, "grove.io/v1alpha1", "PodCliqueSet", name, ns, t=t, labels=labels, owner=owner)
    pcs["spec"] = {
        "replicas": replicas,
        "template": {
            "cliqueStartupType": "CliqueStartupTypeAnyOrder",
            "terminationDelay": "4h0m0s",
            "cliques": [
                {
                    "name": cq["name"],
                    "labels": cq.get("labels") or {},
                    "spec": {
                        "roleName": cq["role"],
                        "replicas": cq["replicas"],
                        "minAvailable": cq["replicas"],
                        "podSpec": {"containers": cq["containers"], "schedulerName": "kai-scheduler"},
                    },
                }
                for cq in all_cliques
            ],
            "podCliqueScalingGroups": [
                {
                    "name": g["name"],
                    "cliqueNames": [cq["name"] for cq in g["cliques"]],
                    "replicas": g["replicas"],
                    "minAvailable": g["replicas"],
                }
                for g in groups
            ],
        },
    }
    if not groups:
        del pcs["spec"]["template"]["podCliqueScalingGroups"]
    out = Built(pcs)
    t1 = t + timedelta(seconds=1)
    base = {"app.kubernetes.io/managed-by": "grove-operator", "app.kubernetes.io/part-of": name}
    available = 0
    gang_statuses = []
    bad_done = False

    def clique(  # one PodClique with its pods, in replica r (labels rl), recorded in podgroups
        owner_obj: Obj,
        full: str,
        cq: dict[str, Any],
        extra: Obj,
        component: str,
        *,
        r: int,
        rl: Obj,
        podgroups: list[Obj],
    ) -> None:
        nonlocal replica_ok, bad_done
        cl = rl | extra | {"app.kubernetes.io/component": component}
        pclq = obj(c, "grove.io/v1alpha1", "PodClique", full, ns, t=t1, labels=cl, owner=owner_obj)
        pclq["spec"] = {
            "roleName": cq["role"],
            "replicas": cq["replicas"],
            "minAvailable": cq["replicas"],
            "podSpec": {"containers": cq["containers"], "schedulerName": "kai-scheduler"},
        }
        n = cq["replicas"]
        if state == "initializing" and r == replicas - 1:
            pstates = ["unschedulable"] * n
        elif state == "degraded" and not bad_done and cq["replicas"] > 0 and cq is all_cliques[-1]:
            pstates = ["crashloop"] + ["running"] * (n - 1)
            bad_done = True
        else:
            pstates = ["running"] * n
        pth = hash_hex(f"{name}/{cq['name']}")[:10]
        out.children.append(pclq)
        refs = []
        for i, st in enumerate(pstates):
            pname = f"{full}-{c.rand()}"
            pl = (
                cl
                | (cq.get("labels") or {})
                | {
                    "grove.io/podclique": full,
                    "grove.io/podclique-pod-index": str(i),
                    "grove.io/pod-template-hash": pth,
                }
            )
            if pod_labels_fn:
                pl |= pod_labels_fn(cq)
            out.pods.append(
                pod(
                    c,
                    pname,
                    ns,
                    t1 + timedelta(seconds=2),
                    pclq,
                    state=st,
                    containers=cq["containers"],
                    labels=pl,
                    restart="Always",
                    scheduler="kai-scheduler",
                    hostname=f"{full}-{i}",  # Grove: <podclique>-<pod index>, in the headless service <pcs>-<r>
                    subdomain=f"{name}-{r}",
                    generate_name=f"{full}-",
                )
            )
            refs.append({"namespace": ns, "name": pname})
        ready, scheduled = count(pstates, "running"), n - count(pstates, "unschedulable")
        breached = ready < n
        pclq["status"] = {
            "replicas": n,
            "readyReplicas": ready,
            "updatedReplicas": n,
            "scheduleGatedReplicas": 0,
            "scheduledReplicas": scheduled,
            "observedGeneration": 1,
            "hpaPodSelector": f"grove.io/podclique={full}",
            "conditions": [
                cond(
                    "MinAvailableBreached",
                    "Unknown" if scheduled < n else ("True" if breached else "False"),
                    t1,
                    "InsufficientScheduledPods"
                    if scheduled < n
                    else ("InsufficientReadyPods" if breached else "SufficientReadyPods"),
                    f"Insufficient ready pods. expected at least: {n}, found: {ready}"
                    if breached
                    else f"Sufficient ready pods found. expected at least: {n}, found: {ready}",
                ),
                cond(
                    "PodCliqueScheduled",
                    "True" if scheduled == n else "False",
                    t1,
                    "SufficientScheduledPods" if scheduled == n else "InsufficientScheduledPods",
                    f"Sufficient scheduled pods found. expected at least: {n}, found: {scheduled}"
                    if scheduled == n
                    else f"Insufficient scheduled pods. expected at least: {n}, found: {scheduled}",
                ),
            ],
        }
        if breached:
            replica_ok = False
        podgroups.append({"name": full, "podReferences": refs, "minReplicas": n})

    for r in range(replicas):
        gang = f"{name}-{r}"
        rl = base | {"grove.io/podcliqueset-replica-index": str(r), "grove.io/podgang": gang}
        pg = obj(c, "scheduler.grove.io/v1alpha1", "PodGang", gang, ns, t=t1, labels=base, owner=pcs)
        podgroups = []
        replica_ok = True

        for cq in cliques:
            clique(pcs, f"{name}-{r}-{cq['name']}", cq, {}, "pcs-podclique", r=r, rl=rl, podgroups=podgroups)
        for g in groups:
            gname = f"{name}-{r}-{g['name']}"
            pcsg = obj(
                c,
                "grove.io/v1alpha1",
                "PodCliqueScalingGroup",
                gname,
                ns,
                t=t1,
                labels=rl | {"app.kubernetes.io/component": "pcs-podcliquescalinggroup"},
                owner=pcs,
            )
            pcsg["spec"] = {
                "replicas": g["replicas"],
                "minAvailable": g["replicas"],
                "cliqueNames": [cq["name"] for cq in g["cliques"]],
            }
            out.children.append(pcsg)
            before = replica_ok
            replica_ok = True
            for j in range(g["replicas"]):
                for cq in g["cliques"]:
                    clique(
                        pcsg,
                        f"{gname}-{j}-{cq['name']}",
                        cq,
                        {
                            "grove.io/podcliquescalinggroup": gname,
                            "grove.io/podcliquescalinggroup-replica-index": str(j),
                        },
                        "pcsg-podclique",
                        r=r,
                        rl=rl,
                        podgroups=podgroups,
                    )
            pcsg["status"] = {
                "replicas": g["replicas"],
                "availableReplicas": g["replicas"] if replica_ok else g["replicas"] - 1,
                "updatedReplicas": g["replicas"],
                "observedGeneration": 1,
                "conditions": [
                    cond(
                        "MinAvailableBreached",
                        "False" if replica_ok else "True",
                        t1,
                        "SufficientAvailablePodCliqueScalingGroupReplicas"
                        if replica_ok
                        else "InsufficientAvailablePodCliqueScalingGroupReplicas",
                        f"Sufficient PodCliqueScalingGroup replicas, expected at least: {g['replicas']}"
                        if replica_ok
                        else "Insufficient PodCliqueScalingGroup replicas, "
                        f"expected at least: {g['replicas']}, found: {g['replicas'] - 1}",
                    )
                ],
            }
            replica_ok = replica_ok and before
        pg["spec"] = {"podgroups": podgroups, "priorityClassName": ""}
        phase = "Pending" if state == "initializing" and r == replicas - 1 else "Running"
        pg["status"] = {
            "phase": phase,
            "conditions": [
                cond(
                    "Scheduled",
                    "True" if phase == "Running" else "False",
                    t1,
                    "AllPodsScheduled" if phase == "Running" else "InsufficientResources",
                )
            ],
        }
        out.children.append(pg)
        gang_statuses.append({"name": gang, "phase": phase})
        available += replica_ok
    pcs["status"] = {
        "replicas": replicas,
        "updatedReplicas": replicas,
        "availableReplicas": available,
        "observedGeneration": 1,
        "hpaPodSelector": f"app.kubernetes.io/part-of={name}",
        "podGangStatuses": gang_statuses,
        "currentGenerationHash": hash_hex(name)[:16],
    }
    return out


def _sample_grove(rng: random.Random, target: int) -> dict[str, Any]:
    g = rng.choice((1, 2, 4))
    return {
        "replicas": rng.choice((1, 1, 2)),
        "frontend": rng.choice((1, 2)),
        "groups": [
            {
                "name": "prefill",
                "replicas": max(1, min(4, target // 8)),
                "leader": 1,
                "workers": rng.choice((1, 3)),
                "gpus": g,
            },
            {
                "name": "decode",
                "replicas": max(1, min(6, target // 6)),
                "leader": 1,
                "workers": rng.choice((1, 3)),
                "gpus": g,
            },
        ],
    }


@framework(
    "grove-podcliqueset",
    weight=2,
    states={"running": 4, "initializing": 1, "degraded": 1},
    names=("disagg-inference", "llm-pipeline", "agentic-serving"),
    sample=_sample_grove,
)
def build_grove(c: Ctx, w: W) -> Built:
    s = w.shape
    img = "vllm/vllm-openai:v0.9.1"
    cliques = [
        {
            "name": "frontend",
            "role": "frontend",
            "replicas": s["frontend"],
            "containers": [container("frontend", "ghcr.io/acme/llm-router:0.6.0", cpu="2", mem="4Gi", ports=[8000])],
        }
    ]
    groups = []
    for g in s["groups"]:
        p = g["name"][0]
        groups.append(
            {
                "name": g["name"],
                "replicas": g["replicas"],
                "cliques": [
                    {
                        "name": f"{p}leader",
                        "role": f"{g['name']}-leader",
                        "replicas": g["leader"],
                        "containers": [container("leader", img, gpus=g["gpus"], cpu="32", mem="256Gi")],
                    },
                    {
                        "name": f"{p}worker",
                        "role": f"{g['name']}-worker",
                        "replicas": g["workers"],
                        "containers": [container("worker", img, gpus=g["gpus"], cpu="32", mem="256Gi")],
                    },
                ],
            }
        )
    return grove_tree(
        c,
        w.name,
        w.namespace,
        w.created,
        None,
        replicas=s["replicas"],
        cliques=cliques,
        groups=groups,
        state=w.state,
        labels={"app": w.name},
    )
