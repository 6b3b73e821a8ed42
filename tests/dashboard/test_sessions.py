"""Browsing a session: the node table with its filters, time travel, the graph data and node pages."""

import json

from django.urls import reverse

from memory import decisions
from tests.dashboard.conftest import client_for, contested_nodes


def table(user, session, **query) -> str:
    url = reverse("dashboard:session-detail", args=[session.pk])
    response = client_for(user).get(url, query, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="node-table")
    return response.content.decode().split('id="resume-now"')[0]


def test_the_session_list_shows_who_turns_tokens_and_the_last_checkpoint(team, contested_session):
    html = (
        client_for(team["viewer"])
        .get(reverse("dashboard:project-detail", args=[contested_session.project_id]))
        .content.decode()
    )
    assert "sess-1" in html and "alice" in html
    assert ">4<" in html  # turns
    assert ">900<" in html and ">300<" in html and ">600<" in html  # sent, forwarded, saved
    assert "#1" in html  # last checkpoint


def test_the_node_table_filters_by_type_status_and_text(team, contested_session):
    user = team["member"]
    assert "building a notes app" in table(user, contested_session)
    decisions_only = table(user, contested_session, type="decision")
    assert "building a notes app" not in decisions_only and "PostgreSQL" in decisions_only
    assert "PostgreSQL" not in table(user, contested_session, status="in_progress")
    by_text = table(user, contested_session, q="sqlite")
    assert "SQLite for the local offline cache" in by_text and "PostgreSQL" not in by_text


def test_the_filter_form_pushes_its_query_into_the_url(team, contested_session):
    html = (
        client_for(team["owner"])
        .get(reverse("dashboard:session-detail", args=[contested_session.pk]))
        .content.decode()
    )
    assert 'hx-push-url="true"' in html and 'hx-target="#node-table"' in html


def test_time_travel_shows_the_graph_as_it_held_at_an_earlier_message(team, contested_session):
    then = table(team["owner"], contested_session, position=0)
    assert "as it held at message #0" in then
    assert "PostgreSQL for primary user data" in then and "SQLite" not in then
    assert "status-completed" in then  # not contested yet at message 0


def test_time_travel_to_a_time_before_anything_was_known_shows_an_empty_graph(
    team, contested_session
):
    then = table(team["owner"], contested_session, at="2000-01-01T00:00")
    assert "as the memory knew it" in then and "No node matches" in then


def test_travelling_to_a_message_and_a_time_at_once_is_refused(team, contested_session):
    url = reverse("dashboard:session-detail", args=[contested_session.pk])
    html = client_for(team["owner"]).get(url, {"position": 1, "at": "2020-01-01T00:00"})
    assert b"not both" in html.content


def test_the_graph_data_links_a_contested_pair(team, contested_session):
    url = reverse("dashboard:session-graph-data", args=[contested_session.pk])
    data = json.loads(client_for(team["viewer"]).get(url).content)
    contested = {n["id"] for n in data["nodes"] if n["status"] == "contested"}
    assert len(contested) == 2
    assert any(
        link["type"] == "conflicts_with" and {link["source"], link["target"]} == contested
        for link in data["links"]
    )


def test_the_graph_data_travels_in_time_too(team, contested_session):
    url = reverse("dashboard:session-graph-data", args=[contested_session.pk])
    data = json.loads(client_for(team["viewer"]).get(url, {"position": 0}).content)
    assert {n["status"] for n in data["nodes"] if n["type"] == "decision"} == {"completed"}


def test_the_graph_page_serves_d3_locally(team, contested_session):
    html = (
        client_for(team["viewer"])
        .get(reverse("dashboard:session-graph", args=[contested_session.pk]))
        .content.decode()
    )
    assert "/static/dashboard/vendor/d3.min.js" in html and 'id="graph"' in html


def test_a_node_page_shows_evidence_source_edges_and_transitions(team, contested_session):
    a, _ = contested_nodes(contested_session)
    html = client_for(team["viewer"]).get(reverse("dashboard:node-detail", args=[a.pk])).content
    html = html.decode()
    assert "Decided: PostgreSQL for primary user data." in html  # evidence quote
    assert "We are building a notes app." in html  # the source message
    assert "conflicts_with" in html and "SQLite for the local offline cache" in html
    assert "contested" in html and "Valid from" in html and "Recorded" in html
    assert "Invalidate this decision" not in html  # viewers only look


def test_a_likely_node_is_marked_in_the_table_and_on_its_page(team, contested_session):
    a, _ = contested_nodes(contested_session)
    assert ">likely</span>" not in table(team["viewer"], contested_session)
    a.extra = {**a.extra, "learned": True}
    a.save(update_fields=["extra"])
    assert ">likely</span>" in table(team["viewer"], contested_session)
    html = client_for(team["viewer"]).get(reverse("dashboard:node-detail", args=[a.pk])).content
    assert "no rule stated it, so a decision is not shown in force" in html.decode()


def test_a_member_invalidates_a_decision_from_its_page(team, contested_session):
    a, b = contested_nodes(contested_session)
    url = reverse("dashboard:node-invalidate", args=[a.pk])
    response = client_for(team["member"]).post(
        url, {"reason": "never agreed"}, HTTP_HX_REQUEST="true"
    )
    assert "decision-resolved" in response["HX-Trigger"]
    a.refresh_from_db()
    b.refresh_from_db()
    assert (a.status, b.status) == ("invalidated", "completed")


def test_invalidating_needs_a_reason(team, contested_session):
    a, _ = contested_nodes(contested_session)
    url = reverse("dashboard:node-invalidate", args=[a.pk])
    response = client_for(team["member"]).post(url, {"reason": ""}, HTTP_HX_REQUEST="true")
    assert b"This field is required" in response.content
    a.refresh_from_db()
    assert a.status == "contested"


def test_only_decisions_can_be_invalidated(team, contested_session):
    goal = contested_session.nodes.get(type="goal")
    url = reverse("dashboard:node-invalidate", args=[goal.pk])
    response = client_for(team["owner"]).post(url, {"reason": "x"}, HTTP_HX_REQUEST="true")
    assert b"only decisions can be invalidated" in response.content


def test_the_decision_history_shows_trigger_reason_evidence_and_actor(team, contested_session):
    a, b = contested_nodes(contested_session)
    decisions.resolve_contested(
        a, b, "a_replaces_b", "the server is the source of truth", team["owner"]
    )
    html = (
        client_for(team["viewer"])
        .get(reverse("dashboard:decision-history", args=[contested_session.project_id]))
        .content.decode()
    )
    assert "the server is the source of truth" in html and "alice" in html
    assert "trigger: message #2" in html and "extractor" in html
    assert "Decided: SQLite for the local offline cache." in html  # evidence quote
