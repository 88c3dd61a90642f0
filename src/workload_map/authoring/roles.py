"""The pod-producing roles of a draft: per pod definition found (a ``Site``), its name, pod spec, counts,
instances and pod selector.
"""

from __future__ import annotations

import re
from typing import Any

from workload_map.authoring import selectors as pod_selectors
from workload_map.authoring.builder import Builder, jq
from workload_map.authoring.evidence import ARRAY, HIGH, LOW, MAP, MEDIUM, Segments, default_origin, schema_path
from workload_map.authoring.render import Path
from workload_map.authoring.schemafacts import GROUP_SIZE_NAMES, SHARD_NAMES, Field, Site


def role_name(site: Site, taken: set[str]) -> str:
    segments = (site.job if site.bare_job else site.job[:-1]) if site.job else site.segments
    skip = {"template", "spec", "podTemplate", "podSpec", "containers", "container", "templateSpec", ARRAY, MAP}
    words = [s for s in segments if s not in skip]
    base = words[-1] if len(words) > 1 else (words[-1] if words and words[-1] != "spec" else "pod")
    base = re.sub(r"(Spec|Specs|Template|Templates)$", "", base) or base
    if base.endswith("s") and not base.endswith("ss") and len(base) > 3:
        base = base[:-1]
    base = re.sub(r"[^A-Za-z0-9-]", "", base) or "pod"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    taken.add(name)
    return name


def item_of(site: Site) -> Segments:
    last = max((i for i, s in enumerate(site.segments) if s in (ARRAY, MAP)), default=-1)
    return site.segments[: last + 1]


def _relative(item: Segments, found: Field | None) -> str | None:
    if found is None or found.segments[: len(item)] != item:
        return None
    return jq(found.segments[len(item) :])


def scale(builder: Builder, site: Site, path: Path, reuse_job: tuple[str, str] | None) -> dict[str, str]:
    item = item_of(site)
    prefix, factors = _instances(builder, site, item, path)
    replicas = _relative(item, site.replicas)
    hosts = _relative(item, site.hosts)
    default = site.replicas.default if site.replicas is not None and isinstance(site.replicas.default, int) else 1
    out: dict[str, str] = {}
    if replicas is not None and site.replicas is not None:
        factors.append(f"({replicas} // {default})")
        told = site.replicas.default is not None
        where = default_origin(site.replicas.schema) if told else "assumed operator default"
        builder.note(
            (*path, "replicasPath"),
            MEDIUM,
            f"{site.replicas.path} beside the pod definition counts its pods ({site.source}); "
            f"unset reads {default} ({where}).",
        )
    if hosts is not None and site.hosts is not None:
        factors.append(f"({hosts} // {_or_one(site.hosts)})")
        per = (
            "pods per group"
            if site.hosts.segments[-1] in GROUP_SIZE_NAMES
            else "the replicas run once per shard"
            if site.hosts.segments[-1] in SHARD_NAMES
            else "one pod per host of a multi-host replica"
        )
        builder.note((*path, "replicasPath"), MEDIUM, f"x {site.hosts.path}: {per}.")
    if site.job is not None:
        job_rel = jq(site.job[len(item) :])
        expression, origin = reuse_job or ("(.spec.parallelism // 1)", "")
        if site.bare_job:  # the catalog reads a Job object: wrap the bare JobSpec as the operator does
            job_rel = f"{job_rel} | {{spec: .}}"
        factors.append(f"({job_rel} | {expression})" if job_rel != "." else f"({expression})")
        builder.note(
            (*path, "replicasPath"),
            HIGH if origin else MEDIUM,
            f"pods per Job of the {'JobSpec' if site.bare_job else 'JobTemplateSpec'} at {schema_path(site.job)}"
            + (f": the catalog's {origin} replicasPath, applied to the template." if origin else "."),
        )
    if factors and site.alternative is not None:
        # Only the items that set this alternative make its pods.
        alternative = jq(site.alternative[len(item) :])
        out["replicasPath"] = f"{prefix}if {alternative} then {' * '.join(factors)} else 0 end"
        builder.note((*path, "replicasPath"), MEDIUM, f"0 for an item without {schema_path(site.alternative)}.")
    elif factors:
        out["replicasPath"] = prefix + " * ".join(factors)
    minimum = _relative(item, site.min_replicas)
    if minimum is not None and site.min_replicas is not None:
        fallback = f" // {replicas}" if replicas else ""
        hosts_factor = f" * ({hosts} // {_or_one(site.hosts)})" if hosts and site.hosts else ""
        out["minReplicasPath"] = f"{prefix}(({minimum}{fallback} // {default}){hosts_factor})"
        builder.note(
            (*path, "minReplicasPath"), MEDIUM, f"{site.min_replicas.path}: the fewest pods the role runs with."
        )
    maximum = _relative(item, site.max_replicas)
    if maximum is not None and site.max_replicas is not None:
        fallback = f" // {replicas}" if replicas else ""
        hosts_factor = f" * ({hosts} // {_or_one(site.hosts)})" if hosts and site.hosts else ""
        out["maxReplicasPath"] = f"{prefix}(({maximum}{fallback} // {default}){hosts_factor})"
        builder.note((*path, "maxReplicasPath"), MEDIUM, f"{site.max_replicas.path}: the most pods the role scales to.")
    return out


def _or_one(count: Field) -> int:
    """What an unset count reads: its default (the schema's, or the operator's code's), else 1."""
    return count.default if isinstance(count.default, int) else 1


def _instances(builder: Builder, site: Site, item: Segments, path: Path) -> tuple[str, list[str]]:
    """The walk to the pods' list item and the factors of the counts of the items above their own count's
    object: one in the pods' own item is read there; one of an outer list's item is read on the way down and
    kept as a jq variable for each pod item below it."""
    walked: Segments = ()
    prefix = ""
    factors: list[str] = []
    for number, count in enumerate(site.instances):
        holder = count.segments[:-1]
        default = count.default if isinstance(count.default, int) else 1
        if holder == item:
            factors.append(f"({jq(count.segments[len(item) :])} // {default})")
        else:
            prefix += f"{jq(holder[len(walked) :])} | ({jq(count.segments[-1:])} // {default}) as $n{number} | "
            factors.append(f"$n{number}")
            walked = holder
        builder.note(
            (*path, "replicasPath"),
            MEDIUM,
            f"x {count.path}: each of its {schema_path(holder[:-1])} items runs that many instances of the pods below.",
        )
    if item:
        prefix += f"{jq(item[len(walked) :])} | "
    below = site.role[len(item) : len(item) + 1] if item and site.role[: len(item)] == item else ()
    single = below and below[0] not in (ARRAY, MAP) and site.alternative is None
    if single and site.job is None and site.replicas is not None:
        # The pods' object is one optional key of the item (a role's group): items without it run none of
        # these pods (with other such keys beside it, ``alternative`` says so instead).
        factors.append(f"(if {jq(below)} == null then 0 else 1 end)")
        builder.note(
            (*path, "replicasPath"),
            MEDIUM,
            f"x 0 where an item of {schema_path(item[:-1])} has no {below[0]}: its pods are defined there.",
        )
    return prefix, factors


def spec_definition(builder: Builder, site: Site, path: Path) -> dict[str, Any]:
    where = f"{site.path} ({site.source})"
    if site.free_form is not None:
        key = "podSpecPath" if site.form == "podspec" else "podTemplateSpecPath"
        builder.note(
            (*path, key),
            MEDIUM if "description" in site.free_form else LOW,
            f"{where} is open in the schema (no typed containers), taken for the pod's "
            f"{'spec' if site.form == 'podspec' else 'template'}: {site.free_form}.",
        )
        return {key: jq(site.segments)}
    if site.form == "template":
        builder.note(
            (*path, "podTemplateSpecPath"), HIGH, f"a PodTemplateSpec (metadata + spec.containers) at {where}."
        )
        return {"podTemplateSpecPath": jq(site.segments)}
    if site.form == "podspec":
        builder.note((*path, "podSpecPath"), HIGH, f"a bare PodSpec (containers, no metadata beside it) at {where}.")
        return {"podSpecPath": jq(site.segments)}
    if site.form == "containers":
        builder.note(
            (*path, "fragmentedPodSpecDefinition"),
            LOW,
            f"a list of container-shaped objects (name, image) at {where}: the operator builds the pod from them;",
            "what else it puts in the pod (init containers, volumes, scheduling) is not in the object.",
        )
        return {"fragmentedPodSpecDefinition": {"containersPath": jq(site.segments)}}
    builder.note(
        (*path, "fragmentedPodSpecDefinition"),
        LOW,
        f"one container-shaped object at {where}: the operator builds a pod around it.",
    )
    return {"fragmentedPodSpecDefinition": {"containerPath": jq(site.segments)}}


def instance_ids(builder: Builder, site: Site, path: Path, lower: bool) -> str | None:
    item = item_of(site)
    if not item:
        return None
    suffix = " | ascii_downcase" if lower else ""
    if item[-1] == MAP:
        builder.note((*path, "instanceIdPath"), HIGH, f"one instance per key of the map {schema_path(item[:-1])}.")
        return f"{jq(item[:-1])} // {{}} | keys_unsorted[]{suffix}"
    if site.instance_id is not None:
        confidence = HIGH if site.instance_id.required else MEDIUM
        builder.note(
            (*path, "instanceIdPath"),
            confidence,
            f"one instance per item of {schema_path(item[:-1])}, named by {site.instance_id.path}"
            + (" (required)." if site.instance_id.required else "."),
        )
        return f"{jq(item)} | .{site.instance_id.segments[-1]}{suffix}"
    if site.collections == 1:
        builder.note(
            (*path, "instanceIdPath"),
            LOW,
            f"one instance per item of {schema_path(item[:-1])}; the items have no name field, so by position.",
        )
        return f"{jq(item[:-1])} // [] | keys[] | tostring"
    # Nested lists: their items in order are the instances (the per-instance paths walk them the same way),
    # so positions keep every count; what names them is left to the reviewer.
    return builder.todo(
        (*path, "instanceIdPath"),
        f"the instance ids of the nested lists on {site.path} (until then: their positions 0, 1, ...)",
        f"[{jq(item)}] | keys[] | tostring",
    )


def chain_evidence(builder: Builder, kind: str, selector: pod_selectors.Selector | None) -> list[str]:
    """The owner chain the sample pods show, and the catalog definitions that cover its kinds."""
    if selector is None or not selector.chains:
        return [f"the sample pods of this role are owned through an object the {kind} owns."]
    chain = selector.chains.most_common(1)[0][0]
    lines = [f"sample pods are owned through {' -> '.join([kind, *(c.rpartition('/')[2] for c in chain), 'Pod'])}."]
    for link in chain:
        api, _, link_kind = link.rpartition("/")
        covered = builder.covering(api.rpartition("/")[0] if "/" in api else "", link_kind)
        if covered:
            lines.append(f"{link_kind} is covered by the catalog's {covered}: its pods' labels and counts are its own.")
    return lines


def pod_selector(
    builder: Builder, site: Site, selector: pod_selectors.Selector | None, path: Path, several: bool
) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    if selector is not None and selector.evidence:
        builder.note(path, HIGH, *selector.evidence)
    if several:
        if selector is not None and selector.type_key:
            out["componentTypeSelector"] = {
                "keyPath": f'.metadata.labels["{selector.type_key}"]',
                "value": selector.type_value,
            }
        elif selector is not None and selector.instance_key:
            out["componentTypeSelector"] = {"keyPath": f'.metadata.labels["{selector.instance_key}"]'}
        else:
            out["componentTypeSelector"] = {
                "keyPath": builder.todo(
                    (*path, "componentTypeSelector", "keyPath"),
                    "the pod label the operator stamps on this role's pods (no sample pod shows it)",
                )
            }
    if site.collections:
        if selector is not None and selector.instance_key:
            out["componentInstanceSelector"] = {"idPath": f'.metadata.labels["{selector.instance_key}"]'}
        else:
            out["componentInstanceSelector"] = {
                "idPath": builder.todo(
                    (*path, "componentInstanceSelector", "idPath"),
                    "the pod label that names this pod's instance (no sample pod shows it)",
                )
            }
    if selector is not None and selector.replica_key:
        out["replicaSelector"] = {"keyPath": f'.metadata.labels["{selector.replica_key}"]'}
    return out or None


def one_pod_per_role(sites: list[Site]) -> tuple[list[Site], dict[int, list[Site]]]:
    """Container lists side by side in one object (Tekton's ``steps`` and ``sidecars``) are one pod's; beside
    a pod template or spec in the same object (a role's ``template`` and its ``sidecars``), they add to it."""
    kept: list[Site] = []
    merged: dict[int, list[Site]] = {}
    pods = {site.role: site for site in sites if site.form in ("template", "podspec")}
    for site in sites:
        first = next(
            (k for k in kept if k.form == "containers" and site.form == "containers" and k.role == site.role), None
        )
        if site.form == "containers" and site.role in pods:
            first = pods[site.role]
        if first is None:
            kept.append(site)
        else:
            merged.setdefault(id(first), []).append(site)
    return kept, merged


def without_base_templates(sites: list[Site]) -> tuple[list[Site], list[Site]]:
    """Drop a template that is the base of others (Flink's ``.spec.podTemplate`` under ``jobManager.podTemplate``
    and ``taskManager.podTemplate``): the same key, at least two roles below its own object have it, and
    nothing counts its pods. It is merged into those roles' pods, not a role of its own."""
    bases = []
    for site in sites:
        role = site.role
        below = [
            other
            for other in sites
            if other is not site
            and other.segments[-1] == site.segments[-1]
            and other.role[: len(role)] == role
            and len(other.role) > len(role)
        ]
        if len(below) >= 2 and site.replicas is None and not site.collections:
            bases.append(site)
    return [s for s in sites if s not in bases], bases
