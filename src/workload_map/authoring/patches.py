"""Fields shaped like pods that are not a pod of their own: containers that join a pod built elsewhere, and
a pod template under an override or patch of a workload the operator builds.

A list of containers named as extra ones (``additionalContainers``, ``sidecars``, ``extraContainers``,
``initContainers``) runs beside the main containers of a pod the operator assembles: alone in its object it
is no pod definition (beside one, ``roles.one_pod_per_role`` already adds it to that pod). A template under
a field named ``override``/``patch`` is merged over the workload the operator builds: the pods are that
workload's, and their definition is the operator's, not the path's.
"""

from __future__ import annotations

import re

from workload_map.authoring.evidence import Segments
from workload_map.authoring.schema import Site

# Words of a container list's name saying its containers join others (camelCase split to words).
EXTRA_WORDS = frozenset({"additional", "extra", "sidecar", "sidecars", "init", "ephemeral", "auxiliary"})
PATCH_WORDS = re.compile(r"^(overrides?|patch(es)?)$", re.I)


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
