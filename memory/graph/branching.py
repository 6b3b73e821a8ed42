"""The starting graph of a branch: another session's graph as it stood at one of its checkpoints."""

from __future__ import annotations

from memory.graph import timetravel
from memory.graph.types import LIVE_STATUSES, EdgeType, Graph, Status

# Transitions inherited from the source name no message of the branch (as explicit actions do).
INHERITED = -1


def branch_graph(
    graph: Graph,
    position: int,
    statuses: dict[str, str] | None = None,
    high_water: int = -1,
    at: float | None = None,
) -> Graph:
    """The graph a branch starts from: ``graph`` as it held at message ``position``.

    ``statuses`` is the checkpoint's snapshot ("type:key" → status): it says exactly which facts
    the checkpoint knew and in which status (explicit actions, such as a person invalidating a
    decision, count as after the last message in valid time, but the checkpoint had seen them).
    Positions are rebased for the branch: inherited facts keep their order but sit before its
    first message (negative positions, so evidence and transition triggers name no message of
    its own), and ``high_water`` is what its own transcript already covers (-1 for none). Links retired after record time ``at`` (when the
    checkpoint was made) were still there at the checkpoint.
    """
    view = timetravel.as_of_valid(graph, position=position)
    if statuses is not None:
        view.nodes = {k: n for k, n in view.nodes.items() if f"{k[0]}:{k[1]}" in statuses}
        for (kind, key), node in view.nodes.items():
            node.status = Status(statuses[f"{kind}:{key}"])
    shift = position + 1
    for node in view.nodes.values():
        node.valid_from -= shift
        node.valid_until = node.valid_until_at = None
        node.evidence = type(node.evidence)(node.evidence.position - shift, node.evidence.quote)
        if node.status in LIVE_STATUSES:
            node.retired_at = None
        elif node.retired_at is None:
            node.retired_at = node.recorded_at
        node.history = [[node.valid_from, node.valid_from_at, node.recorded_at, str(node.status)]]
    for key, edge in list(view.edges.items()):
        ends = [view.nodes[edge.source], view.nodes[edge.target]]
        if edge.type == EdgeType.CONFLICTS_WITH:
            if all(n.status == Status.CONTESTED for n in ends):
                edge.retired_at = None
            else:
                del view.edges[key]
        elif at is not None and edge.retired_at is not None and edge.retired_at > at:
            edge.retired_at = None
    for transition in view.transitions:
        transition.trigger = INHERITED
    view.high_water = high_water
    return view
