"""The workloads an operator's Go code builds for a kind (``--api-source``, gochildren.py): our own small Go
files, with the child built in a helper of another package, reached through calls, its count read from the
kind's fields through parameters, locals and range variables."""

from __future__ import annotations

from pathlib import Path

from workload_map.authoring.evidence import ARRAY
from workload_map.authoring.gochildren import built_children, functions
from workload_map.authoring.gosource import GoFile

API = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Orchard struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   OrchardSpec   `json:"spec,omitempty"`
	Status OrchardStatus `json:"status,omitempty"`
}

type OrchardSpec struct {
	Rows    []Row      `json:"rows,omitempty"`
	Keeper  KeeperSpec `json:"keeper,omitempty"`
	Size    int32      `json:"size,omitempty"`
}

type Row struct {
	Name  string `json:"name"`
	Trees int32  `json:"trees"`
}

type KeeperSpec struct {
	Count int32 `json:"count,omitempty"`
}

type OrchardStatus struct {
	Phase string `json:"phase,omitempty"`
}
"""

CONTROLLER = """\
package controller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	orchardv1 "orchard/api/v1"
	"example.com/orchard/operator/pkg/builders"
)

type OrchardReconciler struct{}

func (r *OrchardReconciler) Reconcile(ctx context.Context, key string) error {
	orchard := &orchardv1.Orchard{}
	for _, row := range orchard.Spec.Rows {
		set := builders.RowSet(&builders.RowArgs{Orchard: orchard, Row: &row})
		_ = set
	}
	keeper := r.keeperFor(orchard)
	_ = keeper
	return nil
}

func (r *OrchardReconciler) keeperFor(o *orchardv1.Orchard) *appsv1.Deployment {
	existing := &appsv1.Deployment{}
	_ = existing
	return &appsv1.Deployment{
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(o.Spec.Keeper.Count),
		},
	}
}

// An unrelated reconciler of the same package with a method of the same name: never reached.
type ShedReconciler struct{}

func (r *ShedReconciler) keeperFor(name string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{}}
}

func mockOrchardSet(o *orchardv1.Orchard) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: &o.Spec.Size}}
}
"""

BUILDERS = """\
package builders

import (
	appsv1 "k8s.io/api/apps/v1"
	orchardv1 "orchard/api/v1"
)

type RowArgs struct {
	Orchard *orchardv1.Orchard
	Row     *orchardv1.Row
}

func RowSet(args *RowArgs) *appsv1.StatefulSet {
	row := args.Row
	trees := row.Trees
	set := &appsv1.StatefulSet{
		Spec: appsv1.StatefulSetSpec{
			Replicas: &trees,
		},
	}
	return set
}
"""


def _tree(root: Path) -> Path:
    for path, text in {
        "operator/api/v1/orchard_types.go": API,
        "operator/internal/controller/orchard_controller.go": CONTROLLER,
        "operator/pkg/builders/rows.go": BUILDERS,
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_children_built_through_calls_with_their_counts(tmp_path: Path) -> None:
    found = built_children(_tree(tmp_path), "Orchard", "v1")
    by_kind = {(c.kind["kind"], c.function): c for c in found}
    assert set(by_kind) == {("StatefulSet", "RowSet"), ("Deployment", "keeperFor")}
    rows = by_kind["StatefulSet", "RowSet"]
    assert rows.count == ("spec", "rows", ARRAY, "trees")
    assert rows.chain == ["Reconcile", "RowSet"]
    assert rows.where == "operator/pkg/builders/rows.go:16"
    keeper = by_kind["Deployment", "keeperFor"]
    assert (keeper.count, keeper.count_key) == (("spec", "keeper", "count"), "Replicas")
    assert keeper.kind == {"group": "apps", "version": "v1", "kind": "Deployment"}


def test_no_kind_no_children(tmp_path: Path) -> None:
    assert built_children(_tree(tmp_path), "Vineyard", "v1") == []


def test_count_assigned_after_the_literal_and_through_a_range(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "types.go").write_text(API.replace("package v1", "package api"))
    (tmp_path / "ctl").mkdir()
    (tmp_path / "ctl" / "jobs.go").write_text(
        """package ctl

import (
	batchv1 "k8s.io/api/batch/v1"
	api "example.com/orchard/api"
)

func jobs(o *api.Orchard) []*batchv1.Job {
	out := []*batchv1.Job{}
	for i, row := range o.Spec.Rows {
		job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: row.Name}}
		job.Spec.Parallelism = &row.Trees
		out = append(out, job)
		_ = i
	}
	return out
}
"""
    )
    (child,) = built_children(tmp_path, "Orchard", "v1")
    assert (child.kind["kind"], child.count, child.count_key) == (
        "Job",
        ("spec", "rows", ARRAY, "trees"),
        "Parallelism",
    )


def test_function_declarations() -> None:
    text = """package x

func (r *Thing[T]) Do(ctx context.Context, a, b int, opts ...Option) (int, error) {
	if a == b { return 1, nil }
	return 0, nil
}

func plain() {}

func external(x int) int
"""
    declared = functions(GoFile("x/x.go"), text)
    assert [(f.name, f.receiver, f.receiver_var) for f in declared] == [("Do", "Thing", "r"), ("plain", "", "")]
    assert declared[0].params == {
        "r": "*Thing[T]",
        "ctx": "context.Context",
        "a": "int",
        "b": "int",
        "opts": "...Option",
    }
    assert declared[0].line == 3
