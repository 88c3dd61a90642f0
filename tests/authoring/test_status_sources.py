"""Statuses from where an operator really keeps them: a condition list typed in a shared package, and (below)
the values its controller writes into a free string field. Our own small Go files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.authoring.fixtures import crd

from workload_map.authoring import draft
from workload_map.authoring.gosource import api_values
from workload_map.authoring.status import classify

KIND = """\
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	commonv1 "example.com/still/pkg/apis/common/v1"
)

type Still struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status StillStatus `json:"status,omitempty"`
}

type StillStatus struct {
	// ReadyBarrels is the number of barrels ready.
	ReadyBarrels int32 `json:"readyBarrels,omitempty"`
	CurrentState string `json:"currentState"`
	Conditions commonv1.Conditions `json:"conditions"`
}

type Barrel struct {
	metav1.TypeMeta `json:",inline"`
}
"""

CONDITIONS = """\
package v1

import commonv1 "example.com/still/pkg/apis/common/v1"

const (
	StillIsWarm          commonv1.ConditionType = "StillIsWarm"
	DistillationComplete commonv1.ConditionType = "DistillationComplete"
)
"""

COMMON = """\
package v1

type ConditionType string

// A condition of another kind of the project, declared in the shared package.
const CaskSealed ConditionType = "CaskSealed"

// Conditions of any kind of this project.
type Conditions []Condition

type Condition struct {
	Type   ConditionType `json:"type"`
	Status string        `json:"status"`
}
"""


def _source(root: Path) -> Path:
    for folder, name, text in [
        ("api/still/v1", "still_types.go", KIND),
        ("api/still/v1", "status.go", CONDITIONS),
        ("pkg/apis/common/v1", "common.go", COMMON),
    ]:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_text(text)
    return root


STATUS = {
    "currentState": {"type": "string"},
    "readyBarrels": {"type": "integer"},
    "conditions": {
        "type": "array",
        "items": {"type": "object", "properties": {"type": {"type": "string"}, "status": {"type": "string"}}},
    },
}
STILL = crd("still.example.com", "Still", {}, STATUS)


def test_a_named_condition_list_of_a_shared_package_gives_the_kinds_own_condition_types(tmp_path: Path) -> None:
    root = _source(tmp_path)
    found = api_values(root, "Still", "v1")
    # The shared type's constants declared beside this kind, not another kind's (CaskSealed).
    assert [v for v, _ in found.conditions] == ["StillIsWarm", "DistillationComplete"]


def test_the_operators_own_work_and_changes_over_running_pods_are_not_the_objects_end() -> None:
    # The reconcile loop finished or paused: the pods keep running; a failed reconcile degrades.
    assert classify("ReconciliationComplete") == ("running", "low")
    assert classify("ReconciliationPaused") == ("running", "low")
    assert classify("ReconcileFailed") == ("degraded", "low")
    assert classify("DistillationComplete") == ("completed", "high")
    # A start-up phase in the past is over; a change rolls over running pods; a stalled one degrades.
    assert classify("Initialized") == ("running", "medium")
    assert classify("Updating Still Version") == ("running", "low")
    assert classify("MigratingData") == ("running", "low")
    assert classify("ApplyingChanges") == ("initializing", "low")
    assert classify("Stalled") == ("degraded", "high")
    assert classify("StillIsReachable") == ("running", "medium")


def test_a_count_of_ready_members_of_any_name_says_running() -> None:
    running = draft(STILL).karta["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    assert {"byExpression": {"expression": "(.status.readyBarrels // 0) > 0", "expectedResult": "true"}} in running[
        "running"
    ]


CONTROLLER = """\
package controller

import (
	"fmt"

	stillv1 "example.com/still/api/still/v1"
	msgs "example.com/still/pkg/messages"
)

const (
	StateHeating       = "Heating the wash"
	StateDistilling    = "Distilling"
	StateNoCopper      = "Copper pot missing"
	StateFailedCooling = "Coolant gone"
	StateLeaking       = "Leaking"
	StateAging         = "Aging in oak"
)

func (r *Reconciler) setState(ctx context.Context, still *stillv1.Still, state string, ready int32) error {
	copy := still.DeepCopy()
	copy.Status.CurrentState = state // the one write
	return r.client.Status().Update(ctx, copy)
}

func (r *Reconciler) record(ctx context.Context, still *stillv1.Still, state string) error {
	return r.setState(ctx, still, state, 0)
}

func (r *Reconciler) Reconcile(ctx context.Context, still *stillv1.Still) error {
	if _, err := r.setState(ctx, still, StateHeating, 0); err != nil {
		return err
	}
	pot, err := r.pot(ctx, still)
	if err != nil {
		if _, uerr := r.setState(ctx, still, StateNoCopper, 0); uerr != nil {
			return uerr
		}
		return err
	}
	if pot.Cold() {
		r.record(ctx, still, StateFailedCooling)
		return nil
	}
	if pot.Dripping() {
		if err := r.record(ctx, still, msgs.Leaking); err != nil {
			return err
		}
		r.recorder.Event(still, corev1.EventTypeWarning, "Leak", fmt.Sprintf("pot %s", pot))
		return nil
	}
	still.Status.CurrentState = "Bottled"
	if err := r.record(ctx, still, StateDistilling); err != nil {
		return err
	}
	if still.Status.ReadyBarrels == *still.Spec.Barrels {
		r.record(ctx, still, StateAging)
	}
	return nil
}
"""

MESSAGES = """\
package messages

const Leaking = "Leaking at the seams"
"""


def test_the_values_a_controller_writes_into_a_free_string_are_its_phases(tmp_path: Path) -> None:
    root = _source(tmp_path)
    for folder, name, text in [("pkg/controller", "still.go", CONTROLLER), ("pkg/messages", "m.go", MESSAGES)]:
        (root / folder).mkdir(parents=True)
        (root / folder / name).write_text(text)
    found = api_values(root, "Still", "v1")
    written = dict(found.phases[("status", "currentState")])
    # Through setState's and record's parameters to the calls, constants of this package and an imported one,
    # and a literal; each with the place it is written.
    assert set(written) == {
        "Heating the wash",
        "Copper pot missing",
        "Coolant gone",
        "Leaking at the seams",
        "Bottled",
        "Distilling",
        "Aging in oak",
    }
    assert written["Heating the wash"] == "written at pkg/controller/still.go:30 (StateHeating)"
    assert written["Bottled"] == "written at pkg/controller/still.go:51"
    meanings = {value: meant[:2] for (_, value), meant in found.meanings.items()}
    # No word of theirs places these: inside `if err != nil`, or followed by a warning event -> failed (low);
    # a failure word in the constant's name -> by that name. The setter's own error check is no failure path.
    # Written when the ready count reaches the desired one -> running (low).
    assert meanings == {
        "Copper pot missing": ("failed", "low"),
        "Leaking at the seams": ("failed", "low"),
        "Coolant gone": ("failed", "medium"),
        "Aging in oak": ("running", "low"),
    }
    assert "Bottled" not in meanings and "Heating the wash" not in meanings


CONDITIONS_BUILT = """\
package status

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Conditions of a Still, set by the reconciler.
const (
	StillRequested string = "StillRequested"
	StillReady     string = "StillReady"
)

func condition(kind string, status metav1.ConditionStatus) metav1.Condition {
	return metav1.Condition{
		Type:   kind,
		Status: status,
	}
}

func Initial() []metav1.Condition {
	return []metav1.Condition{condition(StillRequested, metav1.ConditionTrue), condition(StillReady, "False")}
}

func Other() metav1.Condition {
	return metav1.Condition{Reason: "x", Type: "Bottled"}
}
"""


def test_condition_types_a_controller_builds_when_the_api_declares_none(tmp_path: Path) -> None:
    root = tmp_path
    kind = KIND.replace("commonv1.Conditions", "[]metav1.Condition")
    for folder, name, text in [("api/still/v1", "still_types.go", kind), ("pkg/status", "c.go", CONDITIONS_BUILT)]:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_text(text)
    found = dict(api_values(root, "Still", "v1").conditions)
    assert list(found) == ["StillRequested", "StillReady", "Bottled"]
    assert found["StillRequested"] == "built at pkg/status/c.go:19 (StillRequested)"
    assert classify("StillRequested") == ("initializing", "high")
    assert classify("JobQueuing") == ("initializing", "high")


def test_a_status_object_counting_members_by_state_gives_the_ready_count() -> None:
    members = {"type": "object", "properties": {"all": {"type": "integer"}, "ready": {"type": "integer"}}}
    kind = crd("still.example.com", "Still", {}, {"replicas": members})
    running = draft(kind).karta["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    expression = {"byExpression": {"expression": "(.status.replicas.ready // 0) > 0", "expectedResult": "true"}}
    assert expression in running["running"]


def test_the_draft_maps_written_values_by_where_they_are_written(tmp_path: Path) -> None:
    root = _source(tmp_path)
    for folder, name, text in [("pkg/controller", "still.go", CONTROLLER), ("pkg/messages", "m.go", MESSAGES)]:
        (root / folder).mkdir(parents=True)
        (root / folder / name).write_text(text)
    made = draft(STILL, api_source=root)
    status = made.karta["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    assert status["phaseDefinition"]["path"] == '.status.currentState // ""'
    failed = status["statusMappings"]["failed"]
    assert {"byPhase": "Copper pot missing"} in failed and {"byPhase": "Coolant gone"} in failed
    assert (
        "phase 'Copper pot missing' (written at pkg/controller/still.go:35 (StateNoCopper)): written on a" in made.text
    )
    # The reconcile completing is no outcome: its False is not failed, and the kind still never completes.
    running = status["statusMappings"]["running"]
    assert {"byConditions": [{"type": "DistillationComplete", "status": "True"}]} in status["statusMappings"][
        "completed"
    ]
    assert {"byExpression": {"expression": "(.status.readyBarrels // 0) > 0", "expectedResult": "true"}} in running


def test_a_reconcile_complete_condition_is_no_outcome_and_the_kind_no_batch() -> None:
    status = {"conditions": STATUS["conditions"]}
    kind = crd("still.example.com", "Still", {}, status)
    kind["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["conditions"][
        "items"
    ]["properties"]["type"]["enum"] = ["ReconciliationComplete", "Ready"]
    made = draft(kind)
    mappings = made.karta["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    assert {"byConditions": [{"type": "ReconciliationComplete", "status": "True"}]} in mappings["running"]
    assert "failed" not in mappings or all("ReconciliationComplete" not in json.dumps(m) for m in mappings["failed"])
    assert not [t for t in made.todos if ".completed" in t.split(":")[0]]  # a service: nothing to complete


LABELS = """\
package utils

const Prefix = "still.example.com"

const (
	// ColdAnnotationName is read by the reconciler.
	ColdAnnotationName = Prefix + "/hibernation"
	// HoldAnnotationName holds the names of the pods to keep cold.
	HoldAnnotationName = Prefix + "/suspend"
)
"""

READER = """\
package controller

import (
	stillv1 "example.com/still/api/still/v1"
	"example.com/still/pkg/utils"
)

const ColdOn = "on"

func isCold(still *stillv1.Still) bool {
	return still.Annotations[utils.ColdAnnotationName] == ColdOn
}

func held(still *stillv1.Still) string {
	return still.Annotations[utils.HoldAnnotationName]
}

// IsUnmanaged tells whether the operator skips this still entirely.
func IsUnmanaged(still *stillv1.Still) bool {
	return still.Annotations["still.example.com/pause"] == "true"
}
"""


def test_a_pause_annotation_the_controller_reads_is_the_suspend_with_the_value_it_compares(tmp_path: Path) -> None:
    root = _source(tmp_path)
    for folder, name, text in [("pkg/utils", "labels.go", LABELS), ("pkg/controller", "cold.go", READER)]:
        (root / folder).mkdir(parents=True)
        (root / folder / name).write_text(text)
    found = api_values(root, "Still", "v1")
    # Declared in a helper package by concatenation, found by the controller's read; the one naming pods is
    # none, nor the one that only stops the operator (read where it decides to leave the object alone).
    assert [k for k, _ in found.annotations] == ["still.example.com/hibernation"]
    assert found.annotation_values == {"still.example.com/hibernation": "on"}
    suspend = draft(STILL, api_source=root).karta["spec"]["structureDefinition"]["rootComponent"]["suspendDefinition"]
    path = '.metadata.annotations["still.example.com/hibernation"]'
    assert suspend == {
        "suspendActions": [{"path": path, "value": '"on"'}],
        "resumeActions": [{"path": path, "value": '"off"'}],
    }


def test_odd_controller_text_never_raises_nor_loops(tmp_path: Path) -> None:
    root = _source(tmp_path)
    (root / "pkg" / "controller").mkdir(parents=True)
    (root / "pkg" / "controller" / "odd.go").write_text(
        "package controller\n\n"
        "// Still: a helper calling itself with the state it sets.\n"
        "func set(s *Still, state string) {\n\ts.Status.CurrentState = state\n\tset(s, state)\n}\n"
        'func call(s *Still) { set(s, "Cooling"); set(s, "unclosed) }\n'
        "func end(s *Still) { s.Status.CurrentState = \n"
        "func more(s *Still) { x := s.Annotations[\n"
    )
    found = api_values(root, "Still", "v1")
    assert [v for v, _ in found.phases[("status", "currentState")]] == ["Cooling"]


OVEN_TYPES = """\
package v1

type Oven struct {
	Spec   OvenSpec   `json:"spec,omitempty"`
	Status OvenStatus `json:"status,omitempty"`
}

type OvenSpec struct{}

type OvenStatus struct {
	Stage       string         `json:"stage,omitempty"`
	StageStatus {result_type} `json:"stageStatus,omitempty"`
}

type {result_type} string

const (
	{prefix}Success    {result_type} = "success"
	{prefix}Failed     {result_type} = "failed"
	{prefix}InProgress {result_type} = "in progress"
)
"""


@pytest.mark.parametrize(
    ("prefix", "result_type", "expected"),
    [
        ("OperatorStageResult", "OperatorStageStatus", {"running": ["success"], "degraded": ["failed"]}),
        ("BakeResult", "BakeStatus", {"completed": ["success"], "failed": ["failed"]}),
    ],
)
def test_values_declared_as_the_operators_results_say_how_its_work_went(
    tmp_path: Path, prefix: str, result_type: str, expected: dict[str, list[str]]
) -> None:
    (tmp_path / "api" / "v1").mkdir(parents=True)
    types = OVEN_TYPES.replace("{prefix}", prefix).replace("{result_type}", result_type)
    (tmp_path / "api" / "v1" / "oven_types.go").write_text(types)
    status = {"stage": {"type": "string"}, "stageStatus": {"type": "string"}}
    made = draft(crd("oven.example.com", "Oven", {"replicas": {"type": "integer"}}, status), api_source=tmp_path)
    mappings = made.karta["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    for status_name, values in expected.items():
        assert [m["byPhase"] for m in mappings[status_name] if "byPhase" in m] == values
