"""Small CRDs and objects of our own, shaped like the operators the drafting tool meets."""

from __future__ import annotations

import json
from typing import Any

CONTAINERS = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["name"],
        "properties": {"name": {"type": "string"}, "image": {"type": "string"}, "command": {"type": "array"}},
    },
}
POD_SPEC = {"type": "object", "properties": {"containers": CONTAINERS}}
TEMPLATE = {"type": "object", "properties": {"metadata": {"type": "object"}, "spec": POD_SPEC}}


def crd(group: str, kind: str, spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {"spec": {"type": "object", "properties": spec}}}
    if status is not None:
        schema["properties"]["status"] = {"type": "object", "properties": status}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{kind.lower()}s.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"kind": kind, "plural": f"{kind.lower()}s"},
            "versions": [
                {"name": "v1alpha1", "served": True, "storage": False, "schema": {"openAPIV3Schema": {}}},
                {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}},
            ],
        },
    }


CONDITIONS = {
    "conditions": {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["Created", "Running", "Succeeded", "Failed", "Suspended"]},
                "status": {"type": "string"},
            },
        },
    }
}

# A map of roles (like a Kubeflow job): one pod per replica, bare pods owned by the root.
TRAINRUN = crd(
    "example.com",
    "TrainRun",
    {
        "suspend": {"type": "boolean"},
        "roleSpecs": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {"replicas": {"type": "integer", "default": 1}, "template": TEMPLATE},
            },
        },
    },
    CONDITIONS,
)

# A list of named groups with min/max and hosts, plus a single head (like a Ray cluster), a phase enum.
CLUSTER = crd(
    "example.com",
    "Fleet",
    {
        "head": {"type": "object", "properties": {"template": TEMPLATE}},
        "groups": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string"},
                    "replicas": {"type": "integer"},
                    "minReplicas": {"type": "integer"},
                    "maxReplicas": {"type": "integer"},
                    "numOfHosts": {"type": "integer"},
                    "template": TEMPLATE,
                },
            },
        },
    },
    {"phase": {"type": "string", "enum": ["Pending", "Ready", "Failed", "Stopped"]}},
)

# A bare PodSpec with a replica count (like a notebook server), nothing enumerated in the status.
SERVER = crd(
    "example.com",
    "Server",
    {"replicas": {"type": "integer"}, "podSpec": POD_SPEC},
    {"readyReplicas": {"type": "integer"}},
)


def container(name: str) -> dict[str, Any]:
    return {"name": name, "image": f"example.com/{name}:1"}


def trainrun(expect: dict[str, Any] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "run1", "namespace": "ml", "uid": "uid-run1"}
    if expect is not None:
        metadata["annotations"] = {"workload-map.run.ai/expect": json.dumps(expect)}
    return {
        "apiVersion": "example.com/v1",
        "kind": "TrainRun",
        "metadata": metadata,
        "spec": {
            "roleSpecs": {
                "Leader": {"template": {"spec": {"containers": [container("leader")]}}},
                "Worker": {"replicas": 3, "template": {"spec": {"containers": [container("trainer")]}}},
            }
        },
        "status": {"conditions": [{"type": "Created", "status": "True"}, {"type": "Running", "status": "True"}]},
    }


def pod(name: str, owner: dict[str, Any], labels: dict[str, str], containers: list[str]) -> dict[str, Any]:
    meta = owner["metadata"]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": meta["namespace"],
            "labels": labels,
            "ownerReferences": [
                {
                    "apiVersion": owner["apiVersion"],
                    "kind": owner["kind"],
                    "name": meta["name"],
                    "uid": meta["uid"],
                    "controller": True,
                }
            ],
        },
        "spec": {"containers": [container(c) for c in containers]},
        "status": {"phase": "Running"},
    }


def trainrun_pods(run: dict[str, Any]) -> list[dict[str, Any]]:
    pods = [pod("run1-leader-0", run, {"example.com/role": "leader", "example.com/index": "0"}, ["leader"])]
    for i in range(3):
        labels = {"example.com/role": "worker", "example.com/index": str(i)}
        pods.append(pod(f"run1-worker-{i}", run, labels, ["trainer"]))
    return pods


def fleet() -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Fleet",
        "metadata": {"name": "f1", "namespace": "ml", "uid": "uid-f1"},
        "spec": {
            "head": {"template": {"spec": {"containers": [container("head")]}}},
            "groups": [
                {"name": "small", "replicas": 2, "template": {"spec": {"containers": [container("cpu")]}}},
                {
                    "name": "big",
                    "replicas": 2,
                    "numOfHosts": 2,
                    "minReplicas": 1,
                    "maxReplicas": 3,
                    "template": {"spec": {"containers": [container("gpu")]}},
                },
            ],
        },
        "status": {"phase": "Ready"},
    }


def fleet_objects() -> list[dict[str, Any]]:
    """The fleet, a StatefulSet per group it owns (an intermediate owner) and their pods."""
    root = fleet()
    # The templates set a label of their own (constant per role, but the user's, not the operator's), and
    # every pod carries its controller's per-object label: neither may be taken for the role's selector.
    root["spec"]["head"]["template"]["metadata"] = {"labels": {"app": "fleet-head"}}
    for group in root["spec"]["groups"]:
        group["template"]["metadata"] = {"labels": {"app": "fleet-workers"}}
    head_labels = {"example.com/node": "head", "app": "fleet-head", "controller-uid": "uid-f1"}
    objects = [root, pod("f1-head", root, head_labels, ["head"])]
    for group, count, image in (("small", 2, "cpu"), ("big", 4, "gpu")):
        owner = {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {
                "name": f"f1-{group}",
                "namespace": "ml",
                "uid": f"uid-sts-{group}",
                "ownerReferences": [
                    {"apiVersion": "example.com/v1", "kind": "Fleet", "name": "f1", "uid": "uid-f1", "controller": True}
                ],
            },
        }
        objects.append(owner)
        for i in range(count):
            labels = {
                "example.com/node": "worker",
                "example.com/group": group,
                # one replica of the big group is two hosts; a small replica is one pod
                "example.com/replica": f"{group}-{i // 2 if group == 'big' else i}",
                "app": "fleet-workers",
                "controller-uid": f"uid-sts-{group}",
            }
            objects.append(pod(f"f1-{group}-{i}", owner, labels, [image]))
    return objects
