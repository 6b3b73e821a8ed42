"""Words of labels and turns (topic stems, value tokens, sentences, coverage) for matching facts."""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import filterfalse

# The benchmark protocol's stop words, so coverage here means what it means there.
PROTOCOL_STOP = frozenset(
    "the a an and or but in on at to for of with is are was were be been it this that we our i "
    "you they from by as".split()
)

# Words that say how a fact was stated, not what it is about; they never make two facts one topic.
GENERIC = PROTOCOL_STOP | frozenset(
    """
    use using used uses go going goes gone went will would should could can may might must shall
    let lets let's do does doing done did make makes made get gets got keep keeps kept stay stays
    stayed stick sticks now then just also only all every each any some one two three first next
    last new old more most less much very really actually still again already yet so too not no
    decided decision decide plan planned think thought guess figured lean leaning toward towards
    want wanted need needs like prefer rather instead switch switched switching swap swapped
    move moved moving moving change changed changing replace replaced replacing drop dropped back
    after before end finally anyway ok okay yes yeah fine sure right good well put set add added
    adding start started starting try tried going there here them these those its it's we'll
    we're i'll i'd i'm thing things stuff way bit lot per via into onto over under up down out off
    than what which who when where why how if because since while until about around
    """.split()
)

# Atoms that never say what a text is about: generic words and single characters.
_NOT_TOPIC = GENERIC | frozenset("abcdefghijklmnopqrstuvwxyz0123456789")

_PROTOCOL_TOKEN = re.compile(r"[a-z0-9][a-z0-9._/-]*")
_ATOM = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")  # identifiers like order_id stay whole
_RAW_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/:@+#-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
# A space run after '.', '!' or '?', else a run of newlines: written to open with the space
# itself, so that the regex engine skips from space to space.
_SENTENCE_END = re.compile(r"\s(?:(?<=[.!?]\s)\s*|(?<=\n)\n*)")
_SUFFIXES = ("ing", "ed", "s")
_PATH_SEPARATOR = re.compile(r"[/.]")
_LETTER_RUN = re.compile(r"[A-Za-z]+")
_DIGIT_RUN = re.compile(r"[0-9]+")


def content_words(text: str) -> set[str]:
    """Content words as the benchmark protocol defines them (pieces of dotted/slashed words too)."""
    words: set[str] = set()
    for token in _PROTOCOL_TOKEN.findall(text.lower()):
        token = token.rstrip("._/-") or token
        if len(token) > 1 and token not in PROTOCOL_STOP:
            words.add(token)
        if "/" in token or "." in token:
            pieces = _PATH_SEPARATOR.split(token)
            words.update(p for p in pieces if len(p) > 1 and p not in PROTOCOL_STOP)
    return words


def covers(label: str, item: str) -> bool:
    """The protocol's coverage relation: does ``label`` cover the ground-truth-like ``item``?"""
    if len(item) >= 6 and item.lower() in label.lower():
        return True
    wanted = content_words(item)
    return bool(wanted) and len(wanted & content_words(label)) >= 0.6 * len(wanted)


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A light stem: one ending off, then a final 'e', so 'dates'/'date', 'caching'/'cache' and
    'routing'/'router'/'route' meet."""
    if word.endswith("er") and len(word) > 5:
        word = word[:-2]
    else:
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
                word = word[: -len(suffix)]
                break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


@lru_cache(maxsize=16384)
def _topic(text: str) -> frozenset[str]:
    return frozenset(_topic_of(text))


def topic(text: str) -> set[str]:
    """Stems of the words that say what a text is about: no generic words, no bare numbers."""
    return set(_topic(text))


def _topic_of(text: str) -> set[str]:
    """Stems of the words that say what a text is about: no generic words, no bare numbers."""
    # Set operations, ``filterfalse`` and ``map`` walk the atoms in C, calling the cached stem
    # without a Python frame: the same set as the comprehension, at a fraction of the cost.
    atoms = set(_ATOM.findall(text.lower())) - _NOT_TOPIC
    return set(map(stem, filterfalse(str.isdigit, atoms)))


def raw_tokens(text: str) -> list[str]:
    """Whole tokens as written, compounds kept: 'python:3.12-slim', 'Recall@20', 'net/http'."""
    return _RAW_TOKEN.findall(text)


@lru_cache(maxsize=16384)
def shape(token: str) -> str:
    """The shape of a value token: letter runs become 'a', digit runs '0' ('HTTP-01' → 'a-0')."""
    out = _LETTER_RUN.sub("a", token)
    return _DIGIT_RUN.sub("0", out)


@lru_cache(maxsize=16384)
def is_value(token: str) -> bool:
    """A token naming a specific technology, version or quantity rather than an ordinary word."""
    # A token of letters only holds none of those characters: the cheaper test first.
    if not token.isalpha() and _VALUE_CHAR.search(token):
        return True
    lower = token.lower()
    if "-" in token and lower not in _COMMON_HYPHENATED:
        return token != lower  # "HTTP-01", not "read-only"
    inner_upper = token[1:] != lower[1:]
    return inner_upper or (token.isupper() and len(token) >= 2)


_VALUE_CHAR = re.compile(r"[\d/.:@_+#]")


_COMMON_HYPHENATED = frozenset({"in-app", "non-root", "multi-stage", "per-tenant", "up-front"})


@lru_cache(maxsize=8192)
def values(text: str, names: frozenset[str] | None = None) -> frozenset[str]:
    """Lower-cased value tokens of ``text``; a capitalised word counts when it is one of ``names``
    (see ``proper_names``; by default, the names ``text`` itself shows)."""
    tokens = raw_tokens(text)
    out = set(map(str.lower, filter(is_value, tokens)))  # in C, as in ``_topic_of``
    capitalised = [t for t in tokens if t[:1].isupper() and t[1:].islower()]
    if capitalised:  # only these can be names: the scan for names is skipped without them
        known = proper_names(text) if names is None else names
        out |= {t.lower() for t in capitalised if t in known}
    return frozenset(out)


def written_values(text: str) -> frozenset[str]:
    """The values of ``text`` that are no plain word ('3.12', 'order_id', 'recall@20'): those
    ``values`` finds whatever names are known, a name being letters only. No scan for names, and
    a word of letters only is never looked at."""
    return frozenset(t.lower() for t in raw_tokens(text) if not t.isalpha() and is_value(t))


# A capitalised word after a space that follows a lower-case letter, a comma, ';' or '('. The
# look-behind comes after the capital, so that the regex engine skips from capital to capital.
_NAME = re.compile(r"[A-Z](?<=[a-z,;(] [A-Z])[a-z]{2,}\b")


@lru_cache(maxsize=8192)
def proper_names(text: str) -> frozenset[str]:
    """Capitalised words written mid-sentence somewhere in ``text``: names ('a Room database'),
    i.e. after a space that follows a lower-case letter or a comma, never a sentence end."""
    return frozenset(_NAME.findall(text))


def sentences(text: str) -> list[str]:
    return list(_sentences(text))


@lru_cache(maxsize=4096)
def _sentences(text: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in _SENTENCE_END.split(text) if s and s.strip())


def sentence_of(text: str, quote: str) -> str:
    """The sentence of ``text`` that holds ``quote`` (or shares most words with it)."""
    parts = sentences(text)
    if not parts:
        return quote
    lowered = quote.lower().strip()
    for part in parts:
        if lowered and lowered[:40] in part.lower():
            return part
    wanted = topic(quote)
    return max(parts, key=lambda p: len(wanted & topic(p)))


def lead_in(text: str, sentence: str) -> str:
    """``sentence`` with the sentence before it in ``text``: the context a decision was said in."""
    parts = sentences(text)
    if sentence in parts:
        i = parts.index(sentence)
        return " ".join(parts[max(0, i - 1) : i + 1])
    return sentence
