"""Who is speaking and how: an assistant advising (a consultant) or reporting work (an agent)."""

from __future__ import annotations

import re

from memory.graph import labels, phrases
from memory.graph.prefilter import Folded
from memory.graph.sentences import Sentence

# Instructions opening an assistant's sentence: advice, not a report.
IMPERATIVE = Folded(
    r"^(?:add|use|run|set|put|try|make|keep|pass|point|give|drop|check|call|install|replace|"
    r"switch|move|change|remove|delete|create|write|tell|let|look|pull|cancel|derive|treat|"
    r"split|wrap|read|avoid|upgrade|bump|raise|lower|rebuild|restart|expose|register|enable|"
    r"disable|configure|define|store|send|return|catch|log|test|verify|confirm|double-check|"
    r"don't|do not|never|always|start|stop|skip|mark|note|remember)\b"
)
# Past tenses of thinking, noticing and saying: "I've noticed X" reports no work.
NOT_WORK = (
    "noticed assumed wondered decided mentioned suggested seemed wanted needed used based hoped "
    "expected guessed learned heard called named tried asked"
).split()
# Past tenses spelled like the imperative: "Read it with ..." opens advice as often as a report.
_IMPERATIVE_LOOKALIKES = frozenset("read put set cut split run reset".split())
# An agent's log line: what it did, found or is doing ("Added X", "Found it", "Working on Y").
AGENT_LOG = Folded(
    r"^(?:i(?:'ve| have)?\s+)?(?:(?:"
    # A trie of the verbs (``grouped_alternation``): the same matches, each a test per letter.
    + phrases.grouped_alternation(
        *(phrases.DONE_VERBS | phrases.FINDING_VERBS) - _IMPERATIVE_LOOKALIKES
    )
    + r")\b|working on\b|switching\b|moving\b|going with\b|"
    r"still \w+ing\b|looking at\b|will add\b|starting\b|creating\b|adding\b|set up\b)|"
    # "I've tightened the statement", "I've drafted a schedule below": a perfect reports work done.
    r"^i(?:'ve| have)\s+(?:also\s+|just\s+|now\s+)?(?!" + "|".join(NOT_WORK) + r")[a-z]{3,}ed\b"
)
# Written to open with "you" (the boundary checked behind it), so that the regex engine skips
# from one "you" to the next instead of trying every position.
_ADDRESS = Folded(r"you(?<=\byou)(?:r|'re|'d|'ll|rs)?\b")
# Carrying out what the user asked is no advice: "..., as you asked yesterday".
_AS_YOU_ASKED = re.compile(
    r"\b(?:as|like) you (?:asked|said|suggested|wanted|requested|decided|agreed)\b(?: \w+)?",
    re.IGNORECASE,
)


def advises(sentences: list[Sentence]) -> bool:
    """Whether an assistant turn advises rather than logs or reports.

    An agent narrates its work ("Added X", "Working on Y") or reports findings plainly; an adviser
    addresses the user ("you"), hedges, or instructs ("Add a callback ..."). Only an agent's prose
    is mined beyond explicit markers: an adviser's options are not the session's facts.
    """
    if any(AGENT_LOG.match(s.text) for s in sentences):
        return False
    for s in sentences:
        text = labels.strip_filler(s.text)  # "Then set X": the instruction after the filler
        if "you" in text.lower():
            text = _AS_YOU_ASKED.sub("", text)
        # The lexicon scan last: the other two tests are cheaper.
        if _ADDRESS.search(text) or IMPERATIVE.match(text) or phrases.HEDGE.search(text.lower()):
            return True
    return False
