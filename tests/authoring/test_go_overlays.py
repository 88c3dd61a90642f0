"""Pod-shaped fields the operator's code lays over, or adds to, a pod it composes itself (gomerges.py,
``--api-source``): a snippet converted by a method of its own type before the merge, a list of containers
appended beside the operator's own container, and a field of the same type as one the code merges. The draft
reads such a pod from no path. Our own small Go files."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.authoring.fixtures import CONTAINERS, POD_SPEC, crd

from workload_map.authoring import draft
from workload_map.authoring.gomerges import merged_fields

TYPES = """\
package api

type Forge struct {
	Spec   ForgeSpec   `json:"spec,omitempty"`
	Status ForgeStatus `json:"status,omitempty"`
}

type ForgeSpec struct {
	Replicas   *int32             `json:"replicas,omitempty"`
	Image      string             `json:"image,omitempty"`
	PodSnippet *PodSnippet        `json:"podSnippet,omitempty"`
	Containers []corev1.Container `json:"containers,omitempty"`
	Anvil      Part               `json:"anvil,omitempty"`
	Bellows    Part               `json:"bellows,omitempty"`
}

type Part struct {
	Overlay *Overlay `json:"overlay,omitempty"`
	Spare   *Spare   `json:"spare,omitempty"`
}

type Overlay struct {
	Containers []corev1.Container `json:"containers,omitempty"`
}

type Spare struct {
	Containers []corev1.Container `json:"containers,omitempty"`
}

type PodSnippet struct {
	Containers   []corev1.Container `json:"containers,omitempty"`
	NodeSelector map[string]string  `json:"nodeSelector,omitempty"`
}

// AsPodSpec turns the snippet into the library's pod spec.
func (s *PodSnippet) AsPodSpec() *corev1.PodSpec {
	if s == nil {
		return nil
	}
	return &corev1.PodSpec{Containers: s.Containers, NodeSelector: s.NodeSelector}
}

// Defaults is a pod spec of the operator's, not built from the snippet.
func (s *PodSnippet) Defaults() *corev1.PodSpec {
	return &corev1.PodSpec{RestartPolicy: "Always"}
}

type ForgeStatus struct{}
"""

# What the controller does (``f`` is the Forge, ``spec`` a pod spec it built with its own ``main`` container).
OVERLAID = {
    "converts the snippet, then merges it": (
        ("spec", "podSnippet"),
        "user := f.Spec.PodSnippet.AsPodSpec()\n\treturn spec, mergo.Merge(&spec, *user)",
    ),
    "merges the converted snippet in one call": (
        ("spec", "podSnippet"),
        "return spec, mergo.Merge(&spec, f.Spec.PodSnippet.AsPodSpec())",
    ),
    "appends the list to its own container": (
        ("spec", "containers"),
        "spec = corev1.PodSpec{\n\t\tContainers: append(f.Spec.Containers, main),\n\t}\n\treturn spec, nil",
    ),
    "appends the list after its own container": (
        ("spec", "containers"),
        "spec.Containers = append([]corev1.Container{main}, f.Spec.Containers...)\n\treturn spec, nil",
    ),
    "appends the list to a local list of its own containers": (
        ("spec", "containers"),
        "containers := []corev1.Container{}\n\tcontainers = append(containers, main)\n"
        "\tcontainers = append(containers, f.Spec.Containers...)\n\tspec.Containers = containers\n\treturn spec, nil",
    ),
}
NOT_OVERLAID = {
    "copies the list into a local list": (
        "containers := []corev1.Container{}\n\tcontainers = append(containers, f.Spec.Containers...)\n"
        "\tspec.Containers = containers\n\treturn spec, nil"
    ),
    "merges a pod spec of its own the snippet's type makes": (
        "return spec, mergo.Merge(&spec, f.Spec.PodSnippet.Defaults())"
    ),
    "uses the list as the pod's containers": "spec.Containers = f.Spec.Containers\n\treturn spec, nil",
    "builds a container of each item": (
        "for _, c := range f.Spec.Containers {\n"
        "\t\tspec.Containers = append(spec.Containers, corev1.Container{Name: c.Name, Image: c.Image})\n"
        "\t}\n\treturn spec, nil"
    ),
    "defaults the object by appending to its list": (
        "f.Spec.Containers = append(f.Spec.Containers, main)\n\treturn spec, nil"
    ),
}


def _forge_operator(root: Path, use: str) -> Path:
    (root / "api").mkdir(parents=True)
    (root / "api" / "types.go").write_text(TYPES)
    (root / "ctl").mkdir()
    (root / "ctl" / "forge.go").write_text(
        f"""package ctl

import (
	corev1 "k8s.io/api/core/v1"
	api "example.com/forge/api"
	"dario.cat/mergo"
)

func podSpecFor(f *api.Forge) (corev1.PodSpec, error) {{
	main := corev1.Container{{Name: "forge", Image: f.Spec.Image}}
	spec := corev1.PodSpec{{Containers: []corev1.Container{{main}}}}
	{use}
}}
"""
    )
    return root


@pytest.mark.parametrize("use", list(OVERLAID))
def test_the_reader_finds_a_converted_snippet_or_appended_containers(tmp_path: Path, use: str) -> None:
    segments, code = OVERLAID[use]
    found = merged_fields(_forge_operator(tmp_path, code), "Forge", "v1")
    assert [m.segments for m in found] == [segments]
    assert found[0].where.startswith("ctl/forge.go:")


@pytest.mark.parametrize("use", list(NOT_OVERLAID))
def test_a_list_used_as_the_containers_or_a_merge_of_the_operators_own_is_no_overlay(tmp_path: Path, use: str) -> None:
    assert merged_fields(_forge_operator(tmp_path, NOT_OVERLAID[use]), "Forge", "v1") == []


def test_a_field_of_the_type_of_a_merged_one_is_merged_too(tmp_path: Path) -> None:
    """The operator merges the anvil's overlay; the bellows' field of the same type is read as merged too
    (the reader did not reach its builder), the spare of another type is not."""
    code = "return spec, util.OverridePodSpec(&spec, f.Spec.Anvil.Overlay)"
    found = merged_fields(_forge_operator(tmp_path, code), "Forge", "v1")
    assert [m.segments for m in found] == [("spec", "anvil", "overlay"), ("spec", "bellows", "overlay")]
    assert "a field of the same type Overlay" in found[1].how


FORGE_CRD = crd(
    "forge.example.com",
    "Forge",
    {"replicas": {"type": "integer"}, "podSnippet": POD_SPEC},
)
LISTED_CRD = crd(
    "forge.example.com",
    "Forge",
    {"replicas": {"type": "integer"}, "containers": CONTAINERS},  # no image beside them: the code decides
)


@pytest.mark.parametrize(
    ("schema", "use"),
    [(FORGE_CRD, "converts the snippet, then merges it"), (LISTED_CRD, "appends the list to its own container")],
)
def test_an_overlaid_field_is_drafted_with_no_path_and_its_count_kept(
    tmp_path: Path, schema: dict[str, object], use: str
) -> None:
    made = draft(schema, api_source=_forge_operator(tmp_path, OVERLAID[use][1]))
    (component,) = made.karta["spec"]["structureDefinition"]["childComponents"]
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    assert component["scaleDefinition"] == {"replicasPath": "(.spec.replicas // 1)"}


def test_a_list_used_as_the_containers_stays_the_pods_path(tmp_path: Path) -> None:
    made = draft(
        LISTED_CRD, api_source=_forge_operator(tmp_path, NOT_OVERLAID["uses the list as the pod's containers"])
    )
    (component,) = made.karta["spec"]["structureDefinition"]["childComponents"]
    assert component["specDefinition"] == {"podSpecPath": ".spec"}
