"""Small builders shared by tests: definitions from YAML text, pods as operators create them."""

from __future__ import annotations

from typing import Any

import yaml

from workload_map.definition.loader import LoadedDefinition, definition_from_dict
from workload_map.definition.model import Karta
from workload_map.errors import Location


def karta(text: str) -> Karta:
    loaded, findings = definition_from_dict(yaml.safe_load(text), Location("test.yaml", 0))
    assert not findings, [str(f) for f in findings]
    assert loaded is not None
    return loaded


def loaded(text: str, origin: str = "file") -> LoadedDefinition:
    return LoadedDefinition(karta(text), Location("test.yaml", 0), origin)


def pod(
    name: str,
    *,
    namespace: str = "default",
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    owner: tuple[str, str, str] | None = None,  # (apiVersion, kind, name)
    owner_uid: str | None = None,
    phase: str = "Running",
    ready: bool = True,
    node: str | None = "node-1",
    gpus: int = 0,
    pending_reason: str | None = None,
    uid: str | None = None,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "labels": labels or {},
        "annotations": annotations or {},
    }
    if uid:
        metadata["uid"] = uid
    if owner is not None:
        ref: dict[str, Any] = {"apiVersion": owner[0], "kind": owner[1], "name": owner[2], "controller": True}
        if owner_uid:
            ref["uid"] = owner_uid
        metadata["ownerReferences"] = [ref]
    container: dict[str, Any] = {"name": "main", "image": "busybox"}
    if gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    conditions = [{"type": "Ready", "status": "True" if ready else "False"}]
    if pending_reason:
        conditions.append(
            {
                "type": "PodScheduled",
                "status": "False",
                "reason": pending_reason,
                "message": "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.",
            }
        )
    spec: dict[str, Any] = {"containers": [container]}
    if node and phase != "Pending":
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": spec,
        "status": {"phase": phase, "conditions": conditions},
    }


LWS_DEFINITION = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: test-lws}
spec:
  structureDefinition:
    rootComponent:
      name: lws
      kind: {group: leaderworkerset.x-k8s.io, version: v1, kind: LeaderWorkerSet}
      scaleDefinition: {replicasPath: ".spec.replicas // 1"}
      statusDefinition:
        conditionsDefinition: {path: ".status.conditions"}
        statusMappings:
          running: [{byConditions: [{type: Available, status: "True"}]}]
          initializing: [{byConditions: [{type: Progressing, status: "True"}]}]
    childComponents:
    - name: group
      ownerRef: lws
      podSelector: {replicaSelector: {keyPath: '.metadata.labels["leaderworkerset.sigs.k8s.io/group-index"]'}}
    - name: leader
      ownerRef: group
      specDefinition:
        podTemplateSpecPath: ".spec.leaderWorkerTemplate.leaderTemplate // .spec.leaderWorkerTemplate.workerTemplate"
      podSelector:
        componentTypeSelector:
          keyPath: '.metadata.labels["leaderworkerset.sigs.k8s.io/worker-index"]'
          value: "0"
    - name: worker
      ownerRef: group
      specDefinition: {podTemplateSpecPath: ".spec.leaderWorkerTemplate.workerTemplate"}
      scaleDefinition: {replicasPath: "(.spec.leaderWorkerTemplate.size // 1) - 1"}
      podSelector:
        componentTypeSelector: {keyPath: '.metadata.annotations["leaderworkerset.sigs.k8s.io/leader-name"]'}
"""

JOBSET_DEFINITION = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: test-jobset}
spec:
  structureDefinition:
    rootComponent:
      name: jobset
      kind: {group: jobset.x-k8s.io, version: v1alpha2, kind: JobSet}
      statusDefinition:
        conditionsDefinition: {path: ".status.conditions"}
        statusMappings:
          completed: [{byConditions: [{type: Completed, status: "True"}]}]
          failed: [{byConditions: [{type: Failed, status: "True"}]}]
          suspended: [{byConditions: [{type: Suspended, status: "True"}]}]
          running:
          - byExpression:
              expression: '[.status.replicatedJobsStatus[]?.ready] | add // 0 | . > 0'
              expectedResult: "true"
      suspendDefinition:
        suspendActions: [{path: .spec.suspend, value: "true"}]
        resumeActions: [{path: .spec.suspend, value: "false"}]
    childComponents:
    - name: replicatedjob
      ownerRef: jobset
      instanceIdPath: ".spec.replicatedJobs[].name"
      specDefinition: {podTemplateSpecPath: ".spec.replicatedJobs[].template.spec.template"}
      scaleDefinition:
        replicasPath: ".spec.replicatedJobs[] | (.replicas // 1) * (.template.spec.parallelism // 1)"
      podSelector:
        componentInstanceSelector: {idPath: '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]'}
"""
