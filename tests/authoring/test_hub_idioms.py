"""Idioms of operators whose pods the drafting missed: a hub kind other kinds join by naming it (no pods of its
own), condition constants named with the short
``Cond`` (untyped, beside ``metav1.Condition`` lists), a switch named for what it suspends whose description
says the pods go (``suspendSprinklers``), a part's ``running`` count beside its ``target``. Our own small CRDs
and Go files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.authoring import fixtures

from workload_map.authoring import draft
from workload_map.authoring.gohub import members_naming
from workload_map.authoring.gosource import api_values

KIND = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Greenhouse struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status GreenhouseStatus `json:"status,omitempty"`
}

type GreenhouseStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

const (
	GreenhouseCondWatered = "Watered"
	GreenhouseWateredReason = "GreenhouseWatered"
	GreenhouseCondShuttered = "Shuttered"
	Seconds = "Seconds"
)
"""


def test_condition_constants_named_with_the_short_cond_are_the_kinds_conditions(tmp_path: Path) -> None:
    (tmp_path / "api/v1").mkdir(parents=True)
    (tmp_path / "api/v1/greenhouse_types.go").write_text(KIND)
    found = api_values(tmp_path, "Greenhouse", "v1")
    # Not the reason beside them, nor a word that only contains the letters (Seconds).
    assert [v for v, _ in found.conditions] == ["Watered", "Shuttered"]


def _suspend(spec: dict[str, Any]) -> Any:
    result = draft(fixtures.crd("example.com", "Greenhouse", spec), [])
    return result.karta["spec"]["structureDefinition"]["rootComponent"].get("suspendDefinition")


def test_a_switch_named_for_what_it_suspends_is_the_suspend_when_it_says_the_pods_go() -> None:
    action = {
        "type": "object",
        "properties": {
            "suspendSprinklers": {"type": "boolean", "description": "Deletes the pods and keeps the volumes."}
        },
    }
    assert _suspend({"suspendAction": action}) == {
        "suspendActions": [{"path": ".spec.suspendAction.suspendSprinklers", "value": "true"}],
        "resumeActions": [{"path": ".spec.suspendAction.suspendSprinklers", "value": "false"}],
    }
    # The same name with nothing said of the pods may pause one feature: no suspend.
    quiet = {"type": "object", "properties": {"suspendSprinklers": {"type": "boolean"}}}
    assert _suspend({"suspendAction": quiet}) is None


def _running(status: dict[str, Any]) -> list[str]:
    root = draft(fixtures.crd("example.com", "Greenhouse", {}, status), []).karta["spec"]["structureDefinition"]
    mappings = root["rootComponent"]["statusDefinition"]["statusMappings"]
    return [m["byExpression"]["expression"] for m in mappings.get("running", []) if "byExpression" in m]


def test_a_parts_running_count_beside_its_target_says_running() -> None:
    part = {"type": "object", "properties": {"running": {"type": "integer"}, "target": {"type": "integer"}}}
    beds = {"beds": {"type": "object", "properties": {"tomato": part, "basil": part}}}
    assert _running(beds) == ["(.status.beds.tomato.running // 0) > 0", "(.status.beds.basil.running // 0) > 0"]
    # A running count with no target beside it is not read as one part's ready pods.
    alone = {"type": "object", "properties": {"running": {"type": "integer"}}}
    assert not any("tomato" in e for e in _running({"beds": {"type": "object", "properties": {"tomato": alone}}}))


HUB = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Nursery struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   NurserySpec   `json:"spec,omitempty"`
	Status NurseryStatus `json:"status,omitempty"`
}

type NurserySpec struct {
	Paused bool `json:"paused,omitempty"`
}

type NurseryStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

type NurseryReference struct {
	Name string `json:"name"`
}

type Seedbed struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec SeedbedSpec `json:"spec,omitempty"`
}

type SeedbedSpec struct {
	Nursery  NurseryReference `json:"nursery"`
	Replicas *int32           `json:"replicas,omitempty"`
}

type Trowel struct {
	metav1.TypeMeta `json:",inline"`
	Spec TrowelSpec `json:"spec,omitempty"`
}

type TrowelSpec struct {
	Size int32 `json:"size,omitempty"`
}
"""


def test_a_hub_other_kinds_name_has_no_pods_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "api/v1").mkdir(parents=True)
    (tmp_path / "api/v1/types.go").write_text(HUB)
    assert members_naming(tmp_path, "Nursery", "v1") == ["Seedbed"]
    nursery = fixtures.crd("example.com", "Nursery", {"paused": {"type": "boolean"}}, fixtures.CONDITIONS)
    made = draft(nursery, [], api_source=tmp_path)
    root = made.karta["spec"]["structureDefinition"]["rootComponent"]
    # No gap for a pod the hub never has: the kinds naming it make them, and the draft says so.
    assert "specDefinition" not in root
    assert "other kind(s) of its API name it in their spec" in made.text
    assert "Seedbed" in made.text
    # Without a kind naming it, the pods stay a gap to fill.
    (tmp_path / "api/v1/types.go").write_text(HUB.replace("NurseryReference `json", "string `json"))
    root = draft(nursery, [], api_source=tmp_path).karta["spec"]["structureDefinition"]["rootComponent"]
    assert "podTemplateSpecPath" in root["specDefinition"]
