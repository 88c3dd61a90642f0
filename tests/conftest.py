from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

# Tests import shared helpers (corpus.py) as top-level modules, and bench/'s generators (gen, gen_cluster,
# bench_*) as the benchmarks import them, at the top of the test module.
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "bench"))

_CACHE_ENV = "WMAP_CACHE_DIR"
_created: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    # The compiled-definition cache (workload_map.base.cache) of the test run: never the user's ~/.cache, and
    # fresh for each run, so no entry written by an earlier version of the code under test is ever read.
    # xdist workers and subprocesses (the CLI, benchmarks) inherit it.
    if not os.environ.get(_CACHE_ENV):
        os.environ[_CACHE_ENV] = tempfile.mkdtemp(prefix="wmap-test-cache-")
        _created.append(os.environ[_CACHE_ENV])
    # A shell starts background jobs (nohup, `cmd &` in a CI script) with SIGINT ignored, and every process a
    # test starts would inherit that: the tests that end wmap with Ctrl-C as a user would (watch, record,
    # serve, the no-leftovers checks) would wait for a process that rightly ignores it. With a handler here,
    # exec gives each child SIGINT at its default, as from a terminal.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_unconfigure(config: pytest.Config) -> None:
    for directory in _created:
        shutil.rmtree(directory, ignore_errors=True)
