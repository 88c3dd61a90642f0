"""Workloads a shared constructor makes bare and each component's function fills in (goshells.py), and a pipeline
engine's run kind the code creates when nothing else makes the object's pods (goruns.py). Our own small Go
files."""

from __future__ import annotations

from pathlib import Path

from tests.authoring.fixtures import crd

from workload_map.authoring import draft
from workload_map.authoring.gochildren import built_children
from workload_map.catalog import builtin_definitions

ORCHARD = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Orchard struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   OrchardSpec   `json:"spec,omitempty"`
	Status OrchardStatus `json:"status,omitempty"`
}

type OrchardSpec struct {
	Pickers *int32      `json:"pickers,omitempty"`
	Press   PressSpec   `json:"press,omitempty"`
}

type PressSpec struct {
	Enabled bool `json:"enabled,omitempty"`
}

type OrchardStatus struct {
	Phase string `json:"phase,omitempty"`
}
"""

# One constructor names every workload; each component's function writes its containers, one through an
# alias of the pod spec. A status check and an update of the existing object read the same shells.
ORCHARD_CONTROLLER = """\
package orchard

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/orchard/api/v1"
)

type Reconciler struct{ client Client }

func shellWithSuffix(suffix string, o *v1.Orchard) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: o.Name + "-" + suffix, Namespace: o.Namespace},
	}
}

func pickerCount(o *v1.Orchard) *int32 {
	if o.Spec.Pickers != nil && *o.Spec.Pickers > 2 {
		return o.Spec.Pickers
	}
	return nil
}

func (r *Reconciler) reconcilePickers(o *v1.Orchard) error {
	d := shellWithSuffix("pickers", o)
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "picker", Image: "picker:1"}}
	d.Spec.Replicas = pickerCount(o)
	existing := shellWithSuffix("pickers", o)
	if r.client.Get(existing) == nil {
		existing.Spec.Template.Spec.Containers = d.Spec.Template.Spec.Containers
		return r.client.Update(context.TODO(), existing)
	}
	return r.client.Create(context.TODO(), d)
}

func (r *Reconciler) reconcilePress(o *v1.Orchard) error {
	if !o.Spec.Press.Enabled {
		return nil
	}
	d := shellWithSuffix("press", o)
	pod := &d.Spec.Template.Spec
	pod.Containers = []corev1.Container{{Name: "press", Image: "press:1"}}
	return r.client.Create(context.TODO(), d)
}

func (r *Reconciler) pickersReady(o *v1.Orchard) bool {
	d := shellWithSuffix("pickers", o)
	if r.client.Get(d) != nil {
		return false
	}
	d.Spec.Paused = false
	return d.Status.ReadyReplicas == *d.Spec.Replicas
}
"""

ORCHARD_CRD = crd(
    "fruit.example.com",
    "Orchard",
    {
        "pickers": {"type": "integer"},
        "press": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
    },
    {"phase": {"type": "string"}},
)


def _orchard(root: Path) -> Path:
    for path, text in {"api/v1/orchard_types.go": ORCHARD, "controllers/orchard.go": ORCHARD_CONTROLLER}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_each_function_composing_a_constructors_shell_is_one_workload(tmp_path: Path) -> None:
    filled = [c for c in built_children(_orchard(tmp_path), "Orchard", "v1") if c.filled]
    assert sorted(c.function for c in filled) == ["reconcilePickers", "reconcilePress"]
    assert all(c.composed and c.kind["kind"] == "Deployment" for c in filled)
    press = next(c for c in filled if c.function == "reconcilePress")
    # Its count never set, built behind a switch of the object: the Deployment's default, one pod.
    assert (press.guard, press.constant, press.defaulted) == (("spec", "press", "enabled"), 1, True)
    pickers = next(c for c in filled if c.function == "reconcilePickers")
    assert (pickers.count, pickers.constant) == (None, None)  # set by a helper the reader does not trace


def test_draft_the_filled_shells_with_their_pods_composed(tmp_path: Path) -> None:
    made = draft(ORCHARD_CRD, api_source=_orchard(tmp_path))
    children = made.karta["spec"]["structureDefinition"]["childComponents"]
    assert [c["kind"]["kind"] for c in children] == ["Deployment", "Deployment"]
    assert all(c["specDefinition"] == {"fragmentedPodSpecDefinition": {}} for c in children)
    replicas = sorted(str(c["scaleDefinition"]["replicasPath"]) for c in children)
    assert replicas[0] == "(if .spec.press.enabled == true then 1 else 0 end) * 1"
    assert "TODO(wmap)" in replicas[1]  # a gap, not a guess
    assert "specDefinition" not in made.karta["spec"]["structureDefinition"]["rootComponent"]


KILN = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Firing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   FiringSpec   `json:"spec,omitempty"`
	Status FiringStatus `json:"status,omitempty"`
}

type FiringSpec struct {
	Glaze string `json:"glaze,omitempty"`
}

type FiringStatus struct {
	Phase string `json:"phase,omitempty"`
}
"""

# Two runners, one per engine kind, behind one interface: the configuration picks one.
RUNNERS = """\
package runners

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	pipelinev1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	v1 "example.com/kiln/api/v1"
)

type singleRunner struct{}

func (s *singleRunner) Start(f *v1.Firing) *pipelinev1.TaskRun {
	return &pipelinev1.TaskRun{
		ObjectMeta: metav1.ObjectMeta{Name: f.Name + "-run"},
		Spec:       pipelinev1.TaskRunSpec{},
	}
}

type chainedRunner struct{}

func (c *chainedRunner) Start(f *v1.Firing) *pipelinev1.PipelineRun {
	return &pipelinev1.PipelineRun{
		ObjectMeta: metav1.ObjectMeta{Name: f.Name + "-run"},
		Spec:       pipelinev1.PipelineRunSpec{},
	}
}
"""

FIRING_CRD = crd("kiln.example.com", "Firing", {"glaze": {"type": "string"}}, {"phase": {"type": "string"}})


def _kiln(root: Path, runners: str = RUNNERS) -> Path:
    for path, text in {"api/v1/firing_types.go": KILN, "pkg/runners/runners.go": runners}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_an_engines_run_kind_is_the_child_when_nothing_else_makes_pods(tmp_path: Path) -> None:
    made = draft(FIRING_CRD, api_source=_kiln(tmp_path), catalog=builtin_definitions())
    (child,) = made.karta["spec"]["structureDefinition"]["childComponents"]
    assert child["kind"]["group"] == "tekton.dev"
    assert child["kind"]["kind"] in ("TaskRun", "PipelineRun")
    assert child["scaleDefinition"] == {"replicasPath": "1"}
    assert child["specDefinition"] == {"fragmentedPodSpecDefinition": {}}


def test_run_kinds_built_by_unrelated_functions_are_left_a_gap(tmp_path: Path) -> None:
    unrelated = RUNNERS.replace(") Start(f", ") Chain(f", 1)
    made = draft(FIRING_CRD, api_source=_kiln(tmp_path, unrelated), catalog=builtin_definitions())
    assert not made.karta["spec"]["structureDefinition"].get("childComponents")


GROUPS = """\
package runners

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
	v1 "example.com/kiln/api/v1"
)

func groupsFor(f *v1.Firing) *lwsv1.LeaderWorkerSet {
	return &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: f.Name},
		Spec:       lwsv1.LeaderWorkerSetSpec{},
	}
}
"""


def test_a_kind_running_groups_of_pods_is_the_child_its_count_a_gap(tmp_path: Path) -> None:
    made = draft(FIRING_CRD, api_source=_kiln(tmp_path, GROUPS), catalog=builtin_definitions())
    (child,) = made.karta["spec"]["structureDefinition"]["childComponents"]
    assert child["kind"]["kind"] == "LeaderWorkerSet"
    assert "TODO(wmap)" in str(child["scaleDefinition"]["replicasPath"])  # groups x size: not one pod per run
