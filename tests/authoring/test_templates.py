"""Pod definitions that are no role of their own: a list of named templates the roles refer to by name."""

from __future__ import annotations

from typing import Any

from workload_map.authoring import draft

from .fixtures import CONTAINERS, TEMPLATE, crd


def _named(extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "array",
        "items": {"type": "object", "properties": {"name": {"type": "string"}, "template": TEMPLATE, **extra}},
    }


def _children(spec: dict[str, Any]) -> list[str]:
    structure = draft(crd("example.com", "Troupe", spec)).karta["spec"]["structureDefinition"]
    return [str(next(iter(c["specDefinition"].values()))) for c in structure["childComponents"]]


def test_templates_referred_to_by_name_are_merged_into_the_roles() -> None:
    reference = {"type": "object", "properties": {"name": {"type": "string"}}}
    spec = {"stencils": _named({}), "roles": _named({"replicas": {"type": "integer"}, "stencilRef": reference})}
    assert _children(spec) == [".spec.roles[]?.template"]
    made = draft(crd("example.com", "Troupe", spec))
    assert ".spec.roles[].stencilRef" in made.text


def test_without_a_reference_both_lists_are_roles() -> None:
    spec = {"stencils": _named({}), "roles": _named({"replicas": {"type": "integer"}})}
    assert sorted(_children(spec)) == [".spec.roles[]?.template", ".spec.stencils[]?.template"]
    # A reference named after something else names no template list.
    other = {"type": "object", "properties": {"name": {"type": "string"}}}
    spec = {"stencils": _named({}), "roles": _named({"replicas": {"type": "integer"}, "secretRef": other})}
    assert len(_children(spec)) == 2


def test_a_reference_beside_the_template_in_the_roles_pattern() -> None:
    reference = {"type": "object", "properties": {"name": {"type": "string"}}}
    pattern = {"type": "object", "properties": {"template": TEMPLATE, "stencilRef": reference}}
    roles = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "replicas": {"type": "integer"}, "pattern": pattern},
        },
    }
    assert _children({"stencils": _named({}), "roles": roles}) == [".spec.roles[]?.pattern.template"]


def test_containers_described_as_overrides_make_no_pod() -> None:
    def runtimes(description: str) -> dict[str, Any]:
        containers = {**CONTAINERS, "description": description}
        item = {"type": "object", "properties": {"profileName": {"type": "string"}, "containers": containers}}
        return {"type": "array", "items": item}

    roles = _named({"replicas": {"type": "integer"}})
    overrides = {"roles": roles, "runtimes": runtimes("The runtime's containers to be overridden (command, args).")}
    assert _children(overrides) == [".spec.roles[]?.template"]
    own = {"roles": roles, "runtimes": runtimes("The runtime's containers.")}
    assert len(_children(own)) == 2


def test_templates_named_by_a_string_elsewhere_are_a_library_not_a_role() -> None:
    named_by = {"type": "object", "properties": {"podTemplate": {"type": "string"}}}
    shards = {"type": "array", "items": {"type": "object", "properties": {"settings": named_by}}}
    groups = {"type": "array", "items": {"type": "object", "properties": {"shards": shards}}}
    spec = {"podTemplates": _named({}), "groups": groups}
    made = draft(crd("example.com", "Troupe", spec))
    assert "childComponents" not in made.karta["spec"]["structureDefinition"]
    assert ".spec.podTemplates[].template (schema) is a list of named templates nothing counts" in made.text
    assert ".spec.groups[].shards[].settings.podTemplate: merged into the pods" in made.text
    # Beside a role that names one (``podTemplateName``), the role stays and the library goes.
    roles = _named({"replicas": {"type": "integer"}, "podTemplateName": {"type": "string"}})
    assert _children({"podTemplates": _named({}), "roles": roles}) == [".spec.roles[]?.template"]


def test_a_string_named_otherwise_or_a_list_not_named_as_templates_names_no_template() -> None:
    roles = _named({"replicas": {"type": "integer"}, "podTemplateMode": {"type": "string"}})
    assert len(_children({"podTemplates": _named({}), "roles": roles})) == 2
    # Components a command names by its string are still the components.
    commands = {"type": "array", "items": {"type": "object", "properties": {"component": {"type": "string"}}}}
    assert _children({"components": _named({}), "commands": commands}) == [".spec.components[]?.template"]
