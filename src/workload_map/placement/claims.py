"""A pod template's node claim (nodeSelector, tolerations, required node affinity) and whether a node meets it.

The rules are the scheduler's NodeAffinity and TaintToleration filters: every nodeSelector label equal;
the required affinity's ``nodeSelectorTerms`` ORed, each term's expressions ANDed (a term with none
matches nothing); a NoSchedule or NoExecute taint blocks the pod unless a toleration matches it
(PreferNoSchedule never blocks). Field names follow Karmada's ``NodeClaim`` (docs/placement.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workload_map.base.objects import Obj

BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


def taints_of(node: Mapping[str, Any]) -> list[Taint]:
    spec = node.get("spec")
    raw = spec.get("taints") if isinstance(spec, Mapping) else None
    out = []
    for taint in raw if isinstance(raw, list) else []:
        if isinstance(taint, Mapping) and taint.get("key"):
            out.append(Taint(str(taint["key"]), str(taint.get("value") or ""), str(taint.get("effect") or "")))
    return out


def tolerates(toleration: Mapping[str, Any], taint: Taint) -> bool:
    """Kubernetes' Toleration.ToleratesTaint: effect (empty = all), key (empty with Exists = all), value."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.effect:
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if key and key != taint.key:
        return False
    if operator == "Exists":
        return True
    if operator != "Equal" or not key:
        return False
    return str(toleration.get("value") or "") == taint.value


def _term_matches(term: Mapping[str, Any], labels: Mapping[str, str], name: str) -> bool:
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False
    for expression in expressions:
        if not isinstance(expression, Mapping) or not _expression_matches(
            expression, labels.get(str(expression.get("key")))
        ):
            return False
    for expression in fields:
        # metadata.name is the only field the scheduler supports in matchFields.
        value = name if isinstance(expression, Mapping) and expression.get("key") == "metadata.name" else None
        if not isinstance(expression, Mapping) or not _expression_matches(expression, value):
            return False
    return True


def _expression_matches(expression: Mapping[str, Any], value: str | None) -> bool:
    operator = expression.get("operator")
    values = [str(v) for v in expression.get("values") or []]
    if operator == "In":
        return value is not None and value in values
    if operator == "NotIn":
        return value is None or value not in values
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    if operator in ("Gt", "Lt") and value is not None and len(values) == 1:
        try:
            have, want = int(value), int(values[0])
        except ValueError:
            return False
        return have > want if operator == "Gt" else have < want
    return False


@dataclass
class NodeClaim:
    """What one pod asks of its node besides resources (Karmada ``NodeClaim``)."""

    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[Obj] = field(default_factory=list)
    hard_node_affinity: Obj | None = None  # a core/v1 NodeSelector: {"nodeSelectorTerms": [...]}

    @classmethod
    def from_pod_spec(cls, spec: Mapping[str, Any] | None) -> NodeClaim:
        if not isinstance(spec, Mapping):
            return cls()
        selector = spec.get("nodeSelector")
        tolerations = spec.get("tolerations")
        affinity = spec.get("affinity")
        node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
        required = (
            node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
            if isinstance(node_affinity, Mapping)
            else None
        )
        return cls(
            {str(k): str(v) for k, v in selector.items()} if isinstance(selector, Mapping) else {},
            [dict(t) for t in tolerations if isinstance(t, Mapping)] if isinstance(tolerations, list) else [],
            dict(required) if isinstance(required, Mapping) else None,
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> NodeClaim:
        data = data or {}
        return cls(
            {str(k): str(v) for k, v in (data.get("nodeSelector") or {}).items()},
            [dict(t) for t in data.get("tolerations") or []],
            dict(data["hardNodeAffinity"]) if data.get("hardNodeAffinity") else None,
        )

    def to_json(self) -> Obj:
        out: Obj = {}
        if self.hard_node_affinity is not None:
            out["hardNodeAffinity"] = self.hard_node_affinity
        if self.node_selector:
            out["nodeSelector"] = dict(sorted(self.node_selector.items()))
        if self.tolerations:
            out["tolerations"] = list(self.tolerations)
        return out

    def key(self) -> str:
        """Equal claims share one eligibility computation."""

        return json.dumps(self.to_json(), sort_keys=True)

    # -- the scheduler's filters, one at a time so a verdict can say which one excluded a node
    def selector_matches(self, labels: Mapping[str, str]) -> bool:
        return all(labels.get(k) == v for k, v in self.node_selector.items())

    def affinity_matches(self, labels: Mapping[str, str], name: str) -> bool:
        if self.hard_node_affinity is None:
            return True
        terms = self.hard_node_affinity.get("nodeSelectorTerms") or []
        return any(isinstance(t, Mapping) and _term_matches(t, labels, name) for t in terms)

    def untolerated(self, taints: Sequence[Taint]) -> list[Taint]:
        """The blocking taints no toleration of this claim matches."""
        return [
            t for t in taints if t.effect in BLOCKING_EFFECTS and not any(tolerates(x, t) for x in self.tolerations)
        ]

    def describe(self) -> str:
        """The claim in a few words, for messages: ``nodeSelector a=b, required affinity``."""
        parts = []
        if self.node_selector:
            parts.append("nodeSelector " + ", ".join(f"{k}={v}" for k, v in sorted(self.node_selector.items())))
        if self.hard_node_affinity is not None:
            parts.append("its required node affinity")
        return " and ".join(parts) or "no node constraint"
