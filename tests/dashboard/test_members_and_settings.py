"""Owners add and remove members, set roles and the project's settings and upstreams."""

from django.urls import reverse

from memory.models import Membership
from tests.dashboard.conftest import client_for, make_user


def post(user, name, args, data=None):
    return client_for(user).post(
        reverse(f"dashboard:{name}", args=args), data or {}, HTTP_HX_REQUEST="true"
    )


def test_an_owner_adds_a_member_with_a_role(team, project):
    make_user("dave")
    response = post(
        team["owner"], "member-add", [project.pk], {"username": "dave", "role": "viewer"}
    )
    assert "members-changed" in response["HX-Trigger"]
    assert Membership.objects.get(user__username="dave").role == "viewer"
    assert b"dave" in response.content


def test_adding_an_unknown_user_shows_the_error_in_the_form(team, project):
    response = post(
        team["owner"], "member-add", [project.pk], {"username": "ghost", "role": "member"}
    )
    assert b"No user named" in response.content and "HX-Trigger" not in response


def test_adding_someone_twice_is_refused(team, project):
    response = post(
        team["owner"], "member-add", [project.pk], {"username": "carol", "role": "owner"}
    )
    assert b"already a member" in response.content
    assert Membership.objects.get(user=team["member"]).role == "member"


def test_an_owner_changes_a_role_and_removes_a_member(team, project):
    carol = Membership.objects.get(user=team["member"])
    post(team["owner"], "member-role", [project.pk, carol.pk], {"role": "owner"})
    carol.refresh_from_db()
    assert carol.role == "owner"
    post(team["owner"], "member-remove", [project.pk, carol.pk])
    assert not Membership.objects.filter(pk=carol.pk).exists()


def test_the_last_owner_cannot_leave_or_step_down(team, project):
    alice = Membership.objects.get(user=team["owner"])
    response = post(team["owner"], "member-role", [project.pk, alice.pk], {"role": "member"})
    assert b"keeps at least one owner" in response.content
    response = post(team["owner"], "member-remove", [project.pk, alice.pk])
    assert b"keeps at least one owner" in response.content
    alice.refresh_from_db()
    assert alice.role == "owner"


def test_a_membership_of_another_project_is_not_found(team, project, sam):
    from memory.projects import create_project

    other = create_project("Elsewhere", sam)
    theirs = Membership.objects.get(project=other)
    response = post(team["owner"], "member-remove", [project.pk, theirs.pk])
    assert response.status_code == 404


def test_members_see_the_roster_without_the_controls(team, project):
    html = client_for(team["member"]).get(reverse("dashboard:member-list", args=[project.pk]))
    assert b"carol" in html.content and b"Add a member" not in html.content


def test_an_owner_saves_the_project_settings(team, project):
    data = {
        "name": "Checkout",
        "mecw": 12000,
        "compaction_ratio": 0.7,
        "requests_per_minute": 30,
        "tokens_per_minute": 5000,
        "max_tool_rounds": 9,
        "memory_budget": 400,
    }  # redaction off: the box left unticked
    response = post(team["owner"], "project-settings", [project.pk], data)
    assert b"Settings saved" in response.content and "settings-saved" in response["HX-Trigger"]
    project.refresh_from_db()
    assert (project.mecw, project.compaction_ratio, project.redact_upstream) == (12000, 0.7, False)
    assert project.max_tool_rounds == 9


def test_a_compaction_threshold_outside_0_1_shows_a_form_error(team, project):
    data = {
        "name": "Checkout",
        "mecw": 12000,
        "compaction_ratio": 1.5,
        "requests_per_minute": 30,
        "tokens_per_minute": 5000,
        "max_tool_rounds": 9,
        "memory_budget": 400,
    }
    response = post(team["owner"], "project-settings", [project.pk], data)
    assert b"between 0 and 1" in response.content
    project.refresh_from_db()
    assert project.compaction_ratio != 1.5


def test_the_project_memory_budget_is_set_on_the_settings_page(team, project):
    data = {"name": "Checkout", "mecw": 12000, "compaction_ratio": 0.7, "requests_per_minute": 30,
            "tokens_per_minute": 5000, "max_tool_rounds": 9, "memory_budget": 0}  # fmt: skip
    assert b"Settings saved" in post(team["owner"], "project-settings", [project.pk], data).content
    project.refresh_from_db()
    assert project.memory_budget == 0  # project memory off
    response = post(
        team["owner"], "project-settings", [project.pk], {**data, "memory_budget": 50000}
    )
    assert b"at most 2,000 tokens" in response.content
    project.refresh_from_db()
    assert project.memory_budget == 0


def test_non_owners_see_the_settings_read_only(team, project):
    html = client_for(team["member"]).get(reverse("dashboard:project-settings", args=[project.pk]))
    assert b"<fieldset disabled>" in html.content and b"Only owners change settings" in html.content


def test_an_owner_adds_and_deletes_an_upstream(team, project):
    data = {
        "name": "ollama",
        "kind": "openai",
        "base_url": "http://127.0.0.1:11434/v1",
        "api_key_env": "OLLAMA_KEY",
        "model_patterns": "llama*",
        "position": 0,
    }
    response = post(team["owner"], "upstream-add", [project.pk], data)
    assert b"ollama" in response.content and "upstreams-changed" in response["HX-Trigger"]
    upstream = project.upstreams.get()
    post(team["owner"], "upstream-delete", [project.pk, upstream.pk])
    assert not project.upstreams.exists()


def test_an_upstream_key_must_name_an_environment_variable(team, project):
    data = {
        "name": "bad",
        "kind": "openai",
        "base_url": "http://127.0.0.1:1/v1",
        "api_key_env": "sk-the-key-itself",
        "model_patterns": "*",
        "position": 0,
    }
    response = post(team["owner"], "upstream-add", [project.pk], data)
    assert b"environment variable name" in response.content
    assert not project.upstreams.exists()
