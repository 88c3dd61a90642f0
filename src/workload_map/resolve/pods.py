"""Placing a workload's pods on its components, instances and replicas.

Ownership decides whether a pod belongs to the workload (done by the Snapshot); the definition's pod
selectors decide where inside the workload it goes. A pod that no selector claims is kept as
"unattributed" with the reason, never dropped.
"""

from __future__ import annotations

from typing import Any

from workload_map.base.model import Model, field
from workload_map.base.objects import meta, name_of, namespace_of
from workload_map.definition.gaps import TODO_MARK, selector_gap
from workload_map.definition.model import ComponentDefinition
from workload_map.jq import to_text
from workload_map.resolve.components import Component
from workload_map.resolve.evaluate import Diagnostics, run
from workload_map.resolve.resources import PodResources, json_number, pod_resources, to_json

# Container waiting reasons of a pod on its way up: not problems (docs/semantics.md, "Pod problems").
STARTING = frozenset({"ContainerCreating", "PodInitializing"})


class Termination(Model, kw_only=False):
    """How a container last ended (``lastState.terminated``, or ``state.terminated``): OOMKilled, Error."""

    container: str
    reason: str
    exit_code: int | None
    finished_at: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "container": self.container,
            "reason": self.reason,
            "exitCode": self.exit_code,
            "finishedAt": self.finished_at,
        }

    def text(self) -> str:
        code = f" (exit {self.exit_code})" if self.exit_code is not None else ""
        when = f" at {self.finished_at}" if self.finished_at else ""
        return f"{self.container}: {self.reason}{code}{when}"


class PodState(Model, frozen=False, kw_only=False):
    phase: str
    ready: bool
    pending_reason: str | None
    pending_message: str | None
    terminating: bool
    node: str | None
    restarts: int
    # What keeps the pod from running as asked, when something does (the one definition of a pod's problem,
    # docs/semantics.md "Pod problems"): a PodScheduled reason (Unschedulable), a container waiting reason
    # (CrashLoopBackOff, ImagePullBackOff, CreateContainerConfigError), a container's or the pod's
    # termination reason in a pod that did not succeed (OOMKilled, Error, Evicted).
    problem: str | None = None
    problem_message: str | None = None
    last_termination: Termination | None = None

    @property
    def failed(self) -> bool:
        return self.phase == "Failed"

    @property
    def pending(self) -> bool:
        return self.phase == "Pending"

    @property
    def active(self) -> bool:
        """Holds (or waits for) resources and counts towards a gang: not finished, not being deleted."""
        return self.phase not in ("Succeeded", "Failed") and not self.terminating


def _dicts(value: Any) -> list[dict[str, Any]]:
    """The mappings of a list field; anything else (a string, a number, a mapping) holds none. Objects
    from a dump or an API server with a broken webhook can carry any JSON where a list of objects goes."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def pod_state(pod: dict[str, Any]) -> PodState:
    status = _dict(pod.get("status"))
    spec = _dict(pod.get("spec"))
    phase = str(status.get("phase") or "Pending")
    by_type = {str(c.get("type")): c for c in _dicts(status.get("conditions"))}
    ready = _dict(by_type.get("Ready")).get("status") == "True"
    reason = message = None
    containers = _dicts(status.get("containerStatuses"))
    if phase == "Pending":
        scheduled = by_type.get("PodScheduled")
        if scheduled is not None and scheduled.get("status") == "False":
            reason = str(scheduled.get("reason") or "NotScheduled")
            message = scheduled.get("message")
        else:
            for container in containers:
                waiting = _dict(_dict(container.get("state")).get("waiting"))
                if waiting.get("reason"):
                    reason, message = str(waiting["reason"]), waiting.get("message")
                    break
    restarts = 0
    for container in containers:
        count = container.get("restartCount")
        if isinstance(count, int) and not isinstance(count, bool) and count > 0:
            restarts += count
    node = spec.get("nodeName")
    problem, problem_message = _problem(phase, status, containers, reason, message)
    return PodState(
        phase=phase,
        ready=ready,
        pending_reason=reason,
        pending_message=str(message) if message else None,
        terminating=bool(meta(pod).get("deletionTimestamp")),
        node=node if isinstance(node, str) and node else None,
        restarts=restarts,
        problem=problem,
        problem_message=str(problem_message) if problem_message else None,
        last_termination=_last_termination(containers),
    )


def _problem(
    phase: str, status: dict[str, Any], containers: list[dict[str, Any]], pending: str | None, message: Any
) -> tuple[str | None, Any]:
    """(reason, message) of what keeps the pod from running as asked; (None, None) for a healthy pod, one
    on its way up (ContainerCreating) or one that succeeded."""
    if phase == "Succeeded":
        return None, None
    if pending is not None and pending not in STARTING:
        return pending, message
    for container in containers:
        state = _dict(container.get("state"))
        waiting = _dict(state.get("waiting"))
        if waiting.get("reason") and waiting["reason"] not in STARTING:
            return str(waiting["reason"]), waiting.get("message")
        terminated = _dict(state.get("terminated"))
        if terminated.get("reason") and terminated["reason"] != "Completed" and terminated.get("exitCode") != 0:
            return str(terminated["reason"]), terminated.get("message")
    if phase == "Failed":
        return str(status.get("reason") or "Failed"), status.get("message")
    return None, None


def _last_termination(containers: list[dict[str, Any]]) -> Termination | None:
    """The latest end of a container that did not exit 0: what a restarting container died of."""
    ends = []
    for container in containers:
        for where in ("lastState", "state"):
            terminated = _dict(_dict(container.get(where)).get("terminated"))
            if terminated.get("reason") or terminated.get("exitCode"):
                code = terminated.get("exitCode")
                finished = terminated.get("finishedAt")
                ends.append(
                    Termination(
                        str(container.get("name") or ""),
                        str(terminated.get("reason") or "Error"),
                        code if isinstance(code, int) and not isinstance(code, bool) else None,
                        str(finished) if finished else None,
                    )
                )
    failed = [e for e in ends if e.exit_code != 0]
    return max(failed, key=lambda e: e.finished_at or "") if failed else None


class PlacedPod(Model, frozen=False, kw_only=False):
    obj: dict[str, Any]
    state: PodState
    resources: PodResources
    component: str | None = None
    instance: str | None = None
    replica: str | None = None
    unattributed_reason: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return name_of(self.obj)

    @property
    def namespace(self) -> str:
        return namespace_of(self.obj)

    def to_json(self) -> dict[str, Any]:
        """The pod as every JSON output shows it (the tree, gang plans, the API): docs/tree-json.md."""
        return {
            "name": self.name,
            "namespace": self.namespace,
            "component": self.component,
            "instance": self.instance,
            "replica": self.replica,
            "phase": self.state.phase,
            "ready": self.state.ready,
            "node": self.state.node,
            "restarts": self.state.restarts,
            "terminating": self.state.terminating,
            "pendingReason": self.state.pending_reason,
            "pendingMessage": self.state.pending_message,
            "problem": self.state.problem,
            "problemMessage": self.state.problem_message,
            "lastTermination": self.state.last_termination.to_json() if self.state.last_termination else None,
            "created": _timestamp(meta(self.obj).get("creationTimestamp")),
            "requests": to_json(self.resources.requests),
            "gpus": json_number(self.resources.gpus),
            "resourceClaims": self.resources.resource_claims,
        }


def _timestamp(value: Any) -> str | None:
    if value is None:
        return None
    return value.isoformat().replace("+00:00", "Z") if hasattr(value, "isoformat") else str(value)


def _first_text(
    expression: str, pod: Any, diagnostics: Diagnostics, path: tuple[str | int, ...]
) -> tuple[bool, str | None]:
    """(ok, text of the first output); ok is False when the expression failed (already reported)."""
    outputs, error = run(expression, pod)
    if error is not None:
        diagnostics.warn(f"pod {name_of(pod)}: selector failed: {error}", path, expression)
        return False, None
    if not outputs or outputs[0] is None:
        return True, None
    return True, to_text(outputs[0])


class PodPlacer:
    def __init__(self, components: dict[str, Component], diagnostics: Diagnostics) -> None:
        self.components = components
        self.diagnostics = diagnostics
        self.ordered = list(components.values())  # hierarchy order
        catch_all = [
            c for c in self.ordered if c.has_pods and not _has_direct_selector(c.definition) and c.error is None
        ]
        self.catch_all = catch_all[0] if len(catch_all) == 1 else None
        # A draft's selector left to do claims no pod: the pods it would claim are unattributed, and say why.
        gaps = [c.name for c in self.ordered if selector_gap(c.definition)]
        self.gaps = f" (the podSelector of {', '.join(gaps)} is left to do: {TODO_MARK})" if gaps else ""
        # The selectors of the components that can claim a pod, read once per workload, not once per pod.
        self._selectors = [_Selector(c) for c in self.ordered if c.error is None and _has_direct_selector(c.definition)]

    def _text(
        self, expression: str, pod: dict[str, Any], path: tuple[str | int, ...], texts: dict[str, str | None]
    ) -> tuple[bool, str | None]:
        """_first_text, once per expression and pod: the components of a workload often test the same key
        path with different values (a JobSet's replicated jobs: 13,287 of 56,832 evaluations at 1,000
        workloads). Failures are not remembered, so each is reported where it is, as before."""
        if expression in texts:
            return True, texts[expression]
        ok, text = _first_text(expression, pod, self.diagnostics, path)
        if ok:
            texts[expression] = text
        return ok, text

    def _matches(
        self, selector: _Selector, pod: dict[str, Any], texts: dict[str, str | None]
    ) -> tuple[bool, str | None]:
        """Whether the component's own selectors claim the pod, and the instance id they give."""
        if selector.labels:
            labels = meta(pod).get("labels")
            if not isinstance(labels, dict) or any(labels.get(k) != v for k, v in selector.labels):
                return False, None
        if selector.key_path is not None:
            ok, text = self._text(selector.key_path, pod, selector.key_path_at, texts)
            if not ok or text is None:
                return False, None
            if selector.value is not None and text != selector.value:
                return False, None
        instance_id = None
        if selector.id_path is not None:
            ok, instance_id = self._text(selector.id_path, pod, selector.id_path_at, texts)
            if not ok or instance_id is None or instance_id not in selector.instance_ids:
                return False, None
        return True, instance_id

    def _replica(self, component: Component, pod: dict[str, Any]) -> str | None:
        current: Component | None = component
        while current is not None:
            selector = current.definition.pod_selector
            if selector is not None and selector.replica_selector is not None:
                _, text = _first_text(
                    selector.replica_selector.key_path,
                    pod,
                    self.diagnostics,
                    (*current.path, "podSelector", "replicaSelector", "keyPath"),
                )
                return text
            current = self.components.get(current.parent) if current.parent else None
        return None

    def place(self, pod: dict[str, Any]) -> PlacedPod:
        spec = pod.get("spec")
        placed = PlacedPod(pod, pod_state(pod), pod_resources(spec if isinstance(spec, dict) else None))
        candidates: list[tuple[Component, str | None]] = []
        texts: dict[str, str | None] = {}
        for selector in self._selectors:
            ok, instance_id = self._matches(selector, pod, texts)
            if ok:
                candidates.append((selector.component, instance_id))
        chosen: tuple[Component, str | None] | None = None
        if candidates:
            deepest = max(c.depth for c, _ in candidates)
            at_depth = [c for c in candidates if c[0].depth == deepest]
            chosen = at_depth[0]
            if len(at_depth) > 1:
                names = ", ".join(c.name for c, _ in at_depth)
                placed.notes.append(f"selectors of {names} all match; placed on {chosen[0].name}")
        elif self.catch_all is not None:
            chosen = (self.catch_all, None)
        if chosen is None:
            placed.unattributed_reason = "no component's podSelector matches this pod" + self.gaps
            return placed
        component, instance_id = chosen
        if instance_id is None and len(component.instances) == 1:
            instance_id = component.instances[0].id
        elif instance_id is None and len(component.instances) != 1:
            placed.unattributed_reason = (
                f"component {component.name!r} has {len(component.instances)} instances and no "
                "componentInstanceSelector to choose one"
            )
            return placed
        placed.component, placed.instance = component.name, instance_id
        placed.replica = self._replica(component, pod)
        return placed


class _Selector:
    """What a component's podSelector tests of a pod (a component with a type or instance selector)."""

    def __init__(self, component: Component) -> None:
        selector = component.definition.pod_selector
        assert selector is not None
        self.component = component
        at = (*component.path, "podSelector")
        type_selector = selector.component_type_selector
        self.labels = tuple((type_selector.match_labels or {}).items()) if type_selector else ()
        self.key_path = type_selector.key_path if type_selector else None
        self.key_path_at = (*at, "componentTypeSelector", "keyPath")
        self.value = type_selector.value if type_selector else None
        instance_selector = selector.component_instance_selector
        self.id_path = instance_selector.id_path if instance_selector else None
        self.id_path_at = (*at, "componentInstanceSelector", "idPath")
        self.instance_ids = frozenset(component.instance_ids)


def _has_direct_selector(definition: ComponentDefinition) -> bool:
    selector = definition.pod_selector
    return selector is not None and (
        selector.component_type_selector is not None or selector.component_instance_selector is not None
    )
