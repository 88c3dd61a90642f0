"""Children between the root and its pods: a catalog kind whose spec the root embeds, a catalog kind the
sample objects own, the kind the operator's controller owns (``--api-source``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from workload_map.authoring import samples as sample_facts
from workload_map.authoring.builder import Builder
from workload_map.authoring.evidence import ARRAY, HIGH, MAP, MEDIUM, Segments, schema_path
from workload_map.authoring.render import Path
from workload_map.authoring.schema import Site
from workload_map.definition.model import GroupVersionKind, LoadedDefinition

GENERIC_KEYS = frozenset({"template", "podTemplate", "podSpec", "containers", "spec", "replicas"})
_SPEC_KEY = re.compile(r"^\s*\.spec\.([A-Za-z_][A-Za-z0-9_]*)")


@dataclass
class Embedding:
    """A catalog kind whose whole spec the root carries at ``prefix`` (a RayCluster spec inside a job): the
    operator creates that object from it, and it the pods."""

    prefix: Segments
    kind: dict[str, str]
    definition: str
    pod_kinds: dict[str, dict[str, str]]  # the catalog kind's spec key -> the kind of the pods' owner there


def _signatures(catalog: Sequence[LoadedDefinition]) -> list[tuple[frozenset[str], Embedding]]:
    """Per custom catalog kind, the keys under its .spec where its pod definitions start (``headGroupSpec``,
    ``workerGroupSpecs``): a schema or sample with all of them below one object embeds that kind."""
    out = []
    for definition in catalog:
        identity = definition.karta.identity
        if identity is None or identity.group in ("", "apps", "batch"):
            continue
        keys: dict[str, dict[str, str]] = {}
        for component in definition.karta.components:
            spec = component.spec_definition
            if spec is None:
                continue
            fragments = spec.fragmented_pod_spec_definition
            paths = [spec.pod_template_spec_path, spec.pod_spec_path]
            paths += [fragments.containers_path, fragments.container_path] if fragments else []
            kind = component.kind or GroupVersionKind(version="v1", kind="Pod")
            for path in paths:
                match = _SPEC_KEY.match(path or "")
                if match and match.group(1) not in GENERIC_KEYS:
                    keys[match.group(1)] = {"group": kind.group, "version": kind.version, "kind": kind.kind}
        # One plain word (``tasks``, ``worker``, ``templates``) is too common to tell a kind's spec: a single key
        # must be a compound name (``replicatedJobs``, ``leaderWorkerTemplate``).
        if len(keys) >= 2 or any(any(ch.isupper() for ch in key) for key in keys):
            gvk = {"group": identity.group, "version": identity.version, "kind": identity.kind}
            out.append((frozenset(keys), Embedding((), gvk, definition.name, keys)))
    return out


def embeddings(builder: Builder, sites: list[Site], own: tuple[str, str]) -> dict[int, Embedding]:
    """Sites below an object that carries a whole catalog kind's spec, by site index."""
    below: dict[Segments, set[str]] = {}
    for site in sites:
        for i in range(2, len(site.segments)):
            below.setdefault(site.segments[:i], set()).add(site.segments[i])
    out: dict[int, Embedding] = {}
    for keys, embedding in _signatures(builder.catalog):
        if (embedding.kind["group"], embedding.kind["kind"]) == own:
            continue
        for prefix, found in below.items():
            # An embedded spec is one object, not an item of a list or map (those are the roles themselves).
            if keys <= found and not {ARRAY, MAP} & set(prefix):
                for index, site in enumerate(sites):
                    if site.segments[: len(prefix)] == prefix and site.segments[len(prefix)] in keys:
                        out[index] = Embedding(prefix, embedding.kind, embedding.definition, embedding.pod_kinds)
    return out


def intermediate(  # noqa: PLR0917 - the builder's state it adds to, each by name at its one call
    builder: Builder,
    embedding: Embedding,
    children: list[dict[str, Any]],
    taken: set[str],
    root_name: str,
    path: Path,
) -> str:
    """The catalog kind the operator creates from the embedded spec: one per object while that spec is set."""
    name = re.sub(r"[^a-z0-9-]", "", embedding.kind["kind"].lower()) or "child"
    while name in taken:
        name += "x"
    taken.add(name)
    children.append({"name": name, "ownerRef": root_name, "kind": dict(embedding.kind)})
    builder.note(
        (*path, "kind"),
        MEDIUM,
        f"{schema_path(embedding.prefix)} holds the spec of a {embedding.kind['kind']} (the keys the catalog's",
        f"{embedding.definition} reads its pods from): the operator creates one while it is set.",
    )
    return name


def sample_children(
    builder: Builder, found: sample_facts.SampleFacts, children: list[dict[str, Any]], taken: set[str], root: str
) -> None:
    """Objects of a kind the catalog defines that sample roots own directly, not yet a component: a child the
    operator creates (a Deployment, a JobSet, a Workflow...), whose pods the catalog's definition reads."""
    used = {(c["kind"]["group"], c["kind"]["kind"]) for c in children if "kind" in c}
    for api_kind, where in found.children.items():
        api, _, child_kind = api_kind.rpartition("/")
        child_group, _, child_version = api.rpartition("/") if "/" in api else ("", "", api)
        covered = builder.covering(child_group, child_kind)
        if covered is None or (child_group, child_kind) in used or child_kind == "Pod":
            continue
        name = re.sub(r"[^a-z0-9-]", "", child_kind.lower()) or "child"
        while name in taken:
            name += "x"
        taken.add(name)
        path: Path = ("spec", "structureDefinition", "childComponents", len(children))
        children.append(
            {
                "name": name,
                "ownerRef": root,
                "kind": {"group": child_group, "version": child_version, "kind": child_kind},
            }
        )
        builder.note(
            (*path, "kind"),
            HIGH,
            f"a {child_kind} owned by a sample object ({where}); the catalog's {covered} defines its pods.",
        )


def made_by(builder: Builder, owned: list[tuple[dict[str, str], str]]) -> tuple[dict[str, str], str] | None:
    """The kind the operator makes its pods through: the first pod-making kind its controller owns (a
    built-in workload, a kind of its own repository with a pod template, another project's kind the catalog
    defines), unless it owns Pods themselves; the evidence lists every such kind owned."""
    makers: list[tuple[dict[str, str], str]] = []
    for owned_kind, why in owned:
        gvk = owned_kind
        if "importPath" in gvk:
            known = next(
                (
                    d.karta.identity
                    for d in builder.catalog
                    if d.karta.identity is not None
                    and (d.karta.identity.kind, d.karta.identity.version) == (gvk["kind"], gvk["version"])
                ),
                None,
            )
            if known is None:
                continue
            gvk = {"group": known.group, "version": known.version, "kind": known.kind}
        makers.append((gvk, why))
    if not makers or any(g["kind"] == "Pod" and not g["group"] for g, _ in makers):
        return None
    if len(makers) == 1:
        return makers[0]
    others = ", ".join(g["kind"] for g, _ in makers[1:])
    return makers[0][0], f"{makers[0][1]}; first of the kinds it owns, also {others}: check which role is which"
