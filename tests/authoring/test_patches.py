"""Fields shaped like pods that are not a pod of their own (patches.py): extra containers alone in their
object, and a pod template under an override of the workload the operator builds. Our own small CRDs."""

from __future__ import annotations

import json
from typing import Any

from tests.authoring import fixtures

from workload_map.authoring import Sample, draft
from workload_map.authoring.evidence import TODO_MARK


def _components(crd: dict[str, Any]) -> list[dict[str, Any]]:
    structure = draft(crd).karta["spec"]["structureDefinition"]
    return [c for c in [structure["rootComponent"], *structure.get("childComponents", [])] if "specDefinition" in c]


def test_extra_containers_alone_in_their_object_are_no_pod() -> None:
    options = {
        "type": "object",
        "properties": {"sidecarContainers": fixtures.CONTAINERS, "priority": {"type": "string"}},
    }
    crd = fixtures.crd(
        "example.com",
        "Collector",
        {"replicas": {"type": "integer"}, "additionalContainers": fixtures.CONTAINERS, "podOptions": options},
    )
    made = draft(crd)
    (root,) = _components(crd)  # the pods are left one gap on the root: where they come from is not said
    assert TODO_MARK in root["specDefinition"]["podTemplateSpecPath"]
    assert ".spec.additionalContainers (schema) is named as extra containers" in made.text
    assert ".spec.podOptions.sidecarContainers (schema) is named as extra containers" in made.text


def test_a_container_list_of_a_plain_name_is_still_a_pod() -> None:
    crd = fixtures.crd("example.com", "Runner", {"workers": fixtures.CONTAINERS})
    (component,) = _components(crd)
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {"containersPath": ".spec.workers"}}


def test_sidecars_beside_the_main_containers_still_join_them() -> None:
    crd = fixtures.crd("example.com", "Run", {"steps": fixtures.CONTAINERS, "sidecars": fixtures.CONTAINERS})
    (component,) = _components(crd)
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {"containersPath": ".spec.steps"}}


def test_a_template_under_an_override_is_the_built_workloads_patch() -> None:
    statefulset_spec = {
        "type": "object",
        "properties": {
            "replicas": {"type": "integer"},
            "selector": {"type": "object"},
            "serviceName": {"type": "string"},
            "template": fixtures.TEMPLATE,
        },
    }
    override = {
        "type": "object",
        "properties": {"statefulSet": {"type": "object", "properties": {"spec": statefulset_spec}}},
    }
    crd = fixtures.crd("example.com", "Broker", {"replicas": {"type": "integer"}, "override": override})
    made = draft(crd)
    (component,) = _components(crd)
    assert component["kind"]["kind"] == "StatefulSet"
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    assert ".spec.override.statefulSet.spec.template (schema) sits under .spec.override: a patch" in made.text
    assert not [todo for todo in made.todos if "specDefinition" in todo]


def test_a_pod_spec_named_as_extra_is_merged_into_the_operators_pod() -> None:
    crd = fixtures.crd("example.com", "Service", {"replicas": {"type": "integer"}, "extraPodSpec": fixtures.POD_SPEC})
    made = draft(crd)
    (component,) = _components(crd)
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    assert ".spec.replicas" in component["scaleDefinition"]["replicasPath"]
    assert ".spec.extraPodSpec (schema) is named as an extra part (extraPodSpec):" in made.text


def test_a_template_described_as_merged_over_the_operators_pod_is_no_path() -> None:
    described = dict(
        fixtures.TEMPLATE,
        description="Pod settings, merged over the pod the operator generates with a strategic merge patch.",
    )
    crd = fixtures.crd("example.com", "Gateway", {"replicas": {"type": "integer"}, "template": described})
    made = draft(crd)
    (component,) = _components(crd)
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    assert "(schema) is described as merged ('merged over'):" in made.text


def test_a_template_described_plainly_is_still_the_pods_definition() -> None:
    described = dict(fixtures.TEMPLATE, description="Template describes the pods that will be created.")
    crd = fixtures.crd("example.com", "Gateway", {"replicas": {"type": "integer"}, "template": described})
    (component,) = _components(crd)
    assert component["specDefinition"] == {"podTemplateSpecPath": ".spec.template"}


def test_a_list_of_workloads_with_an_image_and_a_count_is_no_container_list() -> None:
    """Items with a name, an image and replicas: workloads the operator builds (a compute group each), not
    the containers of one pod; the schema's and the samples' alike."""
    group = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "image": {"type": "string"}, "replicas": {"type": "integer"}},
    }
    typed = fixtures.crd("example.com", "Warehouse", {"groups": {"type": "array", "items": group}})
    (root,) = _components(typed)  # no pod definition in the object: where the pods come from is a gap
    assert TODO_MARK in root["specDefinition"]["podTemplateSpecPath"]
    (root,) = _components(fixtures.crd("example.com", "Warehouse", {"groups": fixtures.CONTAINERS}))
    assert root["specDefinition"] == {"fragmentedPodSpecDefinition": {"containersPath": ".spec.groups"}}
    open_spec = fixtures.crd("example.com", "Warehouse", {})
    open_spec["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"] = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
    }
    sample = {
        "apiVersion": "example.com/v1",
        "kind": "Warehouse",
        "metadata": {"name": "w"},
        "spec": {"groups": [{"name": "cg1", "image": "example/warehouse:1", "replicas": 3}]},
    }
    structure = draft(open_spec, [Sample(sample, "w.yaml#0")]).karta["spec"]["structureDefinition"]
    assert "childComponents" not in structure
    assert ".spec.groups" not in json.dumps(structure["rootComponent"].get("specDefinition"))
    sample["spec"]["groups"][0].pop("replicas")
    structure = draft(open_spec, [Sample(sample, "w.yaml#0")]).karta["spec"]["structureDefinition"]
    assert ".spec.groups" in json.dumps(structure)


def _wrapper(template: dict[str, Any]) -> dict[str, Any]:
    item = {"type": "object", "properties": {"replicas": {"type": "integer"}, "template": template}}
    return fixtures.crd("example.com", "Bundle", {"parts": {"type": "array", "items": item}})


def test_an_open_template_that_is_a_whole_embedded_resource_reads_no_pod() -> None:
    """A wrapped object of any kind (apiVersion, kind, metadata) is no pod template: its pods sit inside it."""
    embedded = {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}
    crd = _wrapper(embedded)
    (component,) = _components(crd)
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    assert component["scaleDefinition"] == {"replicasPath": ".spec.parts[]? | (.replicas // 1)"}
    assert "is a whole object of any kind (x-kubernetes-embedded-resource)" in draft(crd).text


def test_an_open_template_not_marked_as_a_resource_is_still_the_pods() -> None:
    (component,) = _components(_wrapper({"type": "object", "x-kubernetes-preserve-unknown-fields": True}))
    assert component["specDefinition"] == {"podTemplateSpecPath": ".spec.parts[]?.template"}


def test_containers_beside_an_image_join_the_operators_own_container() -> None:
    """``{image, replicas, containers}``: no PodSpec has an image, so the operator's main container runs it and
    the listed containers are extra ones; beside no image, the list is the pod's (the plain-name test above)."""
    image = {"type": "object", "properties": {"repository": {"type": "string"}, "tag": {"type": "string"}}}
    crd = fixtures.crd(
        "example.com", "Keeper", {"replicas": {"type": "integer"}, "image": image, "containers": fixtures.CONTAINERS}
    )
    (component,) = _components(crd)
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    assert "beside .spec.image, the image of the operator's own container" in draft(crd).text
    role = {"type": "object", "properties": {"image": {"type": "string"}, "containers": fixtures.CONTAINERS}}
    (component,) = _components(fixtures.crd("example.com", "Keeper", {"ensemble": role}))
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
