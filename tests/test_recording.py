"""Recordings (sources/recording.py): the format read with located errors, replayed, written, and checked
by ``wmap definitions test``."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

import workload_map as wm
from workload_map.base.objects import name_of
from workload_map.cli.main import cli
from workload_map.errors import DocumentError
from workload_map.sources.recording import (
    Checkpoint,
    Recorded,
    RecordedEvent,
    Recording,
    RecordingWriter,
    WorkloadRef,
    dump_recording,
    load_recording,
    rfc3339,
)

NS = "ml"
JOB = WorkloadRef("batch/v1", "Job", NS, "train")


def _job(status: dict[str, Any] | None = None) -> dict[str, Any]:
    job: dict[str, Any] = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "train",
            "namespace": NS,
            "uid": "job-uid",
            "managedFields": [{"manager": "kube-controller-manager", "operation": "Update"}],
        },
        "spec": {
            "parallelism": 2,
            "completions": 2,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {"name": "main", "image": "busybox", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
                    ],
                }
            },
        },
    }
    if status is not None:
        job["status"] = status
    return job


def _pod(name: str, phase: str = "Pending", ready: bool = False) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"{name}-uid",
            "labels": {"batch.kubernetes.io/job-name": "train", "job-name": "train"},
            "ownerReferences": [
                {"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": "job-uid", "controller": True}
            ],
        },
        "spec": {
            "containers": [{"name": "main", "image": "busybox", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]
        },
        "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }


def _event(n: int, kind: str, obj: dict[str, Any]) -> RecordedEvent:
    return RecordedEvent(f"2026-12-06T22:01:{n:02d}.000Z", kind, obj)


def _recording(checkpoints: list[Checkpoint] | None = None) -> Recording:
    """A Job from creation to completion: its pods appear, run, succeed; one Event about a pod."""
    running = {"active": 2, "ready": 2, "startTime": "2026-12-06T22:01:00Z"}
    done = {
        "succeeded": 2,
        "startTime": "2026-12-06T22:01:00Z",
        "conditions": [
            {"type": "SuccessCriteriaMet", "status": "True"},
            {"type": "Complete", "status": "True"},
        ],
    }
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "train-a.1", "namespace": NS},
        "involvedObject": {"kind": "Pod", "name": "train-a", "namespace": NS, "uid": "train-a-uid"},
        "reason": "Scheduled",
        "type": "Normal",
    }
    events = [
        _event(1, "ADDED", _pod("train-a")),
        _event(2, "ADDED", _pod("train-b")),
        _event(3, "ADDED", event),
        _event(4, "MODIFIED", _pod("train-a", "Running", True)),
        _event(5, "MODIFIED", _pod("train-b", "Running", True)),
        _event(6, "MODIFIED", _job(running)),
        _event(7, "MODIFIED", _pod("train-a", "Succeeded")),
        _event(8, "MODIFIED", _pod("train-b", "Succeeded")),
        _event(9, "MODIFIED", _job(done)),
        _event(10, "DELETED", _pod("train-a", "Succeeded")),
    ]
    recorded = Recorded("lab", "2026-12-06T22:01:00.000Z", server="v1.34.0")
    return Recording(JOB, recorded, [_job({})], events, checkpoints or [])


def _write(path: Path, recording: Recording) -> Path:
    with path.open("w") as out:
        dump_recording(recording, out)
    return path


def _status(snapshot: wm.View | Any) -> str:
    view = wm.open_objects(snapshot, namespace=NS)
    return str(view.workload("job", "train").status.primary.value)


# --------------------------------------------------------------------------- replay


def test_states_start_with_the_initial_objects_and_apply_each_event_in_order(tmp_path: Path) -> None:
    recording = load_recording(str(_write(tmp_path / "r.yaml", _recording())))
    states = list(recording.states())
    assert [index for index, _ in states] == list(range(11))
    assert [name_of(o) for o in states[0][1]] == ["train"]
    assert sorted(name_of(o) for o in states[3][1]) == ["train", "train-a", "train-a.1", "train-b"]
    # DELETED removes the object: the last state has one pod left.
    assert [name_of(p) for p in states[10][1].pods] == ["train-b"]
    statuses = [_status(list(snapshot)) for _, snapshot in states]
    assert statuses[0] != "Running" and statuses[6] == "Running" and statuses[9] == "Completed"


def test_state_at_equals_the_state_states_yields(tmp_path: Path) -> None:
    recording = load_recording(str(_write(tmp_path / "r.yaml", _recording())))
    for index, snapshot in recording.states():
        assert list(recording.state_at(index)) == list(snapshot)


@pytest.mark.parametrize("after", [-1, 11, True, "3", None])
def test_state_at_out_of_range_is_a_located_error(tmp_path: Path, after: Any) -> None:
    recording = load_recording(str(_write(tmp_path / "r.yaml", _recording())))
    with pytest.raises(DocumentError) as caught:
        recording.state_at(after)
    assert "the recording has 10 event(s)" in str(caught.value)
    assert str(tmp_path / "r.yaml") in str(caught.value)


# --------------------------------------------------------------------------- writing


def test_written_file_strips_managed_fields_orders_keys_and_round_trips(tmp_path: Path) -> None:
    original = _recording([Checkpoint("done", 9, {"primary": "Completed"})])
    path = _write(tmp_path / "r.yaml", original)
    text = path.read_text()
    assert "managedFields" not in text
    top = [line.split(":")[0] for line in text.splitlines() if line and not line.startswith((" ", "-"))]
    assert top == ["apiVersion", "kind", "workload", "recorded", "objects", "events", "checkpoints"]
    first_event = yaml.safe_load(text)["events"][0]
    assert list(first_event) == ["at", "type", "object"]
    assert list(first_event["object"]) == sorted(first_event["object"])  # as kubectl prints: keys sorted
    again = load_recording(str(path))
    assert again.workload == original.workload and again.recorded == original.recorded
    assert again.checkpoints == original.checkpoints
    assert [(e.at, e.type, name_of(e.object)) for e in again.events] == [
        (e.at, e.type, name_of(e.object)) for e in original.events
    ]
    # Written twice, the same bytes: a recording is a stable fixture.
    assert _write(tmp_path / "again.yaml", again).read_text() == text


def test_a_writer_cut_short_leaves_a_readable_recording(tmp_path: Path) -> None:
    out = io.StringIO()
    writer = RecordingWriter(out, JOB, Recorded("wmap record", rfc3339(0.0)), [_job()])
    (tmp_path / "none.yaml").write_text(out.getvalue())
    assert load_recording(str(tmp_path / "none.yaml")).events == []
    writer.add(_event(1, "ADDED", _pod("train-a")))
    (tmp_path / "one.yaml").write_text(out.getvalue())
    assert [e.type for e in load_recording(str(tmp_path / "one.yaml")).events] == ["ADDED"]


def test_rfc3339_is_utc_with_milliseconds() -> None:
    assert rfc3339(1_000_000_000.5) == "2001-09-09T01:46:40.500Z"


# --------------------------------------------------------------------------- hostile input


def _broken(tmp_path: Path, change: Any) -> str:
    data = _recording([Checkpoint("done", 9, {"primary": "Completed"})]).to_json()
    change(data)
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(DocumentError) as caught:
        load_recording(str(path))
    return str(caught.value)


def _set(path: tuple[Any, ...], value: Any) -> Any:
    def change(data: Any) -> None:
        for part in path[:-1]:
            data = data[part]
        data[path[-1]] = value

    return change


def _drop(path: tuple[Any, ...]) -> Any:
    def change(data: Any) -> None:
        for part in path[:-1]:
            data = data[part]
        del data[path[-1]]

    return change


@pytest.mark.parametrize(
    ("change", "where", "why"),
    [
        (_set(("kind",), "Recordin"), "document 0", "not a recording"),
        (_set(("extra",), 1), "document 0", "unknown field(s) ['extra']"),
        (_drop(("workload",)), "document 0", "workload is missing"),
        (_set(("workload",), "jobs/train"), "workload", "must be a mapping, not a string"),
        (_drop(("workload", "name")), "workload", "name is missing"),
        (_set(("workload", "namespace"), 3), "workload.namespace", "must be a non-empty string, not a int"),
        (_set(("recorded", "started"), "yesterday"), "recorded.started", "is not an RFC 3339 time"),
        (_set(("recorded", "operator"), {"name": "jobset"}), "recorded.operator", "version is missing"),
        (_set(("objects",), {"a": 1}), "objects", "must be a list, not a mapping"),
        (_set(("objects", 0), "pod"), "objects[0]", "an object must be a mapping, not a string"),
        (_drop(("objects", 0, "kind")), "objects[0]", "kind is missing"),
        (_set(("objects", 0, "metadata"), None), "objects[0].metadata", "must be a mapping, not null"),
        (_set(("events", 2), []), "events[2]", "an event must be a mapping, not a list"),
        (_set(("events", 2, "type"), "UPDATED"), "events[2].type", "is not one of ADDED, MODIFIED, DELETED"),
        (_set(("events", 2, "at"), 17), "events[2].at", "must be a non-empty string, not a int"),
        (_drop(("events", 2, "object")), "events[2]", "object is missing"),
        (_drop(("events", 2, "object", "metadata", "name")), "events[2].object.metadata", "name is missing"),
        (_set(("checkpoints", 0, "after"), 11), "checkpoints[0].after", "11 is out of range"),
        (_set(("checkpoints", 0, "after"), -1), "checkpoints[0].after", "-1 is out of range"),
        (_set(("checkpoints", 0, "after"), "9"), "checkpoints[0].after", "must be a whole number"),
        (_set(("checkpoints", 0, "after"), True), "checkpoints[0].after", "must be a whole number"),
        (_drop(("checkpoints", 0, "name")), "checkpoints[0]", "name is missing"),
        (_set(("checkpoints", 0, "expect"), ["Running"]), "checkpoints[0].expect", "must be a mapping"),
        (_set(("checkpoints", 0, "expect"), {"primay": "Running"}), "checkpoints[0].expect", "unknown key(s)"),
    ],
)
def test_malformed_recordings_are_located_errors(tmp_path: Path, change: Any, where: str, why: str) -> None:
    message = _broken(tmp_path, change)
    assert str(tmp_path / "broken.yaml") in message
    assert where in message and why in message, message


def test_a_file_of_two_documents_is_not_a_recording(tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump_all([_recording().to_json(), _job()]))
    with pytest.raises(DocumentError, match="exactly one document, found 2"):
        load_recording(str(path))


def test_a_file_that_is_not_yaml_is_a_located_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("kind: Recording\nobjects: [\n")
    with pytest.raises(DocumentError, match="YAML syntax error"):
        load_recording(str(path))


# --------------------------------------------------------------------------- wmap definitions test


def _test(*args: str) -> Any:
    return CliRunner().invoke(cli, ["definitions", "test", "batch-job-v1", *args], catch_exceptions=False)


def test_checkpoints_pass_and_fail_by_state(tmp_path: Path) -> None:
    checkpoints = [
        Checkpoint("pods running", 6, {"primary": "Running", "podsCurrent": {"job": 2}, "podsReady": {"job": 2}}),
        Checkpoint("gpus in use", 6, {"gpusCurrent": 2, "gpus": 2}),
        Checkpoint("done", 9, {"primary": "Completed", "gpusCurrent": 0}),
        Checkpoint("wrong", 1, {"primary": "Running", "podsCurrent": {"job": 2}}),
    ]
    path = _write(tmp_path / "r.yaml", _recording(checkpoints))
    result = _test("--samples", str(path))
    assert result.exit_code == 1, result.output
    verdicts = [line.split()[0] for line in result.stdout.splitlines() if line.split()[0] in ("PASS", "FAIL")]
    assert verdicts == ["PASS", "PASS", "PASS", "FAIL"]
    step = "checkpoint 'pods running', after 6 event(s), at 2026-12-06T22:01:06.000Z"
    assert f"{path}, document 0: {step}" in result.stdout
    assert "expect podsCurrent.job: 2 -> 1 MISMATCH" in result.stdout
    assert "4 sample(s), 4 with expectations, 1 failed" in result.stderr


def test_a_recording_without_checkpoints_shows_each_status_change(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.yaml", _recording())
    result = _test("--samples", str(path), "-o", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    shown = [(s["after"], s["tree"]["status"]["primary"], s["verdict"]) for s in report["samples"]]
    assert [verdict for _, _, verdict in shown] == ["SHOWN"] * len(shown)
    primaries = [primary for _, primary, _ in shown]
    assert primaries[-1] == "Completed" and "Running" in primaries
    statuses = [(s["tree"]["status"]["primary"], s["tree"]["status"]["matched"]) for s in report["samples"]]
    assert all(a != b for a, b in itertools.pairwise(statuses))  # only changes are shown
    assert shown[0][0] == 0 and report["samples"][0]["at"] == "2026-12-06T22:01:00.000Z"
    assert [s["after"] for s in report["samples"]] == sorted(s["after"] for s in report["samples"])


def test_a_recording_of_another_kind_fails_with_the_reason(tmp_path: Path) -> None:
    recording = _recording([Checkpoint("start", 0, {"primary": "Running"})])
    path = _write(tmp_path / "r.yaml", recording)
    result = CliRunner().invoke(cli, ["definitions", "test", "core-pod-v1", "--samples", str(path)])
    assert result.exit_code == 1
    assert "definition core-pod-v1 reads Pod, not Job.batch" in result.stdout


def test_a_checkpoint_where_the_workload_is_absent_fails(tmp_path: Path) -> None:
    recording = _recording([Checkpoint("gone", 1, {"primary": "Completed"})])
    recording.objects = []
    result = _test("--samples", str(_write(tmp_path / "r.yaml", recording)))
    assert result.exit_code == 1
    assert "job.batch/train in ml is not among the objects at this point" in result.stdout


def test_a_malformed_recording_among_samples_is_one_located_error(tmp_path: Path) -> None:
    data = _recording().to_json()
    data["events"][3]["type"] = "CHANGED"
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(data))
    result = CliRunner().invoke(cli, ["definitions", "test", "batch-job-v1", "--samples", str(tmp_path)])
    assert result.exit_code == 1
    assert "events[3].type" in result.output and "Traceback" not in result.output


def test_library_test_samples_reads_recordings(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.yaml", _recording([Checkpoint("done", 9, {"primary": "Completed"})]))
    definition = next(d for d in wm.effective_definitions()[0] if d.name == "batch-job-v1")
    results = wm.test_samples(definition, [str(path)])
    assert [(r.checkpoint, r.after, r.verdict) for r in results] == [("done", 9, "PASS")]


def test_states_where_the_workload_is_absent_are_not_shown(tmp_path: Path) -> None:
    """A recording that starts before the workload exists (the lab's) shows from its creation on."""
    recording = _recording()
    created = RecordedEvent("2026-12-06T22:00:59.000Z", "ADDED", _job({}))
    recording.objects, recording.events = [], [created, *recording.events]
    path = _write(tmp_path / "r.yaml", recording)
    result = _test("--samples", str(path), "-o", "json")
    assert result.exit_code == 0, result.output
    samples = json.loads(result.stdout)["samples"]
    assert samples[0]["after"] == 1 and samples[0]["at"] == "2026-12-06T22:00:59.000Z"
    assert samples[-1]["tree"]["status"]["primary"] == "Completed"


def test_a_missing_recording_file_is_a_located_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="no such file or directory") as caught:
        load_recording(str(tmp_path / "absent.yaml"))
    assert str(tmp_path / "absent.yaml") in str(caught.value)
