"""Which corpus workloads ``wmap update`` can change, per kind: a user's view of issue 21.

For every catalog expectation case (tests/catalog/expectations: the corpus examples and the inline
states), runs the real CLI in process (``wmap update KIND/NAME -n NS --from-file FILE ...``) with
``--scheduler-name``, ``--label``, ``--suspend`` and ``--resume``, and counts per kind how many succeed.
A pod-field update counts only when the printed object, re-resolved by this tree's resolver, carries
the change in every pod template it has.

    .venv/bin/python tools/update_coverage.py                 # this tree
    PYTHONPATH=/path/to/other/src .venv/bin/python tools/update_coverage.py   # another tree (e.g. main)

The corpus is read in place (../shared/corpus). Prints a table, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "catalog")]

from click.testing import CliRunner  # noqa: E402
from expectations import cases  # noqa: E402

from workload_map.catalog import builtin_definitions  # noqa: E402
from workload_map.cli.main import cli  # noqa: E402
from workload_map.definition.registry import DefinitionRegistry  # noqa: E402

OPERATIONS: dict[str, list[str]] = {
    "scheduler-name": ["--scheduler-name", "kai-scheduler"],
    "label": ["--label", "kai.scheduler/queue=team-a"],
    "suspend": ["--suspend"],
    "resume": ["--resume"],
}


def _templates(obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Every pod template this tree's resolver reads from ``obj`` (None when it cannot resolve it)."""
    from workload_map.resolve.workloads import ClusterView
    from workload_map.base.snapshot import Snapshot

    view = ClusterView(Snapshot([obj]), DefinitionRegistry(builtin_definitions()))
    try:
        tree = view.tree(view.snapshot.objects[0])
    except Exception:  # an older tree's output may not resolve here; count it as not carrying the change
        return None
    return [
        i["podTemplate"]
        for c in tree.to_json()["components"]
        if c["producesPods"]
        for i in c["instances"]
        if i.get("podTemplate")
    ]


def _carries(operation: str, obj: dict[str, Any]) -> bool:
    templates = _templates(obj)
    if not templates:
        return False
    if operation == "scheduler-name":
        return all((t.get("spec") or {}).get("schedulerName") == "kai-scheduler" for t in templates)
    return all(
        ((t.get("metadata") or {}).get("labels") or {}).get("kai.scheduler/queue") == "team-a" for t in templates
    )


def measure(why: dict[tuple[str, str], str] | None = None) -> dict[str, dict[str, Any]]:
    """Per kind: operation -> [succeeded, tried] over the cases it applies to, and "n/a" -> operation ->
    cases it does not apply to; ``why`` collects the first failure per kind and operation."""
    registry = DefinitionRegistry(builtin_definitions())
    runner = CliRunner()
    # kind -> operation -> [succeeded, tried]; "n/a" -> operation -> cases where it does not apply (no pod
    # template in the object, or no suspendDefinition for the kind)
    table: dict[str, dict[str, Any]] = defaultdict(lambda: {**{op: [0, 0] for op in OPERATIONS}, "n/a": {}})
    with tempfile.TemporaryDirectory() as tmp:
        for index, case in enumerate(cases()):
            obj = copy.deepcopy(case.obj)
            if registry.for_object(obj)[0] is None:
                continue  # not a workload (a Service beside an LWS)
            metadata = obj.setdefault("metadata", {})
            metadata.setdefault("namespace", "default")
            metadata.setdefault("name", f"case-{index}")
            path = Path(tmp) / f"{index}.yaml"
            path.write_text(yaml.safe_dump(obj))
            kind = f"{obj['kind']}.{obj['apiVersion'].split('/')[0] if '/' in obj['apiVersion'] else 'core'}"
            target = _type_of(obj)
            has_templates = bool(_templates(obj))
            definition = registry.for_object(obj)[0]
            suspendable = definition is not None and any(
                c.suspend_definition is not None for c in definition.karta.components
            )
            for operation, flags in OPERATIONS.items():
                applies = suspendable if operation in ("suspend", "resume") else has_templates
                if not applies:
                    table[kind]["n/a"][operation] = table[kind]["n/a"].get(operation, 0) + 1
                    continue
                args = ["update", f"{target}/{metadata['name']}", "-n", metadata["namespace"], "--from-file", str(path)]
                result = runner.invoke(cli, [*args, *flags, "-o", "json"])
                ok = result.exit_code == 0
                reason = (result.stderr or result.output).strip().splitlines()[-1:] if not ok else []
                if ok and operation in ("scheduler-name", "label"):
                    ok = _carries(operation, json.loads(result.stdout))
                    reason = [] if ok else ["the re-resolved templates do not all carry the change"]
                if why is not None and reason:
                    why.setdefault((kind, operation), f"{case.label}: {reason[0]}")
                cell = table[kind][operation]
                cell[0] += ok
                cell[1] += 1
    return dict(table)


def _type_of(obj: dict[str, Any]) -> str:
    """``kind.version.group`` (exact even where two groups share a kind), ``pod`` for core."""
    api_version = str(obj["apiVersion"])
    if "/" not in api_version:
        return str(obj["kind"]).lower()
    group, version = api_version.split("/", 1)
    return f"{obj['kind']}.{version}.{group}".lower()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--why", action="store_true", help="also print the first failure of each kind and operation")
    args = parser.parse_args()
    why: dict[tuple[str, str], str] = {}
    table = measure(why)
    if args.json:
        print(json.dumps(table, indent=1, sort_keys=True))
        return
    print("succeeded/tried over the cases each operation applies to; n/a: cases without a pod template")
    print("(scheduler-name, label) or whose kind has no suspendDefinition (suspend, resume)")
    print(f"{'KIND':44} " + " ".join(f"{op:>15}" for op in OPERATIONS) + f"{'n/a':>12}")
    for kind in sorted(table):
        row = table[kind]
        cells = [f"{row[op][0]}/{row[op][1]}" if row[op][1] else "-" for op in OPERATIONS]
        skipped = "/".join(str(row["n/a"].get(op, 0)) for op in OPERATIONS)
        print(f"{kind:44} " + " ".join(f"{c:>15}" for c in cells) + f"{skipped:>12}")
    if args.why:
        for (kind, operation), reason in sorted(why.items()):
            print(f"{kind} {operation}: {reason}")


if __name__ == "__main__":
    main()
