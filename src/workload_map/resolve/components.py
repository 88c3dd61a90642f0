"""Components, their instances, replicas and pod templates, read from the workload object."""

from __future__ import annotations

from typing import Any

from workload_map.base.model import Model, field
from workload_map.definition.model import ComponentDefinition, Karta, wire_fields
from workload_map.jq import to_text
from workload_map.resolve.evaluate import Diagnostics, run_checked
from workload_map.resolve.templates import from_fragments, from_pod_spec, from_template


class Scale(Model, kw_only=False):
    replicas: int | None = None
    min_replicas: int | None = None
    max_replicas: int | None = None

    def to_json(self) -> dict[str, int | None]:
        return {"replicas": self.replicas, "min": self.min_replicas, "max": self.max_replicas}


class Instance(Model, frozen=False, kw_only=False):
    component: str
    id: str | None
    index: int
    scale: Scale = field(default_factory=Scale)
    template: dict[str, Any] | None = None
    desired_pods: int = 0


class Component(Model, frozen=False, kw_only=False):
    definition: ComponentDefinition
    path: tuple[str | int, ...]  # field path of the component in the definition
    parent: str | None
    depth: int
    instances: list[Instance] = field(default_factory=list)
    error: str | None = None

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def has_pods(self) -> bool:
        return self.definition.spec_definition is not None

    @property
    def instance_ids(self) -> list[str]:
        return [i.id for i in self.instances if i.id is not None]

    def instance(self, instance_id: str | None) -> Instance | None:
        for instance in self.instances:
            if instance.id == instance_id:
                return instance
        return None


def _as_count(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        raise ValueError
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        return int(value.strip())
    raise ValueError


class _Reader:
    """Evaluates one component's per-instance expressions with the alignment rule."""

    def __init__(self, component: Component, workload: Any, diagnostics: Diagnostics, count: int | None):
        self.component = component
        self.workload = workload
        self.diagnostics = diagnostics
        self.count = count  # None: single instance

    @property
    def size(self) -> int:
        return 1 if self.count is None else self.count

    def values(self, expression: str | None, *field_path: str | int, optional: bool = False) -> list[Any] | None:
        """One value per instance, or None when the expression fails or misaligns (already reported).

        ``optional``: no output at all for a single instance means unset (fragment paths, which the Go
        reference also reads as zero values when missing); nothing can be shifted with one instance.
        """
        if expression is None:
            return [None] * self.size
        path = (*self.component.path, *field_path)
        outputs = run_checked(expression, self.workload, self.diagnostics, path, ".".join(map(str, field_path)))
        if outputs is None:
            return None
        if optional and not outputs and self.size == 1:
            return [None]
        if self.count is None:
            if len(outputs) > 1:
                self.diagnostics.warn(
                    f"component {self.component.name!r}: expected one output, got {len(outputs)} "
                    "(add instanceIdPath if this component holds several pod definitions)",
                    path,
                    expression,
                )
                return None
            return outputs or [None]
        if len(outputs) != self.count:
            self.diagnostics.warn(
                f"component {self.component.name!r}: instanceIdPath gave {self.count} instance(s) but "
                f"{'.'.join(map(str, field_path))} gave {len(outputs)} output(s); values are not shifted "
                "between instances",
                path,
                expression,
            )
            return None
        return outputs


def _ids(component: Component, workload: Any, diagnostics: Diagnostics) -> list[str] | None:
    expression = component.definition.instance_id_path
    assert expression is not None
    path = (*component.path, "instanceIdPath")
    outputs = run_checked(expression, workload, diagnostics, path, "instanceIdPath")
    if outputs is None:
        return None
    ids = []
    for output in outputs:
        text = "" if output is None else to_text(output)
        if not text:
            diagnostics.warn(f"component {component.name!r}: instanceIdPath gave an empty id", path, expression)
            return None
        if text in ids:
            diagnostics.warn(f"component {component.name!r}: duplicate instance id {text!r}", path, expression)
            return None
        ids.append(text)
    return ids


def _scale_values(reader: _Reader, component: Component) -> list[Scale] | None:
    definition = component.definition.scale_definition
    n = reader.size
    if definition is None:
        return [Scale()] * n
    columns = []
    for field_name, expression in (
        ("replicasPath", definition.replicas_path),
        ("minReplicasPath", definition.min_replicas_path),
        ("maxReplicasPath", definition.max_replicas_path),
    ):
        values = reader.values(expression, "scaleDefinition", field_name)
        if values is None:
            values = [None] * n
        counts: list[int | None] = []
        for value in values:
            if value is None:
                counts.append(None)
                continue
            try:
                counts.append(_as_count(value))
            except ValueError:
                reader.diagnostics.warn(
                    f"component {component.name!r}: {field_name} gave {value!r}, not a number; treated as unset",
                    (*component.path, "scaleDefinition", field_name),
                    expression,
                )
                counts.append(None)
        columns.append(counts)
    return [Scale(r, lo, hi) for r, lo, hi in zip(*columns, strict=True)]


def _templates(reader: _Reader, component: Component) -> list[dict[str, Any] | None]:
    spec = component.definition.spec_definition
    n = reader.size
    if spec is None:
        return [None] * n
    if spec.pod_template_spec_path is not None:
        values = reader.values(spec.pod_template_spec_path, "specDefinition", "podTemplateSpecPath")
        return [from_template(v) for v in values] if values is not None else [None] * n
    if spec.pod_spec_path is not None:
        specs = reader.values(spec.pod_spec_path, "specDefinition", "podSpecPath")
        metas = reader.values(spec.metadata_path, "specDefinition", "metadataPath")
        if specs is None:
            return [None] * n
        metas = metas if metas is not None else [None] * n
        return [from_pod_spec(s, m) for s, m in zip(specs, metas, strict=True)]
    fragments = spec.fragmented_pod_spec_definition
    if fragments is None:
        return [None] * n
    per_field: dict[str, list[Any]] = {}
    for field_name, alias in wire_fields(fragments):
        expression = getattr(fragments, field_name)
        if expression is None:
            continue
        values = reader.values(expression, "specDefinition", "fragmentedPodSpecDefinition", alias, optional=True)
        per_field[field_name] = values if values is not None else [None] * n
    return [from_fragments(fragments, {name: column[i] for name, column in per_field.items()}) for i in range(n)]


def _component_paths(karta: Karta) -> list[tuple[ComponentDefinition, tuple[str | int, ...]]]:
    base: tuple[str | int, ...] = ("spec", "structureDefinition")
    out = [(karta.root, (*base, "rootComponent"))]
    for index, child in enumerate(karta.spec.structure_definition.child_components):
        out.append((child, (*base, "childComponents", index)))
    return out


def hierarchy_order(karta: Karta) -> list[tuple[ComponentDefinition, tuple[str | int, ...], int]]:
    """Components depth-first from the root (children in declaration order), with their depth.

    Components not reachable from the root (dangling or cyclic ownerRefs) are left out; the
    validator reports them.
    """
    paths = {c.name: p for c, p in _component_paths(karta)}
    ordered: list[tuple[ComponentDefinition, tuple[str | int, ...], int]] = []
    seen: set[str] = set()

    def visit(component: ComponentDefinition, depth: int) -> None:
        if component.name in seen:
            return
        seen.add(component.name)
        ordered.append((component, paths[component.name], depth))
        for child in karta.children_of(component.name):
            visit(child, depth + 1)

    visit(karta.root, 0)
    return ordered


def resolve_components(karta: Karta, workload: Any, diagnostics: Diagnostics) -> dict[str, Component]:
    components: dict[str, Component] = {}
    for definition, path, depth in hierarchy_order(karta):
        component = Component(definition, path, definition.owner_ref, depth)
        components[definition.name] = component
        count: int | None = None
        ids: list[str | None] = [None]
        if definition.instance_id_path is not None:
            found = _ids(component, workload, diagnostics)
            if found is None:
                component.error = "instance ids could not be resolved"
                continue
            count = len(found)
            ids = list(found)
        reader = _Reader(component, workload, diagnostics, count)
        scales = _scale_values(reader, component)
        templates = _templates(reader, component)
        if scales is None:
            scales = [Scale()] * len(ids)
        component.instances = [
            Instance(definition.name, instance_id, index, scale, template)
            for index, (instance_id, scale, template) in enumerate(zip(ids, scales, templates, strict=True))
        ]
    _desired_pods(components)
    return components


def _multiplier(components: dict[str, Component], component: Component, index: int) -> int:
    """Product of the ancestors' replicas for one instance (see docs/semantics.md)."""
    total = 1
    child_count = len(component.instances)
    parent_name = component.parent
    position = index
    while parent_name is not None and parent_name in components:
        parent = components[parent_name]
        if len(parent.instances) == 1:
            replicas = parent.instances[0].scale.replicas
            total *= 1 if replicas is None else replicas
        elif len(parent.instances) == child_count and child_count > 1:
            replicas = parent.instances[position].scale.replicas
            total *= 1 if replicas is None else replicas
        else:
            total *= sum(1 if i.scale.replicas is None else i.scale.replicas for i in parent.instances)
        child_count = len(parent.instances)
        parent_name = parent.parent
    return total


def _desired_pods(components: dict[str, Component]) -> None:
    for component in components.values():
        if not component.has_pods:
            continue
        for instance in component.instances:
            own = 1 if instance.scale.replicas is None else instance.scale.replicas
            instance.desired_pods = max(own, 0) * max(_multiplier(components, component, instance.index), 0)
