"""The contested decisions of a project waiting for a person, and the decision history beside them."""

from __future__ import annotations

from dataclasses import dataclass

from memory.graph.types import EdgeType, Status
from memory.models import DecisionTransition, Edge, Node, Project


@dataclass(frozen=True)
class ContestedPair:
    edge_id: int
    a: Node
    b: Node

    @property
    def session(self):
        return self.a.session


def contested_pairs(project: Project, session_id: int | None = None) -> list[ContestedPair]:
    """Live conflicts_with edges whose two decisions are both still contested, oldest first."""
    edges = Edge.objects.filter(
        session__project=project,
        type=EdgeType.CONFLICTS_WITH,
        retired_at__isnull=True,
        source__status=Status.CONTESTED,
        target__status=Status.CONTESTED,
    )
    if session_id is not None:
        edges = edges.filter(session_id=session_id)
    related = ("source__evidence_message", "target__evidence_message", "session__user")
    edges = edges.select_related(*related, "source__session", "target__session")
    # The older decision on the left, so "A replaces B" reads as the newer one winning or not.
    pairs = []
    for edge in edges.order_by("recorded_at", "pk"):
        a, b = sorted((edge.source, edge.target), key=lambda n: (n.valid_from, n.pk))
        pairs.append(ContestedPair(edge.pk, a, b))
    return pairs


def contested_count(project: Project) -> int:
    return len(contested_pairs(project))


def decision_history(project: Project):
    """Every decision transition of the project, newest first, with its trigger and actor."""
    return (
        DecisionTransition.objects.filter(session__project=project)
        .select_related("session", "trigger_message", "actor_user", "old_node", "new_node")
        .order_by("-at", "-sequence")
    )
