"""Counts told by their names and descriptions: ``workerReplicas`` beside ``workerTemplate`` (namedcounts.py;
in a list item the item's ``replicas`` counts copies of the role, each with that many worker pods; on the spec
the named count is the definition's own), and a description naming what the pods are ("the desired number of
search cluster nodes") beside a replication factor, which counts data copies. Our own CRDs."""

from __future__ import annotations

from workload_map.authoring import draft

from .fixtures import TEMPLATE, crd

ROLES = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "replicas": {"type": "integer"},
            "entryTemplate": TEMPLATE,
            "workerTemplate": TEMPLATE,
            "workerReplicas": {"type": "integer"},
        },
    },
}
CREW = crd(
    "crew.example.com",
    "Crew",
    {
        "roles": ROLES,
        "replicas": {"type": "integer"},
        "template": TEMPLATE,
        "helperTemplate": TEMPLATE,
        "helperCount": {"type": "integer"},
    },
)


def test_a_count_named_after_its_definition_counts_its_pods() -> None:
    made = draft(CREW)
    root = made.karta["spec"]["structureDefinition"]["rootComponent"]
    children = made.karta["spec"]["structureDefinition"].get("childComponents", [])
    paths = {
        c["specDefinition"]["podTemplateSpecPath"]: c["scaleDefinition"]["replicasPath"]
        for c in [root, *children]
        if "scaleDefinition" in c and "specDefinition" in c
    }
    assert paths == {
        ".spec.roles[]?.entryTemplate": ".spec.roles[]? | (.replicas // 1)",
        # per copy of the role (its replicas), workerReplicas worker pods
        ".spec.roles[]?.workerTemplate": ".spec.roles[]? | (.replicas // 1) * (.workerReplicas // 1)",
        ".spec.template": "(.spec.replicas // 1)",
        ".spec.helperTemplate": "(.spec.helperCount // 1)",  # its own count, not the spec's replicas
    }


def test_a_count_described_with_what_its_pods_are_and_no_replication_factor() -> None:
    """ "the desired number of search cluster nodes" counts the pods; a replication factor ("the number of
    replicas of each partition") counts copies of data, whatever its description says."""
    kind = crd(
        "search.example.com",
        "Search",
        {
            "targetReplicationFactor": {"type": "integer", "description": "the number of replicas of each partition"},
            "nodeCount": {"type": "integer", "description": "NodeCount is the desired number of search cluster nodes"},
            "podSpec": {
                "type": "object",
                "properties": {"containers": TEMPLATE["properties"]["spec"]["properties"]["containers"]},
            },
        },
    )
    root = draft(kind).karta["spec"]["structureDefinition"]["rootComponent"]
    assert root["scaleDefinition"]["replicasPath"] == "(.spec.nodeCount // 1)"
