"""How good are the drafts of `wmap definitions new`? Scored against the shipped catalog on the corpus.

For every catalog kind whose CRD is in ../shared/corpus, and for the frameworks outside the catalog
(Kubeflow Notebook, Tekton PipelineRun/TaskRun, Argo Workflow, Dask, Flink, Katib), a draft is made
from the CRD and the framework's corpus samples alone (read in place) and both definitions resolve
every sample object of the kind (``WorkloadIndex`` over that object only). Per kind:

- valid: the draft loads with no error finding; TODOs: the ``TODO(wmap)`` warnings it carries;
- resolved: samples the draft resolves with no warning (every expression evaluates, counts align);
- components: pod-producing components, draft/shipped;
- templates: samples whose pod templates (container name + image per pod-producing instance, as a
  multiset) are the same under both definitions;
- replicas: samples whose (template, desired pods) multiset is the same; min/max likewise with
  (template, min, max);
- suspend: the suspend action paths are the same (``=``), differ (``≠``), or one side has none;
- status: samples with a ``status`` whose primary status agrees, and how many the draft leaves
  Undefined.

Without a shipped definition (outside the catalog) only the draft's own columns are filled: whether
it resolves every sample, the TODOs and Undefined statuses.

``--unseen --mirror DIR`` scores instead the kinds of bench/authoring_expectations (frameworks the
drafting was not tuned to, their CRDs and samples read from local git snapshots of the upstream
repositories) field by field against what their operators do (bench/authoring_unseen.py). Usage:
    .venv/bin/python bench/score_authoring.py [--json FILE]
    .venv/bin/python bench/score_authoring.py --unseen --mirror DIR [--round NAME ...] [--drafts DIR] [--api-source]
        [--simulate-recordings]
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from live_config import CAPTURES
from workload_map.authoring import Sample, draft
from workload_map.base.snapshot import Snapshot
from workload_map.catalog import builtin_definitions
from workload_map.definition.loader import LoadedDefinition, definition_from_dict
from workload_map.definition.registry import DefinitionRegistry
from workload_map.definition.validate import validate
from workload_map.errors import Location, Severity
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.tree.build import tree_of

# The C loader when PyYAML has it: the corpus CRDs are megabytes of YAML.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = REPO_ROOT.parent / "shared" / "corpus"
# (group, kind): the frameworks outside the catalog the issue names, scored whether or not the catalog
# has meanwhile gained a definition for them.
OUTSIDE = {
    ("kubeflow.org", "Notebook"),
    ("tekton.dev", "PipelineRun"),
    ("tekton.dev", "TaskRun"),
    ("argoproj.io", "Workflow"),
    ("kubernetes.dask.org", "DaskCluster"),
    ("kubernetes.dask.org", "DaskJob"),
    ("kubernetes.dask.org", "DaskWorkerGroup"),
    ("flink.apache.org", "FlinkDeployment"),
    ("kubeflow.org", "Experiment"),
}


@dataclass
class Score:
    kind: str
    framework: str
    shipped: str | None
    samples: int = 0
    valid: bool = False
    todos: int = 0
    resolved: int = 0  # samples the draft resolves without a problem
    components: str = ""
    templates: int = 0
    replicas: int = 0
    minmax: int = 0
    suspend: str = ""
    with_status: int = 0
    status: int = 0
    undefined: int = 0
    notes: list[str] = field(default_factory=list)


def _unwrap(doc: Any) -> list[dict[str, Any]]:
    """Karmada interpreter cases wrap the object (observedObj; desiredObj + statusItems[].status)."""
    if not isinstance(doc, dict):
        return []
    if "observedObj" in doc:
        return [doc["observedObj"]]
    if "desiredObj" in doc:
        out = [doc["desiredObj"]]
        for item in doc.get("statusItems") or []:
            if isinstance(item, dict) and isinstance(item.get("status"), dict):
                live = copy.deepcopy(doc["desiredObj"])
                live["status"] = item["status"]
                out.append(live)
        return out
    return [doc] if "apiVersion" in doc and "kind" in doc else []


def corpus_samples(framework: str) -> list[Sample]:
    out = []
    for part in ("examples", "live"):
        for path in sorted((CORPUS / framework / part).glob("*.y*ml")):
            for index, doc in enumerate(yaml.load_all(path.read_text(), Loader=LOADER)):
                for obj in _unwrap(doc):
                    out.append(Sample(obj, f"{path.relative_to(CORPUS)}#{index}"))
    return out


@functools.cache
def corpus_crds() -> dict[tuple[str, str], tuple[str, dict[str, Any]]]:
    found = {}
    for path in sorted(CORPUS.glob("*/crd/*.y*ml")):
        for doc in yaml.load_all(path.read_text(), Loader=LOADER):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                spec = doc.get("spec") or {}
                found[(str(spec.get("group")), str((spec.get("names") or {}).get("kind")))] = (
                    str(path.relative_to(CORPUS)),
                    doc,
                )
    return found


def _instances(tree: dict[str, Any]) -> list[tuple[tuple[tuple[str, str], ...], int, Any, Any]]:
    out = []
    for component in tree["components"]:
        if not component["producesPods"]:
            continue
        for instance in component["instances"]:
            template = instance.get("podTemplate") or {}
            containers = ((template.get("spec") or {}).get("containers")) or []
            signature = tuple(sorted((str(c.get("name")), str(c.get("image"))) for c in containers))
            replicas = instance.get("replicas") or {}
            out.append((signature, int(instance["desiredPods"]), replicas.get("min"), replicas.get("max")))
    return out


def _tree(definition: LoadedDefinition, obj: dict[str, Any]) -> dict[str, Any] | None:
    obj = copy.deepcopy(obj)
    obj.setdefault("metadata", {}).setdefault("namespace", "default")
    view = WorkloadIndex(Snapshot([obj]), DefinitionRegistry([definition]))
    try:
        result: dict[str, Any] = tree_of(view, obj).to_json()
    except (LookupError, RecursionError, ValueError, TypeError):
        return None
    return result


def _suspend(definition: LoadedDefinition | None) -> set[str]:
    if definition is None or definition.karta.root.suspend_definition is None:
        return set()
    return {a.path.replace(" ", "") for a in definition.karta.root.suspend_definition.suspend_actions}


def _is_root(obj: dict[str, Any], group: str, kind: str) -> bool:
    api = str(obj.get("apiVersion") or "")
    return obj.get("kind") == kind and api.rpartition("/")[0] == group


def score_kind(group: str, kind: str, crd_file: str, crd: dict[str, Any], shipped: LoadedDefinition | None) -> Score:
    framework = crd_file.split("/", maxsplit=1)[0]
    samples = corpus_samples(framework)
    roots = [s.obj for s in samples if _is_root(s.obj, group, kind)]
    result = Score(f"{kind}.{group}", framework, shipped.name if shipped else None, samples=len(roots))
    made = draft(crd, samples, catalog=builtin_definitions(), sources=[crd_file])
    karta, findings = definition_from_dict(yaml.safe_load(made.text), Location("draft"))
    if karta is None:
        result.notes.append(f"draft does not load: {findings[0]}")
        return result
    errors = [f for f in validate(karta) if f.severity is Severity.ERROR]
    result.valid = not errors
    result.todos = len(made.todos)
    drafted = LoadedDefinition(karta, Location("draft"))
    produced = sum(1 for c in karta.components if c.spec_definition is not None)
    shipped_produced = sum(1 for c in shipped.karta.components if c.spec_definition is not None) if shipped else None
    result.components = f"{produced}/{shipped_produced if shipped_produced is not None else '—'}"
    ours, theirs = _suspend(drafted), _suspend(shipped)
    if shipped is None:
        result.suspend = "draft" if ours else "none"
    elif ours == theirs:
        result.suspend = "=" if ours else "both none"
    else:
        result.suspend = "≠" if ours and theirs else ("draft none" if theirs else "draft only")
    for obj in roots:
        mine = _tree(drafted, obj)
        # An expression failed, counts did not align...; a sample of another served version is still read.
        problems = [w for w in (mine or {}).get("warnings", []) if " is served at " not in w]
        if mine is None or problems:
            result.notes.extend(sorted(set(problems))[:2])
            continue
        result.resolved += 1
        has_status = bool(obj.get("status"))
        result.with_status += has_status
        if has_status and mine["status"]["primary"] == "Undefined":
            result.undefined += 1
        if shipped is None:
            continue
        other = _tree(shipped, obj)
        if other is None:
            continue
        a, b = _instances(mine), _instances(other)
        result.templates += Counter(x[0] for x in a) == Counter(x[0] for x in b)
        result.replicas += Counter(x[:2] for x in a) == Counter(x[:2] for x in b)
        result.minmax += Counter((x[0], x[2], x[3]) for x in a) == Counter((x[0], x[2], x[3]) for x in b)
        if has_status:
            result.status += mine["status"]["primary"] == other["status"]["primary"]
    return result


def score_all() -> list[Score]:
    crds = corpus_crds()
    catalog = builtin_definitions()
    by_kind: dict[tuple[str, str], LoadedDefinition] = {}
    for definition in catalog:
        identity = definition.karta.identity
        if identity is None:
            continue
        key = (identity.group, identity.kind)
        crd = crds.get(key)
        storage = crd and next((v["name"] for v in crd[1]["spec"]["versions"] if v.get("storage")), None)
        # one shipped definition per kind: the one for the CRD's storage version when there are several
        if key not in by_kind or identity.version == storage:
            by_kind[key] = definition
    wanted = sorted({k for k in by_kind if k in crds} | {k for k in OUTSIDE if k in crds}, key=lambda k: (k[1], k[0]))
    return [score_kind(group, kind, *crds[(group, kind)], by_kind.get((group, kind))) for group, kind in wanted]


def _ratio(hit: int, total: int) -> str:
    return f"{hit}/{total}" if total else "—"


def table(scores: list[Score]) -> str:
    head = (
        "| kind | shipped | samples | valid | TODOs | resolved | components d/s | templates | replicas | "
        "min/max | suspend | status agrees | Undefined |"
    )
    lines = [head, "|" + "---|" * 13]
    for s in scores:
        shipped = s.shipped is not None
        lines.append(
            f"| {s.kind} | {s.shipped or '—'} | {s.samples} | {'yes' if s.valid else 'NO'} | {s.todos} | "
            f"{_ratio(s.resolved, s.samples)} | {s.components} | "
            f"{_ratio(s.templates, s.resolved) if shipped else '—'} | "
            f"{_ratio(s.replicas, s.resolved) if shipped else '—'} | "
            f"{_ratio(s.minmax, s.resolved) if shipped else '—'} | {s.suspend} | "
            f"{_ratio(s.status, s.with_status) if shipped else '—'} | {_ratio(s.undefined, s.with_status)} |"
        )
    compared = [s for s in scores if s.shipped is not None]
    total = sum(s.resolved for s in compared)
    status_total = sum(s.with_status for s in compared)
    lines.append("")
    lines.append(
        f"Against the shipped definitions ({len(compared)} kinds, {total} sample objects): templates "
        f"{sum(s.templates for s in compared)}/{total}, replicas {sum(s.replicas for s in compared)}/{total}, "
        f"min/max {sum(s.minmax for s in compared)}/{total}, suspend paths equal for "
        f"{sum(1 for s in compared if s.suspend in ('=', 'both none'))}/{len(compared)} kinds, status "
        f"{sum(s.status for s in compared)}/{status_total}; drafts valid "
        f"{sum(1 for s in scores if s.valid)}/{len(scores)}, TODOs {sum(s.todos for s in scores)}."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", metavar="FILE", help="also write every score as JSON")
    parser.add_argument("--unseen", action="store_true", help="score the kinds of bench/authoring_expectations")
    parser.add_argument("--mirror", metavar="DIR", help="git snapshots of the upstream repositories (--unseen)")
    parser.add_argument("--drafts", metavar="DIR", help="also write each unseen kind's draft there (--unseen)")
    parser.add_argument(
        "--round",
        dest="rounds",
        action="append",
        metavar="NAME",
        help="score only this round of bench/authoring_expectations, e.g. round3 (repeatable; default: all)",
    )
    parser.add_argument(
        "--api-source",
        action="store_true",
        help="also give each unseen draft its operator's Go API types from the snapshot (--unseen)",
    )
    parser.add_argument(
        "--live",
        nargs="?",
        const=str(CAPTURES),
        metavar="DIR",
        help="also draft each unseen kind from the recordings bench/authoring_live.py captured of its operator "
        "(--unseen; default DIR: %(const)s)",
    )
    parser.add_argument(
        "--simulate-recordings",
        action="store_true",
        help="also give each unseen draft a capture made from its expectations (--unseen; authoring_simulated.py)",
    )
    parser.add_argument("--recorded", action="store_true", help="statuses drafted from the lab recordings")
    parser.add_argument(
        "--observed", action="store_true", help="components, templates and replicas drafted with the lab recordings"
    )
    args = parser.parse_args(argv)
    if args.recorded or args.observed:
        return _recorded(args.observed)
    if args.unseen:
        live = Path(args.live) if args.live is not None else None
        return _unseen(
            args.mirror, args.drafts, args.json, args.rounds, args.api_source, live, args.simulate_recordings
        )
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 1
    scores = score_all()
    commit = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"Measured {when} at commit {commit or '?'} by bench/score_authoring.py.\n")
    print(table(scores))
    for s in scores:
        for note in s.notes:
            print(f"{s.kind}: {note}", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(s) for s in scores], indent=2))
    return 0


def _recorded(observed: bool) -> int:
    from authoring_observed import score_observed, table as observed_table
    from authoring_recorded import score_recorded, table as recorded_table

    shipped: dict[tuple[str, str], LoadedDefinition] = {}
    crds = corpus_crds() if CORPUS.is_dir() else {}
    for definition in builtin_definitions():
        identity = definition.karta.identity
        if identity is not None:
            crd = crds.get((identity.group, identity.kind))
            storage = crd and next((v["name"] for v in crd[1]["spec"]["versions"] if v.get("storage")), None)
            key = (identity.group, identity.kind)
            if key not in shipped or identity.version == storage:
                shipped[key] = definition

    def samples(group: str, kind: str) -> list[dict[str, Any]]:
        return [s.obj for s in corpus_samples(crds[(group, kind)][0].split("/", maxsplit=1)[0])]

    only = {k: v[1] for k, v in crds.items()}
    commit = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    flag = "--observed" if observed else "--recorded"
    print(f"Measured {when} at commit {commit or '?'} by bench/score_authoring.py {flag}.\n")
    if observed:
        print(observed_table(score_observed(shipped, only, samples, _tree)))
    else:
        print(recorded_table(score_recorded(shipped, only, _tree)))
    return 0


def _unseen(  # noqa: PLR0917 - the command line's options, each by name at its one call
    mirror: str | None,
    drafts: str | None,
    json_file: str | None,
    rounds: list[str] | None,
    api: bool,
    live: Path | None = None,
    simulate: bool = False,
) -> int:
    from authoring_unseen import EXPECTATIONS, Mirror, score, table as unseen_table

    if mirror is None or not Path(mirror).is_dir():
        print("--unseen needs --mirror DIR: git snapshots <owner>+<name>/repo of the repositories", file=sys.stderr)
        return 2
    known = sorted(p.name for p in EXPECTATIONS.iterdir() if p.is_dir())
    unknown = sorted(set(rounds or []) - set(known))
    if unknown:
        print(f"no round {', '.join(unknown)} in {EXPECTATIONS} (there are: {', '.join(known)})", file=sys.stderr)
        return 2
    results = []
    commit = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    flags = (" --api-source" if api else "") + (f" --live {live}" if live is not None else "")
    flags += " --simulate-recordings" if simulate else ""
    print(f"Measured {when} at commit {commit or '?'} by bench/score_authoring.py --unseen{flags}.")
    scratch = tempfile.TemporaryDirectory(prefix="wmap-api-source-")
    upstream = Mirror(Path(mirror), Path(scratch.name))
    for round_dir in [EXPECTATIONS / name for name in known if not rounds or name in rounds]:
        scored = []
        for path in sorted(round_dir.glob("*.yaml")):
            result, made = score(path, upstream, _tree, api, live, simulate)
            scored.append(result)
            if drafts and made is not None:
                (Path(drafts) / round_dir.name).mkdir(parents=True, exist_ok=True)
                (Path(drafts) / round_dir.name / path.name).write_text(made.text)
        print(f"\n{round_dir.name}:\n")
        print(unseen_table(scored))
        results += scored
    for r in results:
        for note in r.notes:
            print(f"{r.name}: {note}", file=sys.stderr)
    if json_file:
        Path(json_file).write_text(json.dumps([asdict(r) for r in results], indent=2))
    scratch.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
