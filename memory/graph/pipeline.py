"""One extraction pass: the turns past the graph's high-water mark become candidates, then graph changes."""

from __future__ import annotations

from collections.abc import Sequence

from memory.graph import extraction, lifecycle, validator
from memory.graph.types import Candidate, Graph, Turn

CONTEXT_TURNS = 4  # earlier turns the extractor may read to resolve references ("it", "that one")


def extract_into(graph: Graph, turns: Sequence[Turn], now: float) -> list[Candidate]:
    """Extract the turns after ``graph.high_water`` and apply them to ``graph``, in message order.

    Idempotent: turns at or below the high-water mark are never extracted again, so replaying a
    transcript, whole or in overlapping chunks, gives the same graph. ``now`` is the record time.
    """
    ordered = sorted(turns, key=lambda t: t.position)
    new = [t for t in ordered if t.position > graph.high_water]
    if not new:
        return []
    context = [t for t in ordered if t.position <= graph.high_water][-CONTEXT_TURNS:]
    candidates = merge(graph, extraction.extract(new, context=context), ordered, now)
    graph.high_water = new[-1].position
    return candidates


def merge(
    graph: Graph, proposed: Sequence[Candidate], turns: Sequence[Turn], now: float
) -> list[Candidate]:
    """Validate candidates from any extractor and apply them to the graph in message order."""
    candidates = validator.validate(proposed)
    candidates.sort(key=lambda c: c.evidence.position)  # stable: keeps in-message order
    lifecycle.apply(graph, candidates, {t.position: t for t in turns}, now)
    return candidates


def build_graph(turns: Sequence[Turn], now: float = 0.0) -> Graph:
    """The graph of a whole transcript, from nothing."""
    graph = Graph()
    extract_into(graph, turns, now)
    return graph
