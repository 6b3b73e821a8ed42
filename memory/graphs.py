"""Loading a session's graph from the database into the domain core, and saving it back."""

from __future__ import annotations

import dataclasses
import time
from datetime import UTC, datetime

from django.db import transaction

from memory import notify
from memory.graph import importance, pipeline
from memory.graph.types import (
    EXTRACTOR,
    EdgeType,
    Evidence,
    Graph,
    NodeType,
    Status,
    Transition,
    Turn,
    normalize_label,
)
from memory.graph.types import Edge as GraphEdge
from memory.graph.types import Node as GraphNode
from memory.models import DecisionTransition, Edge, Message, Node, Session
from tokenmizer_site import sql

# Domain node fields: those with a column of the same name, the rest kept in the row's `extra`.
_DOMAIN_FIELDS = {f.name for f in dataclasses.fields(GraphNode)} - {"type", "evidence"}
_NODE_COLUMNS = {f.name for f in Node._meta.get_fields()}
_TIME_FIELDS = ("valid_from_at", "valid_until_at", "recorded_at", "retired_at", "last_seen_at")
_ALWAYS_SET = ("valid_from_at", "recorded_at", "last_seen_at")  # 0.0 in the domain when unknown


def to_datetime(stamp: float | None) -> datetime | None:
    return None if stamp is None else datetime.fromtimestamp(stamp, tz=UTC)


def to_stamp(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


def turns_of(session: Session, after: int = -1) -> list[Turn]:
    rows = session.messages.filter(position__gt=after).order_by("position")
    return [
        Turn(position, role, content, created_at.timestamp())
        for position, role, content, created_at in rows.values_list(
            "position", "role", "content", "created_at"
        )
    ]


def _graph_node(row: Node) -> GraphNode:
    values = {name: row.extra[name] for name in _DOMAIN_FIELDS - _NODE_COLUMNS if name in row.extra}
    for name in _DOMAIN_FIELDS & _NODE_COLUMNS:
        value = getattr(row, name)
        if name in _TIME_FIELDS:
            value = to_stamp(value)
            if value is None and name in _ALWAYS_SET:
                value = 0.0
        values[name] = value
    evidence = Evidence(row.evidence_position, row.evidence_quote)
    return GraphNode(type=NodeType(row.type), evidence=evidence, **values)


def _load(session: Session) -> tuple[Graph, dict]:
    """The graph, and its node rows by key (so saving need not read them again)."""
    # Plain SQL: a job loads the graph after every exchange, and compiling the ORM's queries
    # took longer than running them.
    rows = {(NodeType(n.type), n.key): n for n in sql.rows(Node, "session", session.pk)}
    by_pk = {n.pk: key for key, n in rows.items()}
    graph = Graph(high_water=session.high_water)
    for key, row in rows.items():
        graph.nodes[key] = _graph_node(row)
    for e in sql.rows(Edge, "session", session.pk):
        edge = GraphEdge(
            source=by_pk[e.source_id],
            target=by_pk[e.target_id],
            type=EdgeType(e.type),
            recorded_at=e.recorded_at.timestamp(),
            retired_at=to_stamp(e.retired_at),
        )
        graph.edges[edge.key] = edge
    for t in sql.rows(DecisionTransition, "session", session.pk, order_by=("sequence",)):
        graph.transitions.append(
            Transition(
                old_label=t.old_label,
                new_label=t.new_label,
                from_status=Status(t.from_status),
                to_status=Status(t.to_status),
                trigger=t.trigger_position,
                reason=t.reason,
                evidence=t.evidence,
                confidence_before=t.confidence_before,
                confidence_after=t.confidence_after,
                actor=t.actor,
                at=t.at.timestamp(),
            )
        )
    return graph, rows


def load_graph(session: Session) -> Graph:
    return _load(session)[0]


def load_with_rows(session: Session) -> tuple[Graph, dict]:
    """The graph and its node rows by key, to hand back to ``save_graph``."""
    return _load(session)


def _row_values(node: GraphNode, message_ids: dict[int, int]) -> dict:
    values, extra = {}, {}
    for name in _DOMAIN_FIELDS:
        value = getattr(node, name)
        if name in _NODE_COLUMNS:
            values[name] = to_datetime(value) if name in _TIME_FIELDS else value
        else:
            extra[name] = value
    values.update(
        type=str(node.type),
        key=node.key[1],
        status=str(node.status),
        extra=extra,
        evidence_position=node.evidence.position,
        evidence_quote=node.evidence.quote,
        evidence_message_id=message_ids.get(node.evidence.position),
    )
    return values


def _message_ids(session: Session, positions: set[int]) -> dict[int, int]:
    return sql.pairs(Message, "session", session.pk, "position", "id", positions)


def _save_nodes(session: Session, graph: Graph, existing: dict) -> tuple[dict, bool]:
    """Upsert the graph's nodes; their ids by key, and whether anything changed."""
    gone = [row.pk for key, row in existing.items() if key not in graph.nodes]
    if gone:
        Node.objects.filter(pk__in=gone).delete()
    message_ids = _message_ids(session, {n.evidence.position for n in graph.nodes.values()})
    to_create, to_update, changed_fields = [], [], set()
    for key, node in graph.nodes.items():
        values = _row_values(node, message_ids)
        row = existing.get(key)
        if row is None:
            to_create.append(Node(session=session, **values))
            continue
        changed = {f: v for f, v in values.items() if getattr(row, f) != v}
        if changed:
            for field, value in changed.items():
                setattr(row, field, value)
            to_update.append(row)
            changed_fields.update(changed)
    Node.objects.bulk_create(to_create)
    # Only the columns that changed: an extraction mostly moves a few.
    sql.update_rows(Node, to_update, sorted(changed_fields))
    ids = {key: row.pk for key, row in existing.items() if key in graph.nodes}
    ids.update({(NodeType(n.type), n.key): n.pk for n in to_create})
    return ids, bool(gone or to_create or to_update)


def _save_edges(session: Session, graph: Graph, node_ids: dict) -> bool:
    existing = {
        (e.source_id, e.target_id, e.type): e for e in sql.rows(Edge, "session", session.pk)
    }
    wanted = {}
    for edge in graph.edges.values():
        if edge.source in node_ids and edge.target in node_ids:
            wanted[(node_ids[edge.source], node_ids[edge.target], str(edge.type))] = edge
    gone = [e.pk for k, e in existing.items() if k not in wanted]
    if gone:
        Edge.objects.filter(pk__in=gone).delete()
    created, retired = [], []
    for (source, target, kind), edge in wanted.items():
        row = existing.get((source, target, kind))
        retired_at = to_datetime(edge.retired_at)
        if row is None:
            created.append(
                Edge(
                    session=session,
                    source_id=source,
                    target_id=target,
                    type=kind,
                    recorded_at=to_datetime(edge.recorded_at),
                    retired_at=retired_at,
                )
            )
        elif row.retired_at != retired_at:
            row.retired_at = retired_at
            retired.append(row)
    sql.insert_rows(Edge, created)
    sql.update_rows(Edge, retired, ["retired_at"])
    return bool(gone or created or retired)


def _save_transitions(session: Session, graph: Graph, node_ids: dict, actor_user=None) -> bool:
    stored = sql.count(DecisionTransition, "session", session.pk)
    new = graph.transitions[stored:]
    message_ids = _message_ids(session, {t.trigger for t in new})
    rows = [
        DecisionTransition(
            session=session,
            sequence=sequence,
            old_node_id=node_ids.get((NodeType.DECISION, normalize_label(t.old_label))),
            new_node_id=node_ids.get((NodeType.DECISION, normalize_label(t.new_label))),
            old_label=t.old_label,
            new_label=t.new_label,
            from_status=str(t.from_status),
            to_status=str(t.to_status),
            trigger_message_id=message_ids.get(t.trigger),
            trigger_position=t.trigger,
            reason=t.reason,
            evidence=t.evidence,
            confidence_before=t.confidence_before,
            confidence_after=t.confidence_after,
            actor=t.actor,
            actor_user=None if t.actor == EXTRACTOR else actor_user,
            at=to_datetime(t.at),
        )
        for sequence, t in enumerate(new, start=stored)
    ]
    sql.insert_rows(DecisionTransition, rows)
    return bool(new)


def save_graph(session: Session, graph: Graph, rows: dict | None = None, actor_user=None) -> bool:
    """Write ``graph`` back as the session's rows: nodes upserted by key, edges, new transitions.

    ``rows`` are the node rows the graph was loaded from, if at hand. The session's graph version
    moves on when anything changed, so checkpoints can tell whether the graph has moved past them.
    """
    if rows is None:
        rows = {(NodeType(n.type), n.key): n for n in session.nodes.all()}
    node_ids, changed = _save_nodes(session, graph, rows)
    changed = _save_edges(session, graph, node_ids) | changed
    changed = _save_transitions(session, graph, node_ids, actor_user) | changed
    session.high_water = graph.high_water
    session.graph_version += int(changed)
    session.save(update_fields=["high_water", "graph_version", "updated_at"])
    return changed


def extract_session(session_id: int, now: float | None = None) -> int | None:
    """Extract the session's messages past its high-water mark; None when the session is gone."""
    with transaction.atomic():
        session = Session.objects.select_for_update().filter(pk=session_id).first()
        if session is None:
            return None
        if not session.messages.filter(position__gt=session.high_water).exists():
            return 0
        graph, rows = load_with_rows(session)
        turns = turns_of(session, after=session.high_water - pipeline.CONTEXT_TURNS)
        candidates = pipeline.extract_into(graph, turns, now if now is not None else time.time())
        if save_graph(session, graph, rows):
            notify.graph_changed(session)
        return len(candidates)


def _maintain(session_id: int, change) -> bool | None:
    with transaction.atomic():
        session = Session.objects.select_for_update().filter(pk=session_id).first()
        if session is None:
            return None
        graph, rows = load_with_rows(session)
        change(graph)
        changed = save_graph(session, graph, rows)
        if changed:
            notify.graph_changed(session)
        return changed


def decay_session(session_id: int, now: float) -> bool | None:
    """Importance as of ``now``, from timestamps: running it twice changes nothing."""
    return _maintain(session_id, lambda graph: importance.decay(graph, now))


def prune_session(session_id: int, cap: int, now: float) -> bool | None:
    """Archive and remove the least important nodes above ``cap``; never protected ones."""
    return _maintain(session_id, lambda graph: importance.prune(graph, cap, now))
