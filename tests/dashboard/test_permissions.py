"""The permissions matrix: every page and action for owner, member, viewer, stranger and anonymous.

A stranger gets 404 (never 403, never the object), anonymous is sent to sign in, a viewer may look
but not act, a member acts on decisions, and only owners manage members and settings.
"""

import pytest
from django.urls import reverse

from memory.models import Membership
from proxy.models import Upstream
from tests.dashboard.conftest import ROLES, client_for, contested_nodes


@pytest.fixture
def world(team, contested_session, member_key):
    session = contested_session
    a, b = contested_nodes(session)
    upstream = Upstream.objects.create(
        project=session.project, name="local", base_url="http://127.0.0.1:9/v1"
    )
    return {
        "project": session.project.pk, "session": session.pk, "node": a.pk, "other": b.pk,
        "checkpoint": session.checkpoints.first().pk, "upstream": upstream.pk,
        "carol": Membership.objects.get(user=team["member"]).pk, "key": member_key.pk,
    }  # fmt: skip


# page name -> the ids its URL takes
PAGES = {
    "project-detail": ["project"],
    "member-list": ["project"],
    "project-settings": ["project"],
    "decision-history": ["project"],
    "review-queue": ["project"],
    "project-usage": ["project"],
    "session-detail": ["session"],
    "session-graph": ["session"],
    "session-graph-data": ["session"],
    "checkpoint-list": ["session"],
    "session-usage": ["session"],
    "checkpoint-detail": ["checkpoint"],
    "node-detail": ["node"],
}
PAGE_STATUS = {"owner": 200, "member": 200, "viewer": 200, "stranger": 404}


def url_of(name: str, world: dict, args: list[str]) -> str:
    return reverse(f"dashboard:{name}", args=[world[a] for a in args])


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("page", sorted(PAGES))
def test_project_pages_show_to_members_and_hide_from_strangers(page, role, team, world):
    url = url_of(page, world, PAGES[page])
    response = client_for(team[role]).get(url)
    if role == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("dashboard:login"))
    else:
        assert response.status_code == PAGE_STATUS[role]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("page", ["project-list", "key-list", "password-change"])
def test_personal_pages_need_only_a_sign_in(page, role, team):
    response = client_for(team[role]).get(reverse(f"dashboard:{page}"))
    assert response.status_code == (302 if role == "anonymous" else 200)


# action -> (the ids its URL takes, the form data, the lowest role allowed)
ACTIONS = {
    "review-resolve": (
        ["project"],
        lambda w: {"node_a": w["node"], "node_b": w["other"], "outcome": "keep_both"},
        "member",
    ),  # fmt: skip
    "node-invalidate": (["node"], lambda w: {"reason": "we never agreed to this"}, "member"),
    "member-add": (["project"], lambda w: {"username": "newcomer", "role": "viewer"}, "owner"),
    "member-role": (["project", "carol"], lambda w: {"role": "viewer"}, "owner"),
    "member-remove": (["project", "carol"], lambda w: {}, "owner"),
    "project-settings": (
        ["project"],
        lambda w: {
            "name": "Renamed",
            "mecw": 8000,
            "compaction_ratio": 0.8,
            "redact_upstream": "on",
            "requests_per_minute": 60,
            "tokens_per_minute": 1000,
            "max_tool_rounds": 5,
            "memory_budget": 300,
        },
        "owner",
    ),  # fmt: skip
    "upstream-add": (
        ["project"],
        lambda w: {
            "name": "ollama",
            "kind": "openai",
            "base_url": "http://127.0.0.1:11434/v1",
            "api_key_env": "",
            "model_patterns": "llama*",
            "position": 1,
        },
        "owner",
    ),  # fmt: skip
    "upstream-delete": (["project", "upstream"], lambda w: {}, "owner"),
}
ALLOWED = {"member": ("owner", "member"), "owner": ("owner",)}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_actions_are_for_members_or_owners_and_never_for_viewers(action, role, team, world):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("newcomer", password="x-password-1")
    args, data, lowest = ACTIONS[action]
    url = url_of(action, world, args)
    response = client_for(team[role]).post(url, data(world), HTTP_HX_REQUEST="true")
    if role == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("dashboard:login"))
    elif role == "stranger":
        assert response.status_code == 404
    elif role in ALLOWED[lowest]:
        assert response.status_code == 200
        assert "HX-Trigger" in response, response.content.decode()[:500]
    else:
        assert response.status_code == 403


@pytest.mark.parametrize("role", ROLES)
def test_a_key_is_revoked_by_its_holder_or_a_project_owner_only(role, team, member_key):
    response = client_for(team[role]).post(
        reverse("dashboard:key-revoke", args=[member_key.pk]), HTTP_HX_REQUEST="true"
    )
    member_key.refresh_from_db()
    expected = {"owner": 200, "member": 200, "viewer": 404, "stranger": 404, "anonymous": 302}
    assert response.status_code == expected[role]
    assert (member_key.revoked_at is not None) == (role in ("owner", "member"))


@pytest.mark.parametrize("role", ROLES)
def test_only_members_who_may_write_can_create_a_key_for_the_project(role, team, project):
    response = client_for(team[role]).post(
        reverse("dashboard:key-create"), {"project": project.pk, "name": "ci"},
        HTTP_HX_REQUEST="true",
    )  # fmt: skip
    created = project.api_keys.filter(name="ci").exists()
    assert created == (role in ("owner", "member"))
    assert response.status_code == (302 if role == "anonymous" else 200)
    assert "HX-Trigger" in response if created else "HX-Trigger" not in response


def test_a_stranger_cannot_open_a_websocket_or_see_who_else_is_there(team, world):
    # the consumer's membership check, covered end to end in test_consumers.py
    assert client_for(team["stranger"]).get(f"/projects/{world['project']}/").status_code == 404
