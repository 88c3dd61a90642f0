"""`to_text`: jq's `tostring`, computed in Python on already-decoded values."""

from __future__ import annotations

import math
from typing import Any

_ESC = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}


def to_text(value: Any) -> str:
    """Exactly what `tostring` gives in libjq for a value handed over as JSON.

    Strings are returned unquoted; everything else is jq's compact dump.
    Floats are shown the way libjq shows number literals it read from JSON
    text (decNumber canonical form: 1.0 -> "1.0", 1e100 -> "1E+100").
    """
    if type(value) is str:
        return value
    out: list[str] = []
    _dump(value, out)
    return "".join(out)


def _dump(v: Any, out: list[str]) -> None:
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif type(v) is int:
        out.append(str(v))
    elif type(v) is float:
        out.append(format_float(v))
    elif type(v) is str:
        out.append(_quote(v))
    elif isinstance(v, dict):
        out.append("{")
        first = True
        for k, x in v.items():
            if not first:
                out.append(",")
            first = False
            out.append(_quote(str(k)))
            out.append(":")
            _dump(x, out)
        out.append("}")
    elif isinstance(v, (list, tuple)):
        out.append("[")
        for i, x in enumerate(v):
            if i:
                out.append(",")
            _dump(x, out)
        out.append("]")
    elif isinstance(v, int):
        out.append(str(int(v)))
    elif isinstance(v, float):
        out.append(format_float(float(v)))
    else:
        raise TypeError(f"not a JSON value: {type(v).__name__}")


def _quote(s: str) -> str:
    parts = ['"']
    for ch in s:
        esc = _ESC.get(ch)
        if esc is not None:
            parts.append(esc)
        elif ch < " " or ch == "\x7f":
            parts.append(f"\\u{ord(ch):04x}")
        else:
            parts.append(ch)
    parts.append('"')
    return "".join(parts)


def format_float(f: float) -> str:
    if math.isnan(f):
        return "null"
    if math.isinf(f):
        return "1.7976931348623157e+308" if f > 0 else "-1.7976931348623157e+308"
    # Python's repr is the shortest round-trip spelling, the same digits the
    # JSON encoder hands to libjq; apply decNumber's to-scientific-string rule.
    text = repr(f)
    sign = ""
    if text.startswith("-"):
        sign, text = "-", text[1:]
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0") or "0"
    exponent -= len(frac)
    if digits == "0":
        # zero keeps its scale: "0.0" has exponent -1
        digits = "0"
    adjusted = exponent + len(digits) - 1
    if exponent <= 0 and adjusted >= -6:
        if exponent == 0:
            return sign + digits
        point = len(digits) + exponent
        if point > 0:
            return sign + digits[:point] + "." + digits[point:]
        return sign + "0." + "0" * (-point) + digits
    body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return sign + body + "E" + ("+" if adjusted > 0 else "-") + str(abs(adjusted))
