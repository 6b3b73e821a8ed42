"""The cheap forms of the extraction regexes match what the plain forms match.

Guarded patterns match no text without one of their keywords; Folded patterns match where their
IGNORECASE form matches; lexicons, regrouped for speed, match where their alternatives match; the
token scan of paths finds the tokens the single look-behind regex found. Checked on the texts of
the repository's own corpora (the held-out corpus is never read) and on generated strings.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import memory.graph
from memory.graph import extraction, paths, phrases, words
from memory.graph.prefilter import Folded, Guarded

CORPORA = Path(__file__).resolve().parents[3] / "benchmarks" / "corpus"


@cache
def corpus_texts() -> tuple[str, ...]:
    """Lines and sentences of the own and tuning corpora, as written and lower-cased."""
    texts: set[str] = set()
    for folder in ("own", "tuning"):
        for path in sorted((CORPORA / folder).glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                continue
            for message in data.get("messages", []):
                content = message.get("content")
                if not isinstance(content, str):
                    continue
                for line in content.split("\n"):
                    pieces = [line, *words.sentences(line), *re.split(r",\s+|;\s+", line)]
                    texts.update(p for p in pieces if p.strip())
    return tuple(sorted(texts | {t.lower() for t in texts}))


def module_objects(kind: type) -> list[tuple[str, object]]:
    found = []
    for info in pkgutil.iter_modules(memory.graph.__path__):
        module = importlib.import_module(f"memory.graph.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, kind):
                found.append((f"{info.name}.{name}", value))
    return found


GUARDED = module_objects(Guarded)
FOLDED = module_objects(Folded)


def without_keywords(guarded: Guarded, text: str) -> str:
    """``text`` with every keyword of ``guarded`` broken up (a 'q' inside, or in its place)."""
    flags = re.IGNORECASE if guarded.lower else 0
    for _ in range(10):
        if not guarded.admits(text):
            return text
        for keyword in guarded.keywords:
            broken = "q" if len(keyword) == 1 else keyword[0] + "q" + keyword[1:]
            text = re.sub(re.escape(keyword), broken, text, flags=flags)
    raise AssertionError(f"keywords left in {text!r}")


def test_the_modules_hold_guarded_and_folded_patterns():
    assert len(GUARDED) >= 8 and len(FOLDED) >= 8


def test_no_guarded_pattern_matches_a_corpus_text_without_its_keywords():
    for name, guarded in GUARDED:
        for text in corpus_texts():
            if guarded.lower and not text.isascii():
                continue  # never filtered: the regex always runs
            if guarded.pattern.search(text):
                plain = without_keywords(guarded, text)
                assert not guarded.pattern.search(plain), (name, plain)
            elif not guarded.admits(text):
                assert not guarded.pattern.search(text), (name, text)


_WORDS = st.sampled_from(
    "is are 's on the our No use uses get gets wants because since given due reason: as it so "
    "that fixed resolved no more Error Exception catches handles raises error not problem "
    "issue bug returns 500 keep keeps crashing crash hangs working timing out times slipped "
    "dropped by from 3 ; , : - — and but I we it Bob The Jun x.py a/b".split()
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, max_size=12), st.sampled_from([" ", ", ", "  "]))
def test_no_guarded_pattern_matches_a_generated_text_without_its_keywords(chosen, joiner):
    text = joiner.join(chosen)
    for name, guarded in GUARDED:
        for variant in (text, text.lower()):
            if guarded.pattern.search(variant):
                assert guarded.admits(variant), (name, variant)


def test_environment_facts_and_routes_need_their_literals():
    for text in corpus_texts():
        if not extraction._DIGIT.search(text):
            assert not phrases.ENVIRONMENT.search(text), text
        if not paths._names_method(text):
            assert not paths._ENDPOINT.search(text), text
        if not paths._BARE_NAME.search(text):
            assert not paths._BARE.search(text), text


def swapped_case(text: str) -> str:
    return "".join(c.upper() if i % 3 else c.lower() for i, c in enumerate(text))


def test_folded_patterns_match_where_their_ignorecase_form_matches():
    for name, folded in FOLDED:
        for text in corpus_texts():
            for variant in (text, swapped_case(text)):
                expected = [m.span() for m in folded.any_case.finditer(variant)]
                assert [m.span() for m in folded.finditer(variant)] == expected, (name, variant)
                m = folded.any_case.match(variant)
                assert (m and m.span()) == (lambda f: f and f.span())(folded.match(variant))


def test_a_folded_pattern_is_written_in_lower_case():
    try:
        Folded(r"^Hello\b")
    except ValueError:
        pass
    else:
        raise AssertionError("an upper-case letter was accepted")
    assert Folded(r"\S+ world").search("HELLO WORLD").span() == (0, 11)  # escapes are fine


def test_branches_spread_a_leading_group_over_the_rest():
    assert phrases.branches(r"\b(?:is|are) next\b") == [r"is next\b", r"are next\b"]
    assert phrases.branches(r"(?:^|\b(?:we|i)\s+)use") == ["^use", r"we\s+use", r"i\s+use"]
    assert phrases.branches(r"(?:a|b)?c") == ["(?:a|b)?c"]  # an optional group stays whole
    assert phrases.branches(r"x[(|]y|z") == ["x[(|]y", "z"]  # a class is not a group


_TRIE_BRANCHES = ["then", "the", r"\w+ed", "than", "this", "t(?:o|oo)", "^th", "thus?", "a", ""]


def test_a_factored_alternation_matches_as_the_plain_one_does():
    factored = phrases._factored(_TRIE_BRANCHES)
    assert factored.startswith("the(?:n|)|")  # the openings are shared as a trie
    texts = ["then", "the", "that", "thanked", "this", "to", "thus", "a", "", "x", "thee", "th"]
    for text in texts:
        for pos in range(len(text) + 1):
            found = re.compile(factored).match(text, pos)
            expected = re.compile("|".join(_TRIE_BRANCHES)).match(text, pos)
            assert (found and found.span()) == (expected and expected.span()), (text, pos)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="abc", max_size=4), min_size=1, max_size=8), st.text("abc"))
def test_a_factored_alternation_of_any_words_matches_as_the_plain_one(words, text):
    factored, plain = re.compile(phrases._factored(words)), re.compile("|".join(words))
    for pos in range(len(text) + 1):
        found, expected = factored.match(text, pos), plain.match(text, pos)
        assert (found and found.span()) == (expected and expected.span())


def test_lexicons_match_where_their_alternatives_match():
    prefix = r"\b(?=[\w'(#,])(?:"
    for lexicon, alternatives in phrases.LEXICON_ALTERNATIVES.items():
        bare = (a[2:] if a.startswith(r"\b") else a for a in alternatives)
        plain = re.compile(prefix + phrases.alternation(*bare) + ")")
        for text in corpus_texts():
            found, expected = lexicon.search(text), plain.search(text)
            assert (found and found.start()) == (expected and expected.start()), text


def test_environment_facts_are_found_as_the_plain_alternation_finds_them():
    plain = re.compile(r"\b(?=[A-Z0-9kmnipy])(?:" + phrases._ENVIRONMENT_FACT + ")")
    texts = [
        *corpus_texts(),
        "Python 3.12 on an A100 with 80 GB",
        "RTX 4090, M2 Max, React Native 0.74",
    ]
    for text in texts:
        expected = [m.group(0) for m in plain.finditer(text)]
        assert [m.group(0) for m in phrases.ENVIRONMENT.finditer(text)] == expected, text


# The token scan as a single regex, tried at every position (the form it replaces).
_SEPARATED_ANYWHERE = re.compile(r"(?<!\S)[^\s/.\\]{0,300}[/.\\]\S{0,600}")


def separated(text: str) -> list[tuple[int, str]]:
    """The tokens the single regex finds whose separator is not closing punctuation ("done."):
    only a separator left when that is stripped can be a path's (see ``paths._paths_in``)."""
    return [
        (m.start(), m.group(0))
        for m in _SEPARATED_ANYWHERE.finditer(text)
        if any(sep in m.group(0).rstrip(paths._CLOSING) for sep in "/.\\")
    ]


def test_path_tokens_are_the_tokens_the_single_regex_finds():
    long_tokens = ["a" * 300 + ".x", "a" * 301 + ".x", " " + "a" * 9 + "/" + "b" * 700 + " c.d"]
    long_tokens += ["a." + ")" * 599 + "b", "a." + ")" * 600 + "b", "x.) e.g. done.", "a.)/b"]
    for text in [*corpus_texts(), *long_tokens]:
        assert list(paths._separated_tokens(text)) == separated(text), text


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=" \n\t\u2003/.\\ab),'", max_size=40))
def test_path_tokens_match_the_single_regex_on_generated_text(text):
    assert list(paths._separated_tokens(text)) == separated(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=" \n\t\r\u2003.!?ab", max_size=30))
def test_sentences_split_as_the_look_behind_regex_splits(text):
    plain = re.compile(r"(?<=[.!?])\s+|\n+")
    assert words._SENTENCE_END.split(text) == plain.split(text)
