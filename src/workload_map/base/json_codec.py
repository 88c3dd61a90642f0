"""JSON with integers of any size, as JSON allows and YAML files give.

orjson, the fast path everywhere, reads an integer beyond 64 bits as a float (2**64 + 1 comes back as
2**64: a silently wrong value) and refuses to write one (``Integer exceeds 64-bit range``). Such integers
are rare, so the fast path stays: text is re-read with the standard library only when it holds a run of
19 digits (the shortest integer orjson cannot keep exactly is -2**63 - 1), and a value is written
through ``orjson.Fragment`` only after orjson refused it.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_DIGITS_ONLY = bytes.maketrans(bytes(range(256)), bytes(48 if 48 <= b <= 57 else 32 for b in range(256)))
_RUN = b"0" * 19
_CHUNK = 8 * 1024 * 1024
# orjson writes integers in [-2**63, 2**64).
_LOWEST, _HIGHEST = -(2**63), 2**64 - 1


def has_long_number(data: bytes | bytearray | memoryview | str) -> bool:
    """Whether ``data`` holds an integer of 19 digits or more (one orjson may not read exactly); a quick
    scan of the bytes, 8 MB at a time so a large dump is not copied whole. Runs of digits inside strings
    are common (containerd ids are 64 hex digits: a generated 1,000-workload dump has ~300 runs of 19)
    and would send every item through the slow exact reader, so a run counts only where a number can
    start: at the start of the text or after ``:``, ``[`` or ``,`` (whitespace and a ``-`` between). A run
    inside a string after one of those still counts: that costs time, never a wrong value."""
    if isinstance(data, str):
        data = data.encode()
    view = memoryview(data).cast("B")
    for start in range(0, len(view), _CHUNK):
        digits = bytes(view[start : start + _CHUNK + len(_RUN) - 1]).translate(_DIGITS_ONLY)
        found = digits.find(_RUN)
        while found >= 0:
            if _starts_number(view, start + found):
                return True
            after = digits.find(b" ", found)
            if after < 0:
                break
            found = digits.find(_RUN, after)
    return False


_NUMBER_AFTER = frozenset(b":[,")
_SPACE = frozenset(b" \t\r\n")


def _starts_number(view: memoryview, index: int) -> bool:
    """Whether the run of digits around ``index`` stands where a JSON number may begin."""
    while index > 0 and 48 <= view[index - 1] <= 57:
        index -= 1
    index -= 1
    if index >= 0 and view[index] == 45:  # "-"
        index -= 1
    while index >= 0 and view[index] in _SPACE:
        index -= 1
    return index < 0 or view[index] in _NUMBER_AFTER


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text} is infinity when parsed as double")
    return value


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """``orjson.loads``, with integers of any size kept exact. Raises ``orjson.JSONDecodeError`` (a
    ValueError) for text that is not JSON, as orjson does."""
    value = orjson.loads(data)
    if not has_long_number(data):
        return value
    text = data if isinstance(data, str) else bytes(data).decode()
    # The text is JSON (orjson read it): the standard library reads it the same way but for big integers.
    return json.loads(text, parse_float=_finite, parse_constant=_no_constant)


def dumps(value: Any, option: int = 0, default: Any = None) -> bytes:
    """``orjson.dumps``, writing integers beyond 64 bits exactly instead of failing."""
    try:
        return orjson.dumps(value, option=option, default=default)
    except orjson.JSONEncodeError as exc:
        if "64-bit" not in str(exc):
            raise
    return orjson.dumps(_exact(value), option=option, default=default)


def _exact(value: Any) -> Any:
    """``value`` with every integer orjson cannot write as a fragment of JSON text."""
    if isinstance(value, dict):
        return {key: _exact(child) for key, child in value.items()}
    if isinstance(value, list | tuple):
        return [_exact(child) for child in value]
    if isinstance(value, int) and not isinstance(value, bool) and not _LOWEST <= value <= _HIGHEST:
        return orjson.Fragment(str(value).encode())
    return value
