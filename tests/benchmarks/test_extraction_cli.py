"""The benchmark CLI on a tiny corpus: the files it writes and the shape of the results."""

import json

import pytest

from benchmarks import extraction

SESSION = {
    "id": "tiny",
    "origin": "synthetic",
    "register": "explicit",
    "messages": [
        {"role": "user", "content": "Decided: use JWT for auth."},
        {"role": "assistant", "content": "Completed: login endpoint in api/auth.py."},
        {"role": "user", "content": "Actually switch to sessions, JWT revocation is painful."},
        {"role": "assistant", "content": "Done. TODO: add rate limiting."},
    ],
    "ground_truth": {
        "completed_tasks": ["login endpoint"],
        "pending_tasks": ["add rate limiting"],
        "decisions": ["use JWT for auth", "switch to sessions"],
        "files": ["api/auth.py"],
        "errors": [],
        "superseded": [{"old": "use JWT", "new": "switch to sessions", "reason": "revocation"}],
        "contested": [],
        "in_force": ["switch to sessions"],
    },
}


@pytest.fixture
def corpus_dir(tmp_path):
    folder = tmp_path / "tiny_corpus"
    folder.mkdir()
    (folder / "tiny.json").write_text(json.dumps(SESSION))
    (folder / "other.json").write_text(json.dumps(dict(SESSION, id="other", register=None)))
    (folder / "results.json").write_text(json.dumps({"meta": {}, "sessions": []}))
    return folder


def test_cli_writes_json_markdown_and_chart(corpus_dir, tmp_path):
    out = tmp_path / "res" / "tiny.json"
    assert (
        extraction.main(["--corpus", str(corpus_dir), "--out", str(out), "--no-scaling", "--quiet"])
        == 0
    )
    report = out.with_suffix(".md").read_text()
    assert report.startswith("# Extraction benchmark")
    assert (
        "| category | mistyped | in user sentence | in assistant sentence | paraphrased |" in report
    )
    assert out.with_suffix(".png").stat().st_size > 0
    results = json.loads(out.read_text())
    assert results["corpus"]["id"] == "tiny_corpus"
    assert set(results["corpus"]["files"]) == {"other.json", "tiny.json"}
    assert results["corpus"]["skipped"] == ["results.json"]
    assert (results["coverage_threshold"], results["substring_min"]) == (0.6, 6)
    for key in ("code_version", "git_commit", "date", "machine", "python"):
        assert key in results
    assert results["table_iii"] is None and "scaling" not in results


AGGREGATE_KEYS = {
    "macro_f1",
    "macro_f1_ci95",
    "micro",
    "by_register",
    "by_origin",
    "resume_tokens",
    "extract_ms",
    "label_quality",
    "miss_kinds",
}
SESSION_KEYS = {
    "id",
    "register",
    "origin",
    "categories",
    "macro_f1",
    "extracted",
    "misses",
    "miss_kinds",
    "spurious",
    "extract_ms",
    "resume_tokens",
}
BASELINES = {"sliding_window", "naive_truncation", "naive_summary", "plain_summary_scan"}


def run_tiny(corpus_dir, tmp_path) -> dict:
    out = tmp_path / "tiny.json"
    extraction.main(["--corpus", str(corpus_dir), "--out", str(out), "--no-scaling", "--quiet"])
    return json.loads(out.read_text())


def test_method_and_baselines_share_the_results_shape(corpus_dir, tmp_path):
    results = run_tiny(corpus_dir, tmp_path)
    assert set(results["baselines"]) == BASELINES
    for run in [results, *results["baselines"].values()]:
        assert AGGREGATE_KEYS <= set(run["aggregate"])
        assert set(run["aggregate"]["by_register"]) == {"explicit", "unspecified"}
        assert set(run["aggregate"]["micro"]["files"]) == {"precision", "recall", "f1"}
        assert SESSION_KEYS <= set(run["sessions"][0])


def test_lifecycle_is_scored_for_sessions_that_carry_it(corpus_dir, tmp_path):
    results = run_tiny(corpus_dir, tmp_path)
    lifecycle = results["aggregate"]["lifecycle"]
    assert lifecycle["sessions"] == 2
    assert {"recall", "precision", "reasons_covered"} <= set(lifecycle["supersession"])
    assert {"recall", "precision", "false_pairs"} <= set(lifecycle["contested"])
    assert {"precision", "recall", "f1"} <= set(lifecycle["in_force"])
    assert set(lifecycle["per_session"]) == {"tiny", "other"}
    assert "lifecycle" in results["sessions"][0]
    assert "lifecycle" not in results["baselines"]["sliding_window"]["aggregate"]


def test_scores_are_deterministic_across_runs(corpus_dir, tmp_path):
    def scores(name):
        out = tmp_path / name
        extraction.main(["--corpus", str(corpus_dir), "--out", str(out), "--no-scaling", "--quiet"])
        r = json.loads(out.read_text())
        return r["aggregate"]["macro_f1_ci95"], r["baselines"]["sliding_window"]["aggregate"][
            "micro"
        ]

    assert scores("a.json") == scores("b.json")


def test_table_iii_sets_our_rows_beside_the_paper(tmp_path):
    folder = tmp_path / "anchors"
    folder.mkdir()
    paper = {"meta": {"code_version": "0.3.1"}, "sessions": []}
    for sid in extraction.TABLE_III_SESSIONS:
        (folder / f"{sid}.json").write_text(json.dumps(dict(SESSION, id=sid)))
        paper["sessions"].append(
            {
                "session": sid,
                "heu_task_recall": 0.5,
                "heu_decision_recall": 1.0,
                "heu_file_recall": 1.0,
                "heu_time_ms": 10.0,
                "resume_tokens": 200,
                "sum_task_recall": 0.5,
                "sum_decision_recall": 0.5,
                "sum_file_recall": 1.0,
            }
        )
    (folder / extraction.PAPER_RESULTS).write_text(json.dumps(paper))
    out = tmp_path / "t3.json"
    extraction.main(["--corpus", str(folder), "--out", str(out), "--no-scaling", "--quiet"])
    t3 = json.loads(out.read_text())["table_iii"]
    assert t3["paper"]["graph"]["mean"]["task_recall"] == 0.5
    assert t3["paper"]["graph"]["mean"]["standard_tokens"] == 200
    assert set(t3["ours"]["sessions"]) == set(extraction.TABLE_III_SESSIONS)
    assert {
        "task_recall",
        "decision_recall",
        "file_recall",
        "standard_tokens",
        "extract_ms",
    } == set(t3["ours"]["mean"])
    assert "looser matching" in out.with_suffix(".md").read_text()


def test_corpus_flag_repeats_and_joins_ids(corpus_dir, tmp_path):
    second = tmp_path / "second"
    second.mkdir()
    (second / "extra.json").write_text(json.dumps(dict(SESSION, id="extra", origin="real")))
    out = tmp_path / "both.json"
    args = ["--corpus", str(corpus_dir), "--corpus", str(second), "--out", str(out)]
    extraction.main(args + ["--no-scaling", "--quiet"])
    results = json.loads(out.read_text())
    assert results["corpus"]["id"] == "tiny_corpus+second"
    assert len(results["sessions"]) == 3
    assert set(results["aggregate"]["by_origin"]) == {"real", "synthetic"}
