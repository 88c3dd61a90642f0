"""Workloads chosen by a mode (gomodes.py, modes.py): a switch on a spec field picks which one workload the
operator builds; the draft has one component per workload, each with pods only in its mode, the field's
empty value read as the default the code gives it. Our own small Go files and objects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from workload_map.authoring import draft, gomodes
from workload_map.base.snapshot import Snapshot
from workload_map.definition.loader import LoadedDefinition, definition_from_dict
from workload_map.definition.registry import DefinitionRegistry
from workload_map.errors import Location
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.tree.build import tree_of

from .fixtures import crd

TYPES = """\
package api

type LanternMode string

const (
	ModeFleet      LanternMode = "fleet"
	ModeRing       LanternMode = "ring"
	ModeEverywhere LanternMode = "everywhere"
	ModeAttached   LanternMode = "attached"
)

type Lantern struct {
	Spec   LanternSpec   `json:"spec,omitempty"`
	Status LanternStatus `json:"status,omitempty"`
}

type LanternSpec struct {
	Mode     LanternMode `json:"mode,omitempty"`
	Replicas *int32      `json:"replicas,omitempty"`
	Image    string      `json:"image,omitempty"`
}

type LanternStatus struct{}
"""

WEBHOOK = """\
package webhook

import api "example.com/lantern/api"

func (d *Defaulter) Default(l *api.Lantern) error {
	if len(l.Spec.Mode) == 0 {
		l.Spec.Mode = api.ModeFleet
	}
	return nil
}
"""

CONTROLLER = """\
package controller

import (
	api "example.com/lantern/api"
	"example.com/lantern/manifests"
)

func (r *Reconciler) Reconcile(l *api.Lantern) error {
	builders := []manifests.Builder{manifests.Build}
	for _, build := range builders {
		_ = build(manifests.Params{Lantern: l})
	}
	return nil
}
"""

MANIFESTS = """\
package manifests

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	api "example.com/lantern/api"
)

type Params struct {
	Lantern *api.Lantern
}

func Build(p Params) []any {
	var factories []func(Params) any
	switch p.Lantern.Spec.Mode {
	case api.ModeFleet:
		factories = append(factories, Factory(Fleet))
	case api.ModeRing:
		factories = append(factories, Factory(Ring))
	case api.ModeEverywhere:
		factories = append(factories, Factory(Everywhere))
	case api.ModeAttached:
		// injected into the user's pods: nothing built
	}
	return nil
}

func desired(l *api.Lantern) *int32 {
	if l.Spec.Replicas != nil && *l.Spec.Replicas < 0 {
		return nil
	}
	return l.Spec.Replicas
}

func pod(p Params) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: p.Lantern.Spec.Image}}}}
}

func Fleet(p Params) *appsv1.Deployment {
	return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: desired(p.Lantern), Template: pod(p)}}
}

func Ring(p Params) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: p.Lantern.Spec.Replicas, Template: pod(p)}}
}

func Everywhere(p Params) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: pod(p)}}
}
"""


def _operator(root: Path) -> Path:
    for path, text in {
        "api/types.go": TYPES,
        "webhook/default.go": WEBHOOK,
        "controller/lantern.go": CONTROLLER,
        "manifests/build.go": MANIFESTS,
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


LANTERN_CRD = crd(
    "light.example.com",
    "Lantern",
    {
        "mode": {"type": "string", "enum": ["fleet", "ring", "everywhere", "attached"]},
        "replicas": {"type": "integer", "default": 1},
        "image": {"type": "string"},
    },
)


def test_the_reader_finds_the_workload_of_each_mode_and_the_codes_default(tmp_path: Path) -> None:
    modes = gomodes.mode_children(_operator(tmp_path), "Lantern", "v1")
    found = {m.values: (m.child.kind["kind"], m.child.count, m.child.composed) for m in modes.children}
    assert found == {
        ("fleet",): ("Deployment", ("spec", "replicas"), True),  # the count through a helper's last return
        ("ring",): ("StatefulSet", ("spec", "replicas"), True),
        ("everywhere",): ("DaemonSet", None, True),
    }
    assert {m.field for m in modes.children} == {("spec", "mode")}
    assert modes.defaults == {("spec", "mode"): "fleet"}


def _owned(kind: str, name: str, owner: dict[str, Any], api: str = "apps/v1") -> dict[str, Any]:
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {
            "name": name,
            "namespace": "ns",
            "uid": f"uid-{name}",
            "ownerReferences": [
                {
                    "apiVersion": owner["apiVersion"],
                    "kind": owner["kind"],
                    "name": owner["metadata"]["name"],
                    "uid": owner["metadata"]["uid"],
                    "controller": True,
                }
            ],
        },
        "spec": {},
    }


def _resolve(text: str, objects: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Each component's (desired pods, pods attributed) for the first object."""
    loaded, findings = definition_from_dict(yaml.safe_load(text), Location("draft.yaml"))
    assert loaded is not None, findings
    view = WorkloadIndex(Snapshot(objects), DefinitionRegistry([LoadedDefinition(loaded, Location("draft.yaml"))]))
    tree = tree_of(view, objects[0]).to_json()
    return {
        c["name"]: (
            sum(int(i["desiredPods"]) for i in c.get("instances", [])),
            int(c["pods"]["current"]),
        )
        for c in tree["components"]
        if c["name"] != "lantern"
    }


@pytest.mark.parametrize(
    ("mode", "workload", "expected"),
    [
        (None, "Deployment", {"fleet": (3, 3), "ring": (0, 0), "everywhere": (0, 0)}),  # unset: the default
        ("ring", "StatefulSet", {"fleet": (0, 0), "ring": (3, 3), "everywhere": (0, 0)}),
        ("everywhere", "DaemonSet", {"fleet": (0, 0), "ring": (0, 0), "everywhere": (1, 3)}),
        ("attached", None, {"fleet": (0, 0), "ring": (0, 0), "everywhere": (0, 0)}),
    ],
)
def test_an_object_resolves_to_the_pods_of_its_mode_only(
    tmp_path: Path, mode: str | None, workload: str | None, expected: dict[str, tuple[int, int]]
) -> None:
    made = draft(LANTERN_CRD, api_source=_operator(tmp_path))
    children = {c["name"]: c for c in made.karta["spec"]["structureDefinition"]["childComponents"]}
    assert {name: c["kind"]["kind"] for name, c in children.items()} == {
        "fleet": "Deployment",
        "ring": "StatefulSet",
        "everywhere": "DaemonSet",
    }
    assert all(c["specDefinition"] == {"fragmentedPodSpecDefinition": {}} for c in children.values())
    lantern = {
        "apiVersion": "light.example.com/v1",
        "kind": "Lantern",
        "metadata": {"name": "l", "namespace": "ns", "uid": "uid-l"},
        "spec": {"replicas": 3, **({"mode": mode} if mode else {})},
    }
    objects = [lantern]
    if workload is not None:
        owner = _owned(workload, "l-set", lantern)
        objects.append(owner)
        if workload == "Deployment":
            owner = _owned("ReplicaSet", "l-set-1", owner)
            objects.append(owner)
        objects += [_owned("Pod", f"l-{i}", owner, "v1") for i in range(3)]
    assert _resolve(made.text, objects) == expected


def test_a_switch_between_builders_of_one_kind_is_no_mode(tmp_path: Path) -> None:
    """Cases that all build a StatefulSet (one flavour of pod or another) choose no kind of workload."""
    _operator(tmp_path)
    text = MANIFESTS.replace(
        "appsv1.Deployment{Spec: appsv1.DeploymentSpec", "appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec"
    )
    text = text.replace(
        "appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec", "appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec"
    )
    (tmp_path / "manifests" / "build.go").write_text(text)
    assert gomodes.mode_children(tmp_path, "Lantern", "v1").children == []
