"""The code blocks of docs/library.md: ```python (dump examples) and ```python live (a live cluster)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIBRARY_DOC = ROOT / "docs" / "library.md"
_FENCE = re.compile(r"^```python(?P<info>[^\n]*)\n(?P<code>.*?)^```$", re.M | re.S)


def blocks(kind: str) -> list[tuple[int, str]]:
    """(line, code) of every block whose info string is ``python`` (kind "dump") or ``python live``."""
    text = LIBRARY_DOC.read_text()
    out = []
    for match in _FENCE.finditer(text):
        info = match["info"].strip()
        if (kind == "live") == (info == "live"):
            out.append((text.count("\n", 0, match.start()) + 1, match["code"]))
    return out


def run(code_blocks: list[tuple[int, str]], namespace: dict[str, object]) -> None:
    """Run the blocks in order in one namespace, as a reader pastes them; a failure names its line."""
    for line, code in code_blocks:
        compiled = compile("\n" * line + code, str(LIBRARY_DOC), "exec")
        exec(compiled, namespace)
