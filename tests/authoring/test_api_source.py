"""Status values read from an operator's Go API types (``--api-source``): our own small Go files, shaped like
the kubebuilder layouts operators use (typed phase constants, condition types, Enum markers, shared types in
another package, plain string phases with untyped constants)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from tests.authoring.fixtures import TEMPLATE, crd

from workload_map.authoring import draft
from workload_map.authoring.gosource import api_values
from workload_map.catalog import builtin_definitions
from workload_map.cli.main import cli

TYPES = """\
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	shared "example.com/brewer/pkg/apis/shared/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Brew struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BrewSpec   `json:"spec,omitempty"`
	Status BrewStatus `json:"status,omitempty"`
}

type BrewSpec struct {
	Replicas *int32 `json:"replicas,omitempty"`
}

// BrewStatus is what the operator last saw.
type BrewStatus struct {
	// Phase of the brew.
	Phase BrewPhase `json:"phase,omitempty"`
	Conditions []BrewCondition `json:"conditions,omitempty"`
	Kettle KettleStatus `json:"kettle,omitempty"`
	shared.Common `json:",inline"`
	// +kubebuilder:validation:Enum=Clear;Cloudy;Murky
	Clarity string `json:"clarityState,omitempty"`
}

type KettleStatus struct {
	State string `json:"state,omitempty"`
}

const (
	StateBubbling = "Bubbling"
	StateScorched = "Scorched"
	OtherThing = "Unrelated"
)

// BrewPhase is the phase of a brew.
type BrewPhase string

const (
	// BrewMashing means the grain is in the mash.
	BrewMashing BrewPhase = "Mashing"
	BrewRunning BrewPhase = "Running"
	BrewDone    BrewPhase = "Succeeded"
	BrewSpoiled BrewPhase = "Failed"
)

type BrewCondition struct {
	Type   BrewConditionType `json:"type"`
	Status metav1.ConditionStatus `json:"status"`
}

type BrewConditionType string

const (
	BrewReady     BrewConditionType = "Ready"
	BrewFermented = BrewConditionType("Fermented")
	BrewSuspended BrewConditionType = "Suspended"
)
"""

SHARED = """\
package v1

// Common status every kind of this operator carries.
type Common struct {
	TapState TapState `json:"tapState,omitempty"`
}

type TapState string

const (
	TapOpen   TapState = "Pouring"
	TapClosed TapState = "Stopped"
)
"""

STATUS: dict[str, Any] = {
    "phase": {"type": "string"},
    "clarityState": {"type": "string"},
    "tapState": {"type": "string"},
    "kettle": {"type": "object", "properties": {"state": {"type": "string"}}},
    "conditions": {
        "type": "array",
        "items": {"type": "object", "properties": {"type": {"type": "string"}, "status": {"type": "string"}}},
    },
}
BREW = crd("brew.example.com", "Brew", {"replicas": {"type": "integer"}}, STATUS)


def _source(root: Path, types: str = TYPES) -> Path:
    (root / "api" / "v1").mkdir(parents=True)
    (root / "api" / "v1" / "brew_types.go").write_text(types)
    (root / "pkg" / "apis" / "shared" / "v1").mkdir(parents=True)
    (root / "pkg" / "apis" / "shared" / "v1" / "common.go").write_text(SHARED)
    (root / "api" / "v1" / "brew_types_test.go").write_text("package v1\n\ntype Brew struct {\n")  # never read
    (root / "vendor" / "x").mkdir(parents=True)
    (root / "vendor" / "x" / "x.go").write_text("package x\n\ntype Brew struct {\n")  # never read
    return root


def _values(values: list[tuple[str, str]]) -> list[str]:
    return [v for v, _ in values]


def test_phases_conditions_markers_and_shared_types_are_linked_by_json_tags(tmp_path: Path) -> None:
    found = api_values(_source(tmp_path), "Brew", "v1")
    assert found.warnings == []
    assert found.kind_at == "api/v1/brew_types.go:10"
    assert _values(found.phases[("status", "phase")]) == ["Mashing", "Running", "Succeeded", "Failed"]
    assert _values(found.phases[("status", "clarityState")]) == ["Clear", "Cloudy", "Murky"]
    assert _values(found.phases[("status", "tapState")]) == ["Pouring", "Stopped"]  # the inline shared struct
    assert _values(found.phases[("status", "kettle", "state")]) == ["Bubbling", "Scorched"]  # named after the field
    assert _values(found.conditions) == ["Ready", "Fermented", "Suspended"]
    mashing = dict(found.phases[("status", "phase")])["Mashing"]
    assert mashing == "declared in api/v1/brew_types.go:48 (BrewMashing: BrewMashing means the grain is in the mash.)"


def test_a_kind_spelt_lower_case_is_read_from_its_exported_go_type(tmp_path: Path) -> None:
    """A CRD may name its kind ``brew`` while Go registers the exported type ``Brew``."""
    found = api_values(_source(tmp_path), "brew", "v1")
    assert found.warnings == []
    assert found.kind_at == "api/v1/brew_types.go:10"
    assert _values(found.phases[("status", "phase")]) == ["Mashing", "Running", "Succeeded", "Failed"]


def test_the_draft_maps_declared_values_by_their_words_and_lists_the_rest(tmp_path: Path) -> None:
    made = draft(BREW, api_source=_source(tmp_path))
    assert made.warnings == []
    status = made.karta["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    mappings = status["statusMappings"]
    assert status["phaseDefinition"]["path"] == '.status.phase // ""'
    assert {"byPhase": "Running"} in mappings["running"]
    assert {"byPhase": "Succeeded"} in mappings["completed"]
    assert {"byPhase": "Failed"} in mappings["failed"]
    assert {"byConditions": [{"type": "Suspended", "status": "True"}]} in mappings["suspended"]
    assert {"byConditions": [{"type": "Ready", "status": "True"}]} in mappings["running"]
    # No word places "Mashing" or "Fermented": listed for the reviewer, never guessed.
    assert "phase 'Mashing' (declared in api/v1/brew_types.go:48" in made.text
    assert "condition Fermented (declared in api/v1/brew_types.go:" in made.text
    assert "phase 'Running' (declared in api/v1/brew_types.go:49 (BrewRunning))." in made.text


def test_what_the_reader_cannot_read_is_a_located_warning(tmp_path: Path) -> None:
    broken = TYPES.replace('type KettleStatus struct {\n\tState string `json:"health,omitempty"`\n}', "")
    broken += '\nconst Weird BrewPhase = "a" + Elsewhere\n\ntype Open struct {\n\tA string\n'
    root = _source(tmp_path, broken)
    found = api_values(root, "Brew", "v1")
    weird = broken.splitlines().index('const Weird BrewPhase = "a" + Elsewhere') + 1
    where = f"{root}/api/v1/brew_types.go"
    assert f"{where}:{weird}: the constant Weird is not one string literal: its value is not read" in found.warnings
    assert f"{where}:{weird + 2}: the struct Open is never closed" in found.warnings
    assert _values(found.phases[("status", "phase")]) == ["Mashing", "Running", "Succeeded", "Failed"]
    missing = api_values(root, "Cider", "v1")
    assert missing.warnings[-1].startswith(f'{root}: no Go struct Cider with a `json:"status"` field was found')
    assert missing.phases == {}


@pytest.mark.parametrize(
    "go",
    [
        "",
        "package v1\n\ntype Brew struct {",
        (
            'package v1\ntype Brew struct { Status BrewStatus `json:"status"` }\n'
            "type BrewStatus struct {\n Phase BrewPhase"
        ),
        "package v1\nconst (\n A = `x\n",
        "package v1\n/* never closed\ntype Brew struct {}",
        "package v1\ntype ( Brew struct {\n ) ] } }\nconst ( ] ) \n",
        "\x00\xff garbage ]]]}}}((( 'x \"y",
    ],
)
def test_hostile_go_text_never_raises(tmp_path: Path, go: str) -> None:
    (tmp_path / "x.go").write_text(go, encoding="utf-8", errors="surrogateescape")
    found = api_values(tmp_path, "Brew", "v1")
    assert found.phases == {}
    assert found.conditions == []
    assert found.warnings  # at least: the kind is not found, or where the reading stopped


def test_the_command_takes_the_api_source_and_prints_its_warnings(tmp_path: Path) -> None:
    (tmp_path / "crd.yaml").write_text(yaml.safe_dump(BREW))
    root = _source(tmp_path / "src")
    (root / "api" / "v1" / "extra.go").write_text("package v1\n\ntype Open struct {\n\tA string\n")
    result = CliRunner().invoke(
        cli, ["definitions", "new", "--crd", str(tmp_path / "crd.yaml"), "--api-source", str(root)]
    )
    assert result.exit_code == 0, result.output
    assert "byPhase: Succeeded" in result.stdout
    assert f"warning: {root}/api/v1/extra.go:3: the struct Open is never closed" in result.stderr
    missing = CliRunner().invoke(
        cli, ["definitions", "new", "--crd", str(tmp_path / "crd.yaml"), "--api-source", str(tmp_path / "nope")]
    )
    assert missing.exit_code == 2
    assert "nope" in missing.stderr


def test_a_pause_annotation_declared_beside_the_kind_is_its_suspend(tmp_path: Path) -> None:
    root = _source(tmp_path)
    (root / "api" / "v1" / "annotations.go").write_text(
        "package v1\n\nconst (\n"
        '\tPausedAnnotation = "brew.example.com/paused"\n'
        '\tPausedCountAnnotation = "brew.example.com/paused-count"\n'
        '\tOwnerAnnotation = "brew.example.com/owner"\n)\n'
    )
    assert [k for k, _ in api_values(root, "Brew", "v1").annotations] == ["brew.example.com/paused"]
    suspend = draft(BREW, api_source=root).karta["spec"]["structureDefinition"]["rootComponent"]["suspendDefinition"]
    assert suspend["suspendActions"] == [
        {"path": '.metadata.annotations["brew.example.com/paused"]', "value": '"true"'}
    ]


def test_an_annotation_that_names_the_pods_to_hold_is_no_suspend(tmp_path: Path) -> None:
    root = _source(tmp_path)
    (root / "api" / "v1" / "annotations.go").write_text(
        "package v1\n\nconst (\n"
        "\t// HoldAnnotation lists the names of the pods whose kettle stays cold, to debug them.\n"
        '\tHoldAnnotation = "brew.example.com/suspend"\n)\n'
    )
    assert api_values(root, "Brew", "v1").annotations == []
    assert "suspendDefinition" not in draft(BREW, api_source=root).karta["spec"]["structureDefinition"]["rootComponent"]


CONTROLLER = """\
package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	brewv1 "example.com/brewer/v2/api/v1"
	kegv1 "example.com/brewer/api/keg/v1"
	lws "sigs.k8s.io/lws/api/leaderworkerset/v1"
	other "example.org/other/api/v1"
)

func (r *BrewReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&brewv1.Brew{}).
		Owns(&OWNED{}).
		Owns(&corev1.Service{}).
		Complete(r)
}
"""
KEG = """\
package v1

var GroupVersion = schema.GroupVersion{Group: "keg.example.com", Version: "v1"}

type KegSpec struct {
	Taps []Tap `json:"taps"`
}

type Tap struct {
	Template corev1.PodTemplateSpec `json:"template"`
}
"""


@pytest.mark.parametrize(
    ("owned", "kind"),
    [
        ("appsv1.StatefulSet", {"group": "apps", "version": "v1", "kind": "StatefulSet"}),
        ("kegv1.Keg", {"group": "keg.example.com", "version": "v1", "kind": "Keg"}),
        ("lws.LeaderWorkerSet", {"group": "leaderworkerset.x-k8s.io", "version": "v1", "kind": "LeaderWorkerSet"}),
        ("appsv1.Deployment{}).Owns(&appsv1.StatefulSet", {"group": "apps", "version": "v1", "kind": "Deployment"}),
        ("corev1.Pod{}).Owns(&appsv1.StatefulSet", None),  # the pods are the root's own
        ("corev1.ConfigMap", None),  # makes no pods
        ("other.Widget", None),  # another project's kind the catalog does not know
    ],
)
def test_the_one_pod_making_kind_the_controller_owns_owns_the_pods(
    tmp_path: Path, owned: str, kind: dict[str, str] | None
) -> None:
    root = _source(tmp_path)
    (root / "internal" / "controller").mkdir(parents=True)
    (root / "internal" / "controller" / "brew_controller.go").write_text(CONTROLLER.replace("OWNED", owned))
    (root / "api" / "keg" / "v1").mkdir(parents=True)
    (root / "api" / "keg" / "v1" / "keg_types.go").write_text(KEG)
    spec = {"roles": {"type": "array", "items": {"type": "object", "properties": {"template": TEMPLATE}}}}
    catalog = builtin_definitions()
    made = draft(crd("brew.example.com", "Brew", spec, STATUS), api_source=root, catalog=catalog)
    child = made.karta["spec"]["structureDefinition"]["childComponents"][0]
    assert child["kind"] == (kind or {"group": "", "version": "v1", "kind": "Pod"})
    single = draft(crd("brew.example.com", "Brew", {"template": TEMPLATE}, STATUS), api_source=root, catalog=catalog)
    between = single.karta["spec"]["structureDefinition"].get("additionalChildKinds")
    # A Deployment's pods come through its ReplicaSets.
    through = (
        [{"group": "apps", "version": "v1", "kind": "ReplicaSet"}] if kind and kind["kind"] == "Deployment" else []
    )
    assert between == ([kind, *through] if kind else None)


def test_a_module_path_with_a_major_version_names_its_folder(tmp_path: Path) -> None:
    (tmp_path / "operator" / "apis" / "brew" / "v1").mkdir(parents=True)
    (tmp_path / "operator" / "apis" / "brew" / "v1" / "brew_types.go").write_text(TYPES)
    (tmp_path / "operator" / "controllers").mkdir(parents=True)
    controller = CONTROLLER.replace("OWNED", "appsv1.StatefulSet").replace(
        "example.com/brewer/v2/api/v1", "example.com/brewer/operator/v2/apis/brew/v1"
    )
    (tmp_path / "operator" / "controllers" / "brew.go").write_text(controller)
    owned = api_values(tmp_path, "Brew", "v1").owned
    assert [g for g, _ in owned] == [{"group": "apps", "version": "v1", "kind": "StatefulSet"}]
    assert owned[0][1] == "operator/controllers/brew.go:16 owns appsv1.StatefulSet"


HAND_WRITTEN = """\
package brew

import (
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	brewv1 "example.com/brewer/api/v1"
)

func (c *Controller) jobFor(brew *brewv1.Brew) *batchv1.Job {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: brew.Name}}
	_ = controllerutil.SetControllerReference(brew, job, c.scheme)
	return job
}
"""


def test_a_hand_written_controller_that_builds_a_workload_and_sets_its_owner_says_the_kind(tmp_path: Path) -> None:
    root = _source(tmp_path)
    (root / "pkg" / "brew").mkdir(parents=True)
    (root / "pkg" / "brew" / "jobs.go").write_text(HAND_WRITTEN)
    assert api_values(root, "Brew", "v1").owned == [
        (
            {"group": "batch", "version": "v1", "kind": "Job"},
            "pkg/brew/jobs.go:11 builds batchv1.Job and sets its owner",
        )
    ]
    # Without the owner reference, building a Job says nothing of who owns it.
    (root / "pkg" / "brew" / "jobs.go").write_text(HAND_WRITTEN.replace("SetControllerReference", "Log"))
    assert api_values(root, "Brew", "v1").owned == []


STATUSLESS = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Brew struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BrewSpec `json:"spec"`
}

type BrewSpec struct {
	Replicas *int32 `json:"replicas,omitempty"`
}
"""


def test_a_kind_without_a_status_field_still_has_its_workloads_read(tmp_path: Path) -> None:
    root = _source(tmp_path, STATUSLESS)
    (root / "mocks" / "v1").mkdir(parents=True)
    mock = 'package v1\n\ntype Brew struct {\n\tSpec string `json:"spec"`\n}\n'  # no TypeMeta: no API object
    (root / "mocks" / "v1" / "brew.go").write_text(mock)
    (root / "pkg" / "brew").mkdir(parents=True)
    (root / "pkg" / "brew" / "jobs.go").write_text(HAND_WRITTEN)
    found = api_values(root, "Brew", "v1")
    job = {"group": "batch", "version": "v1", "kind": "Job"}
    assert found.owned == [(job, "pkg/brew/jobs.go:11 builds batchv1.Job and sets its owner")]
    assert found.kind_at == "api/v1/brew_types.go:5"  # the API object, not the same-named struct beside it
    assert found.phases == {} and found.warnings == [
        f'{root}/api/v1/brew_types.go:5: Brew has no `json:"status"` field: no status value read'
    ]


def test_a_kind_declared_in_a_type_group_is_found(tmp_path: Path) -> None:
    grouped = TYPES.replace("type Brew struct {", "type (\n\tBrew struct {", 1).replace(
        '\tStatus BrewStatus `json:"status,omitempty"`\n}', '\tStatus BrewStatus `json:"status,omitempty"`\n\t}\n)', 1
    )
    assert "type (\n\tBrew struct {" in grouped and "}\n)" in grouped
    root = _source(tmp_path, grouped)
    (root / "pkg" / "brew").mkdir(parents=True)
    (root / "pkg" / "brew" / "jobs.go").write_text(HAND_WRITTEN)
    found = api_values(root, "Brew", "v1")
    assert found.kind_at == "api/v1/brew_types.go:11"  # its line inside the group
    assert _values(found.phases[("status", "phase")]) == ["Mashing", "Running", "Succeeded", "Failed"]
    assert [g["kind"] for g, _ in found.owned] == ["Job"]
