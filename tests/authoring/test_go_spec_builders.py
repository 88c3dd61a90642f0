"""Workloads whose spec is built by a function of its own (``--api-source``): the controller makes a bare
workload (``NewStatefulSet(name, ns)``, a name and no spec) and gives it the whole spec a builder returns
(``set.Spec = buildSpec(x, pool)``); the count and the pod are in that builder. Our own small Go files."""

from __future__ import annotations

from pathlib import Path

import pytest

from workload_map.authoring import gochildren
from workload_map.authoring.gochildren import built_children

HIVE_API = """\
package v1

type Hive struct {
	Spec   HiveSpec   `json:"spec,omitempty"`
	Status HiveStatus `json:"status,omitempty"`
}

type HiveStatus struct{}

type HiveSpec struct {
	Combs  []CombSpec `json:"combs,omitempty"`
	Queen  QueenSpec  `json:"queen,omitempty"`
}

type CombSpec struct {
	Name  string `json:"name,omitempty"`
	Cells int32  `json:"cells,omitempty"`
}

type QueenSpec struct {
	Guards int32 `json:"guards,omitempty"`
}
"""

BUILDERS = """\
package hive

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/hive/api/v1"
)

func NewSet(name, namespace string) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
}

func CombSetSpec(h *v1.Hive, comb *v1.CombSpec) appsv1.StatefulSetSpec {
	cells := comb.Cells
	return appsv1.StatefulSetSpec{
		Replicas: &cells,
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: comb.Name}}}},
	}
}

func GuardSetSpec(h *v1.Hive) appsv1.StatefulSetSpec {
	return appsv1.StatefulSetSpec{Replicas: &h.Spec.Queen.Guards}
}
"""

CONTROLLER = """\
package controller

import (
	v1 "example.com/hive/api/v1"
	"example.com/hive/pkg/hive"
)

func reconcileCombs(h *v1.Hive) {
	for i := range h.Spec.Combs {
		comb := &h.Spec.Combs[i]
		set := hive.NewSet(h.Name+"-"+comb.Name, h.Namespace)
		set.Spec = hive.CombSetSpec(h, comb)
	}
}

func reconcileGuards(h *v1.Hive) {
	set := hive.NewSet(h.Name+"-guards", h.Namespace)
	set.Spec = hive.GuardSetSpec(h)
}
"""


def _write(root: Path) -> Path:
    files = {"api/v1/hive_types.go": HIVE_API, "pkg/hive/sets.go": BUILDERS, "controller/hive.go": CONTROLLER}
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_a_spec_builder_counts_the_workload_a_bare_constructor_makes(tmp_path: Path) -> None:
    children = built_children(_write(tmp_path), "Hive", "v1")
    counted = sorted((c.kind["kind"], c.function, c.count) for c in children if c.count)
    assert counted == [
        ("StatefulSet", "CombSetSpec", ("spec", "combs", "[]", "cells")),
        ("StatefulSet", "GuardSetSpec", ("spec", "queen", "guards")),
    ]


def test_the_spec_builders_pod_is_composed(tmp_path: Path) -> None:
    children = built_children(_write(tmp_path), "Hive", "v1")
    assert [c.composed for c in children if c.function == "CombSetSpec"] == [True]


def test_a_spec_literal_inside_a_workload_is_no_workload_of_its_own(tmp_path: Path) -> None:
    root = _write(tmp_path)
    inline = BUILDERS.replace(
        "func GuardSetSpec(h *v1.Hive) appsv1.StatefulSetSpec {\n\treturn appsv1.StatefulSetSpec{",
        "func GuardSetSpec(h *v1.Hive) *appsv1.StatefulSet {\n"
        "\treturn &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{",
    ).replace("Replicas: &h.Spec.Queen.Guards}\n}", "Replicas: &h.Spec.Queen.Guards}}\n}")
    (root / "pkg/hive/sets.go").write_text(inline)
    guards = [c for c in built_children(root, "Hive", "v1") if c.function == "GuardSetSpec"]
    assert [(c.kind["kind"], c.count) for c in guards] == [("StatefulSet", ("spec", "queen", "guards"))]


def test_without_the_rule_the_bare_workloads_have_no_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gochildren, "spec_builder", lambda *_: False)
    assert [c.count for c in built_children(_write(tmp_path), "Hive", "v1") if c.count] == []
