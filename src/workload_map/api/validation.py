"""Validating definitions: statically, and against sample objects (every expression evaluated on them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workload_map.errors import Finding, Severity

if TYPE_CHECKING:
    from workload_map.checks.samples import SampleResult
    from workload_map.definition.loader import LoadedDefinition


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
    from workload_map.api.definitions import read_documents
    from workload_map.checks.expressions import check_against
    from workload_map.definition.loader import load_paths
    from workload_map.definition.validate import validate

    loaded, findings = load_paths(paths, origin="file")
    for definition in loaded:
        findings += validate(definition.karta, definition.location)
    if against:
        samples = read_documents(against)
        for definition in loaded:
            findings += check_against(definition, samples)
    return ValidationReport(list(loaded), list(findings))


def test_samples(definition: LoadedDefinition, samples: Sequence[str]) -> list[SampleResult]:
    """Resolve every sample object of ``definition``'s root kind found in ``samples`` (files, directories,
    ``-``), with the pods and owners beside it, and check the expectation each carries in its
    ``workload-map.run.ai/expect`` annotation (what ``wmap definitions test`` does).

    A ``Recording`` among them (``wmap record``'s output) is replayed: each of its checkpoints is checked on
    the state it names; without checkpoints, each change of the workload's status is shown."""
    from workload_map.api.definitions import read_documents
    from workload_map.checks.samples import run_samples
    from workload_map.sources.recording import is_recording, recording_from_document, test_recording

    docs = read_documents(samples)
    recordings = [recording_from_document(d) for d in docs if is_recording(d.data)]
    results = run_samples(definition, [d for d in docs if not is_recording(d.data)])
    for recording in recordings:
        results += test_recording(definition, recording)
    return results


# A library function, not a pytest test, whatever its name says.
test_samples.__test__ = False  # type: ignore[attr-defined]
