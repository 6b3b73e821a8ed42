"""htmx requests get the targeted region, full requests the page; CSRF is enforced on every post."""

import re

import pytest
from django.urls import reverse

from tests.dashboard.conftest import client_for, contested_nodes, csrf_client_for

REGIONS = [
    ("project-detail", "project", "session-list"),
    ("member-list", "project", "member-list"),
    ("project-settings", "project", "settings-form"),
    ("decision-history", "project", "decision-history"),
    ("review-queue", "project", "review-queue"),
    ("project-usage", "project", "usage-panel"),
    ("session-detail", "session", "node-table"),
    ("checkpoint-list", "session", "checkpoint-list"),
    ("session-usage", "session", "usage-panel"),
]


@pytest.fixture
def ids(team, contested_session):
    return {"project": contested_session.project_id, "session": contested_session.pk}


@pytest.mark.parametrize("name, arg, region", REGIONS)
def test_an_htmx_request_gets_only_the_region_it_targets(name, arg, region, team, ids):
    url = reverse(f"dashboard:{name}", args=[ids[arg]])
    partial = client_for(team["viewer"]).get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET=region)
    html = partial.content.decode()
    assert "<html" not in html
    assert re.match(rf'\s*<div id="{region}"', html)


@pytest.mark.parametrize("name, arg, region", REGIONS)
def test_a_full_request_gets_the_whole_page_around_the_region(name, arg, region, team, ids):
    url = reverse(f"dashboard:{name}", args=[ids[arg]])
    html = client_for(team["viewer"]).get(url).content.decode()
    assert html.lstrip().startswith("<!doctype html>")
    assert f'id="{region}"' in html


def test_an_htmx_request_for_an_unknown_region_gets_the_page(team, ids):
    url = reverse("dashboard:project-detail", args=[ids["project"]])
    html = client_for(team["owner"]).get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="nope")
    assert b"<!doctype html>" in html.content


def test_the_csrf_token_is_set_once_on_the_body_for_htmx(team, ids):
    html = client_for(team["owner"]).get(reverse("dashboard:project-list")).content.decode()
    assert re.search(r'<body hx-headers=\'\{"X-CSRFToken": "[^"]+"\}\'', html)


def test_a_post_without_the_csrf_token_is_refused(team, contested_session):
    a, b = contested_nodes(contested_session)
    client = csrf_client_for(team["owner"])
    url = reverse("dashboard:review-resolve", args=[contested_session.project_id])
    data = {"node_a": a.pk, "node_b": b.pk, "outcome": "keep_both"}
    assert client.post(url, data, HTTP_HX_REQUEST="true").status_code == 403
    a.refresh_from_db()
    assert a.status == "contested"


def test_a_post_with_the_token_from_the_body_goes_through(team, contested_session):
    a, b = contested_nodes(contested_session)
    client = csrf_client_for(team["owner"])
    page = client.get(reverse("dashboard:review-queue", args=[contested_session.project_id]))
    token = re.search(r'"X-CSRFToken": "([^"]+)"', page.content.decode()).group(1)
    url = reverse("dashboard:review-resolve", args=[contested_session.project_id])
    data = {"node_a": a.pk, "node_b": b.pk, "outcome": "keep_both"}
    response = client.post(url, data, HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200
    a.refresh_from_db()
    assert a.status == "completed"


def test_every_asset_is_served_from_this_site(team, ids):
    html = (
        client_for(team["owner"])
        .get(reverse("dashboard:session-graph", args=[ids["session"]]))
        .content.decode()
    )
    sources = re.findall(r'(?:src|href)="([^"]+\.(?:js|css|svg))"', html)
    assert sources and all(s.startswith("/static/") for s in sources)
    assert any("d3.min.js" in s for s in sources) and any("htmx" in s for s in sources)
