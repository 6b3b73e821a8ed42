"""Agreement between two labellings: each scored against the other, and the extractor against both."""

import json

import pytest

from benchmarks import agreement

MESSAGES = [
    {"role": "user", "content": "We're going with Postgres for the orders table."},
    {"role": "assistant", "content": "Good choice."},
    {
        "role": "user",
        "content": "Deployed the API to staging. The nightly export fails with a 504.",
    },
    {"role": "assistant", "content": "Noted."},
]
FIRST = {
    "decisions": ["going with Postgres for the orders table"],
    "completed_tasks": ["Deployed the API to staging"],
    "errors": ["nightly export fails with a 504"],
}


def _write(folder, name, data):
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(json.dumps(data), encoding="utf-8")


def _corpus(tmp_path, second):
    first_dir, second_dir = tmp_path / "corpus", tmp_path / "second"
    session = {"id": "s1", "origin": "synthetic", "messages": MESSAGES, "ground_truth": FIRST}
    _write(first_dir, "s1.json", session)
    _write(second_dir, "s1.json", {"id": "s1", "ground_truth": second})
    return first_dir, second_dir


def test_two_labellings_that_agree_score_one_both_ways(tmp_path):
    results = agreement.agreement(*_corpus(tmp_path, FIRST))
    assert results["pairings"]["second against first"]["macro_f1"] == 1.0
    assert results["pairings"]["first against second"]["macro_f1"] == 1.0
    assert results["pairings"]["extractor against first"]["macro_f1"] == pytest.approx(1.0)


def test_a_labelling_that_misses_a_fact_agrees_less(tmp_path):
    second = {**FIRST, "errors": []}
    pairings = agreement.agreement(*_corpus(tmp_path, second))["pairings"]
    assert pairings["second against first"]["f1"]["errors"] == 0.0
    assert pairings["second against first"]["f1"]["decisions"] == 1.0
    assert pairings["second against first"]["macro_f1"] < 1.0


def test_a_session_without_a_second_labelling_is_an_error_that_names_it(tmp_path):
    first_dir, second_dir = _corpus(tmp_path, FIRST)
    (second_dir / "s1.json").unlink()
    with pytest.raises(SystemExit, match="s1.json"):
        agreement.agreement(first_dir, second_dir)


def test_the_command_writes_the_results_and_their_table(tmp_path):
    first_dir, second_dir = _corpus(tmp_path, FIRST)
    out = tmp_path / "out" / "agreement.json"
    assert (
        agreement.main(["--corpus", str(first_dir), "--second", str(second_dir), "--out", str(out)])
        == 0
    )
    assert json.loads(out.read_text())["sessions"] == 1
    assert "| second against first | 100.0% |" in out.with_suffix(".md").read_text()
