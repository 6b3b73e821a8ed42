"""Shared fixtures: two users, a project owned by alice, a session in it."""

import pytest
from django.contrib.auth import get_user_model

from memory.models import Session
from memory.projects import create_project


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
