"""Status values from an operator's Go API types (``wmap definitions new --api-source DIR``).

A CRD seldom enumerates the phases and condition types its operator writes; the Go types it is generated
from do: ``type JobPhase string`` with ``const ( JobRunning JobPhase = "Running" ... )``, a condition
struct whose ``Type`` is such a string type, ``+kubebuilder:validation:Enum=`` markers. This module reads
Go source as text (no Go toolchain at draft time; nothing is compiled or run): a tokenizer of our own, then
the top-level ``type`` and ``const`` declarations with their doc comments. From the kind's struct it follows
the ``status`` field to its struct, walks its fields by their json tags and links each phase-like string
field to the values its type (or its marker) declares, and the conditions to the constants of their type.

Hand-written: the few declarations read here need no Go parser (none is a Python library we could rely
on), and anything unexpected must become a located warning, never a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from workload_map.authoring.evidence import Segments

# Comments, raw and interpreted strings, runes, identifiers, numbers, newlines (they end fields and
# constants), blanks, and any other character alone.
TOKEN = re.compile(
    r"//[^\n]*|/\*.*?\*/|`[^`]*`|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
    r"|[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|\n|[ \t\r]+|.",
    re.S,
)
ENUM_MARKER = re.compile(r"\+kubebuilder:validation:Enum=(\S+)")
JSON_TAG = re.compile(r"\bjson:\"([^\"]*)\"")
PHASE_FIELD = re.compile(r"^(phase|state|status|lifecycleState)$|(Phase|State|Status)$")
PHASE_TYPE = re.compile(r"(Phase|State|Status|StateType|PhaseType)$")
CONDITION_TYPE = re.compile(r"Condition(Type)?$")
CAMEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
SKIPPED_DIRS = {"vendor", "testdata", "node_modules", "third_party", "hack", "docs", "test", "tests", "e2e"}
MAX_FILES = 20000
MAX_DEPTH = 3


@dataclass
class Token:
    text: str
    line: int


@dataclass
class GoField:
    names: list[str]  # empty: an embedded field
    type_expr: str  # ``*JobStatus``, ``[]metav1.Condition``, ``common.ReplicaStatus``
    json: str | None  # the json tag's name; None without a tag
    doc: list[str]
    line: int


@dataclass
class GoType:
    name: str
    file: GoFile
    line: int
    underlying: str  # ``struct`` or the type expression (``string``)
    doc: list[str]
    fields: list[GoField] = field(default_factory=list)


@dataclass
class GoConst:
    name: str
    type_name: str | None  # None: untyped
    value: str
    doc: list[str]
    file: GoFile
    line: int


@dataclass
class GoFile:
    path: str  # relative to the source root, with ``/``
    package: str = ""
    imports: dict[str, str] = field(default_factory=dict)  # qualifier -> import path

    @property
    def directory(self) -> str:
        return self.path.rpartition("/")[0]


@dataclass
class ApiValues:
    """What the API types say of one kind's status: values per status field, condition types, and the
    warnings on what could not be read (each located: file, line)."""

    phases: dict[Segments, list[tuple[str, str]]] = field(default_factory=dict)  # field -> (value, evidence)
    conditions: list[tuple[str, str]] = field(default_factory=list)  # (type, evidence)
    annotations: list[tuple[str, str]] = field(default_factory=list)  # (pause/hibernation annotation, evidence)
    # Kinds the kind's controller owns that may make pods (``For(&Kind{}).Owns(&appsv1.StatefulSet{})``); one
    # of another project carries its ``importPath`` and an empty group, for the caller's catalog to name.
    owned: list[tuple[dict[str, str], str]] = field(default_factory=list)  # ({group, version, kind}, evidence)
    warnings: list[str] = field(default_factory=list)
    kind_at: str | None = None  # file:line of the kind's struct


class _Declarations:
    """What the reader found: types by (directory, name), string constants, warnings."""

    def __init__(self) -> None:
        self.types: dict[tuple[str, str], GoType] = {}
        self.consts: list[GoConst] = []
        self.warnings: list[str] = []


class _Package(_Declarations):
    """The Go files under a root, read one folder (one Go package) at a time, when a type is looked up there."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        self.files: list[GoFile] = []
        self.folders: dict[str, list[Path]] = {}
        self.loaded: set[str] = set()
        self.texts: dict[Path, str | None] = {}
        for count, path in enumerate(_files(root)):
            if count >= MAX_FILES:
                self.warnings.append(f"{root}: more than {MAX_FILES} Go files; give the API folder (api/, pkg/apis/)")
                break
            self.folders.setdefault(path.parent.relative_to(root).as_posix().strip("."), []).append(path)

    def text(self, path: Path) -> str | None:
        if path not in self.texts:
            try:
                self.texts[path] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                self.warnings.append(f"{path.relative_to(self.root).as_posix()}: not read ({exc.__class__.__name__})")
                self.texts[path] = None
        return self.texts[path]

    def load(self, directory: str) -> None:
        if directory in self.loaded:
            return
        self.loaded.add(directory)
        for path in self.folders.get(directory, []):
            text = self.text(path)
            if text is None or ("struct" not in text and "const" not in text):
                continue
            file = GoFile(path.relative_to(self.root).as_posix())
            self.files.append(file)
            _Reader(file, text, self).read()

    def folders_declaring(self, kind: str) -> list[str]:
        """The folders with a file that declares ``type <kind> struct`` (a text search, before any parsing)."""
        pattern = re.compile(rf"^type\s+{re.escape(kind)}\s+struct\b", re.M)
        return [d for d, paths in self.folders.items() if any(pattern.search(self.text(p) or "") for p in paths)]

    def folders_of(self, import_path: str) -> list[str]:
        """The folders an import path names: the one it ends with; else (a module path with a major version,
        ``.../operator/v2/apis/x/v1`` for ``operator/apis/x/v1``) the one folder ending like it, three deep."""
        exact = [d for d in self.folders if d and (import_path == d or import_path.endswith("/" + d))]
        if exact:
            return exact
        tail = import_path.split("/")[-3:]
        near = [d for d in self.folders if len(tail) == 3 and d.split("/")[-3:] == tail]
        if len(near) == 1:
            return near
        # A module named without a domain (``operator`` in its go.mod), in a folder of the repository: the
        # import path past the module's name is the end of one folder's (``operator/api/v1`` for ``api/v1``).
        module, _, inside = import_path.partition("/")
        if "." in module or not inside:
            return []
        local = [d for d in self.folders if d == inside or d.endswith("/" + inside)]
        return local if len(local) == 1 else []


def _tokens(text: str) -> list[Token]:
    out: list[Token] = []
    line = 1
    for match in TOKEN.finditer(text):
        value = match.group()
        if value[0] in " \t\r":
            continue
        out.append(Token(value, line))
        line += value.count("\n")
    return out


def _unquote(literal: str) -> str | None:
    if len(literal) >= 2 and literal[0] == literal[-1] == "`":
        return literal[1:-1]
    if len(literal) >= 2 and literal[0] == literal[-1] == '"':
        try:
            return bytes(literal[1:-1], "utf-8").decode("unicode_escape") if "\\" in literal else literal[1:-1]
        except UnicodeDecodeError:
            return None
    return None


def _comment_text(token: str) -> str:
    if token.startswith("//"):
        return token[2:].strip()
    return token[2:-2].strip()


class _Reader:
    """One file's top-level declarations: imports, types (with struct fields) and string constants."""

    def __init__(self, file: GoFile, text: str, out: _Declarations) -> None:
        self.file = file
        self.tokens = _tokens(text)
        self.at = 0
        self.out = out

    def warn(self, line: int, why: str) -> None:
        self.out.warnings.append(f"{self.file.path}:{line}: {why}")

    def peek(self, offset: int = 0) -> Token | None:
        index = self.at + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def doc_before(self) -> list[str]:
        """The comment lines right above the current token (a blank line ends a doc comment)."""
        lines: list[str] = []
        index = self.at - 1
        newlines = 0
        while index >= 0:
            text = self.tokens[index].text
            if text == "\n":
                newlines += 1
                if newlines > 1:
                    break
            elif text.startswith(("//", "/*")):
                lines.insert(0, _comment_text(text))
                newlines = 0
            else:
                break
            index -= 1
        return lines

    def skip_balanced(self) -> bool:
        """From an opening bracket to past its match; False (and a warning) when the file ends first."""
        start = self.tokens[self.at]
        depth = 0
        while self.at < len(self.tokens):
            text = self.tokens[self.at].text
            if text in "({[":
                depth += 1
            elif text in ")}]":
                depth -= 1
                if depth == 0:
                    self.at += 1
                    return True
            self.at += 1
        self.warn(start.line, f"{start.text!r} is never closed: the rest of the file is not read")
        return False

    def line_tokens(self) -> list[Token]:
        """The tokens to the end of the line, brackets balanced (a nested struct spans lines)."""
        out: list[Token] = []
        depth = 0
        while self.at < len(self.tokens):
            token = self.tokens[self.at]
            if token.text == "\n" and depth == 0:
                break
            if token.text == ";" and depth == 0:
                self.at += 1
                break
            if token.text in "({[":
                depth += 1
            elif token.text in ")}]":
                if depth == 0:
                    break
                depth -= 1
            if not token.text.startswith(("//", "/*")):
                out.append(token)
            self.at += 1
        return out

    def read(self) -> None:
        while self.at < len(self.tokens):
            token = self.tokens[self.at]
            text = token.text
            if text == "package" and self.peek(1) is not None:
                self.file.package = self.tokens[self.at + 1].text
                self.at += 2
            elif text == "import":
                self.at += 1
                self.imports()
            elif text == "type":
                self.at += 1
                self.group(self.type_spec)
            elif text == "const":
                self.at += 1
                self.group(self.const_spec)
            elif text in "({[":
                if not self.skip_balanced():
                    return
            else:
                self.at += 1

    def group(self, spec: Callable[[list[str]], None]) -> None:
        """One declaration, or each of a parenthesised group, with the doc comment above it."""
        token = self.peek()
        if token is not None and token.text == "(":
            outer_doc = self.doc_before_keyword()
            self.at += 1
            while (token := self.peek()) is not None and token.text != ")":
                if token.text == "\n" or token.text.startswith(("//", "/*")):
                    self.at += 1
                    continue
                spec(self.doc_before() or outer_doc)
            if token is None:
                self.warn(self.tokens[-1].line if self.tokens else 1, "a declaration group is never closed")
            self.at += 1
        else:
            spec(self.doc_before_keyword())

    def doc_before_keyword(self) -> list[str]:
        self.at -= 1
        doc = self.doc_before()
        self.at += 1
        return doc

    def imports(self) -> None:
        specs: list[list[Token]] = []
        if (token := self.peek()) is not None and token.text == "(":
            self.at += 1
            while (token := self.peek()) is not None and token.text != ")":
                if token.text == "\n":
                    self.at += 1
                    continue
                specs.append(self.line_tokens())
            self.at += 1
        else:
            specs.append(self.line_tokens())
        for spec in specs:
            parts = [t.text for t in spec]
            if not parts or _unquote(parts[-1]) is None:
                continue
            path = _unquote(parts[-1]) or ""
            qualifier = parts[0] if len(parts) == 2 else path.rstrip("/").rpartition("/")[2]
            self.file.imports[qualifier] = path

    def type_spec(self, doc: list[str]) -> None:
        name = self.peek()
        if name is None or not name.text.isidentifier():
            self.at += not self.line_tokens()  # a stray bracket: step over it rather than loop
            return
        self.at += 1
        if (token := self.peek()) is not None and token.text == "[":  # type parameters
            self.skip_balanced()
        if (token := self.peek()) is not None and token.text == "=":
            self.at += 1
        rest = self.peek()
        declared = GoType(name.text, self.file, name.line, "", doc)
        if rest is not None and rest.text == "struct" and (brace := self.peek(1)) is not None and brace.text == "{":
            self.at += 2
            declared.underlying = "struct"
            self.struct_fields(declared)
        else:
            declared.underlying = "".join(t.text for t in self.line_tokens())
        self.out.types[(self.file.directory, name.text)] = declared

    def struct_fields(self, declared: GoType) -> None:
        while (token := self.peek()) is not None and token.text != "}":
            if token.text == "\n" or token.text.startswith(("//", "/*")):
                self.at += 1
                continue
            doc = self.doc_before()
            parts = self.line_tokens()
            if not parts:
                self.at += 1  # a stray closing bracket: step over it rather than loop
                continue
            tag = _unquote(parts[-1].text) if parts[-1].text.startswith("`") else None
            body = parts[:-1] if tag is not None else parts
            json_name = None
            if tag is not None and (match := JSON_TAG.search(tag)):
                json_name = match.group(1).split(",")[0]
            names: list[str] = []
            index = 0
            # ``A, B Type``: names separated by commas, then the type; one token alone is an embedded type.
            while index + 1 < len(body) and body[index].text.isidentifier() and body[index + 1].text in (",",):
                names.append(body[index].text)
                index += 2
            if index + 1 < len(body) and body[index].text.isidentifier() and body[index + 1].text != ".":
                names.append(body[index].text)
                index += 1
            type_expr = "".join(t.text for t in body[index:])
            declared.fields.append(GoField(names, type_expr, json_name, doc, parts[0].line))
        if token is None:
            self.warn(declared.line, f"the struct {declared.name} is never closed")
        else:
            self.at += 1

    def const_spec(self, doc: list[str]) -> None:
        parts = self.line_tokens()
        if not parts or not parts[0].text.isidentifier():
            self.at += not parts  # a stray bracket: step over it rather than loop
            return
        name = parts[0]
        if "=" not in [t.text for t in parts]:
            return  # an implicit repetition (iota): no string value to read
        eq = [t.text for t in parts].index("=")
        type_name = "".join(t.text for t in parts[1:eq]) or None
        value_tokens = [t.text for t in parts[eq + 1 :]]
        if len(value_tokens) == 4 and value_tokens[1] == "(" and value_tokens[3] == ")":
            # A conversion, ``ConditionType("Ready")``: the type is the conversion's.
            type_name, value_tokens = type_name or value_tokens[0], value_tokens[2:3]
        value = _unquote(value_tokens[0]) if len(value_tokens) == 1 else None
        if value is None:
            if type_name and PHASE_TYPE.search(type_name.rpartition(".")[2]) and len(value_tokens) != 1:
                self.warn(name.line, f"the constant {name.text} is not one string literal: its value is not read")
            return
        if value.strip() and value.isprintable() and '"' not in value:
            self.out.consts.append(GoConst(name.text, type_name, value, doc, self.file, name.line))


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*.go")):
        relative = path.relative_to(root).parts
        if any(p in SKIPPED_DIRS or p.startswith(".") for p in relative[:-1]):
            continue
        if path.name.endswith("_test.go") or path.name.startswith("zz_generated"):
            continue
        yield path


def _bare(type_expr: str) -> tuple[str | None, str]:
    """(qualifier, name) of a type expression with its pointer stripped: ``*common.JobStatus``."""
    expr = type_expr.lstrip("*")
    qualifier, _, name = expr.rpartition(".")
    return (qualifier or None), name


class _Linker:
    def __init__(self, package: _Package, values: ApiValues) -> None:
        self.package = package
        self.values = values

    def resolve(self, type_expr: str, where: GoFile) -> GoType | None:
        """The declaration a field's type names: in the same directory, else in the folder the import
        names (``folders_of``); None outside the source given."""
        qualifier, name = _bare(type_expr)
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
        return [
            c
            for c in self.package.consts
            if c.type_name is not None
            and _bare(c.type_name)[1] == declared.name
            and self.resolve(c.type_name, c.file) is declared
        ]

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
            return found or [(c.value, self.evidence(c)) for c in self.constants_of(declared)]
        if go_field.type_expr == "string" and go_field.names:
            # A plain string phase: the package's untyped constants named after the field (``PhaseHealthy``).
            prefix = go_field.names[0]
            return [
                (c.value, self.evidence(c))
                for c in self.package.consts
                if c.type_name in (None, "string")
                and c.file.directory == owner.file.directory
                and c.name.startswith(prefix)
                and c.name[len(prefix) : len(prefix) + 1].isupper()
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
        metav1.Condition), the condition-typed constants declared beside the kind."""
        for segments, go_field, owner in self.walk(status, ("status",), set()):
            if segments[-1] != "conditions" or not go_field.type_expr.startswith("[]"):
                continue
            item = self.resolve(go_field.type_expr[2:], owner.file)
            type_field = next((f for f in item.fields if f.json == "type"), None) if item else None
            typed = self.resolve(type_field.type_expr, item.file) if type_field and item else None
            if typed is not None and typed.underlying != "struct":
                found = self.marker_values(typed.doc, f"{typed.file.path}:{typed.line}")
                self.values.conditions += found or [(c.value, self.evidence(c)) for c in self.constants_of(typed)]
                return
        self.values.conditions += [(c.value, self.evidence(c)) for c in self.kind_conditions(kind)]

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
                (c.type_name is not None and CONDITION_TYPE.search(_bare(c.type_name)[1]))
                or (c.type_name is None and "Condition" in c.name and not c.name.endswith(("Reason", "Message")))
            )
        ]
        # The kind's files: its struct's, those named after it, and the folder's shared condition files.
        own = [
            c
            for c in candidates
            if c.file is kind.file or c.file.path.rpartition("/")[2].replace("_", "").startswith((stem, "condition"))
        ]
        if own:
            return own
        kinds = [
            t
            for t in self.package.types.values()
            if t.file.directory == directory and any(not f.names and f.type_expr.endswith("TypeMeta") for f in t.fields)
        ]
        return candidates if len(kinds) == 1 else []


def _find_kind(package: _Package, kind: str, version: str) -> tuple[GoType | None, list[GoType]]:
    found = [
        t
        for t in package.types.values()
        if t.name == kind and t.underlying == "struct" and any(f.json == "status" for f in t.fields)
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
    package = _Package(root)
    for directory in package.folders_declaring(kind):
        package.load(directory)
    values = ApiValues(warnings=list(package.warnings))
    found, everywhere = _find_kind(package, kind, version)
    if found is None:
        values.warnings.append(
            f'{root}: no Go struct {kind} with a `json:"status"` field was found (read {len(package.files)} file(s))'
        )
        return values
    if len([t for t in everywhere if t.file.directory == found.file.directory]) > 1:
        values.warnings.append(
            f"{found.file.path}:{found.line}: {kind} is declared twice in this folder; the first is read"
        )
    values.kind_at = f"{found.file.path}:{found.line}"
    linker = _Linker(package, values)
    status_field = next(f for f in found.fields if f.json == "status")
    status = linker.resolve(status_field.type_expr, found.file)
    if status is None or status.underlying != "struct":
        values.warnings.append(
            f"{found.file.path}:{status_field.line}: the status type {status_field.type_expr} is not declared "
            "in the source given (an imported package outside it?): no status value read"
        )
        return values
    for segments, go_field, owner in linker.walk(status, ("status",), set()):
        type_name = _bare(go_field.type_expr)[1]
        if not (PHASE_FIELD.search(segments[-1]) or PHASE_TYPE.search(type_name)) or segments[-1] == "conditions":
            continue
        if go_field.type_expr.startswith(("[]", "map[")) or len(segments) > 3:
            continue  # a phase deep in the status is a part's (an analysis run's), not the object's
        found_values = linker.field_values(go_field, owner)
        if found_values:
            values.phases[segments] = found_values
    linker.conditions(status, found)
    values.owned = _owned(package, found)
    values.annotations = [
        (c.value, linker.evidence(c))
        for c in package.consts
        if c.file.directory == found.file.directory and switch_annotation(c.value)
    ]
    return values


# An annotation key (``example.com/paused``) whose name says it stops the object.
ANNOTATION_KEY = re.compile(r"^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?\.)+[a-z]{2,}/([A-Za-z0-9][-A-Za-z0-9_.]*)$")
SWITCH_WORDS = ("pause", "paused", "hibernation", "hibernate", "hibernated", "suspend", "suspended", "stop", "stopped")


def switch_annotation(value: str) -> bool:
    """An annotation key whose name is a pause/hibernation/suspend switch (``autoscaling.example/paused``); not
    one that says more (``.../paused-replicas`` scales to a count, it is no switch)."""
    match = ANNOTATION_KEY.match(value)
    return match is not None and all(w in SWITCH_WORDS for w in re.split(r"[-_.]", match.group(1).lower()))


# The built-in kinds that make pods, by the import path of their API package.
BUILTIN_WORKLOADS = {
    "k8s.io/api/apps/v1": ("apps", ("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet")),
    "k8s.io/api/batch/v1": ("batch", ("Job",)),
    "k8s.io/api/core/v1": ("", ("Pod",)),
}
_FOR = r"For\(\s*&(\w+)\.{kind}\{{\}}"
_OWNS = re.compile(r"Owns\(\s*&(\w+)\.(\w+)\{\}")
_END = re.compile(r"\.(Complete|Build)\(")
_GROUP = re.compile(r"Group:\s*\"([^\"]+)\"")


def _owned(package: _Package, kind: GoType) -> list[tuple[dict[str, str], str]]:
    """The pod-making kinds a controller-runtime builder for the kind owns: ``For(&api.Kind{})`` then every
    ``Owns(&pkg.T{})`` up to ``Complete(``/``Build(``: built-in workloads, and kinds of the repository whose
    spec holds a pod template (their group from the folder's ``Group: "..."``)."""
    found: list[tuple[dict[str, str], str]] = []
    start = re.compile(_FOR.format(kind=re.escape(kind.name)))
    for paths in package.folders.values():
        for path in paths:
            text = package.text(path) or ""
            match = start.search(text) if "Owns(" in text else None
            if match is None:
                continue
            file = _read_imports(package, path, text)
            if package_folder(package, file.imports.get(match.group(1), "")) != kind.file.directory:
                continue
            end = _END.search(text, match.end())
            chain = text[match.end() : end.start() if end else match.end() + 4000]
            line = text.count("\n", 0, match.start()) + 1
            for qualifier, name in _OWNS.findall(chain):
                gvk = _workload(package, file.imports.get(qualifier, ""), name)
                if gvk is not None and gvk not in [g for g, _ in found]:
                    found.append((gvk, f"{file.path}:{line} owns {qualifier}.{name}"))
    return found or _built(package, kind)


def _read_imports(package: _Package, path: Path, text: str) -> GoFile:
    file = GoFile(path.relative_to(package.root).as_posix())
    _Reader(file, text, _Declarations()).read()
    return file


_OWNER_CALL = re.compile(r"\b(SetControllerReference|SetOwnerReference|NewControllerRef)\(")
_BUILT = re.compile(r"\b(\w+)\.(Deployment|StatefulSet|DaemonSet|ReplicaSet|Job|Pod)\{")


def _built(package: _Package, kind: GoType) -> list[tuple[dict[str, str], str]]:
    """Without a builder declaring what it owns (a hand-written controller): the built-in workloads built
    (``&appsv1.StatefulSet{``) in the files that use the kind and set an owner reference."""
    found: list[tuple[dict[str, str], str]] = []
    mention = re.compile(rf"\b(\w+)\.{re.escape(kind.name)}\b")
    for paths in package.folders.values():
        for path in paths:
            text = package.text(path) or ""
            if not _OWNER_CALL.search(text) or not mention.search(text):
                continue
            file = _read_imports(package, path, text)
            qualifiers = {
                q
                for q in mention.findall(text)
                if package_folder(package, file.imports.get(q, "")) == kind.file.directory
            }
            if not qualifiers:
                continue
            for match in _BUILT.finditer(text):
                gvk = _workload(package, file.imports.get(match.group(1), ""), match.group(2))
                if gvk is not None and "importPath" not in gvk and gvk not in [g for g, _ in found]:
                    line = text.count("\n", 0, match.start()) + 1
                    found.append(
                        (gvk, f"{file.path}:{line} builds {match.group(1)}.{match.group(2)} and sets its owner")
                    )
    return found


def package_folder(package: _Package, import_path: str) -> str | None:
    folders = package.folders_of(import_path) if import_path else []
    return folders[0] if folders else None


def _workload(package: _Package, import_path: str, name: str) -> dict[str, str] | None:
    builtin = BUILTIN_WORKLOADS.get(import_path)
    if builtin is not None:
        return {"group": builtin[0], "version": "v1", "kind": name} if name in builtin[1] else None
    folder = package_folder(package, import_path)
    if folder is None:
        # Another project's kind: the caller knows it only if its catalog does (by kind and version).
        version = import_path.rstrip("/").rpartition("/")[2]
        return {"group": "", "version": version, "kind": name, "importPath": import_path} if import_path else None
    package.load(folder)
    declared = package.types.get((folder, name + "Spec"))
    if declared is None or not _holds_pods(package, declared, 0):
        return None
    group = next((m.group(1) for p in package.folders[folder] if (m := _GROUP.search(package.text(p) or ""))), None)
    if group is None:
        return None
    return {"group": group, "version": import_path.rstrip("/").rpartition("/")[2], "kind": name}


def _holds_pods(package: _Package, declared: GoType, depth: int) -> bool:
    if depth > 3:
        return False
    for go_field in declared.fields:
        bare = _bare(go_field.type_expr.removeprefix("[]"))[1]
        if bare in ("PodTemplateSpec", "PodSpec"):
            return True
        nested = package.types.get((declared.file.directory, bare))
        if nested is not None and nested.underlying == "struct" and _holds_pods(package, nested, depth + 1):
            return True
    return False
