"""Parent side of the libjq worker: framing, timeouts, respawn after a kill, and its end.

The worker is started by the first expression that needs libjq (most never do: the fast path runs
them) and ends with the process that started it, leaving nothing behind:

- at interpreter exit (normal exit, an error, Ctrl-C's KeyboardInterrupt, ``sys.exit`` from a signal
  handler) an ``atexit`` hook kills it and waits for it, so it is gone before the parent is;
- when the parent dies without running exit hooks (SIGKILL, a default SIGTERM), the kernel kills the
  worker (``PR_SET_PDEATHSIG``, set up by the worker itself on Linux, for a worker started from the
  main thread), and an idle worker also stops at end of input;
- Ctrl-C in a terminal signals the whole foreground process group: the worker ignores SIGINT and leaves
  the decision to its parent;
- a forked child forgets the parent's worker (and closes its copies of the pipes) and starts its own.
"""

from __future__ import annotations

import atexit
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from workload_map.base import json_codec as _json

from .errors import JqLimitError, JqRuntimeError
from .limits import LIMITS

_HEADER = struct.Struct("!BII")
_REPLY = struct.Struct("!BI")
_OK, _ERROR, _LIMIT = 0, 1, 2
MODE_ALL, MODE_FIRST, MODE_PATHS, MODE_COMPILE = 0, 1, 2, 3
_WORKER = Path(__file__).with_name("_worker.py")
# How long a new worker may take to start Python and load libjq before its first request; the request's
# own time limit starts after that.
_START_SECONDS = 60.0


class _NotStarted(Exception):
    """The worker ended or hung before it was ready for requests."""


class _Worker:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(_WORKER),
                # The kernel's death signal follows the *thread* that started the worker: ask for it
                # only from the main thread, which lives as long as the process.
                str(os.getpid() if threading.current_thread() is threading.main_thread() else 0),
                str(LIMITS.worker_memory_bytes),
                str(LIMITS.max_output_bytes),
                str(LIMITS.max_string_bytes),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        self.ready = False

    def kill(self) -> None:
        try:
            self.proc.kill()
        finally:
            self.proc.wait()
            self.close_pipes()

    def close_pipes(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def request(self, mode: int, expr: bytes, data: bytes, timeout: float) -> tuple[int, bytes]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if not self.ready:
            try:
                self._receive(1, time.monotonic() + _START_SECONDS)
            except (TimeoutError, EOFError):
                raise _NotStarted from None
            self.ready = True
        self.proc.stdin.write(_HEADER.pack(mode, len(expr), len(data)) + expr + data)
        deadline = time.monotonic() + timeout
        status, length = _REPLY.unpack(self._receive(_REPLY.size, deadline))
        return status, self._receive(length, deadline)

    def _receive(self, size: int, deadline: float) -> bytes:
        """Exactly ``size`` bytes from the worker, by ``deadline`` (TimeoutError) or before it ends (EOFError)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        buf = bytearray()
        while len(buf) < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                raise TimeoutError
            chunk = os.read(fd, size - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return bytes(buf)


class _State:
    """One worker per process, replaced after a kill; class attributes so functions need no `global`."""

    lock = threading.Lock()
    worker: _Worker | None = None
    exit_hook = False


def run_isolated(expression: str, value: Any, mode: int) -> list[Any]:
    """Evaluate with libjq in the worker; returns outputs (paths in MODE_PATHS)."""
    data = encode_input(value, expression)
    status, payload = _call(mode, expression, data, "evaluation")
    text = payload.decode()
    if status == _OK:
        # jq keeps integers beyond 64 bits as literals: read them exactly.
        result: list[Any] = _json.loads(payload)
        return result
    if status == _LIMIT:
        raise JqLimitError(f"{text} (expression {expression!r})", expression)
    raise JqRuntimeError(text, expression)


def compile_isolated(expression: str) -> str | None:
    """libjq's message when it cannot compile ``expression``, None when it can; :class:`JqLimitError` when
    compiling exceeds the worker's time or memory limit (libjq computes constant parts while compiling)."""
    status, payload = _call(MODE_COMPILE, expression, b"", "jq compilation")
    if status == _OK:
        return None
    if status == _LIMIT:
        raise JqLimitError(f"{payload.decode()} (expression {expression!r})", expression)
    return payload.decode()


def _call(mode: int, expression: str, data: bytes, what: str) -> tuple[int, bytes]:
    """One request to the worker (started if needed); a worker that overruns its time or dies is killed
    and the next call starts a fresh one."""
    with _State.lock:
        worker = _State.worker
        if worker is not None and not worker.alive:
            # Ended between two calls (killed from outside, or its starting thread ended: PDEATHSIG
            # follows the thread); not a limit this expression hit, so start afresh.
            worker.kill()
            worker = None
        if worker is None:
            worker = _State.worker = _start_worker()
        try:
            return worker.request(mode, expression.encode(), data, LIMITS.timeout_seconds)
        except _NotStarted:
            worker.kill()
            _State.worker = None
            raise JqLimitError(
                f"{what} of {expression!r}: the jq worker did not start within {_START_SECONDS:g} s", expression
            ) from None
        except TimeoutError:
            worker.kill()
            _State.worker = None
            raise JqLimitError(
                f"{what} of {expression!r} exceeded the {LIMITS.timeout_seconds:g} s time limit", expression
            ) from None
        except (EOFError, BrokenPipeError, OSError):
            worker.kill()
            _State.worker = None
            mib = LIMITS.worker_memory_bytes // 2**20
            raise JqLimitError(f"{what} of {expression!r} exceeded the memory limit ({mib} MiB)", expression) from None


# A SIGTERM (raised as SystemExit by the CLI) or Ctrl-C that lands inside Popen, after the fork but before
# the worker is recorded, would leave a worker the exit hook does not know of. The main thread holds those
# signals until the worker is recorded and the hook registered; they are delivered right after. The child
# inherits the mask through exec, and the worker unblocks them first thing (_worker._end_with).
_DEFERRED = {signal.SIGTERM, signal.SIGINT}


def _start_worker() -> _Worker:
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED) if in_main else None
    try:
        worker = _Worker()
        _State.worker = worker
        if not _State.exit_hook:
            _State.exit_hook = True
            atexit.register(shutdown)
    finally:
        if previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    return worker


def encode_input(value: Any, expression: str) -> bytes:
    try:
        data = _json.dumps(value)
    except orjson.JSONEncodeError as exc:
        if "Recursion" in str(exc):
            raise JqLimitError(f"input nests deeper than {LIMITS.max_input_depth} levels", expression) from None
        raise JqRuntimeError(f"input is not JSON: {exc}", expression) from None
    if len(data) > LIMITS.max_input_bytes:
        raise JqLimitError(f"input of {len(data)} bytes exceeds the {LIMITS.max_input_bytes} byte limit", expression)
    return data


def shutdown() -> None:
    """Stop the worker and wait for it (at exit; tests). The next expression that needs libjq starts
    a new one."""
    with _State.lock:
        worker = _State.worker
        if worker is not None:
            worker.kill()
            _State.worker = None


def worker_pid() -> int | None:
    """The running worker's process id, if one runs (tests and diagnostics)."""
    worker = _State.worker
    return worker.proc.pid if worker is not None and worker.alive else None


def _forget_after_fork() -> None:
    # The child must neither talk to nor kill its parent's worker; holding the pipes open would keep
    # that worker from seeing end of input when the parent exits.
    _State.lock = threading.Lock()
    worker, _State.worker = _State.worker, None
    if worker is not None:
        worker.close_pipes()


os.register_at_fork(after_in_child=_forget_after_fork)
