from __future__ import annotations

import yaml

from helpers import JOBSET_DEFINITION, LWS_DEFINITION, karta
from workload_map.definition.loader import definition_from_dict
from workload_map.definition.validate import validate
from workload_map.errors import Location, Severity


def findings_for(data: dict, severity: Severity = Severity.ERROR) -> list[str]:
    loaded, problems = definition_from_dict(data, Location("d.yaml", 0))
    assert loaded is not None, problems
    return [str(f) for f in validate(loaded, Location("d.yaml", 0)) if f.severity is severity]


def test_valid_definitions_have_no_findings() -> None:
    assert validate(karta(LWS_DEFINITION)) == []
    assert validate(karta(JOBSET_DEFINITION)) == []


def test_every_structural_problem_is_reported_at_once() -> None:
    data = yaml.safe_load(LWS_DEFINITION)
    structure = data["spec"]["structureDefinition"]
    root = structure["rootComponent"]
    root["ownerRef"] = "group"
    del root["statusDefinition"]
    root["kind"]["group"] = ""
    children = structure["childComponents"]
    children[1]["name"] = "worker"  # duplicate
    children[0]["ownerRef"] = "ghost"  # dangling
    children[2]["specDefinition"]["podSpecPath"] = ".spec"  # two forms
    children[2]["instanceIdPath"] = ".spec.x[]"  # without instance selector
    children.append({"name": "orphan"})  # no ownerRef
    messages = findings_for(data)
    joined = "\n".join(messages)
    assert "rootComponent.ownerRef" in joined and "must not have an ownerRef" in joined
    assert "needs a statusDefinition" in joined
    assert "only core Pod has an empty group" in joined
    assert "duplicate component name 'worker'" in joined
    assert "childComponents[0].ownerRef: error: ownerRef 'ghost' names no component" in joined
    assert "more than one pod spec form" in joined
    assert "has instanceIdPath but no podSelector.componentInstanceSelector" in joined
    assert "childComponents[3].ownerRef: error: child component 'orphan' needs an ownerRef" in joined
    assert len(messages) >= 8


def test_ownership_cycle() -> None:
    data = yaml.safe_load(LWS_DEFINITION)
    children = data["spec"]["structureDefinition"]["childComponents"]
    children[0]["ownerRef"] = "leader"  # group -> leader -> group
    messages = findings_for(data)
    assert any("ownership cycle: " in m and "group" in m and "leader" in m for m in messages)


def test_status_rules() -> None:
    data = yaml.safe_load(LWS_DEFINITION)
    status = data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    del status["conditionsDefinition"]
    status["statusMappings"]["failed"] = [{"byPhase": "Failed"}, {}]
    status["statusMappings"]["running"][0]["byConditions"][0].pop("status")
    # KAI Scheduler's Karta validator accepts every one of these, so they warn and never refuse.
    assert findings_for(data) == []
    messages = "\n".join(findings_for(data, Severity.WARNING))
    assert "byPhase needs statusDefinition.phaseDefinition" in messages
    assert "byConditions needs statusDefinition.conditionsDefinition" in messages
    assert "statusMappings.failed[1]: warning: matcher has no byPhase" in messages
    assert "expected condition 'Available' has neither status nor reason" in messages


def test_selector_rules() -> None:
    data = yaml.safe_load(JOBSET_DEFINITION)
    child = data["spec"]["structureDefinition"]["childComponents"][0]
    del child["instanceIdPath"]
    child["podSelector"]["componentTypeSelector"] = {"value": "x"}
    messages = "\n".join(findings_for(data))
    assert "componentInstanceSelector but no instanceIdPath" in messages
    assert "componentTypeSelector needs keyPath or matchLabels" in messages
    assert "value requires keyPath" in messages


def test_gang_members_must_name_components() -> None:
    data = yaml.safe_load(JOBSET_DEFINITION)
    data["spec"]["optimizationInstructions"] = {
        "gangScheduling": {
            "podGroups": [{"name": "g", "members": [{"componentName": "nope"}]}],
            "podGroup": {"name": "h", "subGroups": [{"componentName": "missing"}]},
        }
    }
    messages = "\n".join(findings_for(data))
    assert "podGroups[0].members[0].componentName: error: member names unknown component 'nope'" in messages
    assert "podGroup.subGroups[0].componentName: error: sub-group names unknown component 'missing'" in messages
    warnings = "\n".join(findings_for(data, Severity.WARNING))
    assert "use either podGroups or podGroup, not both; podGroup is used" in warnings


def test_expressions_are_parsed_and_sandboxed_with_their_location() -> None:
    data = yaml.safe_load(JOBSET_DEFINITION)
    child = data["spec"]["structureDefinition"]["childComponents"][0]
    child["scaleDefinition"]["replicasPath"] = ".spec.replicatedJobs[] | (.replicas"
    child["podSelector"]["componentInstanceSelector"]["idPath"] = "env.HOME"
    data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]["running"][0][
        "byExpression"
    ]["expression"] = "input"
    messages = findings_for(data)
    by_path = {m.split(": error: ")[0]: m for m in messages}
    assert "d.yaml, document 0, spec.structureDefinition.childComponents[0].scaleDefinition.replicasPath" in by_path
    sandbox = by_path[
        "d.yaml, document 0, spec.structureDefinition.childComponents[0].podSelector.componentInstanceSelector.idPath"
    ]
    assert "env" in sandbox
    assert any("statusMappings.running[0].byExpression.expression" in m and "input" in m for m in messages)


# A gang-only definition in the shape KAI Scheduler's e2e tests use (written here, not copied): a root
# kind, its pods as a child, one pod group, and a statusDefinition that maps nothing.
GANG_ONLY = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: gang-only}
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind: {group: example.com, version: v1, kind: Trainer}
      statusDefinition:
        statusMappings: {}
    childComponents:
      - name: workers
        kind: {group: "", version: v1, kind: Pod}
        ownerRef: trainer
        specDefinition:
          metadataPath: .metadata
  optimizationInstructions:
    gangScheduling:
      podGroups:
        - name: all
          members:
            - componentName: workers
"""


def test_gang_only_definition_is_valid_with_one_warning_per_unmapped_status() -> None:
    data = yaml.safe_load(GANG_ONLY)
    assert findings_for(data) == []
    warnings = findings_for(data, Severity.WARNING)
    assert any(
        "rootComponent.statusDefinition.statusMappings: warning: statusMappings maps no status; every workload "
        "will be Undefined" in w
        for w in warnings
    ), warnings
    assert any("metadataPath is only read with podSpecPath" in w for w in warnings), warnings


def test_absent_status_mappings_is_the_same_as_empty() -> None:
    data = yaml.safe_load(GANG_ONLY)
    del data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    assert findings_for(data) == []
    assert any("maps no status" in w for w in findings_for(data, Severity.WARNING))


def test_missing_root_status_definition_stays_an_error_as_in_kai() -> None:
    data = yaml.safe_load(GANG_ONLY)
    del data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    assert any("needs a statusDefinition" in m for m in findings_for(data))


def test_empty_pod_group_warns() -> None:
    data = yaml.safe_load(GANG_ONLY)
    data["spec"]["optimizationInstructions"]["gangScheduling"]["podGroups"][0]["members"] = []
    assert findings_for(data) == []
    assert any("pod group has no members" in w for w in findings_for(data, Severity.WARNING))


def test_unknown_field_is_reported_with_the_semantic_findings() -> None:
    data = yaml.safe_load(LWS_DEFINITION)
    structure = data["spec"]["structureDefinition"]
    structure["childComponents"][2]["scaleDefinition"] = {"replicaPath": ".x"}  # unknown field
    structure["childComponents"][0]["ownerRef"] = "ghost"  # semantic: dangling
    structure["rootComponent"]["statusDefinition"]["statusMappings"]["running"][0]["byExpression"] = {
        "expression": "env.HOME",  # sandbox
        "expectedResult": "true",
    }
    loaded, findings = definition_from_dict(data, Location("d.yaml", 0))
    assert loaded is None
    text = "\n".join(str(f) for f in findings)
    assert "childComponents[2].scaleDefinition.replicaPath: error: unknown field 'replicaPath'" in text
    assert "childComponents[0].ownerRef: error: ownerRef 'ghost' names no component" in text
    assert "statusMappings.running[0].byExpression.expression: error:" in text and "env" in text


def test_a_missing_required_field_gives_only_the_schema_finding() -> None:
    data = yaml.safe_load(LWS_DEFINITION)
    structure = data["spec"]["structureDefinition"]
    del structure["childComponents"][0]["name"]
    structure["childComponents"][1]["ownerRef"] = "ghost"
    _, findings = definition_from_dict(data, Location("d.yaml", 0))
    assert [f.location.path for f in findings] == ["spec.structureDefinition.childComponents[0].name"]


# The other gang form KAI Scheduler's e2e suite uses (written here, not copied): logical children (no
# kind) told apart by a pod label, each with its own template and replica count, one podGroup with a
# sub-group per child, and nothing mapped to a status.
SUB_GROUPS = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: example-org-v2-batchrun}
spec:
  structureDefinition:
    rootComponent:
      name: batchrun
      kind: {group: example.org, version: v2, kind: BatchRun}
      statusDefinition: {statusMappings: {}}
    childComponents:
      - name: driver
        ownerRef: batchrun
        specDefinition: {podTemplateSpecPath: .spec.driver.podTemplate}
        scaleDefinition: {replicasPath: .spec.driver.count}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["example.org/part"]', value: driver}
      - name: executor
        ownerRef: batchrun
        specDefinition: {podTemplateSpecPath: .spec.executor.podTemplate}
        scaleDefinition: {replicasPath: .spec.executor.count}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["example.org/part"]', value: executor}
  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: batchrun
        subGroups: [{componentName: driver}, {componentName: executor}]
"""


def test_sub_group_gang_only_definition_has_exactly_the_unmapped_status_warning() -> None:
    loaded, problems = definition_from_dict(yaml.safe_load(SUB_GROUPS), Location("d.yaml", 0))
    assert loaded is not None, problems
    findings = validate(loaded, Location("d.yaml", 0))
    assert [(f.severity, f.location.path) for f in findings] == [
        (Severity.WARNING, "spec.structureDefinition.rootComponent.statusDefinition.statusMappings")
    ]
