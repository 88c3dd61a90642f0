"""Reading processes from /proc (Linux): which are alive, whose children they are.

A process counts as ended when it is absent or a zombie (exited, not reaped yet). Waits for an end the
kernel delivers asynchronously poll up to a generous deadline and fail with a message: they bound a
wait, they do not assert a duration.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

DEADLINE_S = 60.0


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text.rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, pgrp, ...


def ended(pid: int) -> bool:
    fields = _stat(pid)
    return fields is None or fields[0] in ("Z", "X")


def _live(field: int, value: int) -> list[int]:
    """Live processes whose stat field (1 = parent id, 2 = process group) is ``value``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None and int(fields[field]) == value and fields[0] not in ("Z", "X"):
                found.append(int(entry.name))
    return found


def children_of(pid: int) -> list[int]:
    """Live children of ``pid``."""
    return _live(1, pid)


def in_group(pgid: int) -> list[int]:
    """Live processes of process group ``pgid``."""
    return _live(2, pgid)


def cpu_ticks(pid: int) -> int:
    fields = _stat(pid)
    return 0 if fields is None else int(fields[11]) + int(fields[12])  # utime + stime


def wait_until(condition: Callable[[], object], what: str, deadline_s: float = DEADLINE_S) -> None:
    deadline = time.monotonic() + deadline_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {deadline_s:g} s: {what}")
        time.sleep(0.02)
