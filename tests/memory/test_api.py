"""The REST API's doors: who may call it, what each caller sees, pages, projects and sessions."""

import re

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse
from rest_framework.test import APIClient

from memory.models import Session
from memory.projects import create_project
from proxy.keys import create_key, revoke_key
from tests.conftest import contested_nodes
from tests.memory.conftest import api, keyed


@pytest.fixture
def world(team, contested_session, stranger_session):
    a, b = contested_nodes(contested_session)
    return {
        "project": contested_session.project_id, "session": contested_session.pk, "node": a.pk,
        "other": b.pk, "checkpoint": contested_session.checkpoints.get().pk,
    }  # fmt: skip


# endpoint name -> (the ids its URL takes, the query it needs)
READS = {
    "project-detail": (["project"], {}),
    "project-sessions": (["project"], {}),
    "project-contested": (["project"], {}),
    "project-stats": (["project"], {}),
    "project-usage": (["project"], {}),
    "project-search": (["project"], {"q": "sqlite"}),
    "session-detail": (["session"], {}),
    "session-messages": (["session"], {}),
    "session-nodes": (["session"], {}),
    "session-edges": (["session"], {}),
    "session-graph": (["session"], {}),
    "session-history": (["session"], {"at": "0"}),
    "session-transitions": (["session"], {}),
    "session-checkpoints": (["session"], {}),
    "session-resume": (["session"], {}),
    "session-stats": (["session"], {}),
    "session-usage": (["session"], {}),
    "session-lineage": (["session"], {}),
    "session-export-d3": (["session"], {}),
    "session-export-html": (["session"], {}),
    "session-export-canvas": (["session"], {}),
    "checkpoint-detail": (["checkpoint"], {}),
}

# endpoint name -> (the ids its URL takes, the body it needs, the status a member gets)
WRITES = {
    "session-checkpoints": (["session"], {}, (200, 201)),
    "checkpoint-branch": (["checkpoint"], {"external_id": "branch-1"}, (201,)),
    "decision-invalidate": (["node"], {"reason": "we never run a server"}, (200,)),
    "decision-resolve": ([], "resolve", (200,)),
}


def url_of(name: str, world: dict, args: list[str]) -> str:
    return reverse(f"api:{name}", args=[world[a] for a in args])


def body_of(body, world: dict) -> dict:
    if body == "resolve":
        return {"node_a": world["node"], "node_b": world["other"], "outcome": "keep_both"}
    return body


@pytest.mark.parametrize("name", sorted(READS))
def test_members_read_every_endpoint_and_strangers_get_404(name, team, world, stranger_session):
    args, params = READS[name]
    url = url_of(name, world, args)
    assert api(team["owner"]).get(url, params).status_code == 200
    assert keyed(team["viewer"], stranger_session.project).get(url, params).status_code == 404
    project = team["owner"].projects.get(pk=world["project"])
    assert keyed(team["viewer"], project).get(url, params).status_code == 200
    stranger = api(team["stranger"]).get(url, params)
    assert stranger.status_code == 404 and "detail" in stranger.json()
    assert keyed(team["stranger"], stranger_session.project).get(url, params).status_code == 404


@pytest.mark.parametrize("name", sorted(READS))
def test_every_endpoint_asks_anonymous_callers_for_a_key(name, world):
    args, params = READS[name]
    response = api().get(url_of(name, world, args), params)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert "credentials" in response.json()["detail"]


@pytest.mark.parametrize("name", sorted(WRITES))
def test_viewers_cannot_write_strangers_get_404_members_act(name, team, world, stranger_session):
    args, body, allowed = WRITES[name]
    url, data = url_of(name, world, args), body_of(body, world)
    for viewer in (api(team["viewer"]), keyed(team["viewer"], team["owner"].projects.get())):
        refused = viewer.post(url, data, format="json")
        assert refused.status_code == 403, refused.content
        assert "viewers" in refused.json()["detail"]
    assert api(team["stranger"]).post(url, data, format="json").status_code == 404
    sams_key = keyed(team["stranger"], stranger_session.project)
    assert sams_key.post(url, data, format="json").status_code == 404
    assert api().post(url, data, format="json").status_code == 401
    done = api(team["member"]).post(url, data, format="json")
    assert done.status_code in allowed, done.content


def test_a_browser_session_must_send_the_csrf_token_to_write(team, contested_session):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(team["member"])
    url = reverse("api:session-checkpoints", args=[contested_session.pk])
    refused = client.post(url)
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    client.get(reverse("api:docs"))  # the docs page sets the CSRF cookie its "Try it" sends
    token = client.cookies["csrftoken"].value
    assert client.post(url, HTTP_X_CSRFTOKEN=token).status_code in (200, 201)
    keyed_client = keyed(team["member"], contested_session.project)  # keys need no CSRF token
    assert keyed_client.post(url).status_code == 200


def test_a_bad_or_revoked_key_is_refused_with_401(team, project):
    row, plaintext = create_key(team["owner"], project, "laptop")
    client = api()
    client.credentials(HTTP_AUTHORIZATION="Bearer tmz_" + "x" * 40)
    wrong = client.get(reverse("api:project-list"))
    assert wrong.status_code == 401 and wrong.json()["detail"] == "Incorrect API key provided."
    assert wrong["WWW-Authenticate"].startswith("Bearer")
    client.credentials(HTTP_AUTHORIZATION="Bearer not-a-key")
    assert "Malformed" in client.get(reverse("api:project-list")).json()["detail"]
    revoke_key(row)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    revoked = client.get(reverse("api:project-list"))
    assert revoked.status_code == 401 and "revoked" in revoked.json()["detail"]


def test_a_key_sees_only_its_project_and_the_browser_session_sees_them_all(team, project):
    second = create_project("Billing", team["owner"])
    by_key = keyed(team["owner"], project).get(reverse("api:project-list")).json()
    assert [p["name"] for p in by_key["results"]] == ["Checkout service"]
    assert (
        keyed(team["owner"], project)
        .get(reverse("api:project-detail", args=[second.pk]))
        .status_code
        == 404
    )
    by_session = api(team["owner"]).get(reverse("api:project-list")).json()
    assert [p["name"] for p in by_session["results"]] == ["Billing", "Checkout service"]


def test_a_key_acts_with_its_users_role(team, project, contested_session):
    url = reverse("api:session-checkpoints", args=[contested_session.pk])
    assert keyed(team["viewer"], project).post(url).status_code == 403
    assert keyed(team["member"], project).post(url).status_code in (200, 201)


def test_a_member_removed_from_the_project_loses_it_even_with_a_key(team, project):
    client = keyed(team["member"], project)
    project.memberships.filter(user=team["member"]).delete()
    assert client.get(reverse("api:project-detail", args=[project.pk])).status_code == 404


def test_the_project_list_shows_the_callers_role(team, project):
    for who, role in (("owner", "owner"), ("member", "member"), ("viewer", "viewer")):
        [row] = api(team[who]).get(reverse("api:project-list")).json()["results"]
        assert row["role"] == role and row["name"] == "Checkout service"
    assert api(team["stranger"]).get(reverse("api:project-list")).json()["results"] == []


def test_sessions_page_by_fifty_and_filter_by_external_id(team, project):
    Session.objects.bulk_create(
        Session(project=project, user=team["owner"], external_id=f"s-{n:02}") for n in range(51)
    )
    url = reverse("api:project-sessions", args=[project.pk])
    first = api(team["viewer"]).get(url).json()
    assert first["count"] == 51 and len(first["results"]) == 50 and first["next"]
    second = api(team["viewer"]).get(url, {"page": 2}).json()
    assert len(second["results"]) == 1 and second["next"] is None
    seen = {s["external_id"] for s in first["results"] + second["results"]}
    assert len(seen) == 51
    assert api(team["viewer"]).get(url, {"page": 3}).status_code == 404
    found = api(team["viewer"]).get(url, {"external_id": "s-07"}).json()
    assert [s["external_id"] for s in found["results"]] == ["s-07"]
    assert api(team["viewer"]).get(url, {"external_id": "s-0"}).json()["count"] == 0


def test_an_overlong_external_id_filter_names_the_field(team, project):
    url = reverse("api:project-sessions", args=[project.pk])
    response = api(team["owner"]).get(url, {"external_id": "x" * 201})
    assert response.status_code == 400 and "external_id" in response.json()


def test_a_session_shows_its_client_id_and_owner(team, contested_session):
    data = (
        api(team["viewer"]).get(reverse("api:session-detail", args=[contested_session.pk])).json()
    )
    assert data["external_id"] == "sess-1" and data["user"] == "alice"
    assert data["project"] == contested_session.project_id and data["high_water"] == 3


def test_messages_come_in_transcript_order(team, contested_session):
    url = reverse("api:session-messages", args=[contested_session.pk])
    rows = api(team["viewer"]).get(url).json()["results"]
    assert [m["position"] for m in rows] == [0, 1, 2, 3]
    assert rows[2]["content"] == "Decided: SQLite for the local offline cache."
    assert rows[0]["role"] == "user" and rows[0]["token_count"] > 0


def test_an_id_beyond_any_database_column_is_simply_not_found(team):
    url = reverse("api:session-detail", args=[2**70])
    assert api(team["owner"]).get(url).status_code == 404


def test_the_schema_describes_the_api_and_the_docs_page_loads_its_scripts_locally(team):
    schema = api().get(reverse("api:schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/sessions/{id}/history/" in paths and "/api/decisions/resolve/" in paths
    page = api(team["owner"]).get(reverse("api:docs"))
    assert page.status_code == 200
    html = page.content.decode()
    sources = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html)
    assert any(src.endswith("swagger-ui-bundle.js") for src in sources)
    for src in sources:
        assert src.startswith("/static/"), src
        assert finders.find(src.removeprefix("/static/")) is not None, src
    assert "cdn" not in html.lower() and "https://" not in html
