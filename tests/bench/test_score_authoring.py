"""bench/score_authoring.py scores what it says: a draft against the shipped definition on the corpus."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from workload_map.catalog import builtin_definitions
from workload_map.definition.loader import LoadedDefinition

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import score_authoring  # noqa: E402

pytestmark = pytest.mark.skipif(not score_authoring.CORPUS.is_dir(), reason="../shared/corpus is not checked out")


def _shipped(name: str) -> LoadedDefinition:
    return next(d for d in builtin_definitions() if d.name == name)


def test_a_kind_whose_draft_matches_scores_full_marks() -> None:
    crd_file, crd = score_authoring.corpus_crds()[("jobset.x-k8s.io", "JobSet")]
    score = score_authoring.score_kind(
        "jobset.x-k8s.io", "JobSet", crd_file, crd, _shipped("jobset-x-k8s-io-jobset-v1alpha2")
    )
    assert score.valid and score.samples == 6 and score.resolved == 6
    assert (score.templates, score.replicas, score.suspend) == (6, 6, "=")


def test_a_mismatch_is_counted_as_one() -> None:
    # LeaderWorkerSet's pods are replicas x size, leader 1 and workers size - 1: the draft cannot know it.
    crd_file, crd = score_authoring.corpus_crds()[("leaderworkerset.x-k8s.io", "LeaderWorkerSet")]
    score = score_authoring.score_kind(
        "leaderworkerset.x-k8s.io",
        "LeaderWorkerSet",
        crd_file,
        crd,
        _shipped("leaderworkerset-x-k8s-io-leaderworkerset-v1"),
    )
    assert score.resolved == 5 and score.replicas < score.resolved


def test_frameworks_outside_the_catalog_are_scored_without_a_shipped_definition() -> None:
    crd_file, crd = score_authoring.corpus_crds()[("argoproj.io", "Workflow")]
    score = score_authoring.score_kind("argoproj.io", "Workflow", crd_file, crd, None)
    assert score.valid and score.resolved == score.samples > 0
    row = score_authoring.table([score]).splitlines()[2]
    assert row.startswith("| Workflow.argoproj.io | — |")
