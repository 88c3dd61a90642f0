"""The bulk-load GC pause (workload_map.base.gc_pause): restores the collector's state, nests, and freezes once."""

from __future__ import annotations

import gc
import threading

import pytest

from workload_map.base.gc_pause import bulk, bulk_load


@pytest.fixture(autouse=True)
def _restore_gc() -> object:
    enabled = gc.isenabled()
    yield None
    gc.unfreeze()
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_pauses_and_restores() -> None:
    gc.enable()
    with bulk_load():
        assert not gc.isenabled()
        with bulk_load():
            assert not gc.isenabled()
        assert not gc.isenabled()  # only the outermost exit restores
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0  # what was loaded is skipped by later collections


def test_next_load_unfreezes_the_previous_one() -> None:
    gc.enable()
    with bulk_load():
        pass
    frozen = gc.get_freeze_count()
    assert frozen > 0
    with bulk_load():
        assert gc.get_freeze_count() == 0
    assert gc.get_freeze_count() > 0


def test_host_with_gc_disabled_keeps_it_disabled() -> None:
    gc.disable()
    gc.unfreeze()
    with bulk_load():
        pass
    assert not gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_restores_on_error_and_decorator() -> None:
    gc.enable()

    @bulk
    def boom() -> None:
        assert not gc.isenabled()
        raise ValueError("x")

    with pytest.raises(ValueError):
        boom()
    assert gc.isenabled()


def test_threads_share_one_pause() -> None:
    gc.enable()
    inside = threading.Event()
    release = threading.Event()

    def worker() -> None:
        with bulk_load():
            inside.set()
            release.wait(5)

    t = threading.Thread(target=worker)
    t.start()
    inside.wait(5)
    with bulk_load():
        pass
    assert not gc.isenabled()  # the other thread's block is still open
    release.set()
    t.join(5)
    assert gc.isenabled()
