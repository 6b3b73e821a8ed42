"""Shortening text to a token limit: at word boundaries, never inside a word or a character."""

import pytest

from memory.graph import tokens
from memory.graph.budget import ELLIPSIS, LineCounter, shorten, word_boundary


@pytest.fixture(params=tokens.ENCODING_NAMES)
def count(request):
    return LineCounter(tokens.get_encoding(request.param))


def test_text_that_fits_is_returned_unchanged(count):
    assert shorten(count, "a short line", 10) == "a short line"


def test_long_text_is_cut_after_a_whole_word(count):
    text = " ".join(f"word{i}" for i in range(200))
    short = shorten(count, text, 20)
    assert count(short) <= 20 and short.endswith(ELLIPSIS)
    kept = short[: -len(ELLIPSIS)]
    assert text.startswith(kept) and text[len(kept)] == " "


def test_scripts_without_spaces_are_cut_between_characters(count):
    text = "数据库迁移已经完成并且所有测试都通过了" * 20
    short = shorten(count, text, 15)
    assert short is not None and count(short) <= 15
    assert text.startswith(short[: -len(ELLIPSIS)])


def test_a_single_giant_word_is_refused_rather_than_split(count):
    assert shorten(count, "- " + "x" * 2000, 20, floor=2) is None


def test_emoji_and_accents_are_never_split(count):
    text = "naïve café 🙂🙂🙂 " * 50
    short = shorten(count, text, 12)
    assert "\ufffd" not in short and text.startswith(short[: -len(ELLIPSIS)])


def test_word_boundaries_include_soft_punctuation():
    assert word_boundary("src/app/models.py", 9) == 8
    assert word_boundary("abcdef", 4) is None
    assert word_boundary("ab cd", 4, floor=3) is None


def test_line_counts_are_computed_once(count):
    count("hello world")
    count.enc = None  # any new encode would now fail
    assert count("hello world") == 2
