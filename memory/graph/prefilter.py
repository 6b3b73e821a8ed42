"""Regexes run more cheaply, with the same matches: guarded by a keyword, or case-folded.

A failed regex search tries its pattern at every position of the text; ``word in text`` is many
times cheaper. A pattern every match of which holds one of a few keywords is only tried on a text
that holds one (``Guarded``). The keywords are written next to the pattern they guard, and
``tests/memory/graph/test_prefilter.py`` checks that each pattern matches no text without them.
A case-insensitive alternation is run case-sensitively on lower-cased text (``Folded``).
On ASCII text a regex runs as its ASCII twin, whose classes test a character by a table rather
than through the Unicode database (``Twin``, ``ascii_twin``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence


def holds_any(text: str, keywords: Sequence[str]) -> bool:
    """Whether ``text`` holds one of ``keywords``: a plain loop, cheaper than ``any()`` over a
    generator."""
    for keyword in keywords:
        if keyword in text:
            return True
    return False


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
        for keyword in self.keywords:  # inline: a call per text would cost more than the loop
            if keyword in text:
                return True
        return False

    def search(self, text: str) -> re.Match[str] | None:
        # ``admits`` written out: the most frequent use, where the call would cost the most.
        if self.lower:
            if not text.isascii():
                return self.pattern.search(text)
            lowered = text.lower()
        else:
            lowered = text
        for keyword in self.keywords:
            if keyword in lowered:
                return self.pattern.search(text)
        return None

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
        self.cased = ascii_twin(re.compile(pattern))  # only ever reads ASCII text
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


# Unicode ``\s`` holds four ASCII characters that ASCII ``\s`` does not: the separators.
_SEPARATORS = r"\x1c-\x1f"


def ascii_twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
    r"""``pattern`` compiled with ASCII classes, matching any ASCII text exactly as ``pattern`` does.

    Unicode ``\w``, ``\d`` and ``\b`` look every character up in the Unicode database; ASCII ones
    in a table, and on ASCII text the two agree. So does case folding. Only ``\s`` differs: the
    Unicode one also holds the separators \x1c-\x1f, which the twin adds back.
    """
    source, out, i, in_class = pattern.pattern, [], 0, False
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            escape = source[i : i + 2]
            if escape == r"\s":
                escape = r"\s" + _SEPARATORS if in_class else r"[\s" + _SEPARATORS + "]"
            elif escape == r"\S":
                if in_class:
                    raise ValueError(f"no ASCII twin for \\S in a class: {source!r}")
                escape = r"[^\s" + _SEPARATORS + "]"
            out.append(escape)
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
            start = i + 2 if source[i + 1 : i + 2] == "^" else i + 1
            if source[start : start + 1] == "]":
                start += 1  # a ']' first in a class is a literal
            out.append(source[i:start])
            i = start
            continue
        if ch == "]" and in_class:
            in_class = False
        out.append(ch)
        i += 1
    return re.compile("".join(out), (pattern.flags & ~re.UNICODE) | re.ASCII)


class Twin:
    """A regex that runs as its ASCII twin on ASCII text, and as itself on any other."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.ascii = pattern, ascii_twin(pattern)

    def search(self, text: str) -> re.Match[str] | None:
        return (self.ascii if text.isascii() else self.pattern).search(text)

    def finditer(self, text: str, pos: int = 0) -> Iterator[re.Match[str]]:
        return (self.ascii if text.isascii() else self.pattern).finditer(text, pos)

    def findall(self, text: str) -> list:
        return (self.ascii if text.isascii() else self.pattern).findall(text)

    def sub(self, repl: str, text: str, count: int = 0) -> str:
        return (self.ascii if text.isascii() else self.pattern).sub(repl, text, count)
