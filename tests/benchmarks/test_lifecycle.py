"""Lifecycle scoring: supersession pairs, contested pairs and the decisions shown in force."""

import pytest

from benchmarks.scoring import aggregate_lifecycle, score_lifecycle

GT = {
    "decisions": [
        "HTTP-01 solver",
        "switching to DNS-01",
        "Room for the feed cache",
        "OkHttp cache",
    ],
    "superseded": [
        {"old": "HTTP-01 solver", "new": "switching to DNS-01", "reason": "wildcards need DNS-01"}
    ],
    "contested": [["Room for the feed cache", "OkHttp cache"]],
    "in_force": ["switching to DNS-01"],
}


def reported(superseded=(), contested=(), in_force=()):
    return {
        "superseded": list(superseded),
        "contested": list(contested),
        "in_force": list(in_force),
    }


def test_supersession_found_with_its_reason():
    pair = ("use the HTTP-01 solver", "switching to DNS-01 now", "wildcards need DNS-01 anyway")
    s = score_lifecycle(reported([pair]), GT)["supersession"]
    assert (s["recall"], s["precision"], s["reasons_covered"]) == (1.0, 1.0, 1)


def test_supersession_is_ordered():
    pair = ("switching to DNS-01", "HTTP-01 solver", "")
    s = score_lifecycle(reported([pair]), GT)["supersession"]
    assert (s["recall"], s["precision"]) == (0.0, 0.0)
    assert s["false"] == [["switching to DNS-01", "HTTP-01 solver"]]


def test_supersession_without_reason_is_found_but_reason_not_covered():
    s = score_lifecycle(reported([("HTTP-01 solver", "switching to DNS-01", "")]), GT)
    assert s["supersession"]["found"] == 1
    assert s["supersession"]["reasons_covered"] == 0


def test_contested_pairs_are_unordered():
    c = score_lifecycle(reported(contested=[["OkHttp cache", "Room for the feed cache"]]), GT)
    assert (c["contested"]["recall"], c["contested"]["precision"]) == (1.0, 1.0)


def test_false_contested_pair_counts_against_precision():
    pairs = [["Room for the feed cache", "OkHttp cache"], ["HTTP-01 solver", "OkHttp cache"]]
    c = score_lifecycle(reported(contested=pairs), GT)["contested"]
    assert (c["recall"], c["precision"]) == (1.0, 0.5)
    assert c["false"] == [["HTTP-01 solver", "OkHttp cache"]]


def test_superseded_decision_shown_in_force_counts_against_precision():
    f = score_lifecycle(reported(in_force=["switching to DNS-01", "HTTP-01 solver"]), GT)[
        "in_force"
    ]
    assert (f["recall"], f["precision"]) == (1.0, 0.5)
    assert f["superseded_or_contested_shown"] == ["HTTP-01 solver"]


def test_contested_side_shown_in_force_counts_against_precision():
    f = score_lifecycle(reported(in_force=["switching to DNS-01", "OkHttp cache"]), GT)["in_force"]
    assert f["precision"] == 0.5


def test_label_covering_in_force_and_superseded_is_wrong():
    shown = ["switching to DNS-01 from the HTTP-01 solver"]
    f = score_lifecycle(reported(in_force=shown), GT)["in_force"]
    assert (f["recall"], f["precision"]) == (1.0, 0.0)


def test_missing_lifecycle_field_is_not_scored():
    lc = score_lifecycle(reported(in_force=["x"]), {"superseded": []})
    assert lc["in_force"] is None and lc["contested"] is None
    assert lc["supersession"]["recall"] == 1.0


def test_aggregate_pools_over_sessions():
    good = score_lifecycle(reported([("HTTP-01 solver", "switching to DNS-01", "")]), GT)
    empty = score_lifecycle(reported(), GT)
    agg = aggregate_lifecycle([good, empty])
    assert agg["supersession"]["recall"] == pytest.approx(0.5)
    assert agg["supersession"]["precision"] == 1.0
    assert agg["contested"]["recall"] == 0.0
    assert agg["contested"]["false_pairs"] == 0
    assert agg["in_force"]["sessions"] == 2
