"""The filters of ``wmap get``: kubectl label selectors (``a=b``, ``a==b``, ``a!=b``, ``a in (x,y)``,
``a notin (x)``, ``a``, ``!a``) and the primary status."""

from __future__ import annotations

import re
from collections.abc import Mapping

from workload_map.base.model import Model

# Label keys: optional DNS prefix and a name; values may be empty.
_KEY = r"[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?"
_VALUE = r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?"
_KEY_RE = re.compile(f"^{_KEY}$")
_VALUE_RE = re.compile(f"^{_VALUE}$")
_SET_RE = re.compile(r"^(?P<key>\S+)\s+(?P<op>in|notin)\s*\((?P<values>[^()]*)\)$")
_CMP_RE = re.compile(r"^(?P<key>[^=!\s]+)\s*(?P<op>==|!=|=)\s*(?P<value>\S*)$")


class SelectorError(ValueError):
    pass


class Requirement(Model, kw_only=False):
    key: str
    op: str  # = != in notin exists !exists
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key)
        if self.op == "exists":
            return present
        if self.op == "!exists":
            return not present
        if self.op in ("=", "in"):
            return present and value in self.values
        # != and notin also match objects without the key, as in kubectl.
        return not present or value not in self.values


def _split(text: str) -> list[str]:
    """Split on commas that are not inside a ``( ... )`` value set."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise SelectorError("unbalanced ')'")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    if depth != 0:
        raise SelectorError("unbalanced '('")
    parts.append(current)
    return [p.strip() for p in parts]


def _check_key(key: str) -> str:
    if not _KEY_RE.match(key):
        raise SelectorError(f"invalid label key {key!r}")
    return key


def _check_value(value: str) -> str:
    if not _VALUE_RE.match(value):
        raise SelectorError(f"invalid label value {value!r}")
    return value


def _requirement(part: str) -> Requirement:
    if not part:
        raise SelectorError("empty requirement")
    match = _SET_RE.match(part)
    if match:
        values = tuple(_check_value(v.strip()) for v in match["values"].split(","))
        return Requirement(_check_key(match["key"]), match["op"], values)
    match = _CMP_RE.match(part)
    if match:
        op = "=" if match["op"] in ("=", "==") else "!="
        return Requirement(_check_key(match["key"]), op, (_check_value(match["value"]),))
    if part.startswith("!"):
        return Requirement(_check_key(part[1:].strip()), "!exists")
    return Requirement(_check_key(part), "exists")


def parse_selector(text: str) -> list[Requirement]:
    try:
        return [_requirement(part) for part in _split(text.strip())] if text.strip() else []
    except SelectorError as exc:
        raise SelectorError(f"unable to parse selector {text!r}: {exc}") from None


def matches(requirements: list[Requirement], labels: object) -> bool:
    """Whether ``labels`` (an object's ``metadata.labels`` as read) satisfy every requirement. Only string
    values are labels: a value of another type, or labels that are not a mapping, were never stored by an
    API server and match as absent."""
    if not isinstance(labels, Mapping):
        labels = {}
    elif not all(isinstance(value, str) for value in labels.values()):
        labels = {key: value for key, value in labels.items() if isinstance(value, str)}
    return all(r.matches(labels) for r in requirements)


def check_status(status: str) -> None:
    """The ``--status`` filter of ``wmap get`` (any case): a status that is none of the primary statuses
    would match nothing, silently; it is a ValueError naming them, as the CLI refuses it."""
    from workload_map.definition.model import ResourceStatus  # noqa: PLC0415 (the definition model only when a status filter is checked)

    known = [s.value for s in ResourceStatus]
    if status.lower() not in {s.lower() for s in known}:
        raise ValueError(f"{status!r} is not a status: use one of {', '.join(known)} (any case)")
