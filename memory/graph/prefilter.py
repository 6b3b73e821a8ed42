"""Regexes run more cheaply, with the same matches: guarded by a keyword, or case-folded.

A failed regex search tries its pattern at every position of the text; ``word in text`` is many
times cheaper. A pattern every match of which holds one of a few keywords is only tried on a text
that holds one (``Guarded``). The keywords are written next to the pattern they guard, and
``tests/memory/graph/test_prefilter.py`` checks that each pattern matches no text without them.
A case-insensitive alternation is run case-sensitively on lower-cased text (``Folded``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence


class Guarded:
    """A compiled regex and the keywords, one of which is in every text it matches.

    ``lower``: the keywords are lower-case and the regex ignores case, so the test reads the text
    lower-cased. Outside ASCII, case folding has more equivalences than ``str.lower`` knows (the
    long s matches "s"), so a non-ASCII text always goes to the regex.
    """

    def __init__(
        self, pattern: re.Pattern[str], keywords: Sequence[str], lower: bool = False
    ) -> None:
        self.pattern, self.keywords, self.lower = pattern, tuple(keywords), lower

    def admits(self, text: str) -> bool:
        """Whether ``text`` holds a keyword, so that the regex may match it."""
        if self.lower:
            if not text.isascii():
                return True
            text = text.lower()
        for keyword in self.keywords:
            if keyword in text:
                return True
        return False

    def search(self, text: str) -> re.Match[str] | None:
        return self.pattern.search(text) if self.admits(text) else None

    def match(self, text: str) -> re.Match[str] | None:
        return self.pattern.match(text) if self.admits(text) else None

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.pattern.fullmatch(text) if self.admits(text) else None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.pattern.finditer(text) if self.admits(text) else iter(())

    def split(self, text: str) -> list[str]:
        return self.pattern.split(text) if self.admits(text) else [text]


class Folded:
    """A case-insensitive regex, run case-sensitively on the lower-cased text when that is ASCII.

    Under IGNORECASE the regex engine enters every branch of an alternation in turn; matching
    case, it rejects a branch by its first letter. Lower-casing ASCII text moves no character, so
    a pattern whose letters are all lower-case matches the lower-cased text exactly where it
    matches the text ignoring case. Other text goes to an IGNORECASE copy of the pattern. Either
    way the match may have read the lower-cased text: use its positions, not its groups.
    """

    def __init__(self, pattern: str) -> None:
        if re.sub(r"\\.", "", pattern) != re.sub(r"\\.", "", pattern).lower():
            raise ValueError(f"a folded pattern has lower-case letters only: {pattern!r}")
        self.cased = re.compile(pattern)
        self.any_case = re.compile(pattern, re.IGNORECASE)

    def match(self, text: str) -> re.Match[str] | None:
        if text.isascii():
            return self.cased.match(text.lower())
        return self.any_case.match(text)

    def search(self, text: str) -> re.Match[str] | None:
        if text.isascii():
            return self.cased.search(text.lower())
        return self.any_case.search(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if text.isascii():
            return self.cased.finditer(text.lower())
        return self.any_case.finditer(text)
