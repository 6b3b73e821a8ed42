"""Segmentation of a message into code blocks, prose lines, list items, sentences and clauses."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.graph.prefilter import Twin, holds_any

MAX_MESSAGE_CHARS = 200_000  # longer messages are read up to here: bounded work per turn
MAX_SENTENCE_CHARS = 600  # a "sentence" longer than this is a paste, not a statement
MAX_CODE_LINES = 400  # lines of one fenced block scanned for errors and paths

_FENCE = re.compile(r"^\s*(```|~~~)")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_TABLE = re.compile(r"^\s*\|")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+(.+?)|\*\*([^*]{1,40})\*\*:?)\s*$")
_QUOTE = re.compile(r"^\s*>")
# The first character of a stripped line that each pattern above can match (or a digit).
_FENCE_MARKS = ("`", "~")
_BULLET_MARKS = ("-", "*", "+", "•")
_TABLE_OR_QUOTE_MARKS = ("|", ">")
_HEADING_MARKS = ("#", "*")
# End of a sentence: terminal punctuation then space; not after common abbreviations.
# Written to open with the punctuation itself (the look-behind then checks the character before
# it), so that the regex engine skips straight to the next '.', '!' or '?'.
_SENTENCE_END = re.compile(r"[.!?](?<![.!?]{2})[.!?]*[\"')\]]*\s+")  # tried at a run's start only
_END_MARKS = (".", "?", "!")
_ABBREVIATIONS = ("e.g", "i.e", "vs", "etc", "approx", "cf", "incl", "esp")
# Control characters other than newline and tab carry no meaning in a transcript.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])


@dataclass(frozen=True)
class Sentence:
    text: str
    in_list: bool = False  # a bullet or numbered item
    heading: str = ""  # the "Recap:"-style line the list item sits under, if any


@dataclass(frozen=True)
class Segments:
    sentences: list[Sentence]
    code_blocks: list[list[str]]
    inline_text: str  # the prose of the message (for path detection), code removed


def clean(content: str) -> str:
    text = content[:MAX_MESSAGE_CHARS]
    if text.isascii():
        # Most messages hold no control character: deleting them from the bytes and comparing
        # lengths tells so many times faster than the regex scan does.
        raw = text.encode("ascii")
        if len(raw.translate(None, _CONTROL_BYTES)) == len(raw):
            return text
    return _CONTROL.sub(" ", text)


def segment(content: str) -> Segments:
    """Split a message: fenced code apart, then prose lines into sentences (lists kept as items)."""
    sentences: list[Sentence] = []
    blocks: list[list[str]] = []
    prose: list[str] = []
    code: list[str] | None = None
    heading = ""
    for line in clean(content).split("\n"):
        # The line patterns open with ``^\s*`` and a mark: the mark comes first in the stripped
        # line (``str.lstrip`` strips the characters ``\s`` matches), a test cheaper than each.
        stripped = line.lstrip()
        mark = stripped[:1]
        if mark in _FENCE_MARKS and _FENCE.match(line):
            if code is None:
                code = []
            else:
                blocks.append(code)
                code = None
            continue
        if code is not None:
            if len(code) < MAX_CODE_LINES:
                code.append(line)
            continue
        prose.append(line)
        if not stripped or mark in _TABLE_OR_QUOTE_MARKS:  # what _TABLE or _QUOTE would match
            heading = "" if not stripped else heading
            continue
        title = _HEADING.match(line) if mark in _HEADING_MARKS else None
        if title:  # "## Decisions", "**Next steps**": a heading names what its list holds
            heading = (title.group(1) or title.group(2)).strip().rstrip(":")
            continue
        bullet = _BULLET.match(line) if mark in _BULLET_MARKS or mark.isdecimal() else None
        body = line[bullet.end() :] if bullet else line
        if not bullet:
            heading = body.strip() if body.rstrip().endswith(":") else ""
        for text in split_sentences(body):
            sentences.append(
                Sentence(text, in_list=bool(bullet), heading=heading if bullet else "")
            )
    if code:
        blocks.append(code)  # an unclosed fence still holds code
    return Segments(sentences, blocks, "\n".join(prose))


def split_sentences(text: str) -> list[str]:
    """Sentences of one prose line; a very long run is cut into bounded pieces."""
    out: list[str] = []
    start = 0
    # Every sentence end opens with '.', '!' or '?': without one the line is a single sentence.
    ends = _SENTENCE_END.finditer(text) if holds_any(text, _END_MARKS) else ()
    for m in ends:
        if text[max(0, m.start() - 6) : m.start()].lower().endswith(_ABBREVIATIONS):
            continue  # "e.g. X" does not end a sentence
        piece = text[start : m.end()].strip()
        if piece:
            out.append(piece)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    bounded: list[str] = []
    for s in out:
        while len(s) > MAX_SENTENCE_CHARS:
            cut = s.rfind(" ", 0, MAX_SENTENCE_CHARS)
            cut = cut if cut > 0 else MAX_SENTENCE_CHARS
            bounded.append(s[:cut])
            s = s[cut:].strip()
        if s:
            bounded.append(s)
    return bounded


# Past-tense verbs that open a second coordinated predicate ("restarted X and rolled back Y").
_PAST = (
    "added|applied|built|changed|created|deleted|deployed|fixed|merged|moved|pushed|removed|"
    "installed|upgraded|downgraded|enabled|disabled|configured|wired|wrapped|replaced|renamed|"
    "rolled|ran|reran|restarted|rebuilt|reconverted|swapped|switched|updated|wrote|kicked|"
    "escalated|paged|cancelled|deleted|uploaded|tested|shipped|installed"
)


# Any other past-tense verb with its object opens a coordinated report too ("..., bumped the
# provider to 4.9.1 and flipped the sensors", "signed up for the trial"); not a participle of state
# ("based on the").
def _did_object(verbs: str) -> str:
    return (
        r"(?!(?:based|used|supposed|interested|confused|tired|concerned|worried|excited|annoyed|"
        r"surprised|scared|related|attached|limited|allowed|required|named|called|needed|wanted|"
        r"planned|expected|assumed|compared|seemed|indeed|speed|proceed|succeed|exceed)\b)"
        r"(?:" + verbs + r")(?:\s+(?:up|out|off|back|down|over)(?:\s+(?:for|on|to|with|at))?)?"
        r"\s+(?:the|a|an|my|our|all|both|it|them|this|that|those|these|one|two|three|\d+)\b"
    )


_DID_VERBS = r"[a-z]{3,}ed|sent|made|wrote|built|put|took|cut|gave|got|ran|reran"
_DID_OBJECT = _did_object(_DID_VERBS)
# After a comma an irregular past opens one as well ("Exzolt it is, rang the vet"), and so does a
# pick ("added the UniqueID, went with X"); after "and" it may be someone else's act ("a man came
# in and bought a record").
_DID_AFTER_COMMA = (
    _did_object(
        _DID_VERBS + r"|rang|told|bought|paid|sold|brought|found|kept|met|drew|redrew|"
        r"threw|fed|chose|spent|lent"
    )
    + r"|went (?:with|for)\b(?! (?:it|that|this|them)\b)"
)

# Clause boundaries: semicolons, dashes, and a comma or "and" that opens a new subject or a
# connective. A plain comma inside a noun phrase list is not a boundary. The character a break
# opens with (a ';', ',', ':' or a space) is read first: a pattern opening with a class lets the
# regex engine skip straight to the next such character. A break after ';', ',' or ':' goes on
# with a space, which is read next, the punctuation before it told by a look-behind: at a space
# followed by a word (most positions), the engine rejects those breaks by that one character,
# before any look-behind. Breaks opening with different characters never meet at one position,
# so the break at a space can come last; its "and" branches share one look-ahead.
_CLAUSE_BREAK = re.compile(
    r"[;\s,:](?:\s(?:(?<=;\s)\s*"
    r"|(?<=,\s)\s*(?:(?=(?:" + _PAST + r")\s)"
    r"|(?=" + _DID_AFTER_COMMA + r")"
    r"|(?=(?:so|but|then|and|which|although|though|while|whereas|plus|yet|because|since"
    r"|turns out|it turns out"
    r"|I|I'm|I've|I'll|I'd|i'm|i've|i'll|i'd|we|we're|we've|we'll|it|it's|they|that's|this|there's"
    r"|he|she"
    r"|now|also|otherwise|waiting|still waiting)\b)"
    r"|but\s+"
    r"|(?=[A-Z][a-z]+ (?:is|will|has|'s|can|says)\b))"
    # Not after an exception's name: "failed with KeyError: 'currency'" is one message.
    r"|(?<=\w\w:\s)(?<!Error:\s)(?<!Exception:\s)\s*(?![\w.-]*\d)(?=\S))"
    r"|(?<=\s)\s*(?:;\s+|[—–]\s+|--?\s+|but\s+"
    r"|and\s+(?=(?:I|I'm|I've|I'll|we|we're|we'll|it|it's|they|that's|then|now|so|there's|this)\b"
    r"|(?:\w+\s+){1,2}(?:crashed|failed|broke|hung|threw|died|stopped)\b"
    # ... and in the present, after a subject of two or three words: "and every event fails".
    r"|(?:\w+\s+){2,3}(?:also\s+|still\s+)?(?:fails|crashes|breaks|hangs|freezes|dies|"
    r"throws|times out)\b"
    r"|(?:" + _PAST + r")\b"
    r"|" + _DID_OBJECT + r")))"
)

# What every clause break holds (a ';', ',' or ':', a dash, "and" or "but"): a sentence with none
# is one clause, told by substring tests cheaper than the regex scan.
_BREAK_MARKS = (",", "and", ";", ":", "-", "—", "–", "but")


# A finite verb: a piece split off at "and" without one was a noun phrase ("X and the Y").
_FINITE = Twin(
    re.compile(
        r"\b(?:is|are|was|were|has|have|had|can|will|won't|went|got|came|comes|goes|shows|works|"
        r"passes|loads|builds|runs|looks|needs|seems|stays|keeps|makes|gets|takes|[a-z]{3,}ed|"
        r"\w+n't|'s|'re)\b",
    )
)
# A new subject and its verb: "upload works, download is still TODO".
_NEW_SUBJECT = (
    r"(?:[\w'.-]+\s+){1,2}(?:is|are|was|were|has|works|worked|passes|pass|loads|runs|finished|"
    r"went|shows|can|will|won't|isn't|aren't)\b|\w+'s\s"
)
# "\s\s*" rather than "\s+": opening with a class, the regex engine skips from space to space.
_AND_THE = re.compile(r"\s\s*and\s+(?=the\b|" + _NEW_SUBJECT + r")")
_COMMA = re.compile(r",\s+(?=the\b|[A-Z][a-z]+ (?:is|are|was|has)\b|" + _NEW_SUBJECT + r")")


def split_clauses(sentence: str) -> list[str]:
    """Clauses of a sentence, in order, each stripped of outer spaces."""
    out: list[str] = []
    parts = _CLAUSE_BREAK.split(sentence) if holds_any(sentence, _BREAK_MARKS) else [sentence]
    for part in parts:
        part = part.strip() if part else ""
        if not part:
            continue
        for piece in _split_finite(part, _AND_THE, " and "):
            out.extend(_split_finite(piece, _COMMA, ", "))
    return out


def _split_finite(part: str, boundary: re.Pattern[str], joiner: str) -> list[str]:
    """Split "X is done, the Y is done" or "X and the Y is Z" into clauses, but keep a noun phrase
    ("X and the Y", "A, B") whole: both sides of a clause boundary hold a finite verb."""
    if joiner.strip() not in part:  # every boundary holds the joiner's word or comma
        return [part.strip()] if part.strip() else []
    pieces = boundary.split(part)
    merged: list[str] = [pieces[0]]
    for piece in pieces[1:]:
        low = piece.lower()
        if _FINITE.search(low) and _FINITE.search(merged[-1].lower()) and len(piece.split()) >= 3:
            merged.append(piece)
        else:
            merged[-1] = f"{merged[-1]}{joiner}{piece}"
    return [p.strip() for p in merged if p.strip()]
