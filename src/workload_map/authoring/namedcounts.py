"""Counts named after the pod definition they count: ``workerReplicas`` beside ``workerTemplate`` (a role with
an entry pod and its workers, ``roles[]: {replicas, entryTemplate, workerTemplate, workerReplicas}``).

schema.py takes a role's ``replicas`` for each pod definition of the role; a count whose name is the
definition's own word says how many of THAT definition's pods there are. In a list item (one role of several)
the item's ``replicas`` counts copies of the role, each with that many such pods: the two multiply. On an
object that is no list item, the named count is the definition's own and replaces the other.
"""

from __future__ import annotations

from workload_map.authoring.evidence import ARRAY, MAP
from workload_map.authoring.schemafacts import Field, SchemaFacts, Site

DEFINITION_SUFFIXES = ("PodTemplate", "Template", "PodSpec", "Spec")
COUNT_SUFFIXES = ("Replicas", "Count", "Size", "Num")


def named_counts(facts: SchemaFacts) -> None:
    """Give each site whose definition has a count named after it (``workerTemplate``: ``workerReplicas``)
    that count: with the list item's own count as copies of the role, else alone."""
    for site in facts.sites:
        named = _named_count(facts, site)
        if named is None or (site.replicas is not None and site.replicas.segments == named.segments):
            continue
        in_item = bool(site.role) and site.role[-1] in (ARRAY, MAP)
        held_by_role = site.replicas is not None and site.replicas.segments[:-1] == site.role
        if in_item and held_by_role and site.hosts is None:
            site.hosts = named  # per copy of the role, that many of these pods
        elif site.hosts is None:
            site.replicas = named


def _named_count(facts: SchemaFacts, site: Site) -> Field | None:
    """The integer beside the definition named by its word (``worker`` of ``workerTemplate``)."""
    if site.form not in ("template", "podspec") or not site.segments or site.segments[:-1] != site.role:
        return None
    key = site.segments[-1]
    word = next((key[: -len(s)] for s in DEFINITION_SUFFIXES if key.endswith(s) and len(key) > len(s)), None)
    if not word:
        return None
    for suffix in COUNT_SUFFIXES:
        found = facts.field_at((*site.role, word + suffix))
        if found is not None and found.schema.get("type") == "integer":
            return found
    return None
