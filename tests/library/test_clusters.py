"""ClusterOptions: one value for every way of reaching clusters, and the one place each form of it is made
(keyword shortcuts, command-line flags, what the sources read with)."""

from __future__ import annotations

import dataclasses
import typing

import click
import pytest
from click.testing import CliRunner

import workload_map as wm
from workload_map.api.clusters import ClusterFields, live_options, with_shortcuts
from workload_map.cmdline.cluster_options import cluster_options_of, command_timeout_option, connection_options


def test_the_keyword_shortcuts_are_the_fields() -> None:
    fields = {f.name: f.type for f in dataclasses.fields(wm.ClusterOptions)}
    assert set(typing.get_type_hints(ClusterFields)) == set(fields)


def test_shortcuts_apply_on_top_of_the_value_and_a_typo_is_an_error() -> None:
    base = wm.ClusterOptions(context="prod", namespace="ml")
    assert with_shortcuts(base, {"namespace": "eval"}) == wm.ClusterOptions(context="prod", namespace="eval")
    assert with_shortcuts(None, {}) == wm.ClusterOptions()
    with pytest.raises(TypeError, match=r"unknown cluster option\(s\): namspace"):
        with_shortcuts(base, {"namspace": "x"})  # type: ignore[typeddict-unknown-key]
    with pytest.raises(TypeError, match="namspace"):
        wm.open_cluster(namspace="x")  # type: ignore[call-arg]


def test_lists_become_tuples_so_the_value_stays_immutable() -> None:
    options = wm.ClusterOptions(contexts=["a", "b"], definitions=["defs.yaml"])
    assert options.contexts == ("a", "b") and options.definitions == ("defs.yaml",)
    assert options == wm.ClusterOptions(contexts=("a", "b"), definitions=("defs.yaml",))


def test_one_cluster_or_a_fleet() -> None:
    assert not wm.ClusterOptions(context="a").is_fleet
    assert not wm.ClusterOptions(contexts=["a"]).is_fleet
    assert not wm.ClusterOptions(contexts=["a", "a"]).is_fleet
    assert wm.ClusterOptions(contexts=["a", "b"]).is_fleet
    assert wm.ClusterOptions(all_contexts=True).is_fleet
    assert wm.ClusterOptions(contexts=["a"]).one_context() == "a"
    assert wm.ClusterOptions(contexts=["b", "a", "b"]).fleet_contexts() == ["b", "a"]
    assert wm.ClusterOptions(context="a").fleet_contexts() == ["a"]
    member = wm.ClusterOptions(contexts=["a", "b"], namespace="ml").for_context("b")
    assert (member.context, member.contexts, member.namespace, member.is_fleet) == ("b", (), "ml", False)
    with pytest.raises(wm.WorkloadMapError, match="open_cluster reads one cluster"):
        wm.open_cluster(contexts=["a", "b"])


def test_every_context_of_the_kubeconfig(tmp_path: typing.Any) -> None:
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\nclusters: []\nusers: []\n"
        "contexts:\n- name: east\n  context: {cluster: e}\n- name: west\n  context: {cluster: w}\n"
    )
    everything = wm.ClusterOptions(kubeconfig=str(kubeconfig), all_contexts=True)
    assert everything.fleet_contexts() == ["east", "west"]
    assert wm.ClusterOptions(kubeconfig=str(kubeconfig)).fleet_contexts() == ["east", "west"]


def test_what_the_sources_read_with() -> None:
    options = wm.ClusterOptions(
        kubeconfig="k",
        contexts=["east"],
        cluster="c",
        user="u",
        namespace="ml",
        request_timeout="5s",
        timeout="1m",
        chunk_size=7,
    )
    read = live_options(options, kinds=["jobs"])
    assert (read.kubeconfig, read.context, read.cluster, read.user) == ("k", "east", "c", "u")
    assert (read.namespace, read.all_namespaces, read.request_timeout, read.timeout) == ("ml", False, "5s", "1m")
    assert (read.chunk_size, read.kinds, list(read.definitions)) == (7, ["jobs"], [])


def _probe(fleet: bool) -> tuple[click.Command, list[tuple[str | None, wm.ClusterOptions]]]:
    """A command declaring the flags as wmap's do (the whole-command --timeout on top)."""
    seen: list[tuple[str | None, wm.ClusterOptions]] = []

    def probe(namespace: str | None, *, connection: wm.ClusterOptions) -> None:
        seen.append((namespace, connection))

    declared = command_timeout_option(connection_options(click.option("-n", "--namespace")(probe), fleet=fleet))
    return click.command()(declared), seen


def test_the_flags_reach_the_command_as_one_value() -> None:
    command, seen = _probe(fleet=True)
    args = ["--kubeconfig", "k", "--context", "a", "--context", "b", "--request-timeout", "5s", "--timeout", "1m"]
    result = CliRunner().invoke(command, [*args, "--chunk-size", "0", "-n", "ml"])
    assert result.exit_code == 0, result.output
    wanted = wm.ClusterOptions(kubeconfig="k", contexts=("a", "b"), request_timeout="5s", timeout="1m", chunk_size=0)
    assert seen == [("ml", wanted)]  # the command's own flags stay its own
    seen.clear()
    assert CliRunner().invoke(command, ["--context", "a"]).exit_code == 0
    assert seen == [(None, wm.ClusterOptions(context="a"))]  # one --context of a fleet command: one cluster
    single, seen = _probe(fleet=False)
    assert CliRunner().invoke(single, ["--context", "a", "--user", "u"]).exit_code == 0
    assert seen == [(None, wm.ClusterOptions(context="a", user="u"))]


def test_completion_maps_raw_params_the_same_way() -> None:
    raw = {"kubeconfig": "k", "context": ("a",), "all_contexts": False, "chunk_size": None, "command_timeout": "9s"}
    assert cluster_options_of(raw) == wm.ClusterOptions(kubeconfig="k", context="a", timeout="9s")
