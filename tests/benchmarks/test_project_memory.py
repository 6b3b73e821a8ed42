"""The project-memory benchmark: its scenarios, and one of them run end to end through the proxy."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import project_memory
from benchmarks.baselines import sentences
from benchmarks.scoring import covers

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def scenarios():
    return project_memory.load_scenarios()


def said(messages) -> list[str]:
    return [s for m in messages for s in sentences(m["content"])]


def test_the_corpus_has_six_projects_of_two_to_four_sessions_in_several_domains(scenarios):
    assert len(scenarios) >= 6
    assert len({s["domain"] for s in scenarios}) >= 5
    for s in scenarios:
        assert 2 <= len(s["sessions"]) + 1 <= 4, s["file"]
        assert len(s["in_force"]) >= 4, s["file"]


def test_labelled_decisions_are_said_in_the_earlier_sessions(scenarios):
    for s in scenarios:
        text = said(m for session in s["sessions"] for m in session)
        for label in s["in_force"] + s.get("superseded", []):
            assert any(covers(sentence, label) for sentence in text), (s["file"], label)


def test_the_new_sessions_first_request_does_not_name_the_decisions(scenarios):
    for s in scenarios:
        ask = sentences(s["first_request"])
        assert not [d for d in s["in_force"] if any(covers(x, d) for x in ask)], s["file"]


def test_one_scenario_end_to_end_writes_results_of_the_documented_shape(tmp_path):
    out = tmp_path / "project_memory.json"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.project_memory", "--out", str(out),
         "--scenario", "churn_model", "--no-chart", "--quiet"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(out.read_text())
    assert results["benchmark"] == "project_memory" and results["memory_budget"] == 400
    assert set(results["corpus"]["files"]) == {"churn_model.json"}
    (row,) = results["scenarios"]
    assert row["project"] == "Churn model" and row["sessions"] == 3
    memory, baseline = row["memory"], row["baseline"]
    for variant in (memory, baseline):
        assert {"recall", "preamble_recall", "superseded_shown_in_force", "preamble_tokens",
                "forwarded_tokens", "client_tokens", "forwarded", "requests"} <= set(variant)  # fmt: skip
        assert variant["recall"]["n"] == len(row["labelled"])
        assert variant["forwarded"][-1]["content"] == row["first_request"]
    assert 0 < memory["preamble_tokens"] <= 400 + 10  # the budget, plus the message framing
    assert memory["forwarded_tokens"] == memory["client_tokens"] + memory["preamble_tokens"]
    assert baseline["preamble_tokens"] == 0
    assert baseline["forwarded_tokens"] == baseline["client_tokens"]
    assert memory["recall"]["recall"] > baseline["recall"]["recall"]
    agg = results["aggregate"]
    assert set(agg) == {"memory", "baseline"} and agg["memory"]["scenarios"] == 1
    report = out.with_suffix(".md").read_text()
    assert "| Churn model |" in report and "recall, baseline" in report


def test_a_replacement_sharing_most_words_with_the_old_decision_is_no_leak():
    scenario = {
        "in_force": ["cache exchange rates in Memcached"],
        "superseded": ["cache exchange rates in Redis"],
    }
    preamble = (
        "[TokenMizer project memory]\nDecisions in force:\n- cache exchange rates in Memcached"
    )

    def leaks(text: str) -> list[str]:
        sent = [{"role": "user", "content": "hi"}]
        forwarded = [{"role": "system", "content": text}, *sent]
        return project_memory.score_request(scenario, sent, forwarded)["superseded_shown_in_force"]

    assert leaks(preamble) == []
    assert leaks(preamble + "\n- cache exchange rates in Redis") == [
        "cache exchange rates in Redis"
    ]
