"""Celery tasks of the memory app: thin wrappers taking ids, idempotent, retried on transient errors."""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError, connections, transaction
from django.db.models import F
from django.utils import timezone

from memory import checkpoints, graphs, recall
from memory.models import Session
from tokenmizer_site import activity, caching

log = logging.getLogger(__name__)
# Safe to run twice (high-water marks, unique keys), so a redelivered or retried job does no harm.
# Results are ignored: nothing reads them, and a sender expecting one subscribes to the result
# store first, which with Redis down retried for 20 s before the inline fallback could start.
JOB = dict(
    acks_late=True,
    autoretry_for=(DatabaseError,),
    max_retries=3,
    retry_backoff=True,
    ignore_result=True,
)


QUEUED_TTL_S = 60  # a lost job's marker expires, so a later exchange queues a new one


def _queued(session_id: int) -> str:
    return f"tmz:extraction-queued:{session_id}"


@shared_task(**JOB)
def extract_session(session_id: int) -> int | None:
    """Extract new messages, then checkpoint if the session passed its compaction threshold."""
    try:  # cleared before reading, so messages committed from now on queue a job of their own
        caching.shared().delete(_queued(session_id))
    except Exception:
        log.warning("cache unavailable: could not clear the queued mark of session %s", session_id)
    extracted = graphs.extract_session(session_id)
    if extracted is None:
        return None
    session = Session.objects.select_related("project").filter(pk=session_id).first()
    if session is None:
        return extracted
    if checkpoints.checkpoint_due(session, session.project.compaction_ratio):
        checkpoints.save_checkpoint(session)
    if extracted:  # the project's next new session finds its memory read for the graphs as now
        recall.refresh_standing(session.project)
    return extracted


@shared_task(**JOB)
def create_checkpoint(session_id: int) -> int | None:
    session = Session.objects.filter(pk=session_id).first()
    if session is None:
        return None
    return checkpoints.save_checkpoint(session).pk


def enqueue_extraction(session_id: int) -> None:
    """After commit, queue the session's extraction, to start ``TOKENMIZER_EXTRACTION_DELAY_MS``
    later, so that the exchanges of a burst share one job (embedded: run it on a timer thread once
    the process pauses for that long, see ``_when_quiet``); if the broker is down, extract inline.

    Either way nothing is lost: the messages are stored and the session's high-water mark says
    what is still to read, which ``extract_pending`` catches up on as well. A session with a job
    already waiting gets no second one: that job reads every message committed before it starts,
    so the exchanges of a burst share it.
    """

    def send() -> None:
        try:
            fresh = caching.shared().add(_queued(session_id), 1, QUEUED_TTL_S)
        except Exception:
            fresh = True  # without the cache, queue anyway: a no-op job costs little
        if not fresh:
            return
        delay = settings.TOKENMIZER_EXTRACTION_DELAY_MS / 1000
        if settings.CELERY_TASK_ALWAYS_EAGER and delay:  # eager Celery would run it right here
            threading.Timer(delay, _when_quiet, (session_id, time.monotonic())).start()
        else:
            _queue(session_id)

    transaction.on_commit(send)


def _queue(session_id: int) -> None:
    try:
        extract_session.delay(session_id)
    except Exception:
        log.warning("broker unavailable: extracting session %s inline", session_id)
        extract_session(session_id)


def _when_quiet(session_id: int, queued_at: float) -> None:
    """The embedded profile's job, on a timer thread: it runs in the serving process, so it waits
    until the process has served no request for ``TOKENMIZER_EXTRACTION_DELAY_MS``, but no longer
    than ``TOKENMIZER_EXTRACTION_MAX_DELAY_MS`` after the exchange that queued it."""
    latest = queued_at + settings.TOKENMIZER_EXTRACTION_MAX_DELAY_MS / 1000
    quiet = settings.TOKENMIZER_EXTRACTION_DELAY_MS / 1000
    while (wait := min(quiet - activity.quiet_for(), latest - time.monotonic())) > 0:
        time.sleep(wait)
    _run_eager(session_id)


def _run_eager(session_id: int) -> None:
    try:
        _queue(session_id)
    except Exception:
        log.exception("extracting session %s failed", session_id)
    finally:
        connections.close_all()


@shared_task(**JOB)
def extract_pending() -> int:
    """Periodic: queue every session with messages its graph has not read yet."""
    behind = Session.objects.filter(messages__position__gt=F("high_water")).distinct()
    ids = list(behind.values_list("pk", flat=True))
    for session_id in ids:
        extract_session.delay(session_id)
    return len(ids)


def _active_sessions() -> list[int]:
    since = timezone.now() - timedelta(days=settings.TOKENMIZER_ACTIVE_DAYS)
    recent = Session.objects.filter(messages__created_at__gte=since).distinct()
    return list(recent.values_list("pk", flat=True))


@shared_task(**JOB)
def decay_importance() -> int:
    """Periodic: importance of every active session's nodes as of now."""
    now, ids = time.time(), _active_sessions()
    for session_id in ids:
        graphs.decay_session(session_id, now)
    return len(ids)


@shared_task(**JOB)
def prune_graphs() -> int:
    """Periodic: keep each active session's graph under the node cap."""
    now, ids = time.time(), _active_sessions()
    for session_id in ids:
        graphs.prune_session(session_id, settings.TOKENMIZER_GRAPH_NODE_CAP, now)
    return len(ids)
