"""A workload's Events (tree/events.py): which are its own, how repeats read, the order; the same events in
``View.events``, ``wmap describe`` from a dump and the live model's bounded store (live/events.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

import workload_map as wm
from workload_map.cli.main import cli
from workload_map.live.events import EventStore
from workload_map.live.model import LiveModel
from workload_map.serve import api
from workload_map.tree.events import event_of, events_in, scope_of

EXAMPLE = Path(wm.__file__).parent / "examples" / "ai-cluster.yaml"
DEPLOYMENT_UID = "e8311496-4c3c-44aa-a05e-34a7fd6caefa"  # the example's Deployment tei-embeddings
REPLICASET_UID = "8e1a3047-7c3e-4e95-9691-5d5653da5cd7"  # its ReplicaSet
POD = ("tei-embeddings-gqmv6fw7bk-vl5nx", "85181a5c-9c0e-44f1-a145-ebc53d746dbb")  # one of its pods


def event(name: str, kind: str, obj: str, uid: str | None, reason: str, **fields: Any) -> dict[str, Any]:
    involved = {"kind": kind, "name": obj, "namespace": "ml-serving", **({"uid": uid} if uid else {})}
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "ml-serving", "uid": f"uid-{name}"},
        "involvedObject": involved,
        "reason": reason,
        **fields,
    }


EVENTS = [
    event(
        "bo",
        "Pod",
        POD[0],
        POD[1],
        "BackOff",
        type="Warning",
        message="Back-off restarting failed container\n",
        count=7,
        firstTimestamp="2026-01-01T10:05:00Z",
        lastTimestamp="2026-01-01T10:30:00Z",
        source={"component": "kubelet", "host": "gpu-h100-00-01"},
    ),
    event(
        "scaled",
        "Deployment",
        "tei-embeddings",
        DEPLOYMENT_UID,
        "ScalingReplicaSet",
        type="Normal",
        message="Scaled up replica set tei-embeddings-gqmv6fw7bk to 2",
        count=1,
        firstTimestamp="2026-01-01T10:00:00Z",
        lastTimestamp="2026-01-01T10:00:00Z",
        source={"component": "deployment-controller"},
    ),
    # the child the definition names (the ReplicaSet)
    event(
        "created",
        "ReplicaSet",
        "tei-embeddings-gqmv6fw7bk",
        REPLICASET_UID,
        "SuccessfulCreate",
        type="Normal",
        message="Created pod",
        firstTimestamp="2026-01-01T10:01:00Z",
        lastTimestamp="2026-01-01T10:01:00Z",
        source={"component": "replicaset-controller"},
    ),
    # an earlier pod of another workload's name (another uid), an event naming no uid about an object that
    # has one (kubectl's uid field selector leaves it out) and an object of no workload: no workload's
    event("nouid", "Deployment", "tei-embeddings", None, "Old", type="Normal", message="no uid"),
    event("other", "Pod", "vllm-llama-405b-0", "not-ours", "Pulled", type="Normal", message="pulled"),
    event("stray", "ConfigMap", "tei-embeddings", "cm-uid", "Updated", type="Normal", message="x"),
]


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("events") / "events.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": EVENTS}))
    return path


def test_a_workloads_events_are_its_roots_childrens_and_pods_newest_last(dump: Path) -> None:
    view = wm.open_dump(str(EXAMPLE), str(dump), namespace="ml-serving")
    tree = view.workload("deployment/tei-embeddings")
    events = view.events(tree)
    assert [(e.object_kind, e.reason) for e in events] == [
        ("Deployment", "ScalingReplicaSet"),
        ("ReplicaSet", "SuccessfulCreate"),
        ("Pod", "BackOff"),
    ]
    backoff = events[-1]
    assert backoff.warning and backoff.count == 7 and backoff.source == "kubelet, gpu-h100-00-01"
    assert backoff.message == "Back-off restarting failed container"
    assert backoff.to_json()["object"] == {"kind": "Pod", "name": POD[0], "namespace": "ml-serving"}
    # a workload without events has none (not another's)
    assert view.events(view.workload("leaderworkerset/vllm-llama-405b")) == []


def test_the_events_k8s_io_form_and_a_series_read_as_kubectl_shows_them() -> None:
    new = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "e", "namespace": "ml", "uid": "u"},
        "regarding": {"kind": "Pod", "name": "p", "namespace": "ml", "uid": "pod"},
        "type": "Warning",
        "reason": "FailedScheduling",
        "note": "0/4 nodes are available",
        "reportingController": "default-scheduler",
        "eventTime": "2026-01-01T10:00:00.000000Z",
        "series": {"count": 4, "lastObservedTime": "2026-01-01T10:09:00.000000Z"},
    }
    figure = event_of(new)
    assert figure is not None
    assert (figure.count, figure.first_seen, figure.last_seen) == (
        4,
        "2026-01-01T10:00:00.000000Z",
        "2026-01-01T10:09:00.000000Z",
    )
    assert (figure.message, figure.source, figure.object_uid) == ("0/4 nodes are available", "default-scheduler", "pod")
    assert event_of({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "x"}}) is None  # about nothing


def test_describe_lists_them_as_kubectl_does_and_show_events_false_leaves_them_out(dump: Path) -> None:
    args = ["describe", "deployment/tei-embeddings", "-n", "ml-serving", "--from-file", str(EXAMPLE)]
    result = CliRunner().invoke(cli, [*args, "--from-file", str(dump)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    section = result.stdout[result.stdout.index("\nEvents:\n") :].strip().splitlines()
    assert section[1].split() == ["Type", "Reason", "Age", "From", "Object", "Message"]
    assert section[2].split() == ["----", "------", "----", "----", "------", "-------"]
    assert section[3].split()[:2] == ["Normal", "ScalingReplicaSet"]
    last = section[-1]
    assert last.split()[:2] == ["Warning", "BackOff"] and "(x7 over " in last, last
    assert re.search(rf"kubelet, gpu-h100-00-01  pod/{POD[0]} +Back-off restarting failed container$", last), last
    assert len(section) == 6  # the header, the rulers, three events

    result = CliRunner().invoke(cli, args, catch_exceptions=False)  # the example holds no Events
    assert result.stdout.rstrip().endswith("Events:  <none>")
    result = CliRunner().invoke(cli, [*args, "--from-file", str(dump), "--show-events=false"], catch_exceptions=False)
    assert result.exit_code == 0 and "Events:" not in result.stdout


def test_the_served_model_keeps_the_events_of_workload_objects_only(dump: Path) -> None:
    view = wm.open_dump(str(EXAMPLE), str(dump), namespace=None)
    model = LiveModel.from_snapshot(view._index.snapshot, view.registry)
    document = api.workload(model, "ml-serving", "deployment", "tei-embeddings")
    assert document is not None
    # the same events as View.events: describe and the API agree
    tree = view.workload("deployment/tei-embeddings", namespace="ml-serving")
    assert document["events"] == [e.to_json() for e in view.events(tree)]
    assert [e["reason"] for e in document["events"]] == ["ScalingReplicaSet", "SuccessfulCreate", "BackOff"]
    assert len(model.events) == 3  # the rest are about no object of a workload of the model


def test_the_store_is_bounded_per_object_and_overall_and_forgets_an_object_gone() -> None:
    store = EventStore(per_object=3, cap=5)

    def put(name: str, uid: str, minute: int) -> None:
        stamp = f"2026-01-01T10:{minute:02d}:00Z"
        figure = event_of(event(name, "Pod", uid, uid, "R", firstTimestamp=stamp, lastTimestamp=stamp))
        assert figure is not None
        store.put(name, figure)

    for minute in range(5):
        put(f"a{minute}", "a", minute)
    assert [e.last_seen[14:16] for e in store.of(["a"]) if e.last_seen] == ["02", "03", "04"]  # the last three
    for minute in range(4):
        put(f"b{minute}", "b", 10 + minute)
    assert len(store) == 5 and len(store.of(["b"])) == 3 and len(store.of(["a"])) == 2  # a's oldest went first
    put("b3", "b", 20)  # MODIFIED: replaced, not added
    assert len(store.of(["b"])) == 3 and store.of(["b"])[-1].last_seen == "2026-01-01T10:20:00Z"
    store.forget("a")
    assert store.of(["a"]) == [] and len(store) == 3


def test_an_event_naming_no_uid_is_about_an_object_of_that_name_only_when_it_has_none() -> None:
    objects = [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bare", "namespace": "ml"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "real", "namespace": "ml", "uid": "u-real"}},
    ]
    about = [
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{name}.{uid}", "namespace": "ml"},
            "involvedObject": {"kind": "Pod", "name": name, "namespace": "ml", **({"uid": uid} if uid else {})},
            "reason": f"{name}-{uid}",
        }
        for name, uid in (("bare", None), ("real", None), ("real", "u-real"), ("real", "u-earlier"))
    ]
    scope = scope_of(objects[0], [], pods=[objects[1]])
    assert [e.reason for e in events_in(scope, about)] == ["bare-None", "real-u-real"]
