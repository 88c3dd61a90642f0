"""Ending the ``wmap`` process without freeing, one by one, what a large read left alive.

A ``get -A`` over a large dump ends with its view and trees alive: hundreds of MB of small dicts, lists and
strings that the interpreter frees object by object on the way out (when the command returns, then at
finalization). Measured on the generated dumps (``bench/bench_gobaseline.py``'s, in process): 0.2 s CPU
at 1,000 workloads, 0.85 s at 5,000 (~4% of the command either way), for memory the process is about to
give back whole. The console script (``main()`` without arguments) therefore keeps what a command asks
it to keep (:func:`keep_until_exit`) and ends with ``os._exit`` once exit hooks have run and the output is
flushed (:func:`exit_without_teardown`). In process (tests, ``main([...])``, a host calling the CLI)
nothing is kept and the interpreter exits as usual.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import Any, ClassVar


class _Process:
    ends_here = False  # set by the console script: this process ends when the command does
    kept: ClassVar[list[Any]] = []


def ending_here() -> None:
    """Called by the console script before it runs a command."""
    _Process.ends_here = True


def keep_until_exit(*objects: Any) -> None:
    """Keep ``objects`` alive until the process ends (only when it ends in ``exit_without_teardown``)."""
    if _Process.ends_here:
        _Process.kept.extend(objects)


def exit_without_teardown(done: SystemExit) -> None:
    """End the process as the interpreter would for ``done``, without its teardown; returns (and the
    interpreter exits as usual) when the command kept nothing (a command with files of its own, such as
    ``wmap record`` ended by SIGTERM with its recording open, needs the interpreter to flush and close
    them), when a non-daemon thread is still alive, or when the output cannot be flushed (a closed pipe:
    the interpreter reports that as it always does)."""
    if not _Process.kept:
        return
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    code = done.code
    try:
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)  # as the interpreter reports a SystemExit that carries a message
            code = done.code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        atexit._run_exitfuncs()  # they run once: the interpreter finds none left if the exit falls back to it
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code or 0)
