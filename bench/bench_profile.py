"""Profiles of missed targets: pyinstrument (flat, top functions) of a whole `wmap get -A --from-file` process,
and the jq expressions that leave the fast path for the libjq worker (calls per expression)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from typing import Any

from bench_common import RESULTS_DIR, VENV_BIN, Figure, dump_path


def _pyinstrument(argv: list[str], out_name: str, top: int) -> list[tuple[float, str]]:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    out = RESULTS_DIR / out_name
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pyinstrument",
            "-r",
            "text",
            "-p",
            "flat=true",
            "-p",
            "time=percent_of_total",
            "-o",
            str(out),
            *argv,
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    text = out.read_text()
    rows = []
    for line in text.splitlines():
        m = re.match(r"\s*([\d.]+)% (.+)", line)
        if m:
            rows.append((float(m.group(1)), m.group(2).strip()))
    head = re.search(r"Duration: ([\d.]+)\s+CPU time: ([\d.]+)", text)
    if head:
        rows.insert(0, (100.0, f"TOTAL duration {head.group(1)} s, CPU {head.group(2)} s"))
    return rows[: top + 1]


def worker_calls(path: str) -> Counter[str]:
    """Calls that went to the libjq worker during one in-process get -A, by expression."""
    from workload_map.jq import _isolated, program

    counts: Counter[str] = Counter()
    original = _isolated.run_isolated

    def counting(expression: str, value: Any, mode: int) -> list[Any]:
        counts[expression] += 1
        return original(expression, value, mode)

    _isolated.run_isolated = counting
    patched_program = getattr(program, "run_isolated", None) is original
    if patched_program:
        program.run_isolated = counting  # type: ignore[attr-defined]
    try:
        from bench_dump import get_args, invoke

        invoke(get_args(dump_path_from(path)))
    finally:
        _isolated.run_isolated = original
        if patched_program:
            program.run_isolated = original  # type: ignore[attr-defined]
    return counts


def dump_path_from(path: str) -> Any:
    from pathlib import Path

    return Path(path)


def run(*, size: int, top: int = 25, log: Any = print) -> tuple[list[Figure], dict[str, Any]]:
    path = str(dump_path(size))
    wmap = str(VENV_BIN / "wmap")
    details: dict[str, Any] = {}
    get_rows = _pyinstrument([wmap, "get", "-A", "--from-file", path], f"profile-get-{size}.txt", top)
    help_rows = _pyinstrument([wmap, "--help"], "profile-help.txt", 15)
    calls = worker_calls(path)
    details["get_flat"] = get_rows
    details["help_flat"] = help_rows
    details["worker_calls"] = calls.most_common()
    log(f"profile of wmap get -A --from-file ({size} workloads), % of total, flat:")
    for pct, name in get_rows:
        log(f"  {pct:5.1f}%  {name}")
    log("profile of wmap --help, flat:")
    for pct, name in help_rows:
        log(f"  {pct:5.1f}%  {name}")
    log(f"libjq worker round trips during get -A: {sum(calls.values())} calls")
    for expr, n in calls.most_common(12):
        log(f"  {n:6d}  {expr[:110]!r}")
    figures = [Figure("profile", f"libjq worker round trips in get -A, {size} workloads", sum(calls.values()), "calls")]
    return figures, details
