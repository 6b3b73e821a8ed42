"""Decisions through the API: the contested queue, resolving a pair, invalidating a decision."""

import pytest
from django.urls import reverse

from memory.models import DecisionTransition
from tests.conftest import contested_nodes
from tests.memory.conftest import api

RESOLVE = reverse("api:decision-resolve")


def invalidate_url(pk: int) -> str:
    return reverse("api:decision-invalidate", args=[pk])


def test_the_contested_queue_lists_the_pair_older_first(team, contested_session):
    a, b = contested_nodes(contested_session)
    url = reverse("api:project-contested", args=[contested_session.project_id])
    data = api(team["viewer"]).get(url).json()
    assert data["count"] == 1
    [pair] = data["results"]
    assert (pair["a"]["id"], pair["b"]["id"]) == (a.pk, b.pk)
    assert pair["session"] == contested_session.pk and pair["a"]["status"] == "contested"


def test_resolving_a_pair_settles_it_and_empties_the_queue(team, contested_session):
    a, b = contested_nodes(contested_session)
    body = {"node_a": b.pk, "node_b": a.pk, "outcome": "a_replaces_b", "reason": "offline-first"}
    response = api(team["member"]).post(RESOLVE, body, format="json")
    assert response.status_code == 200
    assert response.json()["node_a"]["status"] == "completed"
    assert response.json()["node_b"]["status"] == "superseded"
    assert DecisionTransition.objects.filter(actor="carol", reason="offline-first").exists()
    url = reverse("api:project-contested", args=[contested_session.project_id])
    assert api(team["viewer"]).get(url).json()["count"] == 0


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"outcome": "flip_a_coin"}, "outcome"),
        ({"reason": ""}, "reason"),
        ({"node_a": "first"}, "node_a"),
        ({"node_b": None}, "node_b"),
        ({"node_a": 0}, "node_a"),
        ({"node_b": 2**70}, "node_b"),
    ],
)
def test_bad_resolve_input_names_the_field_and_changes_nothing(
    change, field, team, contested_session
):
    a, b = contested_nodes(contested_session)
    body = {"node_a": a.pk, "node_b": b.pk, "outcome": "a_replaces_b", "reason": "why not"}
    response = api(team["member"]).post(RESOLVE, {**body, **change}, format="json")
    assert response.status_code == 400 and field in response.json()
    assert contested_session.nodes.filter(status="contested").count() == 2


def test_resolving_a_pair_that_is_not_contested_gives_the_domains_reason(team, contested_session):
    a, _ = contested_nodes(contested_session)
    other = contested_session.nodes.exclude(type="decision").first()
    body = {"node_a": a.pk, "node_b": other.pk, "outcome": "keep_both"}
    response = api(team["member"]).post(RESOLVE, body, format="json")
    assert response.status_code == 400
    assert response.json() == {"detail": "these two decisions are not a contested pair"}


def test_resolving_with_a_strangers_node_is_404(team, contested_session, stranger_session):
    a, _ = contested_nodes(contested_session)
    theirs = stranger_session.nodes.first()
    body = {"node_a": a.pk, "node_b": theirs.pk, "outcome": "keep_both"}
    assert api(team["member"]).post(RESOLVE, body, format="json").status_code == 404
    assert contested_session.nodes.filter(status="contested").count() == 2


def test_invalidating_a_decision_keeps_it_as_a_warning(team, contested_session):
    a, _ = contested_nodes(contested_session)
    response = api(team["owner"]).post(invalidate_url(a.pk), {"reason": "no server"}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "invalidated"
    assert DecisionTransition.objects.filter(actor="alice", to_status="invalidated").exists()


def test_invalidating_needs_a_reason(team, contested_session):
    a, _ = contested_nodes(contested_session)
    for body in ({}, {"reason": "   "}, {"reason": "x" * 1001}):
        response = api(team["owner"]).post(invalidate_url(a.pk), body, format="json")
        assert response.status_code == 400 and "reason" in response.json()
    a.refresh_from_db()
    assert a.status == "contested"


def test_only_decisions_can_be_invalidated(team, contested_session):
    file_node = contested_session.nodes.get(type="file")
    response = api(team["owner"]).post(invalidate_url(file_node.pk), {"reason": "x"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"detail": "only decisions can be invalidated"}
