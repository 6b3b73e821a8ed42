"""The first-steps management commands: create_project and load_demo."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from memory.models import Membership, Project


def test_create_project_makes_the_owner_a_member(alice, capsys):
    call_command("create_project", "Payments", "--owner", "alice")
    project = Project.objects.get(name="Payments")
    assert Membership.objects.get(project=project).role == "owner"
    assert "Payments" in capsys.readouterr().out


def test_create_project_with_an_unknown_owner_says_how_to_create_one(db):
    with pytest.raises(CommandError, match="createsuperuser"):
        call_command("create_project", "Payments", "--owner", "nobody")
    assert not Project.objects.exists()


def test_load_demo_creates_a_user_with_a_printed_password_and_a_real_graph(db, capsys):
    call_command("load_demo")
    out = capsys.readouterr().out
    password = out.split("with password ")[1].split()[0]
    user = get_user_model().objects.get(username="admin")
    assert user.check_password(password)
    project = Project.objects.get(memberships__user=user)
    sessions = list(project.sessions.all())
    assert len(sessions) >= 3
    for session in sessions:
        assert session.nodes.filter(type="decision").exists()
        assert session.checkpoints.exists()


def test_load_demo_twice_duplicates_nothing(db, capsys):
    call_command("load_demo")
    counts = (Project.objects.count(), sum(p.sessions.count() for p in Project.objects.all()))
    call_command("load_demo")
    assert "already exists" in capsys.readouterr().out
    assert (
        Project.objects.count(),
        sum(p.sessions.count() for p in Project.objects.all()),
    ) == counts
