"""Reading YAML/JSON files and streams into located documents.

Definitions and cluster dumps arrive the same ways (files, directories, stdin, multi-document streams,
``List`` objects, ``kubectl get -o json`` output), so both read through here and every object keeps
the file and document index it came from.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import orjson

from workload_map.base import cache, json_codec as _json
from workload_map.base.gc_pause import bulk
from workload_map.errors import DocumentError, Location
from workload_map.sources.lists import split_items

_YAML_SUFFIXES = {".yaml", ".yml"}
_JSON_SUFFIXES = {".json"}
STDIN = "-"
# YAML aliases share one node in memory, but everything downstream (JSON encoding, the model, jq)
# sees the expanded tree: a "billion laughs" file of a few hundred bytes expands to billions of nodes.
# Kubernetes' own YAML reader limits alias expansion the same way.
MAX_ALIAS_EXPANSION = 1_000_000


class Document:
    """One object read from a source, with where it came from.

    Items of a ``List`` keep only their list's location and their indexes; the full ``Location``
    (``items[i]``) is built when asked for, so reading a dump of tens of thousands of items does not
    build as many Location objects that nobody reads.
    """

    __slots__ = ("_base", "_items", "_location", "data")

    def __init__(self, data: Any, location: Location) -> None:
        self.data = data
        self._location: Location | None = location
        self._base = location
        self._items: tuple[int, ...] = ()

    @classmethod
    def _item(cls, data: Any, base: Location, items: tuple[int, ...]) -> Document:
        doc = cls.__new__(cls)
        doc.data = data
        doc._location = None
        doc._base = base
        doc._items = items
        return doc

    @property
    def source(self) -> str:
        """The file (or stream) it was read from, without building its full location."""
        return self._base.source

    @property
    def location(self) -> Location:
        location = self._location
        if location is None:
            location = self._base
            for index in self._items:
                location = location.child("items", index)
            self._location = location
        return location

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Document):
            return NotImplemented
        return self.data == other.data and self.location == other.location

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Document(data={self.data!r}, location={self.location!r})"


def _list_items(data: Any) -> list[Any] | None:
    items = data.get("items") if isinstance(data, dict) else None
    if isinstance(items, list):
        kind = data.get("kind")
        if isinstance(kind, str) and (kind == "List" or kind.endswith("List")):
            return items
    return None


def is_empty_list(data: Any) -> bool:
    """A ``List`` without items (``kubectl get -o json`` of nothing): read as itself, so a reader can tell
    a dump of nothing from a file without documents."""
    return _list_items(data) == []


def _expand(data: Any, location: Location, out: list[Document]) -> None:
    items = _list_items(data)
    if items is None or not items:
        out.append(Document(data, location))
        return
    _expand_items(items, location, (), out)


def _expand_items(items: list[Any], base: Location, indexes: tuple[int, ...], out: list[Document]) -> None:
    make = Document._item
    append = out.append
    for index, item in enumerate(items):
        # Checked inline: most items of a dump are plain objects, not nested lists.
        if type(item) is dict and type(item.get("items")) is list and _list_items(item) is not None:
            _expand_items(item["items"], base, (*indexes, index), out)
        else:
            append(make(item, base, (*indexes, index)))


Transform = Callable[[Any], Any]  # what replaces each object read (a projection); lists are expanded first


@bulk
def parse_text(
    text: str | bytes, source: str, *, prefer_json: bool = False, transform: Transform | None = None
) -> list[Document]:
    """Every document of one stream; ``List`` objects are expanded into their items. ``transform``
    replaces each object as it is read: a JSON List is parsed item by item (sources/lists.py), so with a
    transform that keeps less, the whole dump is never in memory at once."""
    raw_docs: list[Any]
    if prefer_json or _looks_like_json(text):
        streamed = _streamed(text, source, transform) if isinstance(text, bytes) else None
        if streamed is not None:
            return streamed
        try:
            raw_docs = [_json.loads(text)]
        except orjson.JSONDecodeError as exc:
            if prefer_json:
                raise DocumentError(f"invalid JSON: {exc}", Location(source)) from None
            raw_docs = _parse_yaml(text, source)
    else:
        raw_docs = _parse_yaml(text, source)
    docs: list[Document] = []
    for index, data in enumerate(raw_docs):
        if data is None:  # an empty document between two `---`
            continue
        _expand(data, Location(source, index), docs)
    if transform is not None:
        for doc in docs:
            doc.data = transform(doc.data)
    return docs


# A transform's one-step decode (msgspec) saves ~35 us a pod and costs ~15 ms of imports: worth it from
# about 500 pods, ~2 MB of kubectl's JSON.
_DECODE_FROM = 2 * 1024 * 1024


def _streamed(text: bytes, source: str, transform: Transform | None) -> list[Document] | None:
    """The documents of a JSON List read item by item, or None when it does not split (see lists.py).
    A transform with a ``decode`` method (lists.Decode) reads the items it can from their text in one
    step; the others are parsed whole and transformed."""

    decode = getattr(transform, "decode", None) if len(text) >= _DECODE_FROM else None
    split = split_items(text, decode)
    if split is None:
        return None
    envelope, items = split
    base = Location(source, 0)
    docs: list[Document] = []
    for index, (item, decoded) in enumerate(items):
        if item is None:
            return None
        if decoded:
            docs.append(Document._item(item, base, (index,)))
        elif type(item.get("items")) is list and _list_items(item) is not None:
            start = len(docs)
            _expand_items(item["items"], base, (index,), docs)
            if transform is not None:
                for doc in docs[start:]:
                    doc.data = transform(doc.data)
        else:
            docs.append(Document._item(transform(item) if transform is not None else item, base, (index,)))
    return docs or [Document(envelope, base)]


def _looks_like_json(text: str | bytes) -> bool:
    head = text[:64].lstrip()
    return bool(head) and head[:1] in ("{", "[", b"{", b"[")


# The package's own YAML (the built-in example: 245 kB) read before comes from the on-disk cache
# (workload_map.base.cache): PyYAML costs ~30 ms to import and ~80 ms to parse it, unpickling its result
# ~3 ms. A user's files are parsed every time: a dump may hold Secrets, which a cache would copy to disk.
_PACKAGE = Path(__file__).resolve().parents[1]
_CACHED_YAML_BELOW = 4 * 1024 * 1024
_YAML_FORMAT = "yaml-documents-1"


def _shipped(source: str) -> bool:
    try:
        return Path(source).resolve().is_relative_to(_PACKAGE)
    except (OSError, ValueError):
        return False


def _parse_yaml(text: str | bytes, source: str) -> list[Any]:
    """The documents of a YAML stream; a file shipped in the package from the cache when this PyYAML
    parsed the same bytes before."""
    if len(text) >= _CACHED_YAML_BELOW or not _shipped(source):
        return _load_yaml(text, source)
    spec = find_spec("yaml")
    library = _stat(spec.origin if spec is not None else None)
    key = cache.key_of(_YAML_FORMAT, sys.version, library, text)
    hit = cache.load(key)
    if type(hit) is list:
        return hit
    docs = _load_yaml(text, source)
    if cache.writable():
        cache.store(key, docs)
    return docs


def _stat(path: str | None) -> str:
    try:
        st = Path(path).stat() if path else None
    except OSError:
        st = None
    return f"{path}:{st.st_size}:{st.st_mtime_ns}" if st is not None else "-"


def _load_yaml(text: str | bytes, source: str) -> list[Any]:
    import yaml  # noqa: PLC0415 (PyYAML only for YAML input/output)

    # libyaml is several times faster on large dumps; the pure loader behaves the same.
    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        docs = list(yaml.load_all(text, Loader=loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "unknown position"
        problem = exc.problem or str(exc)
        raise DocumentError(f"YAML syntax error at {where}: {problem}", Location(source)) from None
    except yaml.reader.ReaderError as exc:
        # Invalid UTF-8 or a control character: libyaml reports an offset into the whole stream.
        raise DocumentError(f"{exc.reason} at {_line_column(text, exc.position)}", Location(source)) from None
    except yaml.YAMLError as exc:
        raise DocumentError(f"YAML error: {exc}", Location(source)) from None
    except RecursionError:
        raise DocumentError("document is nested too deeply to read", Location(source)) from None
    # An alias needs both an anchor (&) and a reference (*); most files have neither, so skip the walk.
    if ("&" in text and "*" in text) if isinstance(text, str) else (b"&" in text and b"*" in text):
        for index, doc in enumerate(docs):
            extra = _alias_expansion(doc)
            if extra > MAX_ALIAS_EXPANSION:
                raise DocumentError(
                    f"YAML aliases expand to more than {MAX_ALIAS_EXPANSION:,} extra nodes"
                    " (a 'billion laughs' document); write the repeated parts out",
                    Location(source, index),
                )
    return docs


def _line_column(text: str | bytes, position: int) -> str:
    head = text[:position]
    newline = "\n" if isinstance(head, str) else b"\n"
    line = head.count(newline)  # type: ignore[arg-type]
    column = position - (head.rfind(newline) + 1)  # type: ignore[arg-type]
    return f"line {line + 1}, column {column + 1}"


def _alias_expansion(root: Any) -> int:
    """How many more nodes the expanded tree of ``root`` has than the loaded one (shared nodes count
    once per reference); iterative, so deeply nested documents cannot overflow the stack."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, dict | list):
            continue
        key = id(node)
        children = node.values() if isinstance(node, dict) else node
        if done:
            sizes[key] = 1 + sum(sizes.get(id(c), 1) for c in children)
            continue
        if key in sizes:
            continue
        sizes[key] = 1  # placeholder: a node on its own path (never produced by YAML) counts once
        stack.append((node, True))
        stack.extend((c, False) for c in children if isinstance(c, dict | list))
    # The expanded size of every node is known; the root's minus the distinct nodes is the expansion.
    return sizes.get(id(root), 1) - len(sizes)


@bulk
def read_source(path: str, transform: Transform | None = None) -> list[Document]:
    """Documents of a file, of every YAML/JSON file under a directory, or of stdin for ``-``
    (``transform``: see parse_text)."""
    if path == STDIN:
        return parse_text(sys.stdin.buffer.read(), "<stdin>", transform=transform)
    target = Path(path)
    if target.is_dir():
        docs: list[Document] = []
        for file in sorted(target.rglob("*")):
            if file.is_file() and file.suffix.lower() in _YAML_SUFFIXES | _JSON_SUFFIXES:
                docs.extend(_read_file(file, transform))
        return docs
    if not target.exists():
        raise DocumentError("no such file or directory", Location(path))
    return _read_file(target, transform)


def _read_file(file: Path, transform: Transform | None = None) -> list[Document]:
    return parse_file(file, file_content(file), transform)


def file_content(file: Path) -> bytes:
    """The bytes of one file, for :func:`parse_file` (an unreadable or empty file is a DocumentError)."""
    try:
        content = file.read_bytes()
    except OSError as exc:
        raise DocumentError(f"cannot read: {exc.strerror}", Location(str(file))) from None
    if not content.strip():
        raise DocumentError("file is empty", Location(str(file)))
    return content


def parse_file(file: Path, content: bytes, transform: Transform | None = None) -> list[Document]:
    """The documents of a file's ``content``, located in ``file`` (JSON by suffix, else YAML or JSON)."""
    return parse_text(content, str(file), prefer_json=file.suffix.lower() in _JSON_SUFFIXES, transform=transform)


@bulk
def read_sources(paths: Iterable[str]) -> list[Document]:
    docs: list[Document] = []
    for path in paths:
        docs.extend(read_source(path))
    return docs
