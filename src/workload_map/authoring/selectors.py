"""Pod selectors from sample pods: the labels the operator stamps to tell roles and instances apart.

Each sample pod owned (through any intermediate owner) by a sample root is matched to the pod
definition whose containers it carries (by container names). A label key whose value is the same on
every pod of one definition and differs from the others' tells the role; a key whose value is the
instance's id (a list item's name, a map key, maybe lower-cased) tells the instance.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from workload_map.authoring.evidence import ARRAY, MAP, Segments
from workload_map.authoring.samples import Sample, SampleFacts, walk
from workload_map.authoring.schemafacts import Site
from workload_map.base.objects import meta

# Labels the built-in controllers stamp per object (a ReplicaSet's hash, a Job's uid, a StatefulSet pod's
# name): they tell one intermediate object from another, never a role.
CONTROLLER_LABELS = frozenset(
    {
        "pod-template-hash",
        "controller-revision-hash",
        "controller-uid",
        "job-name",
        "batch.kubernetes.io/controller-uid",
        "batch.kubernetes.io/job-name",
        "batch.kubernetes.io/job-completion-index",
        "statefulset.kubernetes.io/pod-name",
        "apps.kubernetes.io/pod-index",
    }
)


@dataclass
class SiteInstance:
    site: int
    instance: str | None
    containers: frozenset[str]
    labels: frozenset[str] = frozenset()  # label keys the template itself sets


@dataclass
class Selector:
    """What the pods of one site tell."""

    pods: list[tuple[Sample, str | None]] = field(default_factory=list)  # pod, its instance id if known
    # per pod, the ids of the instances whose containers it carries (several when roles share container names)
    candidates: list[frozenset[str]] = field(default_factory=list)
    # The root's own child on the way to the pods (apiVersion/kind), and the whole chain root-side first.
    owner_kinds: Counter[str] = field(default_factory=Counter)
    chains: Counter[tuple[str, ...]] = field(default_factory=Counter)
    type_key: str | None = None
    type_value: str | None = None
    instance_key: str | None = None
    lower: bool = False  # the label is the lower-cased instance id
    index_key: str | None = None
    replica_key: str | None = None  # groups the pods of one instance into multi-pod replicas
    evidence: list[str] = field(default_factory=list)
    template_labels: set[str] = field(default_factory=set)


def _containers(site: Site, value: Any) -> frozenset[str]:
    if site.form == "template":
        value = (value or {}).get("spec") if isinstance(value, dict) else None
    if site.form in ("template", "podspec"):
        value = (value or {}).get("containers") if isinstance(value, dict) else None
    if site.form == "container":
        value = [value]
    if not isinstance(value, list):
        return frozenset()
    return frozenset(str(c.get("name")) for c in value if isinstance(c, dict))


def instance_ids(site: Site, obj: dict[str, Any]) -> list[tuple[tuple[str, ...], str | None]]:
    """(collection keys, instance id) of every instance of the site in one object."""
    last = max((i for i, s in enumerate(site.segments) if s in (ARRAY, MAP)), default=-1)
    if last < 0:
        return [((), None)]
    item: Segments = site.segments[: last + 1]
    out: list[tuple[tuple[str, ...], str | None]] = []
    for keys, value in walk(obj, item):
        if site.segments[last] == MAP:
            out.append((keys, keys[-1]))
        elif site.instance_id is not None and isinstance(value, dict):
            out.append((keys, str(value.get(site.instance_id.segments[-1]))))
        else:
            out.append((keys, keys[-1]))
    return out


def _template_labels(site: Site, value: Any) -> frozenset[str]:
    if site.form != "template" or not isinstance(value, dict):
        return frozenset()
    labels = meta(value).get("labels")
    return frozenset(str(k) for k in labels) if isinstance(labels, dict) else frozenset()


def site_instances(sites: list[Site], obj: dict[str, Any]) -> list[SiteInstance]:
    out = []
    for index, site in enumerate(sites):
        ids = dict(instance_ids(site, obj))
        for keys, value in walk(obj, site.segments):
            out.append(SiteInstance(index, ids.get(keys), _containers(site, value), _template_labels(site, value)))
    return out


def infer(sites: list[Site], facts: SampleFacts) -> dict[int, Selector]:
    selectors: dict[int, Selector] = {}
    for root_index, pods in facts.pods.items():
        root = facts.roots[root_index].obj
        instances = site_instances(sites, root)
        for pod, chain in pods:
            spec = pod.obj.get("spec")
            containers = spec.get("containers") if isinstance(spec, dict) else None
            names = frozenset(
                str(c.get("name")) for c in (containers if isinstance(containers, list) else []) if isinstance(c, dict)
            )
            matches = [i for i in instances if i.containers == names]
            if len({m.site for m in matches}) != 1:
                continue
            selector = selectors.setdefault(matches[0].site, Selector())
            for match in matches:
                selector.template_labels |= match.labels
            ids = {m.instance for m in matches}
            selector.candidates.append(frozenset(i for i in ids if i is not None))
            selector.pods.append((pod, ids.pop() if len(ids) == 1 else None))
            selector.owner_kinds[chain[-1] if chain else ""] += 1
            selector.chains[tuple(reversed(chain))] += 1
    for index, selector in selectors.items():
        _labels(index, selector, selectors, sites[index])
    return selectors


def _labels_of(pod: Sample) -> dict[str, str]:
    labels = meta(pod.obj).get("labels")
    return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}


def _labels(index: int, selector: Selector, everyone: dict[int, Selector], site: Site) -> None:
    pods = selector.pods
    common = set.intersection(*(set(_labels_of(p)) for p, _ in pods)) if pods else set()
    others = [p for i, s in everyone.items() if i != index for p, _ in s.pods]
    # Labels the operator stamps (not in the template) first; per-object controller labels never.
    keys = sorted(common - CONTROLLER_LABELS, key=lambda k: (k in selector.template_labels, k))
    for key in keys:
        values = {_labels_of(p)[key] for p, _ in pods}
        candidates = selector.candidates
        if site.collections and all(candidates):
            # Roles that share container names (a Master and Workers all running `pytorch`) leave each pod
            # several candidate instances: the label must name one of them on every pod.
            exact = all(_labels_of(p)[key] in c for (p, _), c in zip(pods, candidates, strict=True))
            lowered = all(
                _labels_of(p)[key] in {i.lower() for i in c} for (p, _), c in zip(pods, candidates, strict=True)
            )
            told = len({_labels_of(p)[key] for p, _ in pods}) > 1 or all(len(c) == 1 for c in candidates)
            if (exact or lowered) and told and selector.instance_key is None and len(values) >= 1:
                selector.instance_key, selector.lower = key, not exact
                by_label = {(i.lower() if not exact else i): i for c in candidates for i in c}
                selector.pods = [(p, by_label.get(_labels_of(p)[key], i)) for p, i in pods]
                pods = selector.pods
                example = pods[0][0]
                selector.evidence.append(
                    f"pod {example.name} ({example.location}): label {key}={_labels_of(example)[key]!r} "
                    f"is its instance id{' lower-cased' if not exact else ''}"
                )
        if len(values) == 1 and selector.type_key is None:
            value = next(iter(values))
            if others and all(_labels_of(p).get(key) != value for p in others):
                selector.type_key, selector.type_value = key, value
                selector.evidence.append(f"{len(pods)} pod(s) of this role carry {key}={value!r}; no other role's do")
        if len(values) == len(pods) > 1 and all(v.isdigit() for v in values) and selector.index_key is None:
            selector.index_key = key
            selector.evidence.append(f"label {key} numbers the pods ({', '.join(sorted(values))}): a replica index")
    _replica_groups(selector, keys)


def _replica_groups(selector: Selector, keys: list[str]) -> None:
    """A label that splits each instance's pods into equal groups, some of several pods: multi-host replicas."""
    for key in keys:
        if key in (selector.type_key, selector.instance_key):
            continue
        groups: Counter[tuple[str | None, str]] = Counter(
            (instance, _labels_of(pod)[key]) for pod, instance in selector.pods
        )
        sizes: dict[str | None, set[int]] = {}
        for (instance, _value), size in groups.items():
            sizes.setdefault(instance, set()).add(size)
        splits = Counter(instance for instance, _value in groups)
        # The label must split some instance into several groups: one constant over an instance's pods (the
        # object's name) groups nothing.
        if max(splits.values()) > 1 and all(len(v) == 1 for v in sizes.values()) and max(groups.values()) > 1:
            selector.replica_key = key
            per = ", ".join(sorted({f"{next(iter(v))}" for v in sizes.values()}))
            selector.evidence.append(f"label {key} groups each instance's pods by {per}: one multi-pod replica each")
            return
