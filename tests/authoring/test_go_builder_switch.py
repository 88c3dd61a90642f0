"""Switches of the kind the operator checks before building (gofilled.py): a builder type whose ``Enabled()``
returns a boolean of the kind, ``Build()`` making the workload empty (its metadata only) and ``Update(obj)``
writing its spec (the empty one and the one written are one workload); the one field a conjunction turns on
(``if k.Spec.Backup.Enabled && !k.Spec.Pause {``). The workload runs only while the switch is on. Our own
small Go files and CRD."""

from __future__ import annotations

from pathlib import Path

from workload_map.authoring import draft
from workload_map.authoring.gochildren import built_children

from .fixtures import crd

TYPES = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Kiosk struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec KioskSpec    `json:"spec,omitempty"`
}

type KioskSpec struct {
	Panel  *PanelSpec `json:"panel,omitempty"`
	Tools  *ToolsSpec `json:"tools,omitempty"`
	Backup BackupSpec `json:"backup,omitempty"`
	Pause  bool       `json:"pause,omitempty"`
}

type BackupSpec struct {
	Enabled bool `json:"enabled"`
}

type PanelSpec struct {
	Enabled  bool   `json:"enabled"`
	Replicas *int32 `json:"replicas,omitempty"`
}

type ToolsSpec struct {
	Enabled bool `json:"enabled"`
}
"""

PANEL = """\
package panel

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/kiosk/api/v1"
)

type Builder struct {
	kiosk *v1.Kiosk
}

func (b *Builder) Build() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: b.kiosk.Name + "-panel"},
	}
}

func (b *Builder) Enabled() bool {
	return b.kiosk.Spec.Panel != nil && b.kiosk.Spec.Panel.Enabled
}

func (b *Builder) Update(object any) error {
	deployment := object.(*appsv1.Deployment)
	deployment.Spec.Replicas = b.kiosk.Spec.Panel.Replicas
	return nil
}
"""

TOOLS = """\
package tools

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/kiosk/api/v1"
)

type Builder struct {
	kiosk *v1.Kiosk
}

func (b *Builder) Build() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: b.kiosk.Name + "-tools"},
	}
}

func (b *Builder) Enabled() bool {
	return b.kiosk.Spec.Tools != nil && b.kiosk.Spec.Tools.Enabled
}
"""

CONTROLLER = """\
package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "example.com/kiosk/api/v1"
)

func (r *Reconciler) Reconcile(k *v1.Kiosk) error {
	if k.Spec.Backup.Enabled && !k.Spec.Pause {
		_ = collector(k)
	}
	return nil
}

func collector(k *v1.Kiosk) *appsv1.Deployment {
	one := int32(1)
	return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &one}}
}
"""

KIOSK_CRD = crd(
    "kiosk.example.com",
    "Kiosk",
    {
        "panel": {"type": "object", "properties": {"enabled": {"type": "boolean"}, "replicas": {"type": "integer"}}},
        "tools": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
        "backup": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
        "pause": {"type": "boolean"},
    },
)


def _operator(root: Path) -> Path:
    files = {"api/v1/types.go": TYPES, "panel/builder.go": PANEL, "tools/builder.go": TOOLS}
    for path, text in {**files, "controller/kiosk.go": CONTROLLER}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_a_builders_enabled_method_is_the_switch_of_what_it_builds(tmp_path: Path) -> None:
    found = {(c.where, c.count, c.constant, c.guard) for c in built_children(_operator(tmp_path), "Kiosk", "v1")}
    # The panel's empty Deployment (Build()) is the one its Update writes: one workload (gochildren's shells).
    assert found == {
        ("panel/builder.go:24", ("spec", "panel", "replicas"), None, ("spec", "panel", "enabled")),
        ("tools/builder.go:14", None, 1, ("spec", "tools", "enabled")),
        # Built under ``if k.Spec.Backup.Enabled && !k.Spec.Pause {`` in its caller: the one switch turned on.
        ("controller/kiosk.go:17", None, 1, ("spec", "backup", "enabled")),
    }


def test_the_draft_counts_each_switched_workload_once(tmp_path: Path) -> None:
    made = draft(KIOSK_CRD, api_source=_operator(tmp_path))
    children = made.karta["spec"]["structureDefinition"]["childComponents"]
    assert sorted(c["scaleDefinition"]["replicasPath"] for c in children) == [
        # The panel's empty Deployment and the one its Update writes are one workload: counted once.
        "(if .spec.backup.enabled == true then 1 else 0 end) * 1",
        "(if .spec.panel.enabled == true then 1 else 0 end) * (.spec.panel.replicas // 1)",
        "(if .spec.tools.enabled == true then 1 else 0 end) * 1",
    ]
