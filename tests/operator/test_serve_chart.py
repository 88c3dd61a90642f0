"""The chart's `wmap serve` switch: off by default; on, a hardened Deployment, its Service, a ServiceMonitor."""

from __future__ import annotations

from typing import Any

import yaml
from tests.operator.support import helm_template


def _docs(*args: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(helm_template(*args)) if d]


def _named(docs: list[dict[str, Any]], kind: str, suffix: str = "-serve") -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == kind and d["metadata"]["name"].endswith(suffix)]


def test_serve_is_off_by_default() -> None:
    docs = _docs()
    assert not _named(docs, "Deployment") and not _named(docs, "Service") and not _named(docs, "ServiceMonitor")


def test_serve_on_renders_a_hardened_deployment_and_a_service() -> None:
    docs = _docs("--set", "serve.enabled=true", "--set", "serve.port=9500")
    (deployment,) = _named(docs, "Deployment")
    (service,) = _named(docs, "Service")
    assert not _named(docs, "ServiceMonitor")
    pod = deployment["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    assert container["command"] == ["wmap", "serve"]
    assert "--port=9500" in container["args"] and "--address=0.0.0.0" in container["args"]
    # served safely: a token from a Secret the chart creates, mounted read-only; never unauthenticated
    assert "--token-file=/etc/wmap-serve/token" in container["args"]
    assert "--allow-unauthenticated" not in container["args"]
    (secret,) = _named(docs, "Secret", "-serve-token")
    (volume,) = [v for v in pod["spec"]["volumes"] if v["name"] == "token"]
    assert volume["secret"]["secretName"] == secret["metadata"]["name"] and secret["data"]["token"]
    assert {"name": "token", "mountPath": "/etc/wmap-serve", "readOnly": True} in container["volumeMounts"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    (account,) = _named(docs, "ServiceAccount")
    assert pod["spec"]["serviceAccountName"] == account["metadata"]["name"]
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
    # its pods are selected by its own Deployment and Service only, never by the operator's or the webhook's
    labels = pod["metadata"]["labels"]
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"] == labels
    for other in (d for d in docs if d["kind"] in ("Deployment", "Service") and d not in (deployment, service)):
        selector = other["spec"].get("selector") or {}
        selector = selector.get("matchLabels", selector)
        assert not selector.items() <= labels.items(), other["metadata"]["name"]


def test_service_monitor_on_request() -> None:
    docs = _docs("--set", "serve.enabled=true", "--set", "serve.serviceMonitor.enabled=true")
    (monitor,) = _named(docs, "ServiceMonitor")
    (endpoint,) = monitor["spec"]["endpoints"]
    assert endpoint["port"] == "metrics"
    # Prometheus sends the token of the Secret serve reads
    (secret,) = _named(docs, "Secret", "-serve-token")
    assert endpoint["authorization"] == {
        "type": "Bearer",
        "credentials": {"name": secret["metadata"]["name"], "key": "token"},
    }
    (service,) = _named(docs, "Service")
    # the Prometheus Operator selects Services by their own labels
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()


def test_a_network_policy_admits_only_the_monitoring_namespace_by_default() -> None:
    docs = _docs("--set", "serve.enabled=true")
    (policy,) = _named(docs, "NetworkPolicy")
    (deployment,) = _named(docs, "Deployment")
    assert policy["spec"]["podSelector"]["matchLabels"] == deployment["spec"]["selector"]["matchLabels"]
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    (rule,) = policy["spec"]["ingress"]
    assert rule["ports"] == [{"port": "metrics", "protocol": "TCP"}]
    assert rule["from"] == [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}]


def test_an_existing_secret_or_no_token() -> None:
    docs = _docs("--set", "serve.enabled=true", "--set", "serve.token.existingSecret=mine")
    assert not _named(docs, "Secret", "-serve-token")
    (deployment,) = _named(docs, "Deployment")
    (volume,) = [v for v in deployment["spec"]["template"]["spec"]["volumes"] if v["name"] == "token"]
    assert volume["secret"]["secretName"] == "mine"
    docs = _docs("--set", "serve.enabled=true", "--set", "serve.token.enabled=false")
    (deployment,) = _named(docs, "Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert "--allow-unauthenticated" in container["args"] and not _named(docs, "Secret", "-serve-token")
