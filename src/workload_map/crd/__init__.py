"""The ``kartas.run.ai`` CustomResourceDefinition, generated from the project's own pydantic model.

The JSON schema of the model's pydantic form (``workload_map.definition.schema``) is turned into a
*structural* OpenAPI v3 schema the API server accepts:

* every ``$ref`` is inlined (structural schemas have no references);
* ``anyOf: [X, null]`` (pydantic's optional fields) becomes ``X`` — optional means absent, and the API
  server prunes explicit nulls of non-nullable fields;
* ``additionalProperties: false`` is dropped: unknown fields are *pruned* by the API server, the
  structural-schema equivalent of "forbid" (the admission webhook rejects them loudly);
* ``title`` and ``default`` are dropped (defaults would be written into stored objects and make
  ``catalog diff`` report differences that only the API server introduced);
* ``metadata`` is an untyped object, ``status.conditions`` is a list of ``metav1.Condition`` keyed by
  ``type``, ``suspendActions[].value`` keeps any JSON value (``x-kubernetes-preserve-unknown-fields``).

On top of the OpenAPI types, CEL rules (``x-kubernetes-validations``) check what the API server can check
itself without the jq engine; everything else is checked by the operator's validating webhook with the
full validator (``workload_map.definition.validate``).

``python -m workload_map.manifests`` writes ``deploy/crd/kartas.run.ai.yaml`` and the Helm chart's copy.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

from workload_map.definition.schema import KARTA

GROUP = "run.ai"
VERSION = "v1alpha1"
KIND = "Karta"
PLURAL = "kartas"
SINGULAR = "karta"
SHORT_NAMES = ["krt"]
CRD_NAME = f"{PLURAL}.{GROUP}"

# Bounds that keep the CEL cost estimate of list-wide rules within the API server's budget.
MAX_COMPONENTS = 128
MAX_MATCHERS = 64
MAX_NAME_LENGTH = 253

_DROP = {"title", "default", "additionalProperties_false"}

Rule = dict[str, str]


def _rule(rule: str, message: str, field_path: str | None = None, reason: str | None = None) -> Rule:
    out = {"rule": rule, "message": message}
    if field_path:
        out["fieldPath"] = field_path
    if reason:
        out["reason"] = reason
    return out


# CEL rules per model ($defs name); applied wherever the model appears. Only what KAI Scheduler's Karta
# validator also refuses: what it accepts (a lone metadataPath, an expected condition with only a type)
# must be storable here too, so those are validator warnings, not rules.
_MODEL_RULES: dict[str, list[Rule]] = {
    "ComponentTypeSelector": [
        _rule(
            "has(self.keyPath) || (has(self.matchLabels) && size(self.matchLabels) > 0)",
            "componentTypeSelector needs keyPath or matchLabels",
        ),
        _rule("!has(self.value) || has(self.keyPath)", "componentTypeSelector.value requires keyPath"),
    ],
    "SpecDefinition": [
        _rule(
            "(has(self.podTemplateSpecPath) ? 1 : 0) + (has(self.podSpecPath) ? 1 : 0)"
            " + (has(self.fragmentedPodSpecDefinition) ? 1 : 0) <= 1",
            "specDefinition has more than one pod spec form (podTemplateSpecPath, podSpecPath, "
            "fragmentedPodSpecDefinition); keep exactly one",
        ),
    ],
    "ComponentDefinition": [
        _rule(
            "has(self.instanceIdPath) == (has(self.podSelector) && has(self.podSelector.componentInstanceSelector))",
            "instanceIdPath and podSelector.componentInstanceSelector go together: set both or neither",
        ),
    ],
    "SuspendDefinition": [],
}

_ROOT_RULES: list[Rule] = [
    _rule("has(self.kind)", "the root component needs a kind {group, version, kind}"),
    _rule(
        "!has(self.kind) || (self.kind.version != '' && self.kind.kind != '')",
        "the root kind needs a version and a kind",
    ),
    _rule(
        "!has(self.kind) || (has(self.kind.group) && self.kind.group != '') || self.kind.kind == 'Pod'",
        "the root kind needs a group (only core Pod has an empty group)",
    ),
    _rule("!has(self.ownerRef)", "the root component must not have an ownerRef"),
    _rule("has(self.statusDefinition)", "the root component needs a statusDefinition"),
]

_STRUCTURE_RULES: list[Rule] = [
    _rule(
        "!has(self.childComponents) || self.childComponents.all(c, c.name != self.rootComponent.name)",
        "component names must be unique: a child component has the root component's name",
    ),
    _rule(
        "!has(self.childComponents) || self.childComponents.all(c, has(c.ownerRef))",
        "every child component needs an ownerRef (its parent component's name)",
    ),
    _rule(
        "!has(self.childComponents) || self.childComponents.all(c, !has(c.ownerRef)"
        " || c.ownerRef == self.rootComponent.name || self.childComponents.exists(p, p.name == c.ownerRef))",
        "a child component's ownerRef names no component",
    ),
]

_GVK_RULES: list[Rule] = []

_CONDITION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "metav1.Condition",
    "required": ["type", "status", "lastTransitionTime", "reason", "message"],
    "properties": {
        "type": {
            "type": "string",
            "maxLength": 316,
            "pattern": (
                r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"
            ),
        },
        "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
        "observedGeneration": {"type": "integer", "format": "int64", "minimum": 0},
        "lastTransitionTime": {"type": "string", "format": "date-time"},
        "reason": {
            "type": "string",
            "maxLength": 1024,
            "minLength": 1,
            "pattern": r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
        },
        "message": {"type": "string", "maxLength": 32768},
    },
}


def _convert(node: Any, defs: dict[str, Any], def_name: str | None = None) -> Any:
    """Inline references and rewrite one JSON-schema node into its structural form."""
    if isinstance(node, list):
        return [_convert(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return _convert(defs[name], defs, name)
    any_of = node.get("anyOf")
    if any_of is not None:
        branches = [b for b in any_of if b != {"type": "null"}]
        if len(branches) == 1:
            merged = {k: v for k, v in node.items() if k != "anyOf"}
            return _convert({**branches[0], **{k: v for k, v in merged.items() if k == "description"}}, defs)
        raise ValueError(f"cannot express anyOf with several non-null branches structurally: {any_of}")
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("title", "default", "$defs"):
            continue
        if key == "additionalProperties":
            if value is False or value is True:
                continue
            out[key] = _convert(value, defs)
        elif key == "properties":
            out[key] = {name: _convert(sub, defs) for name, sub in value.items()}
        elif key == "items":
            out[key] = _convert(value, defs)
        else:
            out[key] = copy.deepcopy(value)
    if not out.get("type") and "properties" not in out and "items" not in out and "additionalProperties" not in out:
        # An untyped value (e.g. SuspendAction.value: any JSON): keep it verbatim.
        out = {"x-kubernetes-preserve-unknown-fields": True, **{k: v for k, v in out.items() if k == "description"}}
    if def_name and _MODEL_RULES.get(def_name):
        out["x-kubernetes-validations"] = copy.deepcopy(_MODEL_RULES[def_name])
    return out


def _walk_lists(node: Any) -> None:
    """Bound every list so list-wide CEL rules fit the API server's cost budget."""
    if isinstance(node, dict):
        if node.get("type") == "array" and "maxItems" not in node:
            node["maxItems"] = MAX_MATCHERS
        for value in node.values():
            _walk_lists(value)
    elif isinstance(node, list):
        for item in node:
            _walk_lists(item)


def openapi_schema() -> dict[str, Any]:
    """The structural OpenAPI v3 schema of the Karta object."""
    raw = KARTA.model_json_schema(by_alias=True)
    defs = raw.get("$defs", {})
    spec = _convert(defs["KartaSpec"], defs, "KartaSpec")

    structure = spec["properties"]["structureDefinition"]
    root = structure["properties"]["rootComponent"]
    root["x-kubernetes-validations"] = [*root.get("x-kubernetes-validations", []), *copy.deepcopy(_ROOT_RULES)]
    structure["x-kubernetes-validations"] = copy.deepcopy(_STRUCTURE_RULES)
    children = structure["properties"]["childComponents"]
    children["x-kubernetes-list-type"] = "map"
    children["x-kubernetes-list-map-keys"] = ["name"]
    children["maxItems"] = MAX_COMPONENTS
    _walk_lists(spec)
    # component names are short identifiers: make the O(n^2) ownerRef rule cheap to estimate
    for component in (root, children["items"]):
        component["properties"]["name"]["maxLength"] = MAX_NAME_LENGTH
        component["properties"]["name"]["minLength"] = 1
        component["properties"]["ownerRef"]["maxLength"] = MAX_NAME_LENGTH
        gvk = component["properties"]["kind"]["properties"]
        gvk["group"]["maxLength"] = MAX_NAME_LENGTH
        gvk["version"]["maxLength"] = 63
        gvk["kind"]["maxLength"] = 63

    return {
        "type": "object",
        "description": "A workload definition: how to read one kind of AI workload (components, pods, status, "
        "gang scheduling).",
        "required": ["spec"],
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": spec,
            "status": {
                "type": "object",
                "properties": {
                    "conditions": {
                        "type": "array",
                        "items": copy.deepcopy(_CONDITION_SCHEMA),
                        "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["type"],
                    },
                },
            },
        },
    }


def build_crd() -> dict[str, Any]:
    """The complete CustomResourceDefinition object."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": CRD_NAME,
            "labels": {"app.kubernetes.io/name": "workload-map", "app.kubernetes.io/component": "crd"},
        },
        "spec": {
            "group": GROUP,
            "scope": "Cluster",
            "names": {
                "kind": KIND,
                "listKind": f"{KIND}List",
                "plural": PLURAL,
                "singular": SINGULAR,
                "shortNames": list(SHORT_NAMES),
            },
            "versions": [
                {
                    "name": VERSION,
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "additionalPrinterColumns": [
                        {
                            "name": "Framework",
                            "type": "string",
                            "jsonPath": ".spec.structureDefinition.rootComponent.kind.kind",
                        },
                        {
                            "name": "Root Component",
                            "type": "string",
                            "jsonPath": ".spec.structureDefinition.rootComponent.name",
                        },
                        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                    ],
                    "schema": {"openAPIV3Schema": openapi_schema()},
                }
            ],
        },
    }


HEADER = (
    "# Generated by `python -m workload_map.manifests` from workload_map.definition.model; DO NOT EDIT.\n"
    "# Regenerate after changing the model: python -m workload_map.manifests\n"
)


def render_crd() -> str:
    """The CRD as the YAML committed to deploy/crd/kartas.run.ai.yaml."""
    return HEADER + yaml.safe_dump(build_crd(), sort_keys=False, width=120)


def render_chart_template() -> str:
    """The chart's CRD template: installed and upgraded with the release, never deleted on uninstall."""
    crd = build_crd()
    crd["metadata"]["annotations"] = {"helm.sh/resource-policy": "keep"}
    body = yaml.safe_dump(crd, sort_keys=False, width=120)
    if "{{" in body:
        raise ValueError("the CRD contains '{{' which Helm would read as a template action")
    return HEADER + "{{- if .Values.crds.install }}\n" + body + "{{- end }}\n"


__all__ = ["CRD_NAME", "GROUP", "KIND", "PLURAL", "VERSION", "build_crd", "openapi_schema", "render_crd"]
