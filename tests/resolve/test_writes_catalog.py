"""Updates through every catalog definition, on every corpus example (tests/catalog/expectations).

An update is right when the patched object, re-resolved by the same definition, shows the change in
every pod template it has, the rest of the workload reads as before, and the merge patch turns the
old object into the new one. Where a definition cannot express a change, the error must say why, and
only the documented cases may fail (below).
"""

from __future__ import annotations

import copy
import functools
import sys
from pathlib import Path
from typing import Any

import pytest
from test_writes import apply_merge_patch

from workload_map.jq import compile_expression
from workload_map.tree.build import tree_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "catalog"))
from expectations import Case, cases

from workload_map.base.snapshot import Snapshot
from workload_map.catalog import builtin_definitions
from workload_map.definition.registry import DefinitionRegistry
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.resolve.writes import PodSpecChange, WriteError, update_workload

REGISTRY = DefinitionRegistry(builtin_definitions())
QUEUE = {"kai.scheduler/queue": "team-a"}

# (definition, field) -> why it cannot be written; the error must contain the text.
NOT_EXPRESSIBLE: dict[tuple[str, str], str] = {
    # The NIMCache CRD has no scheduler name, priority class, pod labels or annotations.
    **{
        ("apps-nvidia-com-nimcache-v1alpha1", f): "gives no path"
        for f in (
            "scheduler_name",
            "priority_class_name",
            "labels",
            "annotations",
            "pod_affinity",
            "node_affinity",
            "resource_claims",
            "resources",
        )
    },
    # TrainJob's runtimePatches pod template has no schedulerName or priorityClassName; pod labels only
    # exist in a runtime patch for the step.
    ("trainer-kubeflow-org-trainjob-v1alpha1", "scheduler_name"): "gives no path",
    ("trainer-kubeflow-org-trainjob-v1alpha1", "priority_class_name"): "gives no path",
    ("trainer-kubeflow-org-trainjob-v1alpha1", "labels"): "addresses no location",
    ("trainer-kubeflow-org-trainjob-v1alpha1", "annotations"): "addresses no location",
    ("trainer-kubeflow-org-trainjob-v1alpha1", "pod_affinity"): "gives no path",
    ("trainer-kubeflow-org-trainjob-v1alpha1", "node_affinity"): "gives no path",
    ("trainer-kubeflow-org-trainjob-v1alpha1", "resource_claims"): "gives no path",
    # LLMInferenceService v1alpha1 has no pod labels/annotations; v1alpha2's router scheduler neither.
    ("serving-kserve-io-llminferenceservice-v1alpha1", "labels"): "no metadataPath",
    ("serving-kserve-io-llminferenceservice-v1alpha1", "annotations"): "no metadataPath",
    ("serving-kserve-io-llminferenceservice-v1alpha2", "labels"): "no metadataPath",
    ("serving-kserve-io-llminferenceservice-v1alpha2", "annotations"): "no metadataPath",
    # The router scheduler's (EPP) template of this example has no containers for resources.
    ("serving-kserve-io-llminferenceservice-v1alpha2", "resources"): "no containers",
    # No PodResourceClaim list in these CRDs (NIM's draResources is its own shape).
    ("apps-nvidia-com-nimservice-v1alpha1", "resource_claims"): "gives no path",
    ("milvus-io-milvus-v1beta1", "resource_claims"): "gives no path",
    ("sparkoperator-k8s-io-sparkapplication-v1beta2", "resource_claims"): "gives no path",
    # Flink v1alpha1 (operator 0.1) has no ResourceRequirements field: cpu/memory are .spec.<role>.resource (Flink's
    # own shape, through its config), anything else only a flink-main-container in a pod template, which this
    # example has not (v1beta1 writes .spec.<role>.resources, merged into that container by the operator).
    ("flink-apache-org-flinkdeployment-v1alpha1", "resources"): "no containers at",
    # Tekton's pod.Template (TaskRun .spec.podTemplate, PipelineRun taskRunTemplate.podTemplate / v1beta1
    # .spec.podTemplate, taskRunSpecs[]) has no resourceClaims (tektoncd/pipeline pkg/apis/pipeline/pod/template.go),
    # and the pod builder sets none (pkg/pod/pod.go Build).
    **{
        (f"tekton-dev-{kind}", "resource_claims"): "gives no path"
        for kind in ("taskrun-v1", "taskrun-v1beta1", "pipelinerun-v1", "pipelinerun-v1beta1")
    },
    # The example's taskRef tasks have their steps in Task objects: a PipelineRun sets their resources only
    # through a .spec.taskRunSpecs entry for the task (task-level computeResources), which it lacks and an
    # update cannot add (writes set locations, they append no list entries).
    ("tekton-dev-pipelinerun-v1", "resources"): "list spec.taskRunSpecs does not exist",
    # A conversion, read-only by design (tests/catalog READ_ONLY_BY_DESIGN). (Dynamo v1alpha1's resources
    # conversion is read-only too, but a resources change goes to extraPodSpec.mainContainer.resources.)
    ("sparkoperator-k8s-io-sparkapplication-v1beta2", "resources"): "not a jq path expression",
}
FRAGMENTED_ONLY_TEMPLATE_FIELDS = ("tolerations", "node_selector")  # the format has no fragment path

CHANGES: dict[str, PodSpecChange] = {
    "scheduler_name": PodSpecChange(scheduler_name="kai-scheduler"),
    "labels": PodSpecChange(labels=QUEUE),
    "annotations": PodSpecChange(annotations={"example.com/note": "x"}),
    "priority_class_name": PodSpecChange(priority_class_name="high"),
    "resources": PodSpecChange(resources={"limits": {"example.com/widget": "1"}}),
    "resource_claims": PodSpecChange(resource_claims=[{"name": "gpu", "resourceClaimName": "shared-gpu"}]),
    "node_affinity": PodSpecChange(node_affinity={"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]}]}}),
    "pod_affinity": PodSpecChange(pod_affinity={"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "podAffinityTerm": {"topologyKey": "zone", "labelSelector": {"matchLabels": {"a": "b"}}}}]}),
    "tolerations": PodSpecChange(tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]),
    "node_selector": PodSpecChange(node_selector={"pool": "a"}),
}  # fmt: skip


def _shows(field: str, template: dict[str, Any]) -> bool:
    spec, meta = template.get("spec") or {}, template.get("metadata") or {}
    if field == "scheduler_name":
        return spec.get("schedulerName") == "kai-scheduler"
    if field == "priority_class_name":
        return spec.get("priorityClassName") == "high"
    if field in ("labels", "annotations"):
        wanted = getattr(CHANGES[field], field)
        return all((meta.get(field) or {}).get(k) == v for k, v in wanted.items())
    if field == "node_selector":
        return (spec.get("nodeSelector") or {}).get("pool") == "a"
    if field == "resources":
        containers = spec.get("containers") or [{}]
        return ((containers[0].get("resources") or {}).get("limits") or {}).get("example.com/widget") == "1"
    if field in ("node_affinity", "pod_affinity"):
        key = "nodeAffinity" if field == "node_affinity" else "podAffinity"
        return (spec.get("affinity") or {}).get(key) == getattr(CHANGES[field], field)
    if field == "tolerations":
        return spec.get("tolerations") == CHANGES[field].tolerations
    assert field == "resource_claims"
    return spec.get("resourceClaims") == CHANGES[field].resource_claims


def _resolve(obj: dict[str, Any]) -> dict[str, Any]:
    view = WorkloadIndex(Snapshot([obj]), REGISTRY)
    tree = tree_of(view, view.snapshot.objects[0])
    assert tree.warnings == [], tree.warnings
    return tree.to_json()


def _templates(tree: dict[str, Any]) -> dict[tuple[str, str | None], dict[str, Any]]:
    return {
        (c["name"], i["id"]): i["podTemplate"]
        for c in tree["components"]
        if c["producesPods"]
        for i in c["instances"]
        if i.get("podTemplate") is not None
    }


def _without_templates(tree: dict[str, Any]) -> dict[str, Any]:
    """The tree minus what a template change may change (templates, per-pod requests and totals)."""
    tree = copy.deepcopy(tree)
    tree.pop("totals", None)
    for component in tree["components"]:
        for instance in component["instances"]:
            instance.pop("podTemplate", None)
            instance.pop("resources", None)
    return tree


@functools.cache
def _workloads() -> list[Case]:
    out = []
    for case in cases():
        definition = REGISTRY.for_object(case.obj)[0]
        if definition is not None:
            out.append(case)
    return out


def _namespaced(case: Case) -> dict[str, Any]:
    obj = copy.deepcopy(case.obj)
    obj.setdefault("metadata", {}).setdefault("namespace", "default")
    return obj


@pytest.mark.parametrize("case", _workloads(), ids=lambda c: c.id)
def test_scheduler_name_and_queue_label_reach_every_pod_template(case: Case) -> None:
    obj = _namespaced(case)
    definition = REGISTRY.for_object(obj)[0]
    assert definition is not None
    before = _resolve(obj)
    templates = _templates(before)
    change = PodSpecChange(scheduler_name="kai-scheduler", labels=QUEUE)
    try:
        result = update_workload(definition.karta, obj, change=change)
    except WriteError as exc:
        if not templates:
            assert "holds no pod templates" in exc.message
            return
        reasons = [NOT_EXPRESSIBLE.get((definition.name, f)) for f in ("scheduler_name", "labels")]
        assert any(r and r in exc.message for r in reasons), exc.message
        return
    assert templates, "an update succeeded on an object without pod templates"
    assert apply_merge_patch(obj, result.patch) == result.obj
    after = _resolve(result.obj)
    for key, template in _templates(after).items():
        if key in templates:
            assert _shows("scheduler_name", template), key
            assert _shows("labels", template), key
    assert set(_templates(after)) == set(templates)
    assert _without_templates(after) == _without_templates(before)


@functools.cache
def _one_per_definition() -> list[Case]:
    seen: dict[str, Case] = {}
    for case in _workloads():
        definition = REGISTRY.for_object(case.obj)[0]
        assert definition is not None
        if definition.name not in seen and _templates(_resolve(_namespaced(case))):
            seen[definition.name] = case
    return list(seen.values())


@pytest.mark.parametrize("case", _one_per_definition(), ids=lambda c: c.id)
@pytest.mark.parametrize("field", list(CHANGES))
def test_every_pod_field_of_the_format(case: Case, field: str) -> None:
    obj = _namespaced(case)
    definition = REGISTRY.for_object(obj)[0]
    assert definition is not None
    fragmented = any(
        c.spec_definition is not None and c.spec_definition.fragmented_pod_spec_definition is not None
        for c in definition.karta.components
    )
    try:
        result = update_workload(definition.karta, obj, change=CHANGES[field])
    except WriteError as exc:
        reason = NOT_EXPRESSIBLE.get((definition.name, field))
        if reason is None and fragmented and field in FRAGMENTED_ONLY_TEMPLATE_FIELDS:
            reason = "fragmented form has no path"
        assert reason is not None and reason in exc.message, exc.message
        return
    assert (definition.name, field) not in NOT_EXPRESSIBLE, "documented as impossible, but it worked"
    templates = {
        key: template
        for key, template in _templates(_resolve(result.obj)).items()
        # instances whose pod the operator makes from nothing in the object are left alone, and say so
        if not any(line.startswith(f"component {key[0]!r}") for line in result.skipped)
    }
    assert templates and all(_shows(field, t) for t in templates.values()), field


@pytest.mark.parametrize("case", _one_per_definition(), ids=lambda c: c.id)
def test_one_component_and_one_instance(case: Case) -> None:
    obj = _namespaced(case)
    definition = REGISTRY.for_object(obj)[0]
    assert definition is not None
    before = _templates(_resolve(obj))
    (component, instance), _ = next(iter(before.items()))
    change = PodSpecChange(priority_class_name="high")
    try:
        result = update_workload(definition.karta, obj, change=change, component=component, instance=instance)
    except WriteError as exc:
        assert (definition.name, "priority_class_name") in NOT_EXPRESSIBLE, exc.message
        return
    after = _templates(_resolve(result.obj))
    for key, template in after.items():
        assert _shows("priority_class_name", template) == (key == (component, instance)) or (
            # instances that share one location (LWS leader falls back to the worker template; Tekton tasks
            # without a taskRunSpecs entry read the PipelineRun's taskRunTemplate): updating either alone
            # writes the same object
            _shows("priority_class_name", template)
            and update_workload(definition.karta, obj, change=change, component=key[0], instance=key[1]).obj
            == result.obj
        ), key


@pytest.mark.parametrize("case", [c for c in _workloads() if REGISTRY.for_object(c.obj)[0]], ids=lambda c: c.id)
def test_suspend_and_resume_write_the_definitions_values(case: Case) -> None:
    obj = _namespaced(case)
    definition = REGISTRY.for_object(obj)[0]
    assert definition is not None
    suspend = next((c.suspend_definition for c in definition.karta.components if c.suspend_definition), None)
    for suspended in (True, False):
        try:
            result = update_workload(definition.karta, obj, suspend=suspended)
        except WriteError as exc:
            assert suspend is None and "no suspendDefinition" in exc.message
            continue
        assert suspend is not None
        actions = suspend.suspend_actions if suspended else suspend.resume_actions

        for action in actions:
            assert compile_expression(action.path).all(result.obj) == [action.decoded_value]
        assert apply_merge_patch(obj, result.patch) == result.obj
        assert _without_templates(_resolve(result.obj))["components"] is not None
