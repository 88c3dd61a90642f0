"""A boolean of the spec the operator zeroes the count with (``--api-source``, gosuspend.py): ``replicas :=
k.Spec.Replicas`` then ``if k.Spec.Dormant { replicas = 0 }`` before the StatefulSet is built stops the pods,
whatever the boolean is called. Our own small Go files and CRD."""

from __future__ import annotations

from pathlib import Path

from workload_map.authoring import draft

from .fixtures import crd

TYPES = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Kiln struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec KilnSpec     `json:"spec,omitempty"`
}

type KilnSpec struct {
	Replicas int32 `json:"replicas"`
	Dormant  bool  `json:"dormant,omitempty"`
	Verbose  bool  `json:"verbose,omitempty"`
}
"""

CONTROLLER = """\
package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/kiln/api/v1"
)

func (r *Reconciler) Reconcile(k *v1.Kiln) error {
	level := 2
	if k.Spec.Verbose {
		level = 0
	}
	replicas := k.Spec.Replicas
	if k.Spec.%(switch)s {
		replicas = 0
	}
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: k.Name},
		Spec:       appsv1.StatefulSetSpec{Replicas: &replicas},
	}
	return r.Create(sts, level)
}
"""

KILN_CRD = crd(
    "kiln.example.com",
    "Kiln",
    {"replicas": {"type": "integer"}, "dormant": {"type": "boolean"}, "verbose": {"type": "boolean"}},
)


def _suspend(root: Path, switch: str) -> object:
    for path, text in {"api/v1/types.go": TYPES, "controller/kiln.go": CONTROLLER % {"switch": switch}}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return (
        draft(KILN_CRD, api_source=root).karta["spec"]["structureDefinition"]["rootComponent"].get("suspendDefinition")
    )


def test_a_boolean_zeroing_the_count_is_the_suspend_switch(tmp_path: Path) -> None:
    assert _suspend(tmp_path, "Dormant") == {
        "suspendActions": [{"path": ".spec.dormant", "value": "true"}],
        "resumeActions": [{"path": ".spec.dormant", "value": "false"}],
    }


def test_a_boolean_zeroing_something_else_is_none(tmp_path: Path) -> None:
    """``if k.Spec.Verbose { level = 0 }``: ``level`` is no count of the spec; the count is never zeroed."""
    controller = CONTROLLER.replace("replicas = 0", "replicas = replicas + 0")
    for path, text in {"api/v1/types.go": TYPES, "controller/kiln.go": controller % {"switch": "Dormant"}}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    made = draft(KILN_CRD, api_source=tmp_path).karta["spec"]["structureDefinition"]["rootComponent"]
    assert "suspendDefinition" not in made
