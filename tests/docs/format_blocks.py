"""The fenced blocks of docs/definition-format.md, each an example the tests run.

Every block is one of two kinds, so nothing in the page goes unchecked:

* ```` ```yaml file=NAME ````: a file the reader saves as NAME (a Karta, objects, expectations); written into
  one directory, in page order, before any command runs;
* ```` ```console ````: ``$ wmap ...`` lines, each followed by exactly what it prints (stdout and stderr as
  a terminal shows them) and, when it exits with another status than 0, a last line ``[exit status N]``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from workload_map.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
FORMAT_DOC = ROOT / "docs" / "definition-format.md"
_FENCE = re.compile(r"^```(?P<info>[^\n]*)\n(?P<body>.*?)^```$", re.M | re.S)
_EXIT = re.compile(r"^\[exit status (\d+)\]$")


@dataclass(frozen=True)
class Block:
    line: int
    info: str
    body: str

    @property
    def file(self) -> str | None:
        match = re.fullmatch(r"yaml file=(\S+)", self.info)
        return match[1] if match else None


@dataclass(frozen=True)
class Command:
    line: int
    args: list[str]
    output: str
    exit_code: int


def blocks(text: str | None = None) -> list[Block]:
    text = FORMAT_DOC.read_text() if text is None else text
    return [Block(text.count("\n", 0, m.start()) + 1, m["info"].strip(), m["body"]) for m in _FENCE.finditer(text)]


def commands(block: Block) -> list[Command]:
    """The ``$ wmap ...`` lines of a console block with the output shown after each."""
    out: list[Command] = []
    lines = block.body.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.startswith("$ "):
            raise AssertionError(f"{FORMAT_DOC.name}:{block.line + index + 1}: expected a '$ wmap' line: {line!r}")
        args = shlex.split(line[2:])
        if args[0] != "wmap":
            raise AssertionError(f"{FORMAT_DOC.name}:{block.line + index + 1}: only wmap commands run here")
        start = index
        index += 1
        shown: list[str] = []
        while index < len(lines) and not lines[index].startswith("$ "):
            shown.append(lines[index])
            index += 1
        exit_code = 0
        if shown and (match := _EXIT.match(shown[-1])):
            exit_code = int(match[1])
            shown.pop()
        out.append(Command(block.line + start + 1, args[1:], "\n".join(shown), exit_code))
    return out


def write_files(directory: Path, found: list[Block]) -> None:
    for block in found:
        if block.file is not None:
            (directory / block.file).write_text(block.body)


def run(command: Command) -> tuple[str, int]:
    """What the command prints (lines right-stripped) and its exit status, in the current directory."""
    result = CliRunner().invoke(cli, command.args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    text = "\n".join(line.rstrip() for line in result.output.rstrip("\n").splitlines())
    return text, result.exit_code
