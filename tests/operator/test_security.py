"""Least privilege, checked on what ships: the permission tables of docs/security.md against the generated
RBAC, no Secret beyond the operator's own, and the chart's container hardening on the rendered chart."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml
from tests.operator.support import REPO_ROOT, helm_template

from workload_map.catalog import builtin_definitions
from workload_map.definition.loader import load_text
from workload_map.operator import rbac
from workload_map.queues import QUEUE_KINDS
from workload_map.sources.kube import access
from workload_map.sources.kube.reads import child_kinds, cli_read_kinds, operator_read_kinds

SECURITY_DOC = REPO_ROOT / "docs" / "security.md"
# (api group, resource, verb, limited to named objects)
Grant = tuple[str, str, str, bool]


def _table(heading: str) -> set[Grant]:
    """The grants one permission table of docs/security.md documents."""
    lines = SECURITY_DOC.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("### ") and heading in line)
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("### "):
            break
        if line.startswith("| `"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    assert rows, f"no table under {heading!r} in {SECURITY_DOC}"
    out: set[Grant] = set()
    for group_cell, resources_cell, verbs_cell, why in rows:
        assert why, f"a rule without a reason in docs/security.md: {group_cell} {resources_cell}"
        group = group_cell.strip("`").replace('""', "")
        named = "resourceNames" in verbs_cell
        verbs = re.sub(r"\(.*\)", "", verbs_cell)
        for resource in re.findall(r"`([^`]+)`", resources_cell):
            for verb in verbs.split(","):
                out.add((group, resource, verb.strip(), named))
    return out


def _grants(rules: list[dict[str, Any]]) -> set[Grant]:
    return {
        (group, resource, verb, bool(rule.get("resourceNames")))
        for rule in rules
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    }


def _chart_docs(*args: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(helm_template(*args)) if d]


WEBHOOK_RULE = {
    "apiGroups": ["admissionregistration.k8s.io"],
    "resources": ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"],
    "resourceNames": ["wm-workload-map"],
    "verbs": ["get", "patch"],
}


def _diff_message(granted: set[Grant], documented: set[Grant]) -> str:
    missing = sorted(granted - documented)
    stale = sorted(documented - granted)
    return (
        f"granted but not in docs/security.md (add a line saying why, or do not grant it): {missing}; "
        f"documented but no longer granted (remove the line): {stale}"
    )


def test_every_clusterrole_rule_has_its_line_in_the_table() -> None:
    granted = _grants([*rbac.cluster_rules(), WEBHOOK_RULE])
    documented = _table("Operator: ClusterRole")
    assert granted == documented, _diff_message(granted, documented)


def test_a_new_definition_that_widens_the_role_fails_the_table_check() -> None:
    # A definition whose root is a gang workload of a new group, with a new pod-owning child kind and an
    # additionalChildKinds Secret: the role grows by the two kinds read, never by the Secret.

    base = next(d for d in builtin_definitions() if d.karta.identity and d.karta.identity.kind == "JobSet")
    doc = base.karta.to_dict()
    doc["metadata"] = {"name": "widget"}
    root = doc["spec"]["structureDefinition"]["rootComponent"]
    root["kind"] = {"group": "example.com", "version": "v1", "kind": "Widget"}
    doc["spec"]["structureDefinition"]["additionalChildKinds"] = [
        {"group": "", "version": "v1", "kind": "Secret"},
        {"group": "example.com", "version": "v1", "kind": "WidgetShard"},
    ]
    loaded, findings = load_text(json.dumps(doc).encode(), "widget.json", origin="test")
    assert not findings and len(loaded) == 1
    widget = loaded[0]
    assert ("example.com", "WidgetShard") in child_kinds([widget])
    granted = _grants([*rbac.cluster_rules([*builtin_definitions(), widget]), WEBHOOK_RULE])
    extra = granted - _table("Operator: ClusterRole")
    assert {(g, r) for g, r, _, _ in extra} == {("example.com", "widgets"), ("example.com", "widgetshards")}
    assert not any(r == "secrets" for _, r, _, _ in granted)


def test_clusterrole_has_no_secret_configmap_or_service_and_reads_no_named_only_kind() -> None:
    rules = rbac.cluster_rules()
    resources = {(g, r) for g, r, _, _ in _grants(rules)}
    for core in ("secrets", "configmaps", "services", "serviceaccounts", "persistentvolumeclaims"):
        assert ("", core) not in resources
    # every kind a built-in definition names only in additionalChildKinds and that owns no pod stays out
    named_only = {
        (gvk.group, access.plural(gvk.kind))
        for d in builtin_definitions()
        for gvk in d.karta.spec.structure_definition.additional_child_kinds
        if (gvk.group, gvk.kind) not in child_kinds([d])
    }
    own = {(r["apiGroups"][0], res) for r in rbac.OWN_RULES for res in r["resources"]}
    leaked = (
        (named_only & resources) - own - {(g, access.plural(k)) for g, k in operator_read_kinds(builtin_definitions())}
    )
    assert not leaked
    assert ("", "secrets") in named_only  # the case the rule is about (MPIJob's SSH Secret) is still named
    # nothing on workloads or pods but reads
    reads = {(g, access.plural(k)) for g, k in operator_read_kinds(builtin_definitions())}
    for group, resource, verb, _ in _grants(rules):
        if (group, resource) in reads and (group, resource) not in own:
            assert verb in access.READ, (group, resource, verb)


def test_role_table_and_chart_role() -> None:
    documented = _table("Operator: Role in its own namespace")
    assert _grants(rbac.namespaced_rules()) == documented, _diff_message(_grants(rbac.namespaced_rules()), documented)
    docs = _chart_docs()
    role = next(d for d in docs if d["kind"] == "Role")
    assert _grants(role["rules"]) == documented
    secret_rules = [r for r in role["rules"] if "secrets" in r["resources"]]
    assert secret_rules == [
        {
            "apiGroups": [""],
            "resources": ["secrets"],
            "resourceNames": ["wm-workload-map-webhook-tls"],
            "verbs": ["get", "update"],
        }
    ]
    # the Secret the rule names is created by the chart, empty (the operator may not create Secrets)
    secret = next(d for d in docs if d["kind"] == "Secret")
    assert secret["metadata"]["name"] == "wm-workload-map-webhook-tls" and "data" not in secret
    # cert-manager mode: no rule on Secrets at all, and no placeholder
    docs = _chart_docs("--set", "webhook.certs.mode=cert-manager")
    role = next(d for d in docs if d["kind"] == "Role")
    assert not [r for r in role["rules"] if "secrets" in r["resources"]]
    assert not [d for d in docs if d["kind"] == "Secret"]


@pytest.mark.parametrize("values", [(), ("--set", "gangController.enabled=true")])
def test_rendered_deployment_is_hardened(values: tuple[str, ...]) -> None:
    deploy = next(d for d in _chart_docs(*values) if d["kind"] == "Deployment")
    pod = deploy["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    for container in pod["containers"]:
        ctx = container["securityContext"]
        assert ctx["readOnlyRootFilesystem"] is True
        assert ctx["allowPrivilegeEscalation"] is False
        assert ctx["capabilities"] == {"drop": ["ALL"]}
        assert "add" not in ctx["capabilities"] and not ctx.get("privileged")
        limit = str(container["resources"]["limits"]["memory"])
        assert limit.endswith("Mi")
        # the jq worker's address-space cap sits below the container's memory limit
        [jq_memory] = [a.split("=", 1)[1] for a in container["args"] if a.startswith("--jq-memory-mb=")]
        assert int(jq_memory) < int(limit[:-2])
        assert [a for a in container["args"] if a.startswith("--jq-timeout-seconds=")] == ["--jq-timeout-seconds=1"]
    assert pod["serviceAccountName"] == "wm-workload-map"


def test_extra_rules_are_opt_in_and_appended() -> None:
    default = next(d for d in _chart_docs() if d["kind"] == "ClusterRole")
    assert default["rules"][-1]["apiGroups"] == ["admissionregistration.k8s.io"]
    extra = next(
        d
        for d in _chart_docs(
            "--set",
            "rbac.extraRules[0].apiGroups[0]=example.com",
            "--set",
            "rbac.extraRules[0].resources[0]=widgets",
            "--set",
            "rbac.extraRules[0].verbs={get,list,watch}",
        )
        if d["kind"] == "ClusterRole"
    )
    assert extra["rules"][:-1] == default["rules"]
    assert extra["rules"][-1] == {
        "apiGroups": ["example.com"],
        "resources": ["widgets"],
        "verbs": ["get", "list", "watch"],
    }


def test_serve_identity_is_its_own_read_only_account() -> None:
    assert not [d for d in _chart_docs() if d["metadata"]["name"].endswith("-serve") and "rbac" in d["apiVersion"]]
    docs = _chart_docs("--set", "serve.enabled=true")
    [role] = [d for d in docs if d["kind"] == "ClusterRole" and d["metadata"]["name"] == "wm-workload-map-serve"]
    [binding] = [
        d for d in docs if d["kind"] == "ClusterRoleBinding" and d["metadata"]["name"] == "wm-workload-map-serve"
    ]
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "wm-workload-map-serve", "namespace": "workload-map"}
    ]
    assert binding["roleRef"]["name"] == "wm-workload-map-serve"
    # what `wmap auth` prints for read-only use, and the queue kinds: reads only, no Secret, ConfigMap or Service
    assert role["rules"] == access.serve_rules(builtin_definitions())
    grants = _grants(role["rules"])
    assert {v for _, _, v, _ in grants} <= set(access.READ)
    assert not {(g, r) for g, r, _, _ in grants} & {("", "secrets"), ("", "configmaps"), ("", "services")}


def test_serve_role_reads_every_kind_serve_lists_and_watches() -> None:
    """The chart's serve role grants get, list and watch on every kind its live model lists and watches: the
    read-only commands' kinds and each scheduler kind the queue reader lists (``QUEUE_KINDS``, whichever are
    served), and the queue kinds are those of docs/security.md's queue table."""
    docs = _chart_docs("--set", "serve.enabled=true")
    [role] = [d for d in docs if d["kind"] == "ClusterRole" and d["metadata"]["name"] == "wm-workload-map-serve"]
    grants = _grants(role["rules"])
    queue_kinds = {(group, access.plural(kind)) for group, kind, _, _ in QUEUE_KINDS}
    read = {(group, access.plural(kind)) for group, kind in cli_read_kinds(builtin_definitions())} | queue_kinds
    missing = {(g, r, v) for g, r in read for v in access.READ if (g, r, v, False) not in grants}
    assert not missing, f"serve reads these but its chart role does not grant them: {sorted(missing)}"
    assert queue_kinds == {(g, r) for g, r, _, _ in _table("The CLI: queues")}
    assert {v for _, _, v, _ in grants} <= set(access.READ)


def test_cli_capacity_rules_have_their_lines_in_the_table() -> None:
    """What `wmap auth --capacity` adds to the read-only role, in both forms, is exactly the table."""
    definitions = builtin_definitions()
    documented = _table("The CLI: capacity and fit")
    base = _grants(access.cli_rules(definitions))
    cluster_role = access.cli_manifests(definitions, capacity=True)[0]
    assert _grants(cluster_role["rules"]) - base == documented - base, _diff_message(
        _grants(cluster_role["rules"]) - base, documented - base
    )
    extra_cluster, extra_namespaced = access.capacity_rules()
    assert _grants([*extra_cluster, *extra_namespaced]) == documented
    split = access.cli_manifests(definitions, capacity=True, namespace="team-a")
    by_kind = {doc["kind"]: _grants(doc["rules"]) for doc in split}
    assert ("", "nodes", "list", False) in by_kind["ClusterRole"]
    assert ("", "pods", "list", False) in by_kind["ClusterRole"]
    assert ("", "resourcequotas", "list", False) in by_kind["Role"]
    assert not any(g[1] == "secrets" for doc in split for g in _grants(doc["rules"]))


def test_cli_queue_rules_have_their_lines_in_the_table() -> None:
    """What `wmap auth --queues` adds, in both forms, is exactly the table: cluster-scoped queues in the
    ClusterRole even with -n, the per-workload objects in the Role; reads only (serve watches them)."""
    definitions = builtin_definitions()
    documented = _table("The CLI: queues")
    base = _grants(access.cli_rules(definitions))
    cluster_role = access.cli_manifests(definitions, queues=True)[0]
    assert _grants(cluster_role["rules"]) - base == documented - base
    extra_cluster, extra_namespaced = access.queue_rules()
    assert _grants([*extra_cluster, *extra_namespaced]) == documented
    split = {
        doc["kind"]: _grants(doc["rules"]) for doc in access.cli_manifests(definitions, queues=True, namespace="a")
    }
    assert ("kueue.x-k8s.io", "clusterqueues", "watch", False) in split["ClusterRole"]
    assert ("scheduling.run.ai", "queues", "list", False) in split["ClusterRole"]
    assert ("kueue.x-k8s.io", "workloads", "watch", False) in split["Role"]
    assert {v for _, _, v, _ in documented} == set(access.READ)
