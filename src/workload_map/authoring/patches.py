"""Fields shaped like pods that are not a pod of their own: containers that join a pod built elsewhere, and
a pod template under an override or patch of a workload the operator builds.

A list of containers named as extra ones (``additionalContainers``, ``sidecars``, ``extraContainers``,
``initContainers``) runs beside the main containers of a pod the operator assembles: alone in its object it
is no pod definition (beside one, ``roles.one_pod_per_role`` already adds it to that pod). A template under
a field named ``override``/``patch`` is merged over the workload the operator builds: the pods are that
workload's, and their definition is the operator's, not the path's. So is a pod definition named as an extra
part (``extraPodSpec``: a few pod fields the operator copies into the pod it builds) or described as merged
over the pod the operator generates ("modifications are done via a strategic merge patch"), and a list of
containers beside an ``image`` field (no PodSpec has one): the operator's own main container runs that image,
the list joins it. An open object
the schema marks as a whole embedded resource (``x-kubernetes-embedded-resource``: apiVersion, kind,
metadata) is an object of any kind the operator creates, whose pods sit somewhere inside it: a pod template
is never a resource of its own (it has no kind), so the path does not read the pod.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from workload_map.authoring.evidence import Segments
from workload_map.authoring.gomerges import MergedField, merged_over
from workload_map.authoring.schemafacts import SchemaFacts, Site

# Words of a container list's name saying its containers join others (camelCase split to words).
EXTRA_WORDS = frozenset({"additional", "extra", "sidecar", "sidecars", "init", "ephemeral", "auxiliary"})
PATCH_WORDS = re.compile(r"^(overrides?|patch(es)?)$", re.I)
# A description saying the pod definition is merged over (or modifies) a pod the operator makes itself.
MERGED_DESCRIPTION = re.compile(
    r"strategic[- ]merge[- ]patch|\bmerged (?:into|over|onto|with)\b|"
    r"\bbeyond what is provided by the other fields\b|\bmodify(?:ing)? (?:the )?operator[- ]generated\b",
    re.I,
)


def _words(name: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name)}


def extra_containers(sites: list[Site]) -> tuple[list[Site], list[Site]]:
    """Drop the container lists named as extra containers that are alone in their object (no other pod
    definition beside them to join): the operator adds them to a pod it builds, and a count beside them
    counts that pod. Returns kept and dropped."""
    dropped = [
        site
        for site in sites
        if site.form == "containers"
        and _words(site.segments[-1]) & EXTRA_WORDS
        and not any(other is not site and other.role == site.role for other in sites)
    ]
    return [site for site in sites if site not in dropped], dropped


def patched_by(site: Site) -> Segments | None:
    """The override/patch field a pod definition sits under (``.spec.override``), else None."""
    for index, segment in enumerate(site.segments):
        if PATCH_WORDS.match(segment):
            return site.segments[: index + 1]
    return None


def merged_into(facts: SchemaFacts | None, site: Site, merges: Sequence[MergedField] = ()) -> str | None:
    """Why a pod definition is a fragment the operator merges into a pod it builds, else None: a template or
    PodSpec named as an extra part (``extraPodSpec``), one the operator's code merges with a value it builds
    (gomerges.py), any pod definition whose description says it is merged over (or modifies) the
    operator's pod, or containers beside the image of the operator's own container (``own_image``)."""
    if site.form in ("template", "podspec") and _words(site.segments[-1]) & {"extra", "additional"}:
        return f"named as an extra part ({site.segments[-1]})"
    merge = merged_over(list(merges), site.segments, podspec=site.form == "podspec")
    if merge is not None:
        return f"merged with what the operator's code builds ({merge.how} at {merge.where})"
    found = facts.field_at(site.segments) if facts is not None else None
    description = str(found.schema.get("description") or "") if found is not None else ""
    said = MERGED_DESCRIPTION.search(description)
    if said is not None:
        return f"described as merged ({said.group(0)!r})"
    image = own_image(facts, site)
    return f"beside {image}, the image of the operator's own container these containers join" if image else None


def own_image(facts: SchemaFacts | None, site: Site) -> str | None:
    """The ``image`` field beside a list of containers (in the object holding the list, or the PodSpec-shaped
    object itself): no PodSpec has one, so it is the image of the main container the operator writes, and
    the listed containers are extra ones joining it (``{image, replicas, containers}``). Its path, else None."""
    if facts is None or site.form not in ("containers", "podspec"):
        return None
    holder = site.segments if site.form == "podspec" else site.role
    image = facts.field_at((*holder, "image"))
    return image.path if image is not None and image.schema.get("type") in ("string", "object") else None


def whole_object(facts: SchemaFacts | None, site: Site) -> bool:
    """An open object taken for a pod definition that the schema marks as a whole embedded resource."""
    found = facts.field_at(site.segments) if facts is not None and site.free_form is not None else None
    return found is not None and found.schema.get("x-kubernetes-embedded-resource") is True
