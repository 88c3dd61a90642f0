"""Manifests for KAI, Volcano, coscheduling and the Workload API, and how pods attach (docs/gang.md)."""

from __future__ import annotations

import pytest
from gang_defs import LWS, SINGLE, TRAIN, member_pod, template, workload

from helpers import karta
from workload_map.gang import plan_gang
from workload_map.gang.emit import as_list, emit

OWNER = [
    {
        "apiVersion": "example.com/v1",
        "kind": "TrainJob",
        "name": "w",
        "uid": "uid1",
        "controller": True,
        "blockOwnerDeletion": True,
    }
]


def train_plan(uid: str | None = "uid1"):  # type: ignore[no-untyped-def]
    spec = {
        "master": {"replicas": 1, "template": template("master", cpu="500m", memory="1Gi")},
        "worker": {"replicas": 4, "minReplicas": 2, "template": template("worker", gpus=8, cpu="8", memory="32Gi")},
    }
    pods = [member_pod("w-master-0", {"role": "master"}), member_pod("w-worker-0", {"role": "worker"})]
    return plan_gang(karta(TRAIN), workload("TrainJob", spec, uid=uid), pods)


def lws_plan():  # type: ignore[no-untyped-def]
    pods = [
        member_pod("l-0", {"role": "leader", "example.com/name": "w", "example.com/group-index": "0"}),
        member_pod("w-0-1", {"role": "worker", "example.com/name": "w", "example.com/group-index": "0"}),
    ]
    obj = workload("LeaderSet", {"replicas": 2, "size": 2, "template": template("x", gpus=1)})
    return plan_gang(karta(LWS), obj, pods)


def test_kai_pod_groups_form() -> None:
    emission = emit(train_plan(), "kai")
    [pg] = emission.objects
    assert pg == {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "pg-uid1", "namespace": "ns", "ownerReferences": OWNER},
        "spec": {"queue": "default-queue", "minMember": 3},
    }
    [attach] = emission.attachments
    assert attach.patch() == {"metadata": {"annotations": {"pod-group-name": "pg-uid1"}}}
    assert attach.pods == ["w-master-0", "w-worker-0"]


def test_kai_derived_sub_groups_on_request() -> None:
    emission = emit(train_plan(), "kai", kai_derived_subgroups=True, queue="q1")
    spec = emission.objects[0]["spec"]
    assert spec["queue"] == "q1" and spec["minMember"] == 3
    assert spec["subGroups"] == [{"name": "master", "minMember": 1}, {"name": "worker", "minMember": 2}]
    labels = [a.labels for a in emission.attachments]
    assert labels == [{"kai.scheduler/subgroup-name": "master"}, {"kai.scheduler/subgroup-name": "worker"}]


def test_kai_pod_group_form_with_sub_groups_and_topology() -> None:
    obj = workload(
        "Disagg",
        {
            "leader": {"replicas": 1, "template": template("leader")},
            "worker": {"replicas": 3, "template": template("worker")},
        },
    )
    emission = emit(plan_gang(karta(SINGLE), obj, [member_pod("l-0", {"role": "leader"})]), "kai")
    spec = emission.objects[0]["spec"]
    assert "minMember" not in spec and spec["minSubGroup"] == 2
    assert spec["topologyConstraint"] == {"topology": "default", "requiredTopologyLevel": "rack"}
    assert spec["subGroups"] == [
        {"name": "leader", "minMember": 1},
        {
            "name": "worker",
            "minMember": 3,
            "topologyConstraint": {"topology": "default", "preferredTopologyLevel": "kubernetes.io/hostname"},
        },
    ]
    leader = next(a for a in emission.attachments if a.sub_group == "leader")
    assert leader.pods == ["l-0"]
    assert leader.patch()["metadata"] == {
        "labels": {"kai.scheduler/subgroup-name": "leader"},
        "annotations": {"pod-group-name": "pg-uid1-main"},
    }


def test_kai_skips_groups_whose_name_needs_pods() -> None:
    obj = workload("LeaderSet", {"replicas": 2, "size": 2, "template": template("x")})
    emission = emit(plan_gang(karta(LWS), obj), "kai")
    assert emission.objects == []
    assert any("KAI's pod grouper creates it" in w for w in emission.warnings)


def test_volcano() -> None:
    emission = emit(train_plan(), "volcano", queue="research")
    [pg] = emission.objects
    assert pg["apiVersion"] == "scheduling.volcano.sh/v1beta1" and pg["kind"] == "PodGroup"
    assert pg["metadata"]["ownerReferences"] == OWNER
    assert pg["spec"] == {
        "minMember": 3,
        "minTaskMember": {"master": 1, "worker": 2},
        "minResources": {"cpu": "16500m", "memory": "65Gi", "nvidia.com/gpu": "16"},
        "queue": "research",
    }
    worker = next(a for a in emission.attachments if a.sub_group == "worker")
    assert worker.patch() == {
        "metadata": {"annotations": {"scheduling.k8s.io/group-name": "pg-uid1", "volcano.sh/task-spec": "worker"}},
        "spec": {"schedulerName": "volcano"},
    }


def test_volcano_names_groups_whose_key_needs_pods() -> None:
    obj = workload("LeaderSet", {"replicas": 2, "size": 2, "template": template("x")})
    emission = emit(plan_gang(karta(LWS), obj), "volcano")
    assert [o["metadata"]["name"] for o in emission.objects] == ["w-group-0", "w-group-1"]
    assert [o["spec"]["minMember"] for o in emission.objects] == [2, 2]


def test_coscheduling() -> None:
    emission = emit(train_plan(), "coscheduling", schedule_timeout_seconds=120)
    [pg] = emission.objects
    assert pg["apiVersion"] == "scheduling.x-k8s.io/v1alpha1"
    assert pg["spec"] == {
        "minMember": 3,
        "minResources": {"cpu": "16500m", "memory": "65Gi", "nvidia.com/gpu": "16"},
        "scheduleTimeoutSeconds": 120,
    }
    assert emission.attachments[0].patch() == {"metadata": {"labels": {"scheduling.x-k8s.io/pod-group": "pg-uid1"}}}


def test_workload_api_v1beta1() -> None:
    emission = emit(lws_plan(), "workload-api")
    kinds = [(o["apiVersion"], o["kind"], o["metadata"]["name"]) for o in emission.objects]
    assert kinds == [
        ("scheduling.k8s.io/v1beta1", "Workload", "w-leaderset"),
        ("scheduling.k8s.io/v1beta1", "PodGroup", "pg-uid1-w-0"),
        ("scheduling.k8s.io/v1beta1", "PodGroup", "pg-uid1-w-1"),
    ]
    assert emission.objects[0]["spec"] == {
        "controllerRef": {"apiGroup": "example.com", "kind": "LeaderSet", "name": "w"},
        "podGroupTemplates": [{"name": "group", "schedulingPolicy": {"gang": {"minCount": 2}}}],
    }
    assert emission.objects[1]["spec"] == {
        "workloadRef": {"workloadName": "w-leaderset", "templateName": "group"},
        "schedulingPolicy": {"gang": {"minCount": 2}},
    }
    assert emission.attachments[0].patch() == {"spec": {"schedulingGroup": {"podGroupName": "pg-uid1-w-0"}}}


def test_workload_api_v1alpha1() -> None:
    emission = emit(lws_plan(), "workload-api", workload_api_version="v1alpha1")
    [wl] = emission.objects
    assert wl["apiVersion"] == "scheduling.k8s.io/v1alpha1" and wl["kind"] == "Workload"
    assert wl["spec"]["podGroups"] == [{"name": "group", "policy": {"gang": {"minCount": 2}}}]
    assert [a.patch() for a in emission.attachments] == [
        {"spec": {"workloadRef": {"name": "w-leaderset", "podGroup": "group", "podGroupReplicaKey": "w-0"}}},
        {"spec": {"workloadRef": {"name": "w-leaderset", "podGroup": "group", "podGroupReplicaKey": "w-1"}}},
    ]


def test_workload_api_top_owner_group_has_no_replica_key() -> None:
    emission = emit(train_plan(), "workload-api", workload_api_version="v1alpha1")
    assert emission.attachments[0].spec == {"workloadRef": {"name": "w-trainjob", "podGroup": "job"}}


def test_no_uid_means_no_owner_references() -> None:
    emission = emit(train_plan(uid=None), "volcano")
    assert "ownerReferences" not in emission.objects[0]["metadata"]
    assert any("no metadata.uid" in w for w in emission.warnings)


def test_list_and_unknown_scheduler() -> None:
    emission = emit(lws_plan(), "coscheduling")
    assert as_list(emission.objects)["kind"] == "List" and len(as_list(emission.objects)["items"]) == 2
    with pytest.raises(ValueError, match="unknown scheduler"):
        emit(lws_plan(), "yunikorn")
    data = emission.to_json()
    assert data["scheduler"] == "coscheduling" and data["podAttachments"][0]["group"] == "pg-uid1-w-0"
