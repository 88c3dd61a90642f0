"""A workload whose pod the operator's code composes (``--api-source``): the draft reads the pod from no path
and says so, instead of a gap asking for a template path the object does not have. Our own small Go files."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.authoring.fixtures import POD_SPEC, crd

from workload_map.authoring import draft
from workload_map.authoring.evidence import TODO_MARK
from workload_map.authoring.gochildren import built_children

TYPES = """\
package api

type Barn struct {
	Spec   BarnSpec   `json:"spec,omitempty"`
	Status BarnStatus `json:"status,omitempty"`
}

type BarnSpec struct {
	Stalls   int32               `json:"stalls,omitempty"`
	Image    string              `json:"image,omitempty"`
	Template *PodTemplateSpecRef `json:"template,omitempty"`
}

type PodTemplateSpecRef = corev1.PodTemplateSpec

type BarnStatus struct{}
"""

# The StatefulSet's Template, by way of building it.
TEMPLATES = {
    "a literal": "corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: b.Spec.Image}}}}",
    "a helper's, through a local with an error": "*pod",
    "copied from the object": "*b.Spec.Template",
    "a literal copying the object's pod": "corev1.PodTemplateSpec{Spec: b.Spec.Template.Spec}",
}
COMPOSED = {
    "a literal": True,
    "a helper's, through a local with an error": True,
    "copied from the object": False,
    "a literal copying the object's pod": False,
}


def _barn_operator(root: Path, template: str) -> Path:
    (root / "api").mkdir(parents=True)
    (root / "api" / "types.go").write_text(TYPES)
    (root / "ctl").mkdir()
    (root / "ctl" / "barn.go").write_text(
        f"""package ctl

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	api "example.com/barn/api"
)

func (r *Reconciler) statefulSetFor(b *api.Barn) (*appsv1.StatefulSet, error) {{
	pod, err := r.podFor(b)
	if err != nil {{
		return nil, err
	}}
	return &appsv1.StatefulSet{{
		Spec: appsv1.StatefulSetSpec{{
			Replicas: &b.Spec.Stalls,
			Template: {template},
		}},
	}}, nil
}}

func (r *Reconciler) podFor(b *api.Barn) (*corev1.PodTemplateSpec, error) {{
	pod := &corev1.PodTemplateSpec{{}}
	pod.Spec.Containers = []corev1.Container{{{{Name: "barn", Image: b.Spec.Image}}}}
	return pod, nil
}}
"""
    )
    return root


@pytest.mark.parametrize("how", list(TEMPLATES))
def test_the_reader_tells_a_composed_pod_from_a_copied_one(tmp_path: Path, how: str) -> None:
    (child,) = built_children(_barn_operator(tmp_path, TEMPLATES[how]), "Barn", "v1")
    assert child.composed is COMPOSED[how]


BARN_CRD = crd("barn.example.com", "Barn", {"stalls": {"type": "integer", "default": 2}, "image": {"type": "string"}})


def test_a_composed_pod_is_drafted_with_no_path_and_a_note(tmp_path: Path) -> None:
    made = draft(BARN_CRD, api_source=_barn_operator(tmp_path, TEMPLATES["a literal"]))
    (component,) = made.karta["spec"]["structureDefinition"]["childComponents"]
    assert component["kind"]["kind"] == "StatefulSet"
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    assert component["scaleDefinition"] == {"replicasPath": "(.spec.stalls // 2)"}
    assert "the operator composes the StatefulSet's pod at ctl/barn.go" in made.text
    assert not [todo for todo in made.todos if "childComponents" in todo]


OPEN_BARN_CRD = crd("barn.example.com", "Barn", {})
OPEN_BARN_CRD["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"] = {
    "type": "object",
    "x-kubernetes-preserve-unknown-fields": True,
}


def test_a_pod_the_reader_cannot_place_stays_one_gap_where_the_object_may_hold_one(tmp_path: Path) -> None:
    """Replicas traced but the Template set from something the reader does not follow, in an object whose
    open spec may hold a pod definition: a gap, as before."""
    made = draft(OPEN_BARN_CRD, api_source=_barn_operator(tmp_path, "r.unknown"))
    (component,) = made.karta["spec"]["structureDefinition"]["childComponents"]
    assert TODO_MARK in component["specDefinition"]["podTemplateSpecPath"]
    assert len([todo for todo in made.todos if "childComponents" in todo]) == 1


def test_a_pod_the_reader_cannot_place_reads_no_path_when_the_object_holds_no_pod(tmp_path: Path) -> None:
    """The same, in an object with no field shaped like a pod: whatever the code builds it from, the path the
    format asks for does not exist, so the pod is the operator's composition."""
    made = draft(BARN_CRD, api_source=_barn_operator(tmp_path, "r.unknown"))
    (component,) = made.karta["spec"]["structureDefinition"]["childComponents"]
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    assert "the object holds no pod definition" in made.text
    assert not [todo for todo in made.todos if "specDefinition" in todo]


HIVE_TYPES = """\
package api

type Hive struct {
	Spec   HiveSpec   `json:"spec,omitempty"`
	Status HiveStatus `json:"status,omitempty"`
}

type HiveSpec struct {
	Replicas  int32  `json:"replicas,omitempty"`
	Image     string `json:"image,omitempty"`
}

type HiveStatus struct{}
"""

HIVE_CONTROLLER = """\
package ctl

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	api "example.com/hive/api"
)

func hiveSet(h *api.Hive) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{
		Replicas: &h.Spec.Replicas,
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: h.Spec.Image}}}},
	}}
}
"""

# An ensemble the operator asks another operator for: shaped like a PodSpec (containers), but with a count of
# its own, which no PodSpec has.
PROVIDED = {
    "type": "object",
    "properties": {"replicas": {"type": "integer", "default": 3}, "containers": POD_SPEC["properties"]["containers"]},
}


def test_an_object_with_containers_and_its_own_count_is_not_the_built_workloads_pod(tmp_path: Path) -> None:
    for path, text in {"api/types.go": HIVE_TYPES, "ctl/hive.go": HIVE_CONTROLLER}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    hive = crd(
        "hive.example.com",
        "Hive",
        {
            "replicas": {"type": "integer", "default": 2},
            "image": {"type": "string"},
            "keeperRef": {"type": "object", "properties": {"provided": PROVIDED}},
        },
    )
    structure = draft(hive, api_source=tmp_path).karta["spec"]["structureDefinition"]
    children = {c["name"]: c for c in structure["childComponents"]}
    # The ensemble counts itself; the StatefulSet the code builds is counted by .spec.replicas, its pod composed.
    assert children["provided"]["scaleDefinition"] == {"replicasPath": "(.spec.keeperRef.provided.replicas // 3)"}
    (built,) = [c for c in children.values() if c["kind"]["kind"] == "StatefulSet" and c["name"] != "provided"]
    assert built["scaleDefinition"] == {"replicasPath": "(.spec.replicas // 2)"}
    assert built["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    # .spec.replicas is that StatefulSet's count, not copies of the whole set of roles.
    assert "scaleDefinition" not in structure["rootComponent"]


def test_a_count_a_method_of_the_reconciler_computes_is_the_field_it_returns_last(tmp_path: Path) -> None:
    _barn_operator(tmp_path, TEMPLATES["a literal"])
    go = tmp_path / "ctl" / "barn.go"
    text = go.read_text().replace("Replicas: &b.Spec.Stalls", "Replicas: &stalls")
    text = text.replace("\tpod, err := r.podFor(b)", "\tstalls := r.stallsFor(b)\n\tpod, err := r.podFor(b)")
    text += """
func (r *Reconciler) stallsFor(b *api.Barn) int32 {
	wanted := b.Spec.Stalls
	if wanted > 100 {
		return 100
	}
	return wanted
}
"""
    go.write_text(text)
    (child,) = built_children(tmp_path, "Barn", "v1")
    assert (child.count, child.count_key) == (("spec", "stalls"), "Replicas")


KILN_TYPES = """\
package api

type Kiln struct {
	Spec   KilnSpec   `json:"spec,omitempty"`
	Status KilnStatus `json:"status,omitempty"`
}

type KilnSpec struct {
	Instances int32  `json:"instances,omitempty"`
	Image     string `json:"image,omitempty"`
}

type KilnStatus struct{}
"""

KILN_CONTROLLER = """\
package ctl

import (
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	api "example.com/kiln/api"
)

func (r *KilnReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&api.Kiln{}).Owns(&corev1.Pod{}).Complete(r)
}

func (r *KilnReconciler) instance(k *api.Kiln, index int) *corev1.Pod {
	return &corev1.Pod{Spec: r.podSpec(k)}
}

func (r *KilnReconciler) podSpec(k *api.Kiln) corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "kiln", Image: k.Spec.Image}}}
}

// Read into, to delete: no pod of the kiln's.
func (r *KilnReconciler) forget(k *api.Kiln) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x"}}
}
"""

KILN_CRD = crd(
    "kiln.example.com", "Kiln", {"instances": {"type": "integer", "default": 1}, "image": {"type": "string"}}
)


@pytest.mark.parametrize("owns_pods", [True, False])
def test_pods_the_controller_owns_and_composes_are_the_roots_read_from_no_path(tmp_path: Path, owns_pods: bool) -> None:
    controller = KILN_CONTROLLER if owns_pods else KILN_CONTROLLER.replace(".Owns(&corev1.Pod{})", "")
    for path, text in {"api/types.go": KILN_TYPES, "ctl/kiln.go": controller}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    made = draft(KILN_CRD, api_source=tmp_path)
    root = made.karta["spec"]["structureDefinition"]["rootComponent"]
    assert root["scaleDefinition"] == {"replicasPath": ".spec.instances // 1"}
    if owns_pods:
        assert root["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
        assert "the controller owns Pods and composes one at ctl/kiln.go" in made.text
        assert not [todo for todo in made.todos if "specDefinition" in todo]
    else:  # whose pods those are the code does not say: where they come from stays one gap
        assert TODO_MARK in root["specDefinition"]["podTemplateSpecPath"]
