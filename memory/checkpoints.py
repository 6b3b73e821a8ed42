"""Checkpoints: the three resume tiers of a session's graph, frozen, with lineage and a diff."""

from __future__ import annotations

import hashlib

from django.db import transaction
from django.db.models import Sum

from memory.graph import diff, resume
from memory.graphs import load_graph
from memory.models import Checkpoint, Session


def transcript_tokens(session: Session, after: int = -1, upto: int | None = None) -> int:
    rows = session.messages.filter(position__gt=after)
    if upto is not None:
        rows = rows.filter(position__lte=upto)
    return rows.aggregate(total=Sum("token_count"))["total"] or 0


def context_tokens(session: Session) -> int:
    """What a request of this session would carry now: the latest resume plus the turns after it."""
    latest = session.checkpoints.order_by("-sequence").first()
    if latest is None:
        return transcript_tokens(session)
    return latest.tokens_after + transcript_tokens(session, after=latest.high_water)


def checkpoint_due(session: Session, ratio: float) -> bool:
    """True once the session's context passes ``ratio`` of its MECW (85% by default)."""
    return context_tokens(session) >= ratio * session.mecw


def _content_hash(critical: str, standard: str, full: str) -> str:
    return hashlib.sha256("\x1e".join((critical, standard, full)).encode()).hexdigest()


def latest_checkpoint(session: Session) -> Checkpoint | None:
    return session.checkpoints.order_by("-sequence").first()


def is_current(checkpoint: Checkpoint | None, session: Session) -> bool:
    """True when the checkpoint renders the session's graph as it is now."""
    return checkpoint is not None and checkpoint.graph_version == session.graph_version


def save_checkpoint(session: Session) -> Checkpoint:
    """Render the session's graph into a new checkpoint; the latest one if the graph is unchanged."""
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session.pk)
        parent = latest_checkpoint(session)
        if is_current(parent, session):
            return parent
        graph = load_graph(session)
        tiers = resume.render_tiers(graph)
        content_hash = _content_hash(*(tiers[t].text for t in ("critical", "standard", "full")))
        if parent is not None and parent.content_hash == content_hash:
            # Only invisible fields moved (importance, mentions): the resume stays byte-identical.
            Checkpoint.objects.filter(pk=parent.pk).update(graph_version=session.graph_version)
            parent.graph_version = session.graph_version
            return parent
        snapshot = diff.snapshot(graph)
        return Checkpoint.objects.create(
            session=session,
            parent=parent,
            sequence=parent.sequence + 1 if parent else 1,
            high_water=session.high_water,
            graph_version=session.graph_version,
            critical=tiers["critical"].text,
            standard=tiers["standard"].text,
            full=tiers["full"].text,
            critical_tokens=tiers["critical"].tokens,
            standard_tokens=tiers["standard"].tokens,
            full_tokens=tiers["full"].tokens,
            tokens_before=transcript_tokens(session, upto=session.high_water),
            tokens_after=tiers["standard"].tokens,
            snapshot=snapshot,
            diff=diff.diff(
                parent.snapshot if parent else {},
                snapshot,
                parent.full if parent else "",
                tiers["full"].text,
            ),
            content_hash=content_hash,
        )
