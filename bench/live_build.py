"""Building an operator from its snapshot for bench/authoring_live.py: sources unpacked once, binary cached.

The snapshot at the config's commit is unpacked (``git archive``) into ``<cache>/src/<key>``; ``go build`` of
the config's package (with its ``build_flags``) writes ``<cache>/bin/<key>``. A stamp beside the binary (repo,
commit, package, flags, ``go version``) says what it was built from: the same stamp again is a cache hit,
anything else builds anew. Go builds take both cores for minutes, so every build on the machine waits for
``/tmp/wmap-go-build.lock`` (flock) and runs under ``nice -n 10``. Nothing of the snapshot enters the repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from live_config import RunConfig

MIRROR = Path(os.environ.get("WMAP_MIRROR", "/work/.mirror"))
BUILD_LOCK = "/tmp/wmap-go-build.lock"
BUILD_TIMEOUT_S = 3600.0
TAIL_LINES = 25


class BuildError(RuntimeError):
    pass


@dataclass(frozen=True)
class Built:
    binary: Path
    source: Path  # the unpacked snapshot
    seconds: float  # 0 when the binary came from the cache
    cached: bool


def git_dir(repo: str, mirror: Path = MIRROR) -> Path:
    return mirror / repo.replace("/", "+") / "repo"


def _go() -> str:
    return shutil.which("go") or "/usr/local/go/bin/go"


def go_version() -> str:
    done = subprocess.run([_go(), "version"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BuildError(f"go version failed: {done.stderr.strip() or 'is Go installed?'}")
    return done.stdout.strip()


def unpack(config: RunConfig, cache: Path, mirror: Path = MIRROR) -> Path:
    """The snapshot's tree at the commit in ``<cache>/src/<key>`` (unpacked once, next to it first, so a
    half-unpacked tree is never taken for a whole one)."""
    target = cache / "src" / config.key
    if target.is_dir():
        return target
    where = git_dir(config.repo, mirror)
    if not where.is_dir():
        raise BuildError(f"{config.path}: no snapshot of {config.repo} at {where}")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{config.key}-") as scratch:
        archive = Path(scratch) / "snapshot.tar"
        with archive.open("wb") as out:
            done = subprocess.run(
                ["git", "-C", str(where), "archive", config.commit], stdout=out, stderr=subprocess.PIPE, check=False
            )
        if done.returncode != 0:
            raise BuildError(f"{config.path}: git archive {config.commit}: {done.stderr.decode().strip()}")
        tree = Path(scratch) / "tree"
        with tarfile.open(archive) as tar:
            tar.extractall(tree, filter="data")
        tree.rename(target)
    return target


def _stamp(config: RunConfig, go: str) -> str:
    return json.dumps(
        {"repo": config.repo, "commit": config.commit, "package": config.package, "flags": config.build_flags, "go": go}
    )


def build(config: RunConfig, cache: Path, mirror: Path = MIRROR, *, adopt: bool = False) -> Built:
    """The operator's binary, built unless the cache has it for this repo, commit, package, flags and Go.
    ``adopt``: a binary at the cache's path without a stamp (built by hand in the same layout) is taken as
    this config's and stamped, saving a relink under the machine's one build lock."""
    source = unpack(config, cache, mirror)
    binary = cache / "bin" / config.key
    stamp_file = binary.with_name(binary.name + ".stamp")
    stamp = _stamp(config, go_version())
    if binary.is_file() and adopt and not stamp_file.is_file():
        stamp_file.write_text(stamp)
    if binary.is_file() and stamp_file.is_file() and stamp_file.read_text() == stamp:
        return Built(binary, source, 0.0, cached=True)
    binary.parent.mkdir(parents=True, exist_ok=True)
    log = cache / "logs" / f"build-{config.key}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    partial = binary.with_name(binary.name + ".partial")
    command = ["flock", BUILD_LOCK, "nice", "-n", "10", _go(), "build", *config.build_flags, "-o", str(partial)]
    began = time.monotonic()
    with log.open("w") as out:
        try:
            done = subprocess.run(
                [*command, config.package],
                cwd=source,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=BUILD_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise BuildError(
                f"{config.name}: go build did not end within {BUILD_TIMEOUT_S:.0f} s (log: {log})"
            ) from None
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-TAIL_LINES:])
        raise BuildError(
            f"{config.name}: go build {config.package} failed (exit {done.returncode}, log {log}):\n{tail}"
        )
    partial.replace(binary)
    stamp_file.write_text(stamp)
    return Built(binary, source, time.monotonic() - began, cached=False)
