"""Status mappings from observed transitions: a `wmap record` file or a sequence of one object's versions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

import workload_map as wm
from workload_map.authoring import Sample, draft
from workload_map.authoring.transitions import Moment, observe
from workload_map.cli.main import cli

RECORDINGS = Path(__file__).resolve().parents[1] / "lab" / "recordings"
COMPLETION = str(RECORDINGS / "pytorchjob" / "to-completion.yaml")


def _mappings(result: Any) -> dict[str, list[dict[str, Any]]]:
    root = result.karta["spec"]["structureDefinition"]["rootComponent"]
    mappings: dict[str, list[dict[str, Any]]] = root["statusDefinition"]["statusMappings"]
    return mappings


def _obj(phase: str) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Engine",
        "metadata": {"name": "e", "namespace": "ml", "uid": "uid-e"},
        "spec": {},
        "status": {"phase": phase},
    }


def _pod(ready: bool, phase: str = "Running") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "ownerReferences": [{"kind": "Engine", "name": "e", "uid": "uid-e"}]},
        "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }


def test_a_recording_maps_what_the_operator_went_through_with_the_evidence() -> None:
    result = wm.draft_definition(recordings=[COMPLETION])
    mappings = _mappings(result)
    assert {"byConditions": [{"type": "Running", "status": "True"}]} in mappings["running"]
    assert {"byConditions": [{"type": "Succeeded", "status": "True"}]} in mappings["completed"]
    # the evidence: when the condition held and what the pods were doing then
    assert "condition Succeeded=True seen after 29 event(s) (2026-12-06T23:38:30.684Z)" in result.text
    assert "up to 3 succeeded" in result.text
    # never seen failing: left to do, and said so
    (failed,) = [t for t in result.todos if t.split(":")[0].endswith(".failed")]
    assert "the recording" in failed


def test_values_without_known_words_are_placed_by_what_the_pods_did() -> None:
    states = [("Warming", []), ("Warming", [_pod(False)]), ("Hot", [_pod(True)]), ("Hot", [_pod(True)])]
    states += [("Parked", [_pod(False), _pod(False, "Failed"), _pod(True)])]
    moments = [Moment(i, f"t{i}", _obj(phase), tuple(pods)) for i, (phase, pods) in enumerate(states)]
    observed = observe(moments, [("status", "phase")])
    placed = {p.matcher["byPhase"]: (p.status, p.confidence) for p in observed.placements}
    assert placed == {"Warming": ("initializing", "medium"), "Hot": ("running", "medium")}
    # the last value held while pods were mixed: nothing to go by, so it is left to the reviewer
    assert [u.split(" seen ")[0] for u in observed.unplaced] == ["phase 'Parked'"]
    result = draft(None, [Sample(_obj(p), f"v#{i}") for i, (p, _) in enumerate(states)], moments=moments)
    assert _mappings(result)["running"] == [{"byPhase": "Hot"}]
    assert "phase 'Hot' seen after 2 event(s) (t2) to 3 (t3) in 2 state(s), pods then: 1 of 1 pods ready" in result.text
    assert "Values not placed yet: phase 'Parked'" in " ".join(result.todos)


def test_a_sequence_of_versions_without_pods_places_only_by_order() -> None:
    versions = [_obj("Booting"), _obj("Booting"), _obj("Running"), _obj("Zzz")]
    result = wm.draft_definition(versions=[versions])
    mappings = _mappings(result)
    assert mappings["initializing"] == [{"byPhase": "Booting"}]
    assert {"byPhase": "Running"} in mappings["running"]
    assert "phase 'Zzz'" in result.text and "could not place" in result.text


def test_the_cli_drafts_from_a_recording(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "draft.yaml"
    result = runner.invoke(cli, ["definitions", "new", "--from-recording", COMPLETION, "-o", str(out)])
    assert result.exit_code == 0, result.output
    karta = yaml.safe_load(out.read_text())
    assert karta["spec"]["structureDefinition"]["rootComponent"]["kind"]["kind"] == "PyTorchJob"
    both = runner.invoke(cli, ["definitions", "new", "--kind", "X.example.com", "--from-recording", COMPLETION])
    assert both.exit_code == 2
    missing = runner.invoke(cli, ["definitions", "new", "--from-recording", str(tmp_path / "none.yaml")])
    assert missing.exit_code != 0 and "Traceback" not in missing.output


def test_roles_sharing_container_names_get_their_instance_label_from_the_recorded_pods(tmp_path: Path) -> None:
    # Master and Worker both run a container named `pytorch`: each pod could be either role until a label
    # names one of them on every pod; a label constant over a role's pods (the job name) groups nothing.
    result = wm.draft_definition(recordings=[COMPLETION])
    (role,) = result.karta["spec"]["structureDefinition"]["childComponents"]
    assert role["podSelector"] == {
        "componentInstanceSelector": {"idPath": '.metadata.labels["training.kubeflow.org/replica-type"]'}
    }
    draft_file = tmp_path / "draft.yaml"
    draft_file.write_text(result.text)
    tested = CliRunner().invoke(cli, ["definitions", "test", str(draft_file), "--samples", COMPLETION])
    assert "pytorchReplica 3 (observed 3)" in tested.stdout, tested.output


def test_a_status_count_that_tracks_the_ready_pods_maps_running_when_no_value_says_it() -> None:
    def obj(ready: int, done: bool = False) -> dict[str, Any]:
        status: dict[str, Any] = {"jobs": [{"ready": ready, "active": 1}, {"ready": 0, "active": 1}]}
        if done:
            status["conditions"] = [{"type": "Completed", "status": "True"}]
        return {**_obj("x"), "status": status}

    states = [(obj(0), [_pod(False)]), (obj(0), [_pod(True)]), (obj(1), [_pod(True)]), (obj(1), [_pod(True)])]
    states += [(obj(0, done=True), [_pod(False, "Succeeded")])]
    moments = [Moment(i, f"t{i}", o, tuple(p)) for i, (o, p) in enumerate(states)]
    result = draft(None, [Sample(o, f"v#{i}") for i, (o, _) in enumerate(states)], moments=moments)
    running = _mappings(result)["running"]
    assert running == [
        {"byExpression": {"expression": "([.status.jobs[]?.ready // 0] | add // 0) > 0", "expectedResult": "true"}}
    ]
    assert "in 4 of the 5 recorded states with pods (the rest: the status catching up)" in result.text
    # `active` is above 0 throughout: it tells nothing, and is never taken
    assert "active" not in str(running)
