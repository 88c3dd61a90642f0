"""``wmap-operator``'s command line: wmap's conventions (docs/cli.md) and the defaults outside a cluster.

The behaviour against an API server (reconciling outside a cluster, missing namespaces, busy ports) is in
tests/live/test_operator_outside.py; these are the parts that need no cluster.
"""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from workload_map.cmdline.cluster_options import cluster_options_of
from workload_map.operator.main import OperatorConfig, _config, command


def _parsed(*args: str) -> OperatorConfig:
    """The config the command builds: its connection flags reach it as one ClusterOptions."""
    ctx = command.make_context("wmap-operator", list(args))
    return _config(ctx, {**ctx.params, "connection": cluster_options_of(ctx.params)})


def test_every_option_has_help_text() -> None:
    options = [p for p in command.params if isinstance(p, click.Option)]
    assert len(options) > 25
    missing = [p.opts[0] for p in options if not (p.help or "").strip()]
    assert missing == []
    text = CliRunner().invoke(command, ["--help"], prog_name="wmap-operator").output
    assert text.startswith("Usage: wmap-operator [OPTIONS]")
    assert "wmap-operator --kubeconfig ~/.kube/config" in text


def test_outside_a_pod_the_webhooks_are_off_and_the_namespace_is_the_contexts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("KUBERNETES_SERVICE_HOST", "POD_NAMESPACE", "POD_NAME"):
        monkeypatch.delenv(name, raising=False)
    config = _parsed("--kubeconfig", "k")
    assert (config.connection.kubeconfig, config.connection.context) == ("k", None)
    assert config.webhooks is False
    assert config.namespace is None  # the connection's: the kubeconfig context's namespace
    assert _parsed("--webhooks").webhooks is True


def test_in_a_pod_the_webhooks_are_on_and_the_namespace_comes_from_the_downward_api(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("POD_NAMESPACE", "workload-map")
    monkeypatch.setenv("POD_NAME", "wm-7f9c")
    config = _parsed()
    assert (config.webhooks, config.namespace, config.namespace_origin, config.identity) == (
        True,
        "workload-map",
        "$POD_NAMESPACE",
        "wm-7f9c",
    )
    assert _parsed("--no-webhooks").webhooks is False
    flagged = _parsed("-n", "ops")
    assert (flagged.namespace, flagged.namespace_origin) == ("ops", "--namespace")


def test_connection_flags_are_kubectls() -> None:
    config = _parsed("--context", "dev", "--user", "me", "--request-timeout", "5s", "--chunk-size", "100")
    options = config.connection
    assert (options.context, options.user, options.request_timeout, options.chunk_size) == ("dev", "me", "5s", 100)
    assert _parsed("--validating-webhook", "").validating_webhook is None


def test_usage_errors_exit_2() -> None:
    result = CliRunner().invoke(command, ["--health-port", "70000"], prog_name="wmap-operator")
    assert result.exit_code == 2 and "--health-port" in result.output
