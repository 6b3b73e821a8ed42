"""A session's graph as it stands now or stood at an earlier message or time, ready to show."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memory.graph import timetravel
from memory.graph.types import Graph, Node, NodeType
from memory.graphs import load_graph
from memory.models import Session


@dataclass(frozen=True)
class NodeView:
    """A node of the (possibly time-travelled) graph, with the id of its row for links."""

    pk: int
    node: Node

    def __getattr__(self, name: str):
        return getattr(self.node, name)

    @property
    def type_name(self) -> str:
        return str(self.node.type)

    @property
    def status_name(self) -> str:
        return str(self.node.status)

    @property
    def status_label(self) -> str:
        return str(self.node.status).replace("_", " ")


@dataclass(frozen=True)
class GraphView:
    graph: Graph
    nodes: list[NodeView]
    ids: dict  # node key -> row pk
    position: int | None = None
    at: datetime | None = None

    @property
    def travelled(self) -> bool:
        return self.position is not None or self.at is not None


def last_position(session: Session) -> int | None:
    """The position of the session's latest message, the far end of the time-travel control."""
    return session.messages.order_by("-position").values_list("position", flat=True).first()


def session_graph(
    session: Session, position: int | None = None, at: datetime | None = None
) -> GraphView:
    """The graph now; with ``position`` as it held at that message (valid time); with ``at`` as the
    memory knew it at that moment (record time)."""
    graph = load_graph(session)
    if position is not None:
        graph = timetravel.as_of_valid(graph, position=position)
    elif at is not None:
        graph = timetravel.as_of_record(graph, at.timestamp())
    ids = {(NodeType(t), k): pk for t, k, pk in session.nodes.values_list("type", "key", "pk")}
    nodes = [NodeView(ids[key], node) for key, node in graph.nodes.items() if key in ids]
    nodes.sort(key=lambda v: (-v.node.importance, v.node.valid_from, v.node.label))
    return GraphView(graph, nodes, ids, position, at)


def graph_data(view: GraphView) -> dict:
    """Nodes and links for the force-directed view."""
    nodes = [
        {"id": v.pk, "label": v.node.label, "type": str(v.node.type),
         "status": str(v.node.status), "importance": round(v.node.importance, 3)}
        for v in view.nodes
    ]  # fmt: skip
    links = [
        {"source": view.ids[e.source], "target": view.ids[e.target], "type": str(e.type),
         "retired": e.retired_at is not None}
        for e in view.graph.edges.values()
        if e.source in view.ids and e.target in view.ids
    ]  # fmt: skip
    return {"nodes": nodes, "links": links}
