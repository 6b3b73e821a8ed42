"""Fixtures for dashboard tests: a project with an owner, a member, a viewer, a stranger, and a
session whose graph holds a contested pair, a checkpoint and some usage."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from memory import checkpoints, graphs
from memory.models import Node
from memory.projects import set_member
from memory.transcripts import record_messages
from proxy.keys import create_key
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
ROLES = ("owner", "member", "viewer", "stranger", "anonymous")


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    """Hashing at full strength takes most of a test's time; these tests are not about hashing."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def make_user(name: str):
    return get_user_model().objects.create_user(name, password=f"{name}-password-1")


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


@pytest.fixture
def member_key(team, project):
    return create_key(team["member"], project, "carol-laptop")[0]


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def csrf_client_for(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    return client
