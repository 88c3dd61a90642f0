from __future__ import annotations

import workload_map.resolve.pods as pods_module
from corpus import corpus_objects
from helpers import JOBSET_DEFINITION, LWS_DEFINITION, loaded, pod
from workload_map.base.snapshot import Snapshot
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.tree.build import tree_of

LWS_LABELS = "leaderworkerset.sigs.k8s.io"


def lws_cluster(replicas: int = 2, size: int = 2) -> list[dict]:
    """An LWS with its pods and child objects exactly as the LWS controller creates them (FACTS.md)."""
    lws = corpus_objects("leaderworkerset/examples/vllm-gpu-lws.yaml")[0].obj
    lws = {**lws, "metadata": {**lws["metadata"], "namespace": "default", "uid": "lws-uid"}}
    name = lws["metadata"]["name"]
    objects: list[dict] = [lws]
    leader_sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": "sts-leader",
            "ownerReferences": [
                {
                    "apiVersion": "leaderworkerset.x-k8s.io/v1",
                    "kind": "LeaderWorkerSet",
                    "name": name,
                    "uid": "lws-uid",
                    "controller": True,
                }
            ],
        },
    }
    objects.append(leader_sts)
    for group in range(replicas):
        leader_name = f"{name}-{group}"
        labels = {f"{LWS_LABELS}/name": name, f"{LWS_LABELS}/group-index": str(group)}
        objects.append(
            pod(
                leader_name,
                labels={**labels, f"{LWS_LABELS}/worker-index": "0"},
                owner=("apps/v1", "StatefulSet", name),
                owner_uid="sts-leader",
                uid=f"leader-{group}",
                gpus=8,
            )
        )
        worker_sts = {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {
                "name": leader_name,
                "namespace": "default",
                "uid": f"sts-{group}",
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "name": leader_name,
                        "uid": f"leader-{group}",
                        "controller": True,
                    }
                ],
            },
        }
        objects.append(worker_sts)
        for worker in range(1, size):
            objects.append(
                pod(
                    f"{leader_name}-{worker}",
                    labels={**labels, f"{LWS_LABELS}/worker-index": str(worker)},
                    annotations={f"{LWS_LABELS}/leader-name": leader_name},
                    owner=("apps/v1", "StatefulSet", leader_name),
                    owner_uid=f"sts-{group}",
                    gpus=8,
                )
            )
    return objects


def test_lws_pods_reach_the_workload_through_leader_owned_statefulsets() -> None:
    view = WorkloadIndex(Snapshot(lws_cluster()), [loaded(LWS_DEFINITION)])
    [workload] = view.workloads()
    tree = tree_of(view, workload)
    assert tree.unattributed == []
    by_component = {c.name: c for c in tree.components}
    leader = by_component["leader"].instances[0]
    worker = by_component["worker"].instances[0]
    assert sorted(p.name for p in leader.pods) == ["vllm-0", "vllm-1"]
    assert sorted(p.name for p in worker.pods) == ["vllm-0-1", "vllm-1-1"]
    assert {p.replica for p in worker.pods} == {"0", "1"}
    assert tree.counts.desired == 4 and tree.counts.ready == 4
    assert tree.gpus == 32
    assert view.warnings == []


def test_pods_no_selector_claims_stay_visible_as_unattributed() -> None:
    objects = lws_cluster(replicas=1)
    stray = pod("vllm-debug", owner=("apps/v1", "StatefulSet", "vllm"), owner_uid="sts-leader")
    objects.append(stray)
    view = WorkloadIndex(Snapshot(objects), [loaded(LWS_DEFINITION)])
    tree = tree_of(view, view.workloads()[0])
    assert [p.name for p in tree.unattributed] == ["vllm-debug"]
    assert tree.unattributed[0].unattributed_reason == "no component's podSelector matches this pod"
    assert tree.counts.current == 3


def test_missing_links_and_cycles_are_warnings() -> None:
    jobset = corpus_objects("jobset/examples/paralleljobs.yaml")[0].obj
    labels = {"jobset.sigs.k8s.io/replicatedjob-name": "workers"}
    orphan = pod("orphan", labels=labels, owner=("batch/v1", "Job", "gone"))
    loop_a = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "a",
            "namespace": "default",
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "b"}],
        },
    }
    loop_b = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "b",
            "namespace": "default",
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "a"}],
        },
    }
    looped = pod("looped", labels=labels, owner=("batch/v1", "Job", "a"))
    view = WorkloadIndex(Snapshot([jobset, orphan, loop_a, loop_b, looped]), [loaded(JOBSET_DEFINITION)])
    tree = tree_of(view, view.workloads()[0])
    assert tree.pods == []  # neither pod reaches the JobSet
    assert any("owner Job/gone" in w and "not in the input" in w for w in view.warnings)
    assert any("ownership cycle" in w for w in view.warnings)


def test_jobset_pods_by_replicated_job_label_and_pending_reasons() -> None:
    jobset = corpus_objects("jobset/examples/paralleljobs.yaml")[0].obj
    name = jobset["metadata"]["name"]
    objects = [jobset]
    for rjob, count in (("workers", 4), ("driver", 1)):
        job_name = f"{name}-{rjob}-0"
        objects.append(
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {
                    "name": job_name,
                    "namespace": "default",
                    "ownerReferences": [
                        {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": name, "controller": True}
                    ],
                },
            }
        )
        for index in range(count):
            pending = rjob == "workers" and index == 3
            objects.append(
                pod(
                    f"{job_name}-{index}",
                    labels={"jobset.sigs.k8s.io/replicatedjob-name": rjob},
                    owner=("batch/v1", "Job", job_name),
                    phase="Pending" if pending else "Running",
                    ready=not pending,
                    pending_reason="Unschedulable" if pending else None,
                )
            )
    view = WorkloadIndex(Snapshot(objects), [loaded(JOBSET_DEFINITION)])
    assert [w["kind"] for w in view.workloads()] == ["JobSet"]
    tree = tree_of(view, view.workloads()[0])
    [component] = [c for c in tree.components if c.name == "replicatedjob"]
    workers = component.instances[0].to_json()
    assert workers["pods"]["desired"] == 4 and workers["pods"]["ready"] == 3 and workers["pods"]["pending"] == 1
    assert workers["pendingReasons"] == {"Unschedulable": 1}
    assert tree.to_json()["totals"]["pods"]["current"] == 5


def test_ten_thousand_pods_resolve() -> None:
    objects = lws_cluster(replicas=5000, size=2)
    view = WorkloadIndex(Snapshot(objects), [loaded(LWS_DEFINITION)])
    tree = tree_of(view, view.workloads()[0])
    assert tree.counts.current == 10_000
    assert tree.unattributed == []


WIDGET_DEFINITION = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: test-widget}
spec:
  structureDefinition:
    rootComponent:
      name: widget
      kind: {group: example.com, version: v1, kind: Widget}
    childComponents:
    - name: first
      ownerRef: widget
      podSelector:
        componentTypeSelector: {keyPath: '.metadata.labels.n | tonumber | tostring', value: "1"}
    - name: second
      ownerRef: widget
      podSelector:
        componentTypeSelector: {keyPath: '.metadata.labels.n | tonumber | tostring', value: "2"}
"""


def test_a_key_path_is_evaluated_once_per_pod_and_each_failure_reported(monkeypatch) -> None:
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "uid": "widget-uid"},
    }
    owner = ("example.com/v1", "Widget", "w")
    objects = [
        widget,
        pod("w-two", labels={"n": "2"}, owner=owner, owner_uid="widget-uid"),
        pod("w-bad", labels={"n": "x"}, owner=owner, owner_uid="widget-uid"),
    ]
    evaluated: list[str] = []
    real_run = pods_module.run

    def counting(expression: str, value: object) -> object:
        evaluated.append(f"{expression} on {value['metadata']['name']}")  # type: ignore[index]
        return real_run(expression, value)

    monkeypatch.setattr(pods_module, "run", counting)
    view = WorkloadIndex(Snapshot(objects), [loaded(WIDGET_DEFINITION)])
    tree = tree_of(view, view.workloads()[0])
    placed = {p.name: p.component for c in tree.components for i in c.instances for p in i.pods}
    assert placed == {"w-two": "second"}
    assert [p.name for p in tree.unattributed] == ["w-bad"]
    key_path = ".metadata.labels.n | tonumber | tostring"
    assert evaluated.count(f"{key_path} on w-two") == 1  # the second component reads the first's answer
    assert evaluated.count(f"{key_path} on w-bad") == 2  # a failure is not remembered ...
    failures = [w for w in tree.warnings if "w-bad: selector failed" in w]
    assert len(failures) == 2  # ... and is reported at each component's keyPath
    assert failures[0] != failures[1], failures  # two places in the definition
