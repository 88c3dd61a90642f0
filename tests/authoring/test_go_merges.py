"""A pod definition the operator's code merges with a pod it builds (gomerges.py, ``--api-source``): the draft
reads the pod from no path, whichever way the merge goes, and keeps the count. Our own small Go files."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.authoring.fixtures import TEMPLATE, crd

from workload_map.authoring import draft
from workload_map.authoring.evidence import ARRAY
from workload_map.authoring.gomerges import MergedField, merged_fields, merged_over

TYPES = """\
package api

type Kiln struct {
	Spec   KilnSpec   `json:"spec,omitempty"`
	Status KilnStatus `json:"status,omitempty"`
}

type KilnSpec struct {
	Replicas    *int32                  `json:"replicas,omitempty"`
	Image       string                  `json:"image,omitempty"`
	PodTemplate *corev1.PodTemplateSpec `json:"podTemplate,omitempty"`
}

type KilnStatus struct{}
"""

# What the controller does with .spec.podTemplate (``k`` is the Kiln, ``pod`` a template it built).
USES = {
    "merges it over its own": "return pod, util.MergeInto(&pod, k.Spec.PodTemplate)",
    "merges it with an option": "err := mergo.Merge(&pod, k.Spec.PodTemplate, mergo.WithOverride)\n\treturn pod, err",
    "overrides its own with it": "util.OverrideTemplate(ctx, &pod.Spec, k.Spec.PodTemplate)\n\treturn pod, nil",
    "hands it to a helper that patches with it": (
        "changes := k.Spec.PodTemplate\n\treturn applyTo(&pod, changes)\n}\n\n"
        "func applyTo(pod *corev1.PodTemplateSpec, changes *corev1.PodTemplateSpec) (corev1.PodTemplateSpec, error) {\n"
        "\tpatch, err := json.Marshal(changes)\n\tif err != nil {\n\t\treturn *pod, err\n\t}\n"
        "\tsource, _ := json.Marshal(pod)\n"
        "\tmerged, err := strategicpatch.StrategicMergePatch(source, patch, corev1.PodTemplateSpec{})\n"
        "\treturn decode(merged), err"
    ),
    "hands it with the client to a helper that merges it": (
        "return pod, apply(ctx, cli, &pod, k.Spec.PodTemplate)\n}\n\n"
        "func apply(ctx context.Context, cli client.Client, pod *corev1.PodTemplateSpec,"
        " t *corev1.PodTemplateSpec) error {\n"
        "\treturn mergo.Merge(pod, t, mergo.WithOverride)"
    ),
    "starts from it and sets the containers": (
        "if k.Spec.PodTemplate != nil {\n\t\tpod = *k.Spec.PodTemplate\n\t}\n"
        '\tpod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "kiln", Image: k.Spec.Image})\n'
        "\treturn pod, nil"
    ),
    "copies it with DeepCopy and sets the containers": (
        "copied := k.Spec.PodTemplate.DeepCopy()\n"
        '\tcopied.Spec.Containers = []corev1.Container{{Name: "kiln", Image: k.Spec.Image}}\n'
        "\treturn *copied, nil"
    ),
}
# What it does with it that is no merge: the template is the pod's definition.
NOT_MERGED = {
    "uses it as is": "return *k.Spec.PodTemplate, nil",
    "merges only its labels": "pod.Labels = util.MergeLabels(pod.Labels, k.Spec.PodTemplate.Labels)\n\treturn pod, nil",
    "copies it and sets its labels": (
        'pod = *k.Spec.PodTemplate\n\tpod.Labels = map[string]string{"app": "kiln"}\n\treturn pod, nil'
    ),
    "merges two of its own": "return pod, util.MergeInto(&pod, defaults)",
    "reads an override's image": (
        "pod.Spec.Containers[0].Image = util.GetOverrideImage(k.Spec.Image, defaults)\n\treturn pod, nil"
    ),
    "merges it over a pod read from the cluster": (
        "base, err := util.GetBaseTemplate(k.Spec.Image, r.Client)\n\tif err != nil {\n\t\treturn pod, err\n\t}\n"
        "\treturn base, util.MergeInto(&base, k.Spec.PodTemplate)"
    ),
    "hands it to a helper that merges its labels": (
        "return relabel(&pod, k.Spec.PodTemplate)\n}\n\n"
        "func relabel(pod *corev1.PodTemplateSpec, t *corev1.PodTemplateSpec) (corev1.PodTemplateSpec, error) {\n"
        "\tpod.Labels = util.MergeLabels(pod.Labels, t.Labels)\n\treturn *pod, nil"
    ),
    "patches a live pod through the client with it": (
        "return pod, patchPodImages(ctx, cli, &pod, k.Spec.PodTemplate)\n}\n\n"
        "func patchPodImages(ctx context.Context, cli client.Client, pod *corev1.PodTemplateSpec,"
        " t *corev1.PodTemplateSpec) error {\n"
        "\tpod.Spec.Containers[0].Image = t.Spec.Containers[0].Image\n\treturn cli.Update(ctx, pod)"
    ),
    "hands it to a rollout that patches live pods through the client": (
        "return pod, rollout(ctx, cli, &pod, k.Spec.PodTemplate)\n}\n\n"
        "func rollout(ctx context.Context, cli client.Client, pod *corev1.PodTemplateSpec,"
        " t *corev1.PodTemplateSpec) error {\n"
        "\treturn patchPodImages(ctx, cli, pod, t)\n}\n\n"
        "func patchPodImages(ctx context.Context, cli client.Client, pod *corev1.PodTemplateSpec,"
        " t *corev1.PodTemplateSpec) error {\n"
        "\tpod.Spec.Containers[0].Image = t.Spec.Containers[0].Image\n\treturn cli.Update(ctx, pod)"
    ),
    "hands it to a helper that only reads it": (
        "return describe(&pod, k.Spec.PodTemplate)\n}\n\n"
        "func describe(pod *corev1.PodTemplateSpec, t *corev1.PodTemplateSpec) (corev1.PodTemplateSpec, error) {\n"
        "\tname := t.Name\n\tpod.Name = name\n\treturn *pod, nil"
    ),
}


def _kiln_operator(root: Path, use: str) -> Path:
    (root / "api").mkdir(parents=True)
    (root / "api" / "types.go").write_text(TYPES)
    (root / "ctl").mkdir()
    (root / "ctl" / "kiln.go").write_text(
        f"""package ctl

import (
	corev1 "k8s.io/api/core/v1"
	api "example.com/kiln/api"
	"example.com/kiln/util"
	"dario.cat/mergo"
)

func podFor(k *api.Kiln, defaults corev1.PodTemplateSpec) (corev1.PodTemplateSpec, error) {{
	pod := corev1.PodTemplateSpec{{}}
	{use}
}}
"""
    )
    return root


@pytest.mark.parametrize("use", list(USES))
def test_the_reader_finds_a_field_merged_with_a_built_pod(tmp_path: Path, use: str) -> None:
    (merged,) = merged_fields(_kiln_operator(tmp_path, USES[use]), "Kiln", "v1")
    assert merged.segments == ("spec", "podTemplate")
    assert merged.where.startswith("ctl/kiln.go:")


@pytest.mark.parametrize("use", list(NOT_MERGED))
def test_a_template_used_or_only_relabelled_is_no_merge(tmp_path: Path, use: str) -> None:
    assert merged_fields(_kiln_operator(tmp_path, NOT_MERGED[use]), "Kiln", "v1") == []


def test_generated_code_merges_nothing(tmp_path: Path) -> None:
    operator = _kiln_operator(tmp_path, NOT_MERGED["uses it as is"])
    (operator / "api" / "generated.pb.go").write_text(
        "package api\n\nfunc (m *Kiln) Merge(src *Kiln) {\n"
        "\tbase := corev1.PodTemplateSpec{}\n\tproto.Merge(&base, m.Spec.PodTemplate)\n}\n"
    )
    assert merged_fields(operator, "Kiln", "v1") == []


KILN_CRD = crd("kiln.example.com", "Kiln", {"replicas": {"type": "integer"}, "podTemplate": TEMPLATE})


def test_a_merged_template_is_drafted_with_no_path_and_its_count_kept(tmp_path: Path) -> None:
    made = draft(KILN_CRD, api_source=_kiln_operator(tmp_path, USES["merges it over its own"]))
    root = made.karta["spec"]["structureDefinition"]["rootComponent"]
    assert root["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    assert root["scaleDefinition"] == {"replicasPath": "(.spec.replicas // 1)"}
    assert "merged with what the operator's code builds (MergeInto(...) at ctl/kiln.go:" in made.text


def test_a_template_the_code_uses_as_is_stays_the_pods_path(tmp_path: Path) -> None:
    made = draft(KILN_CRD, api_source=_kiln_operator(tmp_path, NOT_MERGED["uses it as is"]))
    root = made.karta["spec"]["structureDefinition"]["rootComponent"]
    assert root["specDefinition"] == {"podTemplateSpecPath": ".spec.podTemplate"}


def test_a_merge_of_the_field_or_the_workload_holding_it_reaches_the_pod_not_one_of_a_whole_role() -> None:
    merges = [
        MergedField(("spec", "deployment"), "ctl/a.go:1", "Merge(...)"),
        MergedField(("spec", "roles", ARRAY), "ctl/b.go:2", "Merge(...)"),
    ]
    assert merged_over(merges, ("spec", "deployment", "spec", "template")) is merges[0]
    assert merged_over(merges, ("spec", "roles", ARRAY, "pattern", "template")) is None
    assert merged_over(merges, ("spec", "other", "template")) is None
