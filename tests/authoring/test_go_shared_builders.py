"""Workloads built by a builder several sub-controllers share (``--api-source``, gochildren.py): the count and
the pod a parameter of the builder, given by each caller from its own part of the kind's spec, read through
an interface's method promoted from an embedded struct; a count picked by a helper between a field and a
constant; a workload's spec built by a helper; a count given as a number. Our own small Go files."""

from __future__ import annotations

from pathlib import Path

from tests.authoring.fixtures import crd

from workload_map.authoring import draft
from workload_map.authoring.gochildren import built_children

API = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Aviary struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   AviarySpec   `json:"spec,omitempty"`
	Status AviaryStatus `json:"status,omitempty"`
}

type AviaryStatus struct {
	Phase string `json:"phase,omitempty"`
}

type AviarySpec struct {
	Finches *FinchSpec  `json:"finches,omitempty"`
	Owls    *OwlSpec    `json:"owls,omitempty"`
	Keeper  *KeeperSpec `json:"keeper,omitempty"`
	Perches *int32      `json:"perches,omitempty"`
}

type FlockSpec struct {
	Birds *int32 `json:"birds,omitempty"`
	Image string `json:"image,omitempty"`
}

func (f *FlockSpec) GetBirds() *int32 {
	return f.Birds
}

// Two parts of the spec embed the same struct: the method is theirs too.
type FinchSpec struct {
	FlockSpec `json:",inline"`
}

type OwlSpec struct {
	FlockSpec `json:",inline"`
	Night bool `json:"night,omitempty"`
}

func (o *OwlSpec) GetBirds() *int32 {
	if o == nil {
		return nil
	}
	return o.FlockSpec.GetBirds()
}

type KeeperSpec struct {
	Count *int32 `json:"count,omitempty"`
}

type FlockInterface interface {
	GetBirds() *int32
}
"""

BUILDER = """\
package sets

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	v1 "example.com/aviary/api/v1"
)

func MakeSet(name string, flock v1.FlockInterface, pod *corev1.PodTemplateSpec) appsv1.StatefulSet {
	return appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas: flock.GetBirds(),
			Template: *pod,
		},
	}
}
"""

FINCHES = """\
package finches

import (
	corev1 "k8s.io/api/core/v1"
	v1 "example.com/aviary/api/v1"
	"example.com/aviary/pkg/sets"
)

type Controller struct{}

func (c *Controller) Sync(a *v1.Aviary) error {
	finches := a.Spec.Finches
	pod := c.podFor(finches)
	set := sets.MakeSet("finches", finches, pod)
	_ = set
	return nil
}

func (c *Controller) podFor(f *v1.FinchSpec) *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: f.Image}}}}
}
"""

OWLS = """\
package owls

import (
	v1 "example.com/aviary/api/v1"
	"example.com/aviary/pkg/sets"
)

type Controller struct{}

func (c *Controller) Sync(a *v1.Aviary) error {
	set := sets.MakeSet("owls", a.Spec.Owls, nil)
	_ = set
	return nil
}
"""

KEEPER = """\
package keeper

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "example.com/aviary/api/v1"
)

func Sync(a *v1.Aviary) error {
	d := keeperDeployment(a.Spec.Keeper.Count, a)
	_ = d
	return nil
}

func keeperDeployment(count *int32, a *v1.Aviary) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "keeper"},
		Spec: appsv1.DeploymentSpec{
			Replicas: pick(count == nil, ptr.To(int32(1)), count),
		},
	}
}
"""


def _tree(root: Path) -> Path:
    for path, text in {
        "api/v1/aviary_types.go": API,
        "pkg/sets/statefulset.go": BUILDER,
        "pkg/sub/finches/controller.go": FINCHES,
        "pkg/sub/owls/controller.go": OWLS,
        "pkg/sub/keeper/controller.go": KEEPER,
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_a_shared_builder_makes_one_workload_per_caller_counted_from_its_part(tmp_path: Path) -> None:
    found = built_children(_tree(tmp_path), "Aviary", "v1")
    sets = {c.count: c for c in found if c.kind["kind"] == "StatefulSet"}
    # The count through the interface's method: the embedded struct's, promoted (finches) or called by the
    # part's own method (owls), read where each caller's argument sits in the spec.
    assert set(sets) == {("spec", "finches", "birds"), ("spec", "owls", "birds")}
    assert {c.where for c in sets.values()} == {"pkg/sets/statefulset.go:10"}
    assert all(c.count_key == "Replicas" for c in sets.values())


def test_a_pod_template_given_by_a_caller_that_builds_it_is_composed(tmp_path: Path) -> None:
    found = built_children(_tree(tmp_path), "Aviary", "v1")
    assert all(c.composed for c in found if c.kind["kind"] == "StatefulSet")


def test_a_count_a_helper_picks_between_a_parameter_and_a_constant(tmp_path: Path) -> None:
    (keeper,) = [c for c in built_children(_tree(tmp_path), "Aviary", "v1") if c.kind["kind"] == "Deployment"]
    assert (keeper.count, keeper.function) == (("spec", "keeper", "count"), "keeperDeployment")


# A hand-written controller: the workload's whole spec built by a helper taking the kind, the count read from a
# struct the kind's spec embeds, through a method of the kind; a second kind's one Deployment of a fixed size.
LOFT = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Loft struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   LoftSpec   `json:"spec,omitempty"`
	Status LoftStatus `json:"status,omitempty"`
}

type LoftSpec struct {
	CommonFields `json:",inline"`
	Colour string `json:"colour,omitempty"`
}

type CommonFields struct {
	Pigeons *int32 `json:"pigeons,omitempty"`
}

type LoftStatus struct {
	Phase string `json:"phase,omitempty"`
}

func (l *Loft) Common() CommonFields {
	return l.Spec.CommonFields
}

type Coop struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   CoopSpec   `json:"spec,omitempty"`
	Status LoftStatus `json:"status,omitempty"`
}

type CoopSpec struct {
	Colour string `json:"colour,omitempty"`
}
"""

LOFT_CONTROLLER = """\
package loft

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	v1 "example.com/loft/api/v1"
)

func makeSet(l *v1.Loft, name string) (*appsv1.StatefulSet, error) {
	spec, err := makeSetSpec(l)
	if err != nil {
		return nil, err
	}
	set := &appsv1.StatefulSet{Spec: *spec}
	set.Name = name
	return set, nil
}

func makeSetSpec(l *v1.Loft) (*appsv1.StatefulSetSpec, error) {
	common := l.Common()
	return &appsv1.StatefulSetSpec{
		Replicas: common.Pigeons,
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: l.Spec.Colour}}}},
	}, nil
}

func coopDeployment(c *v1.Coop) *appsv1.Deployment {
	size := int32(1)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &size,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "coop"}}}},
		},
	}
}
"""


def _loft(root: Path) -> Path:
    for path, text in {"api/v1/loft_types.go": LOFT, "internal/loft/controller.go": LOFT_CONTROLLER}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_a_spec_built_by_a_helper_gives_the_count_and_the_pod(tmp_path: Path) -> None:
    (child,) = built_children(_loft(tmp_path), "Loft", "v1")
    assert (child.kind["kind"], child.count, child.count_key, child.composed) == (
        "StatefulSet",
        ("spec", "pigeons"),
        "Replicas",
        True,
    )


def test_a_fixed_count_is_kept_apart_from_a_field(tmp_path: Path) -> None:
    (child,) = built_children(_loft(tmp_path), "Coop", "v1")
    assert (child.kind["kind"], child.count, child.constant, child.count_key) == ("Deployment", None, 1, "Replicas")


COOP_CRD = crd("birds.example.com", "Coop", {"colour": {"type": "string"}}, {"phase": {"type": "string"}})


def test_draft_the_one_workload_of_a_fixed_size_when_nothing_else_makes_pods(tmp_path: Path) -> None:
    made = draft(COOP_CRD, api_source=_loft(tmp_path))
    (child,) = made.karta["spec"]["structureDefinition"]["childComponents"]
    assert child["kind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert child["scaleDefinition"] == {"replicasPath": "1"}
    assert child["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    assert "internal/loft/controller.go:" in made.text


DOVECOTE = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Dovecote struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   DovecoteSpec   `json:"spec,omitempty"`
	Status DovecoteStatus `json:"status,omitempty"`
}

type DovecoteSpec struct {
	Doves  *int32 `json:"doves,omitempty"`
	Stable bool   `json:"stable,omitempty"`
}

type DovecoteStatus struct {
	Phase string `json:"phase,omitempty"`
}
"""

DOVECOTE_CONTROLLER = """\
package dovecote

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "example.com/dovecote/api/v1"
)

func Reconcile(d *v1.Dovecote) {
	if d.Spec.Stable {
		_ = stableSet(d)
	} else {
		_ = plainDeployment(d)
	}
}

func stableSet(d *v1.Dovecote) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: d.Name},
		Spec:       appsv1.StatefulSetSpec{Replicas: d.Spec.Doves},
	}
}

func plainDeployment(d *v1.Dovecote) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: d.Name},
		Spec:       appsv1.DeploymentSpec{Replicas: d.Spec.Doves},
	}
}
"""

DOVECOTE_CRD = crd(
    "birds.example.com",
    "Dovecote",
    {"doves": {"type": "integer"}, "stable": {"type": "boolean"}},
    {"phase": {"type": "string"}},
)


def test_two_workloads_counted_by_the_same_field_are_one_component(tmp_path: Path) -> None:
    for path, text in {"api/v1/types.go": DOVECOTE, "internal/dovecote/controller.go": DOVECOTE_CONTROLLER}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    (child,) = draft(DOVECOTE_CRD, api_source=tmp_path).karta["spec"]["structureDefinition"]["childComponents"]
    assert child["kind"]["kind"] in ("StatefulSet", "Deployment")
    assert child["scaleDefinition"] == {"replicasPath": "(.spec.doves // 1)"}
