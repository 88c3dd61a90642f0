"""Pod counts that multiply: a list item's count over the size of each of its groups (a role's replicas,
each replica a group of pods), read from the schema and checked by resolving a drafted object."""

from __future__ import annotations

from typing import Any

import yaml

from workload_map.authoring import draft
from workload_map.base.snapshot import Snapshot
from workload_map.definition.loader import LoadedDefinition, definition_from_dict
from workload_map.definition.registry import DefinitionRegistry
from workload_map.errors import Location
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.tree.build import tree_of

from .fixtures import TEMPLATE, crd

SIZED = {"type": "object", "properties": {"size": {"type": "integer", "default": 1}, "template": TEMPLATE}}
ENSEMBLE = crd(
    "example.com",
    "Ensemble",
    {
        "roles": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string"},
                    "replicas": {"type": "integer", "default": 1},
                    # one group of `size` pods per replica
                    "group": SIZED,
                    # per replica, each member's `size` pods
                    "parts": {
                        "type": "object",
                        "properties": {
                            "members": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {"name": {"type": "string"}, **SIZED["properties"]},
                                },
                            }
                        },
                    },
                },
            },
        }
    },
)


def _desired(text: str, obj: dict[str, Any]) -> dict[str, int]:
    loaded, findings = definition_from_dict(yaml.safe_load(text), Location("draft.yaml"))
    assert loaded is not None, findings
    view = WorkloadIndex(Snapshot([obj]), DefinitionRegistry([LoadedDefinition(loaded, Location("draft.yaml"))]))
    tree = tree_of(view, obj).to_json()
    return {c["name"]: sum(int(i["desiredPods"]) for i in c.get("instances", [])) for c in tree["components"]}


def test_a_roles_replicas_multiply_the_size_of_its_groups() -> None:
    made = draft(ENSEMBLE)
    children = {c["name"]: c for c in made.karta["spec"]["structureDefinition"]["childComponents"]}
    assert children["group"]["scaleDefinition"]["replicasPath"] == (
        ".spec.roles[]? | (if .group == null then 0 else 1 end) * (.replicas // 1) * (.group.size // 1)"
    )
    assert children["member"]["scaleDefinition"]["replicasPath"] == (
        ".spec.roles[]? | (.replicas // 1) as $n0 | .parts.members[]? | $n0 * (.size // 1)"
    )
    template = {"spec": {"containers": [{"name": "c", "image": "i"}]}}
    ensemble = {
        "apiVersion": "example.com/v1",
        "kind": "Ensemble",
        "metadata": {"name": "e", "namespace": "ns", "uid": "u1"},
        "spec": {
            "roles": [
                {"name": "a", "replicas": 3, "group": {"size": 4, "template": template}},
                {"name": "b", "group": {"size": 2, "template": template}},
                {
                    "name": "c",
                    "replicas": 2,
                    "parts": {
                        "members": [{"name": "x", "size": 5, "template": template}, {"name": "y", "template": template}]
                    },
                },
            ]
        },
    }
    desired = _desired(made.text, ensemble)
    assert desired["group"] == 3 * 4 + 1 * 2
    assert desired["member"] == 2 * 5 + 2 * 1


def _sharded(replicas_description: str) -> dict[str, Any]:
    return crd(
        "example.com",
        "Scraper",
        {
            "shards": {"type": "integer", "description": "Number of shards to spread the targets over."},
            "replicas": {"type": "integer", "description": replicas_description},
            "template": TEMPLATE,
        },
    )


def test_replicas_of_each_shard_are_multiplied_by_the_shards() -> None:
    made = draft(_sharded("Number of replicas of each shard to deploy."))
    root = made.karta["spec"]["structureDefinition"]["rootComponent"]
    assert root["scaleDefinition"]["replicasPath"] == "(.spec.replicas // 1) * (.spec.shards // 1)"
    assert "x .spec.shards: the replicas run once per shard." in made.text
    scraper = {
        "apiVersion": "example.com/v1",
        "kind": "Scraper",
        "metadata": {"name": "s", "namespace": "ns", "uid": "u1"},
        "spec": {"shards": 3, "replicas": 2, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
    }
    assert _desired(made.text, scraper) == {"scraper": 6}
    # Shards the descriptions do not tie to the replicas (an index's shards, a scheduler's) multiply nothing.
    plain = draft(_sharded("Number of replicas."))
    root = plain.karta["spec"]["structureDefinition"]["rootComponent"]
    assert root["scaleDefinition"]["replicasPath"] == "(.spec.replicas // 1)"
