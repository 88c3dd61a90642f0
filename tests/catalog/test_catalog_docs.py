from __future__ import annotations

from corpus import REPO_ROOT
from workload_map.catalog import builtin_definitions
from workload_map.catalog.docs import render


def test_docs_catalog_md_is_up_to_date() -> None:
    committed = (REPO_ROOT / "docs" / "catalog.md").read_text()
    assert committed == render(builtin_definitions()), (
        "docs/catalog.md is stale: run `python -m workload_map.catalog.docs > docs/catalog.md`"
    )


def test_every_required_kind_is_in_the_catalog() -> None:
    required = {
        ("jobset.x-k8s.io", "v1alpha2", "JobSet"),
        ("kubeflow.org", "v1", "PyTorchJob"),
        ("kubeflow.org", "v2beta1", "MPIJob"),
        ("kubeflow.org", "v1", "TFJob"),
        ("kubeflow.org", "v1", "XGBoostJob"),
        ("kubeflow.org", "v1", "JAXJob"),
        ("kubeflow.org", "v1", "PaddleJob"),
        ("trainer.kubeflow.org", "v1alpha1", "TrainJob"),
        ("ray.io", "v1", "RayCluster"),
        ("ray.io", "v1", "RayJob"),
        ("ray.io", "v1", "RayService"),
        ("serving.kserve.io", "v1beta1", "InferenceService"),
        ("serving.kserve.io", "v1alpha1", "LLMInferenceService"),
        ("serving.kserve.io", "v1alpha2", "LLMInferenceService"),
        ("serving.knative.dev", "v1", "Service"),
        ("apps.nvidia.com", "v1alpha1", "NIMService"),
        ("apps.nvidia.com", "v1alpha1", "NIMCache"),
        ("nvidia.com", "v1alpha1", "DynamoGraphDeployment"),
        ("nvidia.com", "v1beta1", "DynamoGraphDeployment"),
        ("grove.io", "v1alpha1", "PodCliqueSet"),
        ("leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet"),
        ("milvus.io", "v1beta1", "Milvus"),
        ("batch.volcano.sh", "v1alpha1", "Job"),
        ("sparkoperator.k8s.io", "v1beta2", "SparkApplication"),
        ("", "v1", "Pod"),
        ("batch", "v1", "Job"),
        ("batch", "v1", "CronJob"),
        ("apps", "v1", "Deployment"),
        ("apps", "v1", "ReplicaSet"),
        ("apps", "v1", "StatefulSet"),
        ("apps", "v1", "DaemonSet"),
        ("kubeflow.org", "v1", "Notebook"),
        ("kubeflow.org", "v1beta1", "Notebook"),
    }
    have = {
        (d.karta.identity.group, d.karta.identity.version, d.karta.identity.kind)
        for d in builtin_definitions()
        if d.karta.identity
    }
    assert required - have == set()
    assert any(g == "agents.x-k8s.io" and k == "Sandbox" for g, _, k in have)
