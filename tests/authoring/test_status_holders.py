"""Status values a controller writes where the first reading missed them: through a variable holding the
status (``st := kiln.Status; st.Phase = PhaseFiring``), and a status that copies a pod's own status (its
phase is the pod phase). Our own small Go files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.authoring.fixtures import crd

from workload_map.authoring import draft
from workload_map.authoring.gosource import api_values
from workload_map.authoring.status import classify

KILN = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Kiln struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status KilnStatus `json:"status,omitempty"`
}

type KilnStatus struct {
	// Phase is where the firing is.
	Phase string `json:"phase,omitempty"`
}
"""

KILN_CONTROLLER = """\
package controller

import kilnv1 "example.com/kiln/api/v1"

const (
	PhaseLoaded string = "Loaded"
	PhaseFiring string = "Firing"
	PhaseCooled string = "Cooled"
)

func (r *Reconciler) load(kiln *kilnv1.Kiln) {
	status := kiln.Status.DeepCopy()
	status.Phase = PhaseLoaded
}

func (r *Reconciler) fire(kiln *kilnv1.Kiln) {
	kilnStatus := r.statusOf(kiln)
	kilnStatus.Phase = PhaseFiring
	if kilnStatus.Phase == PhaseCooled {
		return
	}
	kilnStatus.Phase = PhaseCooled
}
"""


def _write(root: Path, files: list[tuple[str, str, str]]) -> Path:
    for folder, name, text in files:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_text(text)
    return root


def test_a_phase_written_through_a_variable_holding_the_status_is_read(tmp_path: Path) -> None:
    root = _write(tmp_path, [("api/v1", "kiln_types.go", KILN), ("internal/controller", "kiln.go", KILN_CONTROLLER)])
    phases = api_values(root, "Kiln", "v1").phases
    assert [value for value, _ in phases[("status", "phase")]] == ["Loaded", "Firing", "Cooled"]
    assert phases[("status", "phase")][1][1] == "written at internal/controller/kiln.go:18 (PhaseFiring)"


FURNACE = """\
package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type Furnace struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status FurnaceStatus `json:"status,omitempty"`
}

type FurnaceStatus struct {
	// BurnerStatus is the status of the furnace's one pod, copied.
	BurnerStatus corev1.PodStatus `json:"burnerStatus,omitempty"`
	// FanStatus is declared, never written.
	FanStatus corev1.PodStatus `json:"fanStatus,omitempty"`
}
"""

FURNACE_CONTROLLER = """\
package controller

import (
	corev1 "k8s.io/api/core/v1"

	furnacev1 "example.com/furnace/api/v1"
)

func observe(furnace *furnacev1.Furnace, pod *corev1.Pod) {
	furnace.Status.BurnerStatus = pod.Status
}
"""


def test_a_status_the_controller_copies_from_a_pod_has_the_pod_phases(tmp_path: Path) -> None:
    files = [("api/v1", "furnace_types.go", FURNACE), ("internal/controller", "furnace.go", FURNACE_CONTROLLER)]
    phases = api_values(_write(tmp_path, files), "Furnace", "v1").phases
    found = phases[("status", "burnerStatus", "phase")]
    assert [value for value, _ in found] == ["Pending", "Running", "Succeeded", "Failed", "Unknown"]
    assert found[0][1] == "the phase of a pod (a corev1.PodStatus written at internal/controller/furnace.go:10)"
    # A pod status the controller never writes says nothing of the object.
    assert ("status", "fanStatus", "phase") not in phases


def test_configuring_and_seeding_are_start_up_steps() -> None:
    # A controller setting up what it made (Configuring replication, ConfiguringNetwork): not up yet.
    assert classify("Configuring") == ("initializing", "high")
    assert classify("ConfiguringReplication") == ("initializing", "medium")
    # Data put in place before the work can start (ModelsSeeding, a database's seed).
    assert classify("GlazesSeeding") == ("initializing", "high")


def _mappings(karta: dict[str, Any]) -> dict[str, Any]:
    mappings: dict[str, Any] = karta["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"][
        "statusMappings"
    ]
    return mappings


def test_a_request_kinds_result_available_is_its_work_done() -> None:
    # A kind that is one request (a build of a kiln load asked for): the result it asked for being there ends it.
    phase = {"type": "string", "enum": ["Firing", "KilnLoadAvailable", "GlazeExists", "Failed"]}
    mappings = _mappings(draft(crd("kiln.example.com", "FiringRequest", {}, {"phase": phase})).karta)
    assert {"byPhase": "KilnLoadAvailable"} in mappings["completed"]
    assert {"byPhase": "GlazeExists"} in mappings["completed"]
    assert {"byPhase": "KilnLoadAvailable"} not in mappings.get("running", [])
    # The same words on a kind that serves say it runs.
    served = _mappings(draft(crd("kiln.example.com", "Kiln", {}, {"phase": phase})).karta)
    assert {"byPhase": "KilnLoadAvailable"} in served["running"]


OVEN = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Oven struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   OvenSpec   `json:"spec,omitempty"`
	Status OvenStatus `json:"status,omitempty"`
}

type OvenSpec struct {
	// Paused if set, all actions on the managed objects are skipped, except for delete actions.
	Paused bool `json:"paused,omitempty"`
	Burner *BurnerSpec `json:"burner,omitempty"`
}

type BurnerSpec struct {
	CommonParams `json:",inline"`
}

type CommonParams struct {
	// Paused if set, all actions on the managed objects are skipped, except for delete actions.
	Paused bool `json:"paused,omitempty"`
}

type OvenStatus struct {
	Phase string `json:"phase,omitempty"`
}
"""


def test_a_switch_whose_doc_pauses_only_the_operator_is_no_suspend(tmp_path: Path) -> None:
    # A descriptionless CRD: only the Go doc says the switch (the object's, and a part's, through an embedded
    # struct) stops the operator's actions, the pods run on.
    root = _write(tmp_path, [("api/v1", "oven_types.go", OVEN)])
    phase = {"type": "string", "enum": ["operational", "paused", "failed"]}
    switch = {"type": "boolean"}
    spec = {"paused": switch, "burner": {"type": "object", "properties": {"paused": switch}}}
    made = draft(crd("oven.example.com", "Oven", spec, {"phase": phase}), api_source=root)
    root_component = made.karta["spec"]["structureDefinition"]["rootComponent"]
    assert "suspendDefinition" not in root_component
    assert {"byPhase": "paused"} in _mappings(made.karta)["running"]
    # Without the Go types the schema's switch is still read as a suspend.
    bare = draft(crd("oven.example.com", "Oven", {"paused": {"type": "boolean"}}, {"phase": phase}))
    assert "suspendDefinition" in bare.karta["spec"]["structureDefinition"]["rootComponent"]


def test_a_top_level_ready_integer_is_a_ready_count() -> None:
    # `.status.ready: 3`, the object's ready pods summed over its parts: a ready count, as readyReplicas is.
    status = {"ready": {"type": "integer"}, "size": {"type": "integer"}}
    running = _mappings(draft(crd("oven.example.com", "Oven", {}, status)).karta)["running"]
    assert {"byExpression": {"expression": "(.status.ready // 0) > 0", "expectedResult": "true"}} in running
