"""Property tests: mutated objects of every catalog kind never crash, hang or hide another workload.

Every example is a dump holding the built-in example cluster (the sentinels, untouched) plus a few mutated
workloads of catalog kinds with pods and broken ownership (tests/fuzz/strategies.py) in namespace ``fuzz``.
Through the CLI in process: ``get -A -o json`` lists every sentinel with the status it has alone, and
``describe``, ``gang`` and ``update --dry-run`` of each fuzz workload end with an exit code, never an
exception, and ``-o json`` output always parses. Bounded time comes from the engine's budgets, not from
timed assertions.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from kubernetes.utils.quantity import parse_quantity

# A venv made before hypothesis joined the test extras skips these (saying why) rather than failing the
# whole collection; `make` reinstalls the extras when pyproject.toml changes.
pytest.importorskip("hypothesis", reason="hypothesis is not installed: pip install -e '.[test]'")
from hypothesis import HealthCheck, given, settings, strategies as st
from tests.fuzz.strategies import (
    BIG_INTEGERS,
    EDGE_FLOATS,
    EXAMPLE,
    FUZZ_NAMESPACE,
    HUGE,
    JUNK,
    QUANTITIES,
    STRINGS,
    fuzz_cluster,
    identity,
)

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


def write_objects(directory: Path, objects: list[Any], as_yaml: bool) -> Path:
    """The objects as one List file: JSON, or YAML when asked or when they hold what JSON cannot (NaN, the
    infinities), as ``kubectl get -o yaml`` would write them."""
    document = {"apiVersion": "v1", "kind": "List", "items": objects}
    if not as_yaml:
        try:
            path = directory / "fuzz-objects.json"
            path.write_text(json.dumps(document, ensure_ascii=False, allow_nan=False))
            return path
        except ValueError:  # NaN or an infinity
            pass
    path = directory / "fuzz-objects.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True))
    return path


def listing_of(directory: Path, cluster: list[dict[str, Any]], as_yaml: bool) -> tuple[Result, list[str]]:
    """``get -A -o json`` of the sentinels (one file) and the fuzzed objects (another), and the source flags.
    Every sentinel is listed with the status it has alone, and no workload is listed twice."""
    expected = sentinel_statuses(str(directory))
    source = [
        "--from-file",
        str(directory / "sentinels.json"),
        "--from-file",
        str(write_objects(directory, cluster, as_yaml)),
    ]
    listing = run("get", "-A", "-o", "json", *source)
    if not any(isinstance(o, dict) and o.get("kind") for o in cluster):  # a mutation took every kind
        assert listing.exit_code == 1 and "error: cannot read objects" in listing.stderr, listing.output[-2000:]
        return listing, []
    assert listing.exit_code == 0, listing.output[-2000:]
    listed = rows(parsed(listing))
    assert len(listed) == len(parsed(listing)["items"]), "a workload listed twice"
    for key, status in expected.items():
        assert listed.get(key) == status, (key, listing.stderr[-2000:])
    return listing, source


@given(cluster=fuzz_cluster(), as_yaml=st.booleans())
def test_mutated_workloads_never_crash_or_hide_others(
    cluster: list[dict[str, Any]], as_yaml: bool, tmp_path_factory: Any
) -> None:
    directory = Path(tmp_path_factory.getbasetemp())
    listing, source = listing_of(directory, cluster, as_yaml)
    if not source:
        return
    duplicates = {
        key for key in map(identity, cluster) if key is not None and list(map(identity, cluster)).count(key) > 1
    }
    if duplicates:
        assert "given twice" in listing.stderr, listing.stderr[-2000:]

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


# ---- definitions: a catalog Karta in the dump, mutated ---------------------------------------------------

CATALOG = Path(__file__).resolve().parents[2] / "src" / "workload_map" / "catalog" / "definitions"


@functools.cache
def sentinel_kartas() -> tuple[dict[str, Any], ...]:
    """The catalog definitions of the kinds the sentinels have: a broken one would change what they read."""
    kinds = {(str(o["apiVersion"]).rpartition("/")[0], o["kind"]) for o in sentinel_objects()}
    out = []
    for path in sorted(CATALOG.glob("*.yaml")):
        karta = yaml.load(path.read_text(), Loader=yaml.CSafeLoader)
        root = karta["spec"]["structureDefinition"]["rootComponent"]["kind"]
        if (root["group"], root["kind"]) in kinds:
            out.append(karta)
    return tuple(out)


def expression_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Where a Karta document holds jq: the fields named like the format's expression fields."""
    names = ("Path", "expression", "keyPath", "idPath", "filters", "groupByKeyPaths")
    out: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, child in value.items():
            if isinstance(child, str) and (key.endswith(names) or key in ("path", "expression")):
                out.append((*path, key))
            out += expression_paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += expression_paths(child, (*path, index))
    return out


HUGE_EXPRESSION = st.integers(min_value=1, max_value=max(1, HUGE // 30)).map(
    lambda n: " or ".join(f"(.spec.x == {i})" for i in range(n))
)
BAD_JQ = st.sampled_from(["(", ".a | ]", "[.a", '"\\(', "$ENV", "input", "def f: f; f", "..", "", " ", "null"])


@st.composite
def broken_karta(draw: st.DrawFn) -> dict[str, Any]:
    karta = copy.deepcopy(draw(st.sampled_from(sentinel_kartas())))
    spots = expression_paths(karta)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        path = draw(st.sampled_from(spots))
        parent: Any = karta
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = draw(st.one_of(HUGE_EXPRESSION, BAD_JQ, JUNK, STRINGS))
    return karta


@settings(settings.default, max_examples=max(1, settings.default.max_examples // 4))
@given(karta=broken_karta(), as_yaml=st.booleans())
def test_a_broken_karta_in_the_dump_hides_nothing(karta: dict[str, Any], as_yaml: bool, tmp_path_factory: Any) -> None:
    """A mutated catalog Karta beside the sentinels: the workloads of other kinds read as alone; when the
    Karta is refused (one warning names it), every sentinel reads as alone (the built-in one stays)."""
    directory = Path(tmp_path_factory.getbasetemp())
    expected = sentinel_statuses(str(directory))
    source = [
        "--from-file",
        str(directory / "sentinels.json"),
        "--from-file",
        str(write_objects(directory, [karta], as_yaml)),
    ]
    listing = run("get", "-A", "-o", "json", *source)
    assert listing.exit_code == 0, listing.output[-2000:]
    listed = rows(parsed(listing))
    name = karta["metadata"]["name"]
    refused = [line for line in listing.stderr.splitlines() if f"ignoring Karta {name!r}" in line]
    assert len(refused) <= 1, listing.stderr[-2000:]
    root = karta["spec"]["structureDefinition"]["rootComponent"].get("kind")
    kind = root.get("kind") if isinstance(root, dict) else None
    for key, status in expected.items():
        if refused or key[1] != kind:
            assert listed.get(key) == status, (key, listing.stderr[-2000:])


# ---- update: flag values, on a dump (nothing is sent) ---------------------------------------------------

UPDATE_TARGETS = ("jobset/llama3-8b-pretrain", "pytorchjob/bert-finetune", "lws/vllm-llama-405b", "job/eval-mmlu")
ARG_TEXT = st.one_of(
    st.sampled_from(["", " ", "a", "a=b", "=", "a/b/c", "-x", "x" * 64, "x" * 300, "名前", "a b", "a\\nb", "a,b"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30),
)
KEYS = st.one_of(
    st.sampled_from(["team", "example.com/team", "Example.com/x", "/x", "a/", "x" * 63, "x" * 64, "a.b-c_d", "-a"]),
    ARG_TEXT,
)
LABEL_VALUES = st.one_of(st.sampled_from(["", "v", "a-b.c_d", "x" * 63, "x" * 64, "-v", "v-"]), ARG_TEXT)
RESOURCE_NAMES = st.one_of(st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "hugepages-2Mi", "a/b/c"]), KEYS)
QUANTITY_TEXT = st.one_of(st.sampled_from(QUANTITIES), BIG_INTEGERS.map(str), EDGE_FLOATS.map(repr), ARG_TEXT)
JSON_ARGS = st.one_of(JUNK.map(lambda v: json.dumps(v, allow_nan=True)), ARG_TEXT)


def _pair(key: str, value: str) -> str:
    return f"{key}={value}"


@st.composite
def update_flags(draw: st.DrawFn) -> list[str]:
    flags: list[str] = []
    pairs = st.builds(_pair, KEYS, LABEL_VALUES)
    quantities = st.builds(_pair, RESOURCE_NAMES, QUANTITY_TEXT)
    choices = {
        "--label": pairs,
        "--annotation": st.builds(_pair, KEYS, ARG_TEXT),
        "--node-selector": pairs,
        "--requests": quantities,
        "--limits": quantities,
        "--scheduler-name": ARG_TEXT,
        "--priority-class": ARG_TEXT,
        "--image": ARG_TEXT,
        "--tolerations": JSON_ARGS,
        "--node-affinity": JSON_ARGS,
        "--resource-claims": JSON_ARGS,
    }
    for flag in draw(st.lists(st.sampled_from(sorted(choices)), min_size=1, max_size=4)):
        flags += [flag, draw(choices[flag])]
    flags += draw(st.sampled_from([[], ["--suspend"], ["--resume"], ["--suspend", "--resume"]]))
    return flags


def _quantity_parses(text: str) -> bool:
    try:
        parse_quantity(text)
    except (ValueError, ArithmeticError):
        return False
    return text == text.strip()


@settings(settings.default, max_examples=max(1, settings.default.max_examples // 2))
@given(target=st.sampled_from(UPDATE_TARGETS), flags=update_flags())
def test_update_flag_values_are_refused_or_written(target: str, flags: list[str], tmp_path_factory: Any) -> None:
    """Every flag value ends as a usage error (exit 2, naming the flag), an error (1), or a patched object
    whose quantities the Kubernetes client parses; never a crash or an empty patch of a real change."""
    directory = Path(tmp_path_factory.getbasetemp())
    sentinel_statuses(str(directory))
    source = ["--from-file", str(directory / "sentinels.json")]
    result = run("update", target, *flags, "--dry-run", "-o", "json", "-n", namespace_of(target), *source)
    if result.exit_code == 2:
        assert "Error:" in result.stderr, result.stderr[-2000:]
        return
    if result.exit_code != 0:
        assert result.stderr.startswith("error: "), result.stderr[-2000:]
        return
    json.loads(result.stdout)
    assert not ("--suspend" in flags and "--resume" in flags)
    for flag, value in itertools.pairwise(flags):
        if flag in ("--requests", "--limits"):
            for item in value.split(","):
                assert _quantity_parses(item.partition("=")[2]), (flag, value)


@functools.cache
def _namespaces() -> dict[str, str]:
    return {o["metadata"]["name"]: o["metadata"].get("namespace", "default") for o in sentinel_objects()}


def namespace_of(target: str) -> str:
    return _namespaces()[target.partition("/")[2]]
