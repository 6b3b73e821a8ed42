"""What people do to decisions: invalidate one, or resolve a contested pair; recorded with the actor."""

from __future__ import annotations

import time
from collections.abc import Callable

from django.db import transaction

from memory import graphs, notify
from memory.graph import lifecycle
from memory.graph.types import Graph, NodeType
from memory.models import Node, Session

OUTCOMES = lifecycle.OUTCOMES


class DecisionError(ValueError):
    """The action cannot be applied as asked; the message says why."""


def _key(node: Node) -> tuple[NodeType, str]:
    return (NodeType(node.type), node.key)


def _act(session: Session, user, change: Callable[[Graph, float], object]) -> None:
    """Apply a person's ``change`` to the session's graph in one transaction, row locked."""
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session.pk)
        graph, rows = graphs.load_with_rows(session)
        try:
            change(graph, time.time())
        except (ValueError, KeyError) as error:
            raise DecisionError(str(error)) from None
        graphs.save_graph(session, graph, rows, actor_user=user)
        notify.graph_changed(session)


def invalidate(node: Node, reason: str, user) -> None:
    """Mark a decision as wrong; it stays as a warning and re-extraction never revives it."""
    if node.type != NodeType.DECISION:
        raise DecisionError("only decisions can be invalidated")
    _act(
        node.session,
        user,
        lambda graph, now: lifecycle.invalidate(graph, _key(node), reason, user.username, now),
    )


def resolve_contested(node_a: Node, node_b: Node, outcome: str, reason: str, user) -> None:
    """Settle a contested pair: keep both, one replaces the other, or invalidate one."""
    if node_a.session_id != node_b.session_id:
        raise DecisionError("the two decisions belong to different sessions")
    _act(
        node_a.session,
        user,
        lambda graph, now: lifecycle.resolve_contested(
            graph, _key(node_a), _key(node_b), outcome, reason, user.username, now
        ),
    )
