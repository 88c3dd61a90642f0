"""`make example` on a fresh machine installs the package alone, not the test extras (minutes more)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_make_example_installs_only_the_package(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    plan = subprocess.run(
        ["make", "-n", "example", f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "pip install --quiet -e ." in plan
    assert "[test]" not in plan
    assert "wmap get -A --from-file" in plan
