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


class TamperedCheckpoint(Exception):
    """A checkpoint's tiers no longer match the content hash stored when it was made."""

    def __init__(self, checkpoint: Checkpoint) -> None:
        super().__init__(
            f"checkpoint {checkpoint.pk} (sequence {checkpoint.sequence} of session "
            f"{checkpoint.session_id}) was changed after it was made: its resume tiers no longer "
            "match its content hash, so it is not used"
        )
        self.checkpoint_pk = checkpoint.pk


def verify(checkpoint: Checkpoint) -> Checkpoint:
    """The checkpoint itself if its three tiers still hash to its content hash; else refuse it.

    Checkpoint content is immutable: every path that hands a checkpoint's text to a model or a
    person (compaction, branching, the dashboard) reads it through here.
    """
    actual = _content_hash(checkpoint.critical, checkpoint.standard, checkpoint.full)
    if actual != checkpoint.content_hash:
        raise TamperedCheckpoint(checkpoint)
    return checkpoint


def latest_checkpoint(session: Session) -> Checkpoint | None:
    return session.checkpoints.order_by("-sequence").first()


def is_current(checkpoint: Checkpoint | None, session: Session) -> bool:
    """True when the checkpoint renders the session's graph as it is now."""
    return checkpoint is not None and checkpoint.graph_version == session.graph_version


def save_checkpoint(session: Session) -> Checkpoint:
    """Render the session's graph into a new checkpoint; the latest one if the graph is unchanged.

    A branch's first checkpoint has the checkpoint it was branched from as its parent (in the
    other session), so checkpoints form one tree across sessions.
    """
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session.pk)
        latest = latest_checkpoint(session)
        if is_current(latest, session):
            return latest
        graph = load_graph(session)
        tiers = resume.render_tiers(graph)
        content_hash = _content_hash(*(tiers[t].text for t in ("critical", "standard", "full")))
        if latest is not None and latest.content_hash == content_hash:
            # Only invisible fields moved (importance, mentions): the resume stays byte-identical.
            Checkpoint.objects.filter(pk=latest.pk).update(graph_version=session.graph_version)
            latest.graph_version = session.graph_version
            return latest
        parent = latest if latest is not None else session.branched_from
        snapshot = diff.snapshot(graph)
        return Checkpoint.objects.create(
            session=session,
            parent=parent,
            sequence=latest.sequence + 1 if latest else 1,
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
