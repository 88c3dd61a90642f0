"""A Karta dict as commented YAML: each guess's evidence as comment lines above the field it explains.

PyYAML drops comments, so the draft is written by hand: block mappings and lists, scalars as JSON
strings (valid YAML) or single-quoted jq, comments keyed by the field's path in the dict.
"""

from __future__ import annotations

import json
import re
from typing import Any

Path = tuple[str | int, ...]
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-/]*$")
_RESERVED = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"}


def scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _RESERVED:
        return text
    if "\n" not in text and not text.startswith(" ") and not text.endswith(" "):
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text)


def _key(key: str | int) -> str:
    return scalar(str(key))


def render(data: Any, notes: dict[Path, list[str]], header: list[str]) -> str:
    lines = [f"# {line}" if line else "#" for line in header]

    def comment(path: Path, indent: str) -> None:
        for line in notes.get(path, []):
            lines.append(f"{indent}# {line}")

    def emit(value: Any, path: Path, indent: str) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                here = (*path, key)
                comment(here, indent)
                if isinstance(child, dict | list) and child:
                    lines.append(f"{indent}{_key(key)}:")
                    emit(child, here, indent + "  ")
                else:
                    lines.append(f"{indent}{_key(key)}: {_inline(child)}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                here = (*path, index)
                comment(here, indent)
                if isinstance(item, dict) and item:
                    first = True
                    for key, child in item.items():
                        sub = (*here, key)
                        prefix = f"{indent}- " if first else f"{indent}  "
                        comment(sub, indent + ("  " if not first else ""))
                        if (isinstance(child, dict | list)) and child:
                            lines.append(f"{prefix}{_key(key)}:")
                            emit(child, sub, indent + "    ")
                        else:
                            lines.append(f"{prefix}{_key(key)}: {_inline(child)}")
                        first = False
                else:
                    lines.append(f"{indent}- {_inline(item)}")

    emit(data, (), "")
    return "\n".join(lines) + "\n"


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{}" if not value else json.dumps(value)
    if isinstance(value, list):
        return "[]" if not value else json.dumps(value)
    return scalar(value)
