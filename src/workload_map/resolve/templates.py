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


# The fields of Kubernetes' ObjectMeta and PodSpec (k8s.io/api core/v1 and meta/v1, v1.35). A value read
# through metadataPath / podSpecPath / podTemplateSpecPath is decoded as that type, keeping only its fields,
# as the Go reference decodes it into metav1.ObjectMeta / corev1.PodSpec (JSON decoding drops unknown keys).
# This lets a definition point podSpecPath at an object that is a PodSpec plus fields of its own (KServe's
# `.spec.transformer`: PodSpec inline with minReplicas, logger, ...) and metadataPath at an object that holds
# labels and annotations beside other fields (a Grove clique), and still address where they live.
OBJECT_META_FIELDS = frozenset(
    {
        "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
        "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
        "ownerReferences", "finalizers", "managedFields",
    }
)  # fmt: skip
POD_SPEC_FIELDS = frozenset(
    {
        "volumes", "initContainers", "containers", "ephemeralContainers", "restartPolicy",
        "terminationGracePeriodSeconds", "activeDeadlineSeconds", "dnsPolicy", "nodeSelector",
        "serviceAccountName", "serviceAccount", "automountServiceAccountToken", "nodeName", "hostNetwork",
        "hostPID", "hostIPC", "shareProcessNamespace", "securityContext", "imagePullSecrets", "hostname",
        "subdomain", "affinity", "schedulerName", "tolerations", "hostAliases", "priorityClassName", "priority",
        "dnsConfig", "readinessGates", "runtimeClassName", "enableServiceLinks", "preemptionPolicy", "overhead",
        "topologySpreadConstraints", "setHostnameAsFQDN", "os", "hostUsers", "schedulingGates", "resourceClaims",
        "resources", "hostnameOverride", "workloadRef",
    }
)  # fmt: skip


def _decoded(value: Any, fields: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k in fields} if isinstance(value, Mapping) else {}


def from_template(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, Mapping):
        return None
    return {
        "metadata": _decoded(value.get("metadata"), OBJECT_META_FIELDS),
        "spec": _decoded(value.get("spec"), POD_SPEC_FIELDS),
    }


def from_pod_spec(spec: Any, metadata: Any) -> dict[str, Any] | None:
    if not isinstance(spec, Mapping):
        return None
    return {"metadata": _decoded(metadata, OBJECT_META_FIELDS), "spec": _decoded(spec, POD_SPEC_FIELDS)}


def from_fragments(definition: FragmentedPodSpecDefinition, values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` maps fragment field names (snake_case) to what their paths gave for one instance.

    An instance always has a template, empty when no fragment has a value: the fields are locations in
    the object (where an update writes), set or not (a Milvus component that sets nothing of its own).
    """
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
