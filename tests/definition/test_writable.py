"""The read-only check: spec and suspend paths that are not jq path expressions are reported.

Zero warnings for definitions written the way the reference project publishes its catalog: the
definitions below mirror the path shapes of run-ai/karta docs/examples/*.yaml (commit d20a8a9), our own
text, not copies: plain template paths (pytorch.yaml, mpijob.yaml, lws.yaml, knative-serving.yaml),
iterated instance paths (jobset.yaml ``.spec.replicatedJobs[].template.spec.template``, raycluster.yaml
``.spec.workerGroupSpecs[].template``), fragments over a map of services (dynamo.yaml
``.spec.services | .[] | .extraPodSpec.schedulerName``), scattered NIM fields (nimservice.yaml
``.spec.resources``, ``.spec.affinity.podAffinity``), a KServe predictor whose container is selected
among the implementations (kserve.yaml ``.spec.predictor | (.[]? | select(type == "object" and
.storageUri))``) and a transformer read as PodSpec and metadata from one object.
"""

from __future__ import annotations

import pytest

from helpers import karta
from workload_map.catalog import builtin_definitions
from workload_map.definition.validate import validate
from workload_map.definition.writable import read_only_findings
from workload_map.errors import Severity

HEAD = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {{name: {name}}}
spec:
  structureDefinition:
    rootComponent:
      name: root
      kind: {{group: example.com, version: v1, kind: {kind}}}
      statusDefinition:
        phaseDefinition: {{path: .status.phase}}
        statusMappings: {{running: [{{byPhase: Running}}]}}
      suspendDefinition:
        suspendActions: [{{path: .spec.runPolicy.suspend, value: "true"}}]
        resumeActions: [{{path: .spec.runPolicy.suspend, value: "false"}}]
    childComponents:
"""

REFERENCE_SHAPES = {
    "pytorch": """
      - name: master
        ownerRef: root
        specDefinition: {podTemplateSpecPath: .spec.pytorchReplicaSpecs.Master.template}
      - name: worker
        ownerRef: root
        specDefinition: {podTemplateSpecPath: .spec.pytorchReplicaSpecs.Worker.template}
""",
    "lws": """
      - name: leader
        ownerRef: root
        specDefinition: {podTemplateSpecPath: .spec.leaderWorkerTemplate.leaderTemplate}
      - name: worker
        ownerRef: root
        specDefinition: {podTemplateSpecPath: .spec.leaderWorkerTemplate.workerTemplate}
""",
    "jobset": """
      - name: replicatedjob
        ownerRef: root
        instanceIdPath: .spec.replicatedJobs[].name
        podSelector: {componentInstanceSelector: {idPath: '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]'}}
        specDefinition: {podTemplateSpecPath: ".spec.replicatedJobs[].template.spec.template"}
""",
    "raycluster": """
      - name: head
        ownerRef: root
        specDefinition: {podTemplateSpecPath: .spec.headGroupSpec.template}
      - name: worker
        ownerRef: root
        instanceIdPath: .spec.workerGroupSpecs[].groupName
        podSelector: {componentInstanceSelector: {idPath: '.metadata.labels["ray.io/group"]'}}
        specDefinition: {podTemplateSpecPath: ".spec.workerGroupSpecs[].template"}
""",
    "dynamo": """
      - name: service
        ownerRef: root
        instanceIdPath: .spec.services | to_entries[] | .key
        podSelector: {componentInstanceSelector: {idPath: '.metadata.labels["nvidia.com/dynamo-component"]'}}
        specDefinition:
          fragmentedPodSpecDefinition:
            schedulerNamePath: .spec.services | .[] | .extraPodSpec.schedulerName
            labelsPath: .spec.services | .[] | .labels
            annotationsPath: .spec.services | .[] | .annotations
            resourcesPath: .spec.services | .[] | .resources
            resourceClaimsPath: .spec.services | .[] | .extraPodSpec.resourceClaims
            podAffinityPath: .spec.services | .[] | .extraPodSpec.affinity.podAffinity
            nodeAffinityPath: .spec.services | .[] | .extraPodSpec.affinity.nodeAffinity
            containerPath: .spec.services | .[] | .extraPodSpec.mainContainer
            priorityClassNamePath: .spec.services | .[] | .extraPodSpec.priorityClassName
            imagePath: .spec.services | .[] | .extraPodSpec.mainContainer.image
""",
    "nimservice": """
      - name: nim
        ownerRef: root
        specDefinition:
          fragmentedPodSpecDefinition:
            schedulerNamePath: .spec.schedulerName
            labelsPath: .spec.labels
            annotationsPath: .spec.annotations
            resourcesPath: .spec.resources
            podAffinityPath: .spec.affinity.podAffinity
            nodeAffinityPath: .spec.affinity.nodeAffinity
""",
    "kserve": """
      - name: predictor
        ownerRef: root
        specDefinition:
          fragmentedPodSpecDefinition:
            schedulerNamePath: .spec.predictor.schedulerName
            labelsPath: .spec.predictor.labels
            containersPath: .spec.predictor.containers
            containerPath: .spec.predictor | ( (.[]? | select(type == "object" and .storageUri)))
            priorityClassNamePath: .spec.predictor.priorityClassName
      - name: transformer
        ownerRef: root
        specDefinition: {podSpecPath: .spec.transformer, metadataPath: .spec.transformer}
""",
}


def _definition(name: str, children: str) -> str:
    return HEAD.format(name=name, kind=name.capitalize()) + children


@pytest.mark.parametrize("name", sorted(REFERENCE_SHAPES))
def test_reference_catalog_shapes_are_writable(name: str) -> None:
    definition = karta(_definition(name, REFERENCE_SHAPES[name]))
    assert list(read_only_findings(definition)) == []
    assert [f for f in validate(definition) if f.severity is Severity.WARNING] == []


@pytest.mark.parametrize("definition", builtin_definitions(), ids=lambda d: d.name)
def test_catalog_read_only_findings_are_only_the_documented_conversions(definition: object) -> None:
    findings = list(read_only_findings(definition.karta))  # type: ignore[attr-defined]
    # Resources in an operator's own shape, and Tekton's containers (its controller builds them from steps:
    # prefixed names, computeResources); tests/catalog READ_ONLY_BY_DESIGN lists each one exactly.
    tekton = definition.name.startswith("tekton-dev-")  # type: ignore[attr-defined]
    assert all(
        str(f.location.path).endswith("resourcesPath") or (tekton and str(f.location.path).endswith("containersPath"))
        for f in findings
    ), [str(f) for f in findings]


COMPUTED = {
    # (the computed expression, the construct the warning must name)
    "{metadata: (.spec.template.metadata // {}), spec: .spec.template.spec}": "builds a new object",
    '(.spec.m // {}) | to_entries[] | select(.key == "Worker") | .value.template': "{}",
    ".spec.template | . + {metadata: {labels: .metadata.labels}}": "computes a new value",
    ".spec.template as $t | $t": "variable",
    ".spec.tasks // [] | .[] | .template": "[]",
}


@pytest.mark.parametrize("expression", sorted(COMPUTED))
def test_a_computed_template_is_reported_read_only(expression: str) -> None:
    children = f"""
      - name: worker
        ownerRef: root
        specDefinition: {{podTemplateSpecPath: '{expression}'}}
"""
    definition = karta(_definition("computed", children))
    [finding] = list(read_only_findings(definition))
    assert finding.severity is Severity.WARNING
    assert finding.expression == expression
    assert str(finding.location.path).endswith("childComponents[0].specDefinition.podTemplateSpecPath")
    assert "component 'worker' is read-only for pod-spec updates" in finding.message
    assert COMPUTED[expression] in finding.message
    # validate() reports it among all findings, once, as a warning: the definition stays valid.
    assert [f.message for f in validate(definition) if f.severity is Severity.WARNING] == [finding.message]
    assert [f for f in validate(definition) if f.severity is Severity.ERROR] == []


def test_a_computed_suspend_path_is_reported() -> None:
    text = _definition("suspender", REFERENCE_SHAPES["pytorch"]).replace(
        '{path: .spec.runPolicy.suspend, value: "true"}',
        "{path: '.spec.runPolicy // {} | .suspend', value: \"true\"}",
    )
    [finding] = list(read_only_findings(karta(text)))
    assert "read-only for suspend/resume" in finding.message and "suspendActions[0].path" in str(finding.location)
