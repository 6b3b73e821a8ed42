"""A project's standing knowledge: what its sessions settled, chosen and rendered for a new one."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from memory.graph import contradictions, phrases, tokens
from memory.graph.budget import LineCounter, shorten
from memory.graph.labels import content_words
from memory.graph.redact import find_secrets, redact
from memory.graph.types import LIVE_STATUSES, NodeType, Status, normalize_label

HEADER = "[TokenMizer project memory: settled in this project's other sessions]"
SECTIONS = {
    "goal": "Goals:",
    "decision": "Decisions in force:",
    "contested": "Contested (unresolved, neither in force):",
    "environment": "Environment:",
    "invalidated": "Do not re-adopt (invalidated):",
}
LINE_CAP = 60  # tokens: one long reason must not crowd out the rest
_MARK = "- "
_JUNK = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")
_CAUSAL = ("because", "since", "as ", "due to", "for ", "to ", "so ")
_PLACEHOLDER_REASONS = ("both kept", "adopted again", "inferred")


@dataclass(frozen=True)
class Observation:
    """One node of one session of the project, as the selection needs it."""

    type: NodeType
    label: str
    status: Status
    importance: float
    moment: float  # when its status was last set or confirmed (valid time: when it was said)
    relevance: float = 0.0  # full-text rank against the new session's text; 0 when unmatched
    reason: str = ""
    session: int = 0  # the row id: sessions opened later have higher ones
    node: int = 0  # the row id, a stable last tie-break
    quote: str = ""  # the sentence that stated it ("Switched from X to Y: we now ...")


@dataclass(frozen=True)
class Pair:
    """A contested pair of decisions, as one session left it."""

    a: Observation
    b: Observation


@dataclass(frozen=True)
class Fact:
    kind: str  # a key of SECTIONS
    key: str  # the normalized label (both, for a pair) it is deduplicated by
    text: str  # the line without its mark
    relevance: float
    importance: float


def _clean(text: str) -> str:
    return _JUNK.sub(" ", text).strip()


def _reason(text: str) -> str:
    reason = _clean(text)
    if not reason or reason.lower().startswith(_PLACEHOLDER_REASONS):
        return ""
    return reason if reason.lower().startswith(_CAUSAL) else f"because {reason}"


def _said(o: Observation) -> tuple[float, int]:
    """When ``o`` was said, ties going to the session opened later. Node row ids are not used:
    they follow the order the sessions' graphs were first saved in, which is a worker's."""
    return o.moment, o.session


def last_words(observations: Iterable[Observation]) -> dict[tuple[NodeType, str], Observation]:
    """Per type and normalized label, the project's latest word on it (ties: the later session,
    then the higher row id)."""
    latest: dict[tuple[NodeType, str], Observation] = {}
    for o in observations:
        key = (o.type, normalize_label(o.label))
        seen = latest.get(key)
        if seen is None or (*_said(o), o.node) > (*_said(seen), seen.node):
            latest[key] = o
    return latest


def facts(
    observations: Sequence[Observation],
    pairs: Sequence[Pair] = (),
    swapped: Collection[str] | None = None,
) -> list[Fact]:
    """What a new session should know: decisions in force, goals, environment facts, contested
    pairs (both sides) and invalidated decisions as warnings, each label once.

    A decision counts by the project's last word on it: one superseded or invalidated in a later
    session is not in force any more, whatever an earlier session said. ``swapped``: the
    ``swapped_later`` of these observations when known (it is read once per state of a project).
    """
    latest = last_words(observations)
    if swapped is None:
        swapped = _swapped_later(_live_decisions(latest))
    replaced = _replaced_later(latest) | set(swapped)
    out: list[Fact] = []
    for (kind, key), o in latest.items():
        if kind == NodeType.DECISION and o.status == Status.COMPLETED and key not in replaced:
            because = _reason(o.reason)
            text = _clean(o.label) + (f" ({because})" if because else "")
            out.append(Fact("decision", key, text, o.relevance, o.importance))
        elif kind == NodeType.DECISION and o.status == Status.INVALIDATED:
            wrong = _clean(o.reason)
            text = _clean(o.label) + (f" (wrong: {wrong})" if wrong else "")
            out.append(Fact("invalidated", key, text, o.relevance, o.importance))
        elif kind in (NodeType.GOAL, NodeType.ENVIRONMENT) and o.status in LIVE_STATUSES:
            if o.status != Status.CONTESTED:
                out.append(Fact(str(kind), key, _clean(o.label), o.relevance, o.importance))
    for pair in pairs:
        sides = [
            latest.get((NodeType.DECISION, normalize_label(s.label))) for s in (pair.a, pair.b)
        ]
        if all(s is not None and s.status == Status.CONTESTED for s in sides):
            a, b = sorted(sides, key=lambda s: normalize_label(s.label))  # type: ignore[union-attr]
            key = f"{normalize_label(a.label)} vs {normalize_label(b.label)}"
            text = f"{_clean(a.label)} vs {_clean(b.label)}"
            relevance, importance = max(a.relevance, b.relevance), max(a.importance, b.importance)
            out.append(Fact("contested", key, text, relevance, importance))
    return out


_CLAUSE_END = re.compile(r"[,.;:!?](?:\s|$)")


def _replaced_later(latest: dict[tuple[NodeType, str], Observation]) -> set[str]:
    """Decisions a later one names as replaced ("going with EKS instead of ECS Fargate" after
    "run services on ECS Fargate"), in its label or its sentence ("Switched from CSS modules to
    vanilla-extract: we now style components with vanilla-extract"): each session's graph links
    only its own decisions, so a replacement stated in another session is found here, by the
    words of the option it names."""
    live = _live_decisions(latest)
    gone: set[str] = set()
    for key, new in live:
        # The option replaced, named in the decision or in the sentence that stated it.
        named = phrases.REPLACES.search(new.label) or phrases.REPLACES.search(new.quote)
        # The option ends with its clause: "instead of ECS Fargate, since ..." names ECS Fargate.
        option = _CLAUSE_END.split(next(g for g in named.groups() if g), 1)[0] if named else ""
        words = content_words(option)
        if not words:
            continue
        for old_key, old in live:
            if old_key != key and _said(old) < _said(new) and words <= content_words(old.label):
                gone.add(old_key)
    return gone


def _live_decisions(
    latest: dict[tuple[NodeType, str], Observation],
) -> list[tuple[str, Observation]]:
    return [
        (key, o)
        for (kind, key), o in latest.items()
        if kind == NodeType.DECISION and o.status == Status.COMPLETED
    ]


def swapped_later(observations: Iterable[Observation]) -> frozenset[str]:
    """The decisions (normalized labels) a later session swapped for another value in the same
    slot: what ``facts`` leaves out beyond what is named as replaced."""
    return frozenset(_swapped_later(_live_decisions(last_words(observations))))


def _swapped_later(live: list[tuple[str, Observation]]) -> set[str]:
    """Decisions a later session swapped for another value in the same slot ("cache exchange
    rates in Memcached" after "... in Redis"). Only pairs from different sessions sharing two
    topic words can be one slot with two values, so only those are compared."""
    statements = {key: contradictions.Statement(o.label, o.label, 0) for key, o in live}
    by_word: dict[str, list[str]] = {}
    for key, _ in live:
        for word in statements[key].topic:
            by_word.setdefault(word, []).append(key)
    observed = dict(live)
    gone: set[str] = set()
    for key, new in live:
        shared = Counter(other for word in statements[key].topic for other in by_word[word])
        for old_key, count in shared.items():
            old = observed[old_key]
            if count < 2 or old.session == new.session or not _said(old) < _said(new):
                continue  # a session's own graph has linked its own decisions already
            if contradictions.takes_the_place_of(statements[key], statements[old_key]):
                gone.add(old_key)
    return gone


def _ranked(items: Iterable[Fact]) -> list[Fact]:
    """By relevance, then importance; one fact per normalized label (the best ranked one)."""
    order = list(SECTIONS)
    ranked = sorted(
        items, key=lambda f: (-f.relevance, -f.importance, order.index(f.kind), f.key, f.text)
    )
    seen: set[str] = set()
    out = []
    for fact in ranked:
        if fact.key not in seen:
            seen.add(fact.key)
            out.append(fact)
    return out


def render(items: Iterable[Fact], budget: int, encoding: str = tokens.DEFAULT_ENCODING) -> str:
    """The facts that fit ``budget`` tokens (counted on the whole text), in section order; ""
    when the budget is 0 or nothing is known. The same facts always give the same bytes."""
    if budget <= 0:
        return ""
    used, opened, chosen = _tokens(HEADER, encoding), set(), []
    for fact in _ranked(items):
        line, cost = _line(fact.text, encoding)
        if line is None:
            continue
        cost += 1 + (0 if fact.kind in opened else 1 + _tokens(SECTIONS[fact.kind], encoding))
        if used + cost <= budget:
            used += cost
            opened.add(fact.kind)
            chosen.append((fact.kind, line))
    while chosen:
        text = _assemble(chosen)
        if find_secrets(text):
            text = redact(text)
        if len(tokens.get_encoding(encoding).encode_ordinary(text)) <= budget:
            return text
        chosen.pop()  # the line that mattered least
    return ""


# A project's new sessions render mostly the same facts: each line is redacted, shortened and
# counted once per process, not once per session.
@functools.lru_cache(maxsize=8192)
def _line(text: str, encoding: str) -> tuple[str | None, int]:
    """A fact's line (redacted, at most LINE_CAP tokens; None if it cannot be cut) and its tokens."""
    count = LineCounter(tokens.get_encoding(encoding))
    line = shorten(count, redact(_MARK + text), LINE_CAP, len(_MARK))
    return line, 0 if line is None else count(line)


@functools.lru_cache(maxsize=64)
def _tokens(text: str, encoding: str) -> int:
    """Tokens of the header and the section titles."""
    return len(tokens.get_encoding(encoding).encode_ordinary(text))


def _assemble(chosen: Sequence[tuple[str, str]]) -> str:
    lines = [HEADER]
    for kind, title in SECTIONS.items():
        mine = [line for k, line in chosen if k == kind]
        if mine:
            lines += [title, *mine]
    return "\n".join(lines)
