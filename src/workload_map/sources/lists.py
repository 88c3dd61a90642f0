"""A JSON ``List`` dump read item by item, so a caller that keeps part of each object never holds them all.

``orjson.loads`` of a whole dump holds, at its peak, the file's bytes, orjson's own document and every
object as Python values: ~7.2x the file for a generated 1,000-workload dump (91 MB -> 656 MB peak), of
which the Python objects are ~3.8x. No stdlib or installed parser streams (ijson is not a dependency), so
``split_items`` finds the item boundaries itself and parses each item with orjson on its own: kubectl
writes every item as an object whose first key is ``apiVersion``, so the candidates for a boundary are the
places where ``}`` is followed by ``,`` and ``{"apiVersion":`` (whitespace allowed). A candidate inside an
item (a list of owner references) is recognised because the text up to it does not parse as one object,
and the search goes on. A quote inside a JSON string is always escaped, so that sequence can only be
structural; and a slice that parses as one object ends where its braces balance, so it is one item.

Anything that does not fit (no ``"items"`` array in the envelope, an item with another first key, an item
that is not valid JSON) makes ``split_items`` return None and the caller parses the whole document as
before, with the same answers and the same errors.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from workload_map.base import json_codec as _json

_ITEMS = re.compile(rb'"items"\s*:\s*\[\s*')
_BOUNDARY = re.compile(rb'\}\s*,\s*\{\s*"apiVersion"\s*:')
_END = re.compile(rb"\}\s*\]\s*")
MAX_ENVELOPE = 64 * 1024  # apiVersion, kind and metadata of a List come before its items


# Reads one item's text into what the caller keeps of it, in one step; None: not this item (it is then
# parsed whole with orjson, and the caller keeps what it keeps of that).
Decode = Callable[[memoryview], Any]


def split_items(
    content: bytes, decode: Decode | None = None
) -> tuple[dict[str, Any], Iterator[tuple[Any, bool]]] | None:
    """The List without its items, and its items parsed one at a time, each with whether ``decode`` gave
    it; None when ``content`` is not a JSON List laid out as kubectl writes it (see the module docstring).
    The iterator yields (None, False) once, last, if the items turn out not to split (the caller then
    parses the whole document)."""
    found = _ITEMS.search(content, 0, MAX_ENVELOPE)
    if found is None or content[:64].lstrip()[:1] != b"{":
        return None
    start = found.end()
    close = content.rfind(b"]")
    if close < start:
        return None
    try:
        envelope = orjson.loads(content[: found.start()] + b'"items":[]' + content[close + 1 :])
    except orjson.JSONDecodeError:
        return None
    kind = envelope.get("kind") if isinstance(envelope, dict) else None
    if not (isinstance(kind, str) and kind.endswith("List") and envelope.get("items") == []):
        return None
    if content[start : start + 1] == b"]":
        return envelope, iter(())
    if not content.startswith(b"{", start):
        return None
    parse: Callable[[memoryview], Any]
    errors: tuple[type[Exception], ...]
    if decode is not None:
        # A caller that decodes (a large dump: msgspec is loaded already) has the other items parsed by
        # msgspec too, which keeps integers of any size exact: no scan of the dump for long numbers.
        import msgspec  # noqa: PLC0415 (msgspec only for JSON dumps of 2 MB or more (its imports cost ~15 ms))

        parse, errors = msgspec.json.Decoder().decode, (orjson.JSONDecodeError, msgspec.MsgspecError)
    else:
        parse = _json.loads if _json.has_long_number(content) else orjson.loads
        errors = (orjson.JSONDecodeError,)
    return envelope, _items(memoryview(content), (start, close), parse, errors, decode)


def _items(
    view: memoryview,
    span: tuple[int, int],
    parse: Callable[[memoryview], Any],
    errors: tuple[type[Exception], ...],
    decode: Decode | None,
) -> Iterator[tuple[Any, bool]]:
    """The items: each given by ``decode`` or else by ``parse`` (``errors``: what it raises for text that
    is not JSON); ``span``: from the first item's ``{`` to the List's closing ``]``."""
    start, close = span
    raw = view.obj
    assert isinstance(raw, bytes)
    search_from = start
    while True:
        boundary = _BOUNDARY.search(raw, search_from, close)
        end = boundary.start() + 1 if boundary is not None else _last_brace(raw, start, close)
        if end is None:
            yield None, False
            return
        # A slice that is not one whole object (a boundary inside an item) is no object for decode either.
        item = decode(view[start:end]) if decode is not None else None
        decoded = item is not None
        if not decoded:
            try:
                item = parse(view[start:end])
            except errors:
                if boundary is None:  # the last item does not parse: not a List this reader can split
                    yield None, False
                    return
                search_from = boundary.end()  # a boundary inside the item (a list of objects): look further
                continue
            if not isinstance(item, dict):
                yield None, False
                return
        yield item, decoded
        if boundary is None:
            return
        start = raw.index(b"{", boundary.start() + 1)
        search_from = start


def _last_brace(raw: bytes, start: int, close: int) -> int | None:
    """The end of the last item: the ``}`` before the closing ``]``."""
    end = raw.rfind(b"}", start, close)
    if end < 0 or raw[end + 1 : close].strip():
        return None
    return end + 1
