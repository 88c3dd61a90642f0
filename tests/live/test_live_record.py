"""``wmap record`` as a process against the genuine apiserver: the test plays the JobSet and Job controllers
(creating the Job and its pods, moving statuses along, emitting Events), the recording is replayed to the
statuses the recorder printed, and ``wmap definitions test`` passes on it once checkpoints are added."""

from __future__ import annotations

import json
import queue
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from live_data import (
    admin,
    create,
    create_namespace,
    deployment_scenario,
    ensure_crds,
    eventually,
    owner_ref,
    pod,
    set_pod_running,
)
from tests.cluster.apiserver import TestCluster

import workload_map as wm
from workload_map.cli.main import cli
from workload_map.sources.kube import LiveOptions, live_source
from workload_map.sources.kube.connection import Connection, resource_path
from workload_map.sources.kube.record import Recorder
from workload_map.sources.recording import Checkpoint, OperatorRef, dump_recording, load_recording

WMAP = Path(sys.executable).parent / "wmap"
DEFINITION = "jobset-x-k8s-io-jobset-v1alpha2"
GPU = {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}}


@pytest.fixture(scope="module")
def cluster(test_cluster: TestCluster) -> TestCluster:
    ensure_crds(test_cluster, "jobsets.jobset.x-k8s.io")
    return test_cluster


@pytest.fixture
def namespace(cluster: TestCluster) -> Iterator[str]:
    conn = admin(cluster)
    name = create_namespace(conn, f"record-{secrets.token_hex(3)}")
    conn.close()
    yield name
    cluster.kubectl("delete", "namespace", name, "--wait=false")


class Recording:
    """A ``wmap record`` process and the status lines it prints on stderr."""

    def __init__(self, cluster: TestCluster, *args: str) -> None:
        self.proc = subprocess.Popen(
            [str(WMAP), "record", *args, "--kubeconfig", str(cluster.kubeconfig_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                if self.proc.poll() is not None and self.lines.empty():
                    break
                continue
            if re.search(pattern, line):
                return line
        raise AssertionError(f"no stderr line matching {pattern!r}: {self.stderr}")

    def end(self, timeout: float = 60.0) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()

    def statuses(self) -> list[str]:
        """The statuses printed, in order: ``<at>  <kind/name>  <status>  after N event(s)``."""
        lines = [line for line in self.stderr if re.search(r"  after \d+ event\(s\)$", line)]
        return [line.split("  ")[2].split(" (also ")[0] for line in lines]


def _jobset(namespace: str, name: str) -> dict[str, Any]:
    template = {"spec": {"containers": [{"name": "main", "image": "trainer", "resources": GPU}]}}
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicatedJobs": [
                {
                    "name": "workers",
                    "replicas": 2,
                    "template": {"spec": {"parallelism": 1, "completions": 1, "template": template}},
                }
            ]
        },
    }


def _patch_status(conn: Connection, obj: dict[str, Any], plural: str, status: dict[str, Any]) -> None:
    group, _, version = str(obj["apiVersion"]).rpartition("/")
    path = resource_path(group, version, plural, obj["metadata"]["namespace"], obj["metadata"]["name"])
    conn.request("PATCH", f"{path}/status", body={"status": status}, content_type="application/merge-patch+json")


def _event(conn: Connection, about: dict[str, Any], reason: str) -> None:
    namespace = about["metadata"]["namespace"]
    body = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{about['metadata']['name']}.{secrets.token_hex(4)}", "namespace": namespace},
        "involvedObject": {
            "apiVersion": about["apiVersion"],
            "kind": about["kind"],
            "name": about["metadata"]["name"],
            "namespace": namespace,
            "uid": about["metadata"]["uid"],
        },
        "reason": reason,
        "message": f"{reason} by the test",
        "type": "Normal",
        "source": {"component": "jobset-controller"},
    }
    create(conn, body, "events", namespace)


def _replicated_status(ready: int, succeeded: int = 0) -> dict[str, Any]:
    return {
        "replicatedJobsStatus": [
            {"name": "workers", "ready": ready, "succeeded": succeeded, "failed": 0, "active": ready, "suspended": 0}
        ]
    }


def _play_controllers(conn: Connection, namespace: str, jobset: dict[str, Any]) -> list[dict[str, Any]]:
    """What the JobSet and Job controllers would do, step by step: Jobs, pods, running, complete.
    Also objects of the namespace that are not the workload's, which the recording must leave out."""
    name = jobset["metadata"]["name"]
    _patch_status(conn, jobset, "jobsets", _replicated_status(0))
    pod_template = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    pods = []
    for index in range(2):
        labels = {
            "jobset.sigs.k8s.io/jobset-name": name,
            "jobset.sigs.k8s.io/replicatedjob-name": "workers",
            "jobset.sigs.k8s.io/job-index": str(index),
        }
        template = {
            "metadata": {"labels": labels},
            "spec": {**pod_template["spec"], "restartPolicy": "OnFailure"},
        }
        metadata = {
            "name": f"{name}-workers-{index}",
            "namespace": namespace,
            "labels": labels,
            "ownerReferences": [owner_ref(jobset)],
        }
        spec = {"parallelism": 1, "completions": 1, "template": template}
        job = create(
            conn, {"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec}, "jobs", namespace
        )
        job_labels = {**labels, "batch.kubernetes.io/job-name": metadata["name"]}
        pods.append(create(conn, pod(f"{metadata['name']}-0", namespace, template, job_labels, job), "pods", namespace))
    _event(conn, jobset, "SuccessfulCreate")
    # Not the workload's: a pod of nobody and an Event about it.
    stranger_pod = pod("stranger", namespace, {}, {"jobset.sigs.k8s.io/jobset-name": name}, None)
    stranger = create(conn, stranger_pod, "pods", namespace)
    _event(conn, stranger, "Scheduled")
    for made in pods:
        _event(conn, made, "Scheduled")
        set_pod_running(conn, namespace, made["metadata"]["name"])
    _patch_status(conn, jobset, "jobsets", _replicated_status(2))
    return pods


def _finish(conn: Connection, jobset: dict[str, Any]) -> None:
    status = _replicated_status(0, succeeded=2)
    status["conditions"] = [
        {
            "type": "Completed",
            "status": "True",
            "reason": "AllJobsCompleted",
            "message": "jobset completed successfully",
            "lastTransitionTime": "2026-12-06T22:00:00Z",
        }
    ]
    status["terminalState"] = "Completed"
    _patch_status(conn, jobset, "jobsets", status)
    _event(conn, jobset, "AllJobsCompleted")  # after the status --until waits for: not recorded


def test_record_replays_to_the_statuses_it_printed_and_checkpoints_pass(
    cluster: TestCluster, namespace: str, tmp_path: Path
) -> None:
    conn = admin(cluster)
    jobset = create(conn, _jobset(namespace, "pi"), "jobsets", namespace)
    out = tmp_path / "pi.yaml"
    rec = Recording(cluster, "jobset/pi", "-n", namespace, "-o", str(out), "--until", "Completed", "--timeout", "120")
    try:
        rec.wait_for(r"jobset\.jobset\.x-k8s\.io/pi  \w+  after 0 event\(s\)$")  # read, header written, watching
        time.sleep(1.0)  # the watches open just after the first status is printed
        pods = _play_controllers(conn, namespace, jobset)
        rec.wait_for(r"  Running  after \d+ event\(s\)$")
        _finish(conn, jobset)
        assert rec.end() == 0, rec.stderr
    finally:
        conn.close()
        if rec.proc.poll() is None:
            rec.proc.kill()
    summary = r"recorded \d+ event\(s\) of jobset\.jobset\.x-k8s\.io/pi to .*: reached Completed$"
    assert re.search(summary, rec.stderr[-1]), rec.stderr

    recording = load_recording(str(out))
    assert recording.workload.to_json() == {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "namespace": namespace,
        "name": "pi",
    }
    assert recording.recorded.by == "wmap record" and recording.recorded.server
    assert [o["kind"] for o in recording.objects] == ["JobSet"]
    kinds = {(e.object["kind"], e.object["metadata"]["name"]) for e in recording.events}
    assert {("Job", "pi-workers-0"), ("Job", "pi-workers-1")} <= kinds
    assert {("Pod", p["metadata"]["name"]) for p in pods} <= kinds
    about = {e.object["involvedObject"]["name"] for e in recording.events if e.object["kind"] == "Event"}
    assert about == {"pi", *(p["metadata"]["name"] for p in pods)}, about
    assert not any(e.object["metadata"]["name"] == "stranger" for e in recording.events)
    assert "managedFields" not in out.read_text()

    # The replay reaches the statuses the recorder printed, in the same order.
    shown = _definitions_test(out, "-o", "json")
    assert shown.returncode == 0, shown.stderr
    replayed = [s["tree"]["status"]["primary"] for s in json.loads(shown.stdout)["samples"]]
    assert replayed == rec.statuses() and replayed[-1] == "Completed", (replayed, rec.stderr)

    # Checkpoints in the Running state and at the end pass. The Running one is the state just before the
    # JobSet's completion: every write of the running phase (pods running, then the JobSet's status) is in by
    # then, where at the first Running state a pod's event may still trail the JobSet's (each kind is watched
    # on its own stream: a clean-clone run saw it).
    completed = next(
        s["after"] for s in json.loads(shown.stdout)["samples"] if s["tree"]["status"]["primary"] == "Completed"
    )
    running = completed - 1
    recording.checkpoints = [
        Checkpoint("all workers running", running, {
            "primary": "Running", "pods": {"replicatedJob": 2}, "podsCurrent": {"replicatedJob": 2},
            "podsReady": {"replicatedJob": 2}, "gpus": 2, "gpusCurrent": 2,
        }),
        Checkpoint("completed", len(recording.events), {"primary": "Completed"}),
    ]  # fmt: skip
    checked = tmp_path / "pi-checked.yaml"
    with checked.open("w") as handle:
        dump_recording(recording, handle)
    passed = _definitions_test(checked)
    assert passed.returncode == 0, (passed.stdout, passed.stderr)
    assert passed.stdout.count("PASS  jobset.jobset.x-k8s.io/pi") == 2, passed.stdout
    # And a wrong expectation fails, naming the key.
    recording.checkpoints = [Checkpoint("too early", 0, {"primary": "Running"})]
    with checked.open("w") as handle:
        dump_recording(recording, handle)
    failed = _definitions_test(checked)
    assert failed.returncode == 1 and "expect primary: 'Running' ->" in failed.stdout, failed.stdout


def _definitions_test(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(WMAP), "definitions", "test", DEFINITION, "--samples", str(path), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_ctrl_c_keeps_a_valid_recording(cluster: TestCluster, namespace: str, tmp_path: Path) -> None:
    conn = admin(cluster)
    jobset = create(conn, _jobset(namespace, "cut"), "jobsets", namespace)
    out = tmp_path / "cut.yaml"
    rec = Recording(cluster, "jobset/cut", "-n", namespace, "-o", str(out))
    try:
        rec.wait_for(r"after 0 event\(s\)$")
        time.sleep(1.0)
        # Both Jobs ready: a status change (Initializing -> Running), which is what prints a line; a JobSet
        # reads Initializing from its creation on, before and after a first status with nothing ready.
        _patch_status(conn, jobset, "jobsets", _replicated_status(2))
        rec.wait_for(r"after [1-9]\d* event\(s\)$")
        rec.proc.send_signal(signal.SIGINT)
        assert rec.end() == 0, rec.stderr
    finally:
        conn.close()
    assert rec.stderr[-1].endswith(": interrupted"), rec.stderr
    recording = load_recording(str(out))
    assert [e.type for e in recording.events] == ["MODIFIED"]
    assert recording.events[0].object["status"]["replicatedJobsStatus"][0]["name"] == "workers"


def test_max_events_and_a_deleted_workload_end_the_recording(
    cluster: TestCluster, namespace: str, tmp_path: Path
) -> None:
    conn = admin(cluster)
    jobset = create(conn, _jobset(namespace, "short"), "jobsets", namespace)
    rec = Recording(cluster, "jobset/short", "-n", namespace, "--max-events", "1", "--until", "Completed")
    try:
        rec.wait_for(r"after 0 event\(s\)$")
        time.sleep(1.0)
        _patch_status(conn, jobset, "jobsets", _replicated_status(0))
        _patch_status(conn, jobset, "jobsets", _replicated_status(1))
        assert rec.end() == 1, rec.stderr  # --until not reached
        assert rec.stderr[-1].endswith("--max-events reached"), rec.stderr
        assert rec.proc.stdout is not None
        written = yaml.safe_load(rec.proc.stdout.read())
        assert len(written["events"]) == 1
        # A status the workload already has ends the recording at once, after its first state.
        at_once = Recording(cluster, "jobset/short", "-n", namespace, "--until", rec.statuses()[-1])
        assert at_once.end() == 0, at_once.stderr
        assert at_once.stderr[-1].endswith(
            f"recorded 0 event(s) of jobset.jobset.x-k8s.io/short: reached {rec.statuses()[-1]}"
        )
        deleted = Recording(cluster, "jobset/short", "-n", namespace)
        deleted.wait_for(r"after 0 event\(s\)$")
        time.sleep(1.0)
        cluster.kubectl("delete", "jobset", "short", "-n", namespace)
        assert deleted.end() == 0, deleted.stderr
        assert "  deleted  after 1 event(s)" in "\n".join(deleted.stderr), deleted.stderr
        assert deleted.stderr[-1].endswith(": the workload was deleted"), deleted.stderr
    finally:
        conn.close()


def test_record_errors(cluster: TestCluster, namespace: str, tmp_path: Path) -> None:
    def record(*args: str, kubeconfig: Path = cluster.kubeconfig_path) -> Any:
        return CliRunner().invoke(cli, ["record", *args, "-n", namespace, "--kubeconfig", str(kubeconfig)])

    missing = record("jobset/nothing")
    assert missing.exit_code == 3 and 'not found in namespace "' + namespace + '"' in missing.output, missing.output
    unknown = record("jobsett/pi")
    assert unknown.exit_code == 4 and "did you mean jobset?" in unknown.output, unknown.output
    bad = record("jobset/pi", "--timeout", "soon")
    assert bad.exit_code == 2 and "--timeout" in bad.output, bad.output
    nobody = cluster.kubeconfig_for(cluster.token_for("wmap-record-none"), tmp_path / "none.kubeconfig")
    forbidden = record("jobset/pi", "-o", str(tmp_path / "never.yaml"), kubeconfig=nobody)
    assert forbidden.exit_code == 1 and "forbidden" in forbidden.output.lower(), forbidden.output
    assert not (tmp_path / "never.yaml").exists()  # nothing recorded, no file


def test_the_recorder_library_across_an_apiserver_restart(testcluster_bin_dir: Path, tmp_path: Path) -> None:
    """The recorder the lab runs in a thread (``cluster.record.Recorder``), on its own cluster whose apiserver
    restarts mid-recording: the watches fail, are retried, list again, and what changed meanwhile is
    written once; the last state replayed is the server's."""

    own = TestCluster(testcluster_bin_dir)
    own.start()
    try:
        conn = admin(own)
        ns = create_namespace(conn, "restart")
        deployment_scenario(conn, ns, name="web", replicas=2)
        source = live_source(LiveOptions(kubeconfig=str(own.kubeconfig_path), namespace=ns, describe=("deploy", "web")))
        root = next(o for o in source.snapshot.of_kind("apps", "Deployment") if o["metadata"]["name"] == "web")
        path = tmp_path / "web.yaml"
        with path.open("w") as out:
            recorder = Recorder(source, root, out, by="lab", operator=OperatorRef("kube-controller-manager", "none"))
            stop = threading.Event()
            thread = threading.Thread(target=recorder.run, kwargs={"stop": stop, "timeout": 180}, daemon=True)
            thread.start()
            time.sleep(1.0)
            own.restart_apiserver()
            set_pod_running(conn, ns, "web-5d9f7c-00000")
            replicaset = conn.get(f"/apis/apps/v1/namespaces/{ns}/replicasets/web-5d9f7c")
            replicaset.update(apiVersion="apps/v1", kind="ReplicaSet")
            template = {"spec": {"containers": [{"name": "main", "image": "nginx"}]}}
            labels = {"app": "web", "pod-template-hash": "5d9f7c"}
            create(conn, pod("web-5d9f7c-late", ns, template, labels, replicaset), "pods", ns)
            server_pods = {p["metadata"]["name"]: p["metadata"]["resourceVersion"] for p in _pods(conn, ns)}

            def caught_up() -> bool:
                pods = {
                    k.name: o["metadata"]["resourceVersion"] for k, o in recorder.recorded.items() if k.kind == "Pod"
                }
                return pods == server_pods

            eventually(caught_up, timeout=120, what="the recorder to see the changes made across the restart")
            recorder.checkpoint("pods after the restart", {"podsCurrent": {"deployment": 3}})
            stop.set()
            thread.join(timeout=30)
            recorder.close()
        source.connection.close()
        conn.close()
    finally:
        own.stop()
    recording = load_recording(str(path))
    assert recording.recorded.operator is not None and recording.recorded.by == "lab"
    seen = [
        (e.object["kind"], e.object["metadata"]["name"], e.object["metadata"]["resourceVersion"])
        for e in recording.events
    ]
    assert len(seen) == len(set(seen)), seen  # each change written once, whether a watch or a relist brought it
    last = recording.state_at(len(recording.events))
    assert {p["metadata"]["name"]: p["metadata"]["resourceVersion"] for p in last.pods} == server_pods
    assert [c.after for c in recording.checkpoints] == [len(recording.events)]
    definition = next(d for d in wm.effective_definitions()[0] if d.name == "apps-deployment-v1")
    assert [r.verdict for r in wm.test_samples(definition, [str(path)])] == ["PASS"]


def _pods(conn: Connection, namespace: str) -> list[dict[str, Any]]:
    return list(conn.get(f"/api/v1/namespaces/{namespace}/pods").get("items") or [])
