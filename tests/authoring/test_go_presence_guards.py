"""Optional parts of the spec whose presence switches a workload on (``--api-source``, gofilled.py): the code
returns early while ``x.Spec.Audit == nil`` or builds inside ``if x.Spec.Cache != nil {``; the workload runs
only while the object sets that part. A Job whose parallelism is left unset runs one pod at a time. Our own
small Go files and CRD."""

from __future__ import annotations

from pathlib import Path

from workload_map.authoring import draft
from workload_map.authoring.gochildren import built_children
from workload_map.authoring.gofilled import Presence

from .fixtures import crd

TYPES = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Bakery struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec BakerySpec   `json:"spec,omitempty"`
}

type BakerySpec struct {
	Ovens int32      `json:"ovens"`
	Audit *AuditSpec `json:"audit,omitempty"`
	Cache *CacheSpec `json:"cache,omitempty"`
}

type AuditSpec struct {
	Bucket string `json:"bucket"`
}

type CacheSpec struct {
	Size string `json:"size"`
}
"""

CONTROLLER = """\
package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/bakery/api/v1"
)

func (r *Reconciler) Reconcile(b *v1.Bakery) error {
	if err := r.ovens(b); err != nil {
		return err
	}
	if err := r.audit(b); err != nil {
		return err
	}
	if b.Spec.Cache != nil {
		return r.Create(cache(b))
	}
	return nil
}

func (r *Reconciler) ovens(b *v1.Bakery) error {
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: b.Name},
		Spec:       appsv1.StatefulSetSpec{Replicas: &b.Spec.Ovens},
	}
	return r.Create(sts)
}

func (r *Reconciler) audit(b *v1.Bakery) error {
	if b.Spec.Audit == nil {
		return nil
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: b.Name + "-audit"},
		Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "audit", Args: []string{b.Spec.Audit.Bucket}}},
			}},
		},
	}
	return r.Create(job)
}

func cache(b *v1.Bakery) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: b.Name + "-cache"},
		Spec:       appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{}},
	}
}
"""

BAKERY_CRD = crd(
    "bakery.example.com",
    "Bakery",
    {
        "ovens": {"type": "integer"},
        "audit": {"type": "object", "properties": {"bucket": {"type": "string"}}},
        "cache": {"type": "object", "properties": {"size": {"type": "string"}}},
    },
)


def _operator(root: Path) -> Path:
    for path, text in {"api/v1/types.go": TYPES, "controller/bakery.go": CONTROLLER}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_a_nil_test_of_an_optional_part_guards_what_is_built_for_it(tmp_path: Path) -> None:
    found = {c.kind["kind"]: c for c in built_children(_operator(tmp_path), "Bakery", "v1")}
    assert found["StatefulSet"].guard is None
    # ``if b.Spec.Audit == nil { return nil }`` before the Job; the Deployment inside ``if b.Spec.Cache != nil {``.
    assert found["Job"].guard == ("spec", "audit") and isinstance(found["Job"].guard, Presence)
    assert found["Deployment"].guard == ("spec", "cache") and isinstance(found["Deployment"].guard, Presence)
    # Neither count is set: a Job runs one pod at a time by default, a Deployment one replica.
    assert (found["Job"].constant, found["Job"].count_key) == (1, "Parallelism")
    assert (found["Deployment"].constant, found["Deployment"].count_key) == (1, "Replicas")


def test_the_draft_counts_a_present_part_s_workload_only_while_it_is_set(tmp_path: Path) -> None:
    made = draft(BAKERY_CRD, api_source=_operator(tmp_path))
    children = made.karta["spec"]["structureDefinition"]["childComponents"]
    counts = {c["kind"]["kind"]: c["scaleDefinition"]["replicasPath"] for c in children}
    assert counts["Job"] == "(if .spec.audit == null then 0 else 1 end) * 1"
    assert counts["Deployment"] == "(if .spec.cache == null then 0 else 1 end) * 1"


FETCHING_CONTROLLER = """\
package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/bakery/api/v1"
)

func (r *Reconciler) Reconcile(ctx context.Context, req Request) error {
	b, done, err := r.fetch(ctx, req)
	if done {
		return err
	}
	old := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: req.Name + "-legacy"}}
	if _, err := r.deleteIfExists(ctx, old); err != nil {
		return err
	}
	if b.Spec.Cache != nil {
		return r.ensureCache(b)
	}
	return nil
}

func (r *Reconciler) fetch(ctx context.Context, req Request) (*v1.Bakery, bool, error) {
	b := &v1.Bakery{}
	return b, false, r.Get(ctx, req.Name, b)
}

func (r *Reconciler) ensureCache(b *v1.Bakery) error {
	return r.Create(cache(b))
}

func cache(b *v1.Bakery) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: b.Name + "-cache"},
		Spec:       appsv1.DeploymentSpec{},
	}
}
"""


def test_a_reconcile_fetching_the_object_through_a_helper_reads_its_guards(tmp_path: Path) -> None:
    """``b, done, err := r.fetch(ctx, req)``: ``b`` is the object (the helper's first result), so the reconcile
    is read from, and ``if b.Spec.Cache != nil {`` around the call guards the Deployment built below it. The
    bare Deployment handed to ``deleteIfExists`` (an older layout's, removed) is none the operator runs."""
    for path, text in {"api/v1/types.go": TYPES, "controller/bakery.go": FETCHING_CONTROLLER}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    found = [(c.where, c.guard) for c in built_children(tmp_path, "Bakery", "v1")]
    assert found == [("controller/bakery.go:34", ("spec", "cache"))]


NESTED_CONTROLLER = """\
package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/bakery/api/v1"
)

func (r *Reconciler) Reconcile(b *v1.Bakery) error {
	if b.Spec.Cache != nil {
		if err := r.check(b); err != nil {
			return err
		}
		if b.Status.Ready && b.Spec.Cache.Warm && !b.Spec.Cache.Frozen {
			return r.Create(warmer(b))
		}
	}
	if b.Spec.Cache.Warm {
		return r.Create(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: b.Name + "-prime"}})
	}
	return nil
}

func warmer(b *v1.Bakery) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: b.Name + "-warmer"}, Spec: appsv1.DeploymentSpec{}}
}
"""

NESTED_TYPES = TYPES.replace(
    "type CacheSpec struct {\n", 'type CacheSpec struct {\n\tWarm bool `json:"warm"`\n\tFrozen bool `json:"frozen"`\n'
).replace(
    "type BakerySpec struct {", 'type BakeryStatus struct {\n\tReady bool `json:"ready"`\n}\n\ntype BakerySpec struct {'
)


def test_a_switch_of_the_present_part_decides_over_its_presence(tmp_path: Path) -> None:
    """``if b.Spec.Cache != nil {`` then, inside it, ``&& b.Spec.Cache.Warm &&``: the part given, its switch
    still decides. A Job behind a switch (a feature's step, run on occasion) gets no default count."""
    types = NESTED_TYPES.replace(
        'Spec BakerySpec   `json:"spec,omitempty"`',
        'Spec BakerySpec `json:"spec"`\n\tStatus BakeryStatus `json:"status"`',
    )
    for path, text in {"api/v1/types.go": types, "controller/bakery.go": NESTED_CONTROLLER}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    found = {c.kind["kind"]: c for c in built_children(tmp_path, "Bakery", "v1")}
    assert found["Deployment"].guard == ("spec", "cache", "warm")
    assert not isinstance(found["Deployment"].guard, Presence)
    assert found["Job"].guard == ("spec", "cache", "warm") and found["Job"].constant is None
