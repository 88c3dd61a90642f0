"""Definitions loaded once: the parsed Karta and its compiled expressions, kept across processes.

Turning a definition into something the resolver can run is pure and, for a one-shot command, most of
its cost: the pydantic schema validation (and, once per process, building the schema), and for every jq
expression the sandbox analysis, libjq's syntax check and the fast-path parse. The first time a
definition is loaded all of that is done for every expression it holds (so libjq validates a definition
when it is loaded, not when an expression happens to run) and the result goes to the on-disk cache
(``workload_map.base.cache``); a later process that meets the same definition reads the result back and
primes the jq engine with the verdicts. What is stored is the plain model (frozen dataclasses, see
``workload_map.definition.model``), so reading it back loads neither pydantic, PyYAML nor the loader.

Keys are the definition's content and the code fingerprint (:func:`fingerprint`): the sources of the
modules that load definitions and compile jq, and the installed pydantic, pydantic-core, libjq
binding, purejq, PyYAML and Python. Editing the code, upgrading or reinstalling a library moves every
key, so an entry is never read by code other than the code that wrote it. Only successful loads are
stored: a definition with problems is parsed again, so its findings always carry the caller's locations.
"""

from __future__ import annotations

import contextvars
import functools
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from importlib.util import find_spec
from pathlib import Path
from typing import Any, TypeVar

import orjson

from workload_map.base import cache
from workload_map.definition.expressions import iter_expressions
from workload_map.definition.model import Karta
from workload_map.errors import Finding
from workload_map.jq import LIMITS, Verdict, packed, prime, verdicts

FORMAT = "definitions-3"
_PACKAGE = Path(__file__).resolve().parent.parent
# The modules whose code decides what a stored entry holds.
_SOURCES = (
    "base/cache.py",
    "catalog/__init__.py",
    "errors.py",
    "definition/compiled.py",
    "definition/expressions.py",
    "definition/gaps.py",
    "definition/loader.py",
    "definition/model.py",
    "definition/schema.py",
    "definition/validate.py",
    "definition/writable.py",
    "jq/_isolated.py",
    "jq/_purejq.py",
    "jq/_worker.py",
    "jq/errors.py",
    "jq/fast.py",
    "jq/fast_builtins.py",
    "jq/fast_values.py",
    "jq/limits.py",
    "jq/program.py",
    "jq/sandbox.py",
    "sources/documents.py",
)
# The libjq binding decides syntax verdicts, purejq the fast-path ASTs, PyYAML what a YAML file holds,
# pydantic what a document parses to. Located, not imported: a warm process must not load them.
_LIBRARIES = ("jq", "purejq", "yaml", "pydantic", "pydantic_core")

T = TypeVar("T")
_storing = contextvars.ContextVar("storing", default=True)


def _stat(path: str | None) -> str:
    if not path:
        return "-"
    try:
        st = Path(path).stat()
    except OSError:
        return "-"
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


@functools.cache
def fingerprint() -> str:
    """The code version entries are keyed by (file sizes and modification times, as ``.pyc`` files are)."""
    parts = [FORMAT, sys.version]
    parts += [_stat(str(_PACKAGE / name)) for name in _SOURCES]
    for library in _LIBRARIES:
        spec = find_spec(library)
        parts.append(_stat(spec.origin if spec is not None else None))
    return "\n".join(parts)


def verdicts_of(kartas: Iterable[Karta]) -> tuple[Verdict, ...]:
    """The verdict on every expression of the definitions (computed now, together, when not known yet)."""
    return tuple(verdicts(ref.expression for karta in kartas for ref in iter_expressions(karta)))


def remembered(key_parts: Iterable[bytes | str], load: Callable[[], tuple[T, tuple[Karta, ...]]]) -> T:
    """``load()``'s result, from the cache when an earlier process stored it under the same key.

    ``load`` returns the result and the definitions it holds; the verdicts on their expressions are
    stored with it and primed when it is read back. ``load`` returning no definitions is not stored.
    """
    key = cache.key_of(fingerprint(), str(LIMITS.max_expression_chars), *key_parts)
    hit = cache.load(key)
    if isinstance(hit, tuple) and len(hit) == 2 and isinstance(hit[1], dict):
        value, stored = hit
        if all(isinstance(e, str) and isinstance(v, bytes) for e, v in stored.items()):
            prime(stored)
            return value  # type: ignore[no-any-return]
    value, kartas = load()
    # With nowhere to store them, verdicts are left to be computed when an expression first runs.
    if kartas and _storing.get() and cache.writable():
        cache.store(key, (value, packed(verdicts_of(kartas))))
    return value


@contextmanager
def one_entry() -> Iterator[None]:
    """Inside, :func:`definition` stores nothing: the caller stores the whole batch as one entry."""
    token = _storing.set(False)
    try:
        yield
    finally:
        _storing.reset(token)


Parsed = tuple[Karta | None, list[Finding]]


def definition(data: Any, parse: Callable[[], Parsed], tag: bytes = b"karta") -> Parsed:
    """``parse()`` of one Karta document, remembered by the document's content (and ``tag``, which names
    what ``parse`` does to it)."""
    try:
        content = orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATETIME)
    except TypeError:  # not plain JSON (a YAML timestamp, a non-string key): parse it every time
        return parse()

    def load() -> tuple[Parsed, tuple[Karta, ...]]:
        karta, findings = parse()
        return (karta, findings), (karta,) if karta is not None and not findings else ()

    return remembered((tag, content), load)
