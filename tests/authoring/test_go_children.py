"""The workloads an operator's Go code builds for a kind (``--api-source``, gochildren.py): our own small Go
files, with the child built in a helper of another package, reached through calls, its count read from the
kind's fields through parameters, locals and range variables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.authoring.fixtures import POD_SPEC, crd

from workload_map.authoring import Draft, draft
from workload_map.authoring.evidence import ARRAY, TODO_MARK
from workload_map.authoring.gochildren import built_children
from workload_map.authoring.gofuncs import functions
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

// KeeperCount is the keeper's count, 0 when unset.
func (o *Orchard) KeeperCount() int32 {
	var count int32
	if o.Spec.Keeper.Count > 0 {
		count = o.Spec.Keeper.Count
	}
	return count
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
			Replicas: ptr.To(o.KeeperCount()),
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


ORCHARD_ROWS = {
    "type": "array",
    "items": {"type": "object", "properties": {"name": {"type": "string"}, "trees": {"type": "integer", "default": 3}}},
}
ORCHARD_CRD = crd(
    "orchard.example.com",
    "Orchard",
    {
        "rows": ORCHARD_ROWS,
        "keeper": {"type": "object", "properties": {"count": {"type": "integer"}}},
        # Shaped like a pod spec, with no count: what the operator adds to the pods it builds.
        "helpers": POD_SPEC,
    },
)


def _structure(made: Draft) -> dict[str, Any]:
    return dict(made.karta["spec"]["structureDefinition"])


def test_draft_components_from_the_workloads_the_code_builds(tmp_path: Path) -> None:
    made = draft(ORCHARD_CRD, api_source=_tree(tmp_path))
    children = {c["name"]: c for c in _structure(made).get("childComponents", [])}
    # The pod-shaped .spec.helpers has no count and the code counts its workloads elsewhere: not a pod.
    assert set(children) == {"row", "keeper"}
    row = children["row"]
    assert row["kind"] == {"group": "apps", "version": "v1", "kind": "StatefulSet"}
    assert row["instanceIdPath"] == ".spec.rows[]? | .name"
    assert row["scaleDefinition"] == {"replicasPath": ".spec.rows[]? | (.trees // 3)"}
    assert TODO_MARK in row["specDefinition"]["podTemplateSpecPath"]  # one clear gap: no template in the object
    keeper = children["keeper"]
    assert keeper["kind"]["kind"] == "Deployment"
    # ``Keeper KeeperSpec`` is no pointer (always there) and its ``Count int32`` nothing defaults: unset, no keeper
    assert keeper["scaleDefinition"] == {"replicasPath": "(.spec.keeper // {} | .count // 0)"}
    assert "operator/pkg/builders/rows.go:16" in made.text
    assert ".spec.helpers" in made.text  # said why it is no component


def test_draft_without_the_source_keeps_the_pod_shaped_field(tmp_path: Path) -> None:
    children = _structure(draft(ORCHARD_CRD)).get("childComponents", [])
    assert [c["specDefinition"] for c in children] == [{"podSpecPath": ".spec.helpers"}]


def test_a_whole_spec_shaped_like_a_pod_gives_its_containers_to_the_built_job(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "types.go").write_text(
        """package api

type Cluster struct {
	Spec   ClusterSpec   `json:"spec,omitempty"`
	Status ClusterStatus `json:"status,omitempty"`
}

type ClusterSpec struct {
	Size       int32       `json:"size,omitempty"`
	Containers []Container `json:"containers"`
}

type Container struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

type ClusterStatus struct{}
"""
    )
    (tmp_path / "ctl").mkdir()
    (tmp_path / "ctl" / "job.go").write_text(
        """package ctl

import (
	batchv1 "k8s.io/api/batch/v1"
	api "example.com/cluster/api"
)

func NewClusterJob(c *api.Cluster) *batchv1.Job {
	return &batchv1.Job{Spec: batchv1.JobSpec{Parallelism: &c.Spec.Size, Completions: &c.Spec.Size}}
}
"""
    )
    made = draft(
        crd("hpc.example.com", "Cluster", {**POD_SPEC["properties"], "size": {"type": "integer"}}), api_source=tmp_path
    )
    (component,) = _structure(made)["childComponents"]
    assert component["kind"] == {"group": "batch", "version": "v1", "kind": "Job"}
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {"containersPath": ".spec.containers"}}
    assert component["scaleDefinition"] == {"replicasPath": "(.spec.size // 0)"}  # ``Size int32``: unset is 0


def _orchard_deployment(root: Path, replicas: str) -> Path:
    """An orchard operator whose code builds one Deployment with ``Replicas: <replicas>``."""
    (root / "api").mkdir()
    (root / "api" / "types.go").write_text(API.replace("package v1", "package api"))
    (root / "ctl").mkdir()
    (root / "ctl" / "serve.go").write_text(
        f"""package ctl

import (
	appsv1 "k8s.io/api/apps/v1"
	api "example.com/orchard/api"
)

func (r *Reconciler) deploymentFor(o *api.Orchard) *appsv1.Deployment {{
	return &appsv1.Deployment{{Spec: appsv1.DeploymentSpec{{Replicas: {replicas}}}}}
}}
"""
    )
    return root


ORCHARD_SPEC = {"size": {"type": "integer", "default": 2}, "image": {"type": "string"}}


def test_a_built_workload_counted_at_the_spec_makes_the_roots_pods(tmp_path: Path) -> None:
    made = draft(
        crd("orchard.example.com", "Orchard", ORCHARD_SPEC), api_source=_orchard_deployment(tmp_path, "&o.Spec.Size")
    )
    structure = _structure(made)
    (component,) = structure["childComponents"]
    assert component["kind"]["kind"] == "Deployment"
    assert component["scaleDefinition"] == {"replicasPath": "(.spec.size // 2)"}
    assert "specDefinition" not in structure["rootComponent"]


def test_a_count_traced_to_an_object_is_no_count(tmp_path: Path) -> None:
    """Replicas computed by a method of the spec trace back to ``.spec`` itself: an object is no pod count, so
    the workload is not drafted with ``(.spec // 1)``."""
    made = draft(
        crd("orchard.example.com", "Orchard", ORCHARD_SPEC), api_source=_orchard_deployment(tmp_path, "&o.Spec")
    )
    assert "(.spec // 1)" not in made.text
    assert not any(c["kind"]["kind"] == "Deployment" for c in _structure(made).get("childComponents", []))


def test_unreadable_go_builds_nothing_and_raises_nothing(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "types.go").write_text(
        """package api

type Loop struct {
	Loop
	Spec   LoopSpec   `json:"spec"`
	Status LoopStatus `json:"status"`
}

type LoopSpec struct {
	Loop  `json:"loop"`
	Size int32 `json:"size"`
}

type LoopStatus struct{}
"""
    )
    (tmp_path / "ctl").mkdir()
    (tmp_path / "ctl" / "broken.go").write_text(
        """package ctl

import (
	appsv1 "k8s.io/api/apps/v1"
	api "example.com/loop/api"
)

func again(l *api.Loop) { again(l); other(l) }

func other(l *api.Loop) *appsv1.StatefulSet {
	n := n
	return &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: &l.Missing.Size, MinReadySeconds: n}}
}

func unclosed(l *api.Loop) {
	x := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &l.Spec.Size
func
"""
    )
    found = built_children(tmp_path, "Loop", "v1")
    assert {c.kind["kind"] for c in found} == {"StatefulSet", "Deployment"}
    assert {c.kind["kind"]: c.count for c in found}["StatefulSet"] is None  # no field Missing: no count


def test_an_optional_holder_the_schema_defaults_counts_the_defaults_pods(tmp_path: Path) -> None:
    keeper = {"type": "object", "properties": {"count": {"type": "integer"}}, "default": {"count": 2}}
    defaulted = crd("orchard.example.com", "Orchard", {"rows": ORCHARD_ROWS, "keeper": keeper})
    children = {c["name"]: c for c in _structure(draft(defaulted, api_source=_tree(tmp_path)))["childComponents"]}
    # The API server fills in the default object: an object without a keeper runs the default's 2 keepers.
    assert children["keeper"]["scaleDefinition"] == {"replicasPath": '(.spec.keeper // {"count":2} | .count // 0)'}
