"""The switch of the kind a workload is built behind, read from a conjunction (``--api-source``, gofilled.py):
``if ready && x.Spec.Dryer.Enabled && !x.Spec.Pause {`` runs only while the one field tested on by itself is
on. Our own small Go files."""

from __future__ import annotations

from pathlib import Path

from workload_map.authoring.gochildren import built_children

SILO_API = """\
package v1

type Silo struct {
	Spec   SiloSpec   `json:"spec,omitempty"`
	Status SiloStatus `json:"status,omitempty"`
}

type SiloSpec struct {
	Pause bool      `json:"pause,omitempty"`
	Dryer DryerSpec `json:"dryer,omitempty"`
	Fans  FanSpec   `json:"fans,omitempty"`
}

type DryerSpec struct {
	Enabled bool `json:"enabled,omitempty"`
}

type FanSpec struct {
	Enabled bool `json:"enabled,omitempty"`
}

type SiloStatus struct {
	Ready bool `json:"ready,omitempty"`
}
"""

SILO_CONTROLLER = """\
package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	v1 "example.com/silo/api/v1"
)

func (r *SiloReconciler) Reconcile(s *v1.Silo) error {
	if s.Status.Ready == true && %(condition)s && !s.Spec.Pause {
		return r.dryer(s)
	}
	return nil
}

func (r *SiloReconciler) dryer(s *v1.Silo) error {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: s.Name + "-dryer"},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(int32(1))},
	}
	return r.Create(d)
}
"""


def _built(root: Path, condition: str) -> list[object]:
    files = {"api/v1/silo_types.go": SILO_API, "controller/silo.go": SILO_CONTROLLER % {"condition": condition}}
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return [c.guard for c in built_children(root, "Silo", "v1")]


def test_the_one_switch_a_conjunction_tests_on_guards_the_workload(tmp_path: Path) -> None:
    """Beside a status comparison and a negated pause, ``s.Spec.Dryer.Enabled`` is the switch."""
    assert _built(tmp_path, "s.Spec.Dryer.Enabled") == [("spec", "dryer", "enabled")]


def test_a_conjunction_of_two_switches_names_none(tmp_path: Path) -> None:
    """Two fields tested on: neither alone says whether it is built."""
    assert _built(tmp_path, "s.Spec.Dryer.Enabled && s.Spec.Fans.Enabled") == [None]


KILN_CONTROLLER = """\
package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/silo/api/v1"
)

func Build(s *v1.Silo) []any {
	dep := deployment(s)
	objects := []any{dep}
	if s.Spec.Dryer.Enabled {
		configureDryer(dep)
	}
	return objects
}

func deployment(s *v1.Silo) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: s.Name}, Spec: appsv1.DeploymentSpec{}}
}

func configureDryer(dep *appsv1.Deployment) {}
"""


def test_a_block_after_the_build_that_only_changes_it_is_no_switch(tmp_path: Path) -> None:
    """``dep := deployment(s)``, kept in the objects, then ``if s.Spec.Dryer.Enabled { configureDryer(dep) }``:
    the Deployment is made whatever the switch says (the block, its last use, only changes it)."""
    files = {"api/v1/silo_types.go": SILO_API, "controller/silo.go": KILN_CONTROLLER}
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    assert [c.guard for c in built_children(tmp_path, "Silo", "v1")] == [None]
