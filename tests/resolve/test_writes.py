from __future__ import annotations

import copy
import doctest
from typing import Any

import pytest
import yaml
from test_components import FRAGMENTED

from corpus import corpus_objects
from helpers import JOBSET_DEFINITION, LWS_DEFINITION, karta
from workload_map.catalog import builtin_definitions
from workload_map.definition.model import Karta
from workload_map.resolve import writes
from workload_map.resolve.status import evaluate_status
from workload_map.resolve.writes import PodSpecChange, WriteError, merge_patch, set_suspended, update_pod_specs


def apply_merge_patch(target: object, patch: object) -> object:
    """RFC 7386, to prove the patch we return really turns the old object into the new one."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = apply_merge_patch(result.get(key), value)
    return result


def test_template_form_broadcast_and_patch_round_trip() -> None:
    obj = corpus_objects("jobset/examples/paralleljobs.yaml")[0].obj
    obj = {**obj, "x-unknown": {"kept": True}}
    result = update_pod_specs(
        karta(JOBSET_DEFINITION),
        obj,
        PodSpecChange(scheduler_name="kai-scheduler", labels={"kai.scheduler/queue": "team-a"}),
    )
    for rj in result.obj["spec"]["replicatedJobs"]:
        template = rj["template"]["spec"]["template"]
        assert template["spec"]["schedulerName"] == "kai-scheduler"
        assert template["metadata"]["labels"]["kai.scheduler/queue"] == "team-a"
    assert result.obj["x-unknown"] == {"kept": True}
    assert obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"].get("schedulerName") is None
    assert apply_merge_patch(obj, result.patch) == result.obj
    assert len(result.changes) == 4


def test_one_instance_and_named_container_resources() -> None:
    obj = corpus_objects("jobset/examples/paralleljobs.yaml")[0].obj
    change = PodSpecChange(resources={"limits": {"nvidia.com/gpu": "1"}}, image="trainer:2", container="sleep")
    result = update_pod_specs(karta(JOBSET_DEFINITION), obj, change, instance="driver")
    driver, workers = result.obj["spec"]["replicatedJobs"][1], result.obj["spec"]["replicatedJobs"][0]
    assert driver["template"]["spec"]["template"]["spec"]["containers"][0]["image"] == "trainer:2"
    assert workers == obj["spec"]["replicatedJobs"][0]


def test_absent_instance_or_component_writes_nothing() -> None:
    obj = corpus_objects("jobset/examples/paralleljobs.yaml")[0].obj
    with pytest.raises(WriteError, match="no instance 'nope'"):
        update_pod_specs(karta(JOBSET_DEFINITION), obj, PodSpecChange(scheduler_name="x"), instance="nope")
    with pytest.raises(WriteError, match="no pod-producing component named 'ghost'"):
        update_pod_specs(karta(JOBSET_DEFINITION), obj, PodSpecChange(scheduler_name="x"), component="ghost")


def test_not_a_path_is_refused_all_or_nothing() -> None:
    # LWS leader template is `leaderTemplate // workerTemplate`: a path; the worker one too.
    obj = corpus_objects("leaderworkerset/examples/vllm-gpu-lws.yaml")[0].obj
    result = update_pod_specs(karta(LWS_DEFINITION), obj, PodSpecChange(priority_class_name="high"))
    assert result.obj["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["priorityClassName"] == "high"
    computed = LWS_DEFINITION.replace(
        '".spec.leaderWorkerTemplate.workerTemplate"}', '".spec.leaderWorkerTemplate.workerTemplate | tojson"}'
    )
    with pytest.raises(WriteError, match="does not address a writable location"):
        update_pod_specs(karta(computed), obj, PodSpecChange(priority_class_name="high"))


def test_identity_cannot_be_changed() -> None:
    pod_definition = karta("""
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: pod}
spec:
  structureDefinition:
    rootComponent:
      name: pod
      kind: {group: "", version: v1, kind: Pod}
      specDefinition: {podSpecPath: .spec, metadataPath: .metadata}
      statusDefinition: {phaseDefinition: {path: .status.phase}, statusMappings: {running: [{byPhase: Running}]}}
""")
    obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {"a": "1"}},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    }
    result = update_pod_specs(pod_definition, obj, PodSpecChange(labels={"b": "2"}, scheduler_name="kai"))
    assert result.patch == {"metadata": {"labels": {"b": "2"}}, "spec": {"schedulerName": "kai"}}
    wire = pod_definition.to_dict()
    wire["spec"]["structureDefinition"]["rootComponent"]["specDefinition"] = {
        "fragmentedPodSpecDefinition": {"schedulerNamePath": ".metadata.name"}
    }
    renamer = karta(yaml.safe_dump(wire))
    with pytest.raises(WriteError, match="identity"):
        update_pod_specs(renamer, obj, PodSpecChange(scheduler_name="s"))
    wire["spec"]["structureDefinition"]["rootComponent"]["specDefinition"] = {
        "podSpecPath": ".spec",
        "metadataPath": ".metadata.name",
    }
    with pytest.raises(WriteError):
        broken_name = karta(yaml.safe_dump(wire))
        update_pod_specs(broken_name, obj, PodSpecChange(labels={"x": "y"}))


def test_fragmented_form_writes_each_field_through_its_path() -> None:
    obj = yaml.safe_load("""
spec:
  services:
    frontend: {image: fe:1, replicas: 2, labels: {tier: web}}
    decode: {image: dec:1, replicas: 4}
  sidecar: {pod: {containers: [{name: s}]}}
""")
    result = update_pod_specs(
        karta(FRAGMENTED), obj, PodSpecChange(scheduler_name="kai", image="x:2", labels={"q": "a"}), component="service"
    )
    assert result.obj["spec"]["services"]["decode"] == {
        "image": "x:2",
        "replicas": 4,
        "scheduler": "kai",
        "labels": {"q": "a"},
    }
    assert result.obj["spec"]["services"]["frontend"]["labels"] == {"tier": "web", "q": "a"}
    with pytest.raises(WriteError, match="no path to write priorityClassName"):
        update_pod_specs(karta(FRAGMENTED), obj, PodSpecChange(priority_class_name="p"), component="service")
    with pytest.raises(WriteError, match="labels"):
        update_pod_specs(
            karta(FRAGMENTED.replace('        metadataPath: ".spec.sidecar.meta"\n', "")),
            obj,
            PodSpecChange(labels={"a": "b"}),
            component="sidecar",
        )


def test_suspend_and_resume() -> None:
    obj = corpus_objects("jobset/examples/paralleljobs.yaml")[0].obj
    assert set_suspended(karta(JOBSET_DEFINITION), obj, True).patch == {"spec": {"suspend": True}}
    assert set_suspended(karta(JOBSET_DEFINITION), obj, False).patch == {"spec": {"suspend": False}}
    with pytest.raises(WriteError, match="no suspendDefinition"):
        set_suspended(karta(LWS_DEFINITION), obj, True)


def test_notebook_stops_by_annotation_and_starts_by_deleting_it() -> None:
    [notebook] = [d for d in builtin_definitions() if d.name == "kubeflow-org-notebook-v1"]
    obj = corpus_objects("notebook/live/karmada-testcases-interpretstatus.yaml")[0].obj
    stopped = set_suspended(notebook.karta, obj, True)
    assert stopped.patch == {"metadata": {"annotations": {"kubeflow-resource-stopped": "stopped-by-wmap"}}}
    # The pod is still Ready until the StatefulSet, scaled to 0, has removed it.
    assert evaluate_status(notebook.karta.root.status_definition, stopped.obj).primary.value == "Suspending"
    started = set_suspended(notebook.karta, stopped.obj, False)
    # null in a JSON merge patch deletes the key: the controller reads only its presence.
    assert started.patch == {"metadata": {"annotations": {"kubeflow-resource-stopped": None}}}
    assert evaluate_status(notebook.karta.root.status_definition, started.obj).primary.value == "Running"


def test_merge_patch_removes_and_replaces() -> None:
    assert merge_patch({"a": 1, "b": {"c": 1, "d": 2}}, {"b": {"c": 1}, "e": [1]}) == {
        "a": None,
        "b": {"d": None},
        "e": [1],
    }


def test_module_examples_run() -> None:

    assert doctest.testmod(writes).failed == 0


def _flink() -> tuple[Karta, dict[str, Any]]:
    definition = next(d.karta for d in builtin_definitions() if d.name == "flink-apache-org-flinkdeployment-v1beta1")
    obj = {
        "apiVersion": "flink.apache.org/v1beta1",
        "kind": "FlinkDeployment",
        "metadata": {"name": "f", "namespace": "s"},
        "spec": {"image": "flink:1.20", "job": {"parallelism": 2}, "jobManager": {}, "taskManager": {}},
    }
    return definition, obj


def test_role_over_common_template_writes_land_where_the_read_comes_from() -> None:
    """Flink merges a role's pod template over the common one: a field set nowhere is written into the role's
    own template (the other role untouched); a field only the common template sets is written there."""
    definition, obj = _flink()
    own = update_pod_specs(definition, obj, PodSpecChange(priority_class_name="high"), component="taskmanager")
    spec = own.obj["spec"]
    assert spec["taskManager"]["podTemplate"] == {"spec": {"priorityClassName": "high"}}
    assert spec["jobManager"] == {} and "podTemplate" not in spec
    shared = copy.deepcopy(obj)
    shared["spec"]["podTemplate"] = {"spec": {"schedulerName": "default-scheduler"}}
    common = update_pod_specs(definition, shared, PodSpecChange(scheduler_name="kai-scheduler"), component="jobmanager")
    assert common.obj["spec"]["podTemplate"]["spec"]["schedulerName"] == "kai-scheduler"
    assert "podTemplate" not in common.obj["spec"]["jobManager"]
    gpus = update_pod_specs(definition, obj, PodSpecChange(resources={"limits": {"nvidia.com/gpu": "1"}}))
    assert gpus.obj["spec"]["taskManager"]["resources"] == {"limits": {"nvidia.com/gpu": "1"}}


def test_an_update_of_one_role_says_which_others_read_the_same_location() -> None:
    definition, obj = _flink()
    shared = copy.deepcopy(obj)
    shared["spec"]["podTemplate"] = {"spec": {"schedulerName": "default-scheduler"}}
    result = update_pod_specs(definition, shared, PodSpecChange(scheduler_name="kai-scheduler"), component="jobmanager")
    assert result.also_changed == [
        "component 'taskmanager' reads the same location, so its pods change too: spec.podTemplate.spec.schedulerName"
    ]
    own = update_pod_specs(definition, obj, PodSpecChange(scheduler_name="kai-scheduler"), component="jobmanager")
    assert own.also_changed == []  # written into the JobManager's own template
    everything = update_pod_specs(definition, shared, PodSpecChange(scheduler_name="kai-scheduler"))
    assert everything.also_changed == []  # nothing left out


def test_a_location_that_cannot_be_created_names_the_instance() -> None:
    definition = karta(
        """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: listed}
spec:
  structureDefinition:
    rootComponent:
      name: root
      kind: {group: example.com, version: v1, kind: Listed}
    childComponents:
      - name: task
        ownerRef: root
        kind: {group: "", version: v1, kind: Pod}
        specDefinition:
          fragmentedPodSpecDefinition:
            schedulerNamePath: .spec.taskSpecs[0].schedulerName
"""
    )
    obj = {"apiVersion": "example.com/v1", "kind": "Listed", "metadata": {"name": "l"}, "spec": {}}
    with pytest.raises(WriteError) as raised:
        update_pod_specs(definition, obj, PodSpecChange(scheduler_name="kai-scheduler"))
    assert raised.value.message.startswith("component 'task': cannot write spec.taskSpecs[0].schedulerName: list")
