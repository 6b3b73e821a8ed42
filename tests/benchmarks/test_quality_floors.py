"""Extraction quality on the shared labelled corpora stays at the floors it has reached.

These read ../shared by path (TOKENMIZER_SHARED to point elsewhere); they are quality checks
on deterministic output, not timings. Floors not yet reached (the held-out corpora) are reported
by the benchmark, not asserted here.
"""

import os
from pathlib import Path

import pytest

from benchmarks import sessions
from benchmarks.extraction import evaluate, run_method

SHARED = Path(os.environ.get("TOKENMIZER_SHARED", Path(__file__).resolve().parents[3] / "shared"))


def scored(folder: str) -> dict:
    path = SHARED / folder
    assert path.is_dir(), f"the shared corpus is missing at {path}: set TOKENMIZER_SHARED"
    return evaluate(sessions.load(path), "tokenmizer", run_method, progress=False)


@pytest.fixture(scope="module")
def anchors() -> dict:
    return scored("anchors/tokenmizer")


@pytest.fixture(scope="module")
def independent() -> dict:
    return scored("corpus/independent")


def test_the_anchor_corpus_stays_above_its_floors(anchors):
    aggregate = anchors["aggregate"]
    assert aggregate["macro_f1"] >= 0.95
    assert aggregate["micro"]["decisions"]["f1"] >= 0.90
    assert aggregate["micro"]["errors"]["f1"] >= 0.85


def test_the_paper_sessions_keep_every_decision_and_file(anchors):
    by_id = {s["id"]: s for s in anchors["sessions"]}
    for name in ("fastapi_auth", "react_dashboard", "ml_pipeline"):
        categories = by_id[name]["categories"]
        assert categories["decisions"]["recall"] == 1.0, name
        assert categories["files"]["recall"] == 1.0, name
        assert by_id[name]["resume_tokens"]["standard"] <= 300


def test_the_independent_corpus_stays_above_its_floors(independent):
    aggregate = independent["aggregate"]
    assert aggregate["macro_f1"] >= 0.85
    assert aggregate["by_register"]["implicit"] >= 0.75
    lifecycle = aggregate["lifecycle"]
    assert (
        lifecycle["supersession"]["recall"] >= 0.8 and lifecycle["supersession"]["precision"] >= 0.8
    )
    assert lifecycle["in_force"]["f1"] >= 0.85
    assert lifecycle["contested"]["recall"] >= 0.6
    assert lifecycle["contested"]["false_pairs"] <= lifecycle["sessions"] / 5
