"""An override of the workload the operator builds (``.spec.override.statefulSet``, a StatefulSet's spec laid
over the StatefulSet the code makes, ``--api-source``): its pods are the built workload's, one component
counted where the code counts it, not a second StatefulSet. Our own small Go files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.authoring.fixtures import TEMPLATE, crd

from workload_map.authoring import children, draft

WARREN_API = """\
package v1

type Warren struct {
	Spec   WarrenSpec   `json:"spec,omitempty"`
	Status WarrenStatus `json:"status,omitempty"`
}

type WarrenSpec struct {
	Replicas *int32          `json:"replicas,omitempty"`
	Image    string          `json:"image,omitempty"`
	Override WarrenOverride  `json:"override,omitempty"`
}

type WarrenOverride struct {
	StatefulSet *StatefulSet `json:"statefulSet,omitempty"`
}

type StatefulSet struct {
	Spec *StatefulSetSpec `json:"spec,omitempty"`
}

type StatefulSetSpec struct {
	Replicas *int32 `json:"replicas,omitempty"`
}

type WarrenStatus struct{}
"""

CONTROLLER = """\
package warren

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/warren/api/v1"
)

func Reconcile(w *v1.Warren) error {
	return create(statefulSet(w))
}

func statefulSet(w *v1.Warren) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: w.Name + "-server"},
		Spec: appsv1.StatefulSetSpec{
			Replicas: w.Spec.Replicas,
			Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "server", Image: w.Spec.Image}}},
			},
		},
	}
}
"""

WARREN_CRD = crd(
    "burrows.example.com",
    "Warren",
    {
        "replicas": {"type": "integer"},
        "image": {"type": "string"},
        "override": {
            "type": "object",
            "properties": {
                "statefulSet": {
                    "type": "object",
                    "properties": {
                        "spec": {
                            "type": "object",
                            "properties": {
                                "replicas": {"type": "integer"},
                                "selector": {"type": "object"},
                                "serviceName": {"type": "string"},
                                "template": TEMPLATE,
                            },
                        }
                    },
                }
            },
        },
    },
)


def _write(root: Path) -> Path:
    for path, text in {"api/v1/warren_types.go": WARREN_API, "pkg/warren/warren.go": CONTROLLER}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _scales(made: Any) -> list[tuple[str, str]]:
    return [
        (c["kind"]["kind"], c["scaleDefinition"]["replicasPath"])
        for c in made.karta["spec"]["structureDefinition"].get("childComponents", [])
    ]


def test_an_override_of_the_built_workload_is_that_workload(tmp_path: Path) -> None:
    assert _scales(draft(WARREN_CRD, api_source=_write(tmp_path))) == [("StatefulSet", "(.spec.replicas // 1)")]


def test_without_the_rule_the_override_is_a_second_statefulset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(children, "_overrides", lambda site, child: False)
    assert len(_scales(draft(WARREN_CRD, api_source=_write(tmp_path)))) == 2
