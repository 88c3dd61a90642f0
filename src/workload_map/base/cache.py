"""A small on-disk cache for results that are expensive to compute and pure (same input, same output).

What is stored is decided by the caller (loaded definitions and their compiled jq expressions, see
``workload_map.definition.compiled``); this module only keeps entries safe to read back:

- **where** (``workload_map.base.cache_location``): ``$WMAP_CACHE_DIR`` when set, else
  ``$XDG_CACHE_HOME/workload-map/compiled``, else ``~/.cache/workload-map/compiled``; ``WMAP_NO_CACHE=1``
  turns the cache off. The directory is created private to the user (0700) and an entry that another user
  owns is never read.
- **keys** are the SHA-256 of what the result depends on; the caller includes the code and library
  versions, so a stale entry is simply never looked up again (and pruned later).
- **integrity**: every entry carries a header with the format, its own key and a digest of its payload. A
  truncated, corrupted, foreign or concurrently half-written file fails that check and reads as a miss;
  the caller computes the result again and the entry is rewritten.
- **atomic writes**: a temporary file in the same directory renamed over the entry, so readers see the old
  or the new file, never a mix, and concurrent writers of the same key simply both win.
- **failure is silent**: a read-only or missing home, a full disk, a permission error: the cache is then
  skipped and the command works as without it. A cache may make a command faster, never make it fail.
- **bounded**: at most ``MAX_ENTRIES`` entries; when a write goes over, the least recently used go.

Values are pickled; pickle trusts its input, so entries live in the user's own private directory, like
Python's ``__pycache__``, and are read only when the user owns them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from pathlib import Path
from typing import Any

from workload_map.base.cache_location import CACHE_DIR_ENV, NO_CACHE_ENV, cache_directory

__all__ = [
    "CACHE_DIR_ENV",
    "MAX_ENTRIES",
    "NO_CACHE_ENV",
    "cache_dir",
    "key_of",
    "load",
    "store",
    "writable",
    "write_file",
]

MAX_ENTRIES = 512
_MAGIC = b"WMAPCACHE1\n"
_SUFFIX = ".bin"
_DIGEST = 32  # bytes of a SHA-256 digest


def cache_dir() -> Path | None:
    """The cache directory in effect (created when first written), or None when the cache is off."""
    directory = cache_directory()
    return None if directory is None else Path(directory)


def key_of(*parts: bytes | str) -> bytes:
    """A cache key: the SHA-256 of the parts, each length-prefixed so that no two part lists collide."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.digest()


def writable() -> bool:
    """Whether :func:`store` can be expected to succeed (the cache is on and its directory writable)."""
    directory = cache_dir()
    if directory is None:
        return False
    probe = directory
    while not probe.exists():
        if probe.parent == probe:
            return False
        probe = probe.parent
    return os.access(probe, os.W_OK | os.X_OK)


def _entry(directory: Path, key: bytes) -> Path:
    return directory / (key.hex() + _SUFFIX)


def load(key: bytes) -> Any | None:
    """The value stored under ``key``, or None (absent, unreadable, damaged, or the cache is off)."""
    directory = cache_dir()
    if directory is None:
        return None
    path = _entry(directory, key)
    try:
        with open(path, "rb") as stream:
            if os.fstat(stream.fileno()).st_uid != os.geteuid():
                return None
            blob = stream.read()
    except OSError:
        return None
    header = len(_MAGIC) + 2 * _DIGEST
    if len(blob) < header or not blob.startswith(_MAGIC):
        return None
    stored_key = blob[len(_MAGIC) : len(_MAGIC) + _DIGEST]
    stored_digest = blob[len(_MAGIC) + _DIGEST : header]
    payload = blob[header:]
    if stored_key != key or hashlib.sha256(payload).digest() != stored_digest:
        return None
    try:
        value = pickle.loads(payload)
    except Exception:  # an entry written by other code: treat as a miss, it will be rewritten
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # least recently *used* is what pruning removes
    return value


def store(key: bytes, value: Any) -> bool:
    """Write ``value`` under ``key``; False when the cache is off or cannot be written (never raises
    for that)."""
    directory = cache_dir()
    if directory is None:
        return False
    try:
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a value that cannot be pickled is a caller's bug, but must not break a command
        return False
    blob = _MAGIC + key + hashlib.sha256(payload).digest() + payload
    if not write_file(directory, _entry(directory, key).name, blob):
        return False
    _prune(directory)
    return True


def write_file(directory: Path, name: str, blob: bytes) -> bool:
    """Write ``blob`` to ``directory/name`` whole or not at all (a temporary file renamed over it), creating the
    directory private to the user; False when that cannot be done (never raises for that)."""
    try:
        import tempfile  # noqa: PLC0415 (only writers pay for it)

        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=_SUFFIX)
        try:
            with os.fdopen(fd, "wb") as stream:
                stream.write(blob)
            os.replace(temporary, directory / name)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return False
    return True


def _prune(directory: Path) -> None:
    try:
        entries = [(e.stat().st_mtime_ns, e.path) for e in os.scandir(directory) if e.name.endswith(_SUFFIX)]
    except OSError:
        return
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort()
    for _, path in entries[: len(entries) - MAX_ENTRIES]:
        with contextlib.suppress(OSError):
            os.unlink(path)
