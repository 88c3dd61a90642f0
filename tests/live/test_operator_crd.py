"""The generated kartas.run.ai CRD, catalog install/diff and the Helm chart on the genuine kube-apiserver."""

from __future__ import annotations

import json
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from tests.cluster.apiserver import TestCluster
from tests.operator.support import CRD_FILE, eventually, helm_template

from workload_map.api import catalog_install as catalog_sync
from workload_map.catalog import builtin_definitions
from workload_map.operator.kube import operator_connection
from workload_map.sources.kube.connection import Connection

pytestmark = pytest.mark.live


def _ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def crd(test_cluster: TestCluster) -> str:
    _ok(test_cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(CRD_FILE)))

    def established() -> bool:
        out = test_cluster.kubectl(
            "get", "crd/kartas.run.ai", "-o", 'jsonpath={.status.conditions[?(@.type=="Established")].status}'
        ).stdout
        return out.strip() == "True"

    eventually(established, timeout=60, what="kartas.run.ai Established")
    eventually(lambda: test_cluster.kubectl("get", "krt").returncode == 0, timeout=20, what="krt served")
    return "kartas.run.ai"


@pytest.fixture(scope="module")
def conn(test_cluster: TestCluster) -> Iterator[Connection]:
    c = operator_connection(str(test_cluster.kubeconfig_path))
    yield c
    c.close()


def test_every_catalog_definition_accepted(test_cluster: TestCluster, crd: str, tmp_path: Path) -> None:
    names = []
    for definition in builtin_definitions():
        path = tmp_path / f"{definition.name}.yaml"
        path.write_text(yaml.safe_dump(definition.karta.to_dict()))
        _ok(test_cluster.kubectl("apply", "-f", str(path)))
        names.append(definition.name)
    table = _ok(test_cluster.kubectl("get", "krt")).stdout.splitlines()
    assert table[0].split()[:4] == ["NAME", "FRAMEWORK", "ROOT", "COMPONENT"]
    rows = {line.split()[0]: line.split() for line in table[1:]}
    assert set(names) <= set(rows)
    assert rows["apps-deployment-v1"][1:3] == ["Deployment", "deployment"]


INVALID = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: cel-invalid-%s}
spec:
  structureDefinition:
    rootComponent:
      name: root
      ownerRef: other
      kind: {version: v1, kind: Foo}
      specDefinition: {podSpecPath: .a, podTemplateSpecPath: .b}
      instanceIdPath: .ids[]
      podSelector: {componentTypeSelector: {value: x}}
    childComponents:
    - {name: root, ownerRef: root}
    - name: w
      ownerRef: root
      statusDefinition:
        statusMappings:
          running: [{byConditions: [{type: Ready}]}]
"""


def test_cel_rules_reject_with_clear_messages(test_cluster: TestCluster, crd: str) -> None:
    proc = test_cluster.kubectl("apply", "-f", "-", input=INVALID % secrets.token_hex(3))
    assert proc.returncode != 0
    err = proc.stderr
    for message in (
        "componentTypeSelector needs keyPath or matchLabels",
        "componentTypeSelector.value requires keyPath",
        "the root kind needs a group (only core Pod has an empty group)",
        "the root component must not have an ownerRef",
        "the root component needs a statusDefinition",
        "more than one pod spec form",
        "instanceIdPath and podSelector.componentInstanceSelector go together",
        "component names must be unique",
    ):
        assert message in err, (message, err)


# What KAI Scheduler's Karta validator accepts must be storable: a gang-only Karta mapping no status, an
# expected condition with only a type, a metadataPath without podSpecPath (written here, not copied).
KAI_ACCEPTS = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: gang-only-%s}
spec:
  structureDefinition:
    rootComponent:
      name: root
      kind: {group: x.io, version: v1, kind: Gang%s}
      specDefinition: {metadataPath: .metadata}
      statusDefinition:
        statusMappings: {}
    childComponents:
    - name: pods
      kind: {group: "", version: v1, kind: Pod}
      ownerRef: root
      statusDefinition:
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          running: [{byConditions: [{type: Ready}]}]
  optimizationInstructions:
    gangScheduling:
      podGroups: [{name: all, members: [{componentName: pods}]}]
"""


def test_what_kai_accepts_is_stored(test_cluster: TestCluster, crd: str) -> None:
    token = secrets.token_hex(3)
    _ok(test_cluster.kubectl("create", "-f", "-", input=KAI_ACCEPTS % (token, token)))


def test_duplicate_child_names_rejected_by_list_map(test_cluster: TestCluster, crd: str) -> None:
    doc = yaml.safe_load(INVALID % "dup")
    doc["spec"]["structureDefinition"] = {
        "rootComponent": {
            "name": "r",
            "kind": {"group": "x.io", "version": "v1", "kind": "X"},
            "statusDefinition": {
                "statusMappings": {"running": [{"byPhase": "Running"}]},
                "phaseDefinition": {"path": ".status.phase"},
            },
        },
        "childComponents": [{"name": "a", "ownerRef": "r"}, {"name": "a", "ownerRef": "r"}],
    }
    proc = test_cluster.kubectl("create", "-f", "-", input=json.dumps(doc))
    assert proc.returncode != 0
    assert "Duplicate value" in proc.stderr and "childComponents" in proc.stderr, proc.stderr


def test_catalog_install_dry_run_and_diff(
    test_cluster: TestCluster, crd: str, conn: Connection, tmp_path: Path
) -> None:
    # Stored without the catalog's labels, as kubectl applies it, whatever ran before on the shared cluster
    # (tests run in random order; another module's catalog install labels it).
    pod_definition = next(d for d in builtin_definitions() if d.name == "core-pod-v1")
    path = tmp_path / "core-pod-v1.yaml"
    path.write_text(yaml.safe_dump(pod_definition.karta.to_dict()))
    _ok(test_cluster.kubectl("delete", "krt", "core-pod-v1", "--ignore-not-found"))
    _ok(test_cluster.kubectl("create", "-f", str(path)))
    dry = catalog_sync.install(conn, ["RayJob", "core-pod-v1"], dry_run=True)
    assert [r.name for r in dry] == ["ray-io-rayjob-v1", "core-pod-v1"]
    assert all(r.dry_run for r in dry)
    # installed by kubectl without labels: the dry run would configure it, and changed nothing
    live = conn.request("GET", "/apis/run.ai/v1alpha1/kartas/core-pod-v1")
    assert "run.ai/karta-kind" not in (live["metadata"].get("labels") or {})

    results = catalog_sync.install(conn)
    assert {r.action for r in results} <= {"configured", "created", "unchanged"}
    pod = conn.request("GET", "/apis/run.ai/v1alpha1/kartas/core-pod-v1")
    assert pod["metadata"]["labels"] == {
        "run.ai/karta-group": "",
        "run.ai/karta-version": "v1",
        "run.ai/karta-kind": "Pod",
    }
    assert {r.action for r in catalog_sync.install(conn, ["rayjob"])} == {"unchanged"}
    assert {e.state for e in catalog_sync.diff(conn)} == {"same"}

    _ok(test_cluster.kubectl("label", "krt", "ray-io-rayjob-v1", "run.ai/karta-version=v9", "--overwrite"))
    entry = next(e for e in catalog_sync.diff(conn, ["RayJob"]))
    assert entry.state == "differs", entry
    assert "-  run.ai/karta-version: v9" in entry.diff and "+  run.ai/karta-version: v1" in entry.diff, entry.diff
    _ok(test_cluster.kubectl("delete", "krt", "ray-io-rayjob-v1"))
    assert catalog_sync.diff(conn, ["RayJob"])[0].state == "missing"
    assert catalog_sync.install(conn, ["RayJob"])[0].action == "created"


def test_chart_renders_and_applies_server_side(test_cluster: TestCluster, crd: str, tmp_path: Path) -> None:
    ns = f"wmap-chart-{secrets.token_hex(3)}"
    _ok(test_cluster.kubectl("create", "namespace", ns))
    for extra in ([], ["--set", "webhook.certs.mode=self", "--set", "crds.install=false"]):
        rendered = helm_template(*extra, namespace=ns)
        path = tmp_path / "rendered.yaml"
        path.write_text(rendered)
        proc = _ok(test_cluster.kubectl("apply", "--dry-run=server", "-f", str(path)))
        kinds = {line.split("/")[0].split(".")[0] for line in proc.stdout.splitlines()}
        assert {
            "deployment",
            "clusterrole",
            "validatingwebhookconfiguration",
            "mutatingwebhookconfiguration",
            "service",
            "serviceaccount",
            "role",
        } <= kinds, proc.stdout
