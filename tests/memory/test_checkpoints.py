"""Checkpoints: rendered tiers, lineage, diffs, and when one is due."""

from memory import checkpoints, graphs
from memory.transcripts import record_messages

FIRST = [
    {"role": "user", "content": "Let's build an invoice exporter in Python."},
    {"role": "assistant", "content": "Decided: Python 3.12 runtime. Created exporter/cli.py."},
]
SECOND = [
    {"role": "user", "content": "Add CSV output."},
    {"role": "assistant", "content": "Completed: CSV output in exporter/csv_writer.py."},
]


def test_a_checkpoint_freezes_the_three_tiers_within_their_budgets(session):
    record_messages(session, FIRST)
    graphs.extract_session(session.pk)
    checkpoint = checkpoints.save_checkpoint(session)
    assert "exporter/cli.py" in checkpoint.full
    assert checkpoint.critical_tokens <= 100
    assert checkpoint.standard_tokens <= 300
    assert checkpoint.full_tokens <= 600
    assert checkpoint.tokens_before == sum(m.token_count for m in session.messages.all())
    assert checkpoint.tokens_after == checkpoint.standard_tokens
    assert checkpoint.parent is None and checkpoint.sequence == 1


def test_a_second_checkpoint_names_its_parent_and_what_changed(session):
    record_messages(session, FIRST)
    graphs.extract_session(session.pk)
    first = checkpoints.save_checkpoint(session)
    record_messages(session, FIRST + SECOND)
    graphs.extract_session(session.pk)
    second = checkpoints.save_checkpoint(session)
    assert second.parent == first and second.sequence == 2
    assert any("csv_writer.py" in key for key in second.diff["added"])
    assert any(line.startswith("+") and "csv_writer.py" in line for line in second.diff["resume"])
    assert second.diff["removed"] == []


def test_an_unchanged_graph_keeps_the_latest_checkpoint(session):
    record_messages(session, FIRST)
    graphs.extract_session(session.pk)
    first = checkpoints.save_checkpoint(session)
    assert checkpoints.save_checkpoint(session) == first
    assert session.checkpoints.count() == 1


def test_a_checkpoint_is_due_once_the_context_passes_the_threshold(session):
    session.mecw = 200
    session.save()
    record_messages(session, FIRST)
    assert not checkpoints.checkpoint_due(session, 0.85)
    long_turn = {"role": "user", "content": "Please review this carefully. " * 60}
    record_messages(session, FIRST + [long_turn])
    assert checkpoints.checkpoint_due(session, 0.85)
