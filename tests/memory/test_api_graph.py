"""The graph through the API: nodes and edges, filters, the graph now, time travel, transitions."""

from datetime import UTC, datetime

import pytest
from django.urls import reverse

from memory import decisions, graphs
from memory.transcripts import record_messages
from tests.conftest import CONTESTED_TALK, contested_nodes
from tests.memory.conftest import api

T1 = 1_900_000_000.0  # record times of the two extraction passes, epoch seconds
T2 = T1 + 3600


def labels(nodes: list[dict]) -> set[str]:
    return {n["label"] for n in nodes}


def get(user, name: str, pk: int, **params):
    return api(user).get(reverse(f"api:{name}", args=[pk]), params)


@pytest.fixture
def two_pass_session(session):
    """The contested talk extracted in two passes an hour apart (record time T1, then T2)."""
    record_messages(session, CONTESTED_TALK[:2])
    graphs.extract_session(session.pk, now=T1)
    record_messages(session, CONTESTED_TALK)
    graphs.extract_session(session.pk, now=T2)
    return session


def test_nodes_filter_by_type_status_and_text(team, contested_session):
    user, pk = team["viewer"], contested_session.pk
    everything = get(user, "session-nodes", pk).json()
    assert everything["count"] == contested_session.nodes.count() > 2
    decided = get(user, "session-nodes", pk, type="decision").json()["results"]
    assert {n["type"] for n in decided} == {"decision"} and len(decided) == 2
    contested = get(user, "session-nodes", pk, status="contested").json()["results"]
    assert {n["status"] for n in contested} == {"contested"}
    assert labels(get(user, "session-nodes", pk, q="SQLITE").json()["results"]) == {
        "SQLite for the local offline cache"
    }
    assert get(user, "session-nodes", pk, status="in_progress", q="sqlite").json()["count"] == 0


@pytest.mark.parametrize("name", ["session-nodes", "session-graph"])
def test_unknown_filter_values_are_refused_naming_the_field(name, team, contested_session):
    response = get(team["owner"], name, contested_session.pk, type="spaceship")
    assert response.status_code == 400 and "type" in response.json()
    response = get(team["owner"], name, contested_session.pk, status="done")
    assert response.status_code == 400 and "status" in response.json()


def test_nodes_page_by_fifty(team, session):
    talk = [{"role": "assistant", "content": f"Created src/module_{n:02}.py."} for n in range(55)]
    record_messages(session, talk)
    graphs.extract_session(session.pk)
    first = get(team["owner"], "session-nodes", session.pk, type="file").json()
    assert first["count"] >= 55 and len(first["results"]) == 50
    rest = get(team["owner"], "session-nodes", session.pk, type="file", page=2).json()
    assert len(rest["results"]) == first["count"] - 50
    ids = [n["id"] for n in first["results"] + rest["results"]]
    assert len(set(ids)) == first["count"]


def test_edges_name_their_nodes_and_the_contested_pair_is_linked(team, contested_session):
    a, b = contested_nodes(contested_session)
    edges = get(team["viewer"], "session-edges", contested_session.pk).json()["results"]
    conflicts = [e for e in edges if e["type"] == "conflicts_with"]
    assert len(conflicts) == 1 and {conflicts[0]["source"], conflicts[0]["target"]} == {a.pk, b.pk}
    assert conflicts[0]["retired_at"] is None


def test_the_graph_keeps_only_edges_between_the_nodes_it_returns(team, contested_session):
    a, b = contested_nodes(contested_session)
    whole = get(team["viewer"], "session-graph", contested_session.pk).json()
    assert {a.pk, b.pk} <= {n["id"] for n in whole["nodes"]}
    assert any(e["type"] == "conflicts_with" for e in whole["edges"])
    ids = {n["id"] for n in whole["nodes"]}
    assert all(e["source"] in ids and e["target"] in ids for e in whole["edges"])
    decisions_only = get(
        team["viewer"], "session-graph", contested_session.pk, type="decision"
    ).json()
    assert {n["id"] for n in decisions_only["nodes"]} == {a.pk, b.pk}
    assert [(e["source"], e["target"]) for e in decisions_only["edges"]] in (
        [(a.pk, b.pk)],
        [(b.pk, a.pk)],
    )
    one = get(team["viewer"], "session-graph", contested_session.pk, q="sqlite").json()
    assert labels(one["nodes"]) == {"SQLite for the local offline cache"} and one["edges"] == []


def test_history_at_a_message_shows_the_graph_as_it_held_then(team, contested_session):
    then = get(team["viewer"], "session-history", contested_session.pk, at="0").json()
    assert then["axis"] == "valid" and then["at"] == 0
    decided = {n["label"]: n["status"] for n in then["nodes"] if n["type"] == "decision"}
    assert decided == {"PostgreSQL for primary user data": "completed"}  # not contested yet
    assert not any(e["type"] == "conflicts_with" for e in then["edges"])
    now = get(team["viewer"], "session-history", contested_session.pk, at="3").json()
    statuses = {n["status"] for n in now["nodes"] if n["type"] == "decision"}
    assert statuses == {"contested"} and any(e["type"] == "conflicts_with" for e in now["edges"])


def test_history_at_a_moment_shows_what_the_memory_knew_then(team, two_pass_session):
    between = datetime.fromtimestamp(T1 + 60, tz=UTC).isoformat()
    then = get(team["viewer"], "session-history", two_pass_session.pk, at=between).json()
    assert then["axis"] == "record" and then["at"] == between
    known = labels(then["nodes"])
    assert "PostgreSQL for primary user data" in known
    assert "SQLite for the local offline cache" not in known
    later = datetime.fromtimestamp(T2 + 60, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")  # naive: UTC
    assert "SQLite for the local offline cache" in labels(
        get(team["viewer"], "session-history", two_pass_session.pk, at=later).json()["nodes"]
    )
    before = get(team["viewer"], "session-history", two_pass_session.pk, at="2000-01-01T00:00Z")
    assert before.json()["nodes"] == [] and before.json()["edges"] == []


def test_history_filters_like_the_graph(team, contested_session):
    then = get(team["viewer"], "session-history", contested_session.pk, at="3", type="file").json()
    assert {n["type"] for n in then["nodes"]} == {"file"} and then["edges"] == []


@pytest.mark.parametrize("at", [None, "", "yesterday", "-1", "3.5", "2026-13-40T00:00"])
def test_history_without_a_valid_at_names_the_field(at, team, contested_session):
    params = {} if at is None else {"at": at}
    response = get(team["owner"], "session-history", contested_session.pk, **params)
    assert response.status_code == 400 and "at" in response.json()


def test_transitions_record_who_settled_a_decision_and_why(team, contested_session):
    a, b = contested_nodes(contested_session)
    decisions.resolve_contested(b, a, "a_replaces_b", "the app is offline-first", team["member"])
    rows = get(team["viewer"], "session-transitions", contested_session.pk).json()["results"]
    assert [r["sequence"] for r in rows] == sorted(r["sequence"] for r in rows)
    mine = [r for r in rows if r["actor"] == "carol"]
    assert mine and "offline-first" in mine[0]["reason"]
    assert {mine[0]["from_status"], mine[0]["to_status"]} <= {
        "contested",
        "completed",
        "superseded",
    }
