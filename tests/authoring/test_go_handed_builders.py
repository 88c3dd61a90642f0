"""Builders handed as function values to a generic helper (``--api-source``, gohandoff.py): the helper fetches
a role's settings and composes its pod, then calls the builder it was handed; the role's name given next to the
builder says which role's workload that builder makes. Our own small Go files."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.authoring.fixtures import crd

import jq
from workload_map.authoring import draft, gochildren
from workload_map.authoring.gochildren import built_children

API = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Orchard struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   OrchardSpec   `json:"spec,omitempty"`
}

type OrchardSpec struct {
	Trees Trees `json:"trees,omitempty"`
}

type Trees struct {
	Apple Tree `json:"apple,omitempty"`
	Pear  Tree `json:"pear,omitempty"`
	Plum  Tree `json:"plum,omitempty"`
}

type Tree struct {
	Groves []Grove `json:"groves,omitempty"`
}

type Grove struct {
	Name     string        `json:"name"`
	Replicas int32         `json:"replicas,omitempty"`
	Template GroveTemplate `json:"template,omitempty"`
}

type GroveTemplate struct {
	Image string `json:"image,omitempty"`
}
"""

ROLES = """\
package roles

const (
	RoleApple = "apple"
	RolePear  = "pear"
	RolePlum  = "plum"
)
"""

FACTORY = """\
package factory

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	v1 "example.com/orchard/api/v1"
	"example.com/orchard/pkg/roles"
)

type Factory struct {
	orchard *v1.Orchard
}

func (f *Factory) grove(role, name string) *v1.Grove {
	return nil
}

func podFromGrove(t *v1.GroveTemplate) corev1.PodTemplateSpec {
	pod := corev1.PodTemplateSpec{}
	pod.Spec = corev1.PodSpec{Containers: []corev1.Container{{Image: t.Image}}}
	return pod
}

func (f *Factory) groveTemplate(role string, g *v1.Grove) corev1.PodTemplateSpec {
	pod := podFromGrove(&g.Template)
	pod.Labels = map[string]string{"role": role}
	return pod
}

func (f *Factory) roleTemplate(role string, g *v1.Grove) corev1.PodTemplateSpec {
	return f.groveTemplate(role, g)
}

func (f *Factory) newStatefulSet(role string, g *v1.Grove, pod *corev1.PodTemplateSpec) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(g.Replicas),
			Template: *pod,
		},
	}
}

func (f *Factory) newDeployment(role string, g *v1.Grove, pod *corev1.PodTemplateSpec) *appsv1.Deployment {
	return &appsv1.Deployment{
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(g.Replicas),
			Template: *pod,
		},
	}
}

type builder[T client.Object] func(role string, g *v1.Grove, pod *corev1.PodTemplateSpec) T

func newWorkload[T client.Object](f *Factory, role, name string, build builder[T]) T {
	g := f.grove(role, name)
	pod := f.roleTemplate(role, g)
	return build(role, g, &pod)
}

func (f *Factory) NewAppleStatefulSet(name string) *appsv1.StatefulSet {
	return newWorkload(f, roles.RoleApple, name, f.newStatefulSet)
}

func (f *Factory) NewPearDeployment(name string) *appsv1.Deployment {
	return newWorkload(f, roles.RolePear, name, f.newDeployment)
}

func (f *Factory) NewPlumDeployment(name string) *appsv1.Deployment {
	return newWorkload(f, "plum", name, f.newDeployment)
}
"""


def _tree(root: Path) -> Path:
    for path, text in {
        "api/v1/orchard_types.go": API,
        "pkg/roles/roles.go": ROLES,
        "pkg/factory/factory.go": FACTORY,
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _counts(found: list[gochildren.BuiltChild], kind: str) -> set[tuple[str, ...] | None]:
    return {c.count for c in found if c.kind["kind"] == kind}


def test_the_role_named_next_to_a_handed_builder_picks_its_place(tmp_path: Path) -> None:
    found = built_children(_tree(tmp_path), "Orchard", "v1")
    # Without the roles named at the hand-offs each builder would count every role's groves.
    assert _counts(found, "StatefulSet") == {("spec", "trees", "apple", "groves", "[]", "replicas")}
    assert _counts(found, "Deployment") == {
        ("spec", "trees", "pear", "groves", "[]", "replicas"),
        ("spec", "trees", "plum", "groves", "[]", "replicas"),
    }


def test_a_pod_the_helper_composes_for_the_handed_builder_is_composed(tmp_path: Path) -> None:
    found = built_children(_tree(tmp_path), "Orchard", "v1")
    # The builder's template is its parameter, given where the helper calls ``build(``: composed three calls
    # down (role > grove > the literal).
    assert found and all(c.composed for c in found)


def test_without_the_hand_offs_read_no_pod_is_composed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gochildren, "handed_calls", lambda *_: iter(()))
    found = built_children(_tree(tmp_path), "Orchard", "v1")
    assert found and not any(c.composed for c in found)


def test_a_builder_handed_with_no_role_named_keeps_every_place(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    text = (root / "pkg/factory/factory.go").read_text()
    (root / "pkg/factory/factory.go").write_text(
        text.replace("roles.RoleApple, name, f.newStatefulSet", "name, name, f.newStatefulSet")
    )
    found = built_children(root, "Orchard", "v1")
    assert len(_counts(found, "StatefulSet")) == 3


GROVES = {
    "type": "object",
    "properties": {
        "groves": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    # The schema lets a grove's name be empty (the operator names its workload after the role).
                    "name": {"type": "string", "pattern": "^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
                    "replicas": {"type": "integer"},
                    "template": {"type": "object", "properties": {"image": {"type": "string"}}},
                },
            },
        }
    },
}
ORCHARD_CRD = crd(
    "orchard.example.com",
    "Orchard",
    {"trees": {"type": "object", "properties": {"apple": GROVES, "pear": GROVES, "plum": GROVES}}},
)


def test_the_draft_has_one_component_per_role_its_pods_composed_and_unnamed_groves_counted(tmp_path: Path) -> None:
    made = draft(ORCHARD_CRD, api_source=_tree(tmp_path))
    children = made.karta["spec"]["structureDefinition"]["childComponents"]
    by_role = {c["instanceIdPath"].split(".")[3]: c for c in children}
    assert {role: c["kind"]["kind"] for role, c in by_role.items()} == {
        "apple": "StatefulSet",
        "pear": "Deployment",
        "plum": "Deployment",
    }
    assert all(c["specDefinition"] == {"fragmentedPodSpecDefinition": {}} for c in children)
    ids = jq.compile(by_role["apple"]["instanceIdPath"])
    sample = {"spec": {"trees": {"apple": {"groves": [{"name": "", "replicas": 1}, {"name": "north"}]}}}}
    assert ids.input(sample).all() == ["0", "north"]
