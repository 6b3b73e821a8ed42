"""Celery tasks of the memory app: thin wrappers taking ids."""

from __future__ import annotations

from celery import shared_task

from memory import checkpoints, graphs
from memory.models import Session


@shared_task(acks_late=True, max_retries=3, retry_backoff=True)
def extract_session(session_id: int) -> int | None:
    """Extract new messages, then checkpoint if the session passed its compaction threshold."""
    extracted = graphs.extract_session(session_id)
    if extracted is None:
        return None
    session = Session.objects.select_related("project").filter(pk=session_id).first()
    if session is not None and checkpoints.checkpoint_due(session, session.project.compaction_ratio):
        checkpoints.save_checkpoint(session)
    return extracted


@shared_task(acks_late=True, max_retries=3, retry_backoff=True)
def create_checkpoint(session_id: int) -> int | None:
    session = Session.objects.filter(pk=session_id).first()
    if session is None:
        return None
    return checkpoints.save_checkpoint(session).pk
