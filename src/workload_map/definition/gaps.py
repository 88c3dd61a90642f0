"""Gaps: what a draft (``wmap definitions new``) could not infer, kept as one marked jq expression.

A gap is an ordinary expression that carries :data:`TODO_MARK` in a jq comment, e.g.
``empty  # TODO(wmap): the pod label ...``: every jq (libjq, gojq, ours) reads it, ``empty`` gives nothing,
which each field reads as "not there" (docs/definition-format.md, "Gaps in a draft"). Nothing in the
resolver depends on the mark; it only lets the validator list each gap once and the readers say why a pod
is unattributed or a template absent.
"""

from __future__ import annotations

from workload_map.definition.model import ComponentDefinition

TODO_MARK = "TODO(wmap)"


def is_gap(expression: str | None) -> bool:
    return expression is not None and TODO_MARK in expression


def template_gap(component: ComponentDefinition) -> bool:
    """Whether where the component's pods come from is left to do."""
    spec = component.spec_definition
    return spec is not None and (is_gap(spec.pod_template_spec_path) or is_gap(spec.pod_spec_path))


def selector_gap(component: ComponentDefinition) -> bool:
    """Whether which pods the component claims is left to do."""
    selector = component.pod_selector
    if selector is None:
        return False
    type_selector = selector.component_type_selector
    instance_selector = selector.component_instance_selector
    return (type_selector is not None and is_gap(type_selector.key_path)) or (
        instance_selector is not None and is_gap(instance_selector.id_path)
    )
