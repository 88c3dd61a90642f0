"""Assembling a draft Karta from what the schema, the samples and the sample pods say.

Every field written carries a comment with its evidence and a confidence (``evidence.py``); what
could not be inferred is a gap: an expression ending in a ``# TODO(wmap): ...`` jq comment that changes
no count and blocks no command (``evidence.todo``), reported by ``wmap validate``. The draft is checked by
the loader and the validator before it is returned: a draft that does not load is a bug here, reported as
such.
"""

from __future__ import annotations

import json
import pathlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workload_map.authoring import (
    children as child_kinds,
    gochildren,
    godefaults,
    gomerges,
    gomodes,
    goruns,
    gosource,
    gosuspend,
    modes as mode_kinds,
    observed,
    patches,
    roles,
    samples as sample_facts,
    selectors as pod_selectors,
    statuses,
    transitions,
)
from workload_map.authoring.builder import JOB, POD, Builder, jq
from workload_map.authoring.evidence import HIGH, LOW, MEDIUM, TODO_MARK, Segments, schema_path
from workload_map.authoring.gochain import chain_components, child_kinds_built
from workload_map.authoring.gocode import GoCode
from workload_map.authoring.gohub import members_naming
from workload_map.authoring.gomanifests import pods_through, rendered_workloads
from workload_map.authoring.namedcounts import named_counts
from workload_map.authoring.render import Path, render
from workload_map.authoring.samples import Sample
from workload_map.authoring.schema import add_api_values, read_crd
from workload_map.authoring.schemafacts import REPLICA_NAMES
from workload_map.base.objects import owner_references
from workload_map.definition.model import GroupVersionKind, LoadedDefinition, slug

# The value that resumes an annotation switch, by the one that suspends it.
OPPOSITES = {"true": "false", "on": "off", "yes": "no", "enabled": "disabled", "1": "0"}
# How many of the kinds naming a hub the note lists.
MAX_MEMBERS_SAID = 6


@dataclass
class Draft:
    """A drafted definition: the Karta as data, its commented YAML text and what is left to do."""

    karta: dict[str, Any]
    text: str
    todos: list[str] = field(default_factory=list)
    guesses: list[tuple[str, str]] = field(default_factory=list)  # (field path, confidence)
    samples: int = 0
    pods: int = 0
    covered_by: str | None = None  # a catalog definition that already covers the kind
    warnings: list[str] = field(default_factory=list)  # what the inputs said that could not be read (located)

    @property
    def name(self) -> str:
        return str(self.karta["metadata"]["name"])


def draft(
    crd: dict[str, Any] | None,
    objects: Sequence[Sample] = (),
    *,
    version: str | None = None,
    catalog: Sequence[LoadedDefinition] = (),
    sources: Sequence[str] = (),
    moments: Sequence[transitions.Moment] = (),
    api_source: pathlib.Path | None = None,
) -> Draft:
    """Draft a definition from a CRD (may be None when samples say the kind), sample objects and pods, the
    ``moments`` of one object recorded as it went through its statuses (status mappings from them), and the
    operator's Go API types under ``api_source`` (the status values they declare, gosource.py)."""
    facts = read_crd(crd, version) if crd is not None else None
    if facts is not None:
        named_counts(facts)
    warnings: list[str] = []
    owned: list[tuple[dict[str, str], str]] = []  # what the kind's controller owns (--api-source)
    # The operator's Go code, read once for every reader below (each kind's folders, each file's functions).
    go_code: GoCode | None = None
    suspend_origin = "in the schema"  # where the suspend switch was read
    if api_source is not None:
        go_code = GoCode(api_source)
        if facts is None:
            warnings.append(f"{api_source}: the API types are read only with the kind's CRD (give --crd)")
        else:
            declared = gosource.api_values(api_source, facts.kind, facts.version)
            warnings += declared.warnings
            warnings += [f"{api_source}: {w}" for w in add_api_values(facts, declared.phases, declared.conditions)]
            facts.api_meanings = declared.meanings
            facts.api_ready_counts = declared.ready_counts
            facts.annotation_switches += [
                a for a in declared.annotations if a[0] not in dict(facts.annotation_switches)
            ]
            facts.annotation_values.update(declared.annotation_values)
            pausing = dict(declared.operator_switches)
            paused = [entry for entry in facts.suspend if entry[0].segments in pausing]
            if paused:
                facts.suspend = [entry for entry in facts.suspend if entry[0].segments not in pausing]
                facts.operator_pause = (paused[0][0].path, pausing[paused[0][0].segments])
            owned = declared.owned
            # Counts the operator's code defaults where the CRD does not (a webhook's Default(), a Validate()).
            godefaults.fill_schema(facts, godefaults.code_defaults(go_code, facts.kind, facts.version))
            if not facts.suspend:
                # No switch named to stop: a boolean the code zeroes the count with (``if x.Spec.Off { n = 0 }``).
                for segments, zeroed_at in gosuspend.zeroing_switches(go_code, facts.kind, facts.version):
                    switch = facts.field_at(segments)
                    if switch is not None and switch.schema.get("type") == "boolean":
                        facts.suspend, suspend_origin = (
                            [(switch, "true", "false")],
                            f"the code zeroes the count at {zeroed_at}",
                        )
                        break
    if facts is not None:
        group, kind, version_name = facts.group, facts.kind, facts.version
    else:
        roots = [s for s in objects if s.obj.get("kind") != "Pod" and not owner_references(s.obj)]
        if not roots:
            raise ValueError("no CRD and no sample object that could be the root (a non-Pod object without owners)")
        api = str(roots[0].obj.get("apiVersion") or "")
        group, version_name = api.rpartition("/")[0], api.rpartition("/")[2]
        kind = str(roots[0].obj.get("kind"))
    found = sample_facts.collect(list(objects), group, kind)
    builder = Builder(catalog)
    made_by = child_kinds.made_by(builder, owned)
    sites = list(facts.sites) if facts else []
    if not sites or (facts and facts.untyped and ".spec" in facts.untyped):
        sites += [
            s for s in sample_facts.sites_from_samples(found.roots) if s.segments not in {x.segments for x in sites}
        ]
    sites, bases = roles.without_base_templates(sites)
    sites, referenced = child_kinds.referenced_templates(facts, sites) if facts is not None else (sites, [])
    sites, overrides = child_kinds.container_overrides(facts, sites) if facts is not None else (sites, [])
    sites, extras = patches.extra_containers(sites)
    sites, merged = roles.one_pod_per_role(sites)
    built = gochildren.built_children(go_code, facts.kind, facts.version) if go_code is not None and facts else []
    merges = gomerges.merged_fields(go_code, facts.kind, facts.version) if go_code is not None and facts else []
    modes = gomodes.Modes()
    if go_code is not None and facts:
        modes = gomodes.mode_children(go_code, facts.kind, facts.version)
    built = [b for b in built if b.where not in {m.child.where for m in modes.children}]
    placed = child_kinds.place_built(facts, built, sites) if facts is not None else None
    sites = placed.sites if placed is not None else sites
    selectors = pod_selectors.infer(sites, found)
    root_name = re.sub(r"[^a-z0-9-]", "", kind.lower()) or "root"
    base: Path = ("spec", "structureDefinition")
    root_path: Path = (*base, "rootComponent")
    root: dict[str, Any] = {"name": root_name, "kind": {"group": group, "version": version_name, "kind": kind}}
    if facts is not None:
        builder.note((*root_path, "kind"), HIGH, f"the CRD's group, storage version {version_name} and kind.")
        if facts.untyped:
            builder.note(
                (*root_path, "kind"),
                LOW,
                f"the schema leaves {', '.join(facts.untyped)} open (x-kubernetes-preserve-unknown-fields):",
                "the samples filled in what they show.",
            )
    children: list[dict[str, Any]] = []
    # One pod definition straight under .spec (`.spec.template`, `.spec.template.spec`): the root makes the pods.
    on_root = (
        len(sites) == 1
        and not sites[0].collections
        and sites[0].job is None
        and len(sites[0].segments) >= 2
        and set(sites[0].segments[1:]) <= {"template", "podTemplate", "spec", "podSpec"}
    )
    taken = {root_name}
    additional: list[dict[str, str]] = []
    several = len(sites) > 1
    embedded = child_kinds.embeddings(builder, sites, (group, kind))
    intermediates: dict[Segments, str] = {}
    origins: dict[int, Segments] = {}  # id(component) -> the pod definition it was drafted from
    for index, site in enumerate(sites):
        selector = selectors.get(index)
        owner = selector.owner_kinds.most_common(1)[0][0] if selector and selector.owner_kinds else ""
        embedding = embedded.get(index)
        maker = placed.makers.get(index) if placed is not None else None
        if on_root:
            component, path = root, root_path
        else:
            parent = root_name
            if embedding is not None:
                parent = intermediates.get(embedding.prefix) or child_kinds.intermediate(
                    builder, embedding, children, taken, root_name, (*base, "childComponents", len(children))
                )
                intermediates[embedding.prefix] = parent
            path = (*base, "childComponents", len(children))
            component = {"name": roles.role_name(site, taken), "ownerRef": parent}
            children.append(component)
            if embedding is not None and site.job is None and not owner:
                key = site.segments[len(embedding.prefix)]
                component["kind"] = dict(embedding.pod_kinds.get(key, POD))
                builder.note(
                    (*path, "kind"),
                    MEDIUM,
                    f"the pods of {schema_path((*embedding.prefix, key))} belong to the {embedding.kind['kind']}",
                    f"(the catalog's {embedding.definition} has them owned by a {component['kind']['kind']}).",
                )
            elif site.job is not None:
                component["kind"] = dict(JOB)
                builder.note(
                    (*path, "kind"),
                    HIGH,
                    f"{schema_path(site.job)} is a JobSpec (template + parallelism/completions + backoffLimit...):"
                    if site.bare_job
                    else f"{schema_path(site.job)} is a JobTemplateSpec (spec.template + parallelism/completions):",
                    "one batch/v1 Job per instance.",
                )
            elif maker is not None and not owner:
                component["kind"] = dict(maker.kind)
                builder.note((*path, "kind"), MEDIUM, *_built_evidence(maker))
            elif site.embeds is not None and not owner:
                component["kind"] = {"group": "apps", "version": "v1", "kind": site.embeds}
                builder.note(
                    (*path, "kind"),
                    MEDIUM,
                    f"{schema_path(site.role)} is a {site.embeds}Spec (its fields, or its name): the operator creates",
                    f"one {site.embeds} per instance, and it the pods"
                    + (
                        f" (the catalog's {builder.covering('apps', site.embeds)} reads it)."
                        if builder.covering("apps", site.embeds)
                        else "."
                    ),
                )
            elif owner:
                api, _, owner_kind = owner.rpartition("/")
                owner_group, _, owner_version = api.rpartition("/") if "/" in api else ("", "", api)
                component["kind"] = {"group": owner_group, "version": owner_version, "kind": owner_kind}
                builder.note((*path, "kind"), HIGH, *roles.chain_evidence(builder, kind, selector))
            elif made_by is not None:
                component["kind"] = dict(made_by[0])
                builder.note(
                    (*path, "kind"),
                    LOW,
                    f"the controller owns {made_by[0]['kind']}s and no Pods ({made_by[1]}):",
                    f"the operator makes a {made_by[0]['kind']} of this role, and it the pods.",
                )
            else:
                component["kind"] = dict(POD)
                builder.note(
                    (*path, "kind"), MEDIUM, "pods owned directly by the root (no intermediate owner is known)."
                )
            lower = bool(selector and selector.lower)
            ids = roles.instance_ids(builder, site, path, lower)
            if ids is not None:
                component["instanceIdPath"] = ids
        if owner and on_root:
            api, _, owner_kind = owner.rpartition("/")
            owner_group, _, owner_version = api.rpartition("/") if "/" in api else ("", "", api)
            additional.append({"group": owner_group, "version": owner_version, "kind": owner_kind})
        elif on_root and maker is not None:
            additional.append(dict(maker.kind))
            if maker.kind["kind"] == "Deployment":
                additional.append({"group": "apps", "version": "v1", "kind": "ReplicaSet"})
            builder.note((*base, "additionalChildKinds"), MEDIUM, *_built_evidence(maker))
        elif on_root and made_by is not None and not (facts is not None and facts.through_replicasets):
            additional.append(dict(made_by[0]))
            if made_by[0]["kind"] == "Deployment":
                additional.append({"group": "apps", "version": "v1", "kind": "ReplicaSet"})
            builder.note(
                (*base, "additionalChildKinds"),
                LOW,
                f"the controller owns {made_by[0]['kind']}s and no Pods ({made_by[1]}):",
                "the root's pods are owned through it.",
            )
        origins[id(component)] = site.segments
        patch = patches.patched_by(site)
        if patch is not None:
            component["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
            builder.note(
                (*path, "specDefinition"),
                LOW,
                f"{site.path} ({site.source}) sits under {schema_path(patch)}: a patch the operator merges over the",
                "pod it builds, not the pod's definition; no path reads the pod.",
            )
        elif patches.whole_object(facts, site):
            component["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
            builder.note(
                (*path, "specDefinition"),
                LOW,
                f"{site.path} ({site.source}) is a whole object of any kind (x-kubernetes-embedded-resource), not a",
                "pod template: its pods sit inside it where its kind has them; no path reads the pod.",
            )
        elif (fragment := patches.merged_into(facts, site, merges)) is not None:
            component["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
            builder.note(
                (*path, "specDefinition"),
                LOW,
                f"{site.path} ({site.source}) is {fragment}:",
                "a fragment the operator merges into the pod it builds, not its definition; no path reads the pod.",
            )
        else:
            component["specDefinition"] = roles.spec_definition(builder, site, (*path, "specDefinition"))
        for extra in merged.get(id(site), []):
            builder.note(
                (*path, "specDefinition"),
                LOW,
                f"{extra.path} ({extra.source}) holds more containers of the same pod (beside {site.path});",
                "the format reads one container list: the pod's other containers are not counted."
                if site.form == "containers"
                else "the operator adds them to that pod: they make no pod of their own.",
            )
        reuse = builder.catalog_expression(JOB, "replicas_path") if site.job is not None else None
        scale = roles.scale(builder, site, (*path, "scaleDefinition"), reuse)
        if scale:
            component["scaleDefinition"] = scale
        elif not on_root:
            builder.note((*path, "specDefinition"), MEDIUM, "no count beside the pod definition: one pod per instance.")
        if not on_root:
            selector_def = roles.pod_selector(builder, site, selector, (*path, "podSelector"), several)
            if selector_def:
                component["podSelector"] = selector_def
    for shared in bases:
        builder.note(
            (*root_path, "name"),
            LOW,
            f"{shared.path} ({shared.source}) is taken as the base template the roles below it are merged onto",
            "(the same key under two or more roles, no count of its own): not a component.",
        )
    if placed is not None and facts is not None:
        for child in placed.unplaced:
            child_kinds.built_component(builder, facts, child, children, taken, root_name)
        mode_kinds.mode_components(builder, facts, modes, children, taken, root_name)
    for template, reference in referenced:
        builder.note(
            (*root_path, "name"),
            LOW,
            f"{template.path} ({template.source}) is a list of named templates nothing counts, referred to by",
            f"{reference}: merged into the pods of the items that refer to one, not a component.",
        )
    for part, said in overrides:
        builder.note(
            (*root_path, "name"),
            LOW,
            f"{part.path} ({part.source}): its containers override others ({said!r}): not a pod of its own.",
        )
    for part in extras:
        builder.note(
            (*root_path, "name"),
            LOW,
            f"{part.path} ({part.source}) is named as extra containers, alone in its object: they join a pod the",
            "operator builds, not a pod of their own.",
        )
    for part in placed.dropped if placed is not None else []:
        builder.note(
            (*root_path, "name"),
            LOW,
            f"{part.path} ({part.source}) is shaped like a pod but has no count, and the operator's code counts its",
            "workloads elsewhere: taken for a part it adds to the pods it builds, not a component.",
        )
    if go_code is not None and facts is not None:
        chained = child_kinds_built(go_code, facts.kind, facts.version)
        chain_components(builder, facts, chained, children, taken, root_name, not sites and not children)
    child_kinds.sample_children(builder, found, children, taken, root_name)
    # Nothing else makes the object's pods: a run of a pipeline engine's kind the code creates may.
    if go_code is not None and facts is not None and not sites and not children:
        run = goruns.run_child(builder, go_code, facts.kind, facts.version)
        if run is not None:
            child_kinds.built_component(builder, facts, run, children, taken, root_name)
    # The controller owns Pods and the code composes one: the root's pods are the operator's, read from no path.
    own_pod = next((b for b in built if b.kind["kind"] == "Pod" and b.composed), None)
    if not any(gvk["kind"] == "Pod" for gvk, _ in owned):
        own_pod = None
    # Pods the controller owns itself, counted at the root, beside workloads it builds with other counts.
    own_pods = facts is not None and facts.count_at_root is not None and any(g["kind"] == "Pod" for g, _ in owned)
    if own_pods and facts is not None and facts.count_at_root is not None:
        own_pods = all(b.count != facts.count_at_root.segments for b in built)
    if not sites and (not children or own_pods):
        rendered = rendered_workloads(api_source, facts.kind) if api_source is not None and facts else []
        through = pods_through(owned, rendered)
        if own_pod is not None:
            root["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
            builder.note(
                (*root_path, "specDefinition"),
                MEDIUM,
                f"the controller owns Pods and composes one at {own_pod.where} ({own_pod.function}, reached by",
                f"{' > '.join(own_pod.chain)}; a PodSpec it builds, no field of the object copied as one): no",
                "path reads the pod; its pods are counted, their containers not read.",
            )
        elif through is not None:
            root["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
            builder.note(
                (*root_path, "specDefinition"),
                LOW,
                f"{through[1]}, and the object holds no pod definition: the operator composes the pod, no path",
                "reads it; its pods are counted, their containers not read.",
            )
        elif members := (members_naming(go_code, facts.kind, facts.version) if go_code is not None and facts else []):
            # A hub other kinds join by naming it: their controllers make the pods, the root has none to read.
            builder.note(
                (*root_path, "kind"),
                LOW,
                f"no pods of its own: {len(members)} other kind(s) of its API name it in their spec",
                f"({', '.join(members[:MAX_MEMBERS_SAID])}{', ...' if len(members) > MAX_MEMBERS_SAID else ''});",
                "their controllers make the pods, found by that name, not owned by it: define those kinds.",
            )
        else:
            where = "the schema and samples show no PodTemplateSpec, PodSpec or container list"
            root["specDefinition"] = {
                "podTemplateSpecPath": builder.todo(
                    (*root_path, "specDefinition", "podTemplateSpecPath"), f"where the pods come from: {where}"
                )
            }
        if facts is not None and facts.count_at_root is not None:
            count = facts.count_at_root
            default = count.default if isinstance(count.default, int) else 1
            root["scaleDefinition"] = {"replicasPath": f"{jq(count.segments)} // {default}"}
            told_by = "name" if count.segments[-1] in REPLICA_NAMES else "description"
            builder.note(
                (*root_path, "scaleDefinition", "replicasPath"),
                MEDIUM,
                f"{count.path} counts the pods (its {told_by});",
                f"unset reads {default}."
                + ("" if own_pod is not None or through is not None else " Where their template is, is left to do."),
            )
        if through is not None:
            # The one workload kind the controller makes: the pods it builds from the object's fields are its.
            additional.append(dict(through[0]))
            if through[0]["kind"] == "Deployment":
                additional.append({"group": "apps", "version": "v1", "kind": "ReplicaSet"})
            builder.note(
                (*base, "additionalChildKinds"),
                LOW,
                f"{through[1]}: the root's pods are owned through it.",
            )
    # The operator's code counting a workload it builds with that field: the field is that workload's count.
    counted_by_built = facts is not None and any(
        b.count == facts.replicas_at_root.segments for b in built if facts.replicas_at_root is not None
    )
    if facts is not None and facts.replicas_at_root is not None and not on_root and sites and not counted_by_built:
        root["scaleDefinition"] = {"replicasPath": f"{jq(facts.replicas_at_root.segments)} // 1"}
        builder.note(
            (*root_path, "scaleDefinition"),
            LOW,
            f"{facts.replicas_at_root.path}: copies of the whole set of roles",
            "(every role's count is multiplied by it).",
        )
    observed.apply(builder, facts, moments, observed.Structure(root, children, additional, origins, taken))
    root["statusDefinition"] = statuses.status_definition(
        builder, facts, found, (*root_path, "statusDefinition"), moments
    )
    if facts is not None and facts.suspend:
        suspend_field, on, off = facts.suspend[0]
        root["suspendDefinition"] = {
            "suspendActions": [{"path": jq(suspend_field.segments), "value": on}],
            "resumeActions": [{"path": jq(suspend_field.segments), "value": off}],
        }
        how = (
            "an inverse switch: false stops it"
            if on == "false"
            else ("an operating mode" if suspend_field.schema.get("type") == "string" else "a switch")
        )
        builder.note(
            (*root_path, "suspendDefinition"),
            MEDIUM if suspend_field.schema.get("type") == "boolean" else LOW,
            f"{suspend_field.path} ({suspend_field.schema.get('type')}, {how}) {suspend_origin}:",
            f"{on} stops, {off} resumes.",
        )
    elif facts is not None and facts.annotation_switches:
        key, where = facts.annotation_switches[0]
        annotation = f'.metadata.annotations["{key}"]'
        on = facts.annotation_values.get(key, "true")
        off = OPPOSITES.get(on.lower(), "false")
        root["suspendDefinition"] = {
            "suspendActions": [{"path": annotation, "value": json.dumps(on)}],
            "resumeActions": [{"path": annotation, "value": json.dumps(off)}],
        }
        said = "the value the operator compares it with" if key in facts.annotation_values else "drafted"
        builder.note(
            (*root_path, "suspendDefinition"),
            LOW,
            f"the annotation {key} pauses the object ({where}); check the values the operator reads",
            f'("{on}"/"{off}": {said}; some read "on"/"off").',
        )
    if on_root and not additional and facts is not None and facts.through_replicasets:
        additional.append({"group": "apps", "version": "v1", "kind": "ReplicaSet"})
        builder.note(
            (*base, "additionalChildKinds"),
            MEDIUM,
            ".spec is shaped like a DeploymentSpec (template, selector, strategy): its controller rolls the pods",
            "out through ReplicaSets it owns, as a Deployment's does.",
        )
    structure: dict[str, Any] = {"rootComponent": root}
    if children:
        structure["childComponents"] = children
    if additional:
        structure["additionalChildKinds"] = additional
        if (*base, "additionalChildKinds") not in builder.notes:
            builder.note((*base, "additionalChildKinds"), HIGH, "owners between the root and its sample pods.")
    spec: dict[str, Any] = {"structureDefinition": structure}
    batch = statuses.batch_evidence(facts, found, sites)
    if batch and (len(sites) > 1 or any(s.collections for s in sites)):
        spec["optimizationInstructions"] = {
            "gangScheduling": {
                "podGroups": [{"name": root_name, "members": [{"componentName": root_name, "groupByKeyPaths": []}]}]
            }
        }
        builder.note(
            ("spec", "optimizationInstructions"),
            MEDIUM,
            "several roles (or a list/map of them) in one run-to-completion object: its pods start together,",
            f"one gang per object ({batch}).",
        )
    karta = {
        "apiVersion": "run.ai/v1alpha1",
        "kind": "Karta",
        "metadata": {"name": slug(GroupVersionKind(group=group, version=version_name, kind=kind))},
        "spec": spec,
    }
    pods = sum(len(p) for p in found.pods.values())
    header = [
        f"Draft definition for {kind}.{group} {version_name}, written by `wmap definitions new`",
        f"from {', '.join(sources) or 'the given objects'}",
        f"({len(found.roots)} sample object(s), {pods} sample pod(s)).",
        "Each guess says its evidence and confidence [high|medium|low]; review the low ones first.",
        f"Every {TODO_MARK} is something the draft could not infer: `wmap validate` lists them.",
        "Then prove it: wmap definitions test THIS.yaml --samples DIR",
    ]
    text = render(karta, builder.notes, header)
    return Draft(
        karta, text, builder.todos, builder.guesses, len(found.roots), pods, builder.covering(group, kind), warnings
    )


def _built_evidence(maker: gochildren.BuiltChild) -> list[str]:
    how = f"; its {maker.count_key} reads {schema_path(maker.count)}" if maker.count else ""
    return [
        f"the operator builds a {maker.kind['kind']} for these pods at {maker.where}{how}",
        f"({maker.function}, reached by {' > '.join(maker.chain)}).",
    ]
