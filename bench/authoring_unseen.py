"""Drafts of kinds the drafting was not tuned to, scored field by field against what the operator does.

Each ``bench/authoring_expectations/*.yaml`` (ours, written from the operator's source) names an upstream
repository, a commit, the CRD and the published samples; they are read in place from a local git snapshot
(``--mirror DIR`` holding ``<owner>+<name>/repo``), never copied. The draft comes from the CRD and the
samples alone, with the built-in catalog as it ships (children of catalog kinds). Every expected fact is
one field, scored right, wrong or missing (the draft left a gap, or has nothing there):

- components: an expected pod-producing part matched (by template path, else by pod owner kind) to a draft
  component whose pods have the expected owner; a draft component matching nothing is one wrong field;
- templates: the matched component's pod definition path; ``null`` expected (the operator builds the pod
  from scattered fields): right when the draft reads the pod from no path (an empty
  ``fragmentedPodSpecDefinition``, noting that the operator composes it), missing when it left a gap, wrong
  when it names a path;
- replicas: per sample object, the matched component's desired pods against the expectation's jq;
- statuses: per phase value, condition type or ready count, the status the draft maps it to;
- suspend: the field the draft suspends with (none expected: a switch invented is wrong).

With captures (``--live``: bench/authoring_live.py's recordings of the operator run in the cluster lab, at
the expectation's repo and commit, of the expectation's kind) the draft also reads those recordings, as
``wmap definitions new --from-recording`` does (the public ``draft_definition``).
"""

from __future__ import annotations

import fnmatch
import io
import subprocess
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

import workload_map as wm
from authoring_simulated import capture
from live_config import captures_of
from workload_map.authoring import Draft, Sample, draft
from workload_map.authoring.evidence import TODO_MARK
from workload_map.catalog import builtin_definitions
from workload_map.definition.loader import LoadedDefinition, definition_from_dict
from workload_map.errors import Location
from workload_map.jq import compile_expression
from workload_map.sources.recording import load_recording

EXPECTATIONS = Path(__file__).resolve().parent / "authoring_expectations"
FIELDS = ("components", "templates", "replicas", "statuses", "suspend")
MANIFEST_BYTES = 65536
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class Tally:
    right: int = 0
    wrong: int = 0
    missing: int = 0
    unscored: int = 0  # replicas the object does not say (the operator decides from the cluster)

    def add(self, verdict: str) -> None:
        setattr(self, verdict, getattr(self, verdict) + 1)

    @property
    def total(self) -> int:
        return self.right + self.wrong + self.missing


@dataclass
class Result:
    name: str
    kind: str
    samples: int
    todos: int
    tallies: dict[str, Tally] = field(default_factory=lambda: {f: Tally() for f in FIELDS})
    notes: list[str] = field(default_factory=list)
    live: str = ""  # with --live: how many recordings the draft read, or "no capture"


class Mirror:
    """Files of upstream repositories at a commit, read with git from local snapshots."""

    def __init__(self, root: Path, scratch: Path | None = None) -> None:
        self.root = root
        self.scratch = scratch  # where go_sources unpacks the Go files (a temporary folder of the caller's)

    def _git(self, repo: str, *args: str) -> str:
        where = self.root / repo.replace("/", "+") / "repo"
        if not where.is_dir():
            raise FileNotFoundError(f"no snapshot of {repo} at {where}")
        done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True, check=True)
        return done.stdout

    def files(self, repo: str, commit: str, patterns: list[str]) -> list[str]:
        listed = self._git(repo, "ls-tree", "-r", "--name-only", commit).splitlines()
        return sorted({f for f in listed for p in patterns if fnmatch.fnmatchcase(f, p)})

    def read(self, repo: str, commit: str, path: str) -> str:
        return self._git(repo, "show", f"{commit}:{path}")

    def go_sources(self, repo: str, commit: str) -> Path:
        """The repository's Go files at the commit, with its small YAML files (the manifests a controller
        renders; CRDs and charts of more than ``MANIFEST_BYTES`` left out), unpacked once into the scratch
        folder (what a user drafting with --api-source has: a checkout of the operator)."""
        if self.scratch is None:
            raise ValueError("Mirror has no scratch folder for Go sources")
        out = self.scratch / f"{repo.replace('/', '+')}-{commit}"
        if not out.is_dir():
            where = self.root / repo.replace("/", "+") / "repo"
            out.mkdir(parents=True)
            if not self.files(repo, commit, ["*.go"]):
                return out  # an operator not written in Go (Strimzi's Java): the reader finds nothing to read
            listed = [line.split(None, 4) for line in self._git(repo, "ls-tree", "-r", "-l", commit).splitlines()]
            manifests = [
                f":(literal){entry[4]}"
                for entry in listed
                if len(entry) == 5 and entry[4].endswith((".yaml", ".yml")) and entry[3].isdigit()
                if int(entry[3]) <= MANIFEST_BYTES
            ]
            command = ["git", "-C", str(where), "archive", commit, "--", ":(glob)**/*.go"]
            done = subprocess.run([*command, *manifests], capture_output=True, check=False)
            # A snapshot may lack a file's content: then the Go files alone.
            archive = (
                done.stdout if done.returncode == 0 else subprocess.run(command, capture_output=True, check=True).stdout
            )
            with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                tar.extractall(out, filter="data")
        return out


def _norm(path: str | None) -> str | None:
    return None if path is None else path.replace("?", "").replace(" ", "")


def _gap(value: Any) -> bool:
    return TODO_MARK in str(value)


def _template(component: dict[str, Any]) -> str | None:
    spec = component.get("specDefinition") or {}
    fragments = spec.get("fragmentedPodSpecDefinition") or {}
    for value in (
        spec.get("podTemplateSpecPath"),
        spec.get("podSpecPath"),
        fragments.get("containersPath"),
        fragments.get("containerPath"),
        fragments.get("imagePath"),
    ):
        if value is not None:
            return str(value)
    return None


def template_verdict(drafted: str | None, expected: str | None) -> str:
    """A component's pod definition against the operator's: a gap is missing; a pod the operator builds from
    scattered fields (``expected`` None) is right when the draft reads it from no path (it says the operator
    composes it) and wrong when it names one; an expected path is right when the draft names that path."""
    if _gap(drafted):
        return "missing"
    if expected is None:
        return "right" if drafted is None else "wrong"
    return "right" if drafted is not None and _norm(drafted) == _norm(expected) else "wrong"


def _owner(component: dict[str, Any], through: str | None) -> str:
    """The kind owning the component's pods: Pod when the root (or a Pod child) owns them directly, the
    intermediate kind (``additionalChildKinds``) when the root's pods come through one."""
    if through is not None:
        return through
    return str((component.get("kind") or {}).get("kind", "Pod"))


def _pod_components(karta: dict[str, Any]) -> list[tuple[dict[str, Any], str | None]]:
    structure = karta["spec"]["structureDefinition"]
    between = [k["kind"] for k in structure.get("additionalChildKinds", [])]
    everyone = [(structure["rootComponent"], between[0] if between else "Pod")]
    everyone += [(c, None) for c in structure.get("childComponents", [])]
    return [(c, through) for c, through in everyone if c.get("specDefinition")]


def _match(
    expected: list[dict[str, Any]],
    drafted: list[tuple[dict[str, Any], str | None]],
    counts_agree: Callable[[dict[str, Any], dict[str, Any]], bool],
) -> list[tuple[dict[str, Any], str | None] | None]:
    """Each expected component's draft component: the one with its template path, else one with its owner
    kind, preferring among those one whose pod counts agree (two StatefulSets built from scattered fields
    are told apart by their counts only, not by the order the draft lists them in)."""
    taken: set[int] = set()
    out: list[tuple[dict[str, Any], str | None] | None] = []
    for want in expected:
        found = None
        for index, (component, _) in enumerate(drafted):
            template = _template(component)
            if index not in taken and want["template"] and _norm(template) == _norm(want["template"]):
                found = index
                break
        if found is None:
            owners = set(want["owner"])
            candidates = [i for i, (c, t) in enumerate(drafted) if i not in taken and _owner(c, t) in owners]
            agreeing = [i for i in candidates if counts_agree(want, drafted[i][0])]
            found = (agreeing or candidates or [None])[0]
        if found is not None:
            taken.add(found)
        out.append(drafted[found] if found is not None else None)
    return out


def _status_of(karta: dict[str, Any], entry: dict[str, Any], phase_path: str | None) -> set[str]:
    status = karta["spec"]["structureDefinition"]["rootComponent"].get("statusDefinition") or {}
    phase_definition = _norm((status.get("phaseDefinition") or {}).get("path")) or ""
    out = set()
    for name, matchers in (status.get("statusMappings") or {}).items():
        for matcher in matchers:
            if (
                "phase" in entry
                and matcher.get("byPhase") == entry["phase"]
                and (phase_path is None or phase_definition.startswith(_norm(phase_path) or ""))
            ):
                out.add(name)
            if "condition" in entry:
                for condition in matcher.get("byConditions") or []:
                    if condition.get("type") == entry["condition"] and condition.get("status", "True") == "True":
                        out.add(name)
            expression = str((matcher.get("byExpression") or {}).get("expression") or "")
            if "readyCount" in entry and f".status.{entry['readyCount']}" in expression and "> 0" in expression:
                out.add(name)
    return out


def _desired(definition: LoadedDefinition, obj: dict[str, Any], name: str, tree: Callable[..., Any]) -> int | None:
    result = tree(definition, obj)
    if result is None:
        return None
    return sum(int(i["desiredPods"]) for c in result["components"] if c["name"] == name for i in c.get("instances", []))


def _replicas(  # noqa: PLR0917 - one component's facts, each by name at its one call
    want: dict[str, Any],
    match: tuple[dict[str, Any], str | None] | None,
    roots: list[dict[str, Any]],
    definition: LoadedDefinition,
    tree: Callable[..., Any],
    notes: list[str],
) -> str:
    """One field per component: right when the draft's desired pods are the operator's on every sample that
    says them, wrong on the first that differs, missing when the draft has no count for it; unscored when no
    sample says the count (the operator decides it from the cluster)."""
    truths = [(obj, compile_expression(want["replicas"]).first(obj)) for obj in roots] if want["replicas"] else []
    truths = [(obj, truth) for obj, truth in truths if truth is not None]
    if not truths:
        return "unscored"
    if match is None or _gap((match[0].get("scaleDefinition") or {}).get("replicasPath")):
        return "missing"
    for obj, truth in truths:
        got = _desired(definition, obj, match[0]["name"], tree)
        if got != truth:
            notes.append(f"{(obj.get('metadata') or {}).get('name')}: {got} pods, expected {truth}")
            return "wrong"
    return "right"


def _crd(text: str, samples: list[Sample], name: str) -> dict[str, Any]:
    """The kind's CRD: the file's one CustomResourceDefinition, or of several (a bundle of an operator's
    CRDs) the one whose group and kind the samples have, as ``wmap definitions new --crd`` takes it."""
    crds = [d for d in yaml.load_all(text, Loader=LOADER) if isinstance(d, dict)]
    crds = [d for d in crds if d.get("kind") == "CustomResourceDefinition"]
    if len(crds) > 1:
        seen = {(str(s.obj.get("apiVersion", "")).rpartition("/")[0], s.obj.get("kind")) for s in samples}
        crds = [d for d in crds if (d["spec"]["group"], d["spec"]["names"]["kind"]) in seen]
    if len(crds) != 1:
        raise ValueError(f"{name}: {len(crds)} CustomResourceDefinitions match the samples' kinds, not one")
    return crds[0]


def _nothing_drafted(result: Result, spec: dict[str, Any], why: str) -> Result:
    """Every expected field missing: a draft that fails or does not load answers nothing."""
    result.notes.append(why)
    for want in spec["components"]:
        result.tallies["components"].add("missing")
        result.tallies["templates"].add("missing")
        result.tallies["replicas"].add("missing" if want["replicas"] else "unscored")
    for _ in spec.get("statuses") or []:
        result.tallies["statuses"].add("missing")
    result.tallies["suspend"].add("missing")
    return result


def recordings_for(captures: Path, repo: str, commit: str, group: str, kind: str) -> list[Path]:
    """The recordings captured of the operator at the commit whose recorded workload is of the kind (an
    operator's captures of its other kinds tell nothing about this one's statuses)."""
    chosen = []
    for path in captures_of(captures, repo, commit):
        workload = load_recording(str(path)).workload
        if workload.kind == kind and workload.api_version.rpartition("/")[0] == group:
            chosen.append(path)
    return chosen


def score(  # noqa: PLR0917 - the scorer's options, each by name at its one call
    path: Path,
    mirror: Mirror,
    tree: Callable[..., Any],
    api: bool = False,
    captures: Path | None = None,
    simulate: bool = False,
) -> tuple[Result, Draft | None]:
    """Draft the kind of one expectations file and score every field; ``tree`` resolves one object. With
    ``api`` the draft also reads the operator's Go API types (``--api-source`` on the repository); with
    ``captures`` (a captures root of bench/authoring_live.py) the recordings of the kind made there; with
    ``simulate`` (and no capture) a capture made from the expectations (authoring_simulated.py)."""
    spec = yaml.safe_load(path.read_text())
    repo = spec.get("samples_repo", spec["repo"])
    commit = spec.get("samples_commit", spec["commit"])
    samples: list[Sample] = []
    skipped = []
    for name in mirror.files(repo, commit, spec["samples"]):
        try:
            docs = list(yaml.load_all(mirror.read(repo, commit, name), Loader=LOADER))
        except yaml.YAMLError:
            skipped.append(name)  # a template (Helm, Kustomize placeholders), not YAML
            continue
        samples += [Sample(d, f"{name}#{i}") for i, d in enumerate(docs) if isinstance(d, dict) and "kind" in d]
    crd = _crd(mirror.read(spec["repo"], spec["commit"], spec["crd"]), samples, spec["crd"])
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
    api_source = mirror.go_sources(spec["repo"], spec["commit"]) if api else None
    roots = [s.obj for s in samples if s.obj.get("kind") == kind and str(s.obj.get("apiVersion")).startswith(group)]
    recordings = recordings_for(captures, spec["repo"], spec["commit"], group, kind) if captures else []
    live = "" if captures is None else (f"{len(recordings)} recording(s)" if recordings else "no capture")
    captured, moments = capture(spec, roots) if simulate and not recordings else ([], [])
    try:
        if recordings:
            made = wm.draft_definition(
                crd,
                objects=[s.obj for s in samples],
                recordings=[str(p) for p in recordings],
                api_source=str(api_source) if api_source else None,
            )
        else:
            made = draft(
                crd,
                [*samples, *captured],
                catalog=builtin_definitions(),
                sources=[spec["crd"]],
                api_source=api_source,
                moments=moments,
            )
    except Exception as exc:  # noqa: BLE001 - a drafting bug scores this kind as nothing drafted, never hides the others
        result = Result(spec["name"], f"{kind}.{group}", len(roots), 0, live=live)
        return _nothing_drafted(result, spec, f"the drafting failed: {type(exc).__name__}: {exc}"), None
    result = Result(spec["name"], f"{kind}.{group}", len(roots), len(made.todos), live=live)
    result.notes += [f"{name} is not YAML (a template): not a sample" for name in skipped]
    result.notes += [f"API types: {w}" for w in made.warnings]
    karta = yaml.safe_load(made.text)
    loaded, findings = definition_from_dict(karta, Location(path.name))
    if loaded is None:
        return _nothing_drafted(result, spec, f"the draft does not load: {findings[0]}"), made
    definition = LoadedDefinition(loaded, Location(path.name))
    drafted = _pod_components(karta)
    matches = _match(
        spec["components"],
        drafted,
        lambda want, component: _replicas(want, (component, None), roots, definition, tree, []) == "right",
    )
    tallies = result.tallies
    for want, match in zip(spec["components"], matches, strict=True):
        if match is None:
            tallies["components"].add("missing")
            tallies["templates"].add("missing")
            result.notes.append(f"no draft component for the {'/'.join(want['owner'])}-owned pods")
        else:
            component, through = match
            owner = _owner(component, through)
            tallies["components"].add("right" if owner in want["owner"] else "wrong")
            template = _template(component)
            verdict = template_verdict(template, want["template"])
            tallies["templates"].add(verdict)
            if verdict == "wrong":
                result.notes.append(f"template {template!r}, expected {want['template']!r}")
            if owner not in want["owner"]:
                result.notes.append(f"component {component['name']!r}: pods owned by {owner}, expected {want['owner']}")
        tallies["replicas"].add(_replicas(want, match, roots, definition, tree, result.notes))
    for extra in [c for c in drafted if c not in [m for m in matches if m is not None]]:
        tallies["components"].add("wrong")
        result.notes.append(f"component {extra[0]['name']!r} ({_template(extra[0])}) matches nothing the operator runs")
    for entry in spec.get("statuses") or []:
        mapped = _status_of(karta, entry, spec.get("phasePath"))
        label = next(f"{k} {entry[k]}" for k in ("phase", "condition", "readyCount") if k in entry)
        if not mapped:
            tallies["statuses"].add("missing")
        elif mapped <= set(entry["status"]):
            tallies["statuses"].add("right")
        else:
            tallies["statuses"].add("wrong")
            result.notes.append(f"{label} mapped to {sorted(mapped)}, expected {entry['status']}")
    suspend = karta["spec"]["structureDefinition"]["rootComponent"].get("suspendDefinition")
    path_drafted = _norm(suspend["suspendActions"][0]["path"]) if suspend else None
    if spec.get("suspend") is None:
        tallies["suspend"].add("right" if path_drafted is None else "wrong")
    elif path_drafted is None:
        tallies["suspend"].add("missing")
    else:
        tallies["suspend"].add("right" if path_drafted == _norm(spec["suspend"]) else "wrong")
    if path_drafted is not None and path_drafted != _norm(spec.get("suspend")):
        result.notes.append(f"suspends with {path_drafted}, expected {spec.get('suspend')}")
    return result, made


def table(results: list[Result]) -> str:
    def cell(tally: Tally) -> str:
        if not tally.total:
            return "—"
        return f"{tally.right}/{tally.total}" + (f" ({tally.missing} gap)" if tally.missing else "")

    live = any(r.live for r in results)  # --live: which drafts read captures, and how many
    lines = [
        "| kind | samples | TODOs | components | templates | replicas | statuses | suspend | right |"
        + (" live |" if live else ""),
        "|---|---|---|---|---|---|---|---|---|" + ("---|" if live else ""),
    ]
    totals = {f: Tally() for f in FIELDS}
    for r in results:
        right = sum(t.right for t in r.tallies.values())
        total = sum(t.total for t in r.tallies.values())
        cells = " | ".join(cell(r.tallies[f]) for f in FIELDS)
        lines.append(
            f"| {r.name} ({r.kind}) | {r.samples} | {r.todos} | {cells} | {right}/{total} |"
            + (f" {r.live or '—'} |" if live else "")
        )
        for f in FIELDS:
            for verdict in ("right", "wrong", "missing", "unscored"):
                setattr(totals[f], verdict, getattr(totals[f], verdict) + getattr(r.tallies[f], verdict))
    right = sum(t.right for t in totals.values())
    wrong = sum(t.wrong for t in totals.values())
    missing = sum(t.missing for t in totals.values())
    total = right + wrong + missing
    cells = " | ".join(cell(totals[f]) for f in FIELDS)
    captured = sum(1 for r in results if r.live and r.live != "no capture")
    lines.append(
        f"| **all {len(results)}** | | | {cells} | **{right}/{total}** |"
        + (f" {captured} with captures |" if live else "")
    )
    lines.append("")
    lines.append(
        f"Right {right} of {total} fields ({100 * right / max(total, 1):.0f}%), wrong {wrong}, "
        f"missing (a gap, or nothing drafted) {missing}; components whose pod count no sample says "
        f"(decided by the operator from the cluster), unscored: {totals['replicas'].unscored}."
    )
    return "\n".join(lines)
