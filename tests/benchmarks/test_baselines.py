"""Baselines: what each keeps of a transcript and how the keyword scan types it."""

from benchmarks.baselines import (
    keyword_scan,
    naive_summary,
    naive_truncation,
    plain_summary,
    sentences,
    sliding_window,
)
from benchmarks.scoring import CATEGORIES


def messages(n: int) -> list[dict]:
    return [{"role": "user", "content": f"Message {i}. Second sentence {i}."} for i in range(n)]


def test_sliding_window_keeps_last_ten_messages_as_sentences():
    out = sliding_window(messages(15))
    labels = out["extracted"]["decisions"]
    assert labels[0] == "Message 5." and labels[-1] == "Second sentence 14."
    assert len(labels) == 20
    assert all(out["extracted"][c] == labels for c in CATEGORIES)


def test_naive_truncation_keeps_last_300_words():
    out = naive_truncation(messages(100))
    assert len(out["resume_text"].split()) == 300
    assert out["resume_text"].endswith("Second sentence 99.")


def test_naive_summary_keeps_first_120_words():
    out = naive_summary(messages(100))
    assert len(out["resume_text"].split()) == 120
    assert out["resume_text"].startswith("Message 0.")


def test_sentences_split_on_end_marks_and_lines():
    assert sentences("Done. Next?\nYes!  ") == ["Done.", "Next?", "Yes!"]


def test_plain_summary_is_first_sentence_of_each_message():
    text = plain_summary([{"content": "Decided: JWT. Because."}, {"content": "Fixed a bug."}])
    assert text == "Decided: JWT.\nFixed a bug."


def test_keyword_scan_types_sentences_and_reads_paths():
    out = keyword_scan("Decided: JWT over sessions.\nFixed the TypeError in api/auth.py.")
    assert out["decisions"] == ["Decided: JWT over sessions."]
    assert out["completed_tasks"] == ["Fixed the TypeError in api/auth.py."]
    assert out["errors"] == ["Fixed the TypeError in api/auth.py."]
    assert out["files"] == ["api/auth.py"]
    assert out["pending_tasks"] == []
