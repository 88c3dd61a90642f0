"""What a faithful lab capture of a scored kind would show, made from its expectations (``--simulate-recordings``).

Rounds 1 to 7 have no recordings. To develop the drafting from recordings on them all the same, each sample
object is given the capture its operator would leave if it did what the expectations say: per expected
component, one owner of the expected kind (a Deployment through a ReplicaSet), named after the object and the
role (the word its expected path reads most that no other component's reads: operators name their children
so) with the expected count as its
``replicas`` (a Job's ``parallelism``), and that many Ready pods whose containers are those of the expected pod
definition (the expected path read on the object), or one container of the operator's own when the
expectation says the operator composes the pod. The draft gets these as a recording (the objects as samples,
one state per sample object). This is an upper bound of what a real capture gives (a real one shows pods that
lag, restart and carry sidecars; the scored operator's own choices, not the expectations' words): it measures
the drafting's reading of a capture, not the capture.
"""

from __future__ import annotations

import re
from typing import Any

from workload_map.authoring import Sample
from workload_map.authoring.transitions import Moment
from workload_map.jq import JqError, compile_expression

NS = "simulated"
# Names of roles no expectation path names (an index or a hash would read as copies of one role).
ROLES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo")


def _meta(name: str, uid: str, owner: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "namespace": NS, "uid": uid}
    if owner is not None:
        meta = owner["metadata"]
        ref = {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": meta["name"], "uid": meta["uid"]}
        out["ownerReferences"] = [{**ref, "controller": True}]
    return out


def _containers(root: dict[str, Any], path: str | None, kind: str) -> list[dict[str, Any]]:
    """The expected pod definition's containers on the object, else one the operator composes."""
    if path is not None:
        try:
            found = compile_expression(path).first(root)
        except (JqError, ValueError):
            found = None
        if isinstance(found, dict):
            found = (found.get("spec") or {}).get("containers") if "spec" in found else found.get("containers")
        if isinstance(found, list) and found:
            return [{"name": str(c.get("name")), "image": str(c.get("image"))} for c in found if isinstance(c, dict)]
    return [{"name": kind.lower() or "main", "image": "operator-composed:1"}]


# Words of a path that name no role.
GENERIC = frozenset(
    {"spec", "template", "podTemplate", "component", "replicas", "replicaCount", "size", "enabled", "hpa"}
)


def _words(want: dict[str, Any]) -> list[str]:
    paths = re.sub(r'"[^"]*"', "", f"{want.get('template') or ''} {want.get('replicas') or ''}")  # not constants
    found = re.findall(r"\.([A-Za-z][A-Za-z0-9]*)", paths)
    return [w for w in found if w not in GENERIC and not w.startswith("replication")]


def _role(spec: dict[str, Any], index: int) -> str:
    """The role's name, as operators name their children after it: the word the expected pod definition or
    count reads most that no other component's reads (``.spec.pxc.size`` -> pxc), else a word of its own."""
    others = {w for i, want in enumerate(spec["components"]) if i != index for w in _words(want)}
    words = [w for w in _words(spec["components"][index]) if w not in others]
    return max(reversed(words), key=words.count).lower() if words else ROLES[index % len(ROLES)]


def _count(root: dict[str, Any], expression: str | None) -> int | None:
    if not expression:
        return None
    try:
        value = compile_expression(expression).first(root)
    except (JqError, ValueError):
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def capture(spec: dict[str, Any], roots: list[dict[str, Any]]) -> tuple[list[Sample], list[Moment]]:
    """Samples and moments of the simulated capture of every sample object (see the module's docstring)."""
    samples: list[Sample] = []
    moments: list[Moment] = []
    several = len(spec["components"]) > 1
    for run, original in enumerate(roots):
        root = {**original, "metadata": {**(original.get("metadata") or {})}}
        name = str(root["metadata"].get("name") or f"object{run}")
        root["metadata"].update(name=name, namespace=NS, uid=f"uid-root-{run}")
        objects: list[dict[str, Any]] = [root]
        for index, want in enumerate(spec["components"]):
            count = _count(root, want.get("replicas"))
            if not count:
                continue
            kind = want["owner"][0]
            containers = _containers(root, want.get("template"), kind)
            owner_name = f"{name}-{_role(spec, index)}" if several else name
            owner: dict[str, Any] = root
            if kind != "Pod":
                api = "batch/v1" if kind == "Job" else "apps/v1"
                key = "parallelism" if kind == "Job" else "replicas"
                owner = {
                    "apiVersion": api,
                    "kind": kind,
                    "metadata": _meta(owner_name, f"uid-{run}-{index}", root),
                    "spec": {key: count, "template": {"spec": {"containers": containers}}},
                }
                objects.append(owner)
                if kind == "Deployment":
                    owner = {
                        "apiVersion": "apps/v1",
                        "kind": "ReplicaSet",
                        "metadata": _meta(f"{owner_name}-5d8f7c9b4", f"uid-{run}-{index}-rs", owner),
                        "spec": {"replicas": count},
                    }
                    objects.append(owner)
            for number in range(count):
                objects.append(
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "metadata": _meta(f"{owner_name}-{number}", f"uid-{run}-{index}-{number}", owner),
                        "spec": {"containers": containers},
                        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
                    }
                )
        where = f"simulated capture of {name}"
        samples += [Sample(o, where) for o in objects[1:]]
        moments.append(
            Moment(
                0, "simulated", root, tuple(o for o in objects if o.get("kind") == "Pod"), run, tuple(objects), where
            )
        )
    return samples, moments
