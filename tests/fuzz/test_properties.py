"""Property tests: mutated objects of every catalog kind never crash, hang or hide another workload.

Every example is a dump holding the built-in example cluster (the sentinels, untouched) plus a few mutated
workloads of catalog kinds with pods and broken ownership (tests/fuzz/strategies.py) in namespace ``fuzz``.
Through the CLI in process: ``get -A -o json`` lists every sentinel with the status it has alone, and
``describe``, ``gang`` and ``update --dry-run`` of each fuzz workload end with an exit code, never an
exception, and ``-o json`` output always parses. Bounded time comes from the engine's budgets, not from
timed assertions.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

# A venv made before hypothesis joined the test extras skips these (saying why) rather than failing the
# whole collection; `make` reinstalls the extras when pyproject.toml changes.
pytest.importorskip("hypothesis", reason="hypothesis is not installed: pip install -e '.[test]'")
from hypothesis import HealthCheck, given, settings
from tests.fuzz.strategies import EXAMPLE, FUZZ_NAMESPACE, fuzz_cluster

from workload_map.cli.main import cli

# Hypothesis profiles. ``default``: the bounded, seeded budget of the normal test run (the same examples
# every run). ``fuzz``: ``make fuzz`` (tests/fuzz/run.py), random and larger, a new seed each round.
_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

# Deadlines are the engine's (1 s per evaluation, bench/JQ_ENGINE.md); hypothesis' own per-example
# deadline would be a timed assertion on a shared machine.
settings.register_profile(
    "default",
    max_examples=int(os.environ.get("WMAP_FUZZ_EXAMPLES", "40")),
    derandomize=True,
    deadline=None,
    suppress_health_check=_SLOW,
    print_blob=True,
)
settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("WMAP_FUZZ_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=_SLOW,
    print_blob=True,
)
settings.load_profile(os.environ.get("WMAP_HYPOTHESIS_PROFILE", "default"))


def run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, repr(result.exception))
    assert "Traceback" not in result.output, args
    # docs/cli.md, "Exit codes"
    assert result.exit_code in (0, 1, 2, 3, 4), (args, result.exit_code, result.output[-2000:])
    return result


def parsed(result: Result) -> Any:
    return json.loads(result.stdout) if result.exit_code == 0 else None


def rows(document: Any) -> dict[tuple[str, str, str], str]:
    out = {}
    for item in document["items"]:
        workload = item["workload"]
        out[(workload["namespace"], workload["kind"], workload["name"])] = item["status"]["primary"]
    return out


@functools.cache
def sentinel_objects() -> tuple[dict[str, Any], ...]:
    docs = [d for d in yaml.safe_load_all(EXAMPLE.read_text()) if isinstance(d, dict)]
    items = [i for d in docs for i in (d["items"] if isinstance(d.get("items"), list) else [d])]
    return tuple(items)


@functools.cache
def sentinel_statuses(directory: str) -> dict[tuple[str, str, str], str]:
    path = Path(directory) / "sentinels.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(sentinel_objects())}))
    result = run("get", "-A", "-o", "json", "--from-file", str(path))
    assert result.exit_code == 0
    return rows(parsed(result))


def type_argument(obj: dict[str, Any]) -> str:
    group, _, version = str(obj["apiVersion"]).rpartition("/")
    return f"{obj['kind']}.{version}.{group}" if group else str(obj["kind"])


@given(cluster=fuzz_cluster())
def test_mutated_workloads_never_crash_or_hide_others(cluster: list[dict[str, Any]], tmp_path_factory: Any) -> None:
    directory = tmp_path_factory.getbasetemp()
    expected = sentinel_statuses(str(directory))
    dump = Path(directory) / "fuzz-dump.json"
    items = [*sentinel_objects(), *cluster]
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, ensure_ascii=False))
    source = ["--from-file", str(dump)]

    listing = run("get", "-A", "-o", "json", *source)
    assert listing.exit_code == 0, listing.output[-2000:]
    listed = rows(parsed(listing))
    for key, status in expected.items():
        assert listed.get(key) == status, (key, listing.stderr[-2000:])

    for obj in cluster:
        kind, api_version = obj.get("kind"), obj.get("apiVersion")
        if not (isinstance(obj.get("metadata"), dict) and isinstance(kind, str) and isinstance(api_version, str)):
            continue  # a mutation took what names it
        name = obj["metadata"].get("name")
        if kind == "Pod" or not isinstance(name, str) or not kind.strip() or "/" in kind or api_version.count("/") > 1:
            continue
        target = f"{type_argument(obj)}/{name}"
        scope = ["-n", FUZZ_NAMESPACE, *source]
        for args in (
            ["describe", target, "-o", "json"],
            ["gang", target, "-o", "json"],
            ["update", target, "--scheduler-name", "kai", "--label", "team=x", "--dry-run", "-o", "json"],
        ):
            result = run(*args, *scope)
            if result.exit_code == 0 and result.stdout.strip():
                parsed(result)
