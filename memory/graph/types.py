"""The vocabulary of a session graph: node, edge and status types, and the dataclasses built from them."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache


class NodeType(StrEnum):
    TASK = "task"
    FILE = "file"
    DECISION = "decision"
    ERROR = "error"
    TEST = "test"
    SCHEMA = "schema"
    DEPENDENCY = "dependency"
    API = "api"
    ENDPOINT = "endpoint"
    GOAL = "goal"
    ENVIRONMENT = "environment"
    PROJECT = "project"
    CONCEPT = "concept"
    AGENT = "agent"


class EdgeType(StrEnum):
    DEPENDS_ON = "depends_on"
    RELATED_TO = "related_to"
    IMPLEMENTS = "implements"
    FIXES = "fixes"
    BLOCKS = "blocks"
    PART_OF = "part_of"
    SUPERSEDES = "supersedes"
    CONFLICTS_WITH = "conflicts_with"


class Status(StrEnum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"  # for a decision: in force
    FAILED = "failed"
    SUPERSEDED = "superseded"
    INVALIDATED = "invalidated"
    ARCHIVED = "archived"
    CONTESTED = "contested"


# Statuses under which a node is part of the live graph the resume is rendered from.
LIVE_STATUSES = frozenset(
    {Status.PENDING, Status.IN_PROGRESS, Status.COMPLETED, Status.FAILED, Status.CONTESTED}
)

# Node types that pruning never removes (as long as they are live; decisions only while in force).
PROTECTED_TYPES = frozenset({NodeType.GOAL, NodeType.ENVIRONMENT, NodeType.SCHEMA})

EXTRACTOR = "extractor"  # the actor name of transitions made by extraction, not by a person

_EDGE_PUNCT = " \t\n.,;:!?\"'`()[]{}<>*_"


@lru_cache(maxsize=16384)
def normalize_label(label: str) -> str:
    """The identity key of a label: NFKC, case-folded, single-spaced, outer punctuation removed."""
    text = unicodedata.normalize("NFKC", label).casefold()
    return " ".join(text.split()).strip(_EDGE_PUNCT)  # the space is an edge character too


NodeKey = tuple[NodeType, str]


@dataclass(frozen=True)
class Turn:
    """One message of a session as the domain sees it."""

    position: int  # 0-based index in the session transcript
    role: str  # system | user | assistant | tool
    content: str
    timestamp: float = 0.0  # epoch seconds; valid time of what the message states


@dataclass(frozen=True)
class Evidence:
    position: int  # the source message
    quote: str  # the words of that message the fact was read from


@dataclass
class Candidate:
    """A fact proposed by an extractor, before validation and before it meets the graph."""

    type: NodeType
    label: str
    status: Status
    confidence: float
    evidence: Evidence
    reason: str = ""  # decisions: why, when the text says
    replaces: str = (
        ""  # decisions: the option the text says this one replaces ("from X", "instead of X")
    )
    fixes: str = ""  # fixes: the label of the error this fact resolves
    cue: str = ""  # which rule produced it (for the validator and for debugging)

    @property
    def key(self) -> NodeKey:
        return (self.type, normalize_label(self.label))


@dataclass
class Node:
    type: NodeType
    label: str
    status: Status
    confidence: float
    evidence: Evidence
    importance: float = 1.0
    mentions: int = 1
    reason: str = ""
    # Valid time: the message (position and timestamp) from which the fact held, and until which.
    valid_from: int = 0
    valid_from_at: float = 0.0
    valid_until: int | None = None
    valid_until_at: float | None = None
    # Record time: when the system learned the fact and when it retired it.
    recorded_at: float = 0.0
    retired_at: float | None = None
    last_seen_at: float = 0.0  # timestamp of the latest mention; decay runs from it
    # Read by the learned lexicon alone, no rule: a likely fact, not a stated one. A decision so
    # read is neither judged against others nor shown as in force until a rule states it.
    learned: bool = False
    # Every status the node has had: [position, valid_at, recorded_at, status], oldest first, kept
    # as plain lists so it stores as JSON; time travel reads earlier statuses from it.
    history: list[list] = field(default_factory=list)

    @property
    def key(self) -> NodeKey:
        return (self.type, normalize_label(self.label))


@dataclass
class Edge:
    source: NodeKey
    target: NodeKey
    type: EdgeType
    recorded_at: float = 0.0
    retired_at: float | None = None

    @property
    def key(self) -> tuple[NodeKey, NodeKey, EdgeType]:
        return (self.source, self.target, self.type)


@dataclass
class Transition:
    """Why a decision changed status. Keeps the labels it names, so it outlives pruning of the nodes."""

    old_label: str
    new_label: str  # empty for a transition of one decision alone (invalidate, resolve-keep)
    from_status: Status
    to_status: Status
    trigger: int  # the position of the message that caused it
    reason: str = ""
    evidence: str = ""  # a quote
    confidence_before: float = 0.0
    confidence_after: float = 0.0
    actor: str = EXTRACTOR
    at: float = 0.0


@dataclass
class Graph:
    """The whole typed memory of one session."""

    nodes: dict[NodeKey, Node] = field(default_factory=dict)
    edges: dict[tuple[NodeKey, NodeKey, EdgeType], Edge] = field(default_factory=dict)
    transitions: list[Transition] = field(default_factory=list)
    high_water: int = -1  # the position of the last message extracted

    def live(self) -> list[Node]:
        return [
            n for n in self.nodes.values() if n.status in LIVE_STATUSES and n.retired_at is None
        ]

    def live_edges(self) -> list[Edge]:
        """Edges not retired (a resolved conflicts_with edge is kept, retired, for time travel)."""
        return [e for e in self.edges.values() if e.retired_at is None]

    def of_type(self, node_type: NodeType) -> list[Node]:
        return [n for n in self.nodes.values() if n.type == node_type]
