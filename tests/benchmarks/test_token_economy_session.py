"""The token-economy session generator: deterministic, sized, its labelled facts in the text."""

from statistics import mean

import pytest

from benchmarks.scoring import covers
from benchmarks.token_economy import (
    DECISIONS,
    REPLACEMENTS,
    SYSTEM_PROMPT,
    TASKS,
    generate_session,
    message_text,
    recall,
)
from memory.graph.tokens import count_messages


@pytest.fixture(scope="module")
def session():
    return generate_session()


def history_before(session, turn: int) -> list[dict]:
    """What the client sends at ``turn`` (1-based): the system prompt, earlier turns, its user turn."""
    messages = [{"role": "system", "content": SYSTEM_PROMPT}]
    for t in session[: turn - 1]:
        messages += [t.user, *t.replies]
    return [*messages, session[turn - 1].user]


def test_the_session_is_deterministic(session):
    assert generate_session() == session


def test_the_session_has_300_turns_of_about_950_tokens(session):
    per_turn = [count_messages([t.user, *t.replies]) - 3 for t in session]
    assert len(session) == 300
    assert 850 <= mean(per_turn) <= 1050
    assert all(any(m["role"] == "tool" for m in t.replies) for t in session)


def test_every_tool_call_is_answered_right_after_it(session):
    for t in session:
        call, *results, reply = t.replies
        assert [c["id"] for c in call["tool_calls"]] == [r["tool_call_id"] for r in results]
        assert reply["role"] == "assistant" and reply["content"]


def test_facts_are_stated_in_natural_phrasing(session):
    text = "\n".join(message_text(m) for t in session for m in (t.user, *t.replies))
    for phrase in (
        "Decided:",
        "going with",
        "Switched from",
        "TODO:",
        "Let's hold off on",
        "Done:",
    ):
        assert phrase in text


@pytest.mark.parametrize("turn", [100, 200, 300])
def test_labels_in_force_are_in_the_history_sent_at_that_turn(session, turn):
    labels = session[turn - 1]
    sent = history_before(session, turn)
    assert labels.decisions and labels.open_tasks
    assert recall(sent, labels.decisions)["recall"] == 1.0
    assert recall(sent, labels.open_tasks)["recall"] == 1.0


def test_replaced_decisions_leave_the_labels_in_force(session):
    last = session[-1].decisions
    by_topic = {topic: label for topic, label, _ in DECISIONS}
    for topic, (new, _, _) in REPLACEMENTS.items():
        assert new in last
        assert by_topic[topic] not in last


def test_a_replacement_never_covers_what_it_replaced():
    by_topic = {topic: label for topic, label, _ in DECISIONS}
    for topic, (new, _, _) in REPLACEMENTS.items():
        assert not covers(new, by_topic[topic]) and not covers(by_topic[topic], new)


def test_tasks_open_and_close_over_the_session(session):
    assert set(session[-1].open_tasks) < set(TASKS)
    assert len({task for t in session for task in t.open_tasks}) == len(TASKS)
