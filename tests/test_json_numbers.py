"""workload_map.base.json_codec: integers beyond 64 bits stay exact, and digits inside strings cost nothing."""

from __future__ import annotations

import pytest

from workload_map.base import json_codec as _json

HUGE = 2**64 + 1


@pytest.mark.parametrize(
    "text",
    [
        b"18446744073709551617",
        b"[1, -18446744073709551617]",
        b'{"a":\n  18446744073709551617}',
        b'{"a": "x", "b": [0,' + b" " * 9 + b"18446744073709551617]}",
    ],
)
def test_a_long_integer_is_found(text: bytes) -> None:
    assert _json.has_long_number(text)
    assert max(abs(n) for n in _find_ints(_json.loads(text))) == HUGE


@pytest.mark.parametrize(
    "text",
    [
        b'{"containerID": "containerd://f5c533e4ca4c7fca219cd0273121300006610641f3988789d2f278fce69c"}',
        b'{"a": "18446744073709551617"}',
        b"1.18446744073709551617",
        b"[0.0000000000000000001]",
    ],
)
def test_digits_in_strings_and_fractions_are_not_long_integers(text: bytes) -> None:
    assert not _json.has_long_number(text)


def test_a_run_split_across_the_scan_chunks_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_json, "_CHUNK", 8)
    text = b'{"n": 18446744073709551617}'
    assert _json.has_long_number(text)
    assert _json.loads(text) == {"n": HUGE}
    assert not _json.has_long_number(b'{"s": "a18446744073709551617"}')


def _find_ints(value: object) -> list[int]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _find_ints(v)]
    if isinstance(value, list):
        return [n for v in value for n in _find_ints(v)]
    return [value] if isinstance(value, int) else []
