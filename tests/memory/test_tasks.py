"""The Celery jobs: quiet on deleted sessions, idempotent, JSON ids only, queued after commit."""

import json
import time

import pytest
from django.conf import settings
from django.db import transaction
from kombu.exceptions import OperationalError

from memory import graphs, tasks
from memory.graph.types import NodeType
from memory.models import Session
from memory.transcripts import record_messages
from tokenmizer_site import activity

PRODUCTION = pytest.mark.skipif(
    not (settings.DATABASE_URL.startswith("postgres") and settings.REDIS_URL),
    reason="production profile only (DATABASE_URL + REDIS_URL)",
)
FACTS = [
    {"role": "user", "content": "We're building a checkout service in Django 5.2 on Python 3.11."},
    {"role": "assistant", "content": "Decided: PostgreSQL for orders storage."},
    {"role": "user", "content": "TODO: write the migration for the refunds table."},
    {"role": "assistant", "content": "Completed: POST /orders endpoint."},
]


def snapshot(session: Session) -> tuple:
    """What a user sees of a session's graph: its nodes, edges, transitions and version."""
    session.refresh_from_db()
    nodes = sorted(
        (n.type, n.key, n.label, n.status, n.mentions, round(n.importance, 9), n.valid_from)
        for n in session.nodes.all()
    )
    edges = sorted((e.source.key, e.target.key, e.type, e.retired_at) for e in session.edges.all())
    moves = list(session.transitions.order_by("sequence").values_list("old_label", "to_status"))
    return nodes, edges, moves, session.high_water, session.graph_version


def wait_for(check, what: str, timeout: float = 30.0):
    """Poll ``check`` until it holds; fail naming ``what`` when it does not within ``timeout``."""
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, f"{what}: not so after {timeout:.0f} s"
        time.sleep(0.05)
    return result


@pytest.fixture
def sent(monkeypatch) -> list:
    """The jobs queued through ``extract_session.apply_async``, captured instead of sent."""
    calls: list = []
    task = tasks.extract_session._get_current_object()
    monkeypatch.setattr(task, "apply_async", lambda args, *rest, **options: calls.append(args))
    return calls


DELAY_S = settings.TOKENMIZER_EXTRACTION_DELAY_MS / 1000


def test_jobs_on_a_deleted_session_return_quietly(session):
    session_id = session.pk
    record_messages(session, FACTS)
    session.delete()
    assert tasks.extract_session(session_id) is None
    assert tasks.create_checkpoint(session_id) is None
    assert graphs.extract_session(session_id) is None


def test_extracting_a_session_twice_gives_the_same_graph(session):
    record_messages(session, FACTS)
    assert tasks.extract_session(session.pk) > 0
    first = snapshot(session)
    assert tasks.extract_session(session.pk) == 0  # nothing past the high-water mark
    assert snapshot(session) == first
    labels = set(session.nodes.values_list("key", flat=True))
    assert {"postgresql for orders storage", "write the migration for the refunds table"} <= labels


def test_a_checkpoint_job_saves_one_checkpoint_of_the_current_graph(session):
    record_messages(session, FACTS)
    tasks.extract_session(session.pk)
    checkpoint_id = tasks.create_checkpoint(session.pk)
    checkpoint = session.checkpoints.get()
    assert checkpoint.pk == checkpoint_id
    assert checkpoint.high_water == len(FACTS) - 1


def test_jobs_travel_as_json_with_ids_only(session, sent, django_capture_on_commit_callbacks):
    assert settings.CELERY_TASK_SERIALIZER == "json"
    assert settings.CELERY_ACCEPT_CONTENT == ["json"]  # a pickled message would be refused
    with django_capture_on_commit_callbacks(execute=True):
        tasks.enqueue_extraction(session.pk)
    wait_for(lambda: sent, "the job was queued")
    assert sent == [(session.pk,)]
    assert json.loads(json.dumps(sent[0])) == [session.pk]


@pytest.mark.django_db(transaction=True)
def test_extraction_is_queued_only_once_the_transcript_is_committed(session, sent):
    with transaction.atomic():
        record_messages(session, FACTS)
        tasks.enqueue_extraction(session.pk)
        time.sleep(DELAY_S + 0.1)
        assert sent == []  # a worker must not read a transcript that is not committed yet
    wait_for(lambda: len(sent) == 1, "the committed transcript's job was queued")
    with pytest.raises(RuntimeError), transaction.atomic():
        tasks.enqueue_extraction(session.pk)
        raise RuntimeError("the request failed")
    time.sleep(DELAY_S + 0.1)
    assert len(sent) == 1  # a rolled-back request queues nothing


@pytest.mark.skipif(
    not settings.CELERY_TASK_ALWAYS_EAGER,
    reason="embedded profile: a worker starts a job when it is free, not after a delay",
)
@pytest.mark.django_db(transaction=True)
def test_the_exchanges_of_a_burst_share_one_extraction_job(session, monkeypatch):
    """Embedded, a job starts a moment after the exchange that queued it and reads every
    exchange committed by then: a burst of exchanges is extracted once."""
    task = tasks.extract_session._get_current_object()
    queue, jobs = task.apply_async, []
    monkeypatch.setattr(
        task, "apply_async", lambda a, *rest, **kw: (jobs.append(a), queue(a, *rest, **kw))
    )
    for n in range(2, len(FACTS) + 1):  # three exchanges, well within the delay
        with transaction.atomic():
            record_messages(session, FACTS[:n])
            tasks.enqueue_extraction(session.pk)
    wait_for(
        lambda: Session.objects.get(pk=session.pk).high_water == len(FACTS) - 1,
        "the burst was extracted",
    )
    assert len(jobs) == 1
    keys = set(session.nodes.values_list("key", flat=True))
    assert {"postgresql for orders storage", "write the migration for the refunds table"} <= keys


EMBEDDED = pytest.mark.skipif(
    not settings.CELERY_TASK_ALWAYS_EAGER,
    reason="embedded profile: extraction runs in the serving process only there",
)


def high_water(session: Session) -> int:
    return Session.objects.get(pk=session.pk).high_water


@EMBEDDED
@pytest.mark.django_db(transaction=True)
def test_embedded_extraction_waits_until_the_process_stops_serving(session, settings):
    settings.TOKENMIZER_EXTRACTION_MAX_DELAY_MS = 5000
    with activity.serving:  # a request in flight
        with transaction.atomic():
            record_messages(session, FACTS)
            tasks.enqueue_extraction(session.pk)
        time.sleep(DELAY_S + 0.4)
        assert high_water(session) == -1  # no job takes the interpreter from a request
    wait_for(lambda: high_water(session) == len(FACTS) - 1, "extracted once serving paused", 3)


@EMBEDDED
@pytest.mark.django_db(transaction=True)
def test_under_unbroken_load_embedded_extraction_waits_no_longer_than_its_max_delay(
    session, settings
):
    settings.TOKENMIZER_EXTRACTION_MAX_DELAY_MS = 400
    with activity.serving:
        with transaction.atomic():
            record_messages(session, FACTS)
            tasks.enqueue_extraction(session.pk)
        wait_for(lambda: high_water(session) == len(FACTS) - 1, "extracted while serving", 3)
        assert session.nodes.filter(key="postgresql for orders storage").exists()


@pytest.mark.django_db(transaction=True)
def test_with_the_broker_down_extraction_runs_inline(session, monkeypatch):
    """We chose inline extraction when the broker refuses the job (``extract_pending`` catches up on
    anything still left behind): the facts reach the graph without a worker, at the cost of the
    sending thread doing the work."""

    def refuse(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(tasks.extract_session._get_current_object(), "apply_async", refuse)
    with transaction.atomic():
        record_messages(session, FACTS)
        tasks.enqueue_extraction(session.pk)
    wait_for(
        lambda: Session.objects.get(pk=session.pk).high_water == len(FACTS) - 1,
        "the refused job was extracted inline",
    )
    assert session.nodes.filter(
        type=NodeType.DECISION, key="postgresql for orders storage"
    ).exists()


@pytest.mark.django_db(transaction=True)
def test_extract_pending_catches_up_on_sessions_behind_their_messages(project, alice):
    caught_up = Session.objects.create(project=project, user=alice, external_id="caught-up")
    record_messages(caught_up, FACTS[:2])
    graphs.extract_session(caught_up.pk)
    behind = Session.objects.create(project=project, user=alice, external_id="behind")
    record_messages(behind, FACTS)  # recorded, never extracted (a job lost with the broker)
    Session.objects.create(project=project, user=alice, external_id="empty")
    assert tasks.extract_pending() == 1
    wait_for(
        lambda: Session.objects.get(pk=behind.pk).high_water == len(FACTS) - 1,
        "the lagging session's graph caught up with its messages",
    )
    assert behind.nodes.filter(key="write the migration for the refunds table").exists()
    assert tasks.extract_pending() == 0


@PRODUCTION
@pytest.mark.django_db(transaction=True)
def test_the_worker_runs_a_queued_extraction(session):
    record_messages(session, FACTS)
    tasks.extract_session.delay(session.pk)  # to a real worker process, through Redis
    wait_for(
        lambda: Session.objects.get(pk=session.pk).high_water == len(FACTS) - 1,
        "the worker extracted the queued session",
    )
    assert session.nodes.filter(key="postgresql for orders storage").exists()


@PRODUCTION
def test_the_worker_runs_its_jobs_below_the_proxys_cpu_priority(production_services):
    """On a machine shared with the ASGI processes, a request must not wait behind a job."""
    import os
    from pathlib import Path

    worker = production_services.pid
    pool = Path(f"/proc/{worker}/task/{worker}/children").read_text().split()
    assert pool, "the worker has a pool process"
    own = os.getpriority(os.PRIO_PROCESS, 0)
    for pid in [worker, *map(int, pool)]:
        assert os.getpriority(os.PRIO_PROCESS, pid) == own + settings.TOKENMIZER_WORKER_NICE
