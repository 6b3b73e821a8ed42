"""What the benchmark reads off the method's graph as its lifecycle report."""

from benchmarks.extraction import reported_lifecycle
from memory.graph.types import (
    Edge,
    EdgeType,
    Evidence,
    Graph,
    Node,
    NodeType,
    Status,
    Transition,
)


def decision(label: str, status: Status = Status.COMPLETED) -> Node:
    return Node(NodeType.DECISION, label, status, 0.9, Evidence(0, label))


def graph_with(*nodes: Node) -> Graph:
    return Graph(nodes={n.key: n for n in nodes})


def conflict(a: Node, b: Node, retired: float | None = None) -> Edge:
    return Edge(a.key, b.key, EdgeType.CONFLICTS_WITH, retired_at=retired)


def test_supersession_is_read_from_transitions_naming_a_new_decision():
    graph = graph_with(decision("JWT", Status.SUPERSEDED), decision("sessions"))
    graph.transitions += [
        Transition("JWT", "sessions", Status.COMPLETED, Status.SUPERSEDED, 3, reason="revocation"),
        Transition("Redis", "", Status.COMPLETED, Status.SUPERSEDED, 4),
        Transition("a", "b", Status.COMPLETED, Status.CONTESTED, 5),
    ]
    assert reported_lifecycle(graph, ())["superseded"] == [("JWT", "sessions", "revocation")]


def test_only_unresolved_conflicts_between_decisions_are_contested():
    room, okhttp, old = decision("Room cache"), decision("OkHttp cache"), decision("old")
    graph = graph_with(room, okhttp, old)
    for edge in (conflict(room, okhttp), conflict(okhttp, room), conflict(old, room, retired=1.0)):
        graph.edges[edge.key] = edge
    report = reported_lifecycle(graph, ("old",))
    assert report["contested"] == [["OkHttp cache", "Room cache"]]
    assert report["in_force"] == ["old"]
