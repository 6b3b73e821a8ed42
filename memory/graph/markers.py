"""Explicit state markers ("Decided: …", "Completed: …", "TODO: …") and the items they list."""

from __future__ import annotations

import re

from memory.graph import decisions, failures, paths, phrases
from memory.graph.candidates import Emitter
from memory.graph.types import Status

# "Done — the retry decorator is applied": a state word set off by a dash, as people type it.
_DASH_MARKER = re.compile(
    r"^\s*(done|fixed|finished|completed|decided|todo)\s+(?:—|–|--?)\s+(\S.*)$", re.IGNORECASE
)
_MARKER = re.compile(r"^\s*(?:\*\*)?([A-Za-z][A-Za-z' /-]{0,30}?)(?:\*\*)?\s*:(?:\*\*)?\s+(\S.*)$")
# "We're going with this: X" logs X as "Going with: X" does: the subject and the pointer go.
_SUBJECT = re.compile(
    r"^(?:so |ok |okay )?(?:we're|we are|we'll|we will|i'm|i am|i'll|i will|i've|we've|i have|"
    r"we have) "
)
_POINTER = re.compile(r" (?:this|that|it|these|the following)$")
# "Fixed it: X", "Solved that: X": the fix of the problem just reported.
_FIXED_POINTED = re.compile(
    r"^\W*(?:fixed|solved|resolved|sorted) (?:it|this|that)\W*:", re.IGNORECASE
)
# "also TODO: X", "and next: Y": a connective before the marker word.
_CONNECTIVE = re.compile(r"^(?:also|and|plus|oh and|ok|okay|so) ")
# "\s*;\s*", "\s*;\s*|,\s+(?:and\s+)?|\s+and\s+(?=[A-Z/])": the first character is read first
# and its branch told by a look-behind, so that the regex engine skips to the next such one.
_SEMICOLONS = re.compile(r"[\s;](?:(?<=;)\s*|(?<=\s)\s*;\s*)")
_LIST_SPLIT = re.compile(
    r"[\s;,](?:(?<=;)\s*|(?<=\s)\s*;\s*|(?<=,)\s+(?:and\s+)?|(?<=\s)\s*and\s+(?=[A-Z/]))"
)
_PARALLEL_FOR = re.compile(r"^\S.*\s(?:for|in|as|on)\s\S")
_ROUTE_ASIDE = re.compile(r"\s*\([^)]*\)[\s.;,]*$")  # "POST /login (returns JWT)": the route
# "Final answer on the venue: the hall", "Verdict on hosting: Hetzner": the pick for a topic.
_VERDICT = re.compile(
    r"^\s*(?:the |my |our )?(?:final (?:answer|call|word|decision)|verdict|ruling|decision|"
    r"(?:final )?pick|call)s? (?:on|for|about|re) ([^:]{2,40}):\s+(\S.*)$",
    re.IGNORECASE,
)
_UNDECIDED = re.compile(r"(?:still|pending|tbd|undecided|not yet|waiting|open|unclear)\b", re.I)
_TASK_STATUS = {
    "completed": Status.COMPLETED,
    "pending": Status.PENDING,
    "in_progress": Status.IN_PROGRESS,
}


def marker_of(text: str) -> tuple[str, str] | None:
    """The (kind, body) of a "Marker: body" line, or None. A marker sits in the first few words."""
    if text.find(":", 0, 40) < 0:
        m = _DASH_MARKER.match(text) if "-" in text or "—" in text or "–" in text else None
        return (kind_of(m.group(1)), m.group(2)) if m else None
    verdict = _VERDICT.match(text)
    if verdict:  # unless the pick is still open: "Decision on the roof: still waiting on quotes"
        pick = verdict.group(2)
        return None if _UNDECIDED.match(pick) else ("decision", f"{verdict.group(1)}: {pick}")
    m = _MARKER.match(text)
    if m and m.group(1).lower() == "so":
        # "So: run services on EKS": the conclusion drawn, unless it is asked ("So: now what?").
        body = m.group(2).rstrip()
        return None if body.endswith("?") else ("decision", body)
    kind = kind_of(m.group(1)) if m else ""
    return (kind, m.group(2)) if m and kind else None


# Each marker word with the first kind that lists it, in the order ``phrases.MARKERS`` gives
# (built from the last kind to the first, so that an earlier kind overwrites a later one).
_KIND_OF_WORD = {word: kind for kind, words in reversed(phrases.MARKERS.items()) for word in words}


def kind_of(word: str) -> str:
    """The kind of fact a marker word logs ("Decided" -> decision), or ""."""
    key = " ".join(word.lower().replace("’", "'").split())
    key = _POINTER.sub("", _SUBJECT.sub("", _CONNECTIVE.sub("", key)))
    kind = _KIND_OF_WORD.get(key)
    if kind:
        return kind
    return "decision" if key.split(" ", 1)[0] in ("decided", "decision") else ""


def marked(kind: str, body: str, quote: str, emit: Emitter) -> None:
    """A "Marker: item, item" line: each item is a fact of the marker's kind."""
    for item in _items(kind, body.strip(), emit.recap):
        if kind in ("pending", "in_progress") and paths.names_only_files(item):
            continue  # "Working on: a.ts, b.ts" names files; path detection keeps them
        if kind == "decision":
            decisions.decision(item, quote, emit, cue="marker_decision", conf=0.9)
        elif kind == "fixed":
            emit.fix(item, quote, cue="marker_fixed", pointed=bool(_FIXED_POINTED.match(quote)))
        elif kind in _TASK_STATUS:
            emit.task(item, _TASK_STATUS[kind], quote, cue=f"marker_{kind}", conf=0.9)
        elif kind == "error":
            # "Error: the console shows 'Hydration failed ...'": the message shown is the error.
            said = failures.message_said(item, emit.turn.role)
            emit.error(said or item, quote, cue="marker_error", conf=0.9)
        # "files" markers carry only paths, which path detection already takes.


def _items(kind: str, body: str, recap: bool) -> list[str]:
    """Items of a marker body: a semicolon list always; a comma list only when it is one."""
    if kind == "files":
        return []
    items: list[str] = []
    for part in (p for p in _SEMICOLONS.split(body) if p.strip()):
        commas = [p for p in _LIST_SPLIT.split(part) if p.strip()]
        if len(commas) > 1 and _is_list(commas, kind, recap):
            items.extend(_route_or_item(c) for c in commas)
        else:
            items.append(part)
    return items


def _route_or_item(item: str) -> str:
    route = _ROUTE_ASIDE.sub("", item)
    return route if paths.is_endpoint(route) else item


def _is_list(items: list[str], kind: str, recap: bool) -> bool:
    """Whether comma-separated pieces are parallel items rather than one elaborated item.

    After a marker, a comma usually elaborates the item ("Completed: X, all tests pass"); it
    separates items when they are all routes or paths, when each is an "A for B" choice, or in a
    recap, whose lines are lists by construction.
    """
    if all(
        paths.is_endpoint(i.split(" (")[0]) or paths.find_paths(i) == [i.strip()] for i in items
    ):
        return True
    if kind == "decision" and all(_PARALLEL_FOR.match(i) and len(i.split()) >= 3 for i in items):
        return True
    return recap and all(len(i.split()) <= 8 for i in items)
