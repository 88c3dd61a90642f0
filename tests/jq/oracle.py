"""libjq (the `jq` binding, run in-process) as the oracle for our engine.

`assert_same_as_libjq(expression, value)` is meant for reuse by other test
suites (e.g. the catalog): it checks outputs, error-or-not and error text,
and that `to_text` of the first output equals libjq's `tostring`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jq
from workload_map.jq import JqError, JqLimitError, compile_expression, to_text


@functools.lru_cache(maxsize=4096)
def _libjq(expression: str) -> Any:
    # libjq compiles its builtins with every program (~6 ms): a corpus test runs one expression on some 300
    # objects, and compiling once per expression instead of per object took most of its time.
    return jq.compile(expression)


def libjq_all(expression: str, value: Any) -> tuple[bool, Any]:
    """(True, outputs) or (False, error message) from libjq."""
    try:
        return True, _libjq(expression).input_value(value).all()
    except ValueError as exc:
        return False, str(exc)


def ours_all(expression: str, value: Any) -> tuple[bool, Any]:
    try:
        return True, compile_expression(expression).all(value)
    except JqLimitError:
        raise
    except JqError as exc:
        return False, exc.message


def same_value(a: Any, b: Any) -> bool:
    """jq equality, strict about bool vs number; 1 and 1.0 are the same jq number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
            return math.isnan(b)
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same_value(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


def assert_same_as_libjq(expression: str, value: Any, *, check_text: bool = True) -> None:
    ok_ref, ref = libjq_all(expression, value)
    ok_ours, ours = ours_all(expression, value)
    assert ok_ours == ok_ref, f"{expression!r}: libjq {'ok' if ok_ref else 'error'} {ref!r}, ours {ours!r}"
    if not ok_ref and ref.startswith("jq: error: "):
        # compile error: ours quotes libjq's first line
        core = ref.splitlines()[0].removeprefix("jq: error: ")
        assert core in ours, f"{expression!r}: compile error libjq {ref!r} != ours {ours!r}"
        return
    if not ok_ref:
        assert ours == ref, f"{expression!r}: error text libjq {ref!r} != ours {ours!r}"
        return
    assert same_value(ours, ref), f"{expression!r}: libjq {ref!r} != ours {ours!r}"
    prog = compile_expression(expression)
    first = prog.first(value)
    assert same_value(first, ref[0] if ref else None), f"{expression!r}: first() {first!r}"
    if check_text and ref:
        ok_t, ref_text = libjq_all(f"first({expression}) | tostring", value)
        if ok_t:
            assert to_text(first) == ref_text[0], f"{expression!r}: to_text {to_text(first)!r} != {ref_text[0]!r}"
    # paths: either both fail or both agree
    try:
        ref_paths: Any = _libjq(f"[path({expression})]").input_value(value).first()
        ref_path_ok = True
    except ValueError as exc:
        ref_paths, ref_path_ok = str(exc), False
    try:
        our_paths: Any = prog.paths(value)
        our_path_ok = True
    except JqLimitError:
        raise
    except JqError as exc:
        our_paths, our_path_ok = exc.message, False
    assert our_path_ok == ref_path_ok, f"{expression!r}: paths libjq {ref_paths!r} ours {our_paths!r}"
    if ref_path_ok:
        assert our_paths == ref_paths, f"{expression!r}: paths libjq {ref_paths!r} ours {our_paths!r}"
    else:
        assert ref_paths in our_paths, f"{expression!r}: path error libjq {ref_paths!r} ours {our_paths!r}"
