"""Drafting a definition from a CRD, sample objects and the pods they own (`wmap definitions new`).

The inference reads structure, never framework names: ``schema.py`` walks the CRD's schema,
``samples.py`` what sample objects show where the schema is open, ``selectors.py`` the labels on sample
pods, ``status.py`` the words of condition types and phases, ``gosource.py`` the operator's Go source;
``draft.py`` writes the commented Karta from its parts: ``roles.py`` (each pod definition's component),
``children.py`` (the objects between the root and its pods), ``statuses.py`` (the status definition), all
noting their evidence in a ``builder.Builder``.
"""

from workload_map.authoring.draft import Draft, draft
from workload_map.authoring.samples import Sample

__all__ = ["Draft", "Sample", "draft"]
