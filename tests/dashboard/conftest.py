"""Fixtures for dashboard tests: signed-in clients and a member's key (the team and the contested
session come from tests/conftest.py)."""

import pytest
from django.test import Client

from proxy.keys import create_key
from tests.conftest import contested_nodes, make_user  # noqa: F401 - the dashboard tests' helpers

ROLES = ("owner", "member", "viewer", "stranger", "anonymous")


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
