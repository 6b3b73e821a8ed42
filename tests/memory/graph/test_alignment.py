"""Aligning resent histories with the stored transcript."""

from memory.graph.alignment import align


def test_a_longer_history_is_new_from_the_end_of_the_stored_one():
    assert align(["a", "b"], ["a", "b", "c"]).new_from == 2


def test_an_older_request_resent_adds_nothing_and_is_no_divergence():
    result = align(["a", "b", "c"], ["a", "b"])
    assert (result.new_from, result.diverged_at) == (2, None)


def test_a_repeated_message_at_a_new_position_is_new():
    assert align(["u", "a", "u"], ["u", "a", "u", "a", "u"]).new_from == 3


def test_an_edit_is_a_divergence_and_only_turns_after_the_last_stored_one_are_new():
    result = align(["s", "u1", "a1"], ["s", "u1-edited", "a1", "u2"])
    assert (result.new_from, result.diverged_at) == (3, 1)


def test_a_rewritten_history_without_the_last_stored_message_is_new_from_the_divergence():
    result = align(["s", "u1", "a1"], ["s", "x", "y"])
    assert (result.new_from, result.diverged_at) == (1, 1)


def test_a_client_that_keeps_its_own_version_of_each_reply_is_not_duplicated():
    # stored: the upstream's replies (r1); the client resends its own (c1) and goes on
    stored = ["s", "u1", "r1"]
    result = align(stored, ["s", "u1", "c1", "u2"])
    assert (result.new_from, result.diverged_at) == (2, 2)
    stored += ["c1", "u2", "r2"]
    assert align(stored, ["s", "u1", "c1", "u2", "c2", "u3"]).new_from == 4


def test_a_regenerated_reply_is_appended_once():
    stored = ["s", "u1", "r1"]
    assert align(stored, ["s", "u1"]).new_from == 2
    assert align(stored, ["s", "u1", "r1-again"]).new_from == 2
