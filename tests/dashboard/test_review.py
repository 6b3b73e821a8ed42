"""The review queue: contested pairs side by side, settled without a reload, reflected in the resume."""

import pytest
from django.urls import reverse

from memory.models import DecisionTransition
from tests.dashboard.conftest import client_for, contested_nodes


def resolve(user, session, outcome: str, reason: str = ""):
    a, b = contested_nodes(session)
    url = reverse("dashboard:review-resolve", args=[session.project_id])
    data = {"node_a": a.pk, "node_b": b.pk, "outcome": outcome, "reason": reason}
    return client_for(user).post(url, data, HTTP_HX_REQUEST="true")


def test_the_queue_shows_each_pair_side_by_side_with_its_source_messages(team, contested_session):
    html = (
        client_for(team["viewer"])
        .get(reverse("dashboard:review-queue", args=[contested_session.project_id]))
        .content.decode()
    )
    assert (
        "PostgreSQL for primary user data" in html and "SQLite for the local offline cache" in html
    )
    assert "Source message #0" in html and "Source message #2" in html
    assert 'value="keep_both"' not in html  # a viewer gets no buttons
    assert "viewer" in html


def test_keeping_both_settles_the_pair_and_the_resume_lists_both_in_force(team, contested_session):
    response = resolve(team["member"], contested_session, "keep_both", "they are complementary")
    assert response.status_code == 200
    assert "decision-resolved" in response["HX-Trigger"]
    assert b"Nothing to review" in response.content
    statuses = set(contested_session.nodes.filter(type="decision").values_list("status", flat=True))
    assert statuses == {"completed"}
    page = client_for(team["owner"]).get(
        reverse("dashboard:session-detail", args=[contested_session.pk])
    )
    resume = page.content.decode().split('id="resume-now"')[1]
    assert "Decisions in force" in resume and "Contested" not in resume


def test_replacing_one_records_a_transition_with_the_person_as_actor(team, contested_session):
    resolve(team["member"], contested_session, "b_replaces_a", "the cache is all we need")
    a, b = (contested_session.nodes.get(label__startswith=p) for p in ("PostgreSQL", "SQLite"))
    assert (a.status, b.status) == ("superseded", "completed")
    transition = DecisionTransition.objects.filter(actor="carol", to_status="superseded").get()
    assert transition.actor_user == team["member"]
    assert transition.reason == "the cache is all we need"


def test_invalidating_one_keeps_it_as_a_warning(team, contested_session):
    resolve(team["owner"], contested_session, "invalidate_a", "we never chose PostgreSQL")
    a = contested_session.nodes.get(label__startswith="PostgreSQL")
    assert a.status == "invalidated"


@pytest.mark.parametrize(
    "outcome", ["a_replaces_b", "b_replaces_a", "invalidate_a", "invalidate_b"]
)
def test_a_reason_is_required_to_replace_or_invalidate(team, contested_session, outcome):
    response = resolve(team["owner"], contested_session, outcome, "  ")
    assert response.status_code == 200
    assert "HX-Trigger" not in response
    assert b"a reason is required" in response.content
    assert contested_session.nodes.filter(status="contested").count() == 2


def test_a_pair_from_another_project_is_not_found(team, contested_session, sam):
    from memory.projects import create_project

    other = create_project("Elsewhere", sam)
    a, b = contested_nodes(contested_session)
    url = reverse("dashboard:review-resolve", args=[other.pk])
    data = {"node_a": a.pk, "node_b": b.pk, "outcome": "keep_both"}
    assert client_for(sam).post(url, data, HTTP_HX_REQUEST="true").status_code == 404


def test_settling_a_pair_twice_explains_that_it_is_no_longer_contested(team, contested_session):
    resolve(team["owner"], contested_session, "keep_both")
    a = contested_session.nodes.get(label__startswith="PostgreSQL")
    b = contested_session.nodes.get(label__startswith="SQLite")
    url = reverse("dashboard:review-resolve", args=[contested_session.project_id])
    data = {"node_a": a.pk, "node_b": b.pk, "outcome": "keep_both"}
    response = client_for(team["owner"]).post(url, data)
    assert response.status_code == 400
    assert b"not a contested pair" in response.content
