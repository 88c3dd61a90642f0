"""How operators spell the values of their statuses and their switches, read from small Go files and CRDs of our
own: constants named after the kind, untyped constants beside typed ones, core API condition lists, a
feature's own pause."""

from __future__ import annotations

from pathlib import Path

from tests.authoring.fixtures import crd

from workload_map.authoring import draft
from workload_map.authoring.gosource import api_values
from workload_map.authoring.status import classify

KILNS = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

const (
	// KilnClusterStateFiring is the state of a kiln cluster while it fires.
	KilnClusterStateFiring = "Firing"
	KilnClusterStateCracked = "Cracked"
	// A value of the other kind of this package, kept apart by its name.
	GlazeStateMixed = "Mixed"
	KilnClusterVentOpen = "VentOpen"
)

type KilnCluster struct {
	metav1.TypeMeta `json:",inline"`
	Status KilnClusterStatus `json:"status,omitempty"`
}

type KilnClusterStatus struct {
	// State is empty until the first firing.
	State string `json:"state,omitempty"`
}

type Glaze struct {
	metav1.TypeMeta `json:",inline"`
	Status GlazeStatus `json:"status,omitempty"`
}

type GlazeStatus struct {
	State string `json:"state,omitempty"`
}
"""

CONTROLLER = """\
package controller

func (r *GlazeReconciler) Reconcile(glaze *v1.Glaze) {
	glaze.Status.State = "Drying"
}
"""


def _write(root: Path, files: list[tuple[str, str, str]]) -> Path:
    for folder, name, text in files:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_text(text)
    return root


def test_a_plain_string_state_takes_the_constants_named_after_the_kind_and_the_field(tmp_path: Path) -> None:
    root = _write(tmp_path, [("api/v1", "kiln_types.go", KILNS), ("internal/controller", "glaze.go", CONTROLLER)])
    found = api_values(root, "KilnCluster", "v1")
    # The kind's own constants, not the other kind's nor one of another field; nothing another kind's
    # controller writes into its own ``Status.State``.
    assert [v for v, _ in found.phases[("status", "state")]] == ["Firing", "Cracked"]
    assert "KilnClusterStateFiring" in found.phases[("status", "state")][0][1]


TROUGHS = """\
package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type TroughConditionType string

const (
	TroughConditionFilled TroughConditionType = "Filled"
	TroughConditionLeaking                    = "Leaking"
	TroughConditionOverflow                   = "Overflow"

	// The reason of a condition, not a type.
	TroughConditionReasonRain = "Rain"
	SpilledReason             = "Spilled"
)

type Trough struct {
	metav1.TypeMeta `json:",inline"`
	Status TroughStatus `json:"status,omitempty"`
}

type TroughStatus struct {
	Conditions []TroughCondition `json:"conditions,omitempty"`
}

type TroughCondition struct {
	Type   TroughConditionType    `json:"type"`
	Status corev1.ConditionStatus `json:"status"`
}
"""


def test_untyped_constants_beside_the_typed_ones_and_named_after_the_type_are_its_values(tmp_path: Path) -> None:
    root = _write(tmp_path, [("api/v1", "trough_types.go", TROUGHS)])
    found = api_values(root, "Trough", "v1")
    assert [v for v, _ in found.conditions] == ["Filled", "Leaking", "Overflow"]


PUMPS = """\
package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type Pump struct {
	metav1.TypeMeta `json:",inline"`
	Status PumpStatus `json:"status,omitempty"`
}

type PumpStatus struct {
	Nodes      []string                     `json:"nodes,omitempty"`
	Conditions []corev1.ComponentCondition `json:"conditions,omitempty"`
}
"""


def test_a_condition_list_of_the_core_apis_component_conditions_has_its_healthy_type(tmp_path: Path) -> None:
    root = _write(tmp_path, [("api/v1", "pump_types.go", PUMPS)])
    found = api_values(root, "Pump", "v1")
    assert [v for v, _ in found.conditions] == ["Healthy"]
    assert "k8s.io/api/core/v1 ComponentCondition" in found.conditions[0][1]


def test_operational_and_upgrading_say_the_pods_serve() -> None:
    assert classify("operational") == ("running", "high")
    # An upgrade is rolled over serving pods as an update is (weak: a first install may be one too).
    assert classify("Upgrading") == ("running", "medium")
    assert classify("ClusterUpgrading") == ("running", "medium")


ARCHIVE = {"type": "object", "properties": {"enabled": {"type": "boolean"}, "paused": {"type": "boolean"}}}


def _suspend(spec: dict[str, object]) -> object:
    karta = draft(crd("kiln.example.com", "Kiln", spec)).karta
    return karta["spec"]["structureDefinition"]["rootComponent"].get("suspendDefinition")


def test_the_pause_of_an_optional_feature_beside_its_enabled_is_no_suspend() -> None:
    assert _suspend({"archive": {"type": "object", "properties": {"history": ARCHIVE}}}) is None
    # A switch of the object itself still is, and a nested one with no ``enabled`` beside it.
    nested = {"runPolicy": {"type": "object", "properties": {"paused": {"type": "boolean"}}}}
    assert _suspend(nested) == {
        "suspendActions": [{"path": ".spec.runPolicy.paused", "value": "true"}],
        "resumeActions": [{"path": ".spec.runPolicy.paused", "value": "false"}],
    }


def test_a_pause_boolean_is_a_suspend() -> None:
    assert _suspend({"pause": {"type": "boolean"}}) == {
        "suspendActions": [{"path": ".spec.pause", "value": "true"}],
        "resumeActions": [{"path": ".spec.pause", "value": "false"}],
    }


def test_the_operators_work_said_done_by_its_own_verb_is_running() -> None:
    assert classify("Reconciled") == ("running", "low")
    assert classify("ResourcesSynced") == ("running", "low")
    assert classify("NotReconciled") is None


OVENS = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Oven struct {
	metav1.TypeMeta `json:",inline"`
	Spec   OvenSpec   `json:"spec,omitempty"`
	Status OvenStatus `json:"status,omitempty"`
}

type OvenSpec struct {
	// Suspend makes the operator stop managing the oven; what it made is left as it is.
	Suspend bool `json:"suspend,omitempty"`
}

type OvenStatus struct {
	Phase      string          `json:"phase,omitempty"`
	Conditions []OvenCondition `json:"conditions,omitempty"`
}

type OvenCondition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
}
"""

OVEN_CONTROLLER = """\
package controller

const typeBaked = "Baked"

func (r *OvenReconciler) Reconcile(oven *v1.Oven) {
	pod := r.pod(oven)
	oven.Status.Phase = string(pod.Status.Phase)
	oven.Status.Conditions = append(oven.Status.Conditions, v1.OvenCondition{Type: typeBaked, Status: "True"})
	// A condition of the oven's pod (a readiness gate): not one of the oven's.
	gate := corev1.PodCondition{Type: "oven.example.com/lit", Status: corev1.ConditionTrue}
	r.patchPod(pod, gate, oven)
}
"""


def _oven(tmp_path: Path) -> Path:
    return _write(tmp_path, [("api/v1", "oven_types.go", OVENS), ("internal/controller", "oven.go", OVEN_CONTROLLER)])


def test_a_phase_copied_from_a_pods_phase_takes_the_pod_phases(tmp_path: Path) -> None:
    found = api_values(_oven(tmp_path), "Oven", "v1")
    assert [v for v, _ in found.phases[("status", "phase")]] == ["Pending", "Running", "Succeeded", "Failed", "Unknown"]


def test_the_types_a_controller_builds_a_conditions_struct_of_the_projects_own_with(tmp_path: Path) -> None:
    found = api_values(_oven(tmp_path), "Oven", "v1")
    assert [v for v, _ in found.conditions] == ["Baked"]


def test_a_switch_documented_as_the_operator_no_longer_managing_is_no_suspend(tmp_path: Path) -> None:
    found = api_values(_oven(tmp_path), "Oven", "v1")
    assert [segments for segments, _ in found.operator_switches] == [("spec", "suspend")]


def test_hibernate_and_shutdown_booleans_are_suspends() -> None:
    for name in ("hibernate", "shutdown"):
        assert _suspend({name: {"type": "boolean"}})["suspendActions"] == [  # type: ignore[index]
            {"path": f".spec.{name}", "value": "true"}
        ]


def test_a_suspend_described_as_the_operator_no_longer_managing_the_object_is_none() -> None:
    said = "When true the operator no longer manages the object: what it made is left as it is."
    assert _suspend({"suspend": {"type": "boolean", "description": said}}) is None


def test_a_number_ready_counts_ready_pods_as_a_daemon_sets_does() -> None:
    status = {
        "workerNumberAvailable": {"type": "integer"},
        "workerNumberReady": {"type": "integer"},
        "workerNumberScheduled": {"type": "integer"},
    }
    karta = draft(crd("kiln.example.com", "Kiln", {}, status)).karta
    running = karta["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]["running"]
    expressions = [m["byExpression"]["expression"] for m in running if "byExpression" in m]
    assert expressions == ["(.status.workerNumberReady // 0) > 0"]


def test_a_recovery_in_progress_is_degraded() -> None:
    assert classify("FailoverInProgress") == ("degraded", "low")
    assert classify("Failover") == ("degraded", "high")


SHELVES = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:validation:Enum=Stacking;Completed;Error
type ShelfPhase string

const (
	ShelfStacking ShelfPhase = "Stacking"
	// ShelfCompleted means the shelf has been reconciled: every board is in place.
	ShelfCompleted ShelfPhase = "Completed"
	ShelfError     ShelfPhase = "Error"
)

type Shelf struct {
	metav1.TypeMeta `json:",inline"`
	Status ShelfStatus `json:"status,omitempty"`
}

type ShelfStatus struct {
	Phase ShelfPhase `json:"phase,omitempty"`
}
"""


def test_a_completion_whose_constant_says_the_object_was_reconciled_is_the_operators_work(tmp_path: Path) -> None:
    root = _write(tmp_path, [("api/v1", "shelf_types.go", SHELVES)])
    status = {"phase": {"type": "string", "enum": ["Stacking", "Completed", "Error"]}}
    definition = draft(crd("shelf.example.com", "Shelf", {}, status), api_source=root).karta
    mappings = definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    assert {"byPhase": "Completed"} in mappings["running"]
    assert {"byPhase": "Error"} in mappings["failed"]


LOOMS = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Loom struct {
	metav1.TypeMeta `json:",inline"`
	Status LoomStatus `json:"status,omitempty"`
}

type LoomStatus struct {
	Phase string `json:"phase,omitempty"`
	Woven int32  `json:"woven,omitempty"`
}
"""

LOOM_CONTROLLER = """\
package controller

const phaseWeaving = "Weaving"

func (r *LoomReconciler) Reconcile(loom *v1.Loom) {
	loom.Status = v1.LoomStatus{Phase: phaseWeaving, Woven: 0}
	next := &v1.LoomStatus{
		Woven: 3,
		Phase: "Idle",
	}
	loom.Status = *next
	// Another struct's phase, keyed the same way: not the loom's.
	spool := v1.SpoolStatus{Phase: "Spun"}
}
"""


def test_a_status_built_whole_writes_the_values_keyed_by_the_field(tmp_path: Path) -> None:
    root = _write(tmp_path, [("api/v1", "loom_types.go", LOOMS), ("internal/controller", "loom.go", LOOM_CONTROLLER)])
    found = api_values(root, "Loom", "v1")
    assert [v for v, _ in found.phases[("status", "phase")]] == ["Weaving", "Idle"]


def test_a_pause_that_keeps_the_controllers_from_the_object_is_no_suspend() -> None:
    said = "Paused can be used to prevent controllers from processing the Kiln and what it owns."
    assert _suspend({"paused": {"type": "boolean", "description": said}}) is None


DRUMS = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Drum struct {
	metav1.TypeMeta `json:",inline"`
	Status DrumStatus `json:"status,omitempty"`
}

type DrumStatus struct {
	Spinning   int32 `json:"spinning,omitempty"`
	Balanced   int32 `json:"balanced,omitempty"`
	Requested  int32 `json:"requested,omitempty"`
}
"""

DRUM_CHECKS = """\
package checks

type RolloutCount struct {
	Asked   int32
	Settled int32
}

func Count(rs *appsv1.ReplicaSet) RolloutCount {
	return RolloutCount{Asked: *rs.Spec.Replicas, Settled: rs.Status.AvailableReplicas}
}
"""

DRUM_CONTROLLER = """\
package controller

func (r *DrumReconciler) status(drum *v1.Drum, sts *appsv1.StatefulSet, rs *appsv1.ReplicaSet) v1.DrumStatus {
	counted := checks.Count(rs)
	status := v1.DrumStatus{Spinning: sts.Status.ReadyReplicas}
	status.Balanced = counted.Settled
	status.Requested = counted.Asked
	return status
}
"""


def test_a_ready_count_keyed_in_a_literal_or_carried_by_a_struct_of_the_operators_own(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        [
            ("api/v1", "drum_types.go", DRUMS),
            ("pkg/checks", "checks.go", DRUM_CHECKS),
            ("internal/controller", "drum.go", DRUM_CONTROLLER),
        ],
    )
    found = api_values(root, "Drum", "v1")
    assert [segments for segments, _ in found.ready_counts] == [("status", "spinning"), ("status", "balanced")]


GLAZE_CONDITIONS = """
func kilnOf(glaze *v1.Glaze) *v1.KilnCluster { return nil }

func (r *GlazeReconciler) mark(kiln *v1.KilnCluster) { _ = metav1.Condition{Type: "Glazed"} }
"""


def test_a_status_that_keeps_no_condition_list_takes_no_condition_type_another_kind_builds(tmp_path: Path) -> None:
    # KilnCluster's status has a state and no conditions; Glaze's controller builds conditions in a file
    # that names KilnCluster too.
    builds = CONTROLLER + GLAZE_CONDITIONS
    root = _write(tmp_path, [("api/v1", "kiln_types.go", KILNS), ("internal/controller", "glaze.go", builds)])
    assert api_values(root, "KilnCluster", "v1").conditions == []


CHIMNEYS = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

const NamePrefix = "Chimney"

type Chimney struct {
	metav1.TypeMeta `json:",inline"`
	Status ChimneyStatus `json:"status,omitempty"`
}

type ChimneyStatus struct {
	Phase string `json:"phase,omitempty"`
}
"""

CHIMNEY_CONTROLLER = """\
package controller

import v1 "example.com/chimney/api/v1"

func (r *ChimneyReconciler) Reconcile(chimney *v1.Chimney, err error) {
	chimney.Status.Phase = v1.NamePrefix + "Drawing"
	chimney.Status.Phase = "Blocked: " + err.Error()
}
"""


def test_a_value_written_as_a_concatenation_of_constants_and_literals_is_joined(tmp_path: Path) -> None:
    root = _write(
        tmp_path, [("api/v1", "chimney_types.go", CHIMNEYS), ("internal/controller", "chimney.go", CHIMNEY_CONTROLLER)]
    )
    found = api_values(root, "Chimney", "v1")
    assert [v for v, _ in found.phases[("status", "phase")]] == ["ChimneyDrawing"]


HIVES = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:validation:Enum=Initialized;Humming
type HiveState string

const (
	// HiveInitialized means the hive is initialized but not yet provisioned with bees.
	HiveInitialized HiveState = "Initialized"
	// HiveHumming means every frame holds bees.
	HiveHumming HiveState = "Humming"
)

type Hive struct {
	metav1.TypeMeta `json:",inline"`
	Status HiveStatus `json:"status,omitempty"`
}

type HiveStatus struct {
	State HiveState `json:"state,omitempty"`
}
"""


def test_a_constant_whose_doc_comment_says_not_yet_up_is_initializing_whatever_its_word(tmp_path: Path) -> None:
    assert classify("Initialized") == ("running", "medium")  # the word alone says running
    root = _write(tmp_path, [("api/v1", "hive_types.go", HIVES)])
    status = {"state": {"type": "string", "enum": ["Initialized", "Humming"]}}
    definition = draft(crd("hive.example.com", "Hive", {}, status), api_source=root).karta
    mappings = definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    assert {"byPhase": "Initialized"} in mappings["initializing"]
    assert {"byPhase": "Initialized"} not in mappings.get("running", [])


ORCHARDS = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type GrovePhase string

const (
	GroveStarting GrovePhase = "starting"
	GroveRunning  GrovePhase = "running"
	GroveFailed   GrovePhase = "failed"
)

type Orchard struct {
	metav1.TypeMeta `json:",inline"`
	Status OrchardStatus `json:"status,omitempty"`
}

type OrchardStatus struct {
	// One status per role; the apple trees are planted first, the pears after them.
	AppleStatus *GroveStatus `json:"appleStatus,omitempty"`
	PearStatus  *GroveStatus `json:"pearStatus,omitempty"`
}

type GroveStatus struct {
	Trees     []string       `json:"trees,omitempty"`
	Condition GroveCondition `json:"condition"`
}

type GroveCondition struct {
	Phase  GrovePhase `json:"phase"`
	Reason string     `json:"reason"`
}
"""


def test_a_status_per_role_gives_the_kind_the_first_roles_phase(tmp_path: Path) -> None:
    root = _write(tmp_path, [("api/v1", "orchard_types.go", ORCHARDS)])
    grove = {
        "type": "object",
        "properties": {
            "trees": {"type": "array", "items": {"type": "string"}},
            "condition": {"type": "object", "properties": {"phase": {"type": "string"}, "reason": {"type": "string"}}},
        },
    }
    status = {"appleStatus": grove, "pearStatus": grove}
    definition = draft(crd("orchard.example.com", "Orchard", {}, status), api_source=root).karta
    statuses = definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    assert statuses["phaseDefinition"]["path"] == '.status.appleStatus.condition.phase // ""'
    assert {"byPhase": "running"} in statuses["statusMappings"]["running"]
    assert {"byPhase": "failed"} in statuses["statusMappings"]["failed"]


def test_a_shut_down_object_is_suspended_and_one_shutting_down_is_suspending() -> None:
    assert classify("ShuttingDown") == ("suspending", "medium")
    assert classify("Shutdown") == ("suspended", "high")


def test_a_role_the_spec_configures_has_its_ready_count_beside_it_in_the_status() -> None:
    role = {"type": "object", "properties": {"replicas": {"type": "integer"}}}
    role_status = {
        "type": "object",
        "properties": {"replicas": {"type": "integer"}, "readyReplicas": {"type": "integer"}},
    }
    spec = {"roots": role, "crown": role}
    status = {"roots": role_status, "crown": role_status, "other": role_status}
    karta = draft(crd("tree.example.com", "Tree", spec, status)).karta
    running = karta["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]["running"]
    expressions = [m["byExpression"]["expression"] for m in running if "byExpression" in m]
    assert "(.status.roots.readyReplicas // 0) > 0" in expressions
    assert "(.status.crown.readyReplicas // 0) > 0" in expressions
    assert not any("other" in e for e in expressions)  # no role of the spec: whose pods it counts is unknown


def test_an_unsupported_configuration_is_a_failure_as_an_invalid_one_is() -> None:
    assert classify("UnsupportedConfiguration") == classify("InvalidConfiguration") == ("failed", "medium")
