"""The fast paths of extraction give what the slow paths they replace give.

ASCII twins match ASCII text as their Unicode originals do; regexes rewritten to open with a
class split and match as their plain forms; first-character and block-level tests reject only
what the regexes they guard would reject. Checked on the texts of the repository's own corpora
(the held-out corpus is never read) and on generated strings.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.graph import (
    clauses,
    contradictions,
    decisions,
    extraction,
    failures,
    labels,
    lifecycle,
    markers,
    paths,
    phrases,
    sentences,
    speakers,
    validator,
    words,
)
from memory.graph.contradictions import Statement
from memory.graph.prefilter import Folded, Guarded, Twin, ascii_twin
from memory.graph.types import Candidate, Evidence, NodeType, Status
from tests.memory.graph.test_prefilter import corpus_texts, module_objects, swapped_case

TWINS = [(name, t.pattern, t.ascii) for name, t in module_objects(Twin)]
TWINS += [
    (name, g.pattern.pattern, g.pattern.ascii)
    for name, g in module_objects(Guarded)
    if isinstance(g.pattern, Twin)
]
# A Folded pattern's cased form is the ASCII twin of the pattern it was written as.
TWINS += [(name, re.compile(f.any_case.pattern), f.cased) for name, f in module_objects(Folded)]

# ASCII with the characters where ASCII and Unicode classes could part: the separators
# \x1c-\x1f that Unicode \s holds, other control characters, digits, '_' and punctuation.
_ASCII = st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x01_aZk9.,;:-'/\\()", max_size=30)


def ascii_corpus_texts() -> list[str]:
    return [t for t in corpus_texts() if t.isascii()]


def same_matches(a: re.Pattern[str], b: re.Pattern[str], text: str) -> bool:
    spans = [m.span() for m in a.finditer(text)] == [m.span() for m in b.finditer(text)]
    first = (lambda m: m and (m.span(), m.groups()))(a.match(text)) == (
        lambda m: m and (m.span(), m.groups())
    )(b.match(text))
    return spans and first


def test_the_modules_hold_twins():
    assert len(TWINS) >= 30


def test_ascii_twins_match_corpus_texts_as_their_originals():
    texts = ascii_corpus_texts()
    for name, original, twin in TWINS:
        for text in texts:
            assert same_matches(original, twin, text), (name, text)


@settings(max_examples=200, deadline=None)
@given(_ASCII)
def test_ascii_twins_match_generated_ascii_as_their_originals(text):
    for name, original, twin in TWINS:
        assert same_matches(original, twin, text), (name, text)


def test_an_ascii_twin_keeps_the_separators_in_its_spaces():
    twin = ascii_twin(re.compile(r"a\sb|[^\s/]+|[]\s]x"))
    assert twin.pattern == r"a[\s\x1c-\x1f]b|[^\s\x1c-\x1f/]+|[]\s\x1c-\x1f]x"
    assert twin.flags & re.ASCII
    assert twin.fullmatch("a\x1cb") and re.fullmatch(r"a\sb", "a\x1cb")
    assert ascii_twin(re.compile(r"\\s")).pattern == r"\\s"  # an escaped backslash, then 's'
    with pytest.raises(ValueError):
        ascii_twin(re.compile(r"[\S]"))


def test_a_twin_reads_non_ascii_text_with_the_unicode_pattern():
    twin = Twin(re.compile(r"\w+"))
    assert twin.search("café").group(0) == "café"
    assert twin.search("cafe").group(0) == "cafe"


# --- regexes written to open with a class ----------------------------------------------------

# The clause boundary as it was written before it opened with a class (the form it replaces).
_PLAIN_CLAUSE_BREAK = re.compile(
    r";\s+"
    r"|\s+(?:;\s+|[—–]\s+|--?\s+"
    r"|and\s+(?=(?:I|I'm|I've|I'll|we|we're|we'll|it|it's|they|that's|then|now|so|there's|this)\b)"
    r"|but\s+"
    r"|and\s+(?=(?:\w+\s+){1,2}(?:crashed|failed|broke|hung|threw|died|stopped)\b)"
    r"|and\s+(?=(?:\w+\s+){2,3}(?:also\s+|still\s+)?(?:fails|crashes|breaks|hangs|freezes|dies|"
    r"throws|times out)\b)"
    r"|and\s+(?=(?:" + sentences._PAST + r")\b)"
    r"|and\s+(?=" + sentences._DID_OBJECT + r"))"
    r"|,\s+(?:(?=(?:" + sentences._PAST + r")\s)"
    r"|(?=" + sentences._DID_OBJECT + r")"
    r"|(?=(?:so|but|then|and|which|although|though|while|whereas|plus|yet|because|since"
    r"|turns out|it turns out"
    r"|I|I'm|I've|I'll|I'd|i'm|i've|i'll|i'd|we|we're|we've|we'll|it|it's|they|that's|this"
    r"|there's|he|she|now|also|otherwise|waiting|still waiting)\b)"
    r"|but\s+"
    r"|(?=[A-Z][a-z]+ (?:is|will|has|'s|can|says)\b))"
    r"|:(?<=\w\w:)(?<!Error:)(?<!Exception:)\s+(?![\w.-]*\d)(?=\S)"
)
_PLAIN_FORMS = [
    (sentences._CLAUSE_BREAK, _PLAIN_CLAUSE_BREAK),
    (sentences._AND_THE, re.compile(sentences._AND_THE.pattern.replace(r"\s\s*and", r"\s+and"))),
    (
        labels._TRAILING_WORD.any_case,
        re.compile(labels._TRAILING_WORD.any_case.pattern.replace(r"\s\s*", r"\s+", 1), re.I),
    ),
]
_CLAUSE_WORDS = st.sampled_from(
    "and but ; , : - -- — I we it the then so fixed crashed every event fails Bob is 3 x:".split()
)


def test_the_forms_opening_with_a_class_split_as_the_plain_forms():
    assert len(_PLAIN_FORMS[1][1].pattern) == len(sentences._AND_THE.pattern) - 2
    for fast, plain in _PLAIN_FORMS:
        for text in [*corpus_texts(), "a ;  b", "x  and  we", "so:  it", "end, —"]:
            assert fast.split(text) == plain.split(text), (plain.pattern[:30], text)
            assert (lambda m: m and m.span())(fast.search(text)) == (lambda m: m and m.span())(
                plain.search(text)
            )


@settings(max_examples=300, deadline=None)
@given(st.lists(_CLAUSE_WORDS, max_size=10), st.sampled_from([" ", "  ", ", ", "\t", ": "]))
def test_the_forms_opening_with_a_class_split_generated_text_alike(chosen, joiner):
    text = joiner.join(chosen)
    for fast, plain in _PLAIN_FORMS:
        assert fast.split(text) == plain.split(text), (plain.pattern[:30], text)


# The trailing punctuation as a regex strips it (the form ``labels._without_trailing_punct`` replaces).
_PLAIN_TRAILING_PUNCT = re.compile(r"[\s,;:.!?\-—–]+$")


def test_trailing_punctuation_is_stripped_as_the_regex_strips_it():
    for text in [*corpus_texts(), "done.\n", "ok ,;\u2003", "x -\n", "a.\nb", "\x1c", "—", ""]:
        assert labels._without_trailing_punct(text) == _PLAIN_TRAILING_PUNCT.sub("", text), text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=" \t\n\u2003\x1c,;:.!?-—–ab", max_size=12))
def test_trailing_punctuation_of_generated_text_is_stripped_as_the_regex_strips_it(text):
    assert labels._without_trailing_punct(text) == _PLAIN_TRAILING_PUNCT.sub("", text)


def test_every_quoted_name_holds_the_end_scanned_for_before_it():
    texts = [*corpus_texts(), "open 'Q3 Forecast.xlsx' now", "it's in “Read Me.md”", "a 'b.c"]
    for text in texts:
        for m in paths._QUOTED_NAME.finditer(text):
            assert paths._QUOTED_NAME_END.search(m.group(0)), text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="\"'`“‘”’ .,(ab1_xlsx", max_size=16))
def test_every_quoted_name_in_generated_text_holds_the_end(text):
    for m in paths._QUOTED_NAME.finditer(text):
        assert paths._QUOTED_NAME_END.search(m.group(0))


def test_a_digit_is_told_as_the_regex_tells_it():
    for text in [*corpus_texts(), "v3", "٣ arabic three", "no digit", "", "²"]:
        assert extraction._holds_digit(text) == bool(extraction._DIGIT.search(text)), text


# --- first characters and block-level tests -------------------------------------------------

_TABLE, _QUOTE = re.compile(r"^\s*\|"), re.compile(r"^\s*>")
_LINES = st.text(alphabet=" \t\u2003`~|>#*-+•1.)ab\n", max_size=12)


def line_kinds_by_mark(line: str) -> tuple:
    stripped = line.lstrip()
    mark = stripped[:1]
    return (
        bool(mark in sentences._FENCE_MARKS and sentences._FENCE.match(line)),
        not stripped or mark in sentences._TABLE_OR_QUOTE_MARKS,
        bool(mark in sentences._HEADING_MARKS and sentences._HEADING.match(line)),
        bool(
            (mark in sentences._BULLET_MARKS or mark.isdecimal()) and sentences._BULLET.match(line)
        ),
    )


def line_kinds_by_regex(line: str) -> tuple:
    return (
        bool(sentences._FENCE.match(line)),
        bool(_TABLE.match(line) or _QUOTE.match(line) or not line.strip()),
        bool(sentences._HEADING.match(line)),
        bool(sentences._BULLET.match(line)),
    )


def test_a_line_is_told_by_its_first_character_as_by_the_line_patterns():
    for text in [*corpus_texts(), "  ```py", "\u2003> q", "١. item", "**Next**"]:
        for line in text.split("\n"):
            assert line_kinds_by_mark(line) == line_kinds_by_regex(line), line


@settings(max_examples=500, deadline=None)
@given(_LINES)
def test_a_generated_line_is_told_by_its_first_character_alike(line):
    assert line_kinds_by_mark(line) == line_kinds_by_regex(line)


# The capitalised-word scan as it was written before the look-behind moved into the regex.
_CAPITALISED = re.compile(r"[A-Z][a-z]{2,}\b")


def names_by_filter(text: str) -> frozenset[str]:
    return frozenset(
        m.group(0)
        for m in _CAPITALISED.finditer(text)
        if m.start() >= 2
        and text[m.start() - 1] == " "
        and text[m.start() - 2] in "abcdefghijklmnopqrstuvwxyz,;("
    )


def test_proper_names_are_the_ones_the_filtered_scan_finds():
    for text in [*corpus_texts(), "Room,  Room; Room (Room xRoom a Roomy A Room3 é Room"]:
        assert words.proper_names.__wrapped__(text) == names_by_filter(text), text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=" a,;(.Roomé3_", max_size=30))
def test_proper_names_of_generated_text_are_the_filtered_ones(text):
    assert words.proper_names.__wrapped__(text) == names_by_filter(text)


def from_code_line_by_line(block: list[str]) -> list[tuple[str, str]]:
    """``failures.from_code`` without its block-level keyword tests (the form they replace)."""
    findings = [
        (m.group(1).strip(), line.strip())
        for line in block
        if (m := failures._FINDING_LINE.match(line) or failures._FAILED_CHECK.match(line))
    ]
    if findings:
        return findings[: failures.MAX_FINDINGS]
    return failures._strongest(block)


def test_code_blocks_report_the_failures_the_line_by_line_scan_reports():
    blocks = [text.split("\n") for text in corpus_texts()]
    blocks += [
        ["serious: Form elements must have labels (label) - 6 nodes", "ok"],
        ["Traceback (most recent call last):", "ValueError: bad input"],
        ["could", "not connect"],
        ["all good"],
    ]
    for block in blocks:
        assert failures.from_code(block) == from_code_line_by_line(block), block


def test_in_code_a_token_without_a_directory_names_no_path():
    tokens = {token for text in corpus_texts() for _, token in paths._separated_tokens(text)}
    tokens |= {"app.py", "./app.py", "a.b.c", "~.yml", ".env", "Dockerfile.prod"}
    for token in tokens:
        if "/" in token or "\\" in token:
            continue
        candidates = [paths.clean_path(m.group(0)) for m in paths._CANDIDATE.finditer(token)]
        assert not any(paths.is_path(c, in_code=True) for c in candidates), token
        assert paths._paths_in(token, True) == [], token


def kind_by_scan(word: str) -> str:
    """``markers.kind_of`` scanning the marker lists in order (the form the index replaces)."""
    key = " ".join(word.lower().replace("’", "'").split())
    key = markers._POINTER.sub("", markers._SUBJECT.sub("", key))
    for kind, listed in phrases.MARKERS.items():
        if key in listed:
            return kind
    return "decision" if key.split(" ", 1)[0] in ("decided", "decision") else ""


def test_marker_kinds_are_the_first_listed():
    marker_words = [w for listed in phrases.MARKERS.values() for w in listed]
    for word in [*marker_words, "We're going with this", "Decided yesterday", "Nope", ""]:
        assert markers.kind_of(word) == kind_by_scan(word), word


def test_a_guarded_search_finds_what_admits_then_search_finds():
    for name, guarded in module_objects(Guarded):
        for text in corpus_texts()[:3000]:
            expected = guarded.pattern.search(text) if guarded.admits(text) else None
            found = guarded.search(text)
            assert (found and found.span()) == (expected and expected.span()), (name, text)


# Runs made possessive in the decision lexicon, each beside the form it was written as.
_POSSESSIVE_FORMS = [
    (
        r"^(?:(?:ok|okay|right|fine|alright|so|yeah|yes)[,.!]? )?[\w.-]++(?: [\w.-]++){0,2} "
        r"then(?:[.!,]|$)",
        r"^(?:(?:ok|okay|right|fine|alright|so|yeah|yes)[,.!]? )?[\w.-]+(?: [\w.-]+){0,2} "
        r"then(?:[.!,]|$)",
    ),
    (r"^[\w.-]++(?: [\w.-]++){0,2} first\.?$", r"^[\w.-]+(?: [\w.-]+){0,2} first\.?$"),
    (
        r"^[\w .+/-]{2,40}+, (?:good|great) (?:call|idea|choice)\b",
        r"^[\w .+/-]{2,40}, (?:good|great) (?:call|idea|choice)\b",
    ),
]


def test_the_possessive_runs_are_in_the_decision_lexicon():
    alternatives = phrases.LEXICON_ALTERNATIVES[phrases.DECISION]
    assert all(fast in alternatives for fast, _ in _POSSESSIVE_FORMS)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab.- ,then firstgoodcall", max_size=50))
def test_possessive_runs_match_as_the_plain_ones(text):
    for fast, plain in _POSSESSIVE_FORMS:
        found, expected = re.match(fast, text), re.match(plain, text)
        assert (found and found.span()) == (expected and expected.span()), (plain, text)


def test_possessive_runs_match_corpus_texts_as_the_plain_ones():
    texts = [
        *corpus_texts(),
        "postgres then",
        "a b c then.",
        "a b c d then",
        "x" * 41 + ", good call",
    ]
    for fast, plain in _POSSESSIVE_FORMS:
        for text in texts:
            found, expected = re.match(fast, text), re.match(plain, text)
            assert (found and found.span()) == (expected and expected.span()), (plain, text)


# Patterns rewritten for speed, each beside the form it was written as.
_REWRITTEN = [
    (markers._SEMICOLONS, re.compile(r"\s*;\s*")),
    (markers._LIST_SPLIT, re.compile(r"\s*;\s*|,\s+(?:and\s+)?|\s+and\s+(?=[A-Z/])")),
    (decisions._ASIDE, re.compile(r"\s+(?:—|–|--?)\s+(.+)$|\s+\(([^)]+)\)\s*\.?$")),
    (
        clauses._SUBJECT_DONE_VERB,
        re.compile(
            r"^(?:\S+\s+){0,3}?(?:i|we)(?:'ve| have)?\s+(?:also\s+|just\s+)?([a-z]+)\b(.*)$",
            re.IGNORECASE,
        ),
    ),
]


def same_everywhere(fast: re.Pattern[str], plain: re.Pattern[str], text: str) -> bool:
    found = [(m.span(), m.groups()) for m in fast.finditer(text)]
    return found == [(m.span(), m.groups()) for m in plain.finditer(text)] and (
        fast.split(text) == plain.split(text)
    )


def test_rewritten_patterns_match_corpus_texts_as_written():
    for fast, plain in _REWRITTEN:
        for text in [*corpus_texts(), "a ;b", "x ,  and Y", "We  also added it", "X — y (z)."]:
            assert same_everywhere(fast, plain, text), (plain.pattern, text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=" \t;,()—-.aAndwe'vI/", max_size=30))
def test_rewritten_patterns_match_generated_text_as_written(text):
    for fast, plain in _REWRITTEN:
        assert same_everywhere(fast, plain, text), (plain.pattern, text)


def test_grouped_openings_strip_what_the_plain_alternations_strip():
    plain = phrases.alternation
    forms = [
        (
            labels._FILLER,
            r"^(?:(?:(?:" + plain(*phrases.LEADING_FILLER) + r")\b[\s,.!:;-]*)|"
            r"(?:(?:" + plain(*phrases.LEADING_INTERJECTION) + r")(?:[,.!:;-]+\s*|$)))+",
        ),
        (labels._DISCOURSE, r"^(?:(?:" + plain(*phrases.LEADING_FILLER) + r")\b[\s,.!:;-]*)+"),
        (
            labels._SUBJECT,
            r"^(?:" + plain(*phrases.LEADING_SUBJECT) + r")\s+(?:(?:also|just|then|now|finally|"
            r"already|only|actually)\s+)?",
        ),
    ]
    texts = [*corpus_texts(), "ok so then, we'll also do it", "I, fine. Sure: yes", "i've i"]
    for grouped, source in forms:
        written = re.compile(source, re.IGNORECASE)
        for text in texts:
            found, expected = grouped.match(text), written.match(text)
            assert (found and found.span()) == (expected and expected.span()), (source[:40], text)


# --- set and iterator forms of per-word loops ------------------------------------------------

# Words of every kind the topic and value scans tell apart: generic ones, numbers, identifiers,
# versions, capitalised names, single letters, and non-ASCII words and punctuation.
_LABEL_WORDS = st.sampled_from(
    "the use using Postgres postgres order_id 42 7 v1.2 x HTTP-01 read-only Recall@20 a/b.py "
    "caching cached routes router café Ärger naïve — “quoted” ß İstanbul ﬁle 3.12 A100 gRPC "
    "kept it's we'll I".split()
)
_LABELS = st.lists(_LABEL_WORDS, max_size=10).map(" ".join)


def plain_topic(text: str) -> set[str]:
    return {
        words.stem(atom)
        for atom in words._ATOM.findall(text.lower())
        if len(atom) > 1 and atom not in words.GENERIC and not atom.isdigit()
    }


def plain_values(text: str) -> frozenset[str]:
    tokens = words.raw_tokens(text)
    out = {t.lower() for t in tokens if words.is_value(t)}
    capitalised = [t for t in tokens if t[:1].isupper() and t[1:].islower()]
    if capitalised:
        known = words.proper_names(text)
        out |= {t.lower() for t in capitalised if t in known}
    return frozenset(out)


@settings(max_examples=400, deadline=None)
@given(_LABELS)
def test_topic_and_values_are_the_ones_the_plain_loops_give(text):
    assert words._topic_of(text) == plain_topic(text)
    assert words.values.__wrapped__(text) == plain_values(text)


def test_topic_and_values_of_corpus_texts_are_the_ones_the_plain_loops_give():
    for text in corpus_texts():
        assert words._topic_of(text) == plain_topic(text), text
        assert words.values.__wrapped__(text) == plain_values(text), text


def plain_split_finite(part: str, boundary: re.Pattern[str], joiner: str) -> list[str]:
    pieces = boundary.split(part)
    merged = [pieces[0]]
    for piece in pieces[1:]:
        low = piece.lower()
        finite = sentences._FINITE.search
        if finite(low) and finite(merged[-1].lower()) and len(piece.split()) >= 3:
            merged.append(piece)
        else:
            merged[-1] = f"{merged[-1]}{joiner}{piece}"
    return [p.strip() for p in merged if p.strip()]


_SPLITS = ((sentences._AND_THE, " and "), (sentences._COMMA, ", "))
_CLAUSE_WORDS = st.sampled_from(
    "the upload works and download is still TODO , ; Ärger — it was fine band sand and, "
    "Bob is done the cache has the café is open".split()
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_CLAUSE_WORDS, max_size=14), st.sampled_from([" ", "  ", "\t", "\u00a0"]))
def test_a_part_without_the_joiner_splits_as_the_plain_form(chosen, space):
    part = space.join(chosen)
    for boundary, joiner in _SPLITS:
        assert sentences._split_finite(part, boundary, joiner) == plain_split_finite(
            part, boundary, joiner
        ), (part, joiner)


def test_corpus_parts_split_as_the_plain_form():
    for text in corpus_texts():
        for boundary, joiner in _SPLITS:
            expected = plain_split_finite(text, boundary, joiner)
            assert sentences._split_finite(text, boundary, joiner) == expected, text


def plain_shape_match(a: Statement, b: Statement) -> bool:
    for x in a.values - b.values:
        sx = words.shape(x)
        if not (any(c in sx for c in "@-:_.") and "a" in sx and "0" in sx):
            continue
        if any(words.shape(y) == sx for y in b.values - a.values):
            return True
    return False


@settings(max_examples=400, deadline=None)
@given(_LABELS, _LABELS)
def test_shapes_of_values_match_as_the_plain_loop_finds(label_a, label_b):
    a, b = Statement(label_a, label_a, 0), Statement(label_b, label_b, 1)
    assert contradictions._shape_match(a, b) == plain_shape_match(a, b)
    assert contradictions._shape_match(b, a) == plain_shape_match(b, a)


def test_shapes_of_corpus_values_match_as_the_plain_loop_finds():
    texts = [t for t in corpus_texts() if len(t) < 120][:400]
    statements = [Statement(t, t, i) for i, t in enumerate(texts)]
    for a, b in zip(statements, statements[1:] + statements[:1], strict=True):
        assert contradictions._shape_match(a, b) == plain_shape_match(a, b), (a.label, b.label)


@settings(max_examples=200, deadline=None)
@given(
    _LABELS,
    st.sampled_from(list(NodeType)),
    st.sampled_from(list(Status)),
    st.floats(0, 1),
    st.sampled_from(["", "path", "done", "instruction"]),
)
def test_a_checked_candidate_is_the_copy_replace_makes(label, node_type, status, conf, cue):
    c = Candidate(node_type, f" {label} ", status, conf, Evidence(3, label), "why", "old", "", cue)
    expected = dataclasses.replace(
        c, type=validator._corrected_type(c), label=validator._bounded(c.label.strip())
    )
    if expected.label:
        expected.confidence = round(validator._confidence(expected), 3)
    checked = validator._check(c)
    assert checked == (expected if c.label.strip() else None)
    assert checked is not c


# --- substring tests before the regexes that need their characters --------------------------

_PROSE_WORDS = st.sampled_from(
    "we fixed it and then , ; : - — – but band TypeError: error[E0382]: `x` ok . ? ! e.g. "
    "you your you're yours youth bayou YOU'LL Ärger — “quoted” naïve café Dockerfile "
    "Makefile src/a.py a b".split()
)
_PROSE = st.lists(_PROSE_WORDS, max_size=14).map(" ".join)


def plain_split_clauses(sentence: str) -> list[str]:
    out: list[str] = []
    for part in sentences._CLAUSE_BREAK.split(sentence):
        part = part.strip() if part else ""
        if part:
            for piece in plain_split_finite(part, sentences._AND_THE, " and "):
                out.extend(plain_split_finite(piece, sentences._COMMA, ", "))
    return out


@settings(max_examples=400, deadline=None)
@given(_PROSE)
def test_clauses_and_sentences_split_as_without_the_substring_tests(text):
    assert sentences.split_clauses(text) == plain_split_clauses(text)
    if not any(mark in text for mark in sentences._BREAK_MARKS):
        assert sentences._CLAUSE_BREAK.split(text) == [text]
    if not any(mark in text for mark in sentences._END_MARKS):
        assert sentences._SENTENCE_END.search(text) is None


def test_corpus_clauses_split_as_without_the_substring_tests():
    for text in corpus_texts():
        assert sentences.split_clauses(text) == plain_split_clauses(text), text
        if not any(mark in text for mark in sentences._END_MARKS):
            assert sentences._SENTENCE_END.search(text) is None, text


@settings(max_examples=400, deadline=None)
@given(_PROSE)
def test_the_regexes_after_a_substring_test_need_its_characters(text):
    for variant in (text, text.replace("`", "'"), text.lower()):
        if "`" not in variant:
            assert not extraction._INLINE_CODE.search(variant), variant
        if variant.islower():
            assert not paths._BARE_NAME.search(variant), variant


def test_corpus_regexes_after_a_substring_test_need_its_characters():
    for text in corpus_texts():
        if text.islower():
            assert not paths._BARE_NAME.search(text), text
        assert all(len(p.split()) == 1 for p in paths.find_paths(text)), text  # no path has a space


_PLAIN_ADDRESS = re.compile(r"\b(?:you|your|you're|you'd|you'll|yours)\b", re.IGNORECASE)


@settings(max_examples=400, deadline=None)
@given(_PROSE)
def test_the_address_opening_with_you_finds_what_the_plain_alternation_finds(text):
    for variant in (text, swapped_case(text)):
        assert bool(speakers._ADDRESS.search(variant)) == bool(_PLAIN_ADDRESS.search(variant))


def test_corpus_addresses_are_found_as_the_plain_alternation_finds_them():
    for text in corpus_texts():
        assert bool(speakers._ADDRESS.search(text)) == bool(_PLAIN_ADDRESS.search(text)), text


@settings(max_examples=300, deadline=None)
@given(_LABELS, st.sampled_from([NodeType.TASK, NodeType.DECISION, NodeType.FILE]))
def test_an_identity_is_the_one_the_plain_loop_gives(label, node_type):
    plain = words.topic(label) | {v for v in words.values(label) if not v.isalpha()}
    if node_type == NodeType.TASK:
        plain -= lifecycle._TASK_VERBS
    assert lifecycle._identity.__wrapped__(label, node_type) == frozenset(plain)


# The plain forms of the problem tests, label tests and opening strippers, as first written.
def plain_is_problem(clause: str, role: str, agent: bool = False) -> bool:
    low = clause.lower()
    if failures._talks_about_problems(low) or len(clause.split()) < 3:
        return False
    if phrases.names_exception(clause) and not failures._HANDLED.search(clause):
        return True
    if not phrases.names_symptom(low):
        return False
    if role != "user" and not agent:
        return bool(failures._STRONG_PROSE.search(low))
    return not failures._HANDLED.search(clause)


def plain_is_strong_problem(clause: str) -> bool:
    if failures._talks_about_problems(clause.lower()) or failures._HANDLED.search(clause):
        return False
    return bool(phrases.names_exception(clause) or failures._UNAMBIGUOUS.search(clause.lower()))


def plain_strip_leading(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = labels._without_opening(labels._FILLER, text).lstrip(" ,.;:-")
        text = labels._without_opening(labels._SUBJECT, text)
    return text


def plain_strip_trailing(text: str) -> str:
    while True:
        text = _PLAIN_TRAILING_PUNCT.sub("", text)
        tag = labels._TRAILING_WORD.search(text)
        if tag is None or " " not in text[: tag.start()].strip():
            return text
        if re.search(
            r"\bit(?:'s| is),? then$|^(?:so,? )?it(?:'s| is) \S.* (?:then|after all)$", text, re.I
        ):
            return text
        text = text[: tag.start()]


def plain_topic_words(label: str) -> frozenset[str]:
    paths_in = [w for w in label.split() if "/" in w or "\\" in w]
    rest = label
    for path in paths_in:
        rest = rest.replace(path, " ")
    return labels.content_words(rest) | frozenset(p.strip("`'\",.;:()").lower() for p in paths_in)


def plain_is_usable(label: str) -> bool:
    if len(label) < labels.MIN_LABEL_CHARS or not labels._ALNUM.search(label):
        return False
    found = labels.content_words(label)
    if not found or found <= labels._EMPTY_WORDS:
        return False
    tokens = label.lower().split()
    if len(tokens) <= 2 and tokens[-1] in labels._PRONOUNS:
        return False
    rest = [t.strip(".,") for t in tokens if t not in labels._PRONOUNS]
    if tokens[0] in ("that's", "it's", "this's") and (
        len(tokens) <= 3
        or all(
            t in labels._EMPTY_WORDS or t in labels._ADVERBS or t in labels._LINKS
            for t in tokens[1:]
        )
    ):
        return False
    return not (
        len(tokens) > len(rest)
        and all(t in labels._ADVERBS or t in labels._EMPTY_WORDS for t in rest[1:])
    )


def assert_reordered_tests_agree(text: str) -> None:
    for role in ("user", "assistant"):
        for agent in (False, True):
            expected = plain_is_problem(text, role, agent)
            assert failures.is_problem.__wrapped__(text, role, agent) == expected, text
    assert failures.is_strong_problem.__wrapped__(text) == plain_is_strong_problem(text), text
    assert labels.strip_leading.__wrapped__(text) == plain_strip_leading(text), text
    assert labels._strip_trailing(text) == plain_strip_trailing(text), text
    assert labels.topic_words(text) == plain_topic_words(text), text
    assert labels.is_usable(text) == plain_is_usable(text), text


# Openings and endings the strippers drop: fillers, subjects, tag words, and their punctuation.
_EDGE_WORDS = st.sampled_from(
    "so ok okay honestly yeah well i think i guess we i i've we're let's you then anyway too "
    "as well lol in the end , . : - ; ! ? ſo Ok THEN the cache is fixed".split(" ")
)
_EDGES = st.lists(_EDGE_WORDS, max_size=10).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_PROSE, _LABELS, _EDGES))
def test_reordered_problem_and_label_tests_answer_as_the_plain_forms(text):
    assert_reordered_tests_agree(text)
    assert_reordered_tests_agree(swapped_case(text))


def test_corpus_problem_and_label_tests_answer_as_the_plain_forms():
    for text in corpus_texts():
        assert_reordered_tests_agree(text)


def test_every_document_extension_opens_with_a_hint_scanned_for():
    for extension in paths._DOCUMENT_EXTENSIONS:
        assert extension.startswith(paths._DOCUMENT_HINTS), extension
