"""Typed access to purejq's parser (an AST of tuples; purejq ships no annotations)."""

from __future__ import annotations

from typing import Any

from purejq import parser as _parser


def parse(source: str) -> Any:
    return _parser.parse(source)  # type: ignore[no-untyped-call]
