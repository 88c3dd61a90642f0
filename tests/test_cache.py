"""The on-disk cache store: where it lives, and that a damaged, foreign or half-written entry is a miss."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from workload_map.base import cache


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(directory))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    return directory


def entry(directory: Path, key: bytes) -> Path:
    return directory / f"{key.hex()}.bin"


def test_location_env_xdg_home_and_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cache.CACHE_DIR_ENV, raising=False)
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "workload-map" / "compiled"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "workload-map" / "compiled"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the XDG spec: only absolute paths count
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "workload-map" / "compiled"
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path / "explicit"))
    assert cache.cache_dir() == tmp_path / "explicit"
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    assert cache.cache_dir() is None
    assert not cache.writable()
    assert cache.store(cache.key_of("k"), "v") is False
    assert cache.load(cache.key_of("k")) is None
    assert not (tmp_path / "explicit").exists()


def test_round_trip_private_directory(cache_dir: Path) -> None:
    key = cache.key_of("definition", b"\x00bytes")
    assert cache.load(key) is None
    assert cache.store(key, {"a": (1, 2)})
    assert cache.load(key) == {"a": (1, 2)}
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700
    assert [p.name for p in cache_dir.iterdir()] == [f"{key.hex()}.bin"]  # no temporary file left


def test_keys_separate_their_parts() -> None:
    assert cache.key_of("ab", "c") != cache.key_of("a", "bc")
    assert cache.key_of("a") == cache.key_of(b"a")


@pytest.mark.parametrize(
    "damage",
    ["truncated", "flipped byte", "empty", "garbage", "other key", "unpicklable"],
)
def test_damaged_entry_is_a_miss_and_is_rewritten(cache_dir: Path, damage: str) -> None:
    key, other = cache.key_of("mine"), cache.key_of("other")
    assert cache.store(key, ["value"] * 100)
    path = entry(cache_dir, key)
    blob = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(blob[: len(blob) // 2])
    elif damage == "flipped byte":
        path.write_bytes(blob[:-5] + bytes([blob[-5] ^ 0xFF]) + blob[-4:])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "garbage":
        path.write_bytes(os.urandom(len(blob)))
    elif damage == "other key":  # a valid entry, but written for another key (copied, renamed)
        assert cache.store(other, "not mine")
        path.write_bytes(entry(cache_dir, other).read_bytes())
    else:  # intact framing around a payload that does not unpickle (another program's format)
        payload = b"\x80\x05not a pickle"
        magic = blob[: blob.index(b"\n") + 1]
        path.write_bytes(magic + key + hashlib.sha256(payload).digest() + payload)
    assert cache.load(key) is None
    assert cache.store(key, "rewritten")
    assert cache.load(key) == "rewritten"


def test_entry_owned_by_another_user_is_not_read(cache_dir: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give a file to another user")
    key = cache.key_of("k")
    assert cache.store(key, "v")
    os.chown(entry(cache_dir, key), 12345, 12345)
    assert cache.load(key) is None


def test_read_only_or_unusable_location_never_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() == 0:
        # root writes through permission bits: make the location a file, which nobody can write below
        blocker = tmp_path / "home"
        blocker.write_text("not a directory")
        monkeypatch.setenv(cache.CACHE_DIR_ENV, str(blocker / "cache"))
    else:
        home = tmp_path / "home"
        home.mkdir()
        home.chmod(0o500)
        monkeypatch.setenv(cache.CACHE_DIR_ENV, str(home / "cache"))
    key = cache.key_of("k")
    assert cache.store(key, "v") is False
    assert cache.load(key) is None


def test_bounded_least_recently_used_go(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "MAX_ENTRIES", 3)
    keys = [cache.key_of(str(i)) for i in range(4)]
    for index, key in enumerate(keys[:3]):
        assert cache.store(key, index)
        os.utime(entry(cache_dir, key), ns=(index * 10**9, index * 10**9))
    assert cache.load(keys[0]) == 0  # used: now the most recent
    assert cache.store(keys[3], 3)
    assert sorted(p.name for p in cache_dir.iterdir()) == sorted(f"{k.hex()}.bin" for k in (keys[0], *keys[2:]))


WRITER = textwrap.dedent(
    """
    import sys
    from workload_map.base import cache
    key = cache.key_of("shared")
    value = ["x" * 1000] * 200
    for _ in range(int(sys.argv[1])):
        cache.store(key, value)
        got = cache.load(key)
        assert got is None or got == value, "a reader saw a mixed or partial entry"
    """
)


def test_concurrent_writers_and_readers_see_whole_entries(cache_dir: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, "200"]) for _ in range(4)]
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0, 0]
    assert cache.load(cache.key_of("shared")) == ["x" * 1000] * 200
    assert [p.name for p in cache_dir.iterdir()] == [f"{cache.key_of('shared').hex()}.bin"]
