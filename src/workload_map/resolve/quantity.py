"""Kubernetes resource quantities (``500m``, ``16Gi``, ``1e3``) as exact decimals.

The grammar is resource.Quantity's. The official client's parser is the well-kept implementation, but
importing it loads the whole Kubernetes client, which the pure core must not do; this module follows
the same grammar and is differentially tested against ``kubernetes.utils.quantity.parse_quantity``.
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal, InvalidOperation

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_PATTERN = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE]?)$")


class QuantityError(ValueError):
    pass


def parse_quantity(value: object) -> Decimal:
    """The exact value of a quantity given as a string or a number."""
    if isinstance(value, bool):
        raise QuantityError(f"invalid quantity {value!r}")
    if isinstance(value, int | float):
        return Decimal(str(value))
    if not isinstance(value, str):
        raise QuantityError(f"invalid quantity {value!r}: expected a string or a number")
    return _parse_text(value)


# Every pod of a workload repeats the same few requests and limits; Decimals are immutable.
@functools.lru_cache(maxsize=4096)
def _parse_text(value: str) -> Decimal:
    match = _PATTERN.match(value.strip())
    if match is None:
        raise QuantityError(f"invalid quantity {value!r}")
    number, suffix = match.groups()
    try:
        base = Decimal(number)
    except InvalidOperation:
        raise QuantityError(f"invalid quantity {value!r}") from None
    if suffix in _BINARY:
        return base * _BINARY[suffix]
    if len(suffix) > 1 and suffix[0] in "eE":
        return base.scaleb(int(suffix[1:]))
    return base.scaleb(_DECIMAL[suffix])


def format_quantity(value: Decimal, resource: str) -> str:
    """A compact human form: CPU in cores or millicores, memory in binary units, others as numbers."""
    if resource == "cpu":
        if value == value.to_integral_value():
            return str(int(value))
        millis = (value * 1000).quantize(Decimal(1))
        return f"{millis}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
            unit = _BINARY[suffix]
            if value >= unit and value % unit == 0:
                return f"{int(value / unit)}{suffix}"
        for suffix in ("Ti", "Gi", "Mi"):
            unit = _BINARY[suffix]
            if value >= unit:
                return f"{(value / unit).quantize(Decimal('0.01')).normalize()}{suffix}"
        return str(int(value)) if value == value.to_integral_value() else str(value)
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())
