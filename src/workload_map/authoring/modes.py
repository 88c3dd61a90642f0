"""Components of workloads chosen by a mode (gomodes.py): one component per workload the operator may build,
each counting its pods only while the mode field selects it, so that a resolved object shows the pods of its
chosen mode alone. An empty field reads as its default: the schema's, else the one the code gives it."""

from __future__ import annotations

import re
from typing import Any

from workload_map.authoring.builder import Builder, jq
from workload_map.authoring.children import read_composed_pod
from workload_map.authoring.evidence import MEDIUM, TODO_MARK, schema_path
from workload_map.authoring.gomodes import ModeChild, Modes
from workload_map.authoring.render import Path
from workload_map.authoring.schemafacts import SchemaFacts

# The kind that owns a workload's pods, where it is not the workload itself.
POD_OWNERS = {"Deployment": "ReplicaSet", "CronJob": "Job"}
OWNER_KIND = "first(.metadata.ownerReferences[]? | select(.controller == true) | .kind)"


def mode_components(  # noqa: PLR0917 - the builder's state it adds to, each by name at its one call
    builder: Builder,
    facts: SchemaFacts,
    modes: Modes,
    children: list[dict[str, Any]],
    taken: set[str],
    root: str,
) -> None:
    for mode in modes.children:
        selector = facts.field_at(mode.field)
        if selector is None or selector.schema.get("type") != "string":
            continue  # a switch on something the schema does not hold as a string: not a mode of the object
        _component(builder, facts, modes, mode, children, taken, root)


def _component(  # noqa: PLR0917 - one mode's workload, each by name at its one call
    builder: Builder,
    facts: SchemaFacts,
    modes: Modes,
    mode: ModeChild,
    children: list[dict[str, Any]],
    taken: set[str],
    root: str,
) -> None:
    child = mode.child
    path: Path = ("spec", "structureDefinition", "childComponents", len(children))
    kind_name = child.kind["kind"]
    name = re.sub(r"[^a-z0-9-]", "", "-".join(mode.values).lower()) or kind_name.lower()
    while name in taken:
        name += "x"
    taken.add(name)
    where = schema_path(mode.field)
    component: dict[str, Any] = {"name": name, "ownerRef": root, "kind": dict(child.kind)}
    chosen = " or ".join(repr(v) for v in mode.values)
    builder.note(
        (*path, "kind"),
        MEDIUM,
        f"the operator builds a {kind_name} at {child.where} only when {where} is {chosen}",
        f"(a switch on it, reached by {' > '.join(child.chain)}).",
    )
    if child.composed:
        read_composed_pod(builder, component, path, kind_name, child.where)
    else:
        component["specDefinition"] = {
            "podTemplateSpecPath": builder.todo(
                (*path, "specDefinition", "podTemplateSpecPath"),
                f"the pods of the {kind_name} built at {child.where}: where the operator takes their template from",
            )
        }
    selector = facts.field_at(mode.field)
    default = selector.schema.get("default") if selector is not None else None
    said = "the schema's default"
    if not isinstance(default, str):
        default, said = modes.defaults.get(mode.field), "the code's default for an empty field"
    value = f'({jq(mode.field)} // "{default}")' if default else jq(mode.field)
    test = " or ".join(f'. == "{v}"' for v in mode.values)
    count = facts.field_at(child.count) if child.count is not None else None
    replicas_path = (*path, "scaleDefinition", "replicasPath")
    if count is not None and count.schema.get("type") in ("integer", "number"):
        number = count.default if isinstance(count.default, int) else 1
        pods = f"({jq(count.segments)} // {number})"
        builder.note(replicas_path, MEDIUM, f"its {child.count_key} reads {count.path}; unset reads {number}.")
    elif kind_name == "DaemonSet":
        pods = builder.todo(replicas_path, "one pod per node the DaemonSet runs on: the cluster decides how many")
    else:
        pods = builder.todo(replicas_path, f"the pods of the {kind_name} built at {child.where}: its count")
    # A gap's jq comment runs to the end of its line: the expression goes on after it on the next.
    before, after = ("\n  ", "\n") if TODO_MARK in pods else (" ", " ")
    component["scaleDefinition"] = {"replicasPath": f"if ({value} | {test}) then{before}{pods}{after}else 0 end"}
    builder.note(
        replicas_path,
        MEDIUM,
        f"no pods unless {where} is {chosen}" + (f" (unset reads {default!r}: {said})." if default else "."),
    )
    # Every mode's workload has pods and none has a label the code is known to stamp: the kind owning the
    # pods tells them apart (only one of these workloads exists for an object).
    owner = POD_OWNERS.get(kind_name, kind_name)
    component["podSelector"] = {
        "componentTypeSelector": {"keyPath": OWNER_KIND, "value": owner},
    }
    builder.note(
        (*path, "podSelector"), MEDIUM, f"the pods owned by a {owner}: the {kind_name} of this mode makes them."
    )
    children.append(component)
