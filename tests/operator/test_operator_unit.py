"""Operator pieces without a cluster: generated files, RBAC, admission, status, certificates."""

from __future__ import annotations

import base64
import datetime as dt
import json
import threading
from typing import Any

import pytest
import yaml
from tests.operator.support import REPO_ROOT, helm_template

from workload_map.catalog import builtin_definitions
from workload_map.crd import build_crd
from workload_map.definition.registry import DefinitionRegistry
from workload_map.jq import LIMITS
from workload_map.jq._isolated import shutdown
from workload_map.manifests import generated_files
from workload_map.operator import admission, certs, gang as gang_module, rbac
from workload_map.operator.cluster_definitions import ClusterDefinitions
from workload_map.operator.controller import ServedKinds
from workload_map.operator.gang import (
    NAMESPACE_LABEL,
    WORKLOAD_UID_LABEL,
    GangController,
    plan_groups,
    prune_to_schema,
    scheduler_for,
)
from workload_map.operator.main import Operator, OperatorConfig
from workload_map.operator.pod_attach import PodAttacher, pod_patch
from workload_map.operator.reconcile import desired_conditions, due_events
from workload_map.sources.kube.discovery import ServedResource


def test_generated_files_are_fresh() -> None:
    for rel, text in generated_files().items():
        path = REPO_ROOT / rel
        assert path.is_file() and path.read_text() == text, f"{rel} is stale: run python -m workload_map.manifests"


def test_crd_schema_is_structural() -> None:
    schema = build_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    text = json.dumps(schema)
    assert "$ref" not in text and "anyOf" not in text and '"additionalProperties": false' not in text
    spec = schema["properties"]["spec"]["properties"]["structureDefinition"]["properties"]
    children = spec["childComponents"]
    assert children["x-kubernetes-list-type"] == "map" and children["x-kubernetes-list-map-keys"] == ["name"]
    root = spec["rootComponent"]
    value = root["properties"]["suspendDefinition"]["properties"]["suspendActions"]["items"]["properties"]["value"]
    assert value == {"x-kubernetes-preserve-unknown-fields": True}
    assert schema["properties"]["metadata"] == {"type": "object"}


def _chart_docs(*args: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(helm_template(*args)) if d]


def test_chart_rbac_equals_rules_derived_from_catalog() -> None:
    docs = _chart_docs()
    role = next(d for d in docs if d["kind"] == "ClusterRole")
    *derived, webhooks = role["rules"]
    assert derived == rbac.cluster_rules()
    assert webhooks["verbs"] == ["get", "patch"] and webhooks["resourceNames"] == ["wm-workload-map"]
    # every verb on catalog kinds is read-only
    own = {(tuple(r["apiGroups"]), tuple(r["resources"])) for r in rbac.OWN_RULES}
    for rule in derived:
        if (tuple(rule["apiGroups"]), tuple(rule["resources"])) not in own:
            assert rule["verbs"] == ["get", "list", "watch"]
    kinds = rbac.catalog_kinds(builtin_definitions())
    assert "pods" in kinds[""] and "leaderworkersets" in kinds["leaderworkerset.x-k8s.io"]
    crd = next(d for d in docs if d["kind"] == "CustomResourceDefinition")
    assert crd["metadata"]["annotations"] == {"helm.sh/resource-policy": "keep"}


def test_chart_cert_manager_mode() -> None:
    docs = _chart_docs("--set", "webhook.certs.mode=cert-manager")
    kinds = [d["kind"] for d in docs]
    assert "Certificate" in kinds and "Issuer" in kinds
    hook = next(d for d in docs if d["kind"] == "ValidatingWebhookConfiguration")
    assert hook["metadata"]["annotations"]["cert-manager.io/inject-ca-from"].endswith("/wm-workload-map-webhook-tls")
    deploy = next(d for d in docs if d["kind"] == "Deployment")
    assert "--cert-mode=files" in deploy["spec"]["template"]["spec"]["containers"][0]["args"]


def _karta(name: str = "x", group: str = "example.com", kind: str = "Widget", **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": "run.ai/v1alpha1",
        "kind": "Karta",
        "metadata": {"name": name, "uid": "u1", "generation": 2, **extra},
        "spec": {
            "structureDefinition": {
                "rootComponent": {
                    "name": "root",
                    "kind": {"group": group, "version": "v1", "kind": kind},
                    "specDefinition": {"podTemplateSpecPath": ".spec.template"},
                    "statusDefinition": {
                        "phaseDefinition": {"path": ".status.phase"},
                        "statusMappings": {"running": [{"byPhase": "Running"}]},
                    },
                }
            }
        },
    }


def test_admission_validation_rules() -> None:
    ok = admission.validate_karta({"uid": "1", "operation": "CREATE", "object": _karta()}, lambda: [])
    assert ok["allowed"]
    bad = _karta()
    bad["spec"]["structureDefinition"]["rootComponent"]["specDefinition"]["podTemplateSpecPath"] = "del(.a)"
    denied = admission.validate_karta({"uid": "1", "operation": "CREATE", "object": bad}, lambda: [])
    assert not denied["allowed"]
    assert "spec.structureDefinition.rootComponent.specDefinition.podTemplateSpecPath" in denied["status"]["message"]
    dup = admission.validate_karta({"uid": "1", "operation": "CREATE", "object": _karta("y")}, lambda: [_karta("x")])
    assert not dup["allowed"] and "already defined by Karta 'x'" in dup["status"]["message"]
    changed = admission.validate_karta(
        {"uid": "1", "operation": "UPDATE", "object": _karta(kind="Gadget"), "oldObject": _karta()}, lambda: []
    )
    assert not changed["allowed"] and "immutable" in changed["status"]["message"]
    wrong = admission.validate_karta(
        {"uid": "1", "operation": "CREATE", "object": _karta(labels={"run.ai/karta-kind": "Nope"})}, lambda: []
    )
    assert not wrong["allowed"] and "index labels" in wrong["status"]["message"]


def test_admission_accepts_a_gang_only_karta_with_a_warning() -> None:
    # KAI Scheduler accepts a Karta that maps no status (gang-only); so must the webhook.
    gang_only = _karta()
    root = gang_only["spec"]["structureDefinition"]["rootComponent"]
    root["statusDefinition"] = {"statusMappings": {}}
    gang_only["spec"]["optimizationInstructions"] = {
        "gangScheduling": {"podGroups": [{"name": "all", "members": [{"componentName": "root"}]}]}
    }
    result = admission.validate_karta({"uid": "1", "operation": "CREATE", "object": gang_only}, lambda: [])
    assert result["allowed"], result
    assert any("maps no status" in w for w in result["warnings"]), result


def test_admission_denial_lists_an_unknown_field_with_the_other_findings() -> None:
    bad = _karta()
    root = bad["spec"]["structureDefinition"]["rootComponent"]
    root["scaleDefinition"] = {"replicaPath": ".spec.replicas"}
    root["specDefinition"]["podTemplateSpecPath"] = "del(.a)"
    denied = admission.validate_karta({"uid": "1", "operation": "CREATE", "object": bad}, lambda: [])
    assert not denied["allowed"]
    message = denied["status"]["message"]
    assert "unknown field 'replicaPath'" in message and "specDefinition.podTemplateSpecPath" in message


def test_mutation_stamps_labels() -> None:
    result = admission.mutate_karta({"uid": "1", "operation": "CREATE", "object": _karta(group="", kind="Pod")})
    patch = json.loads(base64.b64decode(result["patch"]))
    assert patch == [
        {
            "op": "add",
            "path": "/metadata/labels",
            "value": {"run.ai/karta-group": "", "run.ai/karta-version": "v1", "run.ai/karta-kind": "Pod"},
        }
    ]
    result = admission.mutate_karta(
        {"uid": "1", "operation": "CREATE", "object": _karta(labels={"a": "b", "run.ai/karta-kind": "Widget"})}
    )
    paths = [op["path"] for op in json.loads(base64.b64decode(result["patch"]))]
    assert paths == ["/metadata/labels/run.ai~1karta-group", "/metadata/labels/run.ai~1karta-version"]


def test_conditions_and_events_are_stable() -> None:
    obj = _karta()
    conditions = desired_conditions(obj, True, "served", "2026-01-01T00:00:00Z")
    assert [(c["type"], c["status"], c["observedGeneration"]) for c in conditions] == [
        ("Validated", "True", 2),
        ("CRDExists", "True", 2),
        ("Ready", "True", 2),
    ]
    events = due_events(obj, conditions)
    assert [e.reason for e in events] == ["Valid", "Served", "Ready"]
    # the same transition computed again (e.g. after a crash before the status write) has the same names
    assert [e.name for e in due_events(obj, desired_conditions(obj, True, "served", "2026-01-02T00:00:00Z"))] == [
        e.name for e in events
    ]
    obj["status"] = {"conditions": conditions}
    later = desired_conditions(obj, True, "served", "2026-01-03T00:00:00Z")
    assert due_events(obj, later) == []
    assert later[0]["lastTransitionTime"] == "2026-01-01T00:00:00Z"
    gone = desired_conditions(obj, False, "CRD deleted", "2026-01-04T00:00:00Z")
    assert [e.reason for e in due_events(obj, gone)] == ["NotServed", "NotReady"]


def test_certificates_issue_and_rotate() -> None:
    ca, ca_key = certs.generate_ca()
    cert, _ = certs.issue_serving(ca, ca_key, ["svc.ns.svc", "127.0.0.1"], validity=dt.timedelta(days=10))
    assert certs.hosts_of(cert) == {"svc.ns.svc", "127.0.0.1"}
    assert certs.needs_rotation(cert, dt.timedelta(days=30))
    store = certs.SecretCertStore(None, "ns", "s", ["svc.ns.svc"])  # type: ignore[arg-type]
    bundle = certs.CertBundle(ca, ca_key, cert, b"k")
    fresh = store._fresh(bundle)
    assert fresh.ca_pem == ca and fresh.cert_pem != cert and not certs.needs_rotation(fresh.cert_pem)
    old_ca, old_key = certs.generate_ca(validity=dt.timedelta(days=100))
    rotated = store._fresh(certs.CertBundle(old_ca, old_key, cert, b"k"))
    assert rotated.ca_pem != old_ca and rotated.previous_ca_pem == old_ca
    assert rotated.ca_bundle == rotated.ca_pem + old_ca


@pytest.mark.parametrize(
    ("kind", "plural"),
    [
        ("Pod", "pods"),
        ("Milvus", "milvuses"),
        ("Sandbox", "sandboxes"),
        ("NetworkPolicy", "networkpolicies"),
        ("Gateway", "gateways"),
    ],
)
def test_plural(kind: str, plural: str) -> None:
    assert rbac.plural(kind) == plural


# --------------------------------------------------------------------------- gang controller (pure parts)


def test_gang_namespace_label_picks_the_scheduler() -> None:
    assert scheduler_for({NAMESPACE_LABEL: "coscheduling"}, "volcano") == "coscheduling"
    assert scheduler_for({NAMESPACE_LABEL: "true"}, "volcano") == "volcano"
    assert scheduler_for({NAMESPACE_LABEL: "kai"}, "volcano") is None  # KAI groups pods itself
    assert scheduler_for({}, "volcano") is None


def test_gang_pod_patch_and_schema_pruning() -> None:
    pod = {"metadata": {"labels": {"a": "b"}}, "spec": {"schedulerName": "default-scheduler"}}
    ops = pod_patch(pod, {"scheduling.x-k8s.io/pod-group": "pg-1"}, {"x/y": "z"}, {"schedulerName": "volcano"})
    assert ops == [
        {"op": "add", "path": "/metadata/labels/scheduling.x-k8s.io~1pod-group", "value": "pg-1"},
        {"op": "add", "path": "/metadata/annotations", "value": {"x/y": "z"}},
        {"op": "add", "path": "/spec/schedulerName", "value": "volcano"},
    ]
    custom = {"metadata": {}, "spec": {"schedulerName": "my-scheduler"}}
    assert pod_patch(custom, {}, {}, {"schedulerName": "volcano"}) == []  # a chosen scheduler is kept
    schema = {"properties": {"minMember": {}, "minResources": {"additionalProperties": {}}}}
    dropped: list[str] = []
    spec = {"minMember": 5, "minTaskMember": {"w": 1}, "minResources": {"cpu": "1"}}
    assert prune_to_schema(spec, schema, "spec", dropped) == {"minMember": 5, "minResources": {"cpu": "1"}}
    assert dropped == ["spec.minTaskMember"]


def test_gang_plan_groups_owned_and_labelled() -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": "ns", "uid": "u-1"},
        "spec": {"parallelism": 3, "completions": 3, "template": {"spec": {"containers": [{"name": "c"}]}}},
    }
    registry = DefinitionRegistry(builtin_definitions())
    objects, _ = plan_groups(registry, [job], "u-1", "coscheduling")
    [group] = objects
    assert group["apiVersion"] == "scheduling.x-k8s.io/v1alpha1"
    assert group["spec"]["minMember"] == 1  # a Job gangs 1 pod unless kai.scheduler/batch-min-member says more
    assert group["metadata"]["ownerReferences"][0]["uid"] == "u-1"
    assert group["metadata"]["labels"][WORKLOAD_UID_LABEL] == "u-1"
    assert plan_groups(registry, [job], "gone", "volcano") == ([], [])


def test_chart_gang_controller_wired() -> None:
    off = _chart_docs()
    on = _chart_docs("--set", "gangController.enabled=true", "--set", "gangController.defaultScheduler=coscheduling")

    def args(docs: list[dict[str, Any]]) -> list[str]:
        [deployment] = [d for d in docs if d["kind"] == "Deployment"]
        return list(deployment["spec"]["template"]["spec"]["containers"][0]["args"])

    def hooks(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        [config] = [d for d in docs if d["kind"] == "MutatingWebhookConfiguration"]
        return {h["name"]: h for h in config["webhooks"]}

    assert "--gang-controller" not in args(off) and "mutate.pods.workload-map.run.ai" not in hooks(off)
    assert "--gang-controller" in args(on) and "--gang-default-scheduler=coscheduling" in args(on)
    hook = hooks(on)["mutate.pods.workload-map.run.ai"]
    assert hook["failurePolicy"] == "Ignore" and hook["sideEffects"] == "None"
    assert hook["clientConfig"]["service"]["path"] == "/mutate-pod"
    assert hook["namespaceSelector"]["matchExpressions"][0]["key"] == "workload-map.run.ai/gang-controller"


class _FakeConnection:
    """Answers every request with an empty list (no API server: the gang controller's watches are stubbed)."""

    namespace = "default"

    def request(self, method: str, path: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {"items": []}


def test_readyz_waits_for_the_gang_controller_first_sync(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []
    monkeypatch.setattr(gang_module, "list_watch", lambda *args, **kwargs: started.append(args[5]))
    operator = Operator(OperatorConfig(gang_controller=True, webhook_port=0), connection=_FakeConnection())  # type: ignore[arg-type]
    assert operator.definitions is not None
    assert operator._readyz() == (False, "cluster Karta definitions not loaded")
    operator.definitions._sync([])
    monkeypatch.setattr(operator.elector, "leading", True)
    controller = gang_module.GangController(_FakeConnection(), operator.definitions.definitions)  # type: ignore[arg-type]
    operator.controller = type("Synced", (), {"synced": threading.Event()})()  # type: ignore[assignment]
    operator.controller.synced.set()
    assert operator._readyz() == (False, "gang controller cache not synced")  # leading, gang not started yet
    operator.gang = controller
    resources = [
        ServedResource("jobset.x-k8s.io", "v1alpha2", "JobSet", "jobsets", True, (), ("list", "watch"), True),
        ServedResource("", "v1", "Pod", "pods", True, ("po",), ("list", "watch"), True),
    ]
    controller._resources = resources
    assert operator._readyz() == (False, "gang controller cache not synced")  # namespaces not listed
    namespace = {"metadata": {"name": "team-a", "labels": {gang_module.NAMESPACE_LABEL: "volcano"}}}
    controller._sync_namespaces([namespace])
    assert len(started) == 2  # one (stubbed) list+watch per resource
    state = controller.namespaces["team-a"]
    controller._synced(state, resources[0], [])
    assert operator._readyz() == (False, "gang controller cache not synced")  # the pods are not listed yet
    controller._synced(state, resources[1], [])
    assert operator._readyz() == (True, "leader")
    # Latched: a namespace opting in later does not make the operator unready.
    controller._sync_namespaces(
        [namespace, {"metadata": {"name": "team-b", "labels": {gang_module.NAMESPACE_LABEL: ""}}}]
    )
    assert operator._readyz() == (True, "leader")


def test_cluster_karta_replaces_the_builtin_gang_rule() -> None:
    """The same parsing/precedence as the CLI's live layer: a valid cluster Karta overrides the built-in
    definition of its root kind; an invalid one is ignored; deleting it brings the built-in one back."""

    builtin = builtin_definitions()
    source = ClusterDefinitions(_FakeConnection(), builtin)  # type: ignore[arg-type]
    controller = GangController(_FakeConnection(), builtin, cluster_definitions=source)  # type: ignore[arg-type]
    attacher = PodAttacher(_FakeConnection(), builtin)  # type: ignore[arg-type]
    source.subscribe(controller.set_definitions)
    source.subscribe(attacher.set_definitions)
    doc = next(d for d in builtin if d.name == "batch-job-v1").karta.to_dict()
    doc["metadata"] = {"name": "my-job", "generation": 1, "uid": "k-1"}
    doc["spec"]["optimizationInstructions"] = {}  # no gang rule: Jobs get no groups any more
    invalid = {"apiVersion": "run.ai/v1alpha1", "kind": "Karta", "metadata": {"name": "bad"}, "spec": {}}
    source._sync([doc, invalid])
    assert source.synced.is_set()
    [job_definition] = [d for d in source.definitions if d.karta.identity and d.karta.identity.kind == "Job"][-1:]
    assert job_definition.origin == "cluster"
    assert controller._changed == {("batch", "Job")}
    assert ("batch", "Job") not in attacher.gang_kinds
    definition, _ = controller.registry.for_object({"apiVersion": "batch/v1", "kind": "Job"})
    assert definition is not None and definition.origin == "cluster"
    source._event("DELETED", doc)
    definition, _ = controller.registry.for_object({"apiVersion": "batch/v1", "kind": "Job"})
    assert definition is not None and definition.origin == "builtin"
    assert ("batch", "Job") in attacher.gang_kinds


def test_admission_warns_about_read_only_spec_paths() -> None:
    writable = admission.validate_karta({"uid": "1", "operation": "CREATE", "object": _karta()}, lambda: [])
    assert writable["allowed"] and "warnings" not in writable
    computed = _karta()
    root = computed["spec"]["structureDefinition"]["rootComponent"]
    root["specDefinition"]["podTemplateSpecPath"] = "{metadata: .spec.template.metadata, spec: .spec.template.spec}"
    answer = admission.validate_karta({"uid": "1", "operation": "CREATE", "object": computed}, lambda: [])
    assert answer["allowed"]
    [warning] = answer["warnings"]
    assert warning.startswith("spec.structureDefinition.rootComponent.specDefinition.podTemplateSpecPath: ")
    assert "read-only for pod-spec updates" in warning and "builds a new object" in warning


def test_admission_denial_carries_the_warnings_too() -> None:
    # One apply shows every finding: the errors that deny it and the warnings kubectl prints beside them.
    bad = _karta()
    root = bad["spec"]["structureDefinition"]["rootComponent"]
    root["specDefinition"]["podTemplateSpecPath"] = "del(.a)"
    root["statusDefinition"].pop("phaseDefinition", None)
    denied = admission.validate_karta({"uid": "1", "operation": "CREATE", "object": bad}, lambda: [])
    assert not denied["allowed"]
    assert any("byPhase needs statusDefinition.phaseDefinition" in w for w in denied["warnings"]), denied


class _StaleDiscovery:
    """Discovery that still lists Widget, as the API server does for a while after its CRD is deleted."""

    def __init__(self) -> None:
        self.calls = 0

    def request(self, method: str, path: str, **_: Any) -> dict[str, Any]:
        self.calls += 1
        assert (method, path) == ("GET", "/apis/example.com/v1")
        return {"resources": [{"name": "widgets", "kind": "Widget"}]}


def _widget_crd() -> dict[str, Any]:
    return {
        "metadata": {"name": "widgets.example.com", "resourceVersion": "1"},
        "spec": {"group": "example.com", "names": {"kind": "Widget"}, "versions": [{"name": "v1", "served": True}]},
        "status": {"conditions": [{"type": "Established", "status": "True"}]},
    }


@pytest.mark.parametrize("how", ["watch", "relist"])
def test_a_deleted_crd_is_not_served_while_discovery_still_lists_it(how: str) -> None:
    conn = _StaleDiscovery()
    served = ServedKinds(conn, ttl=30.0)  # type: ignore[arg-type]
    served.set_crds([_widget_crd()])
    assert served.check("example.com", "v1", "Widget") == (
        True,
        "Widget example.com/v1 is served by CRD " + _widget_crd()["metadata"]["name"],
    )
    if how == "watch":
        served.update_crd("DELETED", _widget_crd())
    else:
        served.set_crds([])
    assert served.check("example.com", "v1", "Widget") == (False, "CRD widgets.example.com was deleted")
    assert conn.calls == 0
    served.ttl = 0.0  # once the grace has passed, discovery is the judge again (an aggregated API may serve it)
    assert served.check("example.com", "v1", "Widget")[0] is True
    served.ttl = 30.0
    served.update_crd("ADDED", _widget_crd())
    assert served.check("example.com", "v1", "Widget")[0] is True


def test_admission_denies_a_karta_whose_expression_blows_up_while_libjq_compiles_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """libjq computes constant parts while compiling: the syntax check of this expression alone makes a
    400 MB string. Under the chart's worker cap (256 MiB) it is a located finding and a denial; the
    operator's own memory never holds the string (the check ran in the bounded worker)."""

    monkeypatch.setattr(LIMITS, "worker_memory_bytes", 256 * 1024 * 1024)
    shutdown()  # the next worker starts with the chart's cap
    hostile = _karta()
    root = hostile["spec"]["structureDefinition"]["rootComponent"]
    root["statusDefinition"]["phaseDefinition"]["path"] = '"aaaa" * 100000000 | length | tostring'
    try:
        denied = admission.validate_karta({"uid": "1", "operation": "CREATE", "object": hostile}, lambda: [])
    finally:
        shutdown()
    assert not denied["allowed"], denied
    message = denied["status"]["message"]
    assert "statusDefinition.phaseDefinition.path" in message
    assert "jq compilation" in message and "limit" in message
