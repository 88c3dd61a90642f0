"""No file-wide lint suppressions (the developers' guide): a rule is fixed or silenced on the one line it
concerns, with the reason, never for a whole file."""

from __future__ import annotations

import re
import subprocess
import sys
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


def test_imports_sit_at_module_level_in_the_package_and_the_tests() -> None:
    """ruff's PLC0415 over src and tests: an import inside a function is a measured start-up path, marked
    ``noqa: PLC0415`` with its reason (docs/architecture.md, "Start-up"), or it is an error."""
    ruff = Path(sys.executable).with_name("ruff")
    proc = subprocess.run(
        [str(ruff), "check", "--select", "PLC0415", "--output-format", "concise", "src", "tests"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    reasons = [
        line
        for path in sorted((REPO / "src").rglob("*.py"))
        for line in path.read_text().splitlines()
        if "noqa: PLC0415" in line and not re.search(r"noqa: PLC0415 \(.+\)", line)
    ]
    assert reasons == [], "a lazy import says why: # noqa: PLC0415 (reason)"


# The developers' guide: split a file before it passes ~800 lines (one concept per module).
MAX_LINES = 800


def test_no_source_file_passes_the_size_at_which_it_is_split() -> None:
    long_files = [
        f"{path.relative_to(REPO)}: {lines} lines"
        for top in ("src", "tests", "bench", "tools")
        for pattern in ("*.py", "*.js", "*.go", "*.sh")
        for path in sorted((REPO / top).rglob(pattern))
        if ".venv" not in path.parts and (lines := len(path.read_text(errors="replace").splitlines())) > MAX_LINES
    ]
    assert long_files == [], "split these by concept (CONTRIBUTING.md)"
