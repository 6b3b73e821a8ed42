"""Baselines run in the same pass as the method: window, truncation, summary, keyword scan."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from benchmarks.scoring import CATEGORIES
from memory.graph.tokens import count

WINDOW_MESSAGES = 10
TRUNCATION_WORDS = 300
SUMMARY_WORDS = 120

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_PATH = re.compile(
    r"(?<![\w/])(?:[\w.-]+/)*[\w-]+\.[a-z][a-z0-9]{0,5}\b|(?<![\w/])(?:[\w.-]+/)+[\w.-]+"
)
# The keyword lists of the plain-summary scan, one alternation per typed category.
_KEYWORDS = {
    "completed_tasks": r"\b(done|completed?|finished|implemented|added|created|fixed|works?)\b",
    "pending_tasks": r"\b(todo|next|pending|later|still need|need to|will|remaining)\b",
    "decisions": r"\b(decided?|decision|cho(?:se|ose)|going with|use|instead|switch\w*|pick\w*)\b",
    "errors": r"\b(\w*error|\w*exception|fail\w*|bug|traceback|crash\w*|broken|timeout)s?\b",
}


def count_tokens(text: str) -> int:
    """Tokens of a baseline's resume text, with the project's real tokenizer (cl100k_base)."""
    return count(text)


def sentences(text: str) -> list[str]:
    """The text cut at sentence ends and line breaks, blanks dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _untyped(text: str, labels: list[str]) -> dict:
    """An untyped baseline puts every label in every category: it keeps text, not types."""
    return {"extracted": {c: list(labels) for c in CATEGORIES}, "resume_text": text}


def sliding_window(messages: Sequence[dict]) -> dict:
    """The last 10 messages verbatim; labels are their sentences."""
    kept = [m["content"] for m in messages[-WINDOW_MESSAGES:]]
    return _untyped("\n\n".join(kept), [s for m in kept for s in sentences(m)])


def _words(messages: Sequence[dict]) -> list[str]:
    return " ".join(m["content"] for m in messages).split()


def naive_truncation(messages: Sequence[dict]) -> dict:
    """The last ~300 words of the transcript; labels are its sentences (the first one cut)."""
    text = " ".join(_words(messages)[-TRUNCATION_WORDS:])
    return _untyped(text, sentences(text))


def naive_summary(messages: Sequence[dict]) -> dict:
    """The first ~120 words of the transcript; labels are its sentences (the last one cut)."""
    text = " ".join(_words(messages)[:SUMMARY_WORDS])
    return _untyped(text, sentences(text))


def plain_summary(messages: Sequence[dict]) -> str:
    """A plain extractive summary: the first sentence of every message, one per line."""
    firsts = [sentences(m["content"])[:1] for m in messages]
    return "\n".join(s[0] for s in firsts if s)


def keyword_scan(text: str) -> dict[str, list[str]]:
    """Typed labels read off a text by keywords: its sentences per category, paths as files."""
    out: dict[str, list[str]] = {c: [] for c in CATEGORIES}
    for line in sentences(text):
        for category, pattern in _KEYWORDS.items():
            if re.search(pattern, line, re.IGNORECASE):
                out[category].append(line)
    out["files"] = list(dict.fromkeys(m.group(0).rstrip(".") for m in _PATH.finditer(text)))
    return out


def plain_summary_scan(messages: Sequence[dict]) -> dict:
    """The paper's plain-summary baseline: a keyword scan of the plain summary (see README)."""
    text = plain_summary(messages)
    return {"extracted": keyword_scan(text), "resume_text": text}


BASELINES: dict[str, Callable[[Sequence[dict]], dict]] = {
    "sliding_window": sliding_window,
    "naive_truncation": naive_truncation,
    "naive_summary": naive_summary,
    "plain_summary_scan": plain_summary_scan,
}
