"""Workloads built by methods of a type holding the kind as a field (``--api-source``, goholders.py): the
builder is made from a ``client.Object`` by a type assertion and called through an interface, so no call
from the reconcile loop reaches it, and one generator runs per item of a list of the kind's spec. Our own
small Go files."""

from __future__ import annotations

from pathlib import Path

import pytest

from workload_map.authoring import gochildren
from workload_map.authoring.gochildren import built_children

ORCHARD_API = """\
package v1

type Orchard struct {
	Spec   OrchardSpec   `json:"spec,omitempty"`
	Status OrchardStatus `json:"status,omitempty"`
}

type OrchardStatus struct{}

type OrchardSpec struct {
	Size    int32       `json:"size,omitempty"`
	Picker  *CrewSpec   `json:"picker,omitempty"`
	Packers []*CrewSpec `json:"packers,omitempty"`
}

type CrewSpec struct {
	Name     string `json:"name,omitempty"`
	Replicas *int32 `json:"replicas,omitempty"`
}
"""

DEPLOYERS = """\
package deployers

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	v1 "example.com/orchard/api/v1"
)

type Builder interface {
	Build() Builder
}

type Shared struct {
	Orchard *v1.Orchard
	Objects []client.Object
}

func NewShared(object client.Object) *Shared {
	orchard, _ := object.(*v1.Orchard)
	return &Shared{Orchard: orchard}
}

type crewBuilder struct {
	*Shared
}

func (b *crewBuilder) crewDeployment(crew *v1.CrewSpec) {
	b.Objects = append(b.Objects, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: b.Orchard.Name + "-" + crew.Name},
		Spec:       appsv1.DeploymentSpec{Replicas: crew.Replicas, Template: *b.BasePod(crew.Name)},
	})
}

func (s *Shared) BasePod(name string) *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: name}}}}
}

func (b *crewBuilder) Build() Builder {
	if b.Orchard.Spec.Picker != nil {
		b.crewDeployment(b.Orchard.Spec.Picker)
	}
	for _, crew := range b.Orchard.Spec.Packers {
		b.crewDeployment(crew)
	}
	return b
}
"""


def _write(root: Path) -> Path:
    for path, text in {"api/v1/orchard_types.go": ORCHARD_API, "deployers/crew.go": DEPLOYERS}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_a_method_of_a_type_holding_the_kind_builds_one_workload_per_item(tmp_path: Path) -> None:
    children = built_children(_write(tmp_path), "Orchard", "v1")
    assert sorted(child.count for child in children if child.count) == [
        ("spec", "packers", "[]", "replicas"),
        ("spec", "picker", "replicas"),
    ]
    assert {child.kind["kind"] for child in children} == {"Deployment"}


def test_a_method_promoted_from_an_embedded_struct_is_followed(tmp_path: Path) -> None:
    """``b.BasePod(...)`` on a builder embedding ``*Shared`` calls Shared's method: the pod it returns is
    put together by the code (composed), not read from a field of the kind."""
    children = built_children(_write(tmp_path), "Orchard", "v1")
    assert children
    assert all(child.composed for child in children)


def test_without_the_holder_rule_the_builder_is_not_reached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gochildren, "receiver_holds_kind", lambda *_: False)
    assert built_children(_write(tmp_path), "Orchard", "v1") == []


def test_a_type_holding_another_kind_is_no_start(tmp_path: Path) -> None:
    root = _write(tmp_path)
    api = root / "api/v1/orchard_types.go"
    fields = ORCHARD_API.partition("type Orchard struct")[2].partition("}\n")[0]
    api.write_text(f"{api.read_text()}\ntype Grove struct{fields}}}\n")  # a second kind, the same fields
    (root / "deployers/crew.go").write_text(DEPLOYERS.replace("*v1.Orchard", "*v1.Grove"))
    assert built_children(root, "Orchard", "v1") == []


RESOURCE = """\
package resource

import (
	"errors"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	v1 "example.com/orchard/api/v1"
)

type Wrapped struct {
	cr *v1.Orchard
}

func (w Wrapped) Spec() *v1.OrchardSpec {
	return w.cr.Spec.DeepCopy()
}

type SetBuilder struct {
	*Wrapped
}

func (b SetBuilder) Build(obj client.Object) error {
	set, ok := obj.(*appsv1.StatefulSet)
	if !ok {
		return errors.New("not a StatefulSet")
	}
	set.Spec = appsv1.StatefulSetSpec{Replicas: ptr.To(b.Spec().Size)}
	return nil
}
"""


def test_a_checked_cast_filled_through_the_receivers_wrapped_kind(tmp_path: Path) -> None:
    """``set, ok := obj.(*appsv1.StatefulSet)`` is a workload filled in; its count, read through the receiver,
    a method of the struct it embeds and the deep copy that method returns, is the kind's ``.spec.size``."""
    (tmp_path / "api/v1").mkdir(parents=True)
    (tmp_path / "api/v1/orchard_types.go").write_text(ORCHARD_API)
    (tmp_path / "pkg/resource").mkdir(parents=True)
    (tmp_path / "pkg/resource/set.go").write_text(RESOURCE)
    children = built_children(tmp_path, "Orchard", "v1")
    assert [(c.kind["kind"], c.function, c.count) for c in children] == [("StatefulSet", "Build", ("spec", "size"))]
