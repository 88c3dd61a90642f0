"""Workloads built in the ways generic operator code builds them (``--api-source``, gochildren.py): a spec made
by a helper called in place, a map of roles ranged over, one builder shared by several roles of one spec type,
an empty workload filled by a mutate function (create-or-update) or by options applied to it. Our own small Go
files; each test names the construction it reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.authoring.fixtures import crd

from workload_map.authoring import Sample, draft
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


POND_API = """\
package v1

type Pond struct {
	Spec   PondSpec   `json:"spec,omitempty"`
	Status PondStatus `json:"status,omitempty"`
}

type PondSpec struct {
	Workers int32 `json:"workers,omitempty"`
	Frogs   int32 `json:"frogs,omitempty"`
	Lilies  int32 `json:"lilies,omitempty"`
	Least   int32 `json:"least,omitempty"`
}

type PondStatus struct{}
"""

POND_CONTROLLER = """\
package controller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	v1 "example.com/pond/api/v1"
	"example.com/pond/pkg/deploy"
)

func (r *PondReconciler) workers(ctx context.Context, p *v1.Pond) error {
	sts := &appsv1.StatefulSet{}
	sts.Name = p.Name + "-workers"
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, sts, func() error {
		sts.Spec.Replicas = &p.Spec.Workers
		sts.Spec.Template = podTemplate(p)
		atLeast(sts, p)
		return nil
	})
	return err
}

// A correction on a condition of a workload built elsewhere: no workload of its own.
func atLeast(sts *appsv1.StatefulSet, p *v1.Pond) {
	if *sts.Spec.Replicas < p.Spec.Least {
		sts.Spec.Replicas = &p.Spec.Least
	}
}

func podTemplate(p *v1.Pond) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "w"}}}}
}

func (r *PondReconciler) frogs(p *v1.Pond) *appsv1.Deployment {
	return deploy.New(deploy.WithName(p.Name), deploy.WithReplicas(p.Spec.Frogs))
}

func (r *PondReconciler) lilies(ctx context.Context, p *v1.Pond) error {
	return r.apply(ctx, &batchv1.Job{}, func(obj client.Object) {
		job := obj.(*batchv1.Job)
		job.Spec.Parallelism = &p.Spec.Lilies
	})
}

// Scaling a Deployment read from the cluster down to nothing makes no workload of the pond's.
func (r *PondReconciler) pause(ctx context.Context, p *v1.Pond) error {
	d := &appsv1.Deployment{}
	if err := r.Get(ctx, client.ObjectKey{Name: p.Name}, d); err != nil {
		return err
	}
	if d.Spec.Replicas == nil {
		return nil
	}
	d.Spec.Replicas = ptr.To(int32(0))
	return r.Update(ctx, d)
}
"""

POND_OPTIONS = """\
package deploy

import appsv1 "k8s.io/api/apps/v1"

type Option func(*appsv1.Deployment)

func New(opts ...Option) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	for _, opt := range opts {
		opt(d)
	}
	return d
}

func WithName(name string) Option {
	return func(d *appsv1.Deployment) { d.Name = name }
}

func WithReplicas(n int32) Option {
	replicas := n
	return func(d *appsv1.Deployment) {
		d.Spec.Replicas = &replicas
	}
}
"""


def test_workloads_filled_in_by_create_or_update_closures_casts_and_options(tmp_path: Path) -> None:
    """An empty StatefulSet whose spec a CreateOrUpdate closure writes, a Job cast from a generic object in a
    mutate function, a Deployment made by options (``deploy.WithReplicas(p.Spec.Frogs)``): each counted by its
    field; the Deployment scaled to 0 after a ``Get`` and the StatefulSet raised on a condition by a helper
    given it are no workloads of the pond's."""
    root = _write(
        tmp_path,
        {
            "api/v1/pond_types.go": POND_API,
            "internal/controller/pond.go": POND_CONTROLLER,
            "pkg/deploy/deploy.go": POND_OPTIONS,
        },
    )
    found = {(c.kind["kind"], c.count) for c in built_children(root, "Pond", "v1")}
    assert found == {
        ("StatefulSet", ("spec", "workers")),
        ("Deployment", ("spec", "frogs")),
        ("Job", ("spec", "lilies")),
    }
    spec = {name: {"type": "integer"} for name in ("workers", "frogs", "lilies")}
    children = _children(draft(crd("pond.example.com", "Pond", spec), api_source=root))
    kinds = {c["kind"]["kind"]: c for c in children.values()}
    assert set(kinds) == {"StatefulSet", "Deployment", "Job"}
    # The closure sets the template from a PodTemplateSpec the code builds: read from no path.
    assert kinds["StatefulSet"]["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    # ``Frogs int32``, no pointer and nothing defaults it: an object without it runs none (the Go zero).
    assert kinds["Deployment"]["scaleDefinition"] == {"replicasPath": "(.spec.frogs // 0)"}


KENNEL_API = """\
package v1

type Kennel struct {
	Spec   KennelSpec   `json:"spec,omitempty"`
	Status KennelStatus `json:"status,omitempty"`
}

type KennelSpec struct {
	Replicas int32        `json:"replicas,omitempty"`
	Metrics  *MetricsSpec `json:"metrics,omitempty"`
	Gateway  GatewaySpec  `json:"gateway,omitempty"`
}

type MetricsSpec struct {
	Enabled bool `json:"enabled,omitempty"`
}

type GatewaySpec struct {
	Enabled  bool  `json:"enabled,omitempty"`
	Replicas int32 `json:"replicas,omitempty"`
}

type KennelStatus struct{}

func (k *Kennel) MetricsEnabled() bool {
	return ptr.Deref(k.Spec.Metrics, MetricsSpec{}).Enabled
}
"""

KENNEL_CONTROLLER = """\
package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/kennel/api/v1"
)

func (r *KennelReconciler) Reconcile(k *v1.Kennel) error {
	_ = dogs(k)
	if k.Spec.Gateway.Enabled {
		_ = gateway(k)
	}
	return r.exporter(k)
}

func dogs(k *v1.Kennel) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: k.Name},
		Spec:       appsv1.StatefulSetSpec{Replicas: &k.Spec.Replicas},
	}
}

func gateway(k *v1.Kennel) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: k.Name + "-gw"},
		Spec:       appsv1.DeploymentSpec{Replicas: &k.Spec.Gateway.Replicas},
	}
}

// The exporter's replicas are never set: the Deployment's default, one pod.
func (r *KennelReconciler) exporter(k *v1.Kennel) error {
	if !k.MetricsEnabled() {
		return nil
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: k.Name + "-metrics"},
		Spec:       appsv1.DeploymentSpec{Template: exporterPod(k)},
	}
	return r.Create(d)
}
"""

KENNEL_CRD = crd(
    "dogs.example.com",
    "Kennel",
    {
        "replicas": {"type": "integer"},
        "metrics": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
        "gateway": {
            "type": "object",
            "properties": {"enabled": {"type": "boolean"}, "replicas": {"type": "integer"}},
        },
    },
)


def test_workloads_built_only_while_a_switch_of_the_kind_is_on(tmp_path: Path) -> None:
    """A gateway Deployment built inside ``if k.Spec.Gateway.Enabled {`` (in its caller) counts 0 while the
    switch is off; an exporter Deployment behind ``if !k.MetricsEnabled() { return }`` (a method reading
    ``ptr.Deref(k.Spec.Metrics, MetricsSpec{}).Enabled``), its replicas never
    set, runs its default one pod while it is on; the StatefulSet built unconditionally has no switch."""
    root = _write(tmp_path, {"api/v1/kennel_types.go": KENNEL_API, "controller/kennel.go": KENNEL_CONTROLLER})
    guards = {c.function: c.guard for c in built_children(root, "Kennel", "v1")}
    assert guards == {
        "dogs": None,
        "gateway": ("spec", "gateway", "enabled"),
        "exporter": ("spec", "metrics", "enabled"),
    }
    counts = {
        c["kind"]["kind"] + ":" + c["name"]: c["scaleDefinition"]["replicasPath"]
        for c in _children(draft(KENNEL_CRD, api_source=root)).values()
    }
    assert counts == {
        # int32 counts (no pointer) that nothing defaults: unset is 0; ``Gateway GatewaySpec`` is always there.
        "StatefulSet:statefulset": "(.spec.replicas // 0)",
        "Deployment:gateway": (
            "(if .spec.gateway.enabled == true then 1 else 0 end) * (.spec.gateway // {} | .replicas // 0)"
        ),
        "Deployment:deployment": "(if .spec.metrics.enabled == true then 1 else 0 end) * 1",
    }


BARN_API = """\
package v1

type Barn struct {
	Spec   BarnSpec   `json:"spec,omitempty"`
	Status BarnStatus `json:"status,omitempty"`
}

type BarnSpec struct {
	Stalls []Stall `json:"stalls,omitempty"`
	Hands  int32   `json:"hands,omitempty"`
}

type Stall struct {
	Name   string `json:"name"`
	Horses *int32 `json:"horses,omitempty"`
}

type BarnStatus struct{}
"""

BARN_COMMON = """\
package common

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "example.com/barn/api/v1"
)

type Base struct{}

func (b *Base) NewDefaultDeployment(barn *v1.Barn) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: barn.Namespace}}
}
"""

BARN_CONTROLLER = """\
package stalls

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "example.com/barn/api/v1"
	"example.com/barn/pkg/common"
)

type Controller struct {
	common.Base
}

func (c *Controller) Sync(barn *v1.Barn) {
	for _, stall := range barn.Spec.Stalls {
		set := newStallSet(barn)
		set.Spec.Replicas = stall.Horses
	}
	hands := c.NewDefaultDeployment(barn)
	hands.Spec.Replicas = &barn.Spec.Hands
}

func newStallSet(barn *v1.Barn) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: barn.Namespace}}
}
"""


def test_a_workload_a_function_returns_then_written(tmp_path: Path) -> None:
    """``set := newStallSet(barn)`` then ``set.Spec.Replicas = stall.Horses``: the workload the helper returns
    (by its declared result) is counted where the caller writes it; a method promoted from an embedded struct
    of another package (``c.NewDefaultDeployment(barn)``) is found by its name."""
    root = _write(
        tmp_path,
        {
            "api/v1/barn_types.go": BARN_API,
            "pkg/common/base.go": BARN_COMMON,
            "pkg/stalls/controller.go": BARN_CONTROLLER,
        },
    )
    counted = {(c.kind["kind"], c.count) for c in built_children(root, "Barn", "v1") if c.count is not None}
    assert counted == {
        ("StatefulSet", ("spec", "stalls", "[]", "horses")),
        ("Deployment", ("spec", "hands")),
    }


MILL_API = """\
package v1

import appsv1 "k8s.io/api/apps/v1"

type Mill struct {
	Spec   MillSpec   `json:"spec,omitempty"`
	Status MillStatus `json:"status,omitempty"`
}

type MillSpec struct {
	Replicas *int32          `json:"replicas,omitempty"`
	Daemon   *DaemonTemplate `json:"daemon,omitempty"`
}

type DaemonTemplate struct {
	Replicas *int32 `json:"replicas,omitempty"`
}

type MillStatus struct{}

// DaemonDeployment is the mill's daemon, its spec a local the count is set on first.
func (m Mill) DaemonDeployment() *appsv1.Deployment {
	spec := appsv1.DeploymentSpec{
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "daemon"}}}},
	}
	if d := m.Spec.Daemon; d != nil {
		spec.Replicas = d.Replicas
	}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: m.Name + "-daemon"}, Spec: spec}
}
"""


MILL_CONTROLLER = """\
package controller

import (
	corev1 "k8s.io/api/core/v1"
	appsv1 "k8s.io/api/apps/v1"
	v1 "example.com/mill/api/v1"
)

func (r *MillReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&v1.Mill{}).Owns(&corev1.Pod{}).Owns(&appsv1.Deployment{}).Complete(r)
}
"""

MILL_CRD = crd(
    "mill.example.com",
    "Mill",
    {"replicas": {"type": "integer"}, "daemon": {"type": "object", "properties": {"replicas": {"type": "integer"}}}},
)


def test_a_workload_spec_given_as_a_local_the_count_is_set_on(tmp_path: Path) -> None:
    """``Spec: spec`` with ``spec := appsv1.DeploymentSpec{...}`` and ``spec.Replicas = d.Replicas`` before the
    Deployment literal, in a method of the kind: counted by ``.spec.daemon.replicas``, its pod composed; the
    count set only under ``if d != nil``, the Deployment is built without ``.spec.daemon`` too (its default
    1). The controller owns Pods itself: the root's own pods, counted by ``.spec.replicas``, stay beside it."""
    root = _write(tmp_path, {"api/v1/mill_types.go": MILL_API, "controller/mill.go": MILL_CONTROLLER})
    (child,) = built_children(root, "Mill", "v1")
    assert (child.kind["kind"], child.count, child.composed) == ("Deployment", ("spec", "daemon", "replicas"), True)
    structure = draft(MILL_CRD, api_source=root).karta["spec"]["structureDefinition"]
    assert structure["rootComponent"]["scaleDefinition"] == {"replicasPath": ".spec.replicas // 1"}
    (daemon,) = structure["childComponents"]
    assert daemon["scaleDefinition"] == {"replicasPath": "(.spec.daemon.replicas // 1)"}


BEACON_API = """\
package v1

type Beacon struct {
	Spec   BeaconSpec   `json:"spec,omitempty"`
	Status BeaconStatus `json:"status,omitempty"`
}

type BeaconSpec struct {
	Replicas *int32 `json:"replicas,omitempty"`
	Hooks    []Hook `json:"hooks,omitempty"`
}

// Hook is run when a signal arrives: its container is started then, by the beacon's own process.
type Hook struct {
	Name     string            `json:"name"`
	Template map[string]string `json:"template,omitempty"`
}

type BeaconStatus struct{}
"""

BEACON_CONTROLLER = """\
package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "example.com/beacon/api/v1"
)

func buildDeployment(b *v1.Beacon) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: b.Name},
		Spec:       appsv1.DeploymentSpec{Replicas: b.Spec.Replicas},
	}
}
"""


def test_an_open_spec_counted_by_the_go_types_and_its_sample_pods_dropped(tmp_path: Path) -> None:
    """The schema leaves the spec open: the Deployment's count ``.spec.replicas`` is a number by the Go types,
    and the containers a sample shows inside ``.spec.hooks[]`` (run by the beacon at run time) are no
    component beside the workload the code counts."""
    root = _write(tmp_path, {"api/v1/beacon_types.go": BEACON_API, "controller/beacon.go": BEACON_CONTROLLER})
    opened = crd("watch.example.com", "Beacon", {})
    schema = opened["spec"]["versions"][1]["schema"]["openAPIV3Schema"]
    schema["properties"]["spec"] = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    sample = {
        "apiVersion": "watch.example.com/v1",
        "kind": "Beacon",
        "metadata": {"name": "b"},
        "spec": {"replicas": 2, "hooks": [{"name": "h", "template": {"container": {"name": "c", "image": "x"}}}]},
    }
    made = draft(opened, [Sample(sample, "beacon.yaml#0")], api_source=root)
    (component,) = _children(made).values()
    assert component["kind"]["kind"] == "Deployment"
    assert component["scaleDefinition"] == {"replicasPath": "(.spec.replicas // 1)"}
    assert ".spec.hooks[].template.container" in made.text  # said why it is no component
