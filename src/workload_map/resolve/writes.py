"""Updating pod specs (and suspending or resuming) through the definition's own paths.

Writes go through the same jq paths that reads use, so any framework a definition describes can be
changed without framework code: the locations are ``path(EXPR)`` of each spec path (which must be a
jq path expression; ``workload_map.definition.writable`` reports those that are not). A write is all or
nothing: if any target is not a writable location, names an absent instance, or would change the
object's identity, nothing is written.

The one entry point for callers is ``update_workload`` (the CLI's ``wmap update`` and the library use
it); ``update_pod_specs`` and ``set_suspended`` are its two halves.

    >>> from workload_map.catalog import builtin_definitions
    >>> jobset = next(d.karta for d in builtin_definitions() if d.name == "jobset-x-k8s-io-jobset-v1alpha2")
    >>> obj = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "t"},
    ...        "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": {"spec": {}}}}}]}}
    >>> result = update_workload(jobset, obj, change=PodSpecChange(scheduler_name="kai-scheduler"), suspend=True)
    >>> result.patch["spec"]["suspend"], result.changes[0]
    (True, "spec.replicatedJobs[0].template.spec.template.spec.schedulerName: None -> 'kai-scheduler'")
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from workload_map.base.model import Model, field
from workload_map.definition.gaps import TODO_MARK, template_gap
from workload_map.definition.model import ComponentDefinition, Karta, SuspendAction, wire_fields
from workload_map.errors import WorkloadMapError
from workload_map.jq import JqError, compile_expression, to_text
from workload_map.jq.pathexpr import path_problem
from workload_map.resolve.components import hierarchy_order
from workload_map.resolve.evaluate import run
from workload_map.resolve.kube_values import change_problems

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


class PodSpecChange(Model, frozen=False, kw_only=False):
    """What to change in every targeted pod template. ``None`` leaves a field alone.

    Maps are merged entry by entry (``labels``, ``annotations``, ``node_selector``, and the
    ``requests``/``limits`` of ``resources``, as ``kubectl label`` / ``kubectl set resources`` do);
    every other field replaces the value at its location.
    """

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
    tolerations: list[dict[str, Any]] | None = None  # PodTemplateSpec / PodSpec forms only: the format
    node_selector: dict[str, str] | None = None  # has no fragment paths for these two

    def is_empty(self) -> bool:
        return all(getattr(self, name) is None for name in self.FIELDS if name != "container")

    def problems(self) -> list[tuple[str, str, str]]:
        """``(field, value, why)`` for each value Kubernetes would refuse (a label key or value, an
        annotation key, a resource name or quantity, a scheduler or priority class name, an image with
        spaces around it); ``field`` is the attribute, ``requests`` or ``limits`` for ``resources``."""

        return change_problems(self)


class WriteResult(Model, frozen=False, kw_only=False):
    obj: dict[str, Any]
    patch: dict[str, Any]
    changes: list[str] = field(default_factory=list)
    # Pod templates left alone because the object has none for them (the operator's default pod, e.g. a
    # RayJob's submitter without submitterPodTemplate), one line each.
    skipped: list[str] = field(default_factory=list)
    # Instances outside a --component/--instance update that read a location it wrote (an LWS leader without
    # a template of its own, Flink's common pod template, Tekton's taskRunTemplate), one line each: their pods
    # change too.
    also_changed: list[str] = field(default_factory=list)


def _format(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "."


def _paths(expression: str, obj: Any, what: str) -> list[Path]:
    try:
        problem = path_problem(expression)
        found = compile_expression(expression).paths(obj) if problem is None else None
    except JqError as exc:
        raise WriteError(f"{what}: {expression!r} does not address a writable location: {exc}") from None
    if found is None:
        raise WriteError(
            f"{what}: {expression!r} does not address a writable location: it is not a jq path expression ({problem})"
        )
    paths = [tuple(p) for p in found]
    for path in paths:
        if any(not isinstance(part, (str, int)) for part in path):
            raise WriteError(f"{what}: {expression!r} addresses a slice, not a location that can be written")
    return paths


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
    if value is None and isinstance(path[-1], str):
        # null removes a key, as the JSON merge patch we send does on the server (Notebook's resume
        # deletes its stop annotation); nothing to remove where the parent is absent.
        parent = _get(obj, path[:-1])
        if isinstance(parent, dict):
            parent.pop(path[-1], None)
        return
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


class _Target(Model, frozen=False, kw_only=False):
    """Where one instance's pod fields live in the object."""

    component: str
    instance: str | None
    template: Path | None = None  # a PodTemplateSpec
    spec: Path | None = None  # a PodSpec
    metadata: Path | None = None
    fragments: dict[str, Path] = field(default_factory=dict)
    # fragment fields that cannot be written for this instance, and why (not a path expression, or no
    # location in this object); an error only when a change needs them
    unwritable: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"component {self.component!r}" + (f" instance {self.instance!r}" if self.instance else "")

    @property
    def absent(self) -> bool:
        """The object holds no pod fields for this instance (reads give no template either)."""
        return self.template is None and self.spec is None and self.metadata is None and not self.fragments


def _instance_ids(component: ComponentDefinition, obj: Any) -> list[str | None]:
    if component.instance_id_path is None:
        return [None]
    outputs, error = run(component.instance_id_path, obj)
    if error is not None:
        raise WriteError(f"component {component.name!r}: instanceIdPath failed: {error}")
    return [to_text(o) for o in outputs]


def _aligned(expression: str, obj: Any, count: int, what: str) -> list[Path | None]:
    """One location per instance; a single instance may have none (the object does not hold it, as reads
    give no value then), more or fewer is a misalignment."""
    paths = _paths(expression, obj, what)
    if count == 1 and not paths:
        return [None]
    if len(paths) != count:
        raise WriteError(
            f"{what}: expected {count} location(s), one per instance, but {expression!r} gave {len(paths)}"
        )
    return list(paths)


def _targets(component: ComponentDefinition, obj: Any) -> list[_Target]:
    spec = component.spec_definition
    if spec is None:
        return []
    ids = _instance_ids(component, obj)
    n = len(ids)
    if n == 0:
        return []
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
        for field_name, alias in wire_fields(fragments):
            expression = getattr(fragments, field_name)
            if expression is None:
                continue
            what = f"{name}.{alias}"
            try:
                paths = _aligned(expression, obj, n, what)
            except WriteError as exc:
                for target in targets:
                    target.unwritable[field_name] = exc.message
                continue
            for target, path in zip(targets, paths, strict=True):
                if path is None:
                    target.unwritable[field_name] = f"{what}: {expression!r} addresses no location in this object"
                else:
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

    def unsupported(what: str, key: str | None = None) -> WriteError:
        if key is not None and key in target.unwritable:
            return WriteError(f"{target.where}: cannot write {what}: {target.unwritable[key]}")
        return WriteError(f"{target.where}: the definition gives no path to write {what}")

    spec_path: Path | None = None
    meta_path: Path | None = None
    if target.template is not None:
        spec_path, meta_path = (*target.template, "spec"), (*target.template, "metadata")
    elif target.spec is not None:
        spec_path, meta_path = target.spec, target.metadata
    frag = target.fragments

    def field_path(key: str | None, in_spec: tuple[str, ...]) -> Path:
        if key is not None and key in frag:
            return frag[key]
        if spec_path is not None:
            return (*spec_path, *in_spec)
        raise unsupported(in_spec[-1] + ("" if key else " (the fragmented form has no path for it)"), key)

    for value, key, in_spec in (
        (change.scheduler_name, "scheduler_name_path", ("schedulerName",)),
        (change.priority_class_name, "priority_class_name_path", ("priorityClassName",)),
        (change.resource_claims, "resource_claims_path", ("resourceClaims",)),
        (change.pod_affinity, "pod_affinity_path", ("affinity", "podAffinity")),
        (change.node_affinity, "node_affinity_path", ("affinity", "nodeAffinity")),
        (change.tolerations, None, ("tolerations",)),
    ):
        if value is not None:
            writes.append((field_path(key, in_spec), value))
    if change.node_selector is not None:
        base = field_path(None, ("nodeSelector",))
        writes.extend(((*base, k), v) for k, v in change.node_selector.items())
    for attr, key, name in (("labels", "labels_path", "labels"), ("annotations", "annotations_path", "annotations")):
        values: dict[str, str] | None = getattr(change, attr)
        if values is None:
            continue
        if key in frag:
            base = frag[key]
        elif meta_path is not None:
            base = (*meta_path, name)
        else:
            raise unsupported(name if frag or target.unwritable else f"{name} (no metadataPath)", key)
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
            location = frag[key]
        elif "container_path" in frag and change.container is None:
            location = (*frag["container_path"], name)
        elif "containers_path" in frag or spec_path is not None:
            base = frag.get("containers_path") or (*(spec_path or ()), "containers")
            location = (*base, _container_index(obj, base, change.container), name)
        else:
            raise unsupported(name, key)
        writes.extend(_resource_writes(location, value) if name == "resources" else [(location, value)])
    return writes


def _resource_writes(location: Path, resources: dict[str, Any]) -> list[tuple[Path, Any]]:
    """``requests``/``limits`` entry by entry (the container keeps the others); other keys replaced."""
    writes: list[tuple[Path, Any]] = []
    for key, value in resources.items():
        if key in ("requests", "limits") and isinstance(value, dict):
            writes.extend(((*location, key, name), quantity) for name, quantity in value.items())
        else:
            writes.append(((*location, key), value))
    return writes


def update_pod_specs(
    karta: Karta,
    obj: dict[str, Any],
    change: PodSpecChange,
    *,
    component: str | None = None,
    instance: str | None = None,
) -> WriteResult:
    """Apply ``change`` to every pod template (or one component / instance); all or nothing.

    Instances whose pod fields the object does not hold (the operator's default pod) are left alone
    and listed in ``WriteResult.skipped``; naming one with ``component``/``instance`` is an error.
    """
    if change.is_empty():
        raise WriteError("nothing to change")
    producing = [d for d, _, _ in hierarchy_order(karta) if d.spec_definition is not None]
    components = producing
    if component is not None:
        components = [c for c in components if c.name == component]
        if not components:
            known = ", ".join(d.name for d in producing)
            raise WriteError(f"no pod-producing component named {component!r} (known: {known})")
    targets = [t for c in components for t in _targets(c, obj)]
    if instance is not None:
        targets = [t for t in targets if t.instance == instance]
        if not targets:
            raise WriteError(f"no instance {instance!r}" + (f" in component {component!r}" if component else ""))
    present = [t for t in targets if not t.absent]
    gaps = {c.name for c in components if template_gap(c)}
    skipped = [
        f"{t.where}: "
        + (
            f"where its pods come from is left to do in the definition ({TODO_MARK})"
            if t.component in gaps
            else "the object holds no pod template for it (the operator's default pod)"
        )
        for t in targets
        if t.absent
    ]
    if not present:
        if targets and (component is not None or instance is not None):
            raise WriteError(skipped[0])
        if gaps and skipped:
            raise WriteError(f"nothing to update: {'; '.join(skipped)}")
        raise WriteError("the object holds no pod templates to update")
    writes: list[tuple[Path, Any]] = []
    wheres: list[str] = []
    problems: list[str] = []
    for target in present:
        try:
            found = _writes_for(target, obj, change)
        except WriteError as exc:
            problems.append(exc.message)
            continue
        writes.extend(found)
        wheres.extend([target.where] * len(found))
    if problems:
        hint = "" if component is not None else " (limit the update with --component to the others)"
        raise WriteError("; ".join(problems) + (hint if len(problems) < len(present) else ""))
    result = _apply(obj, writes, wheres)
    result.skipped = skipped
    if component is not None or instance is not None:
        result.also_changed = _sharing(karta, obj, change, present, {path for path, _ in writes})
    return result


def _sharing(karta: Karta, obj: Any, change: PodSpecChange, chosen: list[_Target], written: set[Path]) -> list[str]:
    """A line for each instance left out of the update whose own writes would land on a written location."""
    names = {(t.component, t.instance) for t in chosen}
    lines = []
    for definition, _, _ in hierarchy_order(karta):
        try:
            others = _targets(definition, obj)
        except WriteError:
            continue
        for other in others:
            if other.absent or (other.component, other.instance) in names:
                continue
            try:
                theirs = _writes_for(other, obj, change)
            except WriteError:
                continue
            shared = sorted({_format(path) for path, _ in theirs if path in written})
            if shared:
                lines.append(f"{other.where} reads the same location, so its pods change too: {', '.join(shared)}")
    return lines


def _apply(obj: dict[str, Any], writes: Sequence[tuple[Path, Any]], wheres: Sequence[str] = ()) -> WriteResult:
    """``writes`` applied to a copy of ``obj``; ``wheres`` names, per write, the instance an error is about."""
    new = copy.deepcopy(obj)
    changes = []
    for index, (path, value) in enumerate(writes):
        before = _get(new, path)
        try:
            _set(new, path, copy.deepcopy(value))
        except WriteError as exc:
            if index < len(wheres):
                raise WriteError(f"{wheres[index]}: {exc.message}") from None
            raise
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


def update_workload(
    karta: Karta,
    obj: dict[str, Any],
    *,
    change: PodSpecChange | None = None,
    suspend: bool | None = None,
    component: str | None = None,
    instance: str | None = None,
) -> WriteResult:
    """Change pod-template fields (``change``, limited to ``component``/``instance``) and/or suspend
    (``suspend=True``) or resume (``False``) one workload object; all or nothing.

    The result holds the new object, the RFC 7386 merge patch from ``obj`` to it (what ``wmap update``
    sends, with the object's resourceVersion as precondition), a line per changed location, and the
    templates left alone. ``obj`` is not modified.
    """
    if (change is None or change.is_empty()) and suspend is None:
        raise WriteError("nothing to change")
    for field_name, value, why in change.problems() if change is not None else ():
        raise WriteError(f"invalid {field_name} {value!r}: {why}")
    current, changes, skipped, also = obj, [], [], []
    if change is not None and not change.is_empty():
        pods = update_pod_specs(karta, current, change, component=component, instance=instance)
        current, changes, skipped, also = pods.obj, pods.changes, pods.skipped, pods.also_changed
    if suspend is not None:
        suspension = set_suspended(karta, current, suspend)
        current, changes = suspension.obj, [*changes, *suspension.changes]
    return WriteResult(current, merge_patch(obj, current), changes, skipped, also)


__all__ = [
    "PodSpecChange",
    "WriteError",
    "WriteResult",
    "merge_patch",
    "set_suspended",
    "update_pod_specs",
    "update_workload",
]
