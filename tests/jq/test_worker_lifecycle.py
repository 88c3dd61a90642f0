"""The libjq worker: started only when an expression needs it, gone when its process is (never a leftover).

The CLI side (``wmap`` interrupted, terminated, failing) is in tests/cli/test_process.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from processes import cpu_ticks, ended, wait_until
from workload_map.jq import _isolated, compile_expression

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

NEEDS_LIBJQ = '.s | test("^a[b-c]c$")'  # a character class: outside the fast path


def test_fast_path_expressions_start_no_worker() -> None:
    program = compile_expression('.a | test("gpu") and contains("g")')
    # libjq's syntax check of an expression not judged before ran in the worker (a warm process has the
    # verdicts of its definitions from the cache and starts none): evaluating needs none.
    _isolated.shutdown()
    assert program.uses_fast_path
    assert program.all({"a": "nvidia.com/gpu"}) == [True]
    assert _isolated.worker_pid() is None


def test_worker_starts_on_demand_and_shutdown_reaps_it() -> None:
    program = compile_expression(NEEDS_LIBJQ)
    assert not program.uses_fast_path
    _isolated.shutdown()
    assert compile_expression(NEEDS_LIBJQ) is program and _isolated.worker_pid() is None  # judged once
    assert program.all({"s": "abc"}) == [True]
    pid = _isolated.worker_pid()
    assert pid is not None
    _isolated.shutdown()
    assert ended(pid)  # killed and waited for: not even a zombie is left
    assert program.all({"s": "abd"}) == [False]  # the next need starts a new one
    assert _isolated.worker_pid() not in (None, pid)


def test_worker_killed_from_outside_is_replaced_without_a_false_limit_error() -> None:
    program = compile_expression(NEEDS_LIBJQ)
    assert program.all({"s": "abc"}) == [True]
    pid = _isolated.worker_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: ended(pid) or _isolated._State.worker is None, "the killed worker ends")
    assert program.all({"s": "abc"}) == [True]  # not "exceeded the memory limit"


# ~10^9 steps in libjq, in constant memory: minutes, far past any deadline below
SLOW = "reduce (.a[] as $x | .a[] as $y | .a[] as $z | 1) as $one (0; . + $one)"
HOST = textwrap.dedent(
    f"""
    import os, sys
    from workload_map.jq import _isolated, compile_expression
    assert compile_expression({NEEDS_LIBJQ!r}).all({{"s": "abc"}}) == [True]
    print(_isolated.worker_pid(), flush=True)
    how = sys.argv[1]
    if how == "wait":
        sys.stdin.read()  # until the test signals us
    elif how == "busy":
        # keep the worker inside libjq (where it reads no input and so cannot notice end of input)
        import threading
        from workload_map.jq import LIMITS
        LIMITS.timeout_seconds = 3600
        slow = compile_expression({SLOW!r})
        threading.Thread(target=slow.all, args=({{"a": list(range(1000))}},), daemon=True).start()
        sys.stdin.read()
    elif how == "error":
        raise RuntimeError("boom")
    elif how == "fork":
        child = os.fork()
        if child == 0:
            # the child may use libjq too, with a worker of its own; the parent's stays the parent's
            assert compile_expression({NEEDS_LIBJQ!r}).all({{"s": "abd"}}) == [False]
            print(_isolated.worker_pid(), flush=True)
            os._exit(0)
        os.waitpid(child, 0)
    """
)


def host(how: str) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOST, how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip().isdigit(), proc.communicate()[1]
    return proc, int(line)


@pytest.mark.parametrize("how", ["exit", "error"])
def test_worker_ends_before_its_process_exits(how: str) -> None:
    proc, worker = host(how)
    _, err = proc.communicate()
    assert proc.returncode == (0 if how == "exit" else 1), err
    assert ended(worker)  # reaped by the exit hook, before the process was gone


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_worker_ends_when_its_process_is_signalled(sig: signal.Signals) -> None:
    proc, worker = host("wait")
    assert not ended(worker)
    proc.send_signal(sig)
    proc.communicate()
    # SIGINT runs the exit hook; a bare SIGTERM or SIGKILL skips it and the kernel ends the worker
    # (PR_SET_PDEATHSIG), asynchronously: wait for it.
    wait_until(lambda: ended(worker), f"the worker of a process ended by {sig.name} ends")


def test_busy_worker_ends_when_its_process_is_killed() -> None:
    """A worker inside a long libjq evaluation reads no input, so only the death signal can end it."""
    proc, worker = host("busy")
    try:
        start = cpu_ticks(worker)
        wait_until(lambda: cpu_ticks(worker) > start + 10, "the worker is busy evaluating")
        proc.kill()
        proc.communicate()
        wait_until(lambda: ended(worker), "a busy worker of a killed process ends")
    finally:
        if not ended(worker):
            os.kill(worker, signal.SIGKILL)


def test_forked_child_has_its_own_worker() -> None:
    proc, parent_worker = host("fork")
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    child_worker = int(out.split()[0])
    assert child_worker != parent_worker
    assert ended(parent_worker) and ended(child_worker)
