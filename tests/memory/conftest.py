"""Fixtures of the memory tests: a stranger with a project of their own, and REST API clients
signed in by browser session or by API key."""

import pytest
from rest_framework.test import APIClient

from memory import graphs
from memory.models import Session
from memory.projects import create_project
from memory.transcripts import record_messages
from proxy.keys import create_key


@pytest.fixture
def stranger_session(team):
    """sam's own project and session: what sam's key may see, and nobody else."""
    other = create_project("Sam's side project", team["stranger"])
    session = Session.objects.create(project=other, user=team["stranger"], external_id="sam-1")
    record_messages(session, [{"role": "user", "content": "Decided: Go for the CLI."}])
    graphs.extract_session(session.pk)
    return session


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
