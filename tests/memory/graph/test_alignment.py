"""Aligning resent histories with the stored transcript."""

from memory.graph.alignment import ResentHistory, align


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


def test_a_resent_history_computes_only_what_differs_from_the_last_request():
    history = ResentHistory(size=2)
    computed = []

    def size(message):
        computed.append(message["content"])
        return len(message["content"])

    first = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi there"}]
    assert history.values("c", first, size) == [5, 8]
    resent = [dict(m) for m in first] + [{"role": "user", "content": "run it"}]
    assert history.values("c", resent, size) == [5, 8, 6]
    assert computed == ["hello", "hi there", "run it"]  # the resent two were not computed again
    resent[0]["content"] = "hello, edited"  # a client editing its history after the fact
    assert history.values("c", resent, size) == [13, 8, 6]  # everything after an edit is anew
    assert computed[-3:] == ["hello, edited", "hi there", "run it"]
    history.values("d", first, size)
    history.values("e", first, size)  # beyond its size, the least recent conversation goes
    computed.clear()
    history.values("c", resent, size)
    assert len(computed) == 3
