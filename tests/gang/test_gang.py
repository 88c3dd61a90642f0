"""Gang groups: effective members, keys, filters, the subtree arithmetic, naming, spec-only mode (docs/gang.md)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from gang_defs import LWS, SERVE, SETS, SINGLE, TRAIN, member_pod, template, workload

from helpers import karta
from workload_map.gang import group_name, plan_gang
from workload_map.gang.compute import is_dns1123_subdomain
from workload_map.gang.scale import SubtreeScale
from workload_map.resolve.components import resolve_components
from workload_map.resolve.evaluate import Diagnostics


def train_job(**kw: object) -> dict:
    spec = {
        "master": {"replicas": 1, "template": template("master", cpu="2", memory="4Gi")},
        "worker": {
            "replicas": 4,
            "minReplicas": 2,
            "template": template("worker", gpus=8, cpu="16", memory="64Gi", product="NVIDIA-H100-80GB-HBM3"),
        },
    }
    return workload("TrainJob", spec, **kw)  # type: ignore[arg-type]


def lws(replicas: int = 3, size: int = 4) -> dict:
    return workload("LeaderSet", {"replicas": replicas, "size": size, "template": template("any", gpus=1)})


# ---------------------------------------------------------------- podGroups, grouped by top owner
def test_top_owner_group_with_pods_and_pending_reasons() -> None:
    pods = [
        member_pod("w-master-0", {"role": "master"}),
        member_pod("w-worker-0", {"role": "worker"}),
        member_pod("w-worker-1", {"role": "worker"}, phase="Pending", reason="Unschedulable"),
    ]
    plan = plan_gang(karta(TRAIN), train_job(), pods)
    assert plan.form == "podGroups" and plan.mode == "pods" and not plan.errors
    [group] = plan.groups
    assert group.name == "pg-uid1" and group.key == [] and not group.expected
    # own 0 (root has no scale) -> children's sum: master 1 + worker minReplicas 2
    assert group.min_member == 3
    assert group.desired == 5  # replicas: 1 + 4
    assert [p.name for p in group.pending] == ["w-worker-1"]
    assert group.missing == 2 and group.missing_for_min == 0
    assert len(group.scheduled) == 2 and not group.satisfied
    data = group.to_json()
    assert data["pending"] == [{"pod": "w-worker-1", "reason": "Unschedulable", "message": "0/4 nodes"}]
    assert data["members"]["present"] == 3 and data["members"]["missing"] == 2
    # derived sub-groups: one per pod-producing component instance, with their own minimum
    assert [(s.name, s.min_member, s.desired, len(s.pods)) for s in group.sub_groups] == [
        ("master", 1, 1, 1),
        ("worker", 2, 4, 2),
    ]
    assert all(s.derived for s in group.sub_groups)


def test_min_resources_and_placement_summary() -> None:
    plan = plan_gang(karta(TRAIN), train_job())
    [group] = plan.groups
    # 1 master (2 cpu, 4Gi) + 2 workers (16 cpu, 64Gi, 8 GPUs each)
    assert group.min_resources == {
        "cpu": Decimal(34),
        "memory": Decimal(132 * 2**30),
        "nvidia.com/gpu": Decimal(16),
    }
    assert group.min_gpus == 16
    placement = group.to_json()["placement"]
    assert placement["gpuProducts"] == ["NVIDIA-H100-80GB-HBM3"]
    worker = next(s for s in placement["shapes"] if s["component"] == "worker")
    assert worker == {
        "component": "worker",
        "instance": None,
        "count": 2,
        "perPod": {"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "8"},
        "gpusPerPod": 8,
        "gpuProduct": "NVIDIA-H100-80GB-HBM3",
        "total": {"cpu": "32", "memory": "128Gi", "nvidia.com/gpu": "16"},
        "templateKnown": True,
    }
    assert group.to_json()["minResources"] == {"cpu": "34", "memory": "132Gi", "nvidia.com/gpu": "16"}


def test_gpu_product_from_required_node_affinity() -> None:
    job = train_job()
    worker = job["spec"]["worker"]["template"]["spec"]
    del worker["nodeSelector"]
    worker["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "nvidia.com/gpu.product", "operator": "In", "values": ["A100", "H100"]}
                        ]
                    }
                ]
            }
        }
    }
    [group] = plan_gang(karta(TRAIN), job).groups
    assert group.gpu_products == ["A100 | H100"]


def test_spec_only_top_owner_group_is_one_expected_group() -> None:
    plan = plan_gang(karta(TRAIN), train_job())
    assert plan.mode == "spec"
    [group] = plan.groups
    assert group.expected and group.name == "pg-uid1" and group.min_member == 3 and group.missing == 5


def test_unattributed_pod_is_a_per_pod_error() -> None:
    plan = plan_gang(karta(TRAIN), train_job(), [member_pod("stray", {"role": "other"})])
    assert [e.pod for e in plan.errors] == ["stray"]
    assert "no component" in plan.errors[0].message


# ---------------------------------------------------------------- keys: per-replica groups
def lws_pod(name: str, index: int, role: str, **kw: object) -> dict:
    labels = {"role": role, "example.com/name": "w", "example.com/group-index": str(index)}
    return member_pod(name, labels, **kw)  # type: ignore[arg-type]


def test_groups_keyed_per_replica_with_pods() -> None:
    pods = [lws_pod(f"w-{g}-{i}", g, "leader" if i == 0 else "worker") for g in range(2) for i in range(4)]
    plan = plan_gang(karta(LWS), lws(replicas=3, size=4), pods)
    assert not plan.errors
    names = [g.name for g in plan.groups]
    # two observed groups, and the third one expected: its unknown name key is the value the pods agree on
    assert names == ["pg-uid1-w-0", "pg-uid1-w-1", "pg-uid1-w-2"]
    assert [g.expected for g in plan.groups] == [False, False, True]
    # group has no scale -> children's sum: leader 1 + worker size-1
    assert {g.min_member for g in plan.groups} == {4}
    assert plan.groups[0].key == ["w", "0"]
    assert [len(g.pods) for g in plan.groups] == [4, 4, 0]
    assert plan.groups[2].missing == 4
    assert not plan.unenumerated


def test_spec_only_groups_keyed_per_replica() -> None:
    plan = plan_gang(karta(LWS), lws(replicas=3, size=4))
    assert len(plan.groups) == 3 and all(g.expected for g in plan.groups)
    # the name label cannot be known before pods exist; the replica key is 0..replicas-1
    assert [g.key for g in plan.groups] == [[None, "0"], [None, "1"], [None, "2"]]
    assert all(g.name is None for g in plan.groups)
    assert plan.groups[1].name_pattern == 'pg-uid1-<.metadata.labels["example.com/name"]>-1'
    assert [m.to_json() for m in plan.unenumerated] == [
        {"definitionGroup": "group", "component": "group", "expected": 3, "observed": 0}
    ]


def test_spec_only_key_known_from_the_pod_template() -> None:
    job = lws(replicas=2, size=2)
    job["spec"]["template"]["metadata"]["labels"]["example.com/name"] = "w"
    plan = plan_gang(karta(LWS), job)
    assert [g.name for g in plan.groups] == ["pg-uid1-w-0", "pg-uid1-w-1"]
    assert not plan.unenumerated


def test_missing_group_key_is_a_clear_per_pod_error() -> None:
    good = lws_pod("w-0-0", 0, "leader")
    missing = member_pod("w-x-0", {"role": "leader", "example.com/name": "w"})
    empty = member_pod("w-y-0", {"role": "leader", "example.com/name": "", "example.com/group-index": "1"})
    plan = plan_gang(karta(LWS), lws(), [good, missing, empty])
    errors = {e.pod: e.message for e in plan.errors}
    assert set(errors) == {"w-x-0", "w-y-0"}
    assert (
        "group key path '.metadata.labels[\"example.com/group-index\"]' gave an empty value (null)" in errors["w-x-0"]
    )
    assert 'gave an empty value ("")' in errors["w-y-0"]
    assert plan.group("pg-uid1-w-0") is not None


def test_invalid_group_name_from_keys_is_an_error() -> None:
    pod = lws_pod("w-0-0", 0, "leader")
    pod["metadata"]["labels"]["example.com/name"] = "Not_DNS"
    plan = plan_gang(karta(LWS), lws(), [pod])
    assert "invalid PodGroup name 'pg-uid1-Not_DNS-0'" in plan.errors[0].message


# ---------------------------------------------------------------- filters and ancestor members
def serve() -> dict:
    return workload(
        "Serve",
        {
            "prefill": {"replicas": 2, "template": template("prefill")},
            "decode": {"replicas": 3, "template": template("decode", gpus=2)},
        },
    )


def test_filters_and_ancestor_members() -> None:
    pods = [
        member_pod("d-a", {"role": "decode", "gang": "yes", "shard": "a"}),
        member_pod("d-b", {"role": "decode", "gang": "yes", "shard": "b"}),
        member_pod("d-x", {"role": "decode", "gang": "no"}),  # filter false -> ancestor member svc
        member_pod("p-0", {"role": "prefill"}),  # prefill is no member -> ancestor svc
    ]
    plan = plan_gang(karta(SERVE), serve(), pods)
    assert not plan.errors
    by_name = {g.name: g for g in plan.groups}
    assert set(by_name) == {"pg-uid1-a", "pg-uid1-b", "pg-uid1"}
    # decode is the pod's own component: its own count (replicas 3)
    assert by_name["pg-uid1-a"].min_member == 3 and by_name["pg-uid1-a"].component == "decode"
    # svc: own 0 -> children's sum 2 + 3
    assert by_name["pg-uid1"].min_member == 5 and by_name["pg-uid1"].component == "svc"
    assert sorted(p.name for p in by_name["pg-uid1"].pods) == ["d-x", "p-0"]


def test_filter_without_a_single_value_is_a_per_pod_error() -> None:
    pods = [member_pod("d-q", {"role": "decode", "shard": "a"})]  # no gang label: filter gives false, fine
    plan = plan_gang(karta(SERVE), serve(), pods)
    assert not plan.errors and plan.groups[0].name == "pg-uid1"
    text = SERVE.replace("'.metadata.labels.gang == \"yes\"'", "'.metadata.labels.gang'")
    plan = plan_gang(karta(text), serve(), pods)
    assert [e.pod for e in plan.errors] == ["d-q"]
    assert "filter '.metadata.labels.gang' gave an empty value" in plan.errors[0].message


def test_pod_matching_no_member_is_an_error() -> None:
    text = SERVE.replace("      - name: everything\n        members:\n        - componentName: svc\n", "")
    plan = plan_gang(karta(text), serve(), [member_pod("p-0", {"role": "prefill"})])
    assert "matches no pod group member" in plan.errors[0].message


# ---------------------------------------------------------------- per-instance groups
def sets() -> dict:
    jobs = [
        {"name": "driver", "replicas": 1, "template": template("driver")},
        {"name": "workers", "replicas": 4, "template": template("workers", gpus=8)},
    ]
    return workload("JobGroup", {"jobs": jobs})


def test_per_instance_groups() -> None:
    pods = [
        member_pod("d-0", {"example.com/job": "driver"}),
        member_pod("w-0", {"example.com/job": "workers"}),
    ]
    plan = plan_gang(karta(SETS), sets(), pods)
    assert not plan.errors
    by_name = {g.name: g for g in plan.groups}
    assert by_name["pg-uid1-driver"].min_member == 1 and by_name["pg-uid1-driver"].instance == "driver"
    assert by_name["pg-uid1-workers"].min_member == 4 and by_name["pg-uid1-workers"].min_gpus == 32


def test_spec_only_per_instance_groups_keyed_by_instance_id() -> None:
    plan = plan_gang(karta(SETS), sets())
    assert [(g.name, g.min_member, g.expected) for g in plan.groups] == [
        ("pg-uid1-driver", 1, True),
        ("pg-uid1-workers", 4, True),
    ]


# ---------------------------------------------------------------- subtree arithmetic edge cases
def scales(text: str, obj: dict) -> SubtreeScale:
    k = karta(text)
    return SubtreeScale(k, resolve_components(k, obj, Diagnostics("t")))


def test_parent_times_children_sum() -> None:
    s = scales(LWS, lws(replicas=2, size=4))
    assert s.size("lws") == 8  # 2 x (1 + 3)
    assert s.size("group") == 4
    assert s.replica_groups("group") == 2


def test_children_zero_gives_own_count() -> None:
    text = (
        SERVE.replace('scaleDefinition: {replicasPath: ".spec.prefill.replicas"}', "")
        .replace('scaleDefinition: {replicasPath: ".spec.decode.replicas"}', "")
        .replace("      name: svc\n", '      name: svc\n      scaleDefinition: {replicasPath: ".spec.n"}\n')
    )
    obj = serve()
    obj["spec"]["n"] = 3
    s = scales(text, obj)
    assert s.size("svc") == 3  # children have no scale -> the root's own count
    parts = s.parts("svc")
    assert sum(p.count for p in parts) == 3 and {p.component for p in parts} == {"prefill", "decode"}


def test_min_replicas_first_then_replicas_then_zero() -> None:
    job = train_job()
    job["spec"]["worker"]["minReplicas"] = 0  # not > 0 -> replicas
    assert scales(TRAIN, job).size("job") == 5
    job["spec"]["worker"]["replicas"] = 0
    assert scales(TRAIN, job).size("job") == 1  # worker counts 0


def test_no_scale_definition_anywhere_counts_leaf_instances() -> None:
    text = SETS.replace('      scaleDefinition: {replicasPath: ".spec.jobs[].replicas"}\n', "")
    s = scales(text, sets())
    assert s.size("set") == 2  # two instances of the only pod-producing component
    assert s.size("rjob", "workers") == 1
    plan = plan_gang(karta(text), sets(), [member_pod("w-0", {"example.com/job": "workers"})])
    assert plan.group("pg-uid1-workers").min_member == 1  # type: ignore[union-attr]


def test_unknown_instance_is_an_error() -> None:
    s = scales(SETS, sets())
    with pytest.raises(ValueError, match="instance id 'nope' not found"):
        s.size("rjob", "nope")


# ---------------------------------------------------------------- podGroup form
def disagg(leader: int = 1, worker: int = 3) -> dict:
    return workload(
        "Disagg",
        {
            "leader": {"replicas": leader, "template": template("leader", gpus=1)},
            "worker": {"replicas": worker, "template": template("worker", gpus=4)},
        },
    )


def test_single_group_with_sub_groups_and_topology() -> None:
    pods = [member_pod("l-0", {"role": "leader"}), member_pod("w-0", {"role": "worker"}, phase="Pending")]
    plan = plan_gang(karta(SINGLE), disagg(), pods)
    assert plan.form == "podGroup" and not plan.errors
    [group] = plan.groups
    assert group.name == "pg-uid1-main" and group.key == ["main"]
    assert group.min_sub_group == 2 and group.min_member == 4
    assert [(s.name, s.min_member, [p.name for p in s.pods]) for s in group.sub_groups] == [
        ("leader", 1, ["l-0"]),
        ("worker", 3, ["w-0"]),
    ]
    assert group.topology is not None and group.topology.required_level == "rack"
    assert group.sub_groups[1].topology is not None
    assert group.sub_groups[1].topology.preferred_level == "kubernetes.io/hostname"
    assert group.min_gpus == 13
    assert not any(s.derived for s in group.sub_groups)


def test_single_group_spec_only() -> None:
    [group] = plan_gang(karta(SINGLE), disagg()).groups
    assert group.expected and group.name == "pg-uid1-main"


def test_single_group_sub_group_without_scale_is_an_error() -> None:
    plan = plan_gang(karta(SINGLE), disagg(worker=0), [member_pod("l-0", {"role": "leader"})])
    assert not plan.groups
    assert "component 'worker' must expose a replica scale definition" in plan.errors[0].message


def test_single_group_topology_needs_a_level() -> None:
    text = SINGLE.replace(
        "topology: {topologyName: default, requiredTopologyLevel: rack}", "topology: {topologyName: x}"
    )
    plan = plan_gang(karta(text), disagg())
    assert not plan.groups and "requiredTopologyLevel or preferredTopologyLevel" in plan.warnings[0]


def test_single_group_without_sub_groups_uses_the_root_subtree() -> None:
    text = SINGLE.split("        subGroups:")[0]
    [group] = plan_gang(karta(text), disagg()).groups
    assert group.min_member == 4 and group.min_sub_group is None and not group.sub_groups


# ---------------------------------------------------------------- naming
def test_naming() -> None:
    assert group_name("abc", []) == "pg-abc"
    assert group_name("abc", ["w", "0"]) == "pg-abc-w-0"
    assert is_dns1123_subdomain("pg-abc-w-0") and not is_dns1123_subdomain("pg-abc-W")


def test_no_uid_uses_a_placeholder_and_warns() -> None:
    plan = plan_gang(karta(TRAIN), train_job(uid=None))
    assert plan.groups[0].name == "pg-<uid>"
    assert any("no metadata.uid" in w for w in plan.warnings)


def test_no_gang_instructions() -> None:
    text = TRAIN.split("  optimizationInstructions:")[0]
    plan = plan_gang(karta(text), train_job())
    assert plan.form is None and not plan.groups and "default grouper" in plan.warnings[0]


def test_json_document() -> None:
    data = plan_gang(karta(TRAIN), train_job(), [member_pod("m", {"role": "master"})]).to_json()
    assert data["apiVersion"] == "workload-map/v1alpha1" and data["kind"] == "GangPlan"
    assert data["workload"] == {
        "apiVersion": "example.com/v1",
        "kind": "TrainJob",
        "namespace": "ns",
        "name": "w",
        "uid": "uid1",
    }
    group = data["groups"][0]
    assert {"name", "key", "minMember", "members", "pending", "subGroups", "minResources", "placement"} <= set(group)
    assert group["members"]["pods"][0]["name"] == "m"


def test_queue_and_priority_from_labels_and_pods() -> None:
    job = train_job()
    job["metadata"]["labels"] = {"kai.scheduler/queue": "team-a"}
    job["spec"]["master"]["template"]["spec"]["priorityClassName"] = "high"
    [group] = plan_gang(karta(TRAIN), job).groups
    assert group.queue == "team-a" and group.priority_class_name == "high"


def test_a_deferred_component_gives_its_count_to_its_siblings_shapes() -> None:
    """docs/gang.md 4: KAI still counts the deferred master (minimum 0 falls back to replicas), so the size is
    unchanged, but the shapes hold the workers that exist before it."""
    text = TRAIN.replace(
        "metadata: {name: test-train}",
        "metadata: {name: test-train, annotations: {workload-map.run.ai/gang-deferred-components: 'master, nosuch'}}",
    ).replace(
        'scaleDefinition: {replicasPath: ".spec.master.replicas // 1"}',
        'scaleDefinition: {replicasPath: ".spec.master.replicas // 1", minReplicasPath: ".spec.master.minReplicas"}',
    )
    job = train_job()
    job["spec"]["master"]["minReplicas"] = 0
    plan = plan_gang(karta(text), job)
    [group] = plan.groups
    assert group.min_member == 3
    assert [(s.component, s.count) for s in group.shapes] == [("worker", 3)]
    assert group.min_gpus == 24
    assert any("gang-deferred-components" in w and "'nosuch'" in w for w in plan.warnings)
    job["spec"]["master"]["minReplicas"] = 1
    [group] = plan_gang(karta(text), job).groups
    assert [(s.component, s.count) for s in group.shapes] == [("master", 1), ("worker", 2)]
