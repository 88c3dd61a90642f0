"""bench/authoring_live.py's run-configs, capture names and owner chains, and the scorer's use of captures."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.bench.test_authoring_unseen import SAMPLE, _snapshot

from workload_map.sources.recording import OperatorRef, Recorded, RecordedEvent, Recording, WorkloadRef, dump_recording

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import authoring_live  # noqa: E402
import authoring_unseen  # noqa: E402
import live_build  # noqa: E402
import live_capture  # noqa: E402
import score_authoring  # noqa: E402
from live_config import ConfigError, capture_dir, capture_file, captures_of, fill, load_config  # noqa: E402

COMMIT = "0123456789abcdef0123456789abcdef01234567"
VALID = {
    "repo": "example/op",
    "commit": COMMIT,
    "package": "./cmd",
    "build_flags": ["-tags=x"],
    "args": ["--kubeconfig={kubeconfig}", "--leader-elect=false"],
    "env": {"WATCH_NAMESPACE": "", "CERTS": "{certdir}"},
    "crds": ["config/crd/bases/*.yaml"],
    "before": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}}],
    "kind": "Worker.example.com",
    "samples": ["config/samples/*.yaml"],
    "record": ["apps.kruise.io/v1alpha1/CloneSet", "v1/Service"],
    "note": "why",
}


def _config(tmp_path: Path, **changes: Any) -> Path:
    data = {k: v for k, v in {**VALID, **changes}.items() if v is not None}
    path = tmp_path / "example+op.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_valid_run_config_loads() -> None:
    config = load_config(BENCH / "authoring_live" / "kubernetes-sigs+agent-sandbox.yaml")
    assert config.name == "kubernetes-sigs+agent-sandbox" and config.key == "kubernetes-sigs+agent-sandbox-2fd412d55eca"
    assert (config.kind.kind, config.kind.group) == ("Sandbox", "agents.x-k8s.io")


def test_fields_are_read_with_placeholders_filled(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path))
    assert [(k.api_version, k.kind) for k in config.record] == [
        ("apps.kruise.io/v1alpha1", "CloneSet"),
        ("v1", "Service"),
    ]
    assert fill(config.args[0], {"kubeconfig": "/k"}) == "--kubeconfig=/k"
    assert config.before[0]["metadata"]["name"] == "settings"


@pytest.mark.parametrize(
    ("changes", "where", "why"),
    [
        ({"commit": "77c7f10"}, "commit", "not a full 40-hex commit"),
        ({"kind": "EtcdCluster"}, "kind", "not Kind.group"),
        ({"samples": None}, "samples", "is missing"),
        ({"args": ["--a", "--port={port}"]}, "args[1]", "unknown placeholder {port}"),
        ({"env": {"N": 3}}, "env.N", "must be a string"),
        ({"record": ["Service"]}, "record[0]", "not group/version/Kind"),
        ({"before": [{"apiVersion": "v1", "kind": "Secret", "metadata": {}}]}, "before[0].metadata.name", "missing"),
        ({"package": "cmd/op"}, "package", "relative to the root"),
        ({"build_flags": ["-mod=mod", "-o=x"]}, "build_flags[1]", "not -o"),
        ({"webhook": []}, "webhook", "unknown field"),
        ({"webhook_port": "9443"}, "webhook_port", "must be a port number"),
    ],
)
def test_each_problem_names_the_file_and_the_field(
    tmp_path: Path, changes: dict[str, Any], where: str, why: str
) -> None:
    path = _config(tmp_path, **changes)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.where == where and why in caught.value.why
    assert str(caught.value).startswith(f"{path}: {where}: ")


def test_the_command_reports_a_bad_config_and_an_unknown_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(tmp_path, commit="abc")
    assert authoring_live.main(["build", "--configs", str(tmp_path), "example+op", "nothing"]) == 1
    err = capsys.readouterr().err
    assert "no run-config nothing in" in err and "example+op.yaml: commit: 'abc' is not a full 40-hex commit" in err


def test_captures_are_named_by_snapshot_sample_file_and_object(tmp_path: Path) -> None:
    directory = capture_dir(tmp_path, "etcd-io/etcd-operator", COMMIT)
    assert directory == tmp_path / "etcd-io+etcd-operator-0123456789ab"
    path = capture_file(directory, "config/samples/operator_v1alpha1_etcdcluster.yaml", "etcd-sample")
    assert path.name == "operator_v1alpha1_etcdcluster-etcd-sample.yaml"
    assert captures_of(tmp_path, "etcd-io/etcd-operator", COMMIT) == []
    directory.mkdir()
    path.write_text("x")
    (directory / "operator.log").write_text("log")
    assert captures_of(tmp_path, "etcd-io/etcd-operator", COMMIT) == [path]


def test_a_sample_namespace_is_a_dns_label() -> None:
    sample = live_capture.SampleObject("config/samples/My_Sample.v1.yaml", {"metadata": {"name": "a" * 80}}, [])
    name = live_capture.namespace_for(3, sample)
    assert name.startswith("live-3-my-sample-v1-aaa") and len(name) == 63


def _obj(kind: str, uid: str, owner: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": uid, "namespace": "ns", "uid": uid}
    if owner:
        meta["ownerReferences"] = [{"uid": owner, "kind": "X", "name": owner, "apiVersion": "v1"}]
    return {"apiVersion": "v1", "kind": kind, "metadata": meta}


def test_only_what_the_owner_chain_reaches_is_kept() -> None:
    at = "2026-12-07T17:00:00.000Z"
    recording = Recording(
        WorkloadRef("example.com/v1", "Worker", "ns", "root"),
        Recorded("lab", at),
        objects=[_obj("Pod", "stray")],
        events=[
            RecordedEvent(at, "ADDED", _obj("Worker", "root")),
            RecordedEvent(at, "ADDED", _obj("ReplicaSet", "rs", "dep")),  # its owner comes later
            RecordedEvent(at, "ADDED", _obj("Deployment", "dep", "root")),
            RecordedEvent(at, "ADDED", _obj("Pod", "pod", "rs")),
            RecordedEvent(at, "ADDED", _obj("Pod", "other", "someone-else")),
        ],
    )
    kept = live_capture.owned_by_root(recording, "root")
    assert kept.objects == [] and [e.object["metadata"]["uid"] for e in kept.events] == ["root", "rs", "dep", "pod"]


def _recording(path: Path, api_version: str, kind: str) -> None:
    """A capture of our own: the root goes Pending, then Running while its pod runs."""
    at = "2026-12-07T17:00:00.000Z"
    root = {**SAMPLE, "apiVersion": api_version, "kind": kind}
    root["metadata"] = {"name": "w", "namespace": "live-0", "uid": "u1"}
    pod = _obj("Pod", "p1", "u1")
    pod["metadata"]["namespace"] = "live-0"
    pod["metadata"]["ownerReferences"][0] |= {"kind": kind, "apiVersion": api_version, "controller": True}
    running = {**root, "status": {"phase": "Running"}}
    events = [RecordedEvent(at, "ADDED", root), RecordedEvent(at, "MODIFIED", {**root, "status": {"phase": "Pending"}})]
    events += [RecordedEvent(at, "ADDED", pod), RecordedEvent(at, "MODIFIED", running)]
    recording = Recording(
        WorkloadRef(api_version, kind, "live-0", "w"),
        Recorded("lab", at, server="v1.37.2", operator=OperatorRef("example/worker", "abc")),
        events=events,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        dump_recording(recording, out)


def test_the_scorer_drafts_with_the_captures_of_the_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = _snapshot(tmp_path / "mirror")
    expect = tmp_path / "expect" / "roundX"
    expect.mkdir(parents=True)
    base = {"crd": "crd.yaml", "samples": ["samples/*.yaml"], "statuses": [], "suspend": ".spec.suspend"}
    base["components"] = [{"owner": ["Pod"], "template": ".spec.template", "replicas": ".spec.replicas"}]
    (expect / "worker.yaml").write_text(
        yaml.safe_dump({"name": "Worker", "repo": "example/worker", "commit": commit} | base)
    )
    captures = tmp_path / "captures"
    directory = capture_dir(captures, "example/worker", commit)
    _recording(directory / "w-w.yaml", "example.com/v1", "Worker")
    _recording(directory / "g-g.yaml", "example.com/v1", "Gadget")  # another kind of the operator: not read
    assert authoring_unseen.recordings_for(captures, "example/worker", commit, "example.com", "Worker") == [
        directory / "w-w.yaml"
    ]
    result, made = authoring_unseen.score(
        expect / "worker.yaml", authoring_unseen.Mirror(tmp_path / "mirror"), score_authoring._tree, captures=captures
    )
    assert made is not None and result.live == "1 recording(s)"
    assert str(directory / "w-w.yaml") in made.text  # the draft names what it was made from
    uncaptured, _ = authoring_unseen.score(
        expect / "worker.yaml", authoring_unseen.Mirror(tmp_path / "mirror"), score_authoring._tree, captures=tmp_path
    )
    assert uncaptured.live == "no capture"
    rows = authoring_unseen.table([result, uncaptured]).splitlines()
    assert rows[0].endswith("| right | live |") and rows[2].endswith("| 1 recording(s) |")
    assert rows[3].endswith("| no capture |") and rows[4].endswith("| 1 with captures |")

    monkeypatch.setattr(authoring_unseen, "EXPECTATIONS", tmp_path / "expect")
    assert score_authoring.main(["--unseen", "--mirror", str(tmp_path / "mirror"), "--live", str(captures)]) == 0
    out = capsys.readouterr().out
    assert f"--unseen --live {captures}" in out and "| 1 recording(s) |" in out


def test_without_live_the_table_is_as_before() -> None:
    result = authoring_unseen.Result("Worker", "Worker.example.com", 1, 0)
    assert authoring_unseen.table([result]).splitlines()[0].endswith("| right |")


def test_a_crd_is_served_without_its_conversion_webhook() -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "a.b"}}
    crd["spec"] = {"group": "b", "conversion": {"strategy": "Webhook", "webhook": {"clientConfig": {}}}}
    assert live_capture.servable(crd)["spec"] == {"group": "b", "conversion": {"strategy": "None"}}
    plain = {**crd, "spec": {"group": "b"}}
    assert live_capture.servable(plain) is plain
    with pytest.raises(live_capture.LabError, match=r"CRD a\.b: apiextensions\.k8s\.io/v1beta1 \(the apiserver"):
        live_capture.servable({**plain, "apiVersion": "apiextensions.k8s.io/v1beta1"})


def _go_snapshot(root: Path) -> str:
    """A one-package Go module that does not compile, as a git snapshot under ``root``."""
    repo = root / "example+op" / "repo"
    (repo / "cmd").mkdir(parents=True)
    (repo / "go.mod").write_text("module example.com/op\n\ngo 1.21\n")
    (repo / "cmd" / "main.go").write_text("package main\n\nfunc main() {\n\treturn 1 +\n}\n")
    env = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
    subprocess.run(["git", "-C", str(repo), *env, "commit", "-qm", "x"], check=True)
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.skipif(shutil.which("go") is None and not Path("/usr/local/go/bin/go").exists(), reason="needs Go")
def test_a_build_is_cached_by_its_stamp_and_a_failure_shows_the_compiler(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_build, "BUILD_LOCK", str(tmp_path / "build.lock"))  # not the machine's queue
    commit = _go_snapshot(tmp_path / "mirror")
    config = load_config(_config(tmp_path, repo="example/op", commit=commit, build_flags=["-mod=mod"]))
    cache = tmp_path / "cache"
    binary = cache / "bin" / config.key
    binary.parent.mkdir(parents=True)
    binary.write_text("built by hand")
    adopted = live_build.build(config, cache, tmp_path / "mirror", adopt=True)
    assert adopted.cached and adopted.binary == binary and (adopted.source / "cmd" / "main.go").is_file()
    assert live_build.build(config, cache, tmp_path / "mirror").cached  # the stamp says the same build
    changed = load_config(_config(tmp_path, repo="example/op", commit=commit, build_flags=["-tags=x"]))
    with pytest.raises(live_build.BuildError, match=r"go build ./cmd failed \(exit 1") as caught:
        live_build.build(changed, cache, tmp_path / "mirror")
    assert "cmd/main.go:5:1: syntax error" in str(caught.value)  # the compiler's own words


def test_objects_for_every_sample_and_the_namespace_file_are_checked(tmp_path: Path) -> None:
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "license"}, "stringData": {"k": "v"}}
    config = load_config(_config(tmp_path, per_sample=[secret], serviceaccount_namespace=True))
    assert config.per_sample == [secret] and config.serviceaccount_namespace
    with pytest.raises(ConfigError, match=r"per_sample\[0\]\.kind: is missing"):
        load_config(_config(tmp_path, per_sample=[{"apiVersion": "v1", "metadata": {"name": "x"}}]))
    with pytest.raises(ConfigError, match=r"serviceaccount_namespace: must be true or false, not 'yes'"):
        load_config(_config(tmp_path, serviceaccount_namespace="yes"))


def test_webhooks_call_the_local_operator_by_url() -> None:
    hook = {"name": "m.example.com", "clientConfig": {"service": {"name": "svc", "namespace": "s", "path": "/m"}}}
    direct = {"name": "d.example.com", "clientConfig": {"url": "https://elsewhere/d"}}
    configuration = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration"}
    configuration |= {"metadata": {"name": "hooks", "annotations": {"x": "y"}}, "webhooks": [hook, direct]}
    (out,) = live_capture.webhooks_by_url([configuration], 9443, b"PEM")
    assert out["metadata"] == {"name": "hooks"}
    assert out["webhooks"][0]["clientConfig"] == {"url": "https://127.0.0.1:9443/m", "caBundle": "UEVN"}
    assert out["webhooks"][0]["name"] == "m.example.com" and out["webhooks"][1] == direct


@pytest.mark.parametrize(
    ("spec", "status", "deleting", "on_its_way"),
    [
        ({"nodeName": "cpu-0"}, {"phase": "Pending"}, False, True),  # bound: the lab makes it Ready
        ({}, {"phase": "Pending"}, False, False),  # unschedulable: nobody will
        (
            {"nodeName": "cpu-0"},
            {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
            False,
            False,
        ),
        ({"nodeName": "cpu-0"}, {"phase": "Succeeded"}, False, False),
        ({"nodeName": "cpu-0"}, {"phase": "Running"}, True, False),
    ],
)
def test_the_quiet_window_waits_for_bound_pods_to_be_ready(
    spec: dict[str, Any], status: dict[str, Any], deleting: bool, on_its_way: bool
) -> None:
    pod = {"kind": "Pod", "metadata": {"name": "p", "uid": "u"}, "spec": spec, "status": status}
    if deleting:
        pod["metadata"]["deletionTimestamp"] = "2026-12-07T17:00:00Z"
    assert live_capture._on_its_way(pod) is on_its_way


def test_a_fresh_operator_per_sample_is_asked_with_a_flag(tmp_path: Path) -> None:
    assert load_config(_config(tmp_path, restart_per_sample=True)).restart_per_sample
    assert not load_config(_config(tmp_path)).restart_per_sample
    with pytest.raises(ConfigError, match=r"restart_per_sample: must be true or false"):
        load_config(_config(tmp_path, restart_per_sample="always"))


@pytest.mark.parametrize(
    ("owners", "phase"),
    [
        ([{"kind": "Job", "name": "schema", "controller": True}], "Succeeded"),
        ([{"kind": "StatefulSet", "name": "db", "controller": True}], "Ready"),
        ([{"kind": "Job", "name": "schema"}], "Ready"),  # only the controlling Job's pods are its
        ([], "Ready"),
    ],
)
def test_a_jobs_pods_complete_and_every_other_pod_becomes_ready(owners: list[dict[str, Any]], phase: str) -> None:
    pod = {"kind": "Pod", "metadata": {"name": "p", "uid": "u", "ownerReferences": owners}}
    assert live_capture.job_pods_succeed(pod) == phase
