"""Turning a clause into a short clean label, and comparing labels by their content words."""

from __future__ import annotations

import re
from functools import lru_cache

from memory.graph import phrases
from memory.graph.prefilter import Folded, Twin

MAX_LABEL_WORDS = 16  # ground-truth labels are 2-8 words; a clause beyond this is cut at a boundary
MIN_LABEL_CHARS = 3

_STOP = frozenset(
    "the a an and or but in on at to for of with is are was were be been it this that we our i "
    "you they from by as".split()
)
_RUN = Twin(re.compile(r"[^\W_][\w./-]*"))
_PATH_SEPARATOR = re.compile(r"[/.]")
_ALNUM = re.compile(r"[A-Za-z0-9]")
# Openings matched ignoring case (Folded: see memory.graph.prefilter).
_FILLER = Folded(
    r"^(?:(?:(?:" + phrases.grouped_alternation(*phrases.LEADING_FILLER) + r")\b[\s,.!:;-]*)|"
    r"(?:(?:"
    + phrases.grouped_alternation(*phrases.LEADING_INTERJECTION)
    + r")(?:[,.!:;-]+\s*|$)))+"
)
_DISCOURSE = Folded(
    r"^(?:(?:" + phrases.grouped_alternation(*phrases.LEADING_FILLER) + r")\b[\s,.!:;-]*)+"
)
_SUBJECT = Folded(
    r"^(?:"
    + phrases.grouped_alternation(*phrases.LEADING_SUBJECT)
    + r")\s+(?:(?:also|just|then|now|finally|"
    r"already|only|actually)\s+)?"
)
# Markdown emphasis and code ticks around words. Underscores go only in pairs ("_word_"), so an
# identifier such as "_serialize_state" keeps its own.
_DECORATION = re.compile(r"(?<![\w*`])\*{1,3}(?=\S)|(?<=\S)\*{1,3}(?![\w*`])|`")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<![\w])_([^_\s][^_]*?)_(?![\w])")
# Trailing punctuation and tag words ("..., anyway", "too"), stripped in turn from the end.
_TRAILING_PUNCT = ",;:.!?-—–"
_TAG_WORDS = (
    "anyway", "then", "though", "too", "as well", "in the end", "tbh", "lol", "haha", "now though",
    "after all", "for sure", "i guess", "i think", "right away", "either", "as agreed",
    "as discussed", "as planned", "from now on", "going forward", "moving forward", "for good",
)  # fmt: skip
# A choice's own idiom, whose tag word stays: "Candes it is then", "so it's Netlify after all".
_IDIOM = re.compile(
    r"(?:\bit(?:'s| is),? then|^(?:so,? )?it(?:'s| is) \S.* (?:then|after all))$", re.IGNORECASE
)
_TRAILING_WORD = Folded(r"\s\s*(?:" + "|".join(_TAG_WORDS) + ")$")


def _strip_trailing(text: str) -> str:
    while True:
        text = _without_trailing_punct(text)
        if text.isascii() and not text.lower().endswith(_TAG_WORDS):
            return text  # no tag word at the end: one ``str.endswith``, cheaper than the regex
        tag = _TRAILING_WORD.search(text)
        if tag is None or " " not in text[: tag.start()].strip():
            return text  # "Newtonsoft then": with one word left, the tag is part of the idiom
        if _IDIOM.search(text):
            return text
        text = text[: tag.start()]


def _without_trailing_punct(text: str) -> str:
    r"""``text`` less the run of spaces and punctuation it ends with. ``str.rstrip`` strips the
    spaces ``\s`` matches; in turn with the punctuation, it is many times cheaper than a regex,
    which would be tried at every space."""
    while True:
        stripped = text.rstrip().rstrip(_TRAILING_PUNCT)
        if len(stripped) == len(text):
            return text
        text = stripped


# A short adverbial phrase opening the clause ("after weighing it, X", "in the end, X").
_LEADING_ADVERBIAL = re.compile(
    r"^(?:after|before|once|given|having|in the end|at the end of the day|for now|honestly|looking "
    r"back|on reflection|all things considered|all in all|in short|either way)\b[^,]{0,30},\s+",
    re.IGNORECASE,
)
# Cut points inside an over-long clause: a reason, a relative clause, or a parenthesis.
_CUT = re.compile(
    r"\s+(?:because|since|so that|which|where|who|whereas|although|though|while|as long as|"
    r"unless|given that|due to)\s+|\s*\(|,\s+"
)


@lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    """Lower-cased content words, as the benchmark protocol counts them (path pieces included)."""
    low = text.lower()
    runs = _RUN.findall(low)
    words = {run for run in runs if len(run) > 1 and run not in _STOP}
    if "/" in low or "." in low:  # only then can a run hold path pieces
        for run in runs:
            if "/" in run or "." in run:
                words.update(p for p in _PATH_SEPARATOR.split(run) if len(p) > 1 and p not in _STOP)
    return frozenset(words)


def topic_words(label: str) -> frozenset[str]:
    """Content words for telling facts apart: a path counts as one word, not as its pieces, so
    "guard it in app/dates.py" and "updated app/dates.py to reject months" stay two facts."""
    if "/" not in label and "\\" not in label:
        return content_words(label)  # no path: no word to keep whole
    paths_in = [w for w in label.split() if "/" in w or "\\" in w]
    rest = label
    for path in paths_in:
        rest = rest.replace(path, " ")
    return content_words(rest) | frozenset(p.strip("`'\",.;:()").lower() for p in paths_in)


def near_duplicate(a: frozenset[str], b: frozenset[str], share: float = 0.8) -> bool:
    """Whether 80% of the smaller label's topic words are in the other: two labels of one fact.

    Status words ("isn't", "yet", "done") are left out: "X isn't built yet" and "Y isn't written
    yet" are two facts that share only how they stand.
    """
    topic_a, topic_b = a - STATUS_WORDS, b - STATUS_WORDS
    if min(len(topic_a), len(topic_b)) >= 2:
        a, b = topic_a, topic_b
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return bool(small) and len(small & large) / len(small) >= share


STATUS_WORDS = frozenset(
    "isn't aren't wasn't not yet done now still needs need fixed working works finished complete "
    "completed ready again going will can wait later next pending todo is are was were has have "
    "been".split()
)


@lru_cache(maxsize=8192)
def strip_filler(text: str) -> str:
    """Drop the discourse markers opening a clause ("ahh", "so then"), keeping the rest whole."""
    return _without_opening(_DISCOURSE, text).lstrip(" ,.;:-")


@lru_cache(maxsize=8192)
def strip_leading(text: str) -> str:
    """Drop interjections, discourse markers and the subject that open a clause."""
    if not text.isascii():
        previous = None
        while previous != text:
            previous = text
            text = _without_opening(_FILLER, text).lstrip(" ,.;:-")
            text = _without_opening(_SUBJECT, text)
        return text
    # The same steps on ASCII text, whose lower-cased copy keeps every position: the openings are
    # matched on one copy cut in step with the text, not on a new copy at every test (``Folded``).
    low = text.lower()
    while True:
        filler = _FILLER.cased.match(low)
        rest = (low[filler.end() :] if filler else low).lstrip(" ,.;:-")
        subject = _SUBJECT.cased.match(rest)
        cut = len(low) - len(rest) + (subject.end() if subject else 0)
        if cut == 0:
            return text
        text, low = text[cut:], low[cut:]


def _without_opening(opening: Folded, text: str) -> str:
    """``text`` less what the ``^``-anchored ``opening`` matches at its start."""
    m = opening.match(text)
    return text[m.end() :] if m else text


@lru_cache(maxsize=8192)
def clean(text: str, max_words: int = MAX_LABEL_WORDS) -> str:
    """A label from a clause: no decoration, filler, subject or trailing punctuation; bounded."""
    if "*" in text or "`" in text:
        text = _DECORATION.sub("", text)
    if "_" in text:
        text = _UNDERSCORE_EMPHASIS.sub(r"\1", text)
    text = " ".join(text.split())
    text = strip_leading(text)
    text = _LEADING_ADVERBIAL.sub("", text)
    words = text.split()
    if len(words) > max_words:
        text = _cut(text, max_words)
    text = _strip_trailing(text)
    text = _TRAILING_FILLER.sub("", text)
    text = _balance(text)
    return _unquote(text.strip())


_TRAILING_FILLER = re.compile(
    r",\s+(?:sure|ok|okay|then|anyway|though|too|right|i guess|i think|honestly|probably|"
    r"thanks|please|for now though)$",
    re.IGNORECASE,
)


def _unquote(text: str) -> str:
    """Outer quotes go when they wrap the whole label; a quote closing an inner one stays."""
    if not text:
        return text
    if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1].strip()
    if text[:1] in "\"'" and text.count(text[0]) == 1:
        return text[1:].strip()
    if text[-1:] in '"' and text.count(text[-1]) == 1:
        return text[:-1].strip()
    return text


def _cut(text: str, max_words: int) -> str:
    """The longest prefix up to ``max_words`` that ends at a clause boundary, else at a word."""
    best = ""
    for m in _CUT.finditer(text):
        head = text[: m.start()]
        if len(head.split()) > max_words:
            break
        if len(head.split()) >= 3:
            best = head
    return best or " ".join(text.split()[:max_words])


def _balance(text: str) -> str:
    """Drop a dangling opening bracket left by a cut (its words stay)."""
    for open_, close in ("()", "[]", "{}"):
        if text.count(open_) > text.count(close):
            i = text.rfind(open_)
            text = (text[:i] + text[i + 1 :]).replace("  ", " ").rstrip()
    return text


def is_usable(label: str) -> bool:
    """A label worth keeping: some letters, at least one content word, not a lone pronoun."""
    if len(label) < MIN_LABEL_CHARS or not _ALNUM.search(label):
        return False
    words = content_words(label)
    if not words or words <= _EMPTY_WORDS:
        return False
    tokens = label.lower().split()
    if len(tokens) <= 2 and tokens[-1] in _PRONOUNS:
        return False
    if tokens[0] in ("that's", "it's", "this's") and (
        len(tokens) <= 3
        or all(t in _EMPTY_WORDS or t in _ADVERBS or t in _LINKS for t in tokens[1:])
    ):
        return False  # "that's on Tom", "that's for next week": the fact is in the sentence before
    # "done that twice already", "it starts fine": a pronoun and adverbs say nothing on their own.
    if _PRONOUNS.isdisjoint(tokens):
        return True
    rest = [t.strip(".,") for t in tokens if t not in _PRONOUNS]
    return not all(t in _ADVERBS or t in _EMPTY_WORDS for t in rest[1:])


_LINKS = frozenset("for next the on until after by this that".split())
_ADVERBS = frozenset(
    "twice already again now yet too before today yesterday fine properly anyway more less "
    "well better worse there here up out off in on away back".split()
)


# Words that say how something stands without saying what it is ("not done yet", "fixed now").
_EMPTY_WORDS = frozenset(
    "that this it them there here so not done yet now fixed working finished complete completed "
    "again still ready works fine good all set up ok okay passing green one both today tomorrow "
    "neither started that's it's there's for week weekend month quarter sprint morning afternoon "
    "tonight later soon then monday tuesday wednesday thursday friday".split()
)
_PRONOUNS = frozenset("it that this them those these everything all one".split())


def normalize_path(path: str) -> str:
    """A path compared by its spelling, not its decoration: "./a/b.py" and "a/b.py" are one."""
    p = path.replace("\\", "/").strip("`'\"")
    while p.startswith("./"):
        p = p[2:]
    return p
