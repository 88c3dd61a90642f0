"""Pausing Python's cyclic garbage collector around bulk loads of cluster objects.

A parsed dump is millions of small dicts, lists and strings and contains no reference cycles, so the
cyclic collector can never free any of it; yet while it is being built the collector keeps traversing
all of it (reading a 91 MB dump took 2.25 s with the collector running against 0.92 s without).

``bulk_load()`` disables the collector for the duration of a ``with`` block (nesting and threads are
counted: only the outermost exit restores it) and, on that exit, moves every object alive into the
permanent generation (``gc.freeze``) so later collections skip the loaded data instead of traversing
it again. The next outermost entry puts them back (``gc.unfreeze``), so cyclic garbage that happened
to be frozen is collected eventually and long-running hosts (watch loops, the operator) do not leak;
reference counting frees the loaded objects as usual either way. A host that had the collector
disabled keeps it disabled, and nothing is frozen for it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import ParamSpec, TypeVar


class _State:
    lock = threading.Lock()
    depth = 0  # open bulk_load blocks, all threads together
    restore = False  # the collector was enabled when the outermost block began


P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def bulk_load() -> Iterator[None]:
    """Run the block with the cyclic GC paused; freeze what was built when the outermost block ends."""
    state = _State
    with state.lock:
        if state.depth == 0:
            state.restore = gc.isenabled()
            if state.restore:
                gc.disable()
                gc.unfreeze()
        state.depth += 1
    try:
        yield
    finally:
        with state.lock:
            state.depth -= 1
            if state.depth == 0 and state.restore:
                gc.freeze()
                gc.enable()


def bulk(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorator form of :func:`bulk_load`."""

    @wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with bulk_load():
            return fn(*args, **kwargs)

    return wrapper
