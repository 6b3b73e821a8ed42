"""Phrasings that point at a fact rather than state it: "going with this: X", "keep it on the
list", "let's keep going on X", "look at X and tell me", and work asked for later as a question."""

from __future__ import annotations

import pytest

from memory.graph import extraction
from memory.graph.extraction import extract
from memory.graph.types import NodeType, Status, Turn


@pytest.fixture(autouse=True)
def strict_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extraction, "STRICT", True)


def labels(text: str, node_type: NodeType, role: str = "user") -> list[str]:
    turns = [Turn(0, "user", "Let's get going."), Turn(1, role, text)]
    return [c.label for c in extract(turns) if c.type == node_type]


@pytest.mark.parametrize(
    ("text", "decision"),
    [
        ("We're going with this: store orders in PostgreSQL 16 with one schema per tenant.",
         "store orders in PostgreSQL 16 with one schema per tenant"),
        ("We are going with this: nightly batches at 02:00 UTC.", "nightly batches at 02:00 UTC"),
        ("I'm going with that: the brewery upstairs on Dock Street.", "the brewery upstairs on Dock Street"),
    ],
)  # fmt: skip
def test_a_decision_announced_by_a_pointer_is_what_follows_the_colon(text, decision):
    assert labels(text, NodeType.DECISION) == [decision]


@pytest.mark.parametrize(
    "text",
    [
        "Let's keep going on src/orders/webhooks.py.",
        "Let's keep at it until the suite is green.",
        "Let's hold off on the gallery until launch; keep it on the list.",
        "Not this sprint, keep it on the backlog.",
    ],
)
def test_carrying_on_and_parking_work_are_no_decisions(text):
    assert labels(text, NodeType.DECISION) == []


@pytest.mark.parametrize(
    ("text", "decision"),
    [("Let's keep the cache in Redis.", "keep the cache in Redis"),
     ("We keep the old exporter for the audit team.", "keep the old exporter for the audit team")],
)  # fmt: skip
def test_keeping_something_is_still_a_decision(text, decision):
    assert labels(text, NodeType.DECISION) == [decision]


@pytest.mark.parametrize(
    "text",
    [
        "Please look at src/orders/emails.py and tell me what needs to change for the next step.",
        "Look into the retry logic and let me know what you find.",
        "Have a look at the flaky test and then explain what is going on.",
        "Put it on the list.",
    ],
)
def test_asking_to_be_told_or_pointing_at_the_list_is_no_task(text):
    assert labels(text, NodeType.TASK) == []


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("Can you also add retries to the inventory client when you get a chance?",
         "add retries to the inventory client"),
        ("Could you document the deploy steps later?", "document the deploy steps"),
        ("Would you translate the status names at some point, please?", "translate the status names"),
    ],
)  # fmt: skip
def test_work_asked_for_later_is_a_pending_task(text, task):
    turns = [Turn(0, "user", "Let's get going."), Turn(1, "user", text)]
    found = [(c.label, c.status) for c in extract(turns) if c.type == NodeType.TASK]
    assert found == [(task, Status.PENDING)]


@pytest.mark.parametrize(
    "text", ["Can you fix the flaky login test?", "Could you explain why the cache misses?"]
)
def test_a_question_for_now_is_no_tracked_task(text):
    assert labels(text, NodeType.TASK) == []


@pytest.mark.parametrize(
    ("text", "task"),
    [("Next we still need to compress the order export files.", "compress the order export files"),
     ("We still need to add tracing spans around the payment calls.", "add tracing spans around the payment calls")],
)  # fmt: skip
def test_a_pending_task_is_the_work_not_the_obligation(text, task):
    assert labels(text, NodeType.TASK, role="assistant") == [task]
