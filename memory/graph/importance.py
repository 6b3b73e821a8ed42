"""Node importance: reinforcement on re-mention, decay from timestamps, pruning above a cap."""

from __future__ import annotations

import math

from memory.graph.timetravel import change_status
from memory.graph.types import PROTECTED_TYPES, Graph, Node, NodeKey, NodeType, Status

HALF_LIFE_S = 7 * 24 * 3600.0  # a week without mention halves a node's weight

# What a fact is worth when first seen; goals and decisions steer the most later work.
TYPE_WEIGHT = {
    NodeType.GOAL: 3.0,
    NodeType.DECISION: 2.0,
    NodeType.ENVIRONMENT: 2.0,
    NodeType.SCHEMA: 2.0,
    NodeType.TASK: 1.5,
    NodeType.ERROR: 1.5,
    NodeType.API: 1.2,
    NodeType.ENDPOINT: 1.2,
}

# Statuses whose nodes are history rather than working state: removable once over the cap.
_HISTORY = frozenset({Status.SUPERSEDED, Status.ARCHIVED})


def base(node: Node) -> float:
    """The undecayed weight: the type's weight, growing with the log of the mentions."""
    return TYPE_WEIGHT.get(node.type, 1.0) * (1.0 + math.log2(max(node.mentions, 1)))


def current(node: Node, now: float, half_life_s: float = HALF_LIFE_S) -> float:
    """Importance at ``now``: a pure function of the node's mentions, type and last mention time."""
    idle = max(0.0, now - node.last_seen_at)
    return base(node) * 0.5 ** (idle / half_life_s)


def reinforce(node: Node, at: float) -> None:
    """A re-mention at ``at``: one more mention, the clock restarted, importance at its base."""
    node.mentions += 1
    node.last_seen_at = max(node.last_seen_at, at)
    node.importance = base(node)


def decay(graph: Graph, now: float, half_life_s: float = HALF_LIFE_S) -> None:
    """Set every node's importance as of ``now``; computed from timestamps, so it is idempotent."""
    for node in graph.nodes.values():
        node.importance = current(node, now, half_life_s)


def is_protected(node: Node) -> bool:
    """Nodes pruning never touches: live goals/environment/schemas, decisions in force or contested,
    and tombstones (an invalidated decision must stay to keep re-extraction from reviving it)."""
    if node.status == Status.INVALIDATED:
        return True
    if node.type == NodeType.DECISION:
        return node.status in (Status.COMPLETED, Status.CONTESTED)
    return node.type in PROTECTED_TYPES and node.status not in _HISTORY


def prune(graph: Graph, cap: int, now: float, half_life_s: float = HALF_LIFE_S) -> list[NodeKey]:
    """Keep at most ``cap`` live nodes and ``cap`` history nodes, protected ones aside.

    Live nodes over the cap are archived (retired, kept); history nodes (superseded, archived) over
    the cap are removed with their edges. Transitions are never touched: they carry their labels.
    Lowest importance goes first; the order is total, so pruning twice gives the same graph.
    Returns the keys archived or removed.
    """

    def rank(n: Node) -> tuple:
        return (current(n, now, half_life_s), n.last_seen_at, n.valid_from, n.label)

    touched: list[NodeKey] = []
    live = [n for n in graph.live() if not is_protected(n)]
    excess = len(graph.live()) - cap
    for node in sorted(live, key=rank)[: max(0, excess)]:
        change_status(node, Status.ARCHIVED, graph.high_water + 1, now, now)
        for edge in graph.edges.values():
            if node.key in (edge.source, edge.target) and edge.retired_at is None:
                edge.retired_at = now
        touched.append(node.key)
    history = [n for n in graph.nodes.values() if n.status in _HISTORY and not is_protected(n)]
    for node in sorted(history, key=rank)[: max(0, len(history) - cap)]:
        del graph.nodes[node.key]
        for key in [k for k, e in graph.edges.items() if node.key in (e.source, e.target)]:
            del graph.edges[key]
        touched.append(node.key)
    return touched
