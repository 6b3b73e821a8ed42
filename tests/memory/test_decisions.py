"""People acting on decisions: resolving contested pairs and invalidating, recorded with the actor."""

import pytest

from memory import checkpoints, decisions, graphs
from memory.transcripts import record_messages

CONTESTED = [
    {"role": "user", "content": "We need storage for the notes app."},
    {"role": "assistant", "content": "Decided: PostgreSQL for primary user data."},
    {"role": "user", "content": "And on the phone?"},
    {"role": "assistant", "content": "Decided: SQLite for the local offline cache."},
]


@pytest.fixture
def contested(session):
    record_messages(session, CONTESTED)
    graphs.extract_session(session.pk)
    pair = list(session.nodes.filter(type="decision", status="contested").order_by("valid_from"))
    assert len(pair) == 2, "the sample conversation must yield a contested pair"
    return pair


def test_one_decision_replacing_the_other_is_recorded_with_the_user_and_reaches_the_resume(
    contested, alice, session
):
    postgres, sqlite = contested
    decisions.resolve_contested(sqlite, postgres, "a_replaces_b", "the app is offline-first", alice)
    statuses = dict(session.nodes.filter(type="decision").values_list("label", "status"))
    assert statuses[sqlite.label] == "completed" and statuses[postgres.label] == "superseded"
    transition = session.transitions.filter(actor="alice").first()
    assert transition.actor_user == alice and "offline-first" in transition.reason
    resume = checkpoints.save_checkpoint(session).standard
    assert sqlite.label in resume and "Contested" not in resume


def test_keeping_both_needs_no_reason_and_ends_the_contest(contested, alice, session):
    decisions.resolve_contested(contested[0], contested[1], "keep_both", "", alice)
    assert not session.nodes.filter(status="contested").exists()
    assert not session.edges.filter(type="conflicts_with", retired_at__isnull=True).exists()


def test_replacing_without_a_reason_is_refused_and_changes_nothing(contested, alice, session):
    with pytest.raises(decisions.DecisionError, match="reason"):
        decisions.resolve_contested(contested[0], contested[1], "a_replaces_b", "  ", alice)
    assert session.nodes.filter(status="contested").count() == 2
    assert not session.transitions.filter(actor="alice").exists()


def test_an_invalidated_decision_is_only_a_warning_and_is_not_revived(contested, alice, session):
    postgres, sqlite = contested
    decisions.invalidate(postgres, "we never run a server", alice)
    record_messages(
        session,
        CONTESTED
        + [{"role": "assistant", "content": "Decided: PostgreSQL for primary user data."}],
    )
    graphs.extract_session(session.pk)
    postgres.refresh_from_db()
    assert postgres.status == "invalidated"
    resume = checkpoints.save_checkpoint(session).standard
    assert "re-adopt" in resume.lower() or "invalidated" in resume.lower()


def test_only_decisions_can_be_invalidated(session, alice):
    record_messages(session, [{"role": "assistant", "content": "Created api/main.py."}])
    graphs.extract_session(session.pk)
    file_node = session.nodes.get(type="file")
    with pytest.raises(decisions.DecisionError):
        decisions.invalidate(file_node, "wrong", alice)
