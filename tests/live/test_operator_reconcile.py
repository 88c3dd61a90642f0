"""The operator (as a subprocess) against the genuine kube-apiserver: admission, status, CRD watch, restart."""

from __future__ import annotations

import json
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.cluster.apiserver import TestCluster
from tests.operator.support import CRD_FILE, OperatorProcess, eventually, free_port, webhook_configurations

from workload_map.api import catalog_install as catalog_sync
from workload_map.catalog import builtin_definitions
from workload_map.operator import rbac
from workload_map.operator.kube import operator_connection
from workload_map.sources.kube.connection import Connection

pytestmark = pytest.mark.live

KARTAS = "/apis/run.ai/v1alpha1/kartas"
WIDGET_GROUP = "wmap-test.example.com"
WIDGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"widgets.{WIDGET_GROUP}"},
    "spec": {
        "group": WIDGET_GROUP,
        "scope": "Namespaced",
        "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
            }
        ],
    },
}


def _ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def conn(test_cluster: TestCluster) -> Iterator[Connection]:
    c = operator_connection(str(test_cluster.kubeconfig_path))
    yield c
    c.close()


@pytest.fixture(scope="module")
def operator(test_cluster: TestCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OperatorProcess]:
    _ok(test_cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(CRD_FILE)))
    eventually(lambda: test_cluster.kubectl("get", "krt").returncode == 0, timeout=60, what="krt served")
    ns = f"wmap-op-{secrets.token_hex(3)}"
    _ok(test_cluster.kubectl("create", "namespace", ns))
    port = free_port()
    configs = webhook_configurations(f"https://127.0.0.1:{port}", name="workload-map")
    _ok(
        test_cluster.kubectl(
            "apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": configs})
        )
    )
    log = tmp_path_factory.mktemp("operator") / "operator.log"
    op = OperatorProcess(test_cluster.kubeconfig_path, ns, log, webhook_port=port, health_port=free_port())
    op.start()
    try:
        eventually(op.ready, timeout=60, what=f"operator ready (log: {log})")

        def ca_patched() -> bool:
            out = test_cluster.kubectl(
                "get",
                "validatingwebhookconfiguration",
                "workload-map",
                "-o",
                "jsonpath={.webhooks[0].clientConfig.caBundle}",
            ).stdout
            return bool(out.strip())

        eventually(ca_patched, timeout=30, what="caBundle patched")
        yield op
    finally:
        op.stop()
        test_cluster.kubectl("delete", "validatingwebhookconfiguration,mutatingwebhookconfiguration", "workload-map")
        print(log.read_text()[-5000:])


def _conditions(conn: Connection, name: str) -> dict[str, dict[str, Any]]:
    obj = conn.request("GET", f"{KARTAS}/{name}")
    return {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or []}


def _events(test_cluster: TestCluster, name: str) -> list[dict[str, Any]]:
    out = _ok(
        test_cluster.kubectl(
            "get",
            "events",
            "-n",
            "default",
            "-o",
            "json",
            "--field-selector",
            f"involvedObject.name={name},involvedObject.kind=Karta",
        )
    ).stdout
    return list(json.loads(out)["items"])


def _served_by_crd(crds: set[str], group: str, kind: str) -> bool:
    return f"{rbac.plural(kind)}.{group}" in crds


def test_catalog_admitted_and_reconciled(
    test_cluster: TestCluster, operator: OperatorProcess, conn: Connection
) -> None:
    """Every catalog Karta converges to the conditions the *current* cluster implies.

    Other modules share the API server: they install CRDs (JobSet, LWS, PodGroups) and may have created the
    catalog Kartas before (with or without an operator running). So the expectation is computed from the CRDs
    present at each poll, and conditions must be for the current generation — never a stale status left by
    an earlier run — instead of assuming a fresh cluster or an order of transitions.
    """
    catalog_sync.install(conn)
    builtin_groups = ("", "apps", "batch")
    problems: list[str] = []

    def settled() -> bool:
        problems.clear()
        listed = conn.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions")["items"]
        crds = {c["metadata"]["name"] for c in listed}
        for definition in builtin_definitions():
            gvk = definition.karta.identity
            assert gvk is not None
            obj = conn.request("GET", f"{KARTAS}/{definition.name}")
            conds = {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or []}
            generation = obj["metadata"].get("generation")
            served = gvk.group in builtin_groups or _served_by_crd(crds, gvk.group, gvk.kind)
            want = {"Validated": "True", "CRDExists": str(served), "Ready": str(served)}
            got = {t: conds.get(t, {}).get("status") for t in want}
            stale = [t for t, c in conds.items() if c.get("observedGeneration") != generation]
            if got != want or stale:
                problems.append(f"{definition.name}: {got} != {want}, stale: {stale}")
            elif not served and conds["Ready"].get("reason") != "RootKindNotServed":
                problems.append(f"{definition.name}: Ready reason {conds['Ready'].get('reason')}")
        return not problems

    try:
        eventually(settled, timeout=90, what="every catalog Karta reconciled")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; {problems[:5]}") from None
    # The transitions that matter were announced for the current object (whoever reconciled it first).
    for name in ("core-pod-v1", "apps-deployment-v1", "batch-job-v1"):
        uid = conn.request("GET", f"{KARTAS}/{name}")["metadata"]["uid"]
        reasons = {e["reason"] for e in _events(test_cluster, name) if e["involvedObject"].get("uid") == uid}
        assert {"Valid", "Served", "Ready"} <= reasons, (name, reasons)
    pod = conn.request("GET", f"{KARTAS}/core-pod-v1")
    assert pod["metadata"]["labels"]["run.ai/karta-kind"] == "Pod"


def test_crd_appearing_and_disappearing(test_cluster: TestCluster, operator: OperatorProcess, conn: Connection) -> None:
    name = "wmap-test-widget-v1"
    doc = yaml.safe_load(BAD)
    doc["metadata"]["name"] = name
    root = doc["spec"]["structureDefinition"]["rootComponent"]
    root["kind"]["group"] = WIDGET_GROUP
    root["specDefinition"]["podTemplateSpecPath"] = ".spec.template"
    root["statusDefinition"]["phaseDefinition"] = {"path": ".status.phase"}
    _ok(test_cluster.kubectl("apply", "-f", "-", input=json.dumps(doc)))
    eventually(
        lambda: _conditions(conn, name).get("CRDExists", {}).get("status") == "False",
        timeout=30,
        what="Widget Karta not served before its CRD exists",
    )
    _ok(test_cluster.kubectl("apply", "-f", "-", input=json.dumps(WIDGET_CRD)))
    eventually(
        lambda: _conditions(conn, name).get("Ready", {}).get("status") == "True",
        timeout=30,
        what="Widget Karta Ready once its CRD exists",
    )
    _ok(test_cluster.kubectl("delete", "crd", WIDGET_CRD["metadata"]["name"]))
    eventually(
        lambda: _conditions(conn, name).get("CRDExists", {}).get("status") == "False",
        timeout=30,
        what="CRDExists False after the CRD is deleted",
    )
    assert _conditions(conn, name)["Ready"]["status"] == "False"
    uid = conn.request("GET", f"{KARTAS}/{name}")["metadata"]["uid"]
    reasons = [e["reason"] for e in _events(test_cluster, name) if e["involvedObject"].get("uid") == uid]
    assert reasons.count("Served") == 1 and reasons.count("NotServed") == 2, reasons
    _ok(test_cluster.kubectl("delete", "krt", name))


BAD = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: bad-expr}
spec:
  structureDefinition:
    rootComponent:
      name: root
      kind: {group: example.com, version: v1, kind: Widget}
      specDefinition: {podTemplateSpecPath: '.spec.template | del(.x)'}
      statusDefinition:
        statusMappings:
          running: [{byPhase: Running}]
"""


def test_invalid_rejected_with_located_messages(test_cluster: TestCluster, operator: OperatorProcess) -> None:
    proc = test_cluster.kubectl("apply", "-f", "-", input=BAD)
    assert proc.returncode != 0
    err = proc.stderr
    assert 'admission webhook "validate.kartas.run.ai" denied the request' in err, err
    assert "spec.structureDefinition.rootComponent.specDefinition.podTemplateSpecPath" in err, err
    assert "'del'" in err, err
    # A warning-level finding rides along with the denial, as kubectl's "Warning:" line.
    assert "Warning: " in err, err
    assert "statusMappings.running[0].byPhase: byPhase needs statusDefinition.phaseDefinition" in err, err


def test_second_karta_for_same_root_kind_rejected(test_cluster: TestCluster, operator: OperatorProcess) -> None:
    definition = next(d for d in builtin_definitions() if d.name == "apps-deployment-v1")
    doc = definition.karta.to_dict()
    doc["metadata"] = {"name": "another-deployment"}
    proc = test_cluster.kubectl("create", "-f", "-", input=json.dumps(doc))
    assert proc.returncode != 0
    assert "already defined by Karta 'apps-deployment-v1'" in proc.stderr, proc.stderr


def test_labels_stamped_and_root_kind_immutable(
    test_cluster: TestCluster, operator: OperatorProcess, conn: Connection
) -> None:
    _ok(test_cluster.kubectl("label", "krt", "batch-job-v1", "run.ai/karta-kind=Wrong", "--overwrite"))
    labels = conn.request("GET", f"{KARTAS}/batch-job-v1")["metadata"]["labels"]
    assert labels["run.ai/karta-kind"] == "Job"  # the mutating webhook restamped it
    proc = test_cluster.kubectl(
        "patch",
        "krt",
        "batch-job-v1",
        "--type=merge",
        "-p",
        '{"spec":{"structureDefinition":{"rootComponent":{"kind":{"version":"v2"}}}}}',
    )
    assert proc.returncode != 0 and "is immutable" in proc.stderr, proc.stderr


def test_restart_mid_reconcile_converges_without_duplicates(
    test_cluster: TestCluster, operator: OperatorProcess, conn: Connection, tmp_path: Path
) -> None:
    definition = next(d for d in builtin_definitions() if d.name == "apps-daemonset-v1")
    _ok(test_cluster.kubectl("delete", "krt", definition.name, "--ignore-not-found"))
    before = {d.name: len(_events(test_cluster, d.name)) for d in builtin_definitions()[:6]}
    path = tmp_path / "ds.yaml"
    path.write_text(yaml.safe_dump(definition.karta.to_dict()))
    _ok(test_cluster.kubectl("create", "-f", str(path)))
    operator.stop(kill=True)  # SIGKILL while the new Karta is being reconciled
    operator.identity = "test-operator-2"
    operator.start()
    eventually(operator.ready, timeout=60, what="restarted operator ready")
    eventually(
        lambda: _conditions(conn, definition.name).get("Ready", {}).get("status") == "True",
        timeout=60,
        what="Ready after restart",
    )
    # a resync round after the restart must not add anything
    uid = conn.request("GET", f"{KARTAS}/{definition.name}")["metadata"]["uid"]
    events = [e for e in _events(test_cluster, definition.name) if e["involvedObject"].get("uid") == uid]
    reasons = sorted(e["reason"] for e in events)
    # No transition announced twice (the restart's deterministic names), and the ones that matter are there.
    assert len(reasons) == len(set(reasons)) and {"Ready", "Served", "Valid"} <= set(reasons), reasons
    assert all(e.get("count", 1) == 1 for e in events)
    labels = conn.request("GET", f"{KARTAS}/{definition.name}")["metadata"]["labels"]
    assert labels["run.ai/karta-kind"] == "DaemonSet"
    after = {name: len(_events(test_cluster, name)) for name in before if name != definition.name}
    assert after == {k: v for k, v in before.items() if k != definition.name}
