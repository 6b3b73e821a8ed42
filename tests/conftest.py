"""Shared fixtures: users, a project owned by alice with a team around it, a session in it, and
a session whose graph holds a contested pair, a checkpoint and some usage."""

import time

import pytest
from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.test import TransactionTestCase

from memory import checkpoints, graphs
from memory.models import Node, Session
from memory.projects import create_project, set_member
from memory.transcripts import record_messages
from proxy.models import RequestLog

CONTESTED_TALK = [
    {
        "role": "user",
        "content": "We are building a notes app. Decided: PostgreSQL for primary user data.",
    },
    {"role": "assistant", "content": "OK, PostgreSQL it is. Created notes/models.py."},
    {"role": "user", "content": "Decided: SQLite for the local offline cache."},
    {"role": "assistant", "content": "Noted."},
]


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    """Hashing at full strength takes most of a test's time; these tests are not about hashing."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def make_user(name: str):
    return get_user_model().objects.create_user(name, password=f"{name}-password-1")


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="alice-password-1")


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob", password="bob-password-1")


@pytest.fixture
def project(alice):
    return create_project("Checkout service", alice)


@pytest.fixture
def session(project, alice):
    return Session.objects.create(project=project, user=alice, external_id="sess-1")


@pytest.fixture
def carol(db):
    return make_user("carol")


@pytest.fixture
def vera(db):
    return make_user("vera")


@pytest.fixture
def sam(db):
    return make_user("sam")


@pytest.fixture
def team(project, alice, carol, vera, sam):
    """alice owns the project, carol is a member, vera a viewer, sam a stranger."""
    set_member(project, carol, "member")
    set_member(project, vera, "viewer")
    return {"owner": alice, "member": carol, "viewer": vera, "stranger": sam, "anonymous": None}


@pytest.fixture
def contested_session(session):
    record_messages(session, CONTESTED_TALK)
    graphs.extract_session(session.pk)
    checkpoints.save_checkpoint(session)
    RequestLog.objects.create(project=session.project, session=session, model="gpt-4o-mini",
                              tokens_sent=900, tokens_forwarded=300, ttft_ms=120.0)  # fmt: skip
    return session


def contested_nodes(session) -> tuple[Node, Node]:
    a, b = session.nodes.filter(type="decision", status="contested").order_by("valid_from", "pk")
    return a, b


def _test_database_url() -> str:
    from django.db import connection

    s = connection.settings_dict
    return f"postgres://{s['USER']}@{s['HOST']}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.fixture(scope="session", autouse=True)
def production_services(django_db_setup, django_db_blocker):
    """On the production profile (PostgreSQL, Redis): a clean Redis and a real Celery worker.

    The worker is a separate process on the test database, so jobs run as they do in production.
    On the embedded profile Celery runs eagerly and nothing is started.
    """
    from django.conf import settings

    if settings.CELERY_TASK_ALWAYS_EAGER:
        yield None
        return
    import redis

    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    with django_db_blocker.unblock():
        url = _test_database_url()
    worker = start_worker(url)
    flush = TransactionTestCase._fixture_teardown
    TransactionTestCase._fixture_teardown = _flush_past_the_worker(flush)
    yield worker
    TransactionTestCase._fixture_teardown = flush
    stop_worker(worker)
    with django_db_blocker.unblock():
        from django.db import connection

        with (
            connection.cursor() as cursor
        ):  # connections left by server threads block DROP DATABASE
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


def _flush_past_the_worker(flush):
    """The worker may still be finishing a test's last job when the test database is flushed
    after it: PostgreSQL then breaks the deadlock by failing one side. A failed flush is tried
    again, so that it does not leave the next test a database that was not emptied."""

    def teardown(self):
        for attempt in range(5):
            try:
                return flush(self)
            except CommandError:
                if attempt == 4:
                    raise
                time.sleep(0.2)

    return teardown


def start_worker(database_url: str, *extra: str):
    import os
    import subprocess
    import sys

    from tokenmizer_site.celery import app

    env = {**os.environ, "DATABASE_URL": database_url, "TOKENMIZER_VISIBILITY_TIMEOUT_S": "5"}
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "tokenmizer_site",
            "worker",
            "--loglevel=WARNING",
            "--concurrency=1",
            "--without-gossip",
            "--without-mingle",
            *extra,
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not app.control.ping(timeout=0.5):
        assert worker.poll() is None, "the Celery worker exited at start-up"
        assert time.monotonic() < deadline, "the Celery worker did not answer a ping in 30 s"
    return worker


def stop_worker(worker) -> None:
    worker.terminate()
    try:
        worker.wait(timeout=15)
    except Exception:
        worker.kill()


@pytest.fixture(autouse=True)
def _fresh_local_cache():
    """Rate-limit counters and queued-job marks must not leak from one test into the next.

    Only the embedded local-memory cache is cleared: on the production profile Redis also
    carries the worker's queue, and PostgreSQL never reuses the ids those keys name.
    """
    from django.conf import settings
    from django.core.cache import cache

    if "locmem" in settings.CACHES["default"]["BACKEND"]:
        cache.clear()


@pytest.fixture(autouse=True)
def _fresh_process_caches():
    """The proxy's recent admissions and rate-limit counts and the projects' standing candidates
    are kept in-process, keyed by row ids; a rolled-back test database reuses those ids, so each
    test starts empty."""
    from memory import recall
    from proxy import limits, sessions

    recall.forget_standing()
    sessions.forget_admissions()
    limits.forget()
