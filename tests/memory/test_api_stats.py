"""Numbers and files through the API: stats, usage and money saved, search, and graph exports."""

import json
from decimal import Decimal

from django.urls import reverse

from dashboard.models import ModelPrice
from memory import graphs
from memory.models import Session
from memory.transcripts import record_messages
from proxy.models import RequestLog
from tests.memory.conftest import api


def get(user, name: str, pk: int, **params):
    return api(user).get(reverse(f"api:{name}", args=[pk]), params)


def second_session(project, user) -> Session:
    other = Session.objects.create(project=project, user=user, external_id="sess-2")
    record_messages(other, [{"role": "assistant", "content": "Created billing/invoice.py."}])
    graphs.extract_session(other.pk)
    RequestLog.objects.create(project=project, session=other, model="gpt-4o-mini",
                              tokens_sent=100, tokens_forwarded=100)  # fmt: skip
    return other


def test_session_stats_count_the_memory(team, contested_session):
    stats = get(team["viewer"], "session-stats", contested_session.pk).json()
    checkpoint = contested_session.checkpoints.get()
    assert stats["nodes_by_type"]["decision"] == 2 and stats["nodes_by_type"]["file"] == 1
    assert stats["nodes_by_status"]["contested"] == 2
    assert sum(stats["nodes_by_type"].values()) == contested_session.nodes.count()
    assert stats["contested"] == 1 and stats["messages"] == 4
    assert stats["transcript_tokens"] == sum(
        m.token_count for m in contested_session.messages.all()
    )
    assert stats["latest_checkpoint"] == {
        "id": checkpoint.pk,
        "tokens_before": checkpoint.tokens_before,
        "tokens_after": checkpoint.tokens_after,
    }


def test_a_fresh_session_has_no_checkpoint_in_its_stats(team, session):
    stats = get(team["viewer"], "session-stats", session.pk).json()
    assert stats["latest_checkpoint"] is None and stats["messages"] == 0
    assert stats["nodes_by_type"] == {} and stats["contested"] == 0


def test_project_stats_sum_the_sessions(team, contested_session):
    other = second_session(contested_session.project, team["member"])
    one = get(team["viewer"], "session-stats", contested_session.pk).json()
    two = get(team["viewer"], "session-stats", other.pk).json()
    total = get(team["viewer"], "project-stats", contested_session.project_id).json()
    assert total["sessions"] == 2 and total["messages"] == 5
    assert total["transcript_tokens"] == one["transcript_tokens"] + two["transcript_tokens"]
    assert total["nodes_by_type"]["file"] == 2 and total["contested"] == 1
    assert total["latest_checkpoints"] == {
        "sessions": 1,
        "tokens_before": one["latest_checkpoint"]["tokens_before"],
        "tokens_after": one["latest_checkpoint"]["tokens_after"],
    }


def test_usage_shows_tokens_and_money_saved(team, contested_session):
    ModelPrice.objects.create(
        pattern="gpt-4o-mini", input_per_million=Decimal("0.15"), output_per_million=1
    )
    usage = get(team["viewer"], "session-usage", contested_session.pk).json()
    assert usage["requests"] == 1 and usage["tokens_sent"] == 900
    assert usage["tokens_forwarded"] == 300 and usage["tokens_saved"] == 600
    assert usage["saved_share"] == 600 / 900 and usage["priced"] is True
    assert Decimal(usage["money_saved"]) == Decimal("0.00009")
    assert usage["series"][0]["sent"] == 900
    second_session(contested_session.project, team["member"])
    project = get(team["viewer"], "project-usage", contested_session.project_id).json()
    assert project["requests"] == 2 and project["tokens_sent"] == 1000
    assert project["tokens_saved"] == 600


def test_search_ranks_the_projects_nodes_and_names_their_session(
    team, contested_session, stranger_session
):
    hits = get(team["viewer"], "project-search", contested_session.project_id, q="offline cache")
    results = hits.json()["results"]
    assert results[0]["label"] == "SQLite for the local offline cache"
    assert results[0]["session"] == contested_session.pk and results[0]["rank"] > 0
    assert (
        get(team["viewer"], "project-search", contested_session.project_id, q="Go CLI").json()[
            "results"
        ]
        == []
    )  # sam's project holds that one
    one = get(team["viewer"], "project-search", contested_session.project_id, q="notes", limit=1)
    assert len(one.json()["results"]) == 1


def test_search_input_is_checked_naming_the_field(team, contested_session):
    pk = contested_session.project_id
    for params, field in (({}, "q"), ({"q": " "}, "q"), ({"q": "x", "limit": 0}, "limit")):
        response = get(team["viewer"], "project-search", pk, **params)
        assert response.status_code == 400 and field in response.json()


def test_exports_download_the_graph_in_three_forms(team, contested_session):
    d3 = get(team["viewer"], "session-export-d3", contested_session.pk)
    assert d3["Content-Type"] == "application/json"
    assert (
        d3["Content-Disposition"]
        == f'attachment; filename="session-{contested_session.pk}-graph.json"'
    )
    labels = {n["label"] for n in json.loads(d3.content)["nodes"]}
    assert "SQLite for the local offline cache" in labels
    page = get(team["viewer"], "session-export-html", contested_session.pk)
    assert page["Content-Type"].startswith("text/html")
    assert page["Content-Disposition"].startswith("attachment;")
    assert page["Content-Disposition"].endswith('.html"')
    assert b"<html" in page.content and b"SQLite for the local offline cache" in page.content
    canvas = get(team["viewer"], "session-export-canvas", contested_session.pk)
    assert canvas["Content-Type"] == "application/json"
    assert canvas["Content-Disposition"].endswith('.canvas"')
    document = json.loads(canvas.content)
    assert {"nodes", "edges"} <= set(document)
    assert any("SQLite" in n.get("text", "") for n in document["nodes"])
