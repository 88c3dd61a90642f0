"""Workloads a shared constructor makes bare and each component's reconcile function fills in (``--api-source``;
gochildren.py lists them): ``deploy := newDeploymentWithSuffix("server", cr)`` gives a named, labelled shell,
then the function writes the pod's containers (``deploy.Spec.Template.Spec.Containers = []corev1.Container{
...}``, through an alias ``podSpec := &deploy.Spec.Template.Spec``, or a whole ``deploy.Spec = buildSpec(cr)``
holding them) and creates it. One constructor serves every component, so its literal has no count and no pod;
each function that composes a pod into what it returns is one workload of its own, its pod put together by the
code from scattered fields. A function that only reads or corrects such a shell (a status check, a rollout
restart, an update copying ``existing.Spec.Template.Spec.Containers = desired...``) composes nothing.
"""

from __future__ import annotations

from itertools import accumulate
from typing import TYPE_CHECKING

from workload_map.authoring.gofilled import COUNT_KEYS, _callee
from workload_map.authoring.gofuncs import GoFunc, _balanced, _statement

if TYPE_CHECKING:
    from workload_map.authoring.golocator import _Locator

POD_SPEC = ("Spec", ".", "Template", ".", "Spec")
CONTAINERS = "Containers"


def _pure_selector(value: list[str]) -> bool:
    """``other.Spec.Template.Spec.Containers``: a copy of another object's field, not a composition."""
    return bool(value) and all(t == "." if i % 2 else t.isidentifier() for i, t in enumerate(value))


def _pod_aliases(texts: list[str], variable: str) -> set[str]:
    """The names the function gives the workload's pod spec (``podSpec := &deploy.Spec.Template.Spec``)."""
    aliases: set[str] = set()
    tail = [variable, ".", *POD_SPEC]
    for index in range(len(texts) - len(tail) - 4):
        if texts[index + 1 : index + 4] == [":", "=", "&"] and texts[index + 4 : index + 4 + len(tail)] == tail:
            following = texts[index + 4 + len(tail) : index + 5 + len(tail)]
            if following != ["."]:
                aliases.add(texts[index])
    return aliases


def composes_pod(locator: _Locator, function: GoFunc, start: int) -> bool:
    """Whether ``function`` writes the containers of the workload it assigns at ``start`` (``v := ctor(...)``),
    in its own block (not under a condition): directly, through an alias of its pod spec, as a ``PodSpec``
    literal, or as a whole spec a helper of the repository builds with containers."""
    body = function.body
    texts = [t.text for t in body]
    variable = texts[start]
    holders: set[tuple[str, ...]] = {(variable, ".", *POD_SPEC, ".", CONTAINERS)} | {
        (a, ".", CONTAINERS) for a in _pod_aliases(texts, variable)
    }
    wholes: list[tuple[str, ...]] = [(variable, ".", *POD_SPEC), (variable, ".", "Spec")]
    depths = list(accumulate((int(t == "{") - int(t == "}") for t in texts), initial=0))
    for index in range(start + 1, len(texts) - 3):
        # A pod composed lists its containers whatever the object says; a write under a condition corrects one.
        if texts[index - 1] == "." or depths[index] != 0:
            continue
        for target in holders:
            end = index + len(target)
            if (
                tuple(texts[index:end]) == target
                and texts[end : end + 1] == ["="]
                and texts[end + 1 : end + 2] != ["="]
            ):
                value = [t.text for t in _statement(body, end + 1)]
                if not _pure_selector(value):
                    return True
        for target in wholes:
            end = index + len(target)
            if tuple(texts[index:end]) != target or texts[end : end + 1] != ["="] or texts[end + 1 : end + 2] == ["="]:
                continue
            if _literal_with_containers(texts, end + 1) or _helper_with_containers(locator, function, texts, end + 1):
                return True
    return False


def _literal_with_containers(texts: list[str], at: int) -> bool:
    """``corev1.PodSpec{Containers: ...}`` or ``appsv1.DeploymentSpec{Template: ... Containers: ...}`` at ``at``."""
    opening = next((i for i in range(at, min(at + 4, len(texts))) if texts[i] == "{"), None)
    if opening is None or not texts[opening - 1].endswith("Spec"):
        return False
    return CONTAINERS in texts[opening : _closing(texts, opening)]


def _closing(texts: list[str], opening: int) -> int:
    depth = 0
    for index in range(opening, len(texts)):
        depth += texts[index] in "([{"
        depth -= texts[index] in ")]}"
        if depth == 0:
            return index + 1
    return len(texts)


def _helper_with_containers(locator: _Locator, function: GoFunc, texts: list[str], at: int) -> bool:
    """``deploy.Spec = buildSpec(cr)``: a function of the repository returning a spec whose body lists
    containers (``Containers: []corev1.Container{...}``)."""
    callee = _callee(texts[at : at + 8])
    if callee is None:
        return False
    for helper in locator.callees(callee, function):
        helper_texts = [t.text for t in helper.body]
        if helper.result.lstrip("*").endswith("Spec") and any(
            text == CONTAINERS and helper_texts[i + 1 : i + 2] == [":"] for i, text in enumerate(helper_texts)
        ):
            return True
    return False


def writes_count(function: GoFunc, start: int) -> bool:
    """Whether the function writes a count of the workload assigned at ``start`` (``v.Spec.Replicas = ...``,
    directly or in a spec literal it assigns), however the value is computed."""
    body = function.body
    texts = [t.text for t in body]
    variable = texts[start]
    for index in range(start + 1, len(texts) - 4):
        if texts[index : index + 3] == [variable, ".", "Spec"] and texts[index - 1] != ".":
            if texts[index + 3 : index + 4] == ["."] and texts[index + 4] in COUNT_KEYS and texts[index + 5] == "=":
                return True
            if texts[index + 3 : index + 4] == ["="]:
                opening = next((i for i in range(index + 4, min(index + 8, len(texts))) if texts[i] == "{"), None)
                if opening is not None:
                    inside = texts[opening : _balanced(body, opening)]
                    if any(key in inside for key in COUNT_KEYS):
                        return True
    return False


def shell_filled(locator: _Locator, function: GoFunc, start: int) -> bool:
    """Whether the workload assigned at ``start`` comes from a call (``v := newShell(...)``, not an empty
    literal read into) and ``function`` composes its pod (``composes_pod``)."""
    texts = [t.text for t in function.body[start : start + 12]]
    return texts[1:3] == [":", "="] and _callee(texts[3:]) is not None and composes_pod(locator, function, start)
