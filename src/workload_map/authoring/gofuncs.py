"""The function declarations of an operator's Go files and the calls between them (``--api-source``): read
as text, as gosource.py reads the types; nothing is compiled. gochildren.py follows them from the functions
taking a kind to the workloads they build."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from workload_map.authoring.goread import GoFile, Package, Token, bare_type, read_imports, tokens as go_tokens

MAX_FUNCTIONS = 5000


@dataclass
class GoFunc:
    name: str
    receiver: str  # the receiver's type name; empty for a plain function
    receiver_var: str  # the receiver's name in the body (``r``)
    params: dict[str, str]  # parameter name -> type expression
    file: GoFile
    line: int
    body: list[Token] = field(default_factory=list)  # between the braces, comments left out
    result: str = ""  # the type of its first result (``*api.BaseSpec`` of ``(*api.BaseSpec, error)``)

    @property
    def where(self) -> str:
        return f"{self.file.path}:{self.line}"


def _split(tokens: list[Token], separator: str) -> list[list[Token]]:
    """Tokens split at ``separator`` outside brackets."""
    out: list[list[Token]] = [[]]
    depth = 0
    for token in tokens:
        if token.text in "([{":
            depth += 1
        elif token.text in ")]}":
            depth -= 1
        if token.text == separator and depth == 0:
            out.append([])
        else:
            out[-1].append(token)
    return [part for part in out if part]


def _balanced(tokens: list[Token], start: int) -> int:
    """The index past the bracket that closes the one at ``start`` (the end when it is never closed)."""
    depth = 0
    for index in range(start, len(tokens)):
        text = tokens[index].text
        if text in "([{":
            depth += 1
        elif text in ")]}":
            depth -= 1
            if depth == 0:
                return index + 1
    return len(tokens)


def _params(tokens: list[Token]) -> dict[str, str]:
    """``a, b int, c *api.Kind`` -> {a: int, b: int, c: *api.Kind}; unnamed parameters are left out."""
    out: dict[str, str] = {}
    waiting: list[str] = []
    for part in _split([t for t in tokens if t.text != "\n"], ","):
        if len(part) == 1 and part[0].text.isidentifier():
            waiting.append(part[0].text)  # a name whose type follows, or an unnamed parameter's type
            continue
        unnamed = len(part) == 3 and part[1].text == "." and part[2].text.isidentifier()  # ``pkg.Type`` alone
        if len(part) >= 2 and part[0].text.isidentifier() and not unnamed:
            type_expr = "".join(t.text for t in part[1:])
            for name in [*waiting, part[0].text]:
                out[name] = type_expr
        waiting = []
    return out


def functions(file: GoFile, text: str) -> list[GoFunc]:
    """The top-level function and method declarations of one file, with their bodies' tokens."""
    tokens = [t for t in go_tokens(text) if not t.text.startswith(("//", "/*"))]
    out: list[GoFunc] = []
    index = 0
    while index < len(tokens):
        text_at = tokens[index].text
        if text_at in "([{":
            index = _balanced(tokens, index)
            continue
        if text_at != "func" or index + 1 >= len(tokens):
            index += 1
            continue
        line = tokens[index].line
        index += 1
        receiver = receiver_var = ""
        params: dict[str, str] = {}
        if tokens[index].text == "(":  # a method: its receiver first
            end = _balanced(tokens, index)
            received = _params(tokens[index + 1 : end - 1])
            receiver_var, receiver = next(iter(received.items()), ("", ""))
            receiver = bare_type(receiver)[1].partition("[")[0]
            params.update(received)
            index = end
        if index >= len(tokens) or not tokens[index].text.isidentifier():
            continue
        name = tokens[index].text
        index += 1
        if index < len(tokens) and tokens[index].text == "[":  # type parameters
            index = _balanced(tokens, index)
        if index >= len(tokens) or tokens[index].text != "(":
            continue
        end = _balanced(tokens, index)
        params.update(_params(tokens[index + 1 : end - 1]))
        index = end
        # The results, up to the body's brace (a parenthesised result list is stepped over whole).
        results = index
        while index < len(tokens) and tokens[index].text not in ("{", "\n"):
            index = _balanced(tokens, index) if tokens[index].text in "([" else index + 1
        if index >= len(tokens) or tokens[index].text != "{":
            continue  # a declaration without a body (assembly)
        end = _balanced(tokens, index)
        declared = tokens[results:index]
        if declared and declared[0].text == "(":
            declared = (_split(declared[1:-1], ",") or [[]])[0]
            if len(declared) >= 2 and declared[0].text.isidentifier() and declared[1].text not in (".", "["):
                declared = declared[1:]  # a named result (``(spec *api.Spec, err error)``)
        result = "".join(t.text for t in declared)
        out.append(GoFunc(name, receiver, receiver_var, params, file, line, tokens[index + 1 : end - 1], result))
        index = end
    return out


# Each Go file's function declarations, by its path: read once for all the programs of one source tree.
_Parsed = dict[Path, list[GoFunc]]


class _Program:
    """Every function of the source tree by folder and name, read when first needed. Programs given one
    ``parsed`` share the reading of each file; each counts the functions it takes against MAX_FUNCTIONS."""

    def __init__(self, package: Package, parsed: _Parsed | None = None) -> None:
        self.package = package
        self.parsed: _Parsed = {} if parsed is None else parsed
        self.by_folder: dict[str, dict[str, list[GoFunc]]] = {}
        self.count = 0

    def folder(self, directory: str) -> dict[str, list[GoFunc]]:
        if directory not in self.by_folder:
            self.package.load(directory)  # its types, for the variables declared with them
            found: dict[str, list[GoFunc]] = {}
            for path in self.package.folders.get(directory, []):
                text = self.package.text(path) or ""
                if "func" not in text or self.count >= MAX_FUNCTIONS:
                    continue
                if path not in self.parsed:
                    self.parsed[path] = functions(read_imports(self.package, path, text), text)
                for function in self.parsed[path]:
                    found.setdefault(function.name, []).append(function)
                    self.count += 1
            self.by_folder[directory] = found
        return self.by_folder[directory]

    def mentioning(self, word: str) -> Iterator[GoFunc]:
        """The functions of the folders with a file that names ``word`` (a text search first: a large
        repository's other folders are never parsed unless a call leads there)."""
        pattern = re.compile(rf"\b{re.escape(word)}\b")
        for directory in sorted(self.package.folders):
            if any(pattern.search(self.package.text(p) or "") for p in self.package.folders[directory]):
                for named in self.folder(directory).values():
                    yield from named

    def calls(self, function: GoFunc) -> Iterator[GoFunc]:
        """The repository's functions ``function`` calls: ``f(``, ``x.method(`` in its own folder,
        ``pkg.F(`` in the folder the import names."""
        for called, _ in self.call_sites(function):
            yield called

    def call_sites(self, function: GoFunc) -> Iterator[tuple[GoFunc, int]]:
        """``calls`` with where in the body each call is (the index of the called name)."""
        body = function.body
        own = function.file.directory
        for index in range(len(body) - 1):
            token = body[index]
            if not token.text.isidentifier() or body[index + 1].text != "(":
                continue
            qualified = index >= 2 and body[index - 1].text == "."
            qualifier = body[index - 2].text if qualified else ""
            if qualified and qualifier in function.file.imports:
                folders = self.package.folders_of(function.file.imports[qualifier])
                directory = folders[0] if folders else None
            else:
                directory = own
            if directory is None:
                continue
            named = self.folder(directory).get(token.text, [])
            on_receiver = qualified and qualifier == function.receiver_var
            # ``r.method(`` on the function's own receiver: that type's method, not a namesake's; else one
            # promoted from a struct the receiver's type embeds (``b.Generate(`` of an embedded common builder).
            owners = {function.receiver} if on_receiver else None
            if owners is not None and not any(called.receiver == function.receiver for called in named):
                owners = self.embedded(directory, function.receiver)
            for called in named:
                if owners is None or called.receiver in owners:
                    yield called, index

    def embedded(self, directory: str, type_name: str) -> set[str]:
        """The names of the structs of the folder that ``type_name`` embeds (its promoted methods' owners)."""
        declared = self.package.types.get((directory, type_name))
        if declared is None or declared.underlying != "struct":
            return set()
        return {f.type_expr.lstrip("*") for f in declared.fields if not f.names and "." not in f.type_expr}


# Each function's callers among those followed, with where in the caller's body the call is.
_Callers = dict[int, list[tuple[GoFunc, int]]]


def _statement(body: list[Token], start: int) -> list[Token]:
    """From ``start`` to the end of its line (brackets balanced, a range's opening brace left out)."""
    out: list[Token] = []
    index = start
    while index < len(body) and body[index].text not in ("\n", ";", "{", ")", "]", "}"):
        if body[index].text in "([":
            end = _balanced(body, index)
            out += body[index:end]
            index = end
            continue
        out.append(body[index])
        index += 1
    return out


def headed_blocks(body: list[Token], keyword: str) -> Iterator[tuple[list[Token], int]]:
    """Each ``keyword <header> {`` in ``body`` (``if``, ``switch``): its header and where its block opens."""
    for index, token in enumerate(body):
        if token.text != keyword:
            continue
        header = _statement(body, index + 1)
        opening = index + 1 + len(header)
        if opening < len(body) and body[opening].text == "{":
            yield header, opening


def _assigned_at(body: list[Token], name: str) -> int | None:
    """Where the value a local variable is first given starts (``v := x``, ``v, err := f()``, ``var v = x``)."""
    for index, token in enumerate(body):
        if token.text != name or (index > 0 and body[index - 1].text in (".", ",")):
            continue
        cursor = index + 1
        while cursor + 1 < len(body) and body[cursor].text == "," and body[cursor + 1].text.isidentifier():
            cursor += 2  # the other names of a multiple assignment
        following = [t.text for t in body[cursor : cursor + 2]]
        if following == [":", "="]:
            return cursor + 2
        if following[:1] == ["="] and following[1:] != ["="]:
            return cursor + 1
    return None


def _first_of_results(body: list[Token], index: int) -> int | None:
    """Where the call starts whose first result the name at ``index`` is given, the first of several names
    assigned at once (``obj, done, err := r.fetch(ctx, req)``: a helper returning the object and how to go
    on); None when it is not the first name, or the value is no one call (``a, b := x, y``; ``range``)."""
    if index > 0 and body[index - 1].text in (",", "."):
        return None
    at = index + 1
    while at + 1 < len(body) and body[at].text == "," and body[at + 1].text.isidentifier():
        at += 2
    if [t.text for t in body[at : at + 2]] == [":", "="]:
        start = at + 2
    elif body[at].text == "=" and body[at + 1].text != "=":
        start = at + 1
    else:
        return None
    value = [t.text for t in _statement(body, start)]
    if not value or value[0] == "range" or value[-1] != ")" or len(_split(_statement(body, start), ",")) != 1:
        return None
    return start
