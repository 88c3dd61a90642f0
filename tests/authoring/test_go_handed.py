"""A workload whose count a helper shared by the operator's workloads writes (``--api-source``, gohanded.py,
gochildren.py): the literal kept in a local and handed to ``common.AddParams(dep, &spec.Common)``, which sets
``dst.Spec.Replicas = params.ReplicaCount``; its count in an object the schema leaves open, and its switch
tested around the call of the function building it (called twice there, for the object and its previous
version). Our own small Go files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.authoring.fixtures import crd

from workload_map.authoring import draft
from workload_map.authoring.gochildren import built_children

HARBOR_API = """\
package v1

type Harbor struct {
	Spec   HarborSpec   `json:"spec,omitempty"`
	Status HarborStatus `json:"status,omitempty"`
}

type HarborSpec struct {
	Balancer BalancerSpec `json:"balancer,omitempty"`
}

type BalancerSpec struct {
	Enabled bool            `json:"enabled,omitempty"`
	Spec    BalancerPodSpec `json:"spec,omitempty"`
}

type BalancerPodSpec struct {
	Image        string `json:"image,omitempty"`
	CommonParams `json:",inline"`
}

type CommonParams struct {
	ReplicaCount *int32 `json:"replicaCount,omitempty"`
}

type HarborStatus struct{}
"""

COMMON = """\
package common

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "example.com/harbor/api/v1"
)

func AddParams(dst *appsv1.Deployment, params *v1.CommonParams) {
	dst.Spec.Replicas = params.ReplicaCount
}
"""

CONTROLLER = """\
package harbor

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"example.com/harbor/pkg/common"
	v1 "example.com/harbor/api/v1"
)

func CreateOrUpdate(h *v1.Harbor, prev *v1.Harbor) error {
	if h.Spec.Balancer.Enabled {
		if err := syncBalancer(h, prev); err != nil {
			return err
		}
	}
	return nil
}

func syncBalancer(h *v1.Harbor, prev *v1.Harbor) error {
	dep, err := buildBalancer(h)
	if err != nil {
		return err
	}
	if prev != nil {
		old, err := buildBalancer(prev)
		if err != nil {
			return err
		}
		_ = old
	}
	return create(dep)
}

func buildBalancer(h *v1.Harbor) (*appsv1.Deployment, error) {
	spec := h.Spec.Balancer.Spec
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: h.Name + "-balancer"},
		Spec: appsv1.DeploymentSpec{
			Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "lb", Image: spec.Image}}},
			},
		},
	}
	%(handed)s
	return dep, nil
}
"""

HARBOR_CRD = crd(
    "ships.example.com",
    "Harbor",
    {
        "balancer": {
            "type": "object",
            "properties": {
                "enabled": {"type": "boolean"},
                "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            },
        }
    },
)


def _write(root: Path, handed: str = "common.AddParams(dep, &spec.CommonParams)") -> Path:
    files = {
        "api/v1/harbor_types.go": HARBOR_API,
        "pkg/common/params.go": COMMON,
        "pkg/harbor/harbor.go": CONTROLLER % {"handed": handed},
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _scales(made: Any) -> dict[str, str]:
    return {
        c["kind"]["kind"]: c["scaleDefinition"]["replicasPath"]
        for c in made.karta["spec"]["structureDefinition"].get("childComponents", [])
    }


def test_a_count_written_by_a_helper_handed_the_workload(tmp_path: Path) -> None:
    """``common.AddParams(dep, &spec.CommonParams)`` writes ``dst.Spec.Replicas = params.ReplicaCount``: the
    balancer's count is ``.spec.balancer.spec.replicaCount`` (an open object in the schema), the helper's own
    parameter no second workload; the switch around the call of ``syncBalancer`` (``dep, err :=`` kept,
    ``err`` given again after) guards it."""
    root = _write(tmp_path)
    (built,) = built_children(root, "Harbor", "v1")
    assert (built.function, built.count) == ("buildBalancer", ("spec", "balancer", "spec", "replicaCount"))
    assert built.guard == ("spec", "balancer", "enabled")
    assert _scales(draft(HARBOR_CRD, api_source=root)) == {
        "Deployment": "(if .spec.balancer.enabled == true then 1 else 0 end)"
        " * (.spec.balancer // {} | .spec.replicaCount // 1)"
    }


def test_a_helper_handed_something_else_gives_no_count(tmp_path: Path) -> None:
    """The helper given another Deployment: the literal's count is not the helper's (it is left unset: the
    Deployment's default)."""
    root = _write(tmp_path, "common.AddParams(&appsv1.Deployment{}, &spec.CommonParams)")
    built = {c.function: c for c in built_children(root, "Harbor", "v1")}
    assert (built["buildBalancer"].count, built["buildBalancer"].defaulted) == (None, True)
