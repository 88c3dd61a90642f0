"""A second workload made from another's builder (``--api-source``, gochildren.py, gofilled.py): the builder's
Deployment taken, renamed and given a count of its own, then created only while a switch of the kind is on,
the switch tested after the copy is made. Our own small Go files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.authoring.fixtures import crd

from workload_map.authoring import draft
from workload_map.authoring.gochildren import built_children

QUARRY_API = """\
package v1

type Quarry struct {
	Spec   QuarrySpec   `json:"spec,omitempty"`
	Status QuarryStatus `json:"status,omitempty"`
}

type QuarrySpec struct {
	Replicas *int32       `json:"replicas,omitempty"`
	Image    string       `json:"image,omitempty"`
	Crusher  *CrusherSpec `json:"crusher,omitempty"`
}

type CrusherSpec struct {
	Enabled bool `json:"enabled,omitempty"`
}

type QuarryStatus struct{}
"""

BUILDERS = """\
package quarry

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/quarry/api/v1"
)

func Diggers(q *v1.Quarry) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: q.Name},
		Spec: appsv1.DeploymentSpec{
			Replicas: q.Spec.Replicas,
			Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "dig", Image: q.Spec.Image}}},
			},
		},
	}
}

func Crusher(q *v1.Quarry) *appsv1.Deployment {
	d := Diggers(q)
	d.Name = q.Name + "-crusher"
	%(count)s
	d.Spec.Template.Spec.Containers[0].Command = []string{"crush"}
	return d
}
"""

CONTROLLER = """\
package controllers

import (
	quarry "example.com/quarry/pkg/quarry"
	v1 "example.com/quarry/api/v1"
)

func (r *QuarryReconciler) syncDiggers(q *v1.Quarry) error {
	return r.create(quarry.Diggers(q))
}

func (r *QuarryReconciler) syncCrusher(q *v1.Quarry) error {
	desired := quarry.Crusher(q)
	if q.Spec.Crusher == nil || !q.Spec.Crusher.Enabled {
		err := r.remove(desired.Name)
		if err != nil {
			return err
		}
		return nil
	}
	return r.create(desired)
}
"""

QUARRY_CRD = crd(
    "stone.example.com",
    "Quarry",
    {
        "replicas": {"type": "integer"},
        "image": {"type": "string"},
        "crusher": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
    },
)


def _write(root: Path, count: str, rename: bool = True) -> Path:
    builders = BUILDERS % {"count": count}
    if not rename:
        builders = builders.replace('\td.Name = q.Name + "-crusher"\n', "")
    files = {
        "api/v1/quarry_types.go": QUARRY_API,
        "pkg/quarry/builders.go": builders,
        "controllers/quarry.go": CONTROLLER,
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _children(made: Any) -> list[dict[str, Any]]:
    return list(made.karta["spec"]["structureDefinition"].get("childComponents", []))


def test_a_builders_workload_renamed_with_a_count_of_its_own_is_a_second_workload(tmp_path: Path) -> None:
    """``d := Diggers(q)``, ``d.Name = ...``, ``replicas := int32(1)`` then ``d.Spec.Replicas = &replicas``: a
    second Deployment of one pod, its pod the builder's (composed), created only when ``.spec.crusher.enabled``
    (tested after the copy is made, with a nil check of what holds it, before the copy is used)."""
    root = _write(tmp_path, "replicas := int32(1)\n\td.Spec.Replicas = &replicas")
    built = {c.function: c for c in built_children(root, "Quarry", "v1")}
    assert set(built) == {"Diggers", "Crusher"}
    crusher = built["Crusher"]
    assert (crusher.kind["kind"], crusher.count, crusher.constant) == ("Deployment", None, 1)
    assert crusher.composed
    assert crusher.guard == ("spec", "crusher", "enabled")
    components = _children(draft(QUARRY_CRD, api_source=root))
    scales = sorted(c["scaleDefinition"]["replicasPath"] for c in components)
    assert scales == ["(.spec.replicas // 1)", "(if .spec.crusher.enabled == true then 1 else 0 end) * 1"]
    assert all(c["specDefinition"] == {"fragmentedPodSpecDefinition": {}} for c in components)


def test_a_builders_workload_corrected_in_place_is_no_second_workload(tmp_path: Path) -> None:
    """The same copy given a count but not renamed: the builder's workload corrected (one object), not a
    second one."""
    root = _write(tmp_path, "replicas := int32(1)\n\td.Spec.Replicas = &replicas", rename=False)
    assert [c.function for c in built_children(root, "Quarry", "v1")] == ["Diggers"]


def test_a_builders_workload_renamed_and_scaled_to_zero_is_no_workload(tmp_path: Path) -> None:
    """Renamed but given no pods (``replicas := int32(0)``): nothing runs in it."""
    root = _write(tmp_path, "replicas := int32(0)\n\td.Spec.Replicas = &replicas")
    assert [c.function for c in built_children(root, "Quarry", "v1")] == ["Diggers"]


CELLAR_API = """\
package v1

type Cellar struct {
	Spec   CellarSpec   `json:"spec,omitempty"`
	Status CellarStatus `json:"status,omitempty"`
}

type CellarSpec struct {
	Casks   *PodSpec `json:"casks,omitempty"`
	Bottles *PodSpec `json:"bottles,omitempty"`
}

type PodSpec struct {
	Size  int32  `json:"size,omitempty"`
	Image string `json:"image,omitempty"`
}

type CellarStatus struct{}

type App interface {
	StatefulSet() *appsv1.StatefulSet
}
"""

CELLAR_ROLES = """\
package roles

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/cellar/api/v1"
)

type Casks struct{ cr *v1.Cellar }

func (c *Casks) StatefulSet() *appsv1.StatefulSet {
	return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: c.cr.Name + "-casks"}}
}

type Bottles struct{ cr *v1.Cellar }

func (b *Bottles) StatefulSet() *appsv1.StatefulSet {
	return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: b.cr.Name + "-bottles"}}
}
"""

CELLAR_BUILDER = """\
package cellar

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	v1 "example.com/cellar/api/v1"
)

func StatefulSet(app v1.App, podSpec *v1.PodSpec, cr *v1.Cellar) *appsv1.StatefulSet {
	obj := app.StatefulSet()
	obj.Spec = appsv1.StatefulSetSpec{
		Replicas: &podSpec.Size,
		Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: podSpec.Image}}},
		},
	}
	return obj
}
"""

CELLAR_CONTROLLER = """\
package controller

import (
	"example.com/cellar/pkg/cellar"
	"example.com/cellar/pkg/roles"
	v1 "example.com/cellar/api/v1"
)

func (r *Reconciler) sync(cr *v1.Cellar) error {
	_ = cellar.StatefulSet(&roles.Casks{cr: cr}, cr.Spec.Casks, cr)
	_ = cellar.StatefulSet(&roles.Bottles{cr: cr}, cr.Spec.Bottles, cr)
	return nil
}
"""


def test_a_role_objects_bare_workload_given_its_whole_spec_after(tmp_path: Path) -> None:
    """``obj := app.StatefulSet()`` (each role's bare object, through an interface) then ``obj.Spec =
    appsv1.StatefulSetSpec{Replicas: &podSpec.Size, ...}``: one StatefulSet per role, counted by the size of the
    role's spec each caller hands it, its pod composed."""
    files = {
        "api/v1/cellar_types.go": CELLAR_API.replace(
            "package v1\n", 'package v1\n\nimport appsv1 "k8s.io/api/apps/v1"\n'
        ),
        "pkg/roles/roles.go": CELLAR_ROLES,
        "pkg/cellar/statefulset.go": CELLAR_BUILDER,
        "pkg/controller/cellar.go": CELLAR_CONTROLLER,
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    built = [c for c in built_children(tmp_path, "Cellar", "v1") if c.count is not None]
    assert sorted(c.count for c in built if c.count) == [("spec", "bottles", "size"), ("spec", "casks", "size")]
    assert all(c.function == "StatefulSet" and c.composed for c in built)
