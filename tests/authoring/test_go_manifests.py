"""Workloads an operator renders from manifests of its repository (``--api-source``, gomanifests.py): our own
small Go files and YAML, the manifests named by a kustomize folder's path or a ``//go:embed`` pattern."""

from __future__ import annotations

from pathlib import Path

from tests.authoring.fixtures import crd

from workload_map.authoring import draft
from workload_map.authoring.evidence import TODO_MARK
from workload_map.authoring.gomanifests import rendered_workloads

API = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Kiln struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec   KilnSpec   `json:"spec,omitempty"`
	Status KilnStatus `json:"status,omitempty"`
}

type KilnSpec struct {
	Replicas int32 `json:"replicas,omitempty"`
}

type KilnStatus struct {
	Phase string `json:"phase,omitempty"`
}
"""

# A kustomize folder named by a string; the controller owns no workload kind in a builder.
RENDERING = """\
package controllers

import kilnv1 "example.com/kiln/api/v1"

const manifestsPath = "manifests/base"

// Not a folder of the repository: never read.
const elsewhere = "../../../outside/base"

func (r *KilnReconciler) Reconcile(k *kilnv1.Kiln) error {
	return r.render(manifestsPath, k)
}
"""

EMBEDDING = """\
package controllers

import (
	"embed"

	kilnv1 "example.com/kiln/api/v1"
)

//go:embed templates/*.yaml
var templates embed.FS

func (r *KilnReconciler) Reconcile(k *kilnv1.Kiln) error {
	return r.apply(templates, k)
}
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: kiln}
spec:
  replicas: 1
  template:
    spec:
      containers: [{name: kiln, image: kiln:1}]
---
apiVersion: v1
kind: Service
metadata: {name: kiln}
"""

KILN_CRD = crd("kiln.example.com", "Kiln", {"replicas": {"type": "integer"}})


def _tree(root: Path, files: dict[str, str]) -> Path:
    for path, text in {"kiln/api/v1/types.go": API, **files}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_a_kustomize_folder_the_controller_names(tmp_path: Path) -> None:
    (tmp_path / "outside" / "base").mkdir(parents=True)
    (tmp_path / "outside" / "base" / "job.yaml").write_text("apiVersion: batch/v1\nkind: Job\n")
    repo = _tree(
        tmp_path / "repo",
        {
            "kiln/controllers/kiln_controller.go": RENDERING,
            "kiln/controllers/manifests/base/deployment.yaml": DEPLOYMENT,
            "kiln/controllers/manifests/base/kustomization.yaml": "resources: [deployment.yaml]\n",
        },
    )
    (found,) = rendered_workloads(repo, "Kiln")
    assert found.kind == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert (found.manifest, found.named_at) == (
        "kiln/controllers/manifests/base/deployment.yaml",
        "kiln/controllers/kiln_controller.go:5",
    )
    structure = draft(KILN_CRD, api_source=repo).karta["spec"]["structureDefinition"]
    assert structure["additionalChildKinds"] == [
        {"group": "apps", "version": "v1", "kind": "Deployment"},
        {"group": "apps", "version": "v1", "kind": "ReplicaSet"},
    ]
    assert structure["rootComponent"]["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    # Without the manifests nothing says what owns the pods: where they come from is a gap.
    (repo / "kiln/controllers/manifests/base/deployment.yaml").unlink()
    root = draft(KILN_CRD, api_source=repo).karta["spec"]["structureDefinition"]["rootComponent"]
    assert TODO_MARK in root["specDefinition"]["podTemplateSpecPath"]
    assert structure["rootComponent"]["scaleDefinition"] == {"replicasPath": ".spec.replicas // 1"}


def test_embedded_manifests_and_none_for_another_kind(tmp_path: Path) -> None:
    repo = _tree(
        tmp_path,
        {
            "kiln/controllers/kiln_controller.go": EMBEDDING,
            "kiln/controllers/templates/workload.yaml": DEPLOYMENT.replace("Deployment", "StatefulSet"),
            "kiln/controllers/templates/broken.yaml": "kind: [unclosed\n",
        },
    )
    assert [r.kind["kind"] for r in rendered_workloads(repo, "Kiln")] == ["StatefulSet"]
    assert rendered_workloads(repo, "Furnace") == []  # no Go file names that kind
