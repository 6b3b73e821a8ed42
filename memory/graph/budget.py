"""Fitting text into a token budget: cached line counts and shortening at a word boundary."""

from __future__ import annotations

import tiktoken

ELLIPSIS = " …"
_SOFT_BREAKS = frozenset(",;/|)")
_TRAILING = " ,;:/|-([{"


class LineCounter:
    """Token counts of lines with one encoding, each distinct line encoded once."""

    def __init__(self, enc: tiktoken.Encoding) -> None:
        self.enc = enc
        self._cache: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        n = self._cache.get(text)
        if n is None:
            n = self._cache[text] = len(self.enc.encode_ordinary(text))
        return n


def _cjk(ch: str) -> bool:
    """Scripts written without spaces, where a line may break between any two characters."""
    return "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\uffef"


def word_boundary(text: str, end: int, floor: int = 0) -> int | None:
    """The last index in (``floor``, ``end``] where ``text`` may be cut without splitting a word."""
    for i in range(min(end, len(text)), floor, -1):
        if i == len(text) or text[i].isspace() or text[i - 1] in _SOFT_BREAKS:
            return i
        if _cjk(text[i - 1]) or _cjk(text[i]):
            return i
    return None


def shorten(count: LineCounter, text: str, limit: int, floor: int = 0) -> str | None:
    """``text`` itself if it fits ``limit`` tokens, else cut at a word boundary and marked with
    an ellipsis; None when no cut keeps more than ``floor`` characters (one giant word)."""
    if count(text) <= limit:
        return text
    ids = count.enc.encode_ordinary(text)
    keep = limit - count(ELLIPSIS)
    while keep > 0:
        # A token prefix decodes to a byte prefix of the text; "ignore" drops a split character.
        prefix = count.enc.decode_bytes(ids[:keep]).decode("utf-8", "ignore")
        cut = word_boundary(text, len(prefix), floor)
        if cut is None:
            return None
        head = text[:cut].rstrip(_TRAILING)
        if len(head) <= floor:
            return None
        short = head + ELLIPSIS
        n = count(short)
        if n <= limit:
            return short
        keep -= n - limit
    return None
