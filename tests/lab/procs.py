"""The lab's long-running processes: each with its log in the lab's work dir, each stopped at the end."""

from __future__ import annotations

import contextlib
import ctypes
import datetime as dt
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """SIGKILL the child when pytest dies (kill -9 included): a lab leaves no process behind."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG


class LabProcess:
    def __init__(self, name: str, argv: list[str], log: Path, *, env: dict[str, str] | None = None, cwd: Path) -> None:
        self.name = name
        self.argv = argv
        self.log = log
        self._out: IO[bytes] = open(log, "ab")  # noqa: SIM115 - closed in stop()
        self._out.write(f"===== {name} started {dt.datetime.now().isoformat(timespec='seconds')}\n".encode())
        self._out.write((" ".join(argv) + "\n").encode())
        self._out.flush()
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=self._out,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            start_new_session=True,  # Ctrl-C to pytest reaches the lab's teardown, not the processes first
            preexec_fn=_die_with_parent,  # noqa: PLW1509 - only calls prctl()
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM, then SIGKILL after ``grace`` seconds; the whole session (children too)."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError):  # anything it started and left behind
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self._out.close()

    def tail(self, lines: int = 60) -> str:
        try:
            text = self.log.read_text(errors="replace")
        except OSError as exc:
            return f"<cannot read {self.log}: {exc}>"
        return "\n".join(text.splitlines()[-lines:])
