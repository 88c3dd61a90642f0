"""Definitions compiled once and reused by later processes, and never reused once anything they depend on
changed: the definition's content, the code that compiled it.

Each "process" below is a real fresh Python process sharing one cache directory, so what is asserted is
what a user's next command sees.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from workload_map.base import cache
from workload_map.definition import compiled
from workload_map.definition.loader import definition_from_dict
from workload_map.errors import Location
from workload_map.jq import program

DEFINITION = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {{name: test-wmap-io-gadget-v1}}
spec:
  structureDefinition:
    rootComponent:
      name: gadget
      kind: {{group: test.wmap.io, version: v1, kind: Gadget}}
      scaleDefinition: {{replicasPath: '{replicas}'}}
      statusDefinition:
        statusMappings:
          running:
            - byExpression: {{expression: '{running}', expectedResult: "true"}}
"""
GADGET = {
    "apiVersion": "test.wmap.io/v1",
    "kind": "Gadget",
    "metadata": {"name": "g", "namespace": "default"},
    "spec": {"size": 3, "count": 5},
    "status": {"phase": "Running"},
}

# One command's worth of work: load the file, validate it, resolve one object; report what it cost.
COMMAND = textwrap.dedent(
    """
    import json, sys
    from workload_map.jq import _isolated, program
    judged = []
    real_judge = program._judge
    program._judge = lambda e, **kw: judged.append(e) or real_judge(e, **kw)
    from workload_map.definition.loader import load_paths
    from workload_map.definition.validate import validate
    from workload_map.resolve.workloads import WorkloadIndex
    from workload_map.tree.build import trees_of
    from workload_map.base.snapshot import Snapshot
    loaded, findings = load_paths([sys.argv[1]])
    problems = [str(f) for d in loaded for f in validate(d.karta, d.location)] + [str(f) for f in findings]
    view = WorkloadIndex(Snapshot([json.loads(sys.argv[2])]), loaded)
    trees, _ = trees_of(view, view.workloads(None, None, top_level=True))
    print(json.dumps({
        "judged": sorted(set(judged)),
        "libjq": _isolated.worker_pid() is not None,  # libjq's worker was started (it compiles there)
        "libjq_here": "jq" in sys.modules,
        "yaml": "yaml" in sys.modules,
        "problems": problems,
        "rows": [[t.status.primary.value, t.components[0].instances[0].instance.scale.replicas] for t in trees],
    }))
    """
)


def command(definition: Path, cache_dir: Path) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-c", COMMAND, str(definition), json.dumps(GADGET)],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, cache.CACHE_DIR_ENV: str(cache_dir)},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def write(path: Path, *, replicas: str = ".spec.size", running: str = '.status.phase == "Running"') -> Path:
    path.write_text(DEFINITION.format(replicas=replicas, running=running))
    return path


def test_second_process_compiles_nothing(tmp_path: Path) -> None:
    definition = write(tmp_path / "gadget.yaml")
    first = command(definition, tmp_path / "cache")
    assert set(first["judged"]) == {".spec.size", '.status.phase == "Running"'}  # validated on first load
    assert first["libjq"] and first["yaml"]
    assert not first["libjq_here"]  # libjq computes constants while compiling: never in this process
    second = command(definition, tmp_path / "cache")
    assert second["judged"] == [] and not second["libjq"] and not second["yaml"]
    assert second["rows"] == first["rows"] == [["Running", 3]]
    assert second["problems"] == first["problems"] == []


def test_changed_definition_is_compiled_again(tmp_path: Path) -> None:
    definition = tmp_path / "gadget.yaml"
    cache_dir = tmp_path / "cache"
    write(definition)
    assert command(definition, cache_dir)["rows"] == [["Running", 3]]

    write(definition, replicas=".spec.count")  # new content: compiled again (the whole definition)
    changed = command(definition, cache_dir)
    assert changed["judged"] == sorted([".spec.count", '.status.phase == "Running"'])
    assert changed["rows"] == [["Running", 5]]

    write(definition, running='.status.phase == "Running" and')  # now a syntax error: reported, not stale
    broken = command(definition, cache_dir)
    assert any("syntax" in p and "statusMappings.running[0]" in p for p in broken["problems"]), broken
    assert broken["rows"] == [["Undefined", 3]]

    write(definition)  # back to the first version: its stored compilation is valid again and reused
    again = command(definition, cache_dir)
    assert again["judged"] == [] and not again["libjq"]
    assert again["rows"] == [["Running", 3]] and again["problems"] == []


def test_damaged_entry_is_recompiled_and_rewritten(tmp_path: Path) -> None:
    definition = write(tmp_path / "gadget.yaml")
    cache_dir = tmp_path / "cache"
    command(definition, cache_dir)
    for entry in cache_dir.iterdir():
        entry.write_bytes(entry.read_bytes()[:-10])  # truncated, as by a crash or a full disk
    damaged = command(definition, cache_dir)
    assert damaged["judged"] and damaged["rows"] == [["Running", 3]]
    assert command(definition, cache_dir)["judged"] == []  # rewritten whole by the run that recompiled


def test_no_cache_compiles_every_time_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    definition = write(tmp_path / "gadget.yaml")
    for _ in range(2):
        assert command(definition, tmp_path / "cache")["libjq"]
    assert not (tmp_path / "cache").exists()


@pytest.fixture
def fresh_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Forget what this process compiled, as a new process would (the on-disk cache stays)."""
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path / "cache"))

    def forget() -> None:
        program._known.clear()
        program._packed.clear()
        program.compile_expression.cache_clear()

    forget()
    yield forget
    forget()


def karta_document(replicas: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(DEFINITION.format(replicas=replicas, running=".a"))
    return data


def test_code_version_is_part_of_the_key(fresh_process: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    judged: list[str] = []
    real = program._judge
    monkeypatch.setattr(program, "_judge", lambda e, **kw: judged.append(e) or real(e, **kw))
    document = karta_document(".spec.size")
    assert definition_from_dict(document, Location("a"))[0] is not None
    assert judged  # first load: compiled and stored
    fresh_process()
    judged.clear()
    assert definition_from_dict(document, Location("a"))[0] is not None
    assert judged == []  # same content, same code: from the cache
    fresh_process()
    monkeypatch.setattr(compiled, "fingerprint", lambda: "another version of the code")
    assert definition_from_dict(document, Location("a"))[0] is not None
    assert judged  # the entry of the other code version is never read


def test_cluster_karta_keyed_by_content_and_failures_never_stored(fresh_process: Any) -> None:
    first = definition_from_dict(karta_document(".spec.size"), Location("cluster:karta/a"))[0]
    fresh_process()
    again = definition_from_dict(karta_document(".spec.size"), Location("cluster:karta/a"))[0]
    changed = definition_from_dict(karta_document(".spec.other"), Location("cluster:karta/a"))[0]
    assert first is not None and again == first
    assert changed is not None and changed.root.scale_definition is not None
    assert changed.root.scale_definition.replicas_path == ".spec.other"
    broken = karta_document(".spec.size")
    broken["spec"]["structureDefinition"]["rootComponent"]["replicaPath"] = "typo"
    for where in ("x.yaml", "y.yaml"):  # the findings carry each caller's location
        karta, findings = definition_from_dict(broken, Location(where))
        assert karta is None and findings[0].location.source == where


def test_fingerprint_covers_existing_sources() -> None:
    # a renamed module would silently drop out of the code version otherwise
    assert all((compiled._PACKAGE / name).is_file() for name in compiled._SOURCES)
    assert "-\n" not in compiled.fingerprint() + "\n"
