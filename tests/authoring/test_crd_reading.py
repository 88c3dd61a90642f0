"""What the CRD says beyond pod templates: printer columns, descriptions, open templates, counts without a
template, catalog kinds the operator creates, inverse and mode suspend switches, gangs, unplaced values."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from workload_map.authoring import Draft, Sample, draft
from workload_map.catalog import builtin_definitions
from workload_map.checks.samples import run_samples
from workload_map.definition.loader import LoadedDefinition, definition_from_dict
from workload_map.definition.validate import validate
from workload_map.errors import Location, Severity
from workload_map.jq import compile_expression
from workload_map.sources.documents import Document

from . import fixtures


def _load(result: Draft) -> LoadedDefinition:
    karta, findings = definition_from_dict(yaml.safe_load(result.text), Location("draft"))
    assert karta is not None, [str(f) for f in findings]
    assert [str(f) for f in validate(karta) if f.severity is Severity.ERROR] == []
    return LoadedDefinition(karta, Location("draft"))


def _root(result: Draft) -> dict[str, Any]:
    root: dict[str, Any] = result.karta["spec"]["structureDefinition"]["rootComponent"]
    return root


def _children(result: Draft) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in result.karta["spec"]["structureDefinition"].get("childComponents", [])}


def _with_columns(crd: dict[str, Any], columns: list[dict[str, Any]]) -> dict[str, Any]:
    crd["spec"]["versions"][1]["additionalPrinterColumns"] = columns
    return crd


def test_printer_columns_give_condition_types_phases_and_ready_counts() -> None:
    crd = _with_columns(
        fixtures.crd("example.com", "Box", {"podSpec": fixtures.POD_SPEC}, {}),
        [
            {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
            {"name": "Up", "type": "integer", "jsonPath": ".status.readyReplicas"},
        ],
    )
    result = draft(crd, [])
    mappings = _root(result)["statusDefinition"]["statusMappings"]
    assert {"byConditions": [{"type": "Ready", "status": "True"}]} in mappings["running"]
    assert {"byExpression": {"expression": "(.status.readyReplicas // 0) > 0", "expectedResult": "true"}} in mappings[
        "running"
    ]
    assert "condition Ready=True (the printer column 'Ready' shows it)" in result.text
    _load(result)


def test_an_open_template_and_a_count_named_only_by_its_description() -> None:
    crd = fixtures.crd(
        "example.com",
        "Pool",
        {
            "template": {
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": True,
                "description": "Template describes the pods that will be created.",
            },
            "nodeCount": {"type": "integer", "description": "NodeCount is the number of pods the pool runs."},
        },
    )
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "Pool",
        "metadata": {"name": "p", "namespace": "ml"},
        "spec": {"nodeCount": 3, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {}}},
    }
    result = draft(crd, [Sample(obj, "pool.yaml#0")])
    root = _root(result)
    assert root["specDefinition"] == {"podTemplateSpecPath": ".spec.template"}
    assert root["scaleDefinition"]["replicasPath"] == "(.spec.nodeCount // 1)"
    assert "its description says so" in result.text
    (sample,) = run_samples(_load(result), [Document(obj, Location("pool.yaml"))])
    assert sample.tree is not None
    assert [i["desiredPods"] for c in sample.tree["components"] for i in c["instances"]] == [3]


def test_a_count_without_any_pod_definition_still_counts_the_pods() -> None:
    crd = fixtures.crd("example.com", "Machine", {"replicas": {"type": "integer"}, "image": {"type": "string"}})
    result = draft(crd, [])
    root = _root(result)
    assert root["scaleDefinition"] == {"replicasPath": ".spec.replicas // 1"}
    assert result.todos[0].split(":")[0].endswith("specDefinition.podTemplateSpecPath")
    _load(result)


def test_a_count_of_the_members_of_a_replica_set_counts_the_pods() -> None:
    crd = fixtures.crd(
        "example.com",
        "Replicated",
        {
            "members": {"type": "integer", "description": "Members is the number of members in the replica set."},
            "witnesses": {"type": "integer", "description": "Witnesses is the number of witnesses to add."},
        },
    )
    root = _root(draft(crd, []))
    assert root["scaleDefinition"] == {"replicasPath": ".spec.members // 1"}


def test_an_embedded_deployment_spec_is_a_deployment_child() -> None:
    server = {
        "type": "object",
        "properties": {
            "selector": {"type": "object"},
            "strategy": {"type": "object"},
            "replicas": {"type": "integer"},
            "template": fixtures.TEMPLATE,
        },
    }
    result = draft(fixtures.crd("example.com", "Api", {"server": server}), [])
    (child,) = _children(result).values()
    assert child["kind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert child["specDefinition"] == {"podTemplateSpecPath": ".spec.server.template"}
    assert child["scaleDefinition"]["replicasPath"] == "(.spec.server.replicas // 1)"
    assert "optimizationInstructions" not in result.karta["spec"]  # a service: no gang
    _load(result)


def test_an_embedded_catalog_kind_spec_is_the_child_the_operator_creates() -> None:
    group = {
        "type": "object",
        "properties": {"groupName": {"type": "string"}, "replicas": {"type": "integer"}, "template": fixtures.TEMPLATE},
        "required": ["groupName"],
    }
    cluster = {
        "type": "object",
        "properties": {
            "headGroupSpec": {"type": "object", "properties": {"template": fixtures.TEMPLATE}},
            "workerGroupSpecs": {"type": "array", "items": group},
        },
    }
    crd = fixtures.crd("example.com", "Tune", {"clusterSpec": cluster})
    result = draft(crd, [], catalog=builtin_definitions())
    children = _children(result)
    assert children["raycluster"]["kind"]["kind"] == "RayCluster"
    assert children["raycluster"]["ownerRef"] == "tune"
    assert {c["ownerRef"] for n, c in children.items() if n != "raycluster"} == {"raycluster"}
    assert {c["kind"]["kind"] for n, c in children.items() if n != "raycluster"} == {"Pod"}
    _load(result)


def test_a_catalog_kind_owned_by_a_sample_is_proposed_as_a_child() -> None:
    crd = fixtures.crd("example.com", "Pipeline", {"image": {"type": "string"}})
    root = {
        "apiVersion": "example.com/v1",
        "kind": "Pipeline",
        "metadata": {"name": "p", "namespace": "ml", "uid": "uid-p"},
        "spec": {"image": "x"},
    }
    owned = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {
            "name": "p-run",
            "namespace": "ml",
            "ownerReferences": [{"apiVersion": "example.com/v1", "kind": "Pipeline", "name": "p", "uid": "uid-p"}],
        },
    }
    result = draft(crd, [Sample(root, "a#0"), Sample(owned, "a#1")], catalog=builtin_definitions())
    (child,) = _children(result).values()
    assert child["kind"] == {"group": "jobset.x-k8s.io", "version": "v1alpha2", "kind": "JobSet"}
    assert "specDefinition" not in _root(result)  # the JobSet makes the pods: no template gap on the root
    _load(result)


def test_inverse_booleans_and_operating_modes_suspend() -> None:
    started = fixtures.crd(
        "example.com",
        "Workspace",
        {
            "started": {"type": "boolean"},
            "autoscaling": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
        },
    )
    suspend = _root(draft(started, []))["suspendDefinition"]
    assert suspend == {
        "suspendActions": [{"path": ".spec.started", "value": "false"}],
        "resumeActions": [{"path": ".spec.started", "value": "true"}],
    }
    mode = fixtures.crd(
        "example.com",
        "Machine",
        {
            "runStrategy": {
                "type": "string",
                "enum": ["Always", "RerunOnFailure", "Halted", "Manual"],
                "default": "Always",
            }
        },
    )
    result = draft(mode, [])
    assert _root(result)["suspendDefinition"] == {
        "suspendActions": [{"path": ".spec.runStrategy", "value": '"Halted"'}],
        "resumeActions": [{"path": ".spec.runStrategy", "value": '"Always"'}],
    }
    assert "an operating mode" in result.text
    nested = fixtures.crd(
        "example.com", "Svc", {"autoscaling": {"type": "object", "properties": {"enabled": {"type": "boolean"}}}}
    )
    assert "suspendDefinition" not in _root(draft(nested, []))


def test_no_gang_without_pods_and_values_no_word_places_are_listed() -> None:
    crd = fixtures.crd(
        "example.com",
        "Thing",
        {"completions": {"type": "integer"}},
        {"phase": {"type": "string", "enum": ["Provisioned", "Running", "Succeeded", "Wobbly"]}},
    )
    result = draft(crd, [])
    assert "optimizationInstructions" not in result.karta["spec"]
    assert "2 value(s) the draft could not place" in result.text
    assert "phase 'Provisioned' (enumerated in the schema at .status.phase)" in result.text
    failed = [t for t in result.todos if ".failed" in t.split(":")[0]]
    assert failed and "Values not placed yet: phase 'Provisioned', phase 'Wobbly'." in failed[0]


def test_a_deployment_shaped_spec_rolls_out_through_replicasets_and_its_paused_is_no_suspend() -> None:
    crd = fixtures.crd(
        "example.com",
        "Canary",
        {
            "replicas": {"type": "integer"},
            "selector": {"type": "object"},
            "strategy": {"type": "object", "properties": {"rollingUpdate": {"type": "object"}}},
            "paused": {"type": "boolean"},
            "template": fixtures.TEMPLATE,
        },
    )
    result = draft(crd, [])
    structure = result.karta["spec"]["structureDefinition"]
    assert structure["additionalChildKinds"] == [{"group": "apps", "version": "v1", "kind": "ReplicaSet"}]
    assert "suspendDefinition" not in structure["rootComponent"]
    update = fixtures.crd(
        "example.com",
        "Set",
        {
            "updateStrategy": {"type": "object", "properties": {"paused": {"type": "boolean"}}},
            "template": fixtures.TEMPLATE,
        },
    )
    assert "suspendDefinition" not in _root(draft(update, []))
    _load(result)


def test_fields_at_the_top_an_open_pod_spec_and_image_objects() -> None:
    open_spec = {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "description": "PodSpec is a pod."}
    component = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "image": {"type": "object", "properties": {"imageName": {"type": "string"}}},
        },
    }
    crd = fixtures.crd("example.com", "Box", {})
    crd["spec"]["versions"][1]["schema"]["openAPIV3Schema"] = {
        "type": "object",
        "properties": {
            "metadata": {"type": "object"},
            "serving": {
                "type": "object",
                "properties": {
                    "template": {"type": "object", "properties": {"metadata": {"type": "object"}, "spec": open_spec}},
                    "components": {"type": "array", "items": component},
                },
            },
        },
    }
    result = draft(crd, [])
    root = _root(result)
    # no .spec: the top-level object holds the template; the open spec makes its parent the template; an
    # `image` that is an object is no container image (no container list at .serving.components)
    assert root["specDefinition"] == {"podTemplateSpecPath": ".serving.template"}
    assert "childComponents" not in result.karta["spec"]["structureDefinition"]
    _load(result)


def test_a_rollout_kind_paused_or_complete_still_serves() -> None:
    crd = fixtures.crd(
        "example.com",
        "Canary",
        {
            "replicas": {"type": "integer"},
            "selector": {"type": "object"},
            "strategy": {"type": "object", "properties": {"rollingUpdate": {"type": "object"}}},
            "template": fixtures.TEMPLATE,
        },
        {"phase": {"type": "string", "enum": ["Healthy", "Paused", "Degraded"]}, **fixtures.CONDITIONS},
    )
    mappings = _root(draft(crd, []))["statusDefinition"]["statusMappings"]
    assert {"byPhase": "Paused"} in mappings["running"]
    assert {"byConditions": [{"type": "Succeeded", "status": "True"}]} in mappings["running"]
    assert "suspended" not in mappings or {"byPhase": "Paused"} not in mappings["suspended"]
    assert {"byConditions": [{"type": "Succeeded", "status": "False"}]} not in mappings["failed"]
    # The same words on a kind that runs to completion keep their meaning.
    job = fixtures.crd(
        "example.com", "Batch", {"template": fixtures.TEMPLATE}, {"phase": {"type": "string", "enum": ["Paused"]}}
    )
    assert {"byPhase": "Paused"} in _root(draft(job, []))["statusDefinition"]["statusMappings"]["suspended"]


def test_init_containers_sidecars_beside_a_template_and_string_maps_are_no_pods() -> None:
    role = {
        "type": "object",
        "properties": {
            "initContainers": fixtures.CONTAINERS,
            "sidecars": fixtures.CONTAINERS,
            "template": fixtures.TEMPLATE,
            "cores": {"type": "integer"},
        },
    }
    selector = {
        "type": "object",
        "additionalProperties": {"type": "string"},
        "description": "Node selector added to the driver's pods, exclusive with the one at podSpec level.",
    }
    crd = fixtures.crd("example.com", "Spark", {"driver": role, "nodeSelector": selector})
    children = draft(crd, []).karta["spec"]["structureDefinition"].get("childComponents", [])
    root = _root(draft(crd, []))
    templates = [c["specDefinition"] for c in [root, *children] if "specDefinition" in c]
    assert templates == [{"podTemplateSpecPath": ".spec.driver.template"}]
    sample = {
        "apiVersion": "example.com/v1",
        "kind": "Spark",
        "metadata": {"name": "s"},
        "spec": {"driver": {"initContainers": [{"name": "fetch", "image": "busybox"}]}},
    }
    untyped = fixtures.crd(
        "example.com", "Spark", {"driver": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    )
    made = draft(untyped, [Sample(sample, "s.yaml")])
    assert ".spec.driver.initContainers" not in made.text


def test_a_bare_job_spec_below_the_spec_is_a_job_child_and_its_suspend_is_the_jobs() -> None:
    job_spec = {
        "type": "object",
        "properties": {
            "template": fixtures.TEMPLATE,
            "parallelism": {"type": "integer"},
            "completions": {"type": "integer"},
            "backoffLimit": {"type": "integer"},
            "suspend": {"type": "boolean"},
        },
    }
    crd = fixtures.crd("example.com", "Scaler", {"jobTarget": job_spec, "pollingInterval": {"type": "integer"}})
    made = draft(crd, [], catalog=builtin_definitions())
    child = made.karta["spec"]["structureDefinition"]["childComponents"][0]
    assert child["kind"] == {"group": "batch", "version": "v1", "kind": "Job"}
    assert child["name"] == "jobTarget"
    assert child["specDefinition"] == {"podTemplateSpecPath": ".spec.jobTarget.template"}
    assert "| {spec: .} |" in child["scaleDefinition"]["replicasPath"]
    assert "suspendDefinition" not in _root(made)
    _load(made)
    replicas = compile_expression(child["scaleDefinition"]["replicasPath"])
    assert replicas.first({"spec": {"jobTarget": {"parallelism": 3, "completions": 2}}}) == 2
    assert replicas.first({"spec": {"jobTarget": {"parallelism": 3}}}) == 3
    # The root's own spec of that shape is the kind's own: its pods are the root's, its suspend the root's.
    own = fixtures.crd("example.com", "Batch", job_spec["properties"])
    assert _root(draft(own, []))["suspendDefinition"]["suspendActions"][0]["path"] == ".spec.suspend"


def test_a_pause_annotation_the_schema_describes_is_the_suspend_when_no_field_is() -> None:
    crd = fixtures.crd("example.com", "Scaler", {"template": fixtures.TEMPLATE, "cooldown": {"type": "integer"}})
    crd["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["description"] = (
        "Scaler scales a pod. Set the annotation scaling.example.com/paused-count to hold a count, or "
        "`scaling.example.com/paused` to pause it."
    )
    suspend = _root(draft(crd, []))["suspendDefinition"]
    assert suspend == {
        "suspendActions": [{"path": '.metadata.annotations["scaling.example.com/paused"]', "value": '"true"'}],
        "resumeActions": [{"path": '.metadata.annotations["scaling.example.com/paused"]', "value": '"false"'}],
    }
    # A field switch comes first; a description that names no annotation gives none.
    crd["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["suspend"] = {
        "type": "boolean"
    }
    assert _root(draft(crd, []))["suspendDefinition"]["suspendActions"][0]["path"] == ".spec.suspend"
    plain = fixtures.crd("example.com", "Scaler", {"template": fixtures.TEMPLATE})
    plain["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["description"] = "see example.com/paused"
    assert "suspendDefinition" not in _root(draft(plain, []))


def test_paused_beside_a_template_and_its_update_strategy_is_no_suspend() -> None:
    crd = fixtures.crd(
        "example.com",
        "Fleet",
        {
            "template": fixtures.TEMPLATE,
            "updateStrategy": {"type": "object"},
            "paused": {"type": "boolean"},
        },
    )
    assert "suspendDefinition" not in _root(draft(crd, []))


def test_a_suspend_under_a_schedule_stops_the_next_runs_and_is_no_suspend() -> None:
    cron = {"type": "object", "properties": {"schedule": {"type": "string"}, "suspend": {"type": "boolean"}}}
    crd = fixtures.crd("example.com", "Batch", {"template": fixtures.TEMPLATE, "cronPolicy": cron})
    assert "suspendDefinition" not in _root(draft(crd, []))
    crd = fixtures.crd(
        "example.com", "Batch", {"template": fixtures.TEMPLATE, "cronPolicy": cron, "suspend": {"type": "boolean"}}
    )
    assert _root(draft(crd, []))["suspendDefinition"]["suspendActions"] == [{"path": ".spec.suspend", "value": "true"}]


@pytest.mark.parametrize(
    ("description", "suspends"),
    [
        ("Suspend disables the reconciliation, so the operator does not interfere during maintenance.", False),
        ("Suspend pauses reconciliation of owned resources like deployments and services.", False),
        ("Suspend stops the reconciliation and deletes the pods; false creates them again.", True),
        ("Suspend whether the controller should create pods or not.", True),
    ],
)
def test_a_switch_that_only_pauses_the_reconcile_is_no_suspend(description: str, suspends: bool) -> None:
    switch = {"type": "boolean", "description": description}
    crd = fixtures.crd("example.com", "Store", {"template": fixtures.TEMPLATE, "suspend": switch})
    assert ("suspendDefinition" in _root(draft(crd, []))) is suspends


def test_a_stop_switch_spelt_as_strings_stops_on_its_yes() -> None:
    stop = {"type": "string", "enum": ["", "0", "1", "false", "true", "no", "yes", "off", "on"]}
    crd = fixtures.crd("example.com", "Store", {"template": fixtures.TEMPLATE, "stop": stop})
    suspend = _root(draft(crd, []))["suspendDefinition"]
    assert suspend["suspendActions"] == [{"path": ".spec.stop", "value": '"1"'}]
    assert suspend["resumeActions"] == [{"path": ".spec.stop", "value": '"0"'}]


def test_groups_times_their_size_count_the_pods() -> None:
    group = {"type": "object", "properties": {"size": {"type": "integer"}, "template": fixtures.TEMPLATE}}
    crew = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "replicas": {"type": "integer"}, "gang": group},
    }
    crd = fixtures.crd("example.com", "Crew", {"crews": {"type": "array", "items": crew}})
    gang = _children(draft(crd, []))["gang"]
    # (a crew without a gang runs none of its pods: test_counts.py)
    assert gang["scaleDefinition"]["replicasPath"] == (
        ".spec.crews[]? | (if .gang == null then 0 else 1 end) * (.replicas // 1) * (.gang.size // 1)"
    )
    # A size alone is the count.
    # Beside another optional object holding pods, only the items that set it count: 0 for the others.
    solo = {"type": "object", "properties": {"template": fixtures.TEMPLATE}}
    crew["properties"]["solo"] = solo
    crd = fixtures.crd("example.com", "Crew", {"crews": {"type": "array", "items": crew}})
    gang = _children(draft(crd, []))["gang"]
    assert gang["scaleDefinition"]["replicasPath"] == (
        ".spec.crews[]? | if .gang then (.replicas // 1) * (.gang.size // 1) else 0 end"
    )
    alone = fixtures.crd("example.com", "Crew", {"crews": {"type": "array", "items": group}})
    (only,) = _children(draft(alone, [])).values()
    assert only["scaleDefinition"]["replicasPath"] == ".spec.crews[]? | (.size // 1)"


def test_instances_beside_a_template_count_its_pods() -> None:
    role = {"type": "object", "properties": {"template": fixtures.TEMPLATE, "instances": {"type": "integer"}}}
    crd = fixtures.crd(
        "example.com",
        "Spark",
        {"driver": {"type": "object", "properties": {"template": fixtures.TEMPLATE}}, "executor": role},
    )
    executor = _children(draft(crd, []))["executor"]
    assert ".instances" in executor["scaleDefinition"]["replicasPath"]
