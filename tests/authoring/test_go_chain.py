"""Pods made through a kind of the operator's own (``--api-source``, gochain.py): our own small Go files where
the root's code creates another custom kind of the same sources, whose controller builds the workload that
owns the pods; the count followed from the workload back through the child's field to the root's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from tests.authoring.fixtures import TEMPLATE, crd

from workload_map.authoring import draft
from workload_map.authoring.evidence import ARRAY, TODO_MARK
from workload_map.authoring.gochain import child_kinds_built
from workload_map.authoring.gochildren import built_children
from workload_map.base.snapshot import Snapshot
from workload_map.catalog import builtin_definitions
from workload_map.definition.loader import LoadedDefinition, definition_from_dict
from workload_map.definition.registry import DefinitionRegistry
from workload_map.errors import Location
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.tree.build import tree_of

API = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Garden struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   GardenSpec   `json:"spec,omitempty"`
	Status GardenStatus `json:"status,omitempty"`
}

type GardenSpec struct {
	Size  int32     `json:"size,omitempty"`
	Beds  []BedSpec `json:"beds,omitempty"`
	Extra ExtraSpec `json:"extra,omitempty"`
}

type ExtraSpec struct {
	Enabled  bool  `json:"enabled,omitempty"`
	Replicas int32 `json:"replicas,omitempty"`
}

type BedSpec struct {
	Name string `json:"name"`
}

type GardenStatus struct {
	Phase string `json:"phase,omitempty"`
}

type Plot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   PlotSpec   `json:"spec,omitempty"`
	Status PlotStatus `json:"status,omitempty"`
}

type PlotSpec struct {
	Replicas int32     `json:"replicas,omitempty"`
	Rows     []RowSpec `json:"rows,omitempty"`
}

type RowSpec struct {
	Name string `json:"name"`
}

type PlotStatus struct {
	Ready int32 `json:"ready,omitempty"`
}
"""

GROUP = """\
package v1

import "k8s.io/apimachinery/pkg/runtime/schema"

var GroupVersion = schema.GroupVersion{Group: "garden.example.com", Version: "v1"}
"""

# The root's controller creates a Plot, its count the garden's size; the Plot's controller a StatefulSet of
# the Plot's replicas, and one Job per row (built from the row, its count not traced).
LITERALS = {
    "garden/internal/garden/controller.go": """\
package garden

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gardenv1 "example.com/garden/api/v1"
)

func (r *Reconciler) Reconcile(g *gardenv1.Garden) error {
	plot := plotFor(g)
	return r.apply(plot)
}

func plotFor(g *gardenv1.Garden) *gardenv1.Plot {
	return &gardenv1.Plot{
		ObjectMeta: metav1.ObjectMeta{Name: g.Name, Namespace: g.Namespace},
		Spec: gardenv1.PlotSpec{
			Replicas: g.Spec.Size,
		},
	}
}
""",
    "garden/internal/plot/controller.go": """\
package plot

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	gardenv1 "example.com/garden/api/v1"
)

func (r *Reconciler) Reconcile(p *gardenv1.Plot) error {
	return r.apply(plotSet(p))
}

func plotSet(p *gardenv1.Plot) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: &p.Spec.Replicas}}
}
""",
}
# Besides, one Job per row of the Plot, its count computed by a helper the reader does not follow.
ROW_JOBS = {
    "garden/internal/plot/rows.go": """package plot

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	gardenv1 "example.com/garden/api/v1"
)

func (r *Reconciler) rows(p *gardenv1.Plot) {
	for _, row := range p.Spec.Rows {
		r.apply(rowJob(row, p))
	}
}

func rowJob(row gardenv1.RowSpec, p *gardenv1.Plot) *batchv1.Job {
	return &batchv1.Job{Spec: batchv1.JobSpec{
		Parallelism: parallelism(p, row.Name),
		Template:    corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: rowContainers(row)}},
	}}
}
"""
}

# The same through apply configurations, the Plot's controller making another project's LeaderWorkerSet.
APPLIED = {
    "garden/internal/garden/controller.go": """\
package garden

import (
	gardenv1 "example.com/garden/api/v1"
	gardenac "example.com/garden/client/applyconfiguration/garden/v1"
)

func plotFor(g *gardenv1.Garden) *gardenac.PlotApplyConfiguration {
	plot := gardenac.Plot(g.Name, g.Namespace)
	spec := gardenac.PlotSpec()
	spec.WithReplicas(g.Spec.Size)
	return plot.WithSpec(spec)
}
""",
    "garden/internal/plot/controller.go": """\
package plot

import (
	gardenv1 "example.com/garden/api/v1"
	lwsac "sigs.k8s.io/lws/client-go/applyconfiguration/leaderworkerset/v1"
)

func groupsFor(p *gardenv1.Plot) *lwsac.LeaderWorkerSetApplyConfiguration {
	groups := lwsac.LeaderWorkerSet(p.Name, p.Namespace)
	spec := lwsac.LeaderWorkerSetSpec()
	spec.WithReplicas(p.Spec.Replicas)
	return groups.WithSpec(spec)
}
""",
}

# A second Plot only while a switch of the garden is on, counted by the switch's sibling.
GUARDED = {
    "garden/internal/garden/extra.go": """\
package garden

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gardenv1 "example.com/garden/api/v1"
)

func extraPlot(g *gardenv1.Garden) (*gardenv1.Plot, error) {
	extra := g.Spec.Extra
	if !extra.Enabled {
		return nil, nil
	}
	return &gardenv1.Plot{
		ObjectMeta: metav1.ObjectMeta{Name: g.Name + "-extra"},
		Spec:       gardenv1.PlotSpec{Replicas: extra.Replicas},
	}, nil
}
"""
}

GARDEN_CRD = crd(
    "garden.example.com",
    "Garden",
    {
        "size": {"type": "integer", "default": 2},
        "beds": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
        "extra": {"type": "object", "properties": {"enabled": {"type": "boolean"}, "replicas": {"type": "integer"}}},
    },
)


def _tree(root: Path, controllers: dict[str, str]) -> Path:
    files = {"garden/api/v1/types.go": API, "garden/api/v1/groupversion_info.go": GROUP, **controllers}
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_the_workloads_of_a_child_kind_counted_by_the_roots_field(tmp_path: Path) -> None:
    (plot,) = child_kinds_built(_tree(tmp_path, {**LITERALS, **ROW_JOBS}), "Garden", "v1")
    assert plot.kind == {"group": "garden.example.com", "version": "v1", "kind": "Plot"}
    assert (plot.function, plot.where) == ("plotFor", "garden/internal/garden/controller.go:14")
    by_kind = {w.kind["kind"]: (w, count, item) for w, count, item in plot.workloads}
    assert set(by_kind) == {"StatefulSet", "Job"}
    workload, count, item = by_kind["StatefulSet"]
    assert (workload.count, count, item) == (("spec", "replicas"), ("spec", "size"), None)
    job, count, item = by_kind["Job"]
    assert (job.count, count, item) == (None, None, ("spec", "rows", ARRAY))
    # The child kind is no child of itself, and nothing is built for a kind the sources do not declare.
    assert child_kinds_built(tmp_path, "Plot", "v1") == []
    assert child_kinds_built(tmp_path, "Orchard", "v1") == []


def _resolved(karta: dict[str, Any], objects: list[dict[str, Any]]) -> dict[str, Any]:
    loaded, findings = definition_from_dict(karta, Location("draft.yaml"))
    assert loaded is not None, findings
    view = WorkloadIndex(Snapshot(objects), DefinitionRegistry([LoadedDefinition(loaded, Location("draft.yaml"))]))
    return dict(tree_of(view, objects[0]).to_json())


def _owned(kind: str, name: str, owner: dict[str, Any], **extra: Any) -> dict[str, Any]:
    meta = owner["metadata"]
    return {
        "apiVersion": {"Pod": "v1", "StatefulSet": "apps/v1"}.get(kind, owner["apiVersion"]),
        "kind": kind,
        "metadata": {
            "name": name,
            "namespace": "ns",
            "uid": f"u-{name}",
            "ownerReferences": [
                {
                    "apiVersion": owner["apiVersion"],
                    "kind": owner["kind"],
                    "name": meta["name"],
                    "uid": meta["uid"],
                    "controller": True,
                }
            ],
        },
        **extra,
    }


def test_draft_models_the_child_kind_and_resolves_pods_through_it(tmp_path: Path) -> None:
    made = draft(GARDEN_CRD, api_source=_tree(tmp_path, LITERALS))
    children = {c["name"]: c for c in made.karta["spec"]["structureDefinition"]["childComponents"]}
    assert set(children) == {"plot", "plot-statefulset"}
    assert children["plot"] == {
        "name": "plot",
        "ownerRef": "garden",
        "kind": {"group": "garden.example.com", "version": "v1", "kind": "Plot"},
    }
    sets = children["plot-statefulset"]
    assert (sets["ownerRef"], sets["kind"]["kind"]) == ("plot", "StatefulSet")
    assert sets["scaleDefinition"] == {"replicasPath": "(.spec.size // 2)"}
    # The Garden holds no pod-shaped field: whatever the Plot's controller builds the pod from, no path of
    # the Garden reads it (children.built_component).
    assert sets["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    assert "garden/internal/garden/controller.go:14" in made.text
    # No gap left on the root: its pods are the child kind's.
    assert "specDefinition" not in made.karta["spec"]["structureDefinition"]["rootComponent"]

    karta = yaml.safe_load(made.text)
    garden = {
        "apiVersion": "garden.example.com/v1",
        "kind": "Garden",
        "metadata": {"name": "g", "namespace": "ns", "uid": "u-g"},
        "spec": {"size": 3},
    }
    plot = _owned("Plot", "g-plot", garden, spec={"replicas": 3})
    statefulset = _owned("StatefulSet", "g-set", plot)
    pods = [_owned("Pod", f"g-set-{i}", statefulset, status={"phase": "Running"}) for i in range(3)]
    tree = _resolved(karta, [garden, plot, statefulset, *pods])
    components = {c["name"]: c for c in tree["components"]}
    # The pods are the garden's through the StatefulSet and the Plot, and the StatefulSet component's.
    assert components["plot-statefulset"]["pods"]["desired"] == 3
    assert components["plot-statefulset"]["pods"]["current"] == 3
    assert tree["unattributed"] == []


def test_apply_configurations_and_another_projects_kind(tmp_path: Path) -> None:
    root = _tree(tmp_path, APPLIED)
    (plot,) = child_kinds_built(root, "Garden", "v1")
    ((workload, count, _),) = plot.workloads
    assert workload.kind["kind"] == "LeaderWorkerSet" and count == ("spec", "size")
    made = draft(GARDEN_CRD, api_source=root, catalog=builtin_definitions())
    children = {c["name"]: c for c in made.karta["spec"]["structureDefinition"]["childComponents"]}
    groups = children["plot-leaderworkerset"]
    assert groups["kind"] == {"group": "leaderworkerset.x-k8s.io", "version": "v1", "kind": "LeaderWorkerSet"}
    assert groups["ownerRef"] == "plot"
    assert groups["scaleDefinition"] == {"replicasPath": "(.spec.size // 2)"}
    assert "the pods each makes (a group's size) are that kind's" in made.text  # said, not guessed
    # Without the catalog the other project's kind is unknown: nothing drafted through the child.
    assert "childComponents" not in draft(GARDEN_CRD, api_source=root).karta["spec"]["structureDefinition"]


def test_a_workload_built_per_item_of_the_child_its_count_not_traced_is_a_gap(tmp_path: Path) -> None:
    made = draft(GARDEN_CRD, api_source=_tree(tmp_path, {**LITERALS, **ROW_JOBS}))
    children = {c["name"]: c for c in made.karta["spec"]["structureDefinition"]["childComponents"]}
    jobs = children["plot-job"]
    assert (jobs["ownerRef"], jobs["kind"]["kind"]) == ("plot", "Job")
    assert TODO_MARK in jobs["scaleDefinition"]["replicasPath"]
    assert "one Job per item of the Plot's .spec.rows[]" in jobs["scaleDefinition"]["replicasPath"]
    # The code composes the Job's pod (a PodTemplateSpec it builds): no path reads it, and none is asked for.
    assert jobs["specDefinition"] == {"fragmentedPodSpecDefinition": {}}


def test_a_child_built_behind_a_switch_counts_nothing_while_it_is_off(tmp_path: Path) -> None:
    made = draft(GARDEN_CRD, api_source=_tree(tmp_path, GUARDED | {"garden/internal/plot/controller.go": ""}))
    assert "childComponents" not in made.karta["spec"]["structureDefinition"]  # no controller for the Plot
    plot_controller = "garden/internal/plot/controller.go"
    made = draft(GARDEN_CRD, api_source=_tree(tmp_path, {**GUARDED, plot_controller: LITERALS[plot_controller]}))
    children = {c["name"]: c for c in made.karta["spec"]["structureDefinition"]["childComponents"]}
    assert children["plot-statefulset"]["scaleDefinition"] == {
        "replicasPath": "(if .spec.extra.enabled == true then 1 else 0 end) * (.spec.extra.replicas // 0)"
    }


def test_beside_the_roots_own_pods_only_a_workload_the_root_counts_is_drafted(tmp_path: Path) -> None:
    with_template = crd("garden.example.com", "Garden", {"size": {"type": "integer"}, "template": TEMPLATE})
    made = draft(with_template, api_source=_tree(tmp_path, {**LITERALS, **ROW_JOBS}))
    structure = made.karta["spec"]["structureDefinition"]
    assert structure["rootComponent"]["specDefinition"] == {"podTemplateSpecPath": ".spec.template"}
    assert [c["name"] for c in structure["childComponents"]] == ["plot", "plot-statefulset"]


LAMP_API = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Lamp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   LampSpec   `json:"spec,omitempty"`
	Status LampStatus `json:"status,omitempty"`
}

type LampSpec struct {
	Replicas int32  `json:"replicas,omitempty"`
	Image    string `json:"image,omitempty"`
}

type LampStatus struct {
	Phase string `json:"phase,omitempty"`
}
"""

# The controller owns one workload kind and builds it from the object's fields (rendered manifests, say).
LAMP_CONTROLLER = """\
package controllers

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	lampv1 "example.com/lamp/api/v1"
)

func (r *LampReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&lampv1.Lamp{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Complete(r)
}
"""


def test_no_pod_definition_and_one_owned_workload_kind_the_pods_come_through_it(tmp_path: Path) -> None:
    for path, text in {"api/v1/types.go": LAMP_API, "controllers/lamp_controller.go": LAMP_CONTROLLER}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    lamp_crd = crd("lamp.example.com", "Lamp", {"replicas": {"type": "integer"}, "image": {"type": "string"}})
    structure = draft(lamp_crd, api_source=tmp_path).karta["spec"]["structureDefinition"]
    root = structure["rootComponent"]
    assert root["specDefinition"] == {"fragmentedPodSpecDefinition": {}}  # the operator composes the pod
    assert root["scaleDefinition"] == {"replicasPath": ".spec.replicas // 1"}
    assert structure["additionalChildKinds"] == [
        {"group": "apps", "version": "v1", "kind": "Deployment"},
        {"group": "apps", "version": "v1", "kind": "ReplicaSet"},
    ]
    # Without the sources nothing says what owns the pods.
    assert "additionalChildKinds" not in draft(lamp_crd).karta["spec"]["structureDefinition"]


def test_a_helper_taking_the_kind_inside_a_struct_of_arguments(tmp_path: Path) -> None:
    bundled = {
        "garden/internal/manifests/plot.go": """\
package manifests

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gardenv1 "example.com/garden/api/v1"
)

type Params struct {
	Name   string
	Garden gardenv1.Garden
}

func Plot(params Params) *gardenv1.Plot {
	return &gardenv1.Plot{
		ObjectMeta: metav1.ObjectMeta{Name: params.Name},
		Spec:       gardenv1.PlotSpec{Replicas: params.Garden.Spec.Size},
	}
}
""",
        "garden/internal/plot/controller.go": LITERALS["garden/internal/plot/controller.go"],
    }
    (plot,) = child_kinds_built(_tree(tmp_path, bundled), "Garden", "v1")
    assert plot.function == "Plot"
    assert [count for _, count, _ in plot.workloads] == [("spec", "size")]


def test_a_child_kind_the_catalog_defines_is_left_to_the_catalog(tmp_path: Path) -> None:
    plot_karta = {
        "apiVersion": "run.ai/v1alpha1",
        "kind": "Karta",
        "metadata": {"name": "garden-example-com-plot-v1"},
        "spec": {
            "structureDefinition": {
                "rootComponent": {
                    "name": "plot",
                    "kind": {"group": "garden.example.com", "version": "v1", "kind": "Plot"},
                    "specDefinition": {"podTemplateSpecPath": ".spec.template"},
                    "statusDefinition": {
                        "statusMappings": {
                            "running": [{"byExpression": {"expression": "true", "expectedResult": "true"}}]
                        }
                    },
                }
            }
        },
    }
    loaded, findings = definition_from_dict(plot_karta, Location("plot.yaml"))
    assert loaded is not None, findings
    catalog = [LoadedDefinition(loaded, Location("plot.yaml"))]
    made = draft(GARDEN_CRD, api_source=_tree(tmp_path, LITERALS), catalog=catalog)
    assert "childComponents" not in made.karta["spec"]["structureDefinition"]


def test_a_built_in_workload_built_as_an_apply_configuration(tmp_path: Path) -> None:
    applied = """\
package garden

import (
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	gardenv1 "example.com/garden/api/v1"
)

func setFor(g *gardenv1.Garden) *appsv1ac.StatefulSetApplyConfiguration {
	set := appsv1ac.StatefulSet(g.Name, g.Namespace)
	spec := appsv1ac.StatefulSetSpec()
	spec.WithReplicas(g.Spec.Size)
	return set.WithSpec(spec)
}
"""
    root = _tree(tmp_path, {"garden/internal/garden/set.go": applied})
    (built,) = built_children(root, "Garden", "v1")
    assert built.kind == {"group": "apps", "version": "v1", "kind": "StatefulSet"}
    assert (built.count, built.count_key) == (("spec", "size"), "Replicas")


def test_several_workloads_of_a_child_kind_claim_their_pods_by_the_kind_that_owns_them(tmp_path: Path) -> None:
    made = draft(GARDEN_CRD, api_source=_tree(tmp_path, {**LITERALS, **ROW_JOBS}))
    karta = yaml.safe_load(made.text)
    children = {c["name"]: c for c in karta["spec"]["structureDefinition"]["childComponents"]}
    assert children["plot-job"]["podSelector"]["componentTypeSelector"]["value"] == "Job"
    garden = {
        "apiVersion": "garden.example.com/v1",
        "kind": "Garden",
        "metadata": {"name": "g", "namespace": "ns", "uid": "u-g"},
        "spec": {"size": 2},
    }
    plot = _owned("Plot", "g-plot", garden, spec={"replicas": 2, "rows": [{"name": "a"}]})
    statefulset = _owned("StatefulSet", "g-set", plot)
    job = _owned("Job", "g-row-a", plot)
    job["apiVersion"] = "batch/v1"
    pods = [_owned("Pod", f"g-set-{i}", statefulset, status={"phase": "Running"}) for i in range(2)]
    pods.append(_owned("Pod", "g-row-a-x", job, status={"phase": "Running"}))
    tree = _resolved(karta, [garden, plot, statefulset, job, *pods])
    current = {c["name"]: c["pods"]["current"] for c in tree["components"]}
    assert (current["plot-statefulset"], current["plot-job"]) == (2, 1)
    assert tree["unattributed"] == []
