"""The protocol's matching rules, P/R/F1, aggregates, bootstrap and label quality."""

import pytest

from benchmarks.scoring import (
    bootstrap_ci,
    content_words,
    covers,
    is_cut,
    label_quality,
    macro,
    macro_by,
    micro,
    miss_kinds,
    near_duplicates,
    score_category,
    score_session,
    spans_sentences,
    total_miss_kinds,
)


def test_path_gives_itself_and_its_pieces():
    assert content_words("api/auth.py") == {"api/auth.py", "api", "auth", "py"}


def test_stop_words_and_one_character_words_are_dropped():
    assert content_words("We chose a DB for the auth of X") == {"chose", "db", "auth"}


def test_runs_start_with_letter_or_digit_and_keep_inner_marks():
    assert content_words("(dns-01) v2_api: 422!") == {"dns-01", "v2_api", "422"}


def test_six_character_item_covers_as_case_insensitive_substring():
    assert covers("We finally settled on POSTGRESQL 16 here", "PostgreSQL")


def test_short_item_needs_its_words_not_a_substring():
    assert not covers("the jwtoken helper", "JWT")
    assert covers("Decided: JWT", "JWT")


def test_sixty_percent_of_the_item_words_cover():
    item = "bcrypt for password hashing rounds"  # bcrypt, password, hashing, rounds
    assert covers("hashing password with bcrypt", item)  # 3/4
    assert not covers("bcrypt password", item)  # 2/4


def test_denominator_is_the_ground_truth_item():
    giant = "bcrypt " + " ".join(f"word{i}" for i in range(50))
    assert covers(giant, "bcrypt")
    assert not covers("bcrypt", "bcrypt password hashing rounds")


def test_item_without_content_words_is_covered_only_by_substring():
    assert not covers("a b c", "a")


def test_empty_categories_score_one_and_are_not_scored():
    s = score_category([], [])
    assert (s["precision"], s["recall"], s["scored"]) == (1.0, 1.0, False)


def test_output_without_ground_truth_is_all_spurious():
    s = score_category(["Redis cache"], [])
    assert (s["precision"], s["recall"], s["f1"]) == (0.0, 1.0, 0.0)
    assert s["spurious"] == ["Redis cache"]


def test_ground_truth_without_output_is_all_missed():
    s = score_category([], ["api/auth.py"])
    assert (s["precision"], s["recall"], s["f1"]) == (1.0, 0.0, 0.0)
    assert s["misses"] == ["api/auth.py"]


def test_precision_and_recall_count_labels_and_items():
    s = score_category(["api/auth.py", "api/models.py", "README"], ["api/auth.py", "config.py"])
    assert s["recall"] == 0.5
    assert s["precision"] == pytest.approx(1 / 3)  # api/models.py holds 2 of api/auth.py's 4 words
    assert s["misses"] == ["config.py"]
    assert s["spurious"] == ["api/models.py", "README"]


def test_session_macro_ignores_unscored_categories():
    gt = {"files": ["api/auth.py"], "decisions": ["JWT"], "errors": []}
    out = score_session({"files": ["edited api/auth.py"], "decisions": []}, gt)
    assert out["macro_f1"] == pytest.approx(0.5)  # files 1.0, decisions 0.0; three unscored
    assert out["misses"] == {"decisions": ["JWT"]}
    assert out["spurious"] == {}


def test_session_with_nothing_scored_has_no_macro():
    assert score_session({}, {})["macro_f1"] is None


def test_corpus_macro_is_mean_over_sessions():
    sessions = [{"macro_f1": 1.0}, {"macro_f1": 0.5}, {"macro_f1": None}]
    assert macro(sessions) == pytest.approx(0.75)


def test_macro_by_register_groups_missing_as_unspecified():
    sessions = [
        {"macro_f1": 1.0, "register": "explicit"},
        {"macro_f1": 0.0, "register": None},
    ]
    assert macro_by(sessions, "register") == {"explicit": 1.0, "unspecified": 0.0}


def test_micro_pools_counts_across_sessions():
    a = score_session({"files": ["x/a.py"]}, {"files": ["x/a.py", "x/b.py"]})
    b = score_session({"files": ["x/c.py", "zzz"]}, {"files": ["x/c.py"]})
    files = micro([a, b])["files"]
    assert files["recall"] == pytest.approx(2 / 3)
    assert files["precision"] == pytest.approx(2 / 3)


def test_bootstrap_is_deterministic_and_brackets_the_mean():
    values = [0.1, 0.4, 0.5, 0.9, 0.7, 0.3]
    first, second = bootstrap_ci(values), bootstrap_ci(values)
    assert first == second
    assert first[0] <= sum(values) / len(values) <= first[1]


def test_bootstrap_of_constant_values_is_a_point():
    assert bootstrap_ci([0.6] * 5) == [pytest.approx(0.6), pytest.approx(0.6)]


def test_label_cut_mid_word_is_detected_from_the_transcript():
    source = (
        "We moved the nightly export job onto the shared worker pool because of memory pressure."
    )
    assert is_cut(source[:75], source)  # "...because of mem"
    assert not is_cut(source[:70], source)  # "...because of" ends on a word
    assert not is_cut(source, source)
    assert is_cut("x" * 58 + "...", "")  # an ellipsis the transcript does not hold
    assert not is_cut("x" * 58 + "...", "x" * 58 + "...")  # one it does
    assert not is_cut("short label", "short labels")  # under 60 characters


def test_label_spanning_a_sentence_boundary():
    assert spans_sentences("Fixed the import. Next we add tests")
    assert not spans_sentences("use api/auth.py for e.g. login")


def test_near_duplicates_use_the_smaller_label():
    assert near_duplicates(["Redis cache", "Redis cache for sessions", "bcrypt"]) == 1


def test_label_quality_summary():
    q = label_quality([({"files": ["a.py", "a.py"], "decisions": ["JWT"]}, "a.py JWT")])
    assert q["labels"] == 3
    assert q["near_duplicate_pairs"] == 1
    assert q["mean_label_chars"] == pytest.approx(11 / 3)


MESSAGES = [
    {"role": "user", "content": "The nightly export keeps dropping the last row. Can you look?"},
    {"role": "assistant", "content": "Found it.\nWe will cache rates in Redis from now on."},
]


def test_misses_are_told_apart_by_where_the_item_is():
    misses = {
        "errors": ["export keeps dropping the last row", "login page shows a blank screen"],
        "decisions": ["cache rates in Redis", "export runs nightly"],
    }
    extracted = {"completed_tasks": ["Found the export dropping the last row"], "decisions": []}
    kinds = miss_kinds(misses, extracted, MESSAGES)
    # Another category's label covers the first error; nothing in the transcript holds the second.
    assert kinds["errors"] == {
        "mistyped": 1,
        "in_user_sentence": 0,
        "in_assistant_sentence": 0,
        "paraphrased": 1,
    }
    # An assistant sentence holds the choice; the user's first sentence covers "export runs
    # nightly" by the protocol's relation (two of its three content words), as a label would.
    assert kinds["decisions"]["in_assistant_sentence"] == 1
    assert kinds["decisions"]["in_user_sentence"] == 1


def test_miss_kinds_add_up_over_a_corpus():
    one = {
        "errors": {
            "mistyped": 1,
            "in_user_sentence": 2,
            "in_assistant_sentence": 0,
            "paraphrased": 0,
        }
    }
    two = {
        "errors": {
            "mistyped": 0,
            "in_user_sentence": 1,
            "in_assistant_sentence": 3,
            "paraphrased": 1,
        }
    }
    totals = total_miss_kinds([one, two])
    assert totals["errors"] == {
        "mistyped": 1,
        "in_user_sentence": 3,
        "in_assistant_sentence": 3,
        "paraphrased": 1,
    }
    assert totals["decisions"] == dict.fromkeys(totals["decisions"], 0)
