"""Hand-built turns and candidates for the lifecycle tests, with a controllable clock."""

from __future__ import annotations

from memory.graph import lifecycle
from memory.graph.types import Candidate, Evidence, Graph, NodeType, Status, Turn

T0 = 1_700_000_000.0  # valid time of message 0; each message is a minute later


def turn(position: int, content: str, role: str = "user") -> Turn:
    return Turn(position, role, content, T0 + 60 * position)


def candidate(
    kind: NodeType,
    label: str,
    position: int,
    status: Status = Status.COMPLETED,
    quote: str = "",
    **extra,
) -> Candidate:
    return Candidate(kind, label, status, 0.8, Evidence(position, quote or label), **extra)


def decision(label: str, position: int, quote: str = "", **extra) -> Candidate:
    return candidate(NodeType.DECISION, label, position, quote=quote, **extra)


class Session:
    """A transcript fed to ``lifecycle.apply`` a message at a time, with a clock the test moves."""

    def __init__(self) -> None:
        self.graph = Graph()
        self.turns: dict[int, Turn] = {}
        self.now = T0 + 10_000

    def say(self, content: str, *candidates: Candidate, role: str = "user") -> int:
        position = len(self.turns)
        self.turns[position] = turn(position, content, role)
        placed = [_at(c, position, content) for c in candidates]
        lifecycle.apply(self.graph, placed, self.turns, self.now)
        self.graph.high_water = position
        self.now += 100
        return position

    def node(self, kind: NodeType, label: str):
        from memory.graph.types import normalize_label

        return self.graph.nodes[(kind, normalize_label(label))]

    def decision(self, label: str):
        return self.node(NodeType.DECISION, label)


def _at(c: Candidate, position: int, content: str) -> Candidate:
    quote = c.evidence.quote if c.evidence.quote in content else content
    return Candidate(
        c.type,
        c.label,
        c.status,
        c.confidence,
        Evidence(position, quote),
        reason=c.reason,
        replaces=c.replaces,
        fixes=c.fixes,
        cue=c.cue,
    )
