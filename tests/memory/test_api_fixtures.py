"""Fixtures of the REST API tests (no tests here): a team, a session whose graph holds a contested
pair, a checkpoint and some usage, API keys, and a stranger with a project of their own.

The API test modules take them with ``from tests.memory.test_api_fixtures import *``.
"""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from memory import checkpoints, graphs
from memory.models import Node, Session
from memory.projects import create_project, set_member
from memory.transcripts import record_messages
from proxy.keys import create_key
from proxy.models import RequestLog

__all__ = [
    "CONTESTED_TALK",
    "api",
    "contested_nodes",
    "fast_passwords",
    "graph_session",
    "keyed",
    "stranger_session",
    "team",
]

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


def _user(name: str):
    return get_user_model().objects.create_user(name, password=f"{name}-password-1")


@pytest.fixture
def team(project, alice):
    """alice owns the project, carol is a member, vera a viewer, sam a stranger."""
    people = {"owner": alice, "member": _user("carol"), "viewer": _user("vera"), "stranger": None}
    set_member(project, people["member"], "member")
    set_member(project, people["viewer"], "viewer")
    people["stranger"] = _user("sam")
    return people


@pytest.fixture
def graph_session(session):
    """alice's session: a contested pair of decisions, one checkpoint, one proxied request."""
    record_messages(session, CONTESTED_TALK)
    graphs.extract_session(session.pk)
    checkpoints.save_checkpoint(session)
    RequestLog.objects.create(project=session.project, session=session, model="gpt-4o-mini",
                              tokens_sent=900, tokens_forwarded=300, ttft_ms=120.0)  # fmt: skip
    return session


@pytest.fixture
def stranger_session(team):
    """sam's own project and session: what sam's key may see, and nobody else."""
    other = create_project("Sam's side project", team["stranger"])
    session = Session.objects.create(project=other, user=team["stranger"], external_id="sam-1")
    record_messages(session, [{"role": "user", "content": "Decided: Go for the CLI."}])
    graphs.extract_session(session.pk)
    return session


def contested_nodes(session) -> tuple[Node, Node]:
    a, b = session.nodes.filter(type="decision", status="contested").order_by("valid_from", "pk")
    return a, b


def api(user=None) -> APIClient:
    """A client signed in to the browser session as ``user`` (anonymous for None)."""
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


def keyed(user, project) -> APIClient:
    """A client sending a fresh API key of ``user`` in ``project``."""
    _, plaintext = create_key(user, project, "test")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    return client
