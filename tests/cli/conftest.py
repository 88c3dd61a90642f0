"""Small definitions and dumps written in the test itself: the CLI tests never depend on the catalog."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from workload_map.cli.main import cli

WMAP = Path(sys.executable).parent / "wmap"

DEFINITIONS = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: test-wmap-io-minijob-v1}
spec:
  structureDefinition:
    rootComponent:
      name: minijob
      kind: {group: test.wmap.io, version: v1, kind: MiniJob}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          running:
            - byPhase: Running
          completed:
            - byConditions: [{type: Complete, status: "True"}]
          failed:
            - byExpression: {expression: '(.status.failed // 0) > 0', expectedResult: "true"}
    childComponents:
      - name: role
        ownerRef: minijob
        instanceIdPath: '.spec.roles[].name'
        specDefinition: {podTemplateSpecPath: '.spec.roles[].template'}
        scaleDefinition: {replicasPath: '.spec.roles[].replicas'}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["test.wmap.io/role"]'}
          componentInstanceSelector: {idPath: '.metadata.labels["test.wmap.io/role"]'}
---
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: test-wmap-io-group-v1}
spec:
  structureDefinition:
    rootComponent:
      name: grp
      kind: {group: test.wmap.io, version: v1, kind: Group}
      scaleDefinition: {replicasPath: .spec.replicas}
      statusDefinition:
        statusMappings:
          running:
            - byExpression: {expression: '.status.readyReplicas == .spec.replicas', expectedResult: "true"}
    childComponents:
      - name: group
        ownerRef: grp
        podSelector:
          replicaSelector: {keyPath: .metadata.labels.idx}
      - name: leader
        ownerRef: group
        specDefinition: {podTemplateSpecPath: .spec.leader}
        scaleDefinition: {replicasPath: '1'}
        podSelector:
          componentTypeSelector: {keyPath: .metadata.labels.role, value: leader}
      - name: worker
        ownerRef: group
        specDefinition: {podTemplateSpecPath: .spec.worker}
        scaleDefinition: {replicasPath: '.spec.size - 1'}
        podSelector:
          componentTypeSelector: {keyPath: .metadata.labels.role, value: worker}
"""

# Same kind name in another group: "minijob" becomes ambiguous when both are loaded.
OTHER_MINIJOB = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: other-wmap-io-minijob-v1}
spec:
  structureDefinition:
    rootComponent:
      name: minijob
      kind: {group: other.wmap.io, version: v1, kind: MiniJob}
      statusDefinition:
        statusMappings:
          running:
            - byExpression: {expression: 'true', expectedResult: "true"}
"""


def template(gpus: int) -> dict[str, Any]:
    resources = {"requests": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": str(gpus)}}
    return {"metadata": {}, "spec": {"containers": [{"name": "main", "resources": resources}]}}


def pod(
    name: str,
    namespace: str,
    owner: tuple[str, str, str] | None,
    labels: dict[str, str],
    *,
    phase: str = "Running",
    gpus: int = 1,
    unschedulable: bool = False,
) -> dict[str, Any]:
    ready = phase == "Running"
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "labels": labels}
    if owner is not None:
        kind, owner_name, uid = owner
        metadata["ownerReferences"] = [
            {"apiVersion": "test.wmap.io/v1", "kind": kind, "name": owner_name, "uid": uid, "controller": True}
        ]
    conditions = [{"type": "Ready", "status": "True" if ready else "False"}]
    if unschedulable:
        conditions.append(
            {
                "type": "PodScheduled",
                "status": "False",
                "reason": "Unschedulable",
                "message": "0/3 nodes are available: insufficient nvidia.com/gpu",
            }
        )
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {
            "nodeName": None if unschedulable else "node-a",
            "containers": [{"name": "main", "resources": template(gpus)["spec"]["containers"][0]["resources"]}],
        },
        "status": {
            "phase": phase,
            "conditions": conditions,
            "containerStatuses": [] if unschedulable else [{"name": "main", "ready": ready, "restartCount": 0}],
        },
    }


def minijob(
    name: str, namespace: str | None, uid: str, *, phase: str = "Running", labels: Any = None
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "uid": uid, "labels": labels or {}}
    if namespace is not None:
        metadata["namespace"] = namespace
    metadata["creationTimestamp"] = "2024-01-01T00:00:00Z"
    return {
        "apiVersion": "test.wmap.io/v1",
        "kind": "MiniJob",
        "metadata": metadata,
        "spec": {
            "roles": [
                {"name": "master", "replicas": 1, "template": template(1)},
                {"name": "worker", "replicas": 2, "template": template(2)},
            ]
        },
        "status": {
            "phase": phase,
            "conditions": [{"type": "Complete", "status": "False", "reason": "Running", "message": "still going"}],
            "failed": 1 if phase == "Failed" else 0,
        },
    }


def objects() -> list[dict[str, Any]]:
    train_owner = ("MiniJob", "train", "u-train")
    items = [
        minijob("train", "default", "u-train", labels={"team": "nlp", "tier": "gold"}),
        pod("train-master-0", "default", train_owner, {"test.wmap.io/role": "master"}, gpus=1),
        pod("train-worker-0", "default", train_owner, {"test.wmap.io/role": "worker"}, gpus=2),
        pod(
            "train-worker-1",
            "default",
            train_owner,
            {"test.wmap.io/role": "worker"},
            phase="Pending",
            gpus=2,
            unschedulable=True,
        ),
        minijob("broken", "default", "u-broken", phase="Failed", labels={"team": "vision"}),
        minijob("eval", "research", "u-eval", labels={"team": "nlp"}),
        {
            "apiVersion": "test.wmap.io/v1",
            "kind": "Group",
            "metadata": {"name": "llm", "namespace": "serving", "uid": "u-llm"},
            "spec": {"replicas": 2, "size": 2, "leader": template(1), "worker": template(1)},
            "status": {"readyReplicas": 2},
        },
    ]
    for index in range(2):
        owner = ("Group", "llm", "u-llm")
        items.append(pod(f"llm-{index}", "serving", owner, {"idx": str(index), "role": "leader"}))
        items.append(pod(f"llm-{index}-1", "serving", owner, {"idx": str(index), "role": "worker"}))
    return items


@pytest.fixture
def defs_file(tmp_path: Path) -> Path:
    path = tmp_path / "defs.yaml"
    path.write_text(DEFINITIONS)
    return path


@pytest.fixture
def dump_file(tmp_path: Path) -> Path:
    path = tmp_path / "dump.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects()}))
    return path


Invoke = Callable[..., Result]


@pytest.fixture
def wmap(dump_file: Path, defs_file: Path, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """Run ``wmap ARGS --from-file dump --definitions defs`` in-process (the source flags only for
    the commands that read objects)."""
    monkeypatch.delenv("NO_COLOR", raising=False)

    def run(*args: str, sources: bool = True, env: dict[str, str] | None = None) -> Result:
        argv = list(args)
        if sources:
            argv += ["--from-file", str(dump_file), "--definitions", str(defs_file)]
        return CliRunner().invoke(cli, argv, env=env, catch_exceptions=False)

    return run


def run_wmap(
    *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The installed console script, as a user runs it."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [str(WMAP), *args], capture_output=True, text=True, env=full_env, input=stdin, timeout=120, check=False
    )
