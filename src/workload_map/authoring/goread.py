"""Reading Go source as text for the drafting (``--api-source``): a tokenizer of our own, then each file's
imports and top-level ``type`` and ``const`` declarations with their doc comments, one folder (one Go
package) at a time, when a type is looked up there. No Go toolchain at draft time; nothing is compiled or
run.

Hand-written: the few declarations read here need no Go parser (none is a Python library we could rely
on), and anything unexpected must become a located warning, never a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

# Comments, raw and interpreted strings, runes, identifiers, numbers, newlines (they end fields and
# constants), blanks, and any other character alone.
TOKEN = re.compile(
    r"//[^\n]*|/\*.*?\*/|`[^`]*`|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
    r"|[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|\n|[ \t\r]+|.",
    re.S,
)
JSON_TAG = re.compile(r"\bjson:\"([^\"]*)\"")
PHASE_TYPE = re.compile(r"(Phase|State|Status|StateType|PhaseType)$")
SKIPPED_DIRS = {"vendor", "testdata", "node_modules", "third_party", "hack", "docs", "test", "tests", "e2e"}
MAX_FILES = 20000


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


class Declarations:
    """What the reader found: types by (directory, name), string constants, warnings."""

    def __init__(self) -> None:
        self.types: dict[tuple[str, str], GoType] = {}
        self.consts: list[GoConst] = []
        self.warnings: list[str] = []


class Package(Declarations):
    """The Go files under a root, read one folder (one Go package) at a time, when a type is looked up there."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        self.files: list[GoFile] = []
        self.folders: dict[str, list[Path]] = {}
        self.loaded: set[str] = set()
        self.texts: dict[Path, str | None] = {}
        for count, path in enumerate(go_files(root)):
            if count >= MAX_FILES:
                self.warnings.append(f"{root}: more than {MAX_FILES} Go files; give the API folder (api/, pkg/apis/)")
                break
            self.folders.setdefault(path.parent.relative_to(root).as_posix().strip("."), []).append(path)

    def all_files(self) -> list[Path]:
        return [path for paths in self.folders.values() for path in paths]

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
            Reader(file, text, self).read()

    def folders_declaring(self, kind: str) -> list[str]:
        """The folders with a file that declares ``type <kind> struct``, or ``<kind> struct`` in a ``type (...)``
        group (a text search, before any parsing; an indented match that is a field is left to the parser)."""
        pattern = re.compile(rf"^(?:type\s+|[ \t]+){re.escape(kind)}\s+struct\b", re.M)
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


def tokens(text: str) -> list[Token]:
    out: list[Token] = []
    line = 1
    for match in TOKEN.finditer(text):
        value = match.group()
        if value[0] in " \t\r":
            continue
        out.append(Token(value, line))
        line += value.count("\n")
    return out


def unquote(literal: str) -> str | None:
    if len(literal) >= 2 and literal[0] == literal[-1] == "`":
        return literal[1:-1]
    if len(literal) >= 2 and literal[0] == literal[-1] == '"':
        try:
            return bytes(literal[1:-1], "utf-8").decode("unicode_escape") if "\\" in literal else literal[1:-1]
        except UnicodeDecodeError:
            return None
    return None


def comment_text(token: str) -> str:
    if token.startswith("//"):
        return token[2:].strip()
    return token[2:-2].strip()


class Reader:
    """One file's top-level declarations: imports, types (with struct fields) and string constants."""

    def __init__(self, file: GoFile, text: str, out: Declarations) -> None:
        self.file = file
        self.tokens = tokens(text)
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
                lines.insert(0, comment_text(text))
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
            if not parts or unquote(parts[-1]) is None:
                continue
            path = unquote(parts[-1]) or ""
            qualifier = parts[0] if len(parts) == 2 else path.rstrip("/").rpartition("/")[2]
            self.file.imports[qualifier] = path

    def type_spec(self, doc: list[str]) -> None:
        name = self.peek()
        if name is None or not name.text.isidentifier():
            self.at += not self.line_tokens()  # a stray bracket: step over it rather than loop
            return
        self.at += 1
        if (token := self.peek()) is not None and token.text == "[" and (after := self.peek(1)) and after.text != "]":
            self.skip_balanced()  # type parameters; ``[]T`` is a list type
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
            tag = unquote(parts[-1].text) if parts[-1].text.startswith("`") else None
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
        elif len(value_tokens) == 6 and value_tokens[1] == "." and value_tokens[3] == "(" and value_tokens[5] == ")":
            # To a type of another package, ``v1.ConditionType("Ready")``.
            type_name, value_tokens = type_name or "".join(value_tokens[:3]), value_tokens[4:5]
        value = unquote(value_tokens[0]) if len(value_tokens) == 1 else self.concatenation(value_tokens)
        if value is None:
            if type_name and PHASE_TYPE.search(type_name.rpartition(".")[2]) and len(value_tokens) != 1:
                self.warn(name.line, f"the constant {name.text} is not one string literal: its value is not read")
            return
        if value.strip() and value.isprintable() and '"' not in value:
            self.out.consts.append(GoConst(name.text, type_name, value, doc, self.file, name.line))

    def concatenation(self, tokens: list[str]) -> str | None:
        """``Prefix + "/paused"``: literals and string constants read before in this file, joined."""
        if len(tokens) < 3 or any(t != "+" for t in tokens[1::2]):
            return None
        known = {c.name: c.value for c in self.out.consts if c.file is self.file}
        parts = [unquote(t) if t[0] in '"`' else known.get(t) for t in tokens[::2]]
        return "".join(p for p in parts if p is not None) if all(p is not None for p in parts) else None


def go_type_name(kind: str) -> str:
    """The Go type declaring a CRD kind: the kind with its first letter upper-case, since only an exported
    type can be registered (a kind may be spelt lower-case, as the Zalando operator's ``postgresql``)."""
    return kind[:1].upper() + kind[1:]


def go_files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*.go")):
        relative = path.relative_to(root).parts
        if any(p in SKIPPED_DIRS or p.startswith(".") for p in relative[:-1]):
            continue
        if path.name.endswith("_test.go") or path.name.startswith("zz_generated"):
            continue
        yield path


def bare_type(type_expr: str) -> tuple[str | None, str]:
    """(qualifier, name) of a type expression with its pointer stripped: ``*common.JobStatus``."""
    expr = type_expr.lstrip("*")
    qualifier, _, name = expr.rpartition(".")
    return (qualifier or None), name


def read_imports(package: Package, path: Path, text: str) -> GoFile:
    file = GoFile(path.relative_to(package.root).as_posix())
    Reader(file, text, Declarations()).read()
    return file


def package_folder(package: Package, import_path: str) -> str | None:
    folders = package.folders_of(import_path) if import_path else []
    return folders[0] if folders else None
