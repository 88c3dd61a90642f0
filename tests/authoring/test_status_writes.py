"""Statuses an operator keeps away from its API types: condition types built through a conversion, condition
constants shared by several kinds of a folder, a ready count the controller copies from a workload, and the
words of build, operation and negated values. Our own small Go files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.authoring.fixtures import crd

from workload_map.authoring import draft
from workload_map.authoring.gosource import api_values
from workload_map.authoring.status import classify

ORCHARD = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Orchard struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status OrchardStatus `json:"status,omitempty"`
}

type OrchardStatus struct {
	// Trees counts the trees bearing fruit.
	Trees int32 `json:"trees,omitempty"`
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ConditionKind names a condition of an Orchard.
type ConditionKind string

const (
	OrchardBlooming ConditionKind = "Blooming"
	OrchardBlighted ConditionKind = "Blighted"
)
"""

SETTERS = """\
package status

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	orchardv1 "example.com/orchard/api/v1"
)

func Blooming(orchard *orchardv1.Orchard) metav1.Condition {
	return metav1.Condition{
		Type:   string(orchardv1.OrchardBlooming),
		Status: metav1.ConditionTrue,
	}
}

func Count(orchard *orchardv1.Orchard, grove *appsv1.StatefulSet) {
	orchard.Status.Trees = grove.Status.ReadyReplicas
}
"""


def _write(root: Path, files: list[tuple[str, str, str]]) -> Path:
    for folder, name, text in files:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_text(text)
    return root


def test_a_condition_type_built_through_a_conversion_is_read(tmp_path: Path) -> None:
    # The constants' type names no condition (ConditionKind): only the built literal says they are conditions.
    root = _write(tmp_path, [("api/v1", "orchard_types.go", ORCHARD), ("internal/status", "s.go", SETTERS)])
    found = dict(api_values(root, "Orchard", "v1").conditions)
    assert found == {"Blooming": "built at internal/status/s.go:11 (OrchardBlooming)"}


def test_a_status_count_the_controller_copies_from_ready_pods_is_a_ready_count(tmp_path: Path) -> None:
    root = _write(tmp_path, [("api/v1", "orchard_types.go", ORCHARD), ("internal/status", "s.go", SETTERS)])
    assert api_values(root, "Orchard", "v1").ready_counts == [
        (("status", "trees"), "ReadyReplicas copied at internal/status/s.go:17")
    ]
    status = {"trees": {"type": "integer"}, "conditions": {"type": "array", "items": {"type": "object"}}}
    made = draft(crd("orchard.example.com", "Orchard", {}, status), api_source=root)
    running = _mappings(made.karta)["running"]
    assert {"byExpression": {"expression": "(.status.trees // 0) > 0", "expectedResult": "true"}} in running


SHARED_CONDITIONS = """\
package v1

const (
	ConditionTypeReady     string = "Ready"
	ConditionTypeRipe      string = "Ripe"
	ConditionTypeHarvested string = "Harvested"

	ConditionReasonFrost string = "Frost"
)
"""

ORCHARD_METHODS = """\
package v1

import "k8s.io/apimachinery/pkg/api/meta"

func (o *Orchard) IsRipe() bool {
	return meta.IsStatusConditionTrue(o.Status.Conditions, ConditionTypeRipe) && o.IsReady()
}

func (o *Orchard) IsReady() bool {
	return meta.IsStatusConditionTrue(o.Status.Conditions, ConditionTypeReady)
}
"""

CRATE = """\
package v1

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type Crate struct {
	metav1.TypeMeta `json:",inline"`
	Status CrateStatus `json:"status,omitempty"`
}

type CrateStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

func (c *Crate) IsHarvested() bool {
	return meta.IsStatusConditionTrue(c.Status.Conditions, ConditionTypeHarvested)
}
"""


def test_condition_constants_shared_by_a_folders_kinds_are_those_the_kinds_methods_read(tmp_path: Path) -> None:
    # Explicitly typed `string` constants in a shared condition file: the Crate's Harvested is not the Orchard's.
    orchard = ORCHARD.split("// ConditionKind", maxsplit=1)[0]
    root = _write(
        tmp_path,
        [
            ("api/v1", "orchard_types.go", orchard),
            ("api/v1", "orchard_methods.go", ORCHARD_METHODS),
            ("api/v1", "condition_types.go", SHARED_CONDITIONS),
            ("api/v1", "crate_types.go", CRATE),
        ],
    )
    assert [t for t, _ in api_values(root, "Orchard", "v1").conditions] == ["Ready", "Ripe"]
    assert [t for t, _ in api_values(root, "Crate", "v1").conditions] == ["Harvested"]


def test_a_build_as_the_subject_is_the_workload_still_starting() -> None:
    assert classify("Build Running") == ("initializing", "medium")
    assert classify("BuildComplete") == ("initializing", "medium")
    assert classify("Building Image") == ("initializing", "medium")
    assert classify("Build Failed") == ("failed", "high")
    # A kind that is itself a build: its build completing is its end.
    assert classify("BuildComplete", building=True) == ("completed", "high")
    assert classify("Initialization") == ("initializing", "high")
    assert classify("Bootstrap") == ("initializing", "high")


def test_an_operation_on_a_serving_object_a_negated_word_and_a_deletion() -> None:
    # The pods keep serving while the operator scales, resizes, replaces or rolls them.
    for value in ("ScalingUp", "ResizingVolumes", "ReplacingNodes", "RollingRestart", "RollingUpdate"):
        assert classify(value) == ("running", "low"), value
    assert classify("UpdateInProgress") == ("running", "low")
    assert classify("Progressing") == ("initializing", "high")
    assert classify("Undeploying") == ("suspending", "medium")
    assert classify("Inactive") == ("initializing", "low")
    assert classify("Unavailable") == ("initializing", "low")
    assert classify("Unhealthy") == ("degraded", "high")
    assert classify("PendingDeletion") is None


def test_a_ready_count_per_role_each_says_running() -> None:
    status = {name: {"type": "integer"} for name in ("readyLeaderReplicas", "readyFollowerReplicas")}
    running = _mappings(draft(crd("orchard.example.com", "Orchard", {}, status)).karta)["running"]
    expressions = [m["byExpression"]["expression"] for m in running]
    assert expressions == ["(.status.readyLeaderReplicas // 0) > 0", "(.status.readyFollowerReplicas // 0) > 0"]
    # A role's own status object counting its ready pods.
    role = {"type": "object", "properties": {"readyReplicas": {"type": "integer"}}}
    running = _mappings(draft(crd("orchard.example.com", "Orchard", {}, {"pickersStatus": role})).karta)["running"]
    assert [m["byExpression"]["expression"] for m in running] == ["(.status.pickersStatus.readyReplicas // 0) > 0"]


def _mappings(karta: dict[str, Any]) -> dict[str, Any]:
    mappings: dict[str, Any] = karta["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"][
        "statusMappings"
    ]
    return mappings


HIVE = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Hive struct {
	metav1.TypeMeta `json:",inline"`
	Status HiveStatus `json:"status,omitempty"`
}

type HiveStatus struct {
	Phase HivePhase `json:"phase,omitempty"`
	Conditions []HiveCondition `json:"conditions,omitempty"`
}

type HivePhase string

type HiveConditionType string

type HiveCondition struct {
	Type   HiveConditionType `json:"type"`
	Status string            `json:"status"`
}
"""

HIVE_CONSTANTS = """\
package phases

import hivev1 "example.com/hive/api/v1"

const (
	Swarming hivev1.HivePhase = "Swarming"
	Humming  hivev1.HivePhase = "Humming"
)

const QueenPresent = hivev1.HiveConditionType("QueenPresent")
"""


def test_the_constants_of_a_status_type_declared_in_another_package(tmp_path: Path) -> None:
    root = _write(tmp_path, [("api/v1", "hive_types.go", HIVE), ("internal/phases", "p.go", HIVE_CONSTANTS)])
    found = api_values(root, "Hive", "v1")
    assert [v for v, _ in found.phases[("status", "phase")]] == ["Swarming", "Humming"]
    assert found.conditions == [("QueenPresent", "declared in internal/phases/p.go:10 (QueenPresent)")]


def test_a_build_finishing_says_not_that_the_workload_ever_finishes() -> None:
    phase = {"type": "string", "enum": ["Build Running", "Build Complete", "Running", "Error"]}
    made = draft(crd("orchard.example.com", "Orchard", {}, {"phase": phase}))
    mappings = _mappings(made.karta)
    assert {"byPhase": "Build Complete"} in mappings["initializing"]
    assert "completed" not in mappings and "TODO(wmap): when is a completed" not in made.text


MACHINE = """\
package controller

import orchardv1 "example.com/orchard/api/v1"

const (
	StageDormant = "Dormant"
	StageBudding = "Budding"
	StageFrozen  = "Frozen"
)

func (r *Reconciler) Reconcile(orchard *orchardv1.Orchard) error {
	stage := StageDormant
	if orchard.Warm() {
		stage = StageBudding
	}
	orchard.Status.State = stage
	orchard.Status.SeasonState = r.season(orchard)
	return nil
}

func (r *Reconciler) season(orchard *orchardv1.Orchard) string {
	err := r.frost(orchard)
	if err != nil {
		return StageFrozen
	}
	return "Harvest"
}
"""


def test_values_a_state_machine_assigns_to_a_local_or_a_function_returns_are_written(tmp_path: Path) -> None:
    fields = 'State string `json:"state"`\n\tSeasonState string `json:"seasonState"`\n\tTrees int32'
    kind = ORCHARD.replace("Trees int32", fields)
    root = _write(tmp_path, [("api/v1", "orchard_types.go", kind), ("internal/controller", "c.go", MACHINE)])
    found = api_values(root, "Orchard", "v1")
    assert dict(found.phases[("status", "state")]) == {
        "Dormant": "written at internal/controller/c.go:12 (StageDormant)",
        "Budding": "written at internal/controller/c.go:14 (StageBudding)",
    }
    assert dict(found.phases[("status", "seasonState")]) == {
        "Frozen": "written at internal/controller/c.go:24 (StageFrozen)",
        "Harvest": "written at internal/controller/c.go:26",
    }
    # Returned inside an error check: a failure path.
    assert found.meanings[(("status", "seasonState"), "Frozen")][0] == "failed"


BUILT_FOR_TWO_KINDS = """\
package controller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	orchardv1 "example.com/orchard/api/v1"
)

const (
	typeOrchardBearing = "Bearing"
	typePaused         = "Paused"
	typeCrateSealed    = "Sealed"
)

func (r *OrchardReconciler) Reconcile(orchard *orchardv1.Orchard) {
	pause(&orchard.Status.Conditions)
	meta.SetStatusCondition(&orchard.Status.Conditions, metav1.Condition{Type: typeOrchardBearing})
}

func pause(conditions *[]metav1.Condition) {
	meta.SetStatusCondition(conditions, metav1.Condition{Type: typePaused})
}

// The crate reconciler looks up the Orchard it packs for, by name.
func (r *CrateReconciler) Reconcile(crate *orchardv1.OrchardCrate) {
	meta.SetStatusCondition(&crate.Status.Conditions, metav1.Condition{Type: typeCrateSealed})
}
"""


def test_conditions_built_in_functions_using_the_kind_are_its_own(tmp_path: Path) -> None:
    # Every file names the Orchard (the project's main kind): the Crate's Sealed is not the Orchard's, while
    # a helper the Orchard's reconciler calls (pause) builds one of its conditions.
    orchard = ORCHARD.split("// ConditionKind", maxsplit=1)[0]
    root = _write(tmp_path, [("api/v1", "orchard_types.go", orchard), ("internal/c", "c.go", BUILT_FOR_TWO_KINDS)])
    assert [t for t, _ in api_values(root, "Orchard", "v1").conditions] == ["Bearing", "Paused"]
