"""The CMV cost model reproduces the study's published figures exactly, for all 76 sessions.

Reads the study's files from ../shared by path (TOKENMIZER_SHARED to point elsewhere); a missing
file fails with how to set it, never skips.
"""

import json
import os
from pathlib import Path

import pytest

from benchmarks import cmv as bench
from memory.graph import cmv

SHARED = Path(os.environ.get("TOKENMIZER_SHARED", Path(__file__).resolve().parents[3] / "shared"))


@pytest.fixture(scope="module")
def published():
    path = SHARED / "anchors" / "cmv" / "benchmark_results.json"
    assert path.is_file(), f"the CMV study results are missing at {path}: set TOKENMIZER_SHARED"
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def stats():
    path = SHARED / "anchors" / "cmv" / "cmv_benchmark_stats.json"
    assert path.is_file(), f"the CMV study statistics are missing at {path}: set TOKENMIZER_SHARED"
    return json.loads(path.read_text())


COST_FIELDS = (
    "preTrimCostPerTurn",
    "postTrimSteadyCostPerTurn",
    "postTrimFirstTurnCost",
    "cacheMissPenalty",
    "savingsPerTurn",
    "breakEvenTurns",
    "reductionPercent",
    "contextUsedPercent",
)


def test_every_cost_figure_of_all_76_sessions_is_reproduced_float_for_float(published):
    assert published["sessionCount"] == len(published["sessions"]) == 76
    for session in published["sessions"]:
        ours = cmv.session_cost(
            session["estimatedTokens"],
            session["postTrimTokens"],
            published["model"],
            published["cacheHitRate"],
        ).as_dict()
        for name in COST_FIELDS:
            assert ours[name] == session[name], (session["sessionId"], name)
        for name in ("breakEvenTurns", "reductionPercent", "contextUsedPercent"):
            assert isinstance(ours[name], int), name  # rounded fields are integers, as published
        assert ours["projections"] == session["projections"], session["sessionId"]


def test_the_byte_breakdown_percentages_are_reproduced(published):
    for session in published["sessions"]:
        ours = bench.ours_for(session, published["model"], published["cacheHitRate"])
        check = bench.compare(ours, session)
        assert check["differing"] == [], session["sessionId"]
        assert check["fields"] >= 50  # breakdown, trim metrics, projections: not a vacuous pass


def test_the_published_summary_statistics_follow_from_the_sessions(published, stats):
    ours = cmv.summary_stats(published["sessions"])
    assert ours["session_count"] == stats["session_count"]
    assert ours["tiers"] == stats["tiers"]
    assert ours["overall"] == stats["overall"]


def test_the_benchmark_writes_the_reproduction_with_a_chart(tmp_path):
    out = tmp_path / "cmv.json"
    assert bench.main(["--out", str(out), "--shared", str(SHARED)]) == 0
    results = json.loads(out.read_text())
    assert results["sessions_exact"] == 76
    assert results["max_abs_deviation"] == 0
    assert all(row["published_where_different"] == {} for row in results["sessions"])
    assert all(row["fields"] >= 50 for row in results["sessions"])
    assert "76 of 76 sessions reproduced exactly" in out.with_suffix(".md").read_text()
    assert out.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"
    generated = next(r for r in results["own_trimmer"] if r["session"].startswith("token-economy"))
    assert generated["report"]["tokens_after"] < generated["report"]["tokens_before"] / 2


def test_the_benchmark_says_how_to_find_missing_study_files(tmp_path, capsys):
    assert bench.main(["--out", str(tmp_path / "cmv.json"), "--shared", str(tmp_path)]) == 2
    assert "TOKENMIZER_SHARED" in capsys.readouterr().err
