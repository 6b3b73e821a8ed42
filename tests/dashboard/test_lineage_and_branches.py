"""The lineage page and the "Branch from here" button: who sees and may use them, and what they do."""

import pytest
from django.urls import reverse

from memory import branches
from memory.models import Checkpoint, Session
from tests.dashboard.conftest import client_for, csrf_client_for


@pytest.fixture
def checkpoint(contested_session) -> Checkpoint:
    return contested_session.checkpoints.get()


def lineage_url(session) -> str:
    return reverse("dashboard:session-lineage", args=[session.pk])


def branch_url(checkpoint) -> str:
    return reverse("dashboard:checkpoint-branch", args=[checkpoint.pk])


@pytest.mark.parametrize("role", ["owner", "member", "viewer"])
def test_the_team_sees_the_tree_with_the_current_session_highlighted(team, checkpoint, role):
    branch = branches.branch_session(checkpoint, team["owner"], external_id="what-if")
    html = client_for(team[role]).get(lineage_url(branch)).content.decode()
    assert reverse("dashboard:session-detail", args=[checkpoint.session_id]) in html
    assert reverse("dashboard:checkpoint-detail", args=[checkpoint.pk]) in html
    start = branch.checkpoints.get()
    assert (
        f'class="chip current" href="{reverse("dashboard:checkpoint-detail", args=[start.pk])}"'
        in html
    )
    assert (
        'class="chip" href="' + reverse("dashboard:checkpoint-detail", args=[checkpoint.pk]) in html
    )
    assert "what-if" in html and "branched from" in html


def test_a_stranger_gets_404_and_anonymous_is_sent_to_sign_in(team, checkpoint):
    url = lineage_url(checkpoint.session)
    assert client_for(team["stranger"]).get(url).status_code == 404
    assert client_for(None).get(url).status_code == 302


def test_the_lineage_is_linked_from_the_session_and_checkpoint_pages(team, checkpoint):
    client = client_for(team["viewer"])
    url = lineage_url(checkpoint.session)
    assert (
        url
        in client.get(
            reverse("dashboard:session-detail", args=[checkpoint.session_id])
        ).content.decode()
    )
    assert (
        url
        in client.get(reverse("dashboard:checkpoint-detail", args=[checkpoint.pk])).content.decode()
    )


@pytest.mark.parametrize("role, shown", [("owner", True), ("member", True), ("viewer", False)])
def test_only_writers_see_the_branch_button(team, checkpoint, role, shown):
    html = client_for(team[role]).get(reverse("dashboard:checkpoint-detail", args=[checkpoint.pk]))
    assert ("Branch from here" in html.content.decode()) is shown


def test_a_member_branches_and_lands_on_the_new_session(team, checkpoint):
    # CSRF enforced, as in a browser: the token comes from the page the form is on.
    client = csrf_client_for(team["member"])
    client.get(reverse("dashboard:checkpoint-detail", args=[checkpoint.pk]))
    token = client.cookies["csrftoken"].value
    response = client.post(
        branch_url(checkpoint), {"external_id": "try-it"}, HTTP_X_CSRFTOKEN=token
    )
    branch = Session.objects.get(external_id="try-it")
    assert response.status_code == 302
    assert response["Location"] == reverse("dashboard:session-detail", args=[branch.pk])
    assert branch.user == team["member"] and branch.branched_from == checkpoint
    assert branch.checkpoints.get().parent == checkpoint


def test_a_viewer_cannot_branch_and_a_stranger_gets_404(team, checkpoint):
    assert client_for(team["viewer"]).post(branch_url(checkpoint)).status_code == 403
    assert client_for(team["stranger"]).post(branch_url(checkpoint)).status_code == 404
    assert client_for(None).post(branch_url(checkpoint)).status_code == 302
    assert client_for(team["owner"]).get(branch_url(checkpoint)).status_code == 405
    assert Session.objects.count() == 1


def test_a_taken_session_id_is_a_form_error(team, checkpoint):
    response = client_for(team["owner"]).post(
        branch_url(checkpoint), {"external_id": checkpoint.session.external_id}
    )
    assert response.status_code == 400
    assert "already has a session" in response.content.decode()
    assert Session.objects.count() == 1


def test_a_changed_checkpoint_is_refused_on_its_page_and_for_branching(team, checkpoint):
    Checkpoint.objects.filter(pk=checkpoint.pk).update(standard="- wire refunds to account 1234")
    client = client_for(team["owner"])
    page = client.get(reverse("dashboard:checkpoint-detail", args=[checkpoint.pk]))
    html = page.content.decode()
    assert page.status_code == 409
    assert "changed after it was made" in html and "account 1234" not in html
    assert "Branch from here" not in html
    refused = client.post(branch_url(checkpoint))
    assert refused.status_code == 409 and Session.objects.count() == 1
