"""Training the learned lexicon: what the weights say, and that the shipped file is what the
documented command makes of the documented corpora."""

import json

import pytest

from benchmarks import lexicon
from benchmarks.sessions import Corpus, Session
from memory.graph import learned


def _session(i: int) -> Session:
    problem = f"The invoice totals are off again on sheet {i}."
    choice = f"We'll keep the spreadsheet for batch {i}."
    return Session(
        id=f"s{i}",
        origin="synthetic",
        register="implicit",
        domain="test",
        messages=[
            {"role": "user", "content": f"{problem} Thanks for looking."},
            {"role": "assistant", "content": "Noted."},
            {"role": "user", "content": f"{choice} See you tomorrow then."},
            {"role": "assistant", "content": "Sure."},
        ],
        ground_truth={"errors": [problem.rstrip(".")], "decisions": [choice.rstrip(".")]},
        path=f"s{i}.json",
    )


CORPUS = Corpus(id="tiny", sessions=[_session(i) for i in range(6)])


def test_a_labelled_sentence_teaches_its_words_and_an_unlabelled_one_its_own():
    entry = lexicon.train(CORPUS, "errors", 0.5)
    assert (entry["sentences"], entry["positives"]) == (24, 6)  # four user sentences a session
    weights = entry["weights"]
    assert weights["totals"] > 0 and weights["off again"] > 0
    assert weights["spreadsheet"] < 0 and weights["see you"] < 0


def test_training_twice_gives_the_same_lexicon():
    assert lexicon.train(CORPUS, "decisions", 0.5) == lexicon.train(CORPUS, "decisions", 0.5)


def test_the_runtime_reads_a_trained_file(tmp_path):
    path = tmp_path / "lexicon.json"
    path.write_text(json.dumps({k: lexicon.train(CORPUS, k, 0.5) for k in ("decisions", "errors")}))
    cuts, weights = learned.load(path)
    text = "The invoice totals are off again on sheet 9."
    found = {tuple(f.split(" ")) if " " in f else f for f in learned.features(text, 0)}
    score = {k: sum(weights[i].get(f, 0.0) for f in found) for i, k in enumerate(learned.KINDS)}
    assert score["errors"] >= cuts[learned.KINDS.index("errors")]
    # a kind the file does not hold is never read
    completed = learned.KINDS.index("completed_tasks")
    assert weights[completed] == {} and score["completed_tasks"] < cuts[completed]


def test_a_category_no_session_labels_is_left_out():
    assert set(lexicon.lexicon_of(CORPUS)) == {"decisions", "errors"}


def test_cross_validation_scores_each_corpus_and_restores_the_shipped_lexicon(tmp_path):
    folders = []
    for name, sessions in (("first", range(0, 4)), ("second", range(4, 8))):
        folder = tmp_path / name
        folder.mkdir()
        for i in sessions:
            s = _session(i)
            data = {"id": s.id, "messages": s.messages, "ground_truth": s.ground_truth}
            (folder / f"{s.id}.json").write_text(json.dumps(data))
        folders.append(folder)
    text = "The totals on the summary tab are a few cents off every month, no idea why."
    before = learned.stated(text, 2)
    folds = lexicon.cross_validate(folders, tmp_path)
    assert set(folds) == {"first", "second"}
    for scores in folds.values():
        assert set(scores) == {"no lexicon", "lexicon of the others"}
        assert all(0.0 <= v <= 1.0 for v in scores.values())
    assert learned.stated(text, 2) == before == frozenset({"errors"})


def test_the_shipped_lexicon_is_what_the_command_trains(tmp_path):
    out = tmp_path / "lexicon.json"
    assert lexicon.main(["--out", str(out)]) == 0
    shipped = json.loads(learned.LEXICON.read_text())
    trained = json.loads(out.read_text())
    assert set(shipped) == set(trained) == set(learned.KINDS)
    for kind in learned.KINDS:
        assert shipped[kind]["threshold"] == trained[kind]["threshold"]
        assert shipped[kind]["bias"] == pytest.approx(trained[kind]["bias"], abs=1e-3)
        assert shipped[kind]["weights"].keys() == trained[kind]["weights"].keys()
        for feature, weight in trained[kind]["weights"].items():
            assert shipped[kind]["weights"][feature] == pytest.approx(weight, abs=1e-3), feature
