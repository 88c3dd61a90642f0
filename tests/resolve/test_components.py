from __future__ import annotations

from typing import Any

import yaml

from corpus import corpus_objects
from helpers import JOBSET_DEFINITION, LWS_DEFINITION, karta
from workload_map.resolve.components import resolve_components
from workload_map.resolve.evaluate import Diagnostics


def resolve(definition: str, obj: dict[str, Any]) -> tuple[dict, Diagnostics]:
    diagnostics = Diagnostics("test")
    return resolve_components(karta(definition), obj, diagnostics), diagnostics


def test_jobset_instances_replicas_and_templates_from_the_corpus() -> None:
    obj = corpus_objects("jobset/examples/paralleljobs.yaml")[0].obj
    components, diagnostics = resolve(JOBSET_DEFINITION, obj)
    assert diagnostics.findings == []
    rj = components["replicatedjob"]
    assert [(i.id, i.desired_pods) for i in rj.instances] == [("workers", 4), ("driver", 1)]
    assert rj.instances[0].template is not None
    assert rj.instances[0].template["spec"]["containers"][0]["image"] == "busybox"


def test_lws_desired_pods_multiply_down_the_tree() -> None:
    obj = corpus_objects("leaderworkerset/examples/vllm-gpu-lws.yaml")[0].obj
    components, diagnostics = resolve(LWS_DEFINITION, obj)
    assert diagnostics.findings == []
    assert components["leader"].instances[0].desired_pods == 2
    assert components["worker"].instances[0].desired_pods == 2
    assert components["group"].instances[0].desired_pods == 0  # logical: produces no pods itself


def test_instance_count_mismatch_is_an_error_and_nothing_is_shifted() -> None:
    definition = JOBSET_DEFINITION.replace(
        '".spec.replicatedJobs[] | (.replicas // 1) * (.template.spec.parallelism // 1)"',
        '".spec.replicatedJobs[] | select(.name != \\"driver\\") | .replicas"',
    )
    obj = corpus_objects("jobset/examples/paralleljobs.yaml")[0].obj
    components, diagnostics = resolve(definition, obj)
    messages = diagnostics.messages()
    assert len(messages) == 1
    assert "instanceIdPath gave 2 instance(s) but scaleDefinition.replicasPath gave 1 output(s)" in messages[0]
    assert "childComponents[0].scaleDefinition.replicasPath" in messages[0]
    # replicas are unknown for both instances rather than the driver getting the workers' value
    assert [i.scale.replicas for i in components["replicatedjob"].instances] == [None, None]


def test_empty_and_duplicate_instance_ids() -> None:
    obj = {"spec": {"replicatedJobs": [{"name": "a"}, {"name": "a"}]}}
    components, diagnostics = resolve(JOBSET_DEFINITION, obj)
    assert components["replicatedjob"].error is not None
    assert "duplicate instance id 'a'" in diagnostics.messages()[0]
    components, diagnostics = resolve(JOBSET_DEFINITION, {"spec": {"replicatedJobs": [{"name": ""}]}})
    assert "empty id" in diagnostics.messages()[0]


def test_bad_replicas_and_null_fields_warn_and_continue() -> None:
    obj = {"spec": {"replicatedJobs": [{"name": "w", "replicas": "abc"}, {"name": "d", "replicas": "3"}]}}
    definition = JOBSET_DEFINITION.replace(
        '".spec.replicatedJobs[] | (.replicas // 1) * (.template.spec.parallelism // 1)"',
        '".spec.replicatedJobs[].replicas"',
    )
    components, diagnostics = resolve(definition, obj)
    rj = components["replicatedjob"]
    assert [i.scale.replicas for i in rj.instances] == [None, 3]
    assert "gave 'abc', not a number" in diagnostics.messages()[0]
    assert [i.template for i in rj.instances] == [None, None]
    components, diagnostics = resolve(JOBSET_DEFINITION, {"spec": None, "status": None})
    assert components["replicatedjob"].instances == []


FRAGMENTED = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: frag}
spec:
  structureDefinition:
    rootComponent:
      name: svc
      kind: {group: example.com, version: v1, kind: Reactor}
      statusDefinition: {statusMappings: {running: [{byExpression: {expression: "true", expectedResult: "true"}}]}}
    childComponents:
    - name: service
      ownerRef: svc
      instanceIdPath: ".spec.services | keys_unsorted[]"
      specDefinition:
        fragmentedPodSpecDefinition:
          labelsPath: ".spec.services[].labels"
          imagePath: ".spec.services[].image"
          resourcesPath: ".spec.services[].resources"
          schedulerNamePath: ".spec.services[].scheduler"
          nodeAffinityPath: ".spec.services[].affinity"
      scaleDefinition: {replicasPath: ".spec.services[].replicas"}
      podSelector: {componentInstanceSelector: {idPath: '.metadata.labels.service'}}
    - name: sidecar
      ownerRef: svc
      specDefinition:
        podSpecPath: ".spec.sidecar.pod"
        metadataPath: ".spec.sidecar.meta"
"""


def test_fragmented_and_split_pod_spec_forms() -> None:
    obj = yaml.safe_load("""
spec:
  services:
    frontend: {image: fe:1, replicas: 2, labels: {tier: web}, resources: {limits: {cpu: "1"}}}
    decode: {image: dec:1, replicas: "4", resources: {limits: {nvidia.com/gpu: 8}}, scheduler: kai-scheduler,
             affinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}
  sidecar:
    pod: {containers: [{name: s, image: s:1}]}
    meta: {labels: {role: sidecar}}
""")
    components, diagnostics = resolve(FRAGMENTED, obj)
    assert diagnostics.findings == []
    service = components["service"]
    assert [(i.id, i.desired_pods) for i in service.instances] == [("frontend", 2), ("decode", 4)]
    decode = service.instances[1].template
    assert decode == {
        "metadata": {},
        "spec": {
            "schedulerName": "kai-scheduler",
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}},
            "containers": [{"name": "main", "image": "dec:1", "resources": {"limits": {"nvidia.com/gpu": 8}}}],
        },
    }
    assert service.instances[0].template["metadata"] == {"labels": {"tier": "web"}}
    sidecar = components["sidecar"].instances[0]
    assert sidecar.template == {
        "metadata": {"labels": {"role": "sidecar"}},
        "spec": {"containers": [{"name": "s", "image": "s:1"}]},
    }
    assert sidecar.desired_pods == 1


def test_zero_instances_with_scale_and_template_paths() -> None:
    components, diagnostics = resolve(JOBSET_DEFINITION, {"spec": {"replicatedJobs": []}})
    assert components["replicatedjob"].instances == []
    assert diagnostics.findings == []
