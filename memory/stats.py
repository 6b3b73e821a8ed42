"""Counts of what the memory holds, for a session or a whole project (the API's stats)."""

from __future__ import annotations

from django.db.models import Count, OuterRef, QuerySet, Subquery, Sum

from memory import checkpoints, review
from memory.models import Checkpoint, Message, Node, Project, Session


def _counts(nodes: QuerySet, field: str) -> dict[str, int]:
    return dict(nodes.order_by(field).values_list(field).annotate(n=Count("pk")))


def session_stats(session: Session) -> dict:
    latest = checkpoints.latest_checkpoint(session)
    return {
        "nodes_by_type": _counts(session.nodes.all(), "type"),
        "nodes_by_status": _counts(session.nodes.all(), "status"),
        "contested": len(review.contested_pairs(session.project, session.pk)),
        "messages": session.messages.count(),
        "transcript_tokens": checkpoints.transcript_tokens(session),
        "latest_checkpoint": latest,
    }


def project_stats(project: Project) -> dict:
    nodes = Node.objects.filter(session__project=project)
    messages = Message.objects.filter(session__project=project)
    latest = Checkpoint.objects.filter(session=OuterRef("pk")).order_by("-sequence").values("pk")
    latest_ids = project.sessions.annotate(cp=Subquery(latest[:1])).values("cp")
    totals = Checkpoint.objects.filter(pk__in=latest_ids).aggregate(
        sessions=Count("pk"), tokens_before=Sum("tokens_before"), tokens_after=Sum("tokens_after")
    )
    return {
        "sessions": project.sessions.count(),
        "nodes_by_type": _counts(nodes, "type"),
        "nodes_by_status": _counts(nodes, "status"),
        "contested": review.contested_count(project),
        "messages": messages.count(),
        "transcript_tokens": messages.aggregate(n=Sum("token_count"))["n"] or 0,
        "latest_checkpoints": {k: v or 0 for k, v in totals.items()},
    }
