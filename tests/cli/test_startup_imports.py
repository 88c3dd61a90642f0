"""What a warm command loads: the compiled catalog and a YAML input read before come from the on-disk cache,
so `wmap get` on the built-in example never imports the definition parser, pydantic or PyYAML (issue 32);
a damaged or stale cache is rebuilt silently."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import workload_map
from workload_map.base import cache

EXAMPLE = Path(workload_map.__file__).parent / "examples" / "ai-cluster.yaml"
ARGV = ["get", "-A", "--from-file", str(EXAMPLE)]
PARSER = ("pydantic", "yaml", "workload_map.definition.loader", "workload_map.definition.schema")
# The command, then the modules of PARSER it loaded, on stderr.
CODE = (
    "import json, sys\n"
    "from workload_map.cli.main import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit as exc:\n"
    "    assert not exc.code, exc.code\n"
    f"sys.stderr.write(json.dumps([m for m in {PARSER!r} if m in sys.modules]))\n"
)


def run(cache_dir: Path) -> tuple[str, list[str]]:
    env = {**os.environ, cache.CACHE_DIR_ENV: str(cache_dir)}
    env.pop(cache.NO_CACHE_ENV, None)
    result = subprocess.run([sys.executable, "-c", CODE, *ARGV], capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stderr
    loaded: list[str] = json.loads(result.stderr)
    return result.stdout, loaded


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A cache written by a first call (which parses what the cache lacks: the example, the catalog when no earlier
    test of the run compiled it into the run's cache, copied here), and that call's output."""
    cache_dir = tmp_path_factory.mktemp("warm") / "cache"
    shared = os.environ.get(cache.CACHE_DIR_ENV)
    if shared and Path(shared).is_dir():
        shutil.copytree(shared, cache_dir)
    rows, _ = run(cache_dir)
    assert "vllm-llama-405b" in rows
    return cache_dir, rows


def test_warm_get_on_the_example_loads_no_parser(warm_cache: tuple[Path, str]) -> None:
    cache_dir, rows = warm_cache
    assert run(cache_dir) == (rows, [])


def test_damaged_or_stale_entries_are_rebuilt_silently(warm_cache: tuple[Path, str], tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    shutil.copytree(warm_cache[0], cache_dir)
    rows = warm_cache[1]
    entries = sorted(cache_dir.iterdir())
    assert len(entries) >= 3
    # truncated (a crash, a full disk); whole but of another shape; whole but naming a class that no
    # longer exists (written by other code)
    unknown_class = b"\x80\x04cworkload_map.definition.model\nNoLongerHere\n)\x81."
    for index, entry in enumerate(entries):
        if index % 3 == 0:
            entry.write_bytes(entry.read_bytes()[:-10])
            continue
        payload = b"\x80\x04}\x94." if index % 3 == 1 else unknown_class
        key = bytes.fromhex(entry.stem)
        entry.write_bytes(cache._MAGIC + key + hashlib.sha256(payload).digest() + payload)
    rebuilt_rows, rebuilt = run(cache_dir)  # no traceback (run asserts the exit code), the same answer
    assert rebuilt_rows == rows and rebuilt == list(PARSER)
    assert run(cache_dir) == (rows, [])  # rewritten whole: warm again


# Code a warm `get` never runs: queue figures, Events, gang plans, placement; nor does it analyse an expression
# (the verdicts come from the cache, each unpickled when its expression is compiled).
NOT_FOR_GET = (
    "workload_map.queues.build",
    "workload_map.queues.model",
    "workload_map.tree.events",
    "workload_map.gang",
    "workload_map.placement",
)


def test_warm_get_loads_no_code_of_other_commands(warm_cache: tuple[Path, str]) -> None:
    code = CODE.replace(repr(PARSER), repr(NOT_FOR_GET)).replace(
        "if m in sys.modules]",
        "if m in sys.modules] + (['sandbox lexer compiled'] if "
        "sys.modules['workload_map.jq.sandbox']._token_re.cache_info().currsize else [])",
    )
    env = {**os.environ, cache.CACHE_DIR_ENV: str(warm_cache[0])}
    env.pop(cache.NO_CACHE_ENV, None)
    result = subprocess.run([sys.executable, "-c", code, *ARGV], capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stderr
    assert (result.stdout, json.loads(result.stderr)) == (warm_cache[1], [])
