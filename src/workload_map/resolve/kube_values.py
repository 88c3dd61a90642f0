"""The syntax Kubernetes validates for the values ``wmap update`` writes into pod templates.

An update must not send what the API server refuses (or, for a workload whose controller copies the
template later, what the controller would fail to create pods from): label keys and values, annotation
keys, resource names and quantities, scheduler and priority class names, as apimachinery's
``validation.IsQualifiedName``, ``IsValidLabelValue``, ``IsDNS1123Subdomain`` and ``resource.ParseQuantity``
check them, with their messages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

from workload_map.resolve.quantity import QuantityError, parse_quantity

_NAME = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_NAME_RE = re.compile(f"^{_NAME}$")
_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_SUBDOMAIN_RE = re.compile(f"^{_SUBDOMAIN}$")
NAME_MAX, SUBDOMAIN_MAX = 63, 253

_NAME_MESSAGE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc')"
)
_VALUE_MESSAGE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345')"
)
_SUBDOMAIN_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com')"
)


def qualified_name_problems(key: str) -> list[str]:
    """Why ``key`` is not a qualified name (a label or annotation key, a resource name): ``[prefix/]name``."""
    prefix, slash, name = key.rpartition("/")
    if slash and "/" in prefix:
        return ["a qualified name must consist of a name with an optional DNS subdomain prefix and '/'"]
    problems = []
    if slash:
        if not prefix:
            problems.append("prefix part must be non-empty")
        else:
            problems += [f"prefix part {p}" for p in subdomain_problems(prefix)]
    if not name:
        problems.append("name part must be non-empty")
    elif len(name) > NAME_MAX:
        problems.append(f"name part must be no more than {NAME_MAX} characters")
    elif not _NAME_RE.match(name):
        problems.append(_NAME_MESSAGE)
    return problems


def label_value_problems(value: str) -> list[str]:
    problems = []
    if len(value) > NAME_MAX:
        problems.append(f"must be no more than {NAME_MAX} characters")
    if value and not _NAME_RE.match(value):
        problems.append(_VALUE_MESSAGE)
    return problems


def subdomain_problems(value: str) -> list[str]:
    problems = []
    if len(value) > SUBDOMAIN_MAX:
        problems.append(f"must be no more than {SUBDOMAIN_MAX} characters")
    if not _SUBDOMAIN_RE.match(value):
        problems.append(_SUBDOMAIN_MESSAGE)
    return problems


def quantity_problems(value: Any) -> list[str]:
    try:
        parsed = parse_quantity(value)
    except QuantityError:
        return ["quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]
    if not isinstance(value, str) or value != value.strip():
        return ["quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]
    return ["must be greater than or equal to 0"] if parsed < Decimal(0) else []


def _entries(
    field: str, values: Mapping[str, Any] | None, key_check: Any, value_check: Any
) -> Iterator[tuple[str, str, str]]:
    for key, value in (values or {}).items():
        for problem in key_check(key):
            yield field, f"{key}={value}", f"key {key!r}: {problem}"
        if value_check is not None:
            for problem in value_check(value if isinstance(value, str) else str(value)):
                yield field, f"{key}={value}", f"value {value!r}: {problem}"


def change_problems(change: Any) -> list[tuple[str, str, str]]:
    """``(field, value, why)`` for every value of a :class:`~workload_map.resolve.writes.PodSpecChange`
    Kubernetes would refuse (field: the change's attribute, ``requests``/``limits`` for resources)."""
    out: list[tuple[str, str, str]] = []
    out += _entries("labels", change.labels, qualified_name_problems, label_value_problems)
    out += _entries("annotations", change.annotations, qualified_name_problems, None)
    out += _entries("node_selector", change.node_selector, qualified_name_problems, label_value_problems)
    for part in ("requests", "limits"):
        values = (change.resources or {}).get(part)
        for key, value in (values or {}).items():
            for problem in qualified_name_problems(key):
                out.append((part, f"{key}={value}", f"resource name {key!r}: {problem}"))
            for problem in quantity_problems(value):
                out.append((part, f"{key}={value}", f"quantity {value!r}: {problem}"))
    for field in ("scheduler_name", "priority_class_name"):
        value = getattr(change, field)
        if value is not None:
            out += [(field, value, problem) for problem in subdomain_problems(value)]
    if change.image is not None and (not change.image or change.image != change.image.strip()):
        out.append(("image", change.image, "must not be empty or have leading or trailing whitespace"))
    return out
