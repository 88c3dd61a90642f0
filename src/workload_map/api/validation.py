"""Validating definitions: statically, and against sample objects (every expression evaluated on them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from workload_map.api.definitions import read_documents
from workload_map.api.recordings import check_recording
from workload_map.errors import DocumentError, Finding, Severity, WorkloadMapError
from workload_map.sources.recording import Checkpoint, is_recording, recording_from_document

if TYPE_CHECKING:
    from workload_map.checks.expectations import Expectation
    from workload_map.checks.samples import SampleResult
    from workload_map.definition.model import LoadedDefinition
    from workload_map.sources.recording import Recording


@dataclass
class ValidationReport:
    """The definitions that loaded and every finding about the files, errors and warnings alike."""

    definitions: list[LoadedDefinition] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.ERROR]

    @property
    def valid(self) -> bool:
        return not self.errors


def validate_definitions(paths: Sequence[str], *, against: Sequence[str] = ()) -> ValidationReport:
    """Load and validate definition files (YAML/JSON files, directories, ``-``); with ``against``, also
    evaluate every expression on those sample workload objects and pods (what ``wmap validate`` does)."""
    from workload_map.checks.expressions import check_against  # noqa: PLC0415 (resolving samples only for checks)
    from workload_map.definition.loader import load_paths  # noqa: PLC0415 (pydantic only when a definition is parsed from source)
    from workload_map.definition.validate import validate  # noqa: PLC0415 (pydantic only when a definition is parsed from source)

    loaded, findings = load_paths(paths, origin="file")
    for definition in loaded:
        findings += validate(definition.karta, definition.location)
    if against:
        samples = read_documents(against)
        for definition in loaded:
            findings += check_against(definition, samples)
    return ValidationReport(list(loaded), list(findings))


def test_samples(
    definition: LoadedDefinition, samples: Sequence[str], expect: Sequence[str] = ()
) -> list[SampleResult]:
    """Resolve every sample object of ``definition``'s root kind found in ``samples`` (files, directories,
    ``-``), with the pods and owners beside it, and check the expectation each carries in its
    ``workload-map.run.ai/expect`` annotation (what ``wmap definitions test`` does).

    A ``Recording`` among them (``wmap record``'s output) is replayed: each of its checkpoints is checked on
    the state it names; without checkpoints, each change of the workload's status is shown. ``expect``
    names Expectations files (Expectations documents among the samples count too): expectations kept
    beside unmodified samples and recordings, by workload (and, for a recording, ``after`` N events)."""
    from workload_map.checks.expectations import expectations_from_document, is_expectations, load_expectations  # noqa: PLC0415 (resolving samples only for checks)
    from workload_map.checks.samples import run_samples  # noqa: PLC0415 (resolving samples only for checks)

    docs = read_documents(samples)
    try:
        expectations = [e for path in expect for e in load_expectations(path)]
        expectations += [e for d in docs if is_expectations(d.data) for e in expectations_from_document(d)]
    except DocumentError as exc:
        raise WorkloadMapError("cannot read expectations", exc.location, detail=exc.message, hint=exc.hint) from None
    recordings = [recording_from_document(d) for d in docs if is_recording(d.data)]
    plain = [d for d in docs if not is_recording(d.data) and not is_expectations(d.data)]
    results = run_samples(definition, plain, expectations)
    results += _replay(definition, recordings, [e for e in expectations if e.after is not None])
    return results


def _replay(
    definition: LoadedDefinition, recordings: Sequence[Recording], checkpoints: Sequence[Expectation]
) -> list[SampleResult]:
    """Each recording replayed with its own checkpoints and those of the expectations naming its workload."""

    from workload_map.checks.samples import SampleResult, names_workload, unused  # noqa: PLC0415 (resolving samples only for checks)

    used: set[int] = set()
    results: list[SampleResult] = []
    for recording in recordings:
        ref = recording.workload
        obj = {
            "apiVersion": ref.api_version,
            "kind": ref.kind,
            "metadata": {"name": ref.name, "namespace": ref.namespace},
        }
        extra = []
        for index, expectation in enumerate(checkpoints):
            after = expectation.after
            if after is None or not names_workload(definition, expectation, obj):
                continue
            used.add(index)
            if after > len(recording.events):
                out_of_range = SampleResult(expectation.workload, str(expectation.location), None, has_expectation=True)
                out_of_range.problems.append(
                    f"after {after} is out of range: the recording in {recording.location} has "
                    f"{len(recording.events)} event(s)"
                )
                results.append(out_of_range)
                continue
            extra.append(Checkpoint(expectation.label or f"after {after}", after, expectation.expect))
        results += check_recording(definition, replace(recording, checkpoints=[*recording.checkpoints, *extra]))
    return results + unused(definition, [e for i, e in enumerate(checkpoints) if i not in used])


# A library function, not a pytest test, whatever its name says.
test_samples.__test__ = False  # type: ignore[attr-defined]
