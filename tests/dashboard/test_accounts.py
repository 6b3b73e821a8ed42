"""Signing in and out, changing a password, and the project list with project creation."""

from django.urls import reverse

from memory.models import Membership
from tests.dashboard.conftest import client_for


def test_anonymous_visitors_are_sent_to_sign_in(db):
    response = client_for(None).get("/")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?next=/"


def test_signing_in_leads_to_the_project_list(alice):
    client = client_for(None)
    response = client.post(
        reverse("dashboard:login"), {"username": "alice", "password": "alice-password-1"}
    )
    assert response.status_code == 302 and response["Location"] == "/"
    assert b"Your projects" in client.get("/").content


def test_a_wrong_password_shows_an_error(alice):
    response = client_for(None).post(
        reverse("dashboard:login"), {"username": "alice", "password": "nope"}
    )
    assert b"Please enter a correct username and password" in response.content


def test_signing_out_is_a_post_and_ends_the_session(alice):
    client = client_for(alice)
    response = client.post(reverse("dashboard:logout"))
    assert response.status_code == 302 and response["Location"] == reverse("dashboard:login")
    assert client.get("/").status_code == 302


def test_a_password_change_keeps_the_user_signed_in(alice):
    client = client_for(alice)
    response = client.post(reverse("dashboard:password-change"), {
        "old_password": "alice-password-1",
        "new_password1": "a-new-long-password-7", "new_password2": "a-new-long-password-7",
    })  # fmt: skip
    assert response["Location"] == reverse("dashboard:password-change-done")
    alice.refresh_from_db()
    assert alice.check_password("a-new-long-password-7")
    assert client.get("/").status_code == 200


def test_creating_a_project_makes_its_creator_the_owner(alice):
    response = client_for(alice).post(reverse("dashboard:project-create"), {"name": "Billing"})
    membership = Membership.objects.get(project__name="Billing")
    assert (membership.user, membership.role) == (alice, "owner")
    assert response["Location"] == reverse("dashboard:project-detail", args=[membership.project_id])


def test_a_project_needs_a_name(alice):
    response = client_for(alice).post(reverse("dashboard:project-create"), {"name": "  "})
    assert response.status_code == 400 and b"This field is required" in response.content


def test_the_project_list_shows_only_the_users_projects_with_their_role(team, project, sam):
    from memory.projects import create_project

    create_project("Sam's secret", sam)
    html = client_for(team["viewer"]).get("/").content.decode()
    assert "Checkout service" in html and "viewer" in html and "Sam&#x27;s secret" not in html
