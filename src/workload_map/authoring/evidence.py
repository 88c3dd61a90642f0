"""What a draft guess rests on: the evidence shown beside it in the YAML, and how sure we are.

Confidence is a word, not a number: ``high`` (the schema or a sample says exactly this), ``medium``
(a convention most operators follow, e.g. ``replicas`` beside a template counts its pods), ``low``
(a name matched a vocabulary, nothing confirmed it). A reviewer reads the low ones first.
"""

from __future__ import annotations

from collections.abc import Sequence

from workload_map.definition.gaps import TODO_MARK

__all__ = ["TODO_MARK"]

HIGH = "high"
MEDIUM = "medium"
LOW = "low"


ARRAY = "[]"  # a path segment: every item of a list
MAP = "{}"  # a path segment: every value of a map

Segments = tuple[str, ...]

# The key a copy of the schema carries beside a default the operator's code gives (godefaults.py), not the
# CRD: who gives it and where, for the notes to say instead of "schema default".
FILLED_BY = "x-wmap-filled-by"


def default_origin(schema: dict[str, object]) -> str:
    """Who gives a field's default: the operator's code (where), else the schema."""
    said = schema.get(FILLED_BY)
    return str(said) if said else "schema default"


def todo(what: str, value: str = "empty") -> str:
    """A gap (docs/definition-format.md, "Gaps in a draft"): ``value``, then the TODO marker in a jq comment.

    ``empty`` gives no output, which every field reads as "not there": a selector claims no pod, a status
    matcher never matches, a template path addresses nothing (the operator's default pod, no update
    target). Where "not there" would change a count (instance ids), ``value`` is the neutral expression."""
    # One line: a newline would end the comment, and a trailing backslash continues it onto the next.
    note = " ".join(what.split()).rstrip("\\")
    return f"{value}  # {TODO_MARK}: {note}"


def schema_path(segments: Sequence[str]) -> str:
    """``.spec.workerGroupSpecs[].template`` for the segments of a schema walk."""
    out = ""
    for segment in segments:
        if segment == ARRAY:
            out += "[]"
        elif segment == MAP:
            out += "{}"
        else:
            out += f".{segment}" if segment.isidentifier() else f'["{segment}"]'
    return out or "."
