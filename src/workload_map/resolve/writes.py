"""Updating pod specs (and suspending or resuming) through the definition's own paths.

Writes go through the same jq paths that reads use, so any framework a definition describes can be
changed without framework code. A write is all or nothing: if any target is not a writable location,
names an absent instance, or would change the object's identity, nothing is written.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workload_map.definition.model import ComponentDefinition, Karta, SuspendAction
from workload_map.errors import WorkloadMapError
from workload_map.jq import JqError, compile_expression
from workload_map.resolve.components import hierarchy_order
from workload_map.resolve.evaluate import Diagnostics, run

Path = tuple[str | int, ...]

# Fields that name the object; a definition path that lands on them is refused.
_IDENTITY: tuple[Path, ...] = (
    ("apiVersion",),
    ("kind",),
    ("metadata", "name"),
    ("metadata", "namespace"),
    ("metadata", "uid"),
    ("metadata", "generateName"),
    ("metadata", "resourceVersion"),
    ("metadata", "ownerReferences"),
)


class WriteError(WorkloadMapError):
    """A requested change cannot be made; nothing was written."""


@dataclass
class PodSpecChange:
    """What to change in every targeted pod template. ``None`` leaves a field alone."""

    scheduler_name: str | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    priority_class_name: str | None = None
    resources: dict[str, Any] | None = None  # ResourceRequirements for ``container`` (default: the first)
    image: str | None = None  # for ``container`` (default: the first)
    container: str | None = None
    containers: list[dict[str, Any]] | None = None
    resource_claims: list[dict[str, Any]] | None = None
    pod_affinity: dict[str, Any] | None = None
    node_affinity: dict[str, Any] | None = None

    def is_empty(self) -> bool:
        return all(getattr(self, name) is None for name in self.__dataclass_fields__ if name != "container")


@dataclass
class WriteResult:
    obj: dict[str, Any]
    patch: dict[str, Any]
    changes: list[str] = field(default_factory=list)


def _format(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "."


def _paths(expression: str, obj: Any, what: str) -> list[Path]:
    try:
        found = compile_expression(expression).paths(obj)
    except JqError as exc:
        raise WriteError(f"{what}: {expression!r} does not address a writable location: {exc}") from None
    return [tuple(p) for p in found]


def _check_identity(path: Path) -> None:
    for protected in _IDENTITY:
        if path[: len(protected)] == protected:
            raise WriteError(f"refusing to write {_format(path)}: it is part of the object's identity")


def _get(obj: Any, path: Path) -> Any:
    node = obj
    for part in path:
        if isinstance(part, int):
            if not isinstance(node, list) or not -len(node) <= part < len(node):
                return None
            node = node[part]
        else:
            if not isinstance(node, dict):
                return None
            node = node.get(part)
    return node


def _set(obj: dict[str, Any], path: Path, value: Any) -> None:
    _check_identity(path)
    if not path:
        raise WriteError("refusing to replace the whole object")
    node: Any = obj
    for index, part in enumerate(path[:-1]):
        following = path[index + 1]
        if isinstance(part, int):
            if not isinstance(node, list) or not -len(node) <= part < len(node):
                raise WriteError(f"cannot write {_format(path)}: {_format(path[: index + 1])} does not exist")
            if node[part] is None:
                node[part] = [] if isinstance(following, int) else {}
            node = node[part]
            continue
        if not isinstance(node, dict):
            raise WriteError(f"cannot write {_format(path)}: {_format(path[:index])} is not an object")
        if node.get(part) is None:
            if isinstance(following, int):
                raise WriteError(f"cannot write {_format(path)}: list {_format(path[: index + 1])} does not exist")
            node[part] = {}
        node = node[part]
    last = path[-1]
    if isinstance(last, int):
        if not isinstance(node, list) or not -len(node) <= last < len(node):
            raise WriteError(f"cannot write {_format(path)}: index out of range")
        node[last] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise WriteError(f"cannot write {_format(path)}: {_format(path[:-1])} is not an object")


def merge_patch(old: Any, new: Any) -> Any:
    """The RFC 7386 JSON merge patch that turns ``old`` into ``new``."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return copy.deepcopy(new)
    patch: dict[str, Any] = {}
    for key in old.keys() - new.keys():
        patch[key] = None
    for key, value in new.items():
        if key not in old:
            patch[key] = copy.deepcopy(value)
        elif old[key] != value:
            patch[key] = merge_patch(old[key], value)
    return patch


@dataclass
class _Target:
    """Where one instance's pod fields live in the object."""

    component: str
    instance: str | None
    template: Path | None = None  # a PodTemplateSpec
    spec: Path | None = None  # a PodSpec
    metadata: Path | None = None
    fragments: dict[str, Path] = field(default_factory=dict)


def _instance_ids(component: ComponentDefinition, obj: Any) -> list[str | None]:
    if component.instance_id_path is None:
        return [None]
    outputs, error = run(component.instance_id_path, obj)
    if error is not None:
        raise WriteError(f"component {component.name!r}: instanceIdPath failed: {error}")
    from workload_map.jq import to_text

    return [to_text(o) for o in outputs]


def _aligned(expression: str, obj: Any, count: int, what: str) -> list[Path]:
    paths = _paths(expression, obj, what)
    if len(paths) != count:
        raise WriteError(
            f"{what}: expected {count} location(s), one per instance, but {expression!r} gave {len(paths)}"
        )
    return paths


def _targets(component: ComponentDefinition, obj: Any) -> list[_Target]:
    spec = component.spec_definition
    if spec is None:
        return []
    ids = _instance_ids(component, obj)
    n = len(ids)
    targets = [_Target(component.name, i) for i in ids]
    name = component.name
    if spec.pod_template_spec_path is not None:
        for target, path in zip(
            targets, _aligned(spec.pod_template_spec_path, obj, n, f"{name}.podTemplateSpecPath"), strict=True
        ):
            target.template = path
    elif spec.pod_spec_path is not None:
        for target, path in zip(targets, _aligned(spec.pod_spec_path, obj, n, f"{name}.podSpecPath"), strict=True):
            target.spec = path
        if spec.metadata_path is not None:
            metas = _aligned(spec.metadata_path, obj, n, f"{name}.metadataPath")
            for target, path in zip(targets, metas, strict=True):
                target.metadata = path
    elif spec.fragmented_pod_spec_definition is not None:
        fragments = spec.fragmented_pod_spec_definition
        for field_name, info in type(fragments).model_fields.items():
            expression = getattr(fragments, field_name)
            if expression is None:
                continue
            paths = _aligned(expression, obj, n, f"{name}.{info.alias or field_name}")
            for target, path in zip(targets, paths, strict=True):
                target.fragments[field_name] = path
    return targets


def _container_index(obj: Any, containers_path: Path, wanted: str | None) -> int:
    containers = _get(obj, containers_path)
    if not isinstance(containers, list) or not containers:
        raise WriteError(f"no containers at {_format(containers_path)}")
    if wanted is None:
        return 0
    for index, container in enumerate(containers):
        if isinstance(container, dict) and container.get("name") == wanted:
            return index
    raise WriteError(f"no container named {wanted!r} at {_format(containers_path)}")


def _writes_for(target: _Target, obj: Any, change: PodSpecChange) -> list[tuple[Path, Any]]:
    """(path, value) pairs for one target; raises WriteError when a field has no route."""
    writes: list[tuple[Path, Any]] = []
    where = f"component {target.component!r}" + (f" instance {target.instance!r}" if target.instance else "")

    def unsupported(what: str) -> WriteError:
        return WriteError(f"{where}: the definition gives no path to write {what}")

    spec_path: Path | None = None
    meta_path: Path | None = None
    if target.template is not None:
        spec_path, meta_path = (*target.template, "spec"), (*target.template, "metadata")
    elif target.spec is not None:
        spec_path, meta_path = target.spec, target.metadata
    frag = target.fragments

    def field_path(key: str, in_spec: tuple[str, ...]) -> Path:
        if key in frag:
            return frag[key]
        if spec_path is not None:
            return (*spec_path, *in_spec)
        raise unsupported(in_spec[-1])

    if change.scheduler_name is not None:
        writes.append((field_path("scheduler_name_path", ("schedulerName",)), change.scheduler_name))
    if change.priority_class_name is not None:
        writes.append((field_path("priority_class_name_path", ("priorityClassName",)), change.priority_class_name))
    if change.resource_claims is not None:
        writes.append((field_path("resource_claims_path", ("resourceClaims",)), change.resource_claims))
    if change.pod_affinity is not None:
        writes.append((field_path("pod_affinity_path", ("affinity", "podAffinity")), change.pod_affinity))
    if change.node_affinity is not None:
        writes.append((field_path("node_affinity_path", ("affinity", "nodeAffinity")), change.node_affinity))
    for attr, key, name in (("labels", "labels_path", "labels"), ("annotations", "annotations_path", "annotations")):
        values: dict[str, str] | None = getattr(change, attr)
        if values is None:
            continue
        if key in frag:
            base = frag[key]
        elif meta_path is not None:
            base = (*meta_path, name)
        else:
            raise unsupported(f"{name} (no metadataPath)")
        writes.extend(((*base, k), v) for k, v in values.items())
    if change.containers is not None:
        if "containers_path" in frag:
            writes.append((frag["containers_path"], change.containers))
        elif spec_path is not None:
            writes.append(((*spec_path, "containers"), change.containers))
        else:
            raise unsupported("containers")
    for attr, key, name in (("image", "image_path", "image"), ("resources", "resources_path", "resources")):
        value = getattr(change, attr)
        if value is None:
            continue
        if key in frag and change.container is None:
            writes.append((frag[key], value))
        elif "container_path" in frag:
            writes.append(((*frag["container_path"], name), value))
        elif "containers_path" in frag or spec_path is not None:
            base = frag.get("containers_path") or (*(spec_path or ()), "containers")
            writes.append(((*base, _container_index(obj, base, change.container), name), value))
        else:
            raise unsupported(name)
    return writes


def update_pod_specs(
    karta: Karta,
    obj: dict[str, Any],
    change: PodSpecChange,
    *,
    component: str | None = None,
    instance: str | None = None,
) -> WriteResult:
    """Apply ``change`` to every pod template (or one component / instance); all or nothing."""
    if change.is_empty():
        raise WriteError("nothing to change")
    components = [d for d, _, _ in hierarchy_order(karta) if d.spec_definition is not None]
    if component is not None:
        components = [c for c in components if c.name == component]
        if not components:
            known = ", ".join(d.name for d, _, _ in hierarchy_order(karta) if d.spec_definition is not None)
            raise WriteError(f"no pod-producing component named {component!r} (known: {known})")
    targets = [t for c in components for t in _targets(c, obj)]
    if instance is not None:
        targets = [t for t in targets if t.instance == instance]
        if not targets:
            raise WriteError(f"no instance {instance!r}" + (f" in component {component!r}" if component else ""))
    if not targets:
        raise WriteError("the definition has no pod templates to update")
    writes = [w for t in targets for w in _writes_for(t, obj, change)]
    return _apply(obj, writes)


def _apply(obj: dict[str, Any], writes: Sequence[tuple[Path, Any]]) -> WriteResult:
    new = copy.deepcopy(obj)
    changes = []
    for path, value in writes:
        before = _get(new, path)
        _set(new, path, copy.deepcopy(value))
        if before != value:
            changes.append(f"{_format(path)}: {before!r} -> {value!r}")
    return WriteResult(new, merge_patch(obj, new), changes)


def _actions(karta: Karta, suspend: bool) -> list[SuspendAction]:
    for definition, _, _ in hierarchy_order(karta):
        if definition.suspend_definition is not None:
            d = definition.suspend_definition
            return d.suspend_actions if suspend else d.resume_actions
    kind = karta.root.kind.kind if karta.root.kind else karta.name
    raise WriteError(f"{kind} has no suspendDefinition: the definition does not support suspend/resume")


def set_suspended(karta: Karta, obj: dict[str, Any], suspended: bool) -> WriteResult:
    """Suspend or resume through the definition's ``suspendDefinition``."""
    writes: list[tuple[Path, Any]] = []
    for action in _actions(karta, suspended):
        for path in _paths(action.path, obj, "suspendDefinition path"):
            writes.append((path, action.decoded_value))
    return _apply(obj, writes)


__all__ = [
    "Diagnostics",
    "PodSpecChange",
    "WriteError",
    "WriteResult",
    "merge_patch",
    "set_suspended",
    "update_pod_specs",
]
