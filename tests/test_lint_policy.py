"""No file-wide lint suppressions (the developers' guide): a rule is fixed or silenced on the one line it
concerns, with the reason, never for a whole file."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# ruff (and flake8) read the file-level "noqa" directive on any line of a file as a suppression for all of it.
FILE_WIDE = re.compile(r"^\s*#\s*(ruff|flake8)\s*:\s*noqa|^\s*#\s*mypy\s*:\s*ignore-errors", re.IGNORECASE | re.M)


def test_no_file_wide_suppressions() -> None:
    offenders = [
        str(path.relative_to(REPO))
        for top in ("src", "tests", "bench", "tools")
        for path in sorted((REPO / top).rglob("*.py"))
        if FILE_WIDE.search(path.read_text(errors="replace"))
    ]
    assert offenders == []


def test_no_per_file_ignores() -> None:
    lint = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert "per-file-ignores" not in lint and "extend-per-file-ignores" not in lint
