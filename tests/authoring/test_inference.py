"""The drafting inference on our own small CRDs: structure, counts, selectors, status, suspend, TODOs."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

import workload_map as wm
from workload_map.authoring import Sample, draft
from workload_map.authoring.status import classify
from workload_map.checks.samples import run_samples
from workload_map.definition.loader import LoadedDefinition, definition_from_dict
from workload_map.definition.validate import validate
from workload_map.errors import Location, Severity
from workload_map.operator.admission import validate_karta
from workload_map.sources.documents import Document

from . import fixtures


def _load(text: str) -> LoadedDefinition:
    karta, findings = definition_from_dict(yaml.safe_load(text), Location("draft"))
    assert karta is not None, [str(f) for f in findings]
    assert [f for f in validate(karta) if f.severity is Severity.ERROR] == []
    return LoadedDefinition(karta, Location("draft"))


def _samples(objects: list[dict[str, Any]]) -> list[Sample]:
    return [Sample(o, f"fixture#{i}") for i, o in enumerate(objects)]


def _run(definition: LoadedDefinition, objects: list[dict[str, Any]]) -> list[wm.SampleResult]:
    return run_samples(definition, [Document(o, Location(f"fixture#{i}")) for i, o in enumerate(objects)])


def _child(result: Any, name: str) -> dict[str, Any]:
    children = result.karta["spec"]["structureDefinition"]["childComponents"]
    return next(c for c in children if c["name"] == name)


def test_a_map_of_roles_with_sample_pods_gives_a_tree_that_matches_them() -> None:
    run = fixtures.trainrun(expect={"primary": "Running", "pods": {"role": 4}})
    objects = [run, *fixtures.trainrun_pods(run)]
    result = draft(fixtures.TRAINRUN, _samples(objects))
    role = _child(result, "role")
    assert role["instanceIdPath"] == ".spec.roleSpecs // {} | keys_unsorted[] | ascii_downcase"
    assert role["specDefinition"] == {"podTemplateSpecPath": ".spec.roleSpecs[]?.template"}
    assert role["scaleDefinition"]["replicasPath"] == ".spec.roleSpecs[]? | (.replicas // 1)"
    assert role["podSelector"]["componentInstanceSelector"] == {"idPath": '.metadata.labels["example.com/role"]'}
    assert result.todos == []
    root = result.karta["spec"]["structureDefinition"]["rootComponent"]
    assert root["suspendDefinition"]["suspendActions"] == [{"path": ".spec.suspend", "value": "true"}]
    mappings = root["statusDefinition"]["statusMappings"]
    assert mappings["running"] == [{"byConditions": [{"type": "Running", "status": "True"}]}]
    assert mappings["completed"] == [{"byConditions": [{"type": "Succeeded", "status": "True"}]}]
    assert mappings["suspended"] == [{"byConditions": [{"type": "Suspended", "status": "True"}]}]
    # the evidence is in the text, next to each guess
    assert (
        "# [high] a PodTemplateSpec (metadata + spec.containers) at .spec.roleSpecs{}.template (schema)" in result.text
    )
    assert "label example.com/role='leader' is its instance id lower-cased" in result.text
    # several roles of a kind that finishes (a Succeeded condition): one gang per object
    groups = result.karta["spec"]["optimizationInstructions"]["gangScheduling"]["podGroups"]
    assert groups == [{"name": "trainrun", "members": [{"componentName": "trainrun", "groupByKeyPaths": []}]}]
    (sample,) = _run(_load(result.text), objects)
    assert sample.verdict == "PASS", sample.checks
    assert sample.pods == {"role": (4, 4)}
    assert sample.tree is not None and sample.tree["unattributed"] == []
    instances = {
        i["id"]: i["desiredPods"] for c in sample.tree["components"] for i in c["instances"] if c["name"] == "role"
    }
    assert instances == {"leader": 1, "worker": 3}


def test_without_pods_the_selectors_are_todos_that_validate_reports() -> None:
    result = draft(fixtures.TRAINRUN, _samples([fixtures.trainrun()]))
    assert [t.split(":")[0] for t in result.todos] == [
        "spec.structureDefinition.childComponents[0].podSelector.componentInstanceSelector.idPath"
    ]
    definition = _load(result.text)
    warnings = [f for f in validate(definition.karta) if "left to do" in f.message]
    assert [str(f.location) for f in warnings] == [
        "spec.structureDefinition.childComponents[0].podSelector.componentInstanceSelector.idPath"
    ]
    # the structure is right without pods: desired pods per instance come from the object alone
    (sample,) = _run(definition, [fixtures.trainrun()])
    assert sample.pods == {"role": (4, 0)}


def test_a_list_of_groups_with_hosts_min_max_and_an_intermediate_owner() -> None:
    objects = fixtures.fleet_objects()
    result = draft(fixtures.CLUSTER, _samples(objects))
    group = _child(result, "group")
    assert group["instanceIdPath"] == ".spec.groups[]? | .name"
    assert group["kind"] == {"group": "apps", "version": "v1", "kind": "StatefulSet"}
    scale = group["scaleDefinition"]
    assert scale["replicasPath"] == ".spec.groups[]? | (.replicas // 1) * (.numOfHosts // 1)"
    assert scale["minReplicasPath"] == ".spec.groups[]? | ((.minReplicas // .replicas // 1) * (.numOfHosts // 1))"
    assert group["podSelector"] == {
        "componentTypeSelector": {"keyPath": '.metadata.labels["example.com/node"]', "value": "worker"},
        "componentInstanceSelector": {"idPath": '.metadata.labels["example.com/group"]'},
        "replicaSelector": {"keyPath": '.metadata.labels["example.com/replica"]'},
    }
    head = _child(result, "head")
    assert head["podSelector"] == {
        "componentTypeSelector": {"keyPath": '.metadata.labels["example.com/node"]', "value": "head"}
    }
    assert "scaleDefinition" not in head
    root = result.karta["spec"]["structureDefinition"]["rootComponent"]
    assert root["statusDefinition"]["phaseDefinition"] == {"path": '.status.phase // ""'}
    assert {"byPhase": "Ready"} in root["statusDefinition"]["statusMappings"]["running"]
    assert {"byPhase": "Stopped"} in root["statusDefinition"]["statusMappings"]["suspended"]
    # a long-running cluster (autoscaling bounds, nothing that finishes): never a gang
    assert "optimizationInstructions" not in result.karta["spec"]
    (sample,) = _run(_load(result.text), objects)
    assert sample.pods == {"head": (1, 1), "group": (6, 6)}
    assert sample.tree is not None and sample.tree["unattributed"] == []
    assert sample.tree["status"]["primary"] == "Running"
    (big,) = [i for c in sample.tree["components"] if c["name"] == "group" for i in c["instances"] if i["id"] == "big"]
    assert sorted((g["key"], len(g["pods"])) for g in big["replicaGroups"]) == [("big-0", 2), ("big-1", 2)]


def test_a_bare_pod_spec_on_the_root_and_a_ready_count_for_status() -> None:
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "Server",
        "metadata": {"name": "s", "namespace": "ml"},
        "spec": {"replicas": 2, "podSpec": {"containers": [fixtures.container("srv")]}},
        "status": {"readyReplicas": 2},
    }
    result = draft(fixtures.SERVER, _samples([obj]))
    root = result.karta["spec"]["structureDefinition"]["rootComponent"]
    assert root["specDefinition"] == {"podSpecPath": ".spec.podSpec"}
    assert "childComponents" not in result.karta["spec"]["structureDefinition"]
    assert "optimizationInstructions" not in result.karta["spec"]  # one template with replicas: no gang
    # nothing says it finishes (no Succeeded/Complete word): a long-running kind, no completed TODO; the
    # ready count is its running status, failure is left to the reviewer
    assert [t.split(":")[0].split(".")[-1] for t in result.todos] == ["failed"]
    running = root["statusDefinition"]["statusMappings"]["running"]
    assert running == [{"byExpression": {"expression": "(.status.readyReplicas // 0) > 0", "expectedResult": "true"}}]
    (sample,) = _run(_load(result.text), [obj])
    assert sample.tree is not None and sample.tree["status"]["primary"] == "Running"
    obj["status"] = {"readyReplicas": 0}
    (sample,) = _run(_load(result.text), [obj])
    assert sample.tree is not None and sample.tree["status"]["primary"] == "Initializing"


def test_untyped_specs_are_read_from_the_samples() -> None:
    untyped = fixtures.crd("example.com", "Flow", {}, None)
    untyped["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"] = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
    }
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "Flow",
        "metadata": {"name": "f", "namespace": "ml"},
        "spec": {
            "steps": [
                {"name": "a", "container": fixtures.container("a")},
                {"name": "b", "container": fixtures.container("b")},
            ]
        },
        "status": {"phase": "Succeeded"},
    }
    result = draft(untyped, _samples([obj]))
    step = _child(result, "step")
    assert step["instanceIdPath"] == ".spec.steps[]? | .name"
    assert step["specDefinition"] == {"fragmentedPodSpecDefinition": {"containerPath": ".spec.steps[]?.container"}}
    assert "x-kubernetes-preserve-unknown-fields" in result.text
    (sample,) = _run(_load(result.text), [obj])
    assert sample.pods == {"step": (2, 0)}
    assert sample.tree is not None and sample.tree["status"]["primary"] == "Completed"


def test_words_of_condition_types_and_phases() -> None:
    assert classify("PyTorchJobRunning") == ("running", "medium") or classify("PyTorchJobRunning") == (
        "running",
        "high",
    )
    assert classify("Succeeded") == ("completed", "high")
    assert classify("DEPLOYED_NOT_READY") == ("initializing", "low")
    assert classify("RayClusterSuspending") is not None and classify("RayClusterSuspending")[0] == "suspending"  # type: ignore[index]
    assert classify("Provisioned") is None


def test_the_public_function_reads_files(tmp_path: Any) -> None:
    crd_file = tmp_path / "crd.yaml"
    crd_file.write_text(yaml.safe_dump(fixtures.TRAINRUN))
    sample_file = tmp_path / "samples.yaml"
    run = fixtures.trainrun()
    sample_file.write_text(yaml.safe_dump_all([run, *fixtures.trainrun_pods(run)]))
    result = wm.draft_definition(str(crd_file), [str(sample_file)])
    assert result.todos == [] and result.pods == 4 and result.samples == 1
    assert f"from {crd_file}, {sample_file}" in result.text


def test_a_base_template_merged_into_the_roles_is_not_a_role() -> None:
    role = {"type": "object", "properties": {"replicas": {"type": "integer"}, "podTemplate": fixtures.TEMPLATE}}
    crd = fixtures.crd(
        "example.com",
        "Stream",
        {"podTemplate": fixtures.TEMPLATE, "manager": role, "worker": role},
    )
    result = draft(crd, [])
    names = [c["name"] for c in result.karta["spec"]["structureDefinition"]["childComponents"]]
    assert names == ["manager", "worker"]
    assert "# [low] .spec.podTemplate (schema) is taken as the base template" in result.text


def _hostile(versions: Any) -> dict[str, Any]:
    return {
        "kind": "CustomResourceDefinition",
        "spec": {"group": "a.example", "names": {"kind": "X"}, "versions": versions},
    }


def _version(schema: Any) -> list[dict[str, Any]]:
    return [{"name": "v1", "storage": True, "schema": {"openAPIV3Schema": schema}}]


@pytest.mark.parametrize(
    "crd",
    [
        {"kind": "CustomResourceDefinition", "spec": []},
        _hostile("v1"),
        _hostile(["v1", None]),
        _hostile([{"name": "v1", "schema": "x"}]),
        _hostile(_version({"properties": [1, 2]})),
        _hostile(_version({"properties": {"spec": {"properties": {"containers": {"type": "array", "items": "x"}}}}})),
        _hostile(
            _version(
                {
                    "properties": {
                        "status": {
                            "properties": {"conditions": {"type": "array", "items": {"properties": {"type": "string"}}}}
                        }
                    }
                }
            )
        ),
        _hostile(
            _version(
                {"properties": {"spec": {"properties": {"a": {"additionalProperties": True, "items": [1], "enum": 3}}}}}
            )
        ),
        _hostile(
            _version(
                {"properties": {"spec": {"type": "object", "properties": {"suspend": {"type": "string", "enum": "x"}}}}}
            )
        ),
    ],
)
def test_a_hostile_crd_drafts_or_says_why(crd: dict[str, Any]) -> None:
    objects = [
        {"apiVersion": "a.example/v1", "kind": "X", "metadata": "x", "spec": [1], "status": "y"},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": ["a"], "ownerReferences": "x"}, "spec": "x"},
    ]
    try:
        result = draft(crd, _samples(objects))
    except ValueError as exc:
        assert str(exc)  # the API turns it into a located WorkloadMapError
        return
    _load(result.text)


def test_container_lists_side_by_side_are_one_pod() -> None:
    crd = fixtures.crd("example.com", "Run", {"steps": fixtures.CONTAINERS, "sidecars": fixtures.CONTAINERS})
    result = draft(crd, [])
    (component,) = result.karta["spec"]["structureDefinition"]["childComponents"]
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {"containersPath": ".spec.steps"}}
    assert "[low] .spec.sidecars (schema) holds more containers of the same pod (beside .spec.steps)" in result.text


def test_the_admission_webhook_admits_a_draft_and_relays_its_todos() -> None:
    result = draft(fixtures.TRAINRUN, _samples([fixtures.trainrun()]))
    request = {"uid": "1", "operation": "CREATE", "object": yaml.safe_load(result.text)}
    answer = validate_karta(request, list)
    assert answer["allowed"] is True
    assert answer["warnings"] == [
        "spec.structureDefinition.childComponents[0].podSelector.componentInstanceSelector.idPath: left to do "
        "(drafted by wmap definitions new): the pod label that names this pod's instance (no sample pod shows it)"
    ]


def test_sentences_are_read_by_their_leading_word_and_failed_actions_are_degraded() -> None:
    # An identifier's state is its suffix; a sentence's, its leading verb or adjective.
    assert classify("Waiting for the pods to become active") == ("initializing", "low")
    assert classify("Store in healthy state") == ("running", "medium")
    assert classify("Failing over") == ("degraded", "medium")
    assert classify("Store is unrecoverable and needs a human") == ("failed", "medium")
    # "FailedScale": a scale-up failed, the object is still there; "ScaleFailed" and "Failed" failed.
    assert classify("FailedScale") == ("degraded", "low")
    assert classify("ScaleFailed") == ("failed", "high")
    assert classify("Failed") == ("failed", "high")
    assert classify("SUBMITTED") == ("initializing", "high")
    assert classify("Progressing") == ("initializing", "high")
