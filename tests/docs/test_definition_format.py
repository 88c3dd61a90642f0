"""docs/definition-format.md is the format's reference: every field of the model is in its tables, and
every example in it runs, printing what the page shows."""

from __future__ import annotations

import re
import types
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel
from tests.docs.format_blocks import FORMAT_DOC, Block, blocks, commands, run, write_files

import workload_map as wm
from workload_map.definition.schema import KARTA

FOUND = blocks()
_TABLE = re.compile(r"<!-- fields: (?P<model>\w+) -->\n(?P<table>(?:\|[^\n]*\n)+)")


def _models(model: type[BaseModel], seen: dict[str, type[BaseModel]]) -> dict[str, type[BaseModel]]:
    """Every object of the format reachable from ``model``, by class name."""
    if model.__name__ in seen:
        return seen
    seen[model.__name__] = model
    for info in model.model_fields.values():
        for inner in _inner_types(info.annotation):
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                _models(inner, seen)
    return seen


def _inner_types(annotation: object) -> list[object]:
    args = typing.get_args(annotation)
    if not args:
        return [annotation]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType, list, dict):
        return [t for arg in args for t in _inner_types(arg)]
    return [annotation]


def _documented() -> dict[str, list[str]]:
    """The field names of each table marked ``<!-- fields: Model -->``, as the first column gives them."""
    out: dict[str, list[str]] = {}
    for match in _TABLE.finditer(FORMAT_DOC.read_text()):
        rows = match["table"].splitlines()[2:]  # header and separator
        out[match["model"]] = [re.sub(r"^`|`$", "", row.split("|")[1].strip()) for row in rows]
    return out


def test_every_field_of_the_model_is_described_and_nothing_else() -> None:
    models = _models(KARTA, {})
    documented = _documented()
    assert sorted(documented) == sorted(models), "a table per object of the format (<!-- fields: Model -->)"
    for name, model in models.items():
        fields = [info.alias or field for field, info in model.model_fields.items()]
        assert sorted(documented[name]) == sorted(fields), f"{name}: the table lists {documented[name]}"


def test_every_block_is_an_example_that_runs() -> None:
    kinds = [(b.line, b.info) for b in FOUND if b.file is None and b.info != "console"]
    assert not kinds, f"blocks neither 'yaml file=NAME' nor 'console' (nothing would check them): {kinds}"
    names = [b.file for b in FOUND if b.file is not None]
    assert len(names) == len(set(names)), "each file is given once"
    assert len(names) >= 15 and sum(b.info == "console" for b in FOUND) >= 8


@pytest.mark.parametrize("block", [b for b in FOUND if b.info == "console"], ids=lambda b: f"line-{b.line}")
def test_console_blocks_print_what_the_page_shows(
    block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(tmp_path, FOUND)
    monkeypatch.chdir(tmp_path)
    for command in commands(block):
        output, exit_code = run(command)
        assert (output, exit_code) == (command.output, command.exit_code), (
            f"{FORMAT_DOC.name}:{command.line}: wmap {' '.join(command.args)}"
        )


def test_every_karta_on_the_page_is_valid(tmp_path: Path) -> None:
    write_files(tmp_path, FOUND)
    kartas = [b.file for b in FOUND if b.file and b.body.lstrip().startswith("apiVersion: run.ai/v1alpha1")]
    assert len(kartas) >= 7
    for name in kartas:
        report = wm.validate_definitions([str(tmp_path / name)])
        assert report.valid and len(report.definitions) == 1, (name, [str(f) for f in report.findings])
        warnings = [str(f) for f in report.findings if "left to do" not in f.message]
        assert not warnings, (name, warnings)  # the only warnings are the gaps of the gaps example
