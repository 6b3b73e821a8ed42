"""Loading a session's graph from the database into the domain core, and saving it back."""

from __future__ import annotations

import dataclasses
import time
from datetime import UTC, datetime

from django.db import transaction

from memory.graph import pipeline
from memory.graph.types import Edge as GraphEdge
from memory.graph.types import (
    EXTRACTOR,
    Evidence,
    Graph,
    NodeType,
    Status,
    Transition,
    Turn,
    normalize_label,
)
from memory.graph.types import Node as GraphNode
from memory.models import DecisionTransition, Edge, Node, Session

_TIME_FIELDS = ("valid_from_at", "valid_until_at", "recorded_at", "retired_at", "last_seen_at")
_COLUMN_FIELDS = {f.name for f in dataclasses.fields(GraphNode)} - {"type", "evidence"}
_NODE_COLUMNS = {f.name for f in Node._meta.get_fields()}


def to_datetime(stamp: float | None) -> datetime | None:
    return None if stamp is None else datetime.fromtimestamp(stamp, tz=UTC)


def to_stamp(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


def turns_of(session: Session, after: int = -1) -> list[Turn]:
    rows = session.messages.filter(position__gt=after).order_by("position")
    return [
        Turn(m.position, m.role, m.content, m.created_at.timestamp())
        for m in rows.only("position", "role", "content", "created_at")
    ]


def _graph_node(row: Node) -> GraphNode:
    values = {}
    for name in _COLUMN_FIELDS:
        value = getattr(row, name) if name in _NODE_COLUMNS else row.extra.get(name)
        if name in _TIME_FIELDS and name in _NODE_COLUMNS:
            value = to_stamp(value)
            if value is None and name in ("valid_from_at", "recorded_at", "last_seen_at"):
                value = 0.0
        if value is not None or name in _NODE_COLUMNS:
            values[name] = value
    evidence = Evidence(row.evidence_position, row.evidence_quote)
    return GraphNode(type=NodeType(row.type), evidence=evidence, **values)


def load_graph(session: Session) -> Graph:
    rows = {n.pk: n for n in session.nodes.all()}
    graph = Graph(high_water=session.high_water)
    for row in rows.values():
        node = _graph_node(row)
        graph.nodes[node.key] = node
    for e in session.edges.all():
        edge = GraphEdge(
            source=(NodeType(rows[e.source_id].type), rows[e.source_id].key),
            target=(NodeType(rows[e.target_id].type), rows[e.target_id].key),
            type=e.type,
            recorded_at=e.recorded_at.timestamp(),
            retired_at=to_stamp(e.retired_at),
        )
        graph.edges[edge.key] = edge
    for t in session.transitions.order_by("sequence"):
        graph.transitions.append(
            Transition(
                old_label=t.old_label, new_label=t.new_label,
                from_status=Status(t.from_status), to_status=Status(t.to_status),
                trigger=t.trigger_position, reason=t.reason, evidence=t.evidence,
                confidence_before=t.confidence_before, confidence_after=t.confidence_after,
                actor=t.actor, at=t.at.timestamp(),
            )
        )
    return graph


def _row_values(node: GraphNode, message_ids: dict[int, int]) -> dict:
    values, extra = {}, {}
    for name in _COLUMN_FIELDS:
        value = getattr(node, name)
        if name in _NODE_COLUMNS:
            values[name] = to_datetime(value) if name in _TIME_FIELDS else value
        else:
            extra[name] = value
    values.update(
        type=str(node.type), key=node.key[1], status=str(node.status), extra=extra,
        evidence_position=node.evidence.position, evidence_quote=node.evidence.quote,
        evidence_message_id=message_ids.get(node.evidence.position),
    )
    return values


def _save_nodes(session: Session, graph: Graph) -> dict:
    message_ids = dict(session.messages.values_list("position", "pk"))
    existing = {(NodeType(n.type), n.key): n for n in session.nodes.all()}
    gone = [row.pk for key, row in existing.items() if key not in graph.nodes]
    Node.objects.filter(pk__in=gone).delete()
    to_create, to_update = [], []
    for key, node in graph.nodes.items():
        values = _row_values(node, message_ids)
        row = existing.get(key)
        if row is None:
            to_create.append(Node(session=session, **values))
            continue
        if any(getattr(row, f) != v for f, v in values.items()):
            for field, value in values.items():
                setattr(row, field, value)
            to_update.append(row)
    Node.objects.bulk_create(to_create)
    if to_update:
        Node.objects.bulk_update(to_update, list(_row_values(graph.nodes[key], message_ids)))
    return {(NodeType(n.type), n.key): n.pk for n in session.nodes.all()}


def _save_edges(session: Session, graph: Graph, node_ids: dict) -> None:
    existing = {
        (e.source_id, e.target_id, e.type): e for e in session.edges.all()
    }
    wanted = {}
    for edge in graph.edges.values():
        if edge.source in node_ids and edge.target in node_ids:
            wanted[(node_ids[edge.source], node_ids[edge.target], str(edge.type))] = edge
    Edge.objects.filter(pk__in=[e.pk for k, e in existing.items() if k not in wanted]).delete()
    for (source, target, kind), edge in wanted.items():
        row = existing.get((source, target, kind))
        retired = to_datetime(edge.retired_at)
        if row is None:
            Edge.objects.create(
                session=session, source_id=source, target_id=target, type=kind,
                recorded_at=to_datetime(edge.recorded_at), retired_at=retired,
            )
        elif row.retired_at != retired:
            row.retired_at = retired
            row.save(update_fields=["retired_at"])


def _save_transitions(session: Session, graph: Graph, node_ids: dict, actor_user=None) -> None:
    stored = session.transitions.count()
    message_ids = dict(session.messages.values_list("position", "pk"))
    rows = []
    for sequence, t in enumerate(graph.transitions[stored:], start=stored):
        rows.append(
            DecisionTransition(
                session=session, sequence=sequence,
                old_node_id=node_ids.get((NodeType.DECISION, normalize_label(t.old_label))),
                new_node_id=node_ids.get((NodeType.DECISION, normalize_label(t.new_label))),
                old_label=t.old_label, new_label=t.new_label,
                from_status=str(t.from_status), to_status=str(t.to_status),
                trigger_message_id=message_ids.get(t.trigger), trigger_position=t.trigger,
                reason=t.reason, evidence=t.evidence,
                confidence_before=t.confidence_before, confidence_after=t.confidence_after,
                actor=t.actor, actor_user=None if t.actor == EXTRACTOR else actor_user,
                at=to_datetime(t.at),
            )
        )
    DecisionTransition.objects.bulk_create(rows)


def save_graph(session: Session, graph: Graph, actor_user=None) -> None:
    """Write ``graph`` back as the session's rows: nodes upserted by key, edges, new transitions."""
    node_ids = _save_nodes(session, graph)
    _save_edges(session, graph, node_ids)
    _save_transitions(session, graph, node_ids, actor_user)
    session.high_water = graph.high_water
    session.save(update_fields=["high_water", "updated_at"])


def extract_session(session_id: int, now: float | None = None) -> int | None:
    """Extract the session's messages past its high-water mark; None when the session is gone."""
    with transaction.atomic():
        session = Session.objects.select_for_update().filter(pk=session_id).first()
        if session is None:
            return None
        graph = load_graph(session)
        turns = turns_of(session, after=session.high_water - pipeline.CONTEXT_TURNS)
        candidates = pipeline.extract_into(graph, turns, now if now is not None else time.time())
        if candidates or graph.high_water != session.high_water:
            save_graph(session, graph)
        return len(candidates)

