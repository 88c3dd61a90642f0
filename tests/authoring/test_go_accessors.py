"""Counts read through an accessor interface (``--api-source``, goaccessors.py): the roles of the kind share one
builder, handed a role as an interface (``r Role``), and read the count through its methods (``r.Spec().Size()``),
each implementation wrapping one role's part of the spec; a role with its own builder, reached through a method
named after it (``x.PumpRole().Spec().Size()``), is that role's alone. Our own small Go files."""

from __future__ import annotations

from pathlib import Path

import pytest

from workload_map.authoring import gochildren, golocator
from workload_map.authoring.gochildren import built_children

MILL_API = """\
package v1

import "k8s.io/utils/ptr"

type Mill struct {
	Spec   MillSpec   `json:"spec,omitempty"`
	Status MillStatus `json:"status,omitempty"`
}

type MillStatus struct{}

type MillSpec struct {
	Grinder *GrinderSpec `json:"grinder,omitempty"`
	Sifter  *SifterSpec  `json:"sifter,omitempty"`
	Pump    *PumpSpec    `json:"pump,omitempty"`
}

type RoleSpec struct {
	Size *int32 `json:"size,omitempty"`
}

type GrinderSpec struct {
	RoleSpec `json:",inline"`
	Stones   int32 `json:"stones,omitempty"`
}

type SifterSpec struct {
	RoleSpec `json:",inline"`
}

type PumpSpec struct {
	RoleSpec `json:",inline"`
}

type SpecAccessor interface {
	Size() int32
	Image() string
}

type specAccessor struct {
	spec *RoleSpec
}

func (a *specAccessor) Size() int32 {
	return ptr.Deref(a.spec.Size, 0)
}

func (a *specAccessor) Image() string {
	return "mill"
}

func accessor(spec *RoleSpec) SpecAccessor {
	return &specAccessor{spec: spec}
}

type Base interface {
	Spec() SpecAccessor
}

type Role interface {
	Base
	Name() string
}

type baseRole struct {
	m    *Mill
	name string
}

func (b *baseRole) Spec() SpecAccessor {
	if b.name == "grinder" {
		return accessor(&b.m.Spec.Grinder.RoleSpec)
	}
	return accessor(&b.m.Spec.Sifter.RoleSpec)
}

type grinderRole struct {
	baseRole
}

func (g *grinderRole) Name() string { return "grinder" }

type sifterRole struct {
	baseRole
}

func (s *sifterRole) Name() string { return "sifter" }

type PumpRole interface {
	Spec() SpecAccessor
	Pressure() int32
}

type pumpRole struct {
	m *Mill
}

func (p *pumpRole) Spec() SpecAccessor { return accessor(&p.m.Spec.Pump.RoleSpec) }

func (p *pumpRole) Pressure() int32 { return 2 }

func (m *Mill) GrinderRole() Role { return &grinderRole{baseRole{m: m, name: "grinder"}} }

func (m *Mill) SifterRole() Role { return &sifterRole{baseRole{m: m, name: "sifter"}} }

func (m *Mill) PumpRole() PumpRole { return &pumpRole{m: m} }
"""

BUILDERS = """\
package mill

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1 "example.com/mill/api/v1"
)

func roleSet(r v1.Role) *appsv1.StatefulSet {
	size := r.Spec().Size()
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: r.Name()},
		Spec:       appsv1.StatefulSetSpec{Replicas: &size},
	}
}

func pumpDeployment(m *v1.Mill) *appsv1.Deployment {
	size := m.PumpRole().Spec().Size()
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: m.Name + "-pump"},
		Spec:       appsv1.DeploymentSpec{Replicas: &size},
	}
}

func Reconcile(m *v1.Mill) {
	for _, role := range []v1.Role{m.GrinderRole(), m.SifterRole()} {
		_ = roleSet(role)
	}
	_ = pumpDeployment(m)
}
"""


def _write(root: Path) -> Path:
    for path, text in {"api/v1/mill_types.go": MILL_API, "pkg/mill/sets.go": BUILDERS}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _counts(root: Path) -> list[tuple[str, tuple[str, ...] | None]]:
    return sorted((c.kind["kind"], c.count) for c in built_children(root, "Mill", "v1"))


def test_a_count_read_through_an_accessor_interface_is_each_roles(tmp_path: Path) -> None:
    assert _counts(_write(tmp_path)) == [
        ("Deployment", ("spec", "pump", "size")),
        ("StatefulSet", ("spec", "grinder", "size")),
        ("StatefulSet", ("spec", "sifter", "size")),
    ]


def test_without_the_claim_the_shared_builder_counts_the_pump_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gochildren, "without_claimed", lambda children: children)
    assert ("StatefulSet", ("spec", "pump", "size")) in _counts(_write(tmp_path))


def test_without_the_role_name_the_pump_is_any_role(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gochildren, "role_named", lambda alternatives, _: alternatives)
    deployments = [count for kind, count in _counts(_write(tmp_path)) if kind == "Deployment"]
    assert len(deployments) == 3


def test_without_interfaces_nothing_is_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(golocator, "interface_methods", lambda *_: None)
    assert [count for _, count in _counts(_write(tmp_path)) if count] == []


def test_a_struct_missing_a_method_of_the_interface_is_no_implementation(tmp_path: Path) -> None:
    """Without ``Name()`` the roles do not implement ``Role``: the builder's count is not traced."""
    root = _write(tmp_path)
    api = root / "api/v1/mill_types.go"
    api.write_text(
        api.read_text()
        .replace('func (s *sifterRole) Name() string { return "sifter" }\n', "")
        .replace('func (g *grinderRole) Name() string { return "grinder" }\n', "")
    )
    assert [kind for kind, count in _counts(root) if count] == ["Deployment"]


CALLED_WITH_ROLES = """\
package mill

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "example.com/mill/api/v1"
)

func sizedSet(s v1.Sized) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: s.GetSize()}}
}

func Reconcile(m *v1.Mill) {
	_ = sizedSet(m.Spec.Grinder)
}
"""

SIZED_METHODS = """
type Sized interface {
	GetSize() *int32
}

func (g *GrinderSpec) GetSize() *int32 { return g.Size }

func (s *SifterSpec) GetSize() *int32 { return s.Size }
"""


def test_a_caller_handing_one_role_says_which_it_is(tmp_path: Path) -> None:
    """``sizedSet(m.Spec.Grinder)``: the interface parameter is the grinder's spec at its one call; what any
    implementation reads is only the fallback."""
    root = _write(tmp_path)
    (root / "pkg/mill/sets.go").write_text(CALLED_WITH_ROLES)
    api = root / "api/v1/mill_types.go"
    api.write_text(api.read_text() + SIZED_METHODS)
    assert _counts(root) == [("StatefulSet", ("spec", "grinder", "size"))]
