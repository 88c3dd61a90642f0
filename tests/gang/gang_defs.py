"""Small definitions and workloads for the gang tests (docs/gang.md)."""

from __future__ import annotations

from typing import Any

STATUS = """
      statusDefinition:
        conditionsDefinition: {path: ".status.conditions"}
        statusMappings:
          running: [{byConditions: [{type: Running, status: "True"}]}]
"""

# A training job: root without scale, master (replicas) + worker (replicas, minReplicas); one gang per job.
TRAIN = (
    """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: test-train}
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: example.com, version: v1, kind: TrainJob}
"""
    + STATUS
    + """
    childComponents:
    - name: master
      ownerRef: job
      specDefinition: {podTemplateSpecPath: ".spec.master.template"}
      scaleDefinition: {replicasPath: ".spec.master.replicas // 1"}
      podSelector: {componentTypeSelector: {matchLabels: {role: master}}}
    - name: worker
      ownerRef: job
      specDefinition: {podTemplateSpecPath: ".spec.worker.template"}
      scaleDefinition: {replicasPath: ".spec.worker.replicas", minReplicasPath: ".spec.worker.minReplicas"}
      podSelector: {componentTypeSelector: {matchLabels: {role: worker}}}
  optimizationInstructions:
    gangScheduling:
      podGroups:
      - name: job
        members:
        - componentName: job
          groupByKeyPaths: []
"""
)

# LeaderWorkerSet-like: one gang per replica, keyed by the workload name label and the replica index.
LWS = (
    """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: test-lws}
spec:
  structureDefinition:
    rootComponent:
      name: lws
      kind: {group: example.com, version: v1, kind: LeaderSet}
      scaleDefinition: {replicasPath: ".spec.replicas // 1"}
"""
    + STATUS
    + """
    childComponents:
    - name: group
      ownerRef: lws
      podSelector: {replicaSelector: {keyPath: '.metadata.labels["example.com/group-index"]'}}
    - name: leader
      ownerRef: group
      specDefinition: {podTemplateSpecPath: ".spec.template"}
      scaleDefinition: {replicasPath: "1"}
      podSelector: {componentTypeSelector: {matchLabels: {role: leader}}}
    - name: worker
      ownerRef: group
      specDefinition: {podTemplateSpecPath: ".spec.template"}
      scaleDefinition: {replicasPath: ".spec.size - 1"}
      podSelector: {componentTypeSelector: {matchLabels: {role: worker}}}
  optimizationInstructions:
    gangScheduling:
      podGroups:
      - name: group
        members:
        - componentName: group
          groupByKeyPaths:
          - '.metadata.labels["example.com/name"]'
          - '.metadata.labels["example.com/group-index"]'
"""
)

# Two pod roles; decode pods that opt in (filter) gang per shard, every other pod falls back to the root.
SERVE = (
    """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: test-serve}
spec:
  structureDefinition:
    rootComponent:
      name: svc
      kind: {group: example.com, version: v1, kind: Serve}
"""
    + STATUS
    + """
    childComponents:
    - name: prefill
      ownerRef: svc
      specDefinition: {podTemplateSpecPath: ".spec.prefill.template"}
      scaleDefinition: {replicasPath: ".spec.prefill.replicas"}
      podSelector: {componentTypeSelector: {matchLabels: {role: prefill}}}
    - name: decode
      ownerRef: svc
      specDefinition: {podTemplateSpecPath: ".spec.decode.template"}
      scaleDefinition: {replicasPath: ".spec.decode.replicas"}
      podSelector: {componentTypeSelector: {matchLabels: {role: decode}}}
  optimizationInstructions:
    gangScheduling:
      podGroups:
      - name: decode
        members:
        - componentName: decode
          groupByKeyPaths: ['.metadata.labels.shard']
          filters: ['.metadata.labels.gang == "yes"']
      - name: everything
        members:
        - componentName: svc
"""
)

# JobSet-like: one component with an instance per replicated job; one gang per replicated job.
SETS = (
    """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: test-sets}
spec:
  structureDefinition:
    rootComponent:
      name: set
      kind: {group: example.com, version: v1, kind: JobGroup}
"""
    + STATUS
    + """
    childComponents:
    - name: rjob
      ownerRef: set
      instanceIdPath: ".spec.jobs[].name"
      specDefinition: {podTemplateSpecPath: ".spec.jobs[].template"}
      scaleDefinition: {replicasPath: ".spec.jobs[].replicas"}
      podSelector:
        componentTypeSelector: {keyPath: '.metadata.labels["example.com/job"]'}
        componentInstanceSelector: {idPath: '.metadata.labels["example.com/job"]'}
  optimizationInstructions:
    gangScheduling:
      podGroups:
      - name: rjob
        members:
        - componentName: rjob
          groupByKeyPaths: ['.metadata.labels["example.com/job"]']
"""
)

# The newer form: one group, one sub-group per component, topology.
SINGLE = (
    """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: test-single}
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: example.com, version: v1, kind: Disagg}
"""
    + STATUS
    + """
    childComponents:
    - name: leader
      ownerRef: job
      specDefinition: {podTemplateSpecPath: ".spec.leader.template"}
      scaleDefinition: {replicasPath: ".spec.leader.replicas"}
      podSelector: {componentTypeSelector: {matchLabels: {role: leader}}}
    - name: worker
      ownerRef: job
      specDefinition: {podTemplateSpecPath: ".spec.worker.template"}
      scaleDefinition: {replicasPath: ".spec.worker.replicas"}
      podSelector: {componentTypeSelector: {matchLabels: {role: worker}}}
  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: main
        topology: {topologyName: default, requiredTopologyLevel: rack}
        subGroups:
        - componentName: leader
        - componentName: worker
          topology: {topologyName: default, preferredTopologyLevel: kubernetes.io/hostname}
"""
)


def template(
    role: str, gpus: int = 0, cpu: str = "1", memory: str = "1Gi", product: str | None = None
) -> dict[str, Any]:
    resources: dict[str, Any] = {"requests": {"cpu": cpu, "memory": memory}}
    if gpus:
        resources["limits"] = {"nvidia.com/gpu": str(gpus)}
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "x", "resources": resources}]}
    if product:
        spec["nodeSelector"] = {"nvidia.com/gpu.product": product}
    return {"metadata": {"labels": {"role": role}}, "spec": spec}


def workload(kind: str, spec: dict[str, Any], *, name: str = "w", uid: str | None = "uid1") -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": "ns"}
    if uid:
        metadata["uid"] = uid
    return {"apiVersion": "example.com/v1", "kind": kind, "metadata": metadata, "spec": spec}


def member_pod(
    name: str,
    labels: dict[str, str],
    *,
    phase: str = "Running",
    node: str | None = "n1",
    reason: str | None = None,
    gpus: int = 0,
) -> dict[str, Any]:
    conditions = []
    if reason:
        conditions.append({"type": "PodScheduled", "status": "False", "reason": reason, "message": "0/4 nodes"})
    container: dict[str, Any] = {"name": "main", "image": "x"}
    if gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    spec: dict[str, Any] = {"containers": [container]}
    if node and phase != "Pending":
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ns", "labels": labels},
        "spec": spec,
        "status": {"phase": phase, "conditions": conditions},
    }
