"""Workloads made by builder types a reconcile loop runs in turn (``--api-source``, gochildren.py, gofilled.py,
godefaults.py): ``Build()`` gives the bare object (its name), ``Update(obj)`` fills in its spec, ``Enabled()``
says whether it is made at all; and the kind's defaulting method filling an optional object in when it is
unset. Our own small Go files."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tests.authoring.fixtures import crd

from workload_map.authoring import draft
from workload_map.authoring.gochildren import built_children

MILL_API = """\
package v1

type Mill struct {
	Spec   MillSpec   `json:"spec,omitempty"`
	Status MillStatus `json:"status,omitempty"`
}

type MillSpec struct {
	Workers *WorkersSpec `json:"workers,omitempty"`
	Grinder *GrinderSpec `json:"grinder,omitempty"`
	Sifter  *SifterSpec  `json:"sifter,omitempty"`
}

type WorkersSpec struct {
	Replicas *int32 `json:"replicas,omitempty"`
}

type GrinderSpec struct {
	Enabled  bool   `json:"enabled,omitempty"`
	Replicas *int32 `json:"replicas,omitempty"`
}

type SifterSpec struct {
	Enabled bool `json:"enabled,omitempty"`
}

type MillStatus struct{}
"""

MILL_DEFAULTS = """\
package v1

func (m *Mill) Default() {
	if m.Spec.Workers == nil {
		m.Spec.Workers = new(WorkersSpec)
	}
}
"""

BUILDER = """\
package %(package)s

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	v1 "example.com/mill/api/v1"
)

type DeploymentBuilder struct {
	instance *v1.Mill
}

func (b *DeploymentBuilder) Build() client.Object {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: b.instance.Name + "-%(package)s"},
	}
}

func (b *DeploymentBuilder) Enabled() bool {
	return %(enabled)s
}

func (b *DeploymentBuilder) Update(object client.Object) error {
	deployment := object.(*appsv1.Deployment)
	%(count)s
	deployment.Spec.Template = corev1.PodTemplateSpec{
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "%(package)s"}}},
	}
	return nil
}
"""

CONTROLLER = """\
package controllers

import (
	"example.com/mill/pkg/grinder"
	"example.com/mill/pkg/sifter"
	"example.com/mill/pkg/workers"
	v1 "example.com/mill/api/v1"
)

func (r *MillReconciler) builders(m *v1.Mill) []Builder {
	return []Builder{
		&workers.DeploymentBuilder{instance: m},
		&grinder.DeploymentBuilder{instance: m},
		&sifter.DeploymentBuilder{instance: m},
	}
}
"""

MILL_CRD = crd(
    "flour.example.com",
    "Mill",
    {
        "workers": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
        "grinder": {
            "type": "object",
            "properties": {"enabled": {"type": "boolean"}, "replicas": {"type": "integer"}},
        },
        "sifter": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
    },
)


def _write(root: Path, defaults: bool = True) -> Path:
    builders = {
        "workers": ("true", "deployment.Spec.Replicas = b.instance.Spec.Workers.Replicas"),
        "grinder": (
            "b.instance.Spec.Grinder != nil && b.instance.Spec.Grinder.Enabled",
            "deployment.Spec.Replicas = b.instance.Spec.Grinder.Replicas",
        ),
        "sifter": ("b.instance.Spec.Sifter != nil && b.instance.Spec.Sifter.Enabled", ""),
    }
    files = {"api/v1/mill_types.go": MILL_API, "controllers/mill.go": CONTROLLER}
    if defaults:
        files["api/v1/mill_defaults.go"] = MILL_DEFAULTS
    for package, (enabled, count) in builders.items():
        files[f"pkg/{package}/deployment.go"] = BUILDER % {"package": package, "enabled": enabled, "count": count}
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _scales(made: Any) -> dict[str, str]:
    return {
        c["name"]: c["scaleDefinition"]["replicasPath"]
        for c in made.karta["spec"]["structureDefinition"].get("childComponents", [])
    }


def test_builder_types_with_an_enabled_method_and_a_bare_build(tmp_path: Path) -> None:
    """Each builder's Deployment is one workload: the grinder's counted by its replicas and made only while
    ``Enabled()`` (a nil check, then the switch) is on; the sifter's, its count never set, one pod while its
    switch is on, its pod the one ``Update`` composes; the bare objects ``Build()`` gives are no second ones."""
    root = _write(tmp_path)
    built = {c.where.split("/")[1] + ":" + c.function: c for c in built_children(root, "Mill", "v1")}
    # The workers' bare object: no switch, no count (the filled one counts it; nothing drafts it).
    assert set(built) == {"workers:Build", "workers:Update", "grinder:Update", "sifter:Build"}
    assert (built["workers:Build"].count, built["workers:Build"].constant) == (None, None)
    assert built["grinder:Update"].guard == ("spec", "grinder", "enabled")
    assert built["workers:Update"].guard is None  # ``return true``: no switch of the kind
    sifter = built["sifter:Build"]
    assert (sifter.constant, sifter.defaulted, sifter.composed) == (1, True, True)
    assert sifter.guard == ("spec", "sifter", "enabled")


def test_an_optional_object_the_kinds_defaulting_fills_in_is_no_switch(tmp_path: Path) -> None:
    """``if m.Spec.Workers == nil { m.Spec.Workers = new(WorkersSpec) }`` in the kind's ``Default()``: the
    workers run whether the object names ``.spec.workers`` or not; without that defaulting, its absence is
    read as no workers."""
    scales = _scales(draft(MILL_CRD, api_source=_write(tmp_path / "defaulted")))
    assert scales["worker"] == "(.spec.workers // {} | .replicas // 1)"
    assert scales["grinder"] == "(if .spec.grinder.enabled == true then 1 else 0 end) * (.spec.grinder.replicas // 1)"
    assert scales["deployment"] == "(if .spec.sifter.enabled == true then 1 else 0 end) * 1"
    scales = _scales(draft(MILL_CRD, api_source=_write(tmp_path / "plain", defaults=False)))
    assert scales["worker"] == "(if .spec.workers == null then 0 else 1 end) * (.spec.workers.replicas // 1)"


def test_a_switch_on_by_default_in_the_schema(tmp_path: Path) -> None:
    """``.spec.sifter.enabled`` with the schema's ``default: true``: the sifter runs while it is unset."""
    on = copy.deepcopy(MILL_CRD)
    schema = on["spec"]["versions"][1]["schema"]["openAPIV3Schema"]
    schema["properties"]["spec"]["properties"]["sifter"]["properties"]["enabled"]["default"] = True
    scales = _scales(draft(on, api_source=_write(tmp_path)))
    assert scales["deployment"] == "(if .spec.sifter.enabled == false then 0 else 1 end) * 1"
