"""One normalised PodTemplateSpec per component instance, whichever of the three spec forms holds it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workload_map.definition.model import FragmentedPodSpecDefinition

TEMPLATE_FORM = "podTemplateSpecPath"
SPEC_FORM = "podSpecPath"
FRAGMENTED_FORM = "fragmentedPodSpecDefinition"

# fragment field -> (where it lands in the PodTemplateSpec)
FRAGMENT_TARGETS: dict[str, tuple[str, ...]] = {
    "scheduler_name_path": ("spec", "schedulerName"),
    "labels_path": ("metadata", "labels"),
    "annotations_path": ("metadata", "annotations"),
    "resource_claims_path": ("spec", "resourceClaims"),
    "priority_class_name_path": ("spec", "priorityClassName"),
    "pod_affinity_path": ("spec", "affinity", "podAffinity"),
    "node_affinity_path": ("spec", "affinity", "nodeAffinity"),
}


def from_template(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, Mapping):
        return None
    metadata = value.get("metadata")
    spec = value.get("spec")
    return {
        "metadata": dict(metadata) if isinstance(metadata, Mapping) else {},
        "spec": dict(spec) if isinstance(spec, Mapping) else {},
    }


def from_pod_spec(spec: Any, metadata: Any) -> dict[str, Any] | None:
    if not isinstance(spec, Mapping):
        return None
    return {
        "metadata": dict(metadata) if isinstance(metadata, Mapping) else {},
        "spec": dict(spec),
    }


def from_fragments(definition: FragmentedPodSpecDefinition, values: Mapping[str, Any]) -> dict[str, Any] | None:
    """``values`` maps fragment field names (snake_case) to what their paths gave for one instance."""
    if all(v is None for v in values.values()):
        return None
    template: dict[str, Any] = {"metadata": {}, "spec": {}}
    for fragment, target in FRAGMENT_TARGETS.items():
        value = values.get(fragment)
        if value is None:
            continue
        node = template
        for part in target[:-1]:
            node = node.setdefault(part, {})
        node[target[-1]] = value
    containers: list[dict[str, Any]] = []
    listed = values.get("containers_path")
    if isinstance(listed, list):
        containers = [dict(c) for c in listed if isinstance(c, Mapping)]
    single = values.get("container_path")
    if isinstance(single, Mapping):
        containers = [dict(single), *containers]
    image, resources = values.get("image_path"), values.get("resources_path")
    if not containers and (image is not None or resources is not None):
        containers = [{"name": "main"}]
    if containers:
        first = containers[0]
        if image is not None and not first.get("image"):
            first["image"] = image
        if isinstance(resources, Mapping) and not first.get("resources"):
            first["resources"] = dict(resources)
        template["spec"]["containers"] = containers
    return template
