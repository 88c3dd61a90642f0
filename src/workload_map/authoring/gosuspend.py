"""A boolean of the spec the operator's code scales the pods to zero with (``--api-source``).

Not every stop switch is named suspend or paused (schema.py reads those): an operator often takes the count
from the spec and zeroes it while a boolean of its own is on, ``replicas := x.Spec.Replicas`` then ``if
x.Spec.Offline { replicas = 0 }`` before building the workload. That boolean stops the pods (true) and brings
them back (false), whatever its name says.
"""

from __future__ import annotations

from pathlib import Path

from workload_map.authoring.evidence import Segments
from workload_map.authoring.gocode import GoCode, kind_code
from workload_map.authoring.gofilled import _switched_on
from workload_map.authoring.gofuncs import _balanced, headed_blocks
from workload_map.authoring.golocator import _assignment
from workload_map.authoring.goread import go_type_name


def zeroing_switches(root: Path | GoCode, kind: str, version: str) -> list[tuple[Segments, str]]:
    """The spec's fields a block ``if x.Spec.B { n = 0 }`` tests, ``n`` a local given a count of the spec
    first: (the switch's path, file:line of the block), in the order the code has them."""
    code = kind_code(root, go_type_name(kind), version)
    if code is None:
        return []
    program, locator, _ = code
    found: list[tuple[Segments, str]] = []
    for function in program.mentioning(go_type_name(kind)):
        body = function.body
        for condition, opening in headed_blocks(body, "if"):
            switch = _switched_on(condition)
            if switch is None or len([t for t in condition if t.text != "\n"]) != len(switch):
                continue  # a test of a boolean alone (not a presence, not a comparison)
            inner = [t.text for t in body[opening + 1 : _balanced(body, opening) - 1] if t.text not in ("\n", ";")]
            if len(inner) != 3 or inner[1:] != ["=", "0"] or not inner[0].isidentifier():
                continue
            counted = _assignment(body, inner[0])
            count = locator.locate(counted[0], function) if counted is not None and not counted[1] else None
            place = locator.locate(switch, function)
            if count is None or count.segments is None or count.segments[:1] != ("spec",):
                continue  # zeroing something else than a count of the spec
            if place is not None and place.segments and place.segments[0] == "spec":
                found.append((place.segments, f"{function.file.path}:{body[opening].line}"))
    return found
