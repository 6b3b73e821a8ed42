"""Downloading a session's graph from its graph page: HTML, D3 JSON and Obsidian canvas."""

import json

import pytest
from django.urls import reverse

from memory import exports
from tests.dashboard.conftest import client_for

FORMATS = {
    "html": ("text/html", ".html"),
    "json": ("application/json", ".json"),
    "canvas": ("application/json", ".canvas"),
}


def export_url(session, fmt: str) -> str:
    return reverse("dashboard:session-export", args=[session.pk, fmt])


def test_the_graph_page_offers_the_three_downloads(team, contested_session):
    url = reverse("dashboard:session-graph", args=[contested_session.pk])
    html = client_for(team["viewer"]).get(url).content.decode()
    for fmt in FORMATS:
        assert f'href="{export_url(contested_session, fmt)}" download' in html


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_viewer_downloads_each_format_as_a_named_file(team, contested_session, fmt):
    response = client_for(team["viewer"]).get(export_url(contested_session, fmt))
    content_type, extension = FORMATS[fmt]
    assert response.status_code == 200
    assert response["Content-Type"].startswith(content_type)
    assert response["Content-Disposition"] == f'attachment; filename="sess-1-graph{extension}"'


def test_the_downloads_hold_the_session_graph(team, contested_session):
    client = client_for(team["member"])
    body = {fmt: client.get(export_url(contested_session, fmt)).content for fmt in FORMATS}
    assert json.loads(body["json"]) == exports.d3_json(contested_session)
    assert json.loads(body["canvas"]) == exports.obsidian_canvas(contested_session)
    assert body["html"].decode() == exports.html_page(contested_session)
    contested = [n for n in json.loads(body["json"])["nodes"] if n["status"] == "contested"]
    assert len(contested) == 2
    cards = json.loads(body["canvas"])["nodes"]
    assert sum(c["color"] == "#e11d48" for c in cards) == 2


def test_a_stranger_gets_404_and_an_anonymous_visitor_the_login_page(team, contested_session):
    for fmt in FORMATS:
        assert (
            client_for(team["stranger"]).get(export_url(contested_session, fmt)).status_code == 404
        )
        response = client_for(None).get(export_url(contested_session, fmt))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_an_unknown_format_is_404(team, contested_session):
    response = client_for(team["owner"]).get(export_url(contested_session, "pdf"))
    assert response.status_code == 404


def test_exports_cannot_be_posted(team, contested_session):
    response = client_for(team["owner"]).post(export_url(contested_session, "json"))
    assert response.status_code == 405
