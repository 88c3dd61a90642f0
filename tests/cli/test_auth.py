"""``wmap auth``: the CLI's minimal roles, derived from the definitions in use."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from workload_map.catalog import builtin_definitions
from workload_map.cli.main import cli
from workload_map.sources.kube.access import plural
from workload_map.sources.kube.reads import child_kinds


def _docs(*args: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(cli, ["auth", *args])
    assert result.exit_code == 0, result.output
    return [d for d in yaml.safe_load_all(result.stdout) if d]


def _grants(rules: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(g, r, v) for rule in rules for g in rule["apiGroups"] for r in rule["resources"] for v in rule["verbs"]}


def test_read_only_clusterrole_reads_what_the_cli_lists_and_nothing_else() -> None:
    [role] = _docs()
    assert role["kind"] == "ClusterRole" and role["metadata"]["name"] == "wmap-reader"
    grants = _grants(role["rules"])
    assert {v for _, _, v in grants} == {"get", "list", "watch"}
    resources = {(g, r) for g, r, _ in grants}
    roots = {(d.karta.identity.group, plural(d.karta.identity.kind)) for d in builtin_definitions() if d.karta.identity}
    owners = {(g, plural(k)) for g, k in child_kinds(builtin_definitions())}
    assert resources == roots | owners | {("run.ai", "kartas"), ("", "events")}
    assert ("run.ai", "kartas", "watch") in grants  # `wmap serve` takes a changed Karta into effect
    # describe lists the namespace's Events, serve watches them; nothing else is read of them
    assert {v for g, r, v in grants if (g, r) == ("", "events")} == {"list", "watch"}
    for core in ("secrets", "configmaps", "services", "serviceaccounts"):
        assert ("", core) not in resources


def test_update_adds_patch_on_workload_kinds_only() -> None:
    [reader] = _docs()
    [updater] = _docs("--update")
    assert updater["metadata"]["name"] == "wmap-updater"
    added = _grants(updater["rules"]) - _grants(reader["rules"])
    assert {v for _, _, v in added} == {"patch"}
    roots = {(d.karta.identity.group, plural(d.karta.identity.kind)) for d in builtin_definitions() if d.karta.identity}
    assert {(g, r) for g, r, _ in added} == roots - {("run.ai", "kartas")}
    assert ("", "pods", "patch") in added  # bare pods are a covered workload kind (core-pod-v1)


def test_namespaced_role_keeps_kartas_in_a_clusterrole() -> None:
    cluster, role = _docs("-n", "team-a", "--name", "alice")
    assert cluster["kind"] == "ClusterRole" and cluster["metadata"]["name"] == "alice-definitions"
    assert cluster["rules"] == [{"apiGroups": ["run.ai"], "resources": ["kartas"], "verbs": ["get", "list", "watch"]}]
    assert role["kind"] == "Role" and role["metadata"] == {
        "name": "alice",
        "namespace": "team-a",
        "labels": {"app.kubernetes.io/name": "workload-map", "app.kubernetes.io/component": "cli"},
    }
    assert all(r["apiGroups"] != ["run.ai"] for r in role["rules"])


def test_user_definitions_widen_the_role_and_json_is_a_list(defs_file: Path) -> None:
    result = CliRunner().invoke(cli, ["auth", "-o", "json", "--definitions", str(defs_file)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["kind"] == "List"
    grants = _grants(doc["items"][0]["rules"])
    assert ("test.wmap.io", "minijobs", "list") in grants
