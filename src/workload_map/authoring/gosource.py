"""Status values from an operator's Go API types (``wmap definitions new --api-source DIR``).

A CRD seldom enumerates the phases and condition types its operator writes; the Go types it is generated
from do: ``type JobPhase string`` with ``const ( JobRunning JobPhase = "Running" ... )``, a condition
struct whose ``Type`` is such a string type, ``+kubebuilder:validation:Enum=`` markers. From the kind's
struct (read by goread.py) this follows the ``status`` field to its struct, walks its fields by their json
tags and links each phase-like string field to the values its type (or its marker) declares, else to those
the controller writes into it (gowrites.py), and the conditions to the constants of their type. What the
controller makes is goowners.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from workload_map.authoring import gowrites, status as vocabulary
from workload_map.authoring.evidence import LOW, Segments
from workload_map.authoring.gofuncs import functions
from workload_map.authoring.goowners import owned
from workload_map.authoring.goread import (
    PHASE_TYPE,
    GoConst,
    GoField,
    GoFile,
    GoType,
    Package,
    bare_type,
    go_type_name,
    read_imports,
)

ENUM_MARKER = re.compile(r"\+kubebuilder:validation:Enum=(\S+)")
PHASE_FIELD = re.compile(r"^(phase|state|status|lifecycleState)$|(Phase|State|Status)$")
CONDITION_TYPE = re.compile(r"Condition(Type)?$")
# ``FarmCondWatered``, ``CondHarvested``: a condition constant named with the short ``Cond``.
CONDITION_ABBREVIATED = re.compile(r"(?:^|[a-z])Cond(?=[A-Z])")
CAMEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
MAX_DEPTH = 3


@dataclass
class ApiValues:
    """What the API types say of one kind's status: values per status field, condition types, and the
    warnings on what could not be read (each located: file, line)."""

    phases: dict[Segments, list[tuple[str, str]]] = field(default_factory=dict)  # field -> (value, evidence)
    conditions: list[tuple[str, str]] = field(default_factory=list)  # (type, evidence)
    annotations: list[tuple[str, str]] = field(default_factory=list)  # (pause/hibernation annotation, evidence)
    # The value the controller compares such an annotation with (``== "on"``): what suspends it.
    annotation_values: dict[str, str] = field(default_factory=dict)
    # Kinds the kind's controller owns that may make pods (``For(&Kind{}).Owns(&appsv1.StatefulSet{})``); one
    # of another project carries its ``importPath`` and an empty group, for the caller's catalog to name.
    owned: list[tuple[dict[str, str], str]] = field(default_factory=list)  # ({group, version, kind}, evidence)
    # What a written value means where its words do not say it (gowrites.py): (field, value) -> (status,
    # confidence, why), from its constant's name or from a failure path it is written on.
    meanings: dict[tuple[Segments, str], tuple[str, str, str]] = field(default_factory=dict)
    # Status counts the controller fills with a workload's ready pods (``status.Replicas = sts.Status.ReadyReplicas``).
    ready_counts: list[tuple[Segments, str]] = field(default_factory=list)  # (field, evidence)
    # Switches of the spec whose doc says they stop only the operator's work, not the pods (evidence).
    operator_switches: list[tuple[Segments, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    kind_at: str | None = None  # file:line of the kind's struct


class _Linker:
    def __init__(self, package: Package, values: ApiValues, kind: str = "") -> None:
        self.package = package
        self.values = values
        self.kind = kind  # the kind's Go type name, which a package's constants may be named after

    def resolve(self, type_expr: str, where: GoFile) -> GoType | None:
        """The declaration a field's type names: in the same directory, else in the folder the import
        names (``folders_of``); None outside the source given."""
        qualifier, name = bare_type(type_expr)
        if qualifier is None:
            return self.package.types.get((where.directory, name))
        path = where.imports.get(qualifier)
        if path is None:
            return None
        for directory in self.package.folders_of(path):
            self.package.load(directory)
            if (declared := self.package.types.get((directory, name))) is not None:
                return declared
        return None

    def evidence(self, const: GoConst) -> str:
        doc = " ".join(d for d in const.doc if not d.startswith("+"))
        said = f": {doc[:120]}" if doc else ""
        return f"declared in {const.file.path}:{const.line} ({const.name}{said})"

    def constants_of(self, declared: GoType) -> list[GoConst]:
        """The constants of a named type; none in the folders read so far, those of another package that
        declares constants of it (``const PhaseBuilding v1.Phase = "Building"`` in a controller package)."""
        for attempt in range(2):
            found = [
                c
                for c in self.package.consts
                if c.type_name is not None
                and bare_type(c.type_name)[1] == declared.name
                and self.resolve(c.type_name, c.file) is declared
            ]
            if found or attempt:
                return found + self.untyped_beside(declared, found)
            self.load_declaring(declared.name)
        return []

    def untyped_beside(self, declared: GoType, typed: list[GoConst]) -> list[GoConst]:
        """Untyped constants written beside the typed ones and named after the type (``ClusterConditionError
        = "Error"`` under ``ClusterConditionReady ClusterConditionType = "Ready"``): Go gives a constant with
        its own value and no type none, but its name and place say it is one of the type's values."""
        stem = declared.name.removesuffix("Type")
        files = {id(c.file) for c in typed}
        return [
            c
            for c in self.package.consts
            if c.type_name is None
            and id(c.file) in files
            and _named_after(c.name, stem)
            and not any(w in c.name for w in ("Reason", "Message"))  # a condition's reason, not its type
            and c not in typed
        ]

    def load_declaring(self, type_name: str) -> None:
        """Load the folders with a file declaring a constant of ``<qualifier>.<type_name>``."""
        typed = re.compile(rf"^\s*\w+\s+\w+\.{re.escape(type_name)}\s*=|\w+\.{re.escape(type_name)}\(\s*\"", re.M)
        for directory, paths in self.package.folders.items():
            if directory in self.package.loaded:
                continue
            if any(f".{type_name}" in (text := self.package.text(p) or "") and typed.search(text) for p in paths):
                self.package.load(directory)

    def marker_values(self, doc: list[str], where: str) -> list[tuple[str, str]]:
        for line in doc:
            if match := ENUM_MARKER.search(line):
                listed = [v.strip('"') for v in match.group(1).split(";")]
                return [(v, f"the marker +kubebuilder:validation:Enum at {where}") for v in listed if v]
        return []

    def field_values(self, go_field: GoField, owner: GoType) -> list[tuple[str, str]]:
        where = f"{owner.file.path}:{go_field.line}"
        found = self.marker_values(go_field.doc, where)
        if found:
            return found
        declared = self.resolve(go_field.type_expr, owner.file)
        if declared is not None and declared.underlying != "struct":
            found = self.marker_values(declared.doc, f"{declared.file.path}:{declared.line}")
            # The constants' doc comments say more of each value than the type's marker listing it.
            said = {c.value: self.evidence(c) for c in self.constants_of(declared)}
            return [(v, said.get(v, why)) for v, why in found] if found else list(said.items())
        if go_field.type_expr == "string" and go_field.names:
            # A plain string phase: the package's untyped constants named after the field (``PhaseHealthy``),
            # or after the kind and the field (``WidgetClusterStateRunning`` for a WidgetCluster's ``State``:
            # a package of several kinds keeps each kind's values apart by the kind's name).
            prefixes = [go_field.names[0]] + ([self.kind + go_field.names[0]] if self.kind else [])
            return [
                (c.value, self.evidence(c))
                for c in self.package.consts
                if c.type_name in (None, "string")
                and c.file.directory == owner.file.directory
                and any(_named_after(c.name, prefix) for prefix in prefixes)
            ]
        return []

    def walk(
        self, struct: GoType, segments: Segments, seen: set[int], depth: int = 0
    ) -> Iterator[tuple[Segments, GoField, GoType]]:
        if id(struct) in seen or depth > MAX_DEPTH:
            return
        seen = seen | {id(struct)}
        for go_field in struct.fields:
            if go_field.json == "-":
                continue
            nested = (
                self.resolve(go_field.type_expr, struct.file)
                if not go_field.type_expr.startswith(("[]", "map["))
                else None
            )
            if not go_field.names and not go_field.json:
                if nested is not None and nested.underlying == "struct":
                    yield from self.walk(nested, segments, seen, depth)
                continue
            name = go_field.json or (go_field.names[0] if go_field.names else "")
            if not name:
                continue
            yield (*segments, name), go_field, struct
            if nested is not None and nested.underlying == "struct":
                yield from self.walk(nested, (*segments, name), seen, depth + 1)

    def conditions(self, status: GoType, kind: GoType) -> None:
        """Condition types: the constants of the condition struct's ``Type``; without a typed one (a shared
        metav1.Condition), the condition-typed constants declared beside the kind. None for a status that
        keeps no condition list: the condition types a package declares or its controllers build are then
        another kind's."""
        if self.keeps_no_conditions(status):
            return
        item_name = "Condition"  # the struct the status lists its conditions in
        for segments, go_field, owner in self.walk(status, ("status",), set()):
            listed = self.slice_item(go_field.type_expr, owner.file) if segments[-1] == "conditions" else None
            if listed is None:
                continue
            item_name = bare_type(listed[0])[1]
            item = self.resolve(*listed)
            if item is None and (core := _core_condition_types(*listed)):
                self.values.conditions += core
                return
            type_field = next((f for f in item.fields if f.json == "type"), None) if item else None
            typed = self.resolve(type_field.type_expr, item.file) if type_field and item else None
            if typed is not None and typed.underlying != "struct":
                found = self.marker_values(typed.doc, f"{typed.file.path}:{typed.line}")
                constants = self.constants_of(typed)
                # A condition type shared by a project's kinds (a common package): the kind's own constants.
                own = [c for c in constants if c.file.directory == kind.file.directory]
                self.values.conditions += found or [(c.value, self.evidence(c)) for c in own or constants]
                if found or constants:
                    return
        declared = [(c.value, self.evidence(c)) for c in self.kind_conditions(kind)]
        if not declared:
            # Untyped constants elsewhere (a controller package): the types its Condition literals are built with.
            package = self.package
            built = gowrites.written_condition_types(
                package.all_files(), package.root, package.text, kind.name, _constants(package), item_name
            )
            declared = [(w.value, w.evidence.replace("written at", "built at")) for w in built]
        self.values.conditions += declared

    def keeps_no_conditions(self, status: GoType) -> bool:
        """The status type has no ``conditions`` field (its own or an inline struct's) and embeds no type the
        source given does not hold (``duckv1.Status`` may bring one)."""
        if any(segments[-1] == "conditions" for segments, _, _ in self.walk(status, ("status",), set())):
            return False
        return all(f.names or self.resolve(f.type_expr, status.file) is not None for f in status.fields)

    def slice_item(self, type_expr: str, where: GoFile) -> tuple[str, GoFile] | None:
        """The item type of a list field: ``[]Condition``, or a named list (``type Conditions []Condition``)."""
        if type_expr.startswith("[]"):
            return type_expr[2:], where
        declared = self.resolve(type_expr, where)
        if declared is not None and declared.underlying.startswith("[]"):
            return declared.underlying[2:], declared.file
        return None

    def kind_conditions(self, kind: GoType) -> list[GoConst]:
        """Condition-typed constants in the kind's own files (its struct's file and files named after it);
        the whole package's when it declares no other kind."""
        stem = kind.name.lower()
        directory = kind.file.directory
        candidates = [
            c
            for c in self.package.consts
            if c.file.directory == directory
            and CAMEL.match(c.value)
            and (
                (c.type_name is not None and CONDITION_TYPE.search(bare_type(c.type_name)[1]))
                or (
                    c.type_name in (None, "string")
                    and ("Condition" in c.name or CONDITION_ABBREVIATED.search(c.name))
                    and not any(w in c.name for w in ("Reason", "Message"))
                )
            )
        ]
        kinds = [
            t
            for t in self.package.types.values()
            if t.file.directory == directory and any(not f.names and f.type_expr.endswith("TypeMeta") for f in t.fields)
        ]
        # The kind's files: its struct's, those named after it, and the folder's shared condition files.
        named = [c for c in candidates if c.file is kind.file or _file_stem(c).startswith(stem)]
        shared = [c for c in candidates if c not in named and _file_stem(c).startswith("condition")]
        if len(kinds) > 1 and shared:
            # Conditions shared by the folder's kinds: those the kind's own methods read or set (``func (m
            # *Kind) IsReady() bool``), not a backup kind's Complete.
            read = self.read_by_methods(kind, directory)
            shared = [c for c in shared if c.name in read] or shared
        if named or shared:
            return named + shared
        return candidates if len(kinds) == 1 else []

    def read_by_methods(self, kind: GoType, directory: str) -> set[str]:
        """The identifiers in the bodies of the kind's methods declared in its folder."""
        names: set[str] = set()
        for path in self.package.folders.get(directory, []):
            text = self.package.text(path) or ""
            if f"*{kind.name})" not in text and f" {kind.name})" not in text:
                continue
            for function in functions(GoFile(path.relative_to(self.package.root).as_posix()), text):
                if function.receiver == kind.name:
                    names.update(t.text for t in function.body)
        return names


# Condition lists of the core API's own types (a status keeping ``[]corev1.ComponentCondition``): the types
# Kubernetes declares for them, read nowhere in an operator's source.
CORE_CONDITIONS = {
    ("k8s.io/api/core/v1", "ComponentCondition"): ("Healthy",),
    ("k8s.io/api/core/v1", "PodCondition"): ("PodScheduled", "Initialized", "ContainersReady", "Ready"),
    ("k8s.io/api/batch/v1", "JobCondition"): ("Suspended", "Complete", "Failed"),
}


def _core_condition_types(item_type: str, where: GoFile) -> list[tuple[str, str]]:
    """The condition types of a core API condition struct a status lists (``[]corev1.ComponentCondition``)."""
    qualifier, name = bare_type(item_type)
    import_path = where.imports.get(qualifier) if qualifier else None
    types = CORE_CONDITIONS.get((import_path or "", name), ())
    return [(t, f"a condition type of {import_path} {name}, the item of the conditions at {where.path}") for t in types]


def _named_after(name: str, prefix: str) -> bool:
    """``PhaseHealthy`` is named after ``Phase``: the prefix, then a word of its own."""
    return name.startswith(prefix) and name[len(prefix) : len(prefix) + 1].isupper()


def _file_stem(const: GoConst) -> str:
    return const.file.path.rpartition("/")[2].replace("_", "")


def _find_kind(package: Package, kind: str, version: str) -> tuple[GoType | None, list[GoType]]:
    """The kind's struct: the one with a ``json:"status"`` field; without one, a kind that keeps no status
    (``TypeMeta`` and a ``spec`` only), whose workloads are still read."""
    structs = [t for t in package.types.values() if t.name == kind and t.underlying == "struct"]
    found = [t for t in structs if any(f.json == "status" for f in t.fields)] or [
        t for t in structs if _is_kind(t) and any(f.json == "spec" for f in t.fields)
    ]
    # Several API versions declare the kind: the CRD's version names the folder (api/v1beta2/...).
    exact = [t for t in found if version in t.file.directory.split("/")]
    candidates = exact or found
    return (candidates[0] if candidates else None), found


def api_values(root: Path, kind: str, version: str) -> ApiValues:
    """The status values the Go types under ``root`` declare for ``kind`` at ``version``; every warning is
    located under ``root`` (``ROOT/api/v1/x_types.go:12: ...``)."""
    values = _api_values(root, kind, version)
    values.warnings = [w if w.startswith(str(root)) else f"{root}/{w}" for w in values.warnings]
    return values


def _api_values(root: Path, kind: str, version: str) -> ApiValues:
    kind = go_type_name(kind)
    package = Package(root)
    for directory in package.folders_declaring(kind):
        package.load(directory)
    values = ApiValues(warnings=list(package.warnings))
    found, everywhere = _find_kind(package, kind, version)
    if found is None:
        values.warnings.append(
            f'{root}: no Go struct {kind} with a `json:"status"` field was found (read {len(package.files)} file(s))'
        )
        return values
    if not any(f.json == "status" for f in found.fields):
        values.kind_at = f"{found.file.path}:{found.line}"
        values.warnings.append(f'{values.kind_at}: {kind} has no `json:"status"` field: no status value read')
        values.owned = owned(package, found)
        return values
    if len([t for t in everywhere if t.file.directory == found.file.directory]) > 1:
        values.warnings.append(
            f"{found.file.path}:{found.line}: {kind} is declared twice in this folder; the first is read"
        )
    values.kind_at = f"{found.file.path}:{found.line}"
    linker = _Linker(package, values, found.name)
    status_field = next(f for f in found.fields if f.json == "status")
    status = linker.resolve(status_field.type_expr, found.file)
    if status is None or status.underlying != "struct":
        values.warnings.append(
            f"{found.file.path}:{status_field.line}: the status type {status_field.type_expr} is not declared "
            "in the source given (an imported package outside it?): no status value read"
        )
        return values
    copies = gowrites.ready_copies(package.all_files(), package.root, package.text, found.name)
    first_role = _first_role(status)
    role_phases: dict[Segments, list[tuple[str, str]]] = {}
    for segments, go_field, owner in linker.walk(status, ("status",), set()):
        if len(segments) == 2 and go_field.names and go_field.names[0] in copies and "int" in go_field.type_expr:
            values.ready_counts.append((segments, copies[go_field.names[0]]))
        if (pod_phase := _pod_phase(package, go_field, owner, segments)) is not None:
            values.phases[pod_phase[0]] = pod_phase[1]
            continue
        type_name = bare_type(go_field.type_expr)[1]
        if not (PHASE_FIELD.search(segments[-1]) or PHASE_TYPE.search(type_name)) or segments[-1] == "conditions":
            continue
        if go_field.type_expr.startswith(("[]", "map[")):
            continue
        if len(segments) > 3:
            # A phase deep in the status is a part's (an analysis run's), not the object's; but one in the status
            # of the first role, when the roles share a status struct, is the object's if nothing nearer is.
            if segments[1] == first_role and len(segments) <= MAX_ROLE_PHASE_DEPTH:
                role_phases.setdefault(segments, linker.field_values(go_field, owner))
            continue
        found_values = linker.field_values(go_field, owner)
        if not found_values and go_field.names and _is_string(linker, go_field, owner):
            written = _written(package, go_field.names[0], owner.name)
            found_values = [(w.value, w.evidence) for w in written]
            values.meanings.update(
                ((segments, w.value), meant) for w in written if (meant := written_meaning(w)) is not None
            )
        if found_values:
            values.phases[segments] = found_values
    if not any(len(segments) <= 3 for segments in values.phases):
        for segments, role_values in role_phases.items():
            if role_values:
                values.phases[segments] = role_values
                break
    linker.conditions(status, found)
    values.operator_switches = _operator_switches(linker, found)
    values.owned = owned(package, found)
    values.annotations = [
        (c.value, linker.evidence(c))
        for c in package.consts
        if c.file.directory == found.file.directory and switch_annotation(c.value) and not _selects(c.doc)
    ]
    reads = gowrites.annotations_read(package.all_files(), package.root, package.text, found.name, _constants(package))
    selections = {c.value for c in package.consts if _selects(c.doc)}  # the folders the reads loaded, too
    for read in reads:
        # Declared in a helper package (``utils.HibernationAnnotationName``): the controller's read says it.
        if switch_annotation(read.key) and read.key not in selections and not read.stops_operator:
            if read.key not in dict(values.annotations):
                values.annotations.append((read.key, read.evidence))
            if read.compared:
                values.annotation_values[read.key] = read.compared
    return values


# status.<role>.<part>.phase: the deepest a role's phase is read from.
MAX_ROLE_PHASE_DEPTH = 4


def _first_role(status: GoType) -> str | None:
    """The first field of a status whose struct type other fields share (``FrontStatus *PartStatus``,
    ``BackStatus *PartStatus``): one status per role of the kind's pods, the first declared being the role the
    others start after. Types of another package (``metav1.Time``) are no role's. None when no two fields share
    a type."""
    named = [f for f in status.fields if f.names and not f.type_expr.startswith(("[]", "map["))]
    types = [bare_type(f.type_expr) for f in named]
    for go_field, type_name in zip(named, types, strict=True):
        if types.count(type_name) > 1 and type_name[0] is None and type_name[1][:1].isupper():
            return go_field.json or go_field.names[0]
    return None


def _is_kind(declared: GoType) -> bool:
    """A struct that embeds ``TypeMeta``: an API object, not a same-named helper (a mock, a webhook)."""
    return any(not f.names and f.type_expr.endswith("TypeMeta") for f in declared.fields)


# A switch's doc saying it stops the operator's own work (VictoriaMetrics' ``paused``: "all actions on the
# underlying managed objects are not going to be performed"); what follows "except" is the exception.
OPERATOR_ONLY = re.compile(
    r"(?i)\breconcil\w*|\bactions? on the (?:\w+ ){0,3}(?:objects|resources)\b"
    r"|\bstops? managing\b|\bno longer manag\w*|\bunmanaged\b|\bprevents? (?:the )?(?:operator|controllers?) from\b"
)
STOPS_PODS = re.compile(r"(?i)\bpods?\b|delet|\bscal|terminat|shut ?down|hibernat")


def _operator_switches(linker: _Linker, kind: GoType) -> list[tuple[Segments, str]]:
    """The spec's booleans (the object's, or a part's: ``.spec.vminsert.paused``) whose doc says they pause
    the operator, not the pods it made."""
    spec_field = next((f for f in kind.fields if f.json == "spec"), None)
    spec = linker.resolve(spec_field.type_expr, kind.file) if spec_field is not None else None
    if spec is None or spec.underlying != "struct":
        return []
    found: list[tuple[Segments, str]] = []
    for segments, go_field, owner in linker.walk(spec, ("spec",), set()):
        doc = " ".join(d for d in go_field.doc if not d.startswith("+"))
        said = re.split(r"(?i)\bexcept\b", doc)[0]
        pauses_operator = OPERATOR_ONLY.search(said) is not None and STOPS_PODS.search(said) is None
        if go_field.type_expr == "bool" and pauses_operator:
            found.append((segments, f"{owner.file.path}:{go_field.line}: {doc[:120]}"))
    return found


POD_PHASES = gowrites.POD_PHASES  # for a status that copies a pod's own
CORE_API = "k8s.io/api/core/v1"


def _pod_phase(
    package: Package, go_field: GoField, owner: GoType, segments: Segments
) -> tuple[Segments, list[tuple[str, str]]] | None:
    """(the phase's path, the pod phases) for a status field that is a pod's status (``corev1.PodStatus``:
    its ``phase``) or a pod's phase (``corev1.PodPhase``), the core API's types, when the controller writes
    it (a pod status declared and never written, a printer column's leftover, says nothing)."""
    qualifier, name = bare_type(go_field.type_expr)
    if qualifier is None or name not in ("PodStatus", "PodPhase") or not go_field.names:
        return None
    if owner.file.imports.get(qualifier) != CORE_API or len(segments) > (2 if name == "PodStatus" else 3):
        return None
    site = gowrites.assigned(package.all_files(), package.root, package.text, go_field.names[0])
    if site is None:
        return None
    why = f"the phase of a pod (a {qualifier}.{name} written at {site})"
    return (*segments, "phase") if name == "PodStatus" else segments, [(phase, why) for phase in POD_PHASES]


def _is_string(linker: _Linker, go_field: GoField, owner: GoType) -> bool:
    if go_field.type_expr == "string":
        return True
    declared = linker.resolve(go_field.type_expr, owner.file)
    return declared is not None and declared.underlying == "string"


def written_meaning(written: gowrites.Written) -> tuple[str, str, str] | None:
    """(status, confidence, why) of a written value its own words do not place: the words of the constant's
    name (``StatusFailedAlreadyExists``), else failed when the controller writes it on a failure path."""
    if vocabulary.classify(written.value) is not None:
        return None
    named = vocabulary.classify(written.constant) if written.constant else None
    if named is not None:
        return named[0], named[1], f"by the constant's name {written.constant}"
    if written.failure:
        return "failed", LOW, "written on a failure path (an error check, a warning event or an error log)"
    if written.all_ready:
        return "running", LOW, "written when the ready count reaches the desired one"
    return None


def _written(package: Package, field_name: str, holder: str) -> list[gowrites.Written]:
    """The values the controller writes into ``Status.<field_name>`` (of the struct ``holder``), its constants
    looked up by package."""
    files = package.all_files()
    return gowrites.written_values(files, package.root, package.text, field_name, _constants(package), holder)


def _constants(package: Package) -> gowrites.ConstantLookup:
    """A string constant by (qualifier, name) as the Go file at a path sees it."""
    imports: dict[Path, GoFile] = {}

    def constant(qualifier: str | None, name: str, path: Path) -> str | None:
        folder = path.parent.relative_to(package.root).as_posix().strip(".")
        if qualifier is not None:
            if path not in imports:
                imports[path] = read_imports(package, path, package.text(path) or "")
            import_path = imports[path].imports.get(qualifier)
            folders = package.folders_of(import_path) if import_path else []
        else:
            folders = [folder]
        for directory in folders:
            package.load(directory)
        return next((c.value for c in package.consts if c.name == name and c.file.directory in folders), None)

    return constant


# An annotation key (``example.com/paused``) whose name says it stops the object.
ANNOTATION_KEY = re.compile(r"^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?\.)+[a-z]{2,}/([A-Za-z0-9][-A-Za-z0-9_.]*)$")
SWITCH_WORDS = ("pause", "paused", "hibernation", "hibernate", "hibernated", "suspend", "suspended", "stop", "stopped")


def switch_annotation(value: str) -> bool:
    """An annotation key whose name is a pause/hibernation/suspend switch (``autoscaling.example/paused``); not
    one that says more (``.../paused-replicas`` scales to a count, it is no switch)."""
    match = ANNOTATION_KEY.match(value)
    return match is not None and all(w in SWITCH_WORDS for w in re.split(r"[-_.]", match.group(1).lower()))


# A doc comment saying the annotation's value names things (``the names of Pods to suspend``): it acts on
# those, a debugging aid, not a switch that stops the whole object.
_SELECTION = re.compile(r"(?i)\bnames of\b|\blist of\b|comma[- ]separated|\bwhich pods\b")


def _selects(doc: list[str]) -> bool:
    return _SELECTION.search(" ".join(doc)) is not None
