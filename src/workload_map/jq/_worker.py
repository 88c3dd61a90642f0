"""Child process that runs libjq on behalf of the parent (see bench/JQ_ENGINE.md).

libjq is C code: a runaway evaluation cannot be interrupted from Python and can
allocate gigabytes. Running it here, under an address-space rlimit and a parent
side wall-clock timeout, lets the parent kill it instead of hanging or dying.
This file is executed as a script, so it must only import third-party modules.
"""

from __future__ import annotations

import os
import resource
import signal
import struct
import sys
from typing import Any

import jq

_HEADER = struct.Struct("!BII")
_REPLY = struct.Struct("!BI")
OK, ERROR, LIMIT = 0, 1, 2
MODE_PATHS, MODE_COMPILE = 2, 3
READY = b"\x00"
_CACHE_MAX = 2048


def _read_exact(stream: Any, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = stream.read(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return bytes(buf)


def _end_with(parent: int) -> None:
    """Die with the parent (its pid, 0 when not asked), even when it is killed without exit hooks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group; the parent decides
    # The parent holds SIGTERM/SIGINT while it starts this process, and the mask survives exec.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    if not parent:
        return
    if sys.platform.startswith("linux"):
        import ctypes  # noqa: PLC0415 (only the worker arms its death signal)

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent was already gone before the death signal was armed
        os._exit(0)


def main() -> None:
    _end_with(int(sys.argv[1]))
    mem_limit = int(sys.argv[2])
    max_total = int(sys.argv[3])
    max_string = int(sys.argv[4])
    if mem_limit > 0:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:  # started under a tighter limit: it cannot be raised
            mem_limit = min(mem_limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))
    # libjq aborts when an allocation fails: no core file of up to the whole limit for each hostile expression.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    # The parent's clock for a request starts after this: starting Python and loading libjq on a busy
    # machine is no expression's fault.
    stdout.write(READY)
    stdout.flush()
    cache: dict[tuple[str, int], Any] = {}
    while True:
        try:
            mode, elen, dlen = _HEADER.unpack(_read_exact(stdin, _HEADER.size))
            expr = _read_exact(stdin, elen).decode()
            data = _read_exact(stdin, dlen).decode()
        except EOFError:
            return
        status, payload = _run(cache, mode, expr, data, max_total=max_total, max_string=max_string)
        body = payload.encode()
        stdout.write(_REPLY.pack(status, len(body)) + body)
        stdout.flush()


def _run(
    cache: dict[tuple[str, int], Any], mode: int, expr: str, data: str, *, max_total: int, max_string: int
) -> tuple[int, str]:
    if mode == MODE_COMPILE:
        return _compile(expr)
    key = (expr, mode)
    prog = cache.get(key)
    try:
        if prog is None:
            # tojson makes libjq print each result itself, so number literals
            # keep jq's spelling (1.0 stays 1.0) instead of the binding's conversion.
            # The newline ends a comment the expression may end with (`.a  # note`), which would
            # otherwise swallow the closing parenthesis.
            wrapped = f"path({expr}\n) | tojson" if mode == MODE_PATHS else f"({expr}\n) | tojson"
            prog = jq.compile(wrapped)
            if len(cache) >= _CACHE_MAX:
                cache.clear()
            cache[key] = prog
        outputs: list[str] = []
        total = 0
        for out in prog.input_text(data):
            text = str(out)
            total += len(text) + 1
            if text.startswith('"') and len(text) > max_string + 2:
                return LIMIT, f"string result exceeds {max_string} bytes"
            if total > max_total:
                return LIMIT, f"results exceed {max_total} bytes"
            outputs.append(text)
            if mode == 1:
                break
        return OK, "[" + ",".join(outputs) + "]"
    except MemoryError:
        return LIMIT, "evaluation exceeded the memory limit"
    except Exception as exc:
        return ERROR, str(exc)


def _compile(expr: str) -> tuple[int, str]:
    """libjq's syntax check of the expression alone. It runs here, not in the parent, because libjq folds
    constant expressions while compiling: ``"aaaa" * 250000000`` allocates a gigabyte before anything runs."""
    try:
        jq.compile(expr)
    except MemoryError:
        return LIMIT, "compilation exceeded the memory limit"
    except Exception as exc:
        return ERROR, str(exc)
    return OK, ""


if __name__ == "__main__":
    main()
