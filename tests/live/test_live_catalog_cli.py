"""``wmap catalog install|diff`` against the genuine API server with the generated Karta CRD."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner, Result
from live_data import ensure_crds
from tests.cluster.apiserver import TestCluster

from workload_map.cli.main import cli

pytestmark = pytest.mark.live

KIND = "SparkApplication"
NAME = "sparkoperator-k8s-io-sparkapplication-v1beta2"


def wmap(cluster: TestCluster, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--kubeconfig", str(cluster.kubeconfig_path)], catch_exceptions=False)


def test_install_dry_run_install_and_diff(test_cluster: TestCluster) -> None:
    ensure_crds(test_cluster, "kartas.run.ai")
    test_cluster.kubectl("delete", "krt", NAME, "--ignore-not-found")

    dry = wmap(test_cluster, "catalog", "install", "--dry-run", KIND)
    assert dry.exit_code == 0, dry.output
    assert dry.stdout == f"karta.run.ai/{NAME} created (server dry run)\n"
    assert test_cluster.kubectl("get", "krt", NAME).returncode != 0  # nothing stored

    missing = wmap(test_cluster, "catalog", "diff", KIND)
    assert missing.exit_code == 1 and "missing on the cluster" in missing.stdout

    created = wmap(test_cluster, "catalog", "install", KIND)
    assert created.exit_code == 0 and created.stdout == f"karta.run.ai/{NAME} created\n", created.output
    stored = json.loads(test_cluster.kubectl("get", "krt", NAME, "-o", "json").stdout)
    assert stored["metadata"]["labels"]["run.ai/karta-kind"] == KIND
    assert stored["metadata"]["labels"]["run.ai/karta-group"] == "sparkoperator.k8s.io"
    assert wmap(test_cluster, "catalog", "diff", KIND).exit_code == 0

    # Someone edits the cluster copy: diff shows it, install puts the catalog back.
    patch = json.dumps({"spec": {"structureDefinition": {"additionalChildKinds": []}}})
    edited = test_cluster.kubectl("patch", "krt", NAME, "--type=merge", "-p", patch)
    assert edited.returncode == 0, edited.stderr
    differs = wmap(test_cluster, "catalog", "diff", KIND)
    assert differs.exit_code == 1
    assert f"--- cluster/{NAME}" in differs.stdout and "additionalChildKinds" in differs.stdout
    again = wmap(test_cluster, "catalog", "install", KIND)
    assert again.stdout == f"karta.run.ai/{NAME} configured\n", again.output
    assert wmap(test_cluster, "catalog", "diff", KIND).exit_code == 0


def test_unknown_kind_and_unreachable_cluster(test_cluster: TestCluster) -> None:
    unknown = wmap(test_cluster, "catalog", "install", "NoSuchKind")
    assert unknown.exit_code == 4 and "no built-in definition for 'NoSuchKind'" in unknown.stderr
    dead = CliRunner().invoke(cli, ["catalog", "diff", "--kubeconfig", "/nonexistent/kubeconfig"])
    assert dead.exit_code == 1 and dead.stderr.startswith("error: ") and "Traceback" not in dead.output
