"""Workloads built in the ways generic operator code builds them (``--api-source``, gochildren.py): a spec made
by a helper called in place, a map of roles ranged over, one builder shared by several roles of one spec type,
an empty workload filled by a mutate function (create-or-update) or by options applied to it. Our own small Go
files; each test names the construction it reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.authoring.fixtures import crd

from workload_map.authoring import draft
from workload_map.authoring.evidence import MAP
from workload_map.authoring.gochildren import built_children

HIVE_API = """\
package v1

type Hive struct {
	Spec   HiveSpec   `json:"spec,omitempty"`
	Status HiveStatus `json:"status,omitempty"`
}

type HiveSpec struct {
	Cells map[string]CellSpec `json:"cells,omitempty"`
}

type CellSpec struct {
	Bees  int32  `json:"bees"`
	Image string `json:"image,omitempty"`
}

type HiveStatus struct{}
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _children(made: Any) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in made.karta["spec"]["structureDefinition"].get("childComponents", [])}


HIVE_CRD = crd(
    "bees.example.com",
    "Hive",
    {
        "cells": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {"bees": {"type": "integer"}, "image": {"type": "string"}},
            },
        }
    },
)


def test_a_spec_built_by_a_helper_called_in_place_for_each_value_of_a_map(tmp_path: Path) -> None:
    """``Spec: cellSetSpec(&cell)`` with ``cell`` ranged over ``h.Spec.Cells`` (a map): one StatefulSet per
    entry, counted by the entry's ``bees``."""
    root = _write(
        tmp_path,
        {
            "api/v1/hive_types.go": HIVE_API,
            "controllers/hive.go": """package controllers

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/hive/api/v1"
)

func (r *HiveReconciler) sync(h *v1.Hive) error {
	for name, cell := range h.Spec.Cells {
		_ = cellSet(name, &cell, h)
	}
	return nil
}

func cellSet(name string, cell *v1.CellSpec, h *v1.Hive) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: h.Name + "-" + name},
		Spec:       cellSetSpec(cell),
	}
}

func cellSetSpec(cell *v1.CellSpec) appsv1.StatefulSetSpec {
	return appsv1.StatefulSetSpec{Replicas: &cell.Bees}
}
""",
        },
    )
    (child,) = built_children(root, "Hive", "v1")
    assert (child.kind["kind"], child.count) == ("StatefulSet", ("spec", "cells", MAP, "bees"))
    (cell,) = _children(draft(HIVE_CRD, api_source=root)).values()
    assert cell["instanceIdPath"] == ".spec.cells // {} | keys_unsorted[]"
    assert cell["scaleDefinition"] == {"replicasPath": ".spec.cells[]? | (.bees // 1)"}


FARM_API = """\
package v1

type Farm struct {
	Spec   FarmSpec   `json:"spec,omitempty"`
	Status FarmStatus `json:"status,omitempty"`
}

type Role string

type FarmSpec struct {
	Milkers  *MilkerSpec  `json:"milkers,omitempty"`
	Shearers *ShearerSpec `json:"shearers,omitempty"`
}

type MilkerSpec struct {
	BaseSpec `json:",inline"`
	Buckets int32 `json:"buckets,omitempty"`
}

type ShearerSpec struct {
	BaseSpec `json:",inline"`
}

type BaseSpec struct {
	Replicas *int32 `json:"replicas,omitempty"`
	Image    string `json:"image,omitempty"`
}

type FarmStatus struct{}
"""

FARM_BUILDER = """\
package resource

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "example.com/farm/api/v1"
)

// NewSet is shared by every role's sub-controller.
func NewSet(f *v1.Farm, role v1.Role) appsv1.StatefulSet {
	base := baseOf(f, role)
	return appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: f.Name + string(role)},
		Spec:       appsv1.StatefulSetSpec{Replicas: base.Replicas},
	}
}

func baseOf(f *v1.Farm, role v1.Role) (spec *v1.BaseSpec) {
	switch role {
	case "milker":
		spec = &f.Spec.Milkers.BaseSpec
	case "shearer":
		spec = &f.Spec.Shearers.BaseSpec
	}
	return spec
}
"""

FARM_CRD = crd(
    "farm.example.com",
    "Farm",
    {
        role: {"type": "object", "properties": {"replicas": {"type": "integer"}, "image": {"type": "string"}}}
        for role in ("milkers", "shearers")
    },
)


def test_one_builder_shared_by_roles_embedding_one_spec_type(tmp_path: Path) -> None:
    """The count reads a value a helper returns as ``*v1.BaseSpec``, which every role of the spec embeds
    inline: one StatefulSet per role, each counted by its own ``replicas``."""
    root = _write(tmp_path, {"api/v1/farm_types.go": FARM_API, "pkg/resource/set.go": FARM_BUILDER})
    found = built_children(root, "Farm", "v1")
    assert [c.count for c in found] == [("spec", "milkers", "replicas"), ("spec", "shearers", "replicas")]
    children = _children(draft(FARM_CRD, api_source=root))
    assert {name: c["kind"]["kind"] for name, c in children.items()} == {
        "milker": "StatefulSet",
        "shearer": "StatefulSet",
    }
    assert children["shearer"]["scaleDefinition"] == {
        "replicasPath": "(if .spec.shearers == null then 0 else 1 end) * (.spec.shearers.replicas // 1)"
    }
