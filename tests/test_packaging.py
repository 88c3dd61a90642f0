"""Packaging metadata: what ``pip install`` reads and records."""

from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_license_is_an_spdx_expression() -> None:
    """A TOML table (``{text = ...}``) makes setuptools warn at every install; PEP 639 wants the SPDX string,
    which setuptools understands from 77 on."""
    project = tomllib.loads(PYPROJECT.read_text())
    assert project["project"]["license"] == "Apache-2.0"
    assert "setuptools>=77" in project["build-system"]["requires"]
    installed = importlib.metadata.metadata("workload-map")
    assert installed["License-Expression"] == "Apache-2.0", "reinstall: make .venv/bin/.installed"
