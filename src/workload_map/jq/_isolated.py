"""Parent side of the libjq worker: framing, timeouts, respawn after a kill."""

from __future__ import annotations

import os
import select
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from .errors import JqLimitError, JqRuntimeError
from .limits import LIMITS

_HEADER = struct.Struct("!BII")
_REPLY = struct.Struct("!BI")
_OK, _ERROR, _LIMIT = 0, 1, 2
MODE_ALL, MODE_FIRST, MODE_PATHS = 0, 1, 2
_WORKER = Path(__file__).with_name("_worker.py")


class _Worker:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(_WORKER),
                str(LIMITS.worker_memory_bytes),
                str(LIMITS.max_output_bytes),
                str(LIMITS.max_string_bytes),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )

    def kill(self) -> None:
        try:
            self.proc.kill()
        finally:
            self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    stream.close()

    def request(self, mode: int, expr: bytes, data: bytes, timeout: float) -> tuple[int, bytes]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(_HEADER.pack(mode, len(expr), len(data)) + expr + data)
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        buf = bytearray()
        need = _REPLY.size
        status = -1
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                raise TimeoutError
            chunk = os.read(fd, max(need - len(buf), 65536))
            if not chunk:
                raise EOFError
            buf += chunk
            if status < 0 and len(buf) >= _REPLY.size:
                status, length = _REPLY.unpack_from(buf)
                need = _REPLY.size + length
            if status >= 0 and len(buf) >= need:
                return status, bytes(buf[_REPLY.size : need])


_lock = threading.Lock()
# one worker, replaced after a kill; a list so the functions need no `global`
_slot: list[_Worker | None] = [None]


def run_isolated(expression: str, value: Any, mode: int) -> list[Any]:
    """Evaluate with libjq in the worker; returns outputs (paths in MODE_PATHS)."""
    data = encode_input(value, expression)
    expr = expression.encode()
    with _lock:
        worker = _slot[0]
        if worker is None:
            worker = _slot[0] = _Worker()
        try:
            status, payload = worker.request(mode, expr, data, LIMITS.timeout_seconds)
        except TimeoutError:
            worker.kill()
            _slot[0] = None
            raise JqLimitError(
                f"evaluation of {expression!r} exceeded the {LIMITS.timeout_seconds:g} s time limit",
                expression,
            ) from None
        except (EOFError, BrokenPipeError, OSError):
            worker.kill()
            _slot[0] = None
            raise JqLimitError(f"evaluation of {expression!r} exceeded the memory limit", expression) from None
    text = payload.decode()
    if status == _OK:
        try:
            result: list[Any] = orjson.loads(payload)
        except orjson.JSONDecodeError:
            # orjson rejects integers beyond 64 bits, which jq keeps as literals.
            import json

            result = json.loads(text)
        return result
    if status == _LIMIT:
        raise JqLimitError(f"{text} (expression {expression!r})", expression)
    raise JqRuntimeError(text, expression)


def encode_input(value: Any, expression: str) -> bytes:
    try:
        data = orjson.dumps(value)
    except orjson.JSONEncodeError as exc:
        if "Recursion" in str(exc):
            raise JqLimitError(f"input nests deeper than {LIMITS.max_input_depth} levels", expression) from None
        raise JqRuntimeError(f"input is not JSON: {exc}", expression) from None
    if len(data) > LIMITS.max_input_bytes:
        raise JqLimitError(f"input of {len(data)} bytes exceeds the {LIMITS.max_input_bytes} byte limit", expression)
    return data


def shutdown() -> None:
    """Stop the worker (tests, forked children)."""
    with _lock:
        worker = _slot[0]
        if worker is not None:
            worker.kill()
            _slot[0] = None
