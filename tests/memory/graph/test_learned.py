"""The learned lexicon: what it reads in a user's sentence, and how a likely fact lives in the graph.

The behaviour of a likely fact (never judged, never in force, confirmed by a rule) is driven by a
stand-in reading, so that it holds whatever weights the lexicon is trained to; the lexicon's own
readings are checked on sentences the rules do not read.
"""

from __future__ import annotations

import pytest

from memory.graph import extraction, learned
from memory.graph.pipeline import build_graph
from memory.graph.resume import render_tiers
from memory.graph.types import NodeType, Status, Turn


def test_features_are_words_pairs_and_how_early_the_sentence_is():
    assert learned.features("The rota is wrong", 7) == [
        "@turn3",
        "the",
        "rota",
        "is",
        "wrong",
        "the rota",
        "rota is",
        "is wrong",
    ]


@pytest.mark.parametrize("text", ["ok", "Thanks!", " ".join(["word"] * 41)])
def test_too_short_or_too_long_a_sentence_is_not_read(text):
    assert learned.stated(text) == frozenset()


def test_the_lexicon_reads_a_problem_told_in_plain_words():
    text = "The totals on the summary tab are a few cents off every month, no idea why."
    assert "errors" in learned.stated(text, 2)


def test_the_lexicon_reads_nothing_in_small_talk():
    assert learned.stated("Thanks, that's all for today, speak tomorrow.", 9) == frozenset()


READ = "The fridge door seems like the natural spot for the kitchen rota."


@pytest.fixture
def reads_decision(monkeypatch):
    """The lexicon reads a decision in ``READ`` and nothing anywhere else."""
    monkeypatch.setattr(
        learned, "stated", lambda text, position=0: frozenset({"decisions"} if text == READ else ())
    )


def _graph(*texts: str, role: str = "user"):
    turns = []
    for i, text in enumerate(texts):
        turns += [Turn(2 * i, role, text, float(2 * i)), Turn(2 * i + 1, "assistant", "Noted.")]
    return build_graph(turns)


def _decisions(graph):
    return {n.label: (n.status, n.learned) for n in graph.of_type(NodeType.DECISION)}


def test_a_likely_decision_is_kept_but_not_shown_in_force(reads_decision):
    graph = _graph(READ)
    assert list(_decisions(graph).values()) == [(Status.COMPLETED, True)]
    tiers = render_tiers(graph)
    assert tiers["standard"].in_force == ()
    assert "kitchen rota" not in tiers["standard"].text
    assert "Likely decisions (read from phrasing, unconfirmed):" in tiers["full"].text
    assert "kitchen rota" in tiers["full"].text


def test_only_a_users_sentence_is_read(reads_decision):
    assert _decisions(_graph(READ, role="assistant")) == {}


def test_a_likely_decision_replaces_nothing(reads_decision):
    graph = _graph("We're going with a paper rota in the hallway for the kitchen.", READ)
    assert sorted(_decisions(graph).values()) == [
        (Status.COMPLETED, False),
        (Status.COMPLETED, True),
    ]
    assert graph.transitions == []


def test_a_switch_away_from_a_likely_decision_confirms_and_replaces_it(reads_decision):
    graph = _graph(READ, "Switching from the fridge door to a shared calendar for the rota.")
    assert sorted(_decisions(graph).values()) == [
        (Status.COMPLETED, False),
        (Status.SUPERSEDED, False),
    ]
    (transition,) = graph.transitions
    assert transition.old_label.startswith("The fridge door seems like")


def test_a_rule_stating_a_likely_decision_confirms_it(reads_decision):
    graph = _graph(READ, "Decided: the fridge door is the natural spot for the kitchen rota.")
    ((label, (status, likely)),) = _decisions(graph).items()
    assert (status, likely) == (Status.COMPLETED, False)
    assert render_tiers(graph)["standard"].in_force == (label,)


def test_a_sentence_a_rule_reads_gets_no_second_reading(monkeypatch):
    """The rules read a finished task here; the lexicon, claiming a problem in every sentence, is
    not asked."""
    monkeypatch.setattr(learned, "stated", lambda text, position=0: frozenset({"errors"}))
    candidates = extraction.extract(
        [Turn(0, "user", "I fixed the upload handler in api/upload.py.")]
    )
    assert candidates and all(c.cue != learned.CUE for c in candidates)


@pytest.mark.parametrize(
    "text",
    [
        "Is the nightly export dropping the last row again?",
        "Maybe the cache is stale after the deploy.",
        "We haven't decided if the raw zone keeps event_date at all.",
        "The page got faster after the index on orders.",
    ],
)
def test_what_states_neither_a_decision_nor_a_problem_is_not_read(monkeypatch, text):
    monkeypatch.setattr(
        learned, "stated", lambda text, position=0: frozenset({"decisions", "errors"})
    )
    candidates = extraction.extract([Turn(0, "user", text)])
    assert [c for c in candidates if c.cue == learned.CUE] == []


def test_a_plain_sentence_no_rule_reads_is_read_once_for_each_kind(monkeypatch):
    monkeypatch.setattr(
        learned, "stated", lambda text, position=0: frozenset({"decisions", "errors"})
    )
    candidates = extraction.extract([Turn(0, "user", READ)])
    assert sorted((c.type, c.cue) for c in candidates) == [
        (NodeType.DECISION, learned.CUE),
        (NodeType.ERROR, learned.CUE),
    ]


WORK = "The old shelving is out and the new units are up along the back wall."


@pytest.fixture
def reads_work(monkeypatch):
    """The lexicon reads finished work in ``WORK``, work still to do in ``READ``."""
    kinds = {WORK: {"completed_tasks"}, READ: {"pending_tasks"}}
    monkeypatch.setattr(learned, "stated", lambda text, position=0: frozenset(kinds.get(text, ())))


def test_likely_work_is_kept_but_listed_apart_as_unconfirmed(reads_work):
    graph = _graph(WORK, READ)
    tasks = {n.label: (n.status, n.learned) for n in graph.of_type(NodeType.TASK)}
    assert sorted(tasks.values()) == [(Status.COMPLETED, True), (Status.PENDING, True)]
    tiers = render_tiers(graph)
    assert "shelving" not in tiers["standard"].text  # not under "Recently done:"
    assert "kitchen rota" not in tiers["standard"].text  # not under "Open tasks:"
    full = tiers["full"].text
    assert "Likely work (read from phrasing, unconfirmed):" in full
    assert "shelving" in full and "kitchen rota" in full


@pytest.mark.parametrize(
    "text",
    [
        "Please look at the shelving plan and tell me what needs to change.",  # asks the reply
        "What did the first fitting of the units show",  # a question without its mark
        "Here is the list of what the fitters did this morning:",  # a lead-in
    ],
)
def test_a_request_a_question_or_a_lead_in_is_no_likely_work(monkeypatch, text):
    monkeypatch.setattr(learned, "stated", lambda text, position=0: frozenset({"completed_tasks"}))
    candidates = extraction.extract([Turn(0, "user", text)])
    assert [c for c in candidates if c.cue == learned.CUE] == []
