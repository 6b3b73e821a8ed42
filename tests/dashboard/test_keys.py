"""The keys page: a key is shown once with a snippet, listed by prefix, revocable; owners see and
revoke their members' keys and issue keys for them, never seeing a usable secret afterwards."""

import re

from django.urls import reverse

from proxy.keys import hash_key
from proxy.models import ApiKey
from tests.dashboard.conftest import client_for


def create(user, project, **extra):
    data = {"project": project.pk, "name": "laptop", **extra}
    return client_for(user).post(reverse("dashboard:key-create"), data, HTTP_HX_REQUEST="true")


def test_a_new_key_is_shown_once_with_a_copy_button_and_an_sdk_snippet(team, project):
    html = create(team["member"], project).content.decode()
    plaintext = re.search(r'id="new-key"[^>]*>(tmz_\w+)<', html).group(1)
    key = ApiKey.objects.get(user=team["member"])
    assert key.key_hash == hash_key(plaintext)
    assert 'data-copy="#new-key"' in html
    assert "from openai import OpenAI" in html and f'api_key="{plaintext}"' in html
    assert 'base_url="http://testserver/v1"' in html
    listing = client_for(team["member"]).get(reverse("dashboard:key-list")).content.decode()
    assert plaintext not in listing and key.prefix in listing and key.key_hash not in listing


def test_the_key_list_shows_name_prefix_project_created_and_last_used(team, member_key):
    html = client_for(team["member"]).get(reverse("dashboard:key-list")).content.decode()
    assert "carol-laptop" in html and member_key.prefix in html and "Checkout service" in html
    assert "never" in html  # last used


def test_an_owner_sees_their_members_keys_but_never_a_usable_secret(team, member_key):
    html = client_for(team["owner"]).get(reverse("dashboard:key-list")).content.decode()
    assert "Keys of your projects&#x27; members" in html or "Keys of your projects' members" in html
    assert "carol-laptop" in html and member_key.key_hash not in html


def test_a_member_does_not_see_other_members_keys(team, member_key, project):
    create(team["owner"], project)
    html = client_for(team["member"]).get(reverse("dashboard:key-list")).content.decode()
    assert "alice" not in html.split("Your keys")[1]


def test_an_owner_issues_a_key_for_a_member_to_hand_over(team, project):
    html = create(team["owner"], project, holder=team["member"].pk).content.decode()
    assert "Hand it to carol" in html
    assert ApiKey.objects.get().user == team["member"]


def test_a_member_cannot_issue_a_key_for_someone_else(team, project):
    html = create(team["member"], project, holder=team["owner"].pk).content.decode()
    assert "Select a valid choice" in html or "Only the project" in html
    assert not ApiKey.objects.exists()


def test_an_owner_cannot_issue_a_key_for_a_viewer(team, project):
    html = create(team["owner"], project, holder=team["viewer"].pk).content.decode()
    assert "is not a member who may write" in html
    assert not ApiKey.objects.exists()


def test_revoking_a_key_marks_it_revoked_in_the_list(team, member_key):
    response = client_for(team["owner"]).post(
        reverse("dashboard:key-revoke", args=[member_key.pk]), HTTP_HX_REQUEST="true"
    )
    assert "keys-changed" in response["HX-Trigger"]
    assert b"revoked" in response.content
    member_key.refresh_from_db()
    assert member_key.revoked_at is not None


def test_a_plain_form_post_still_shows_the_new_key(team, project):
    response = client_for(team["member"]).post(
        reverse("dashboard:key-create"), {"project": project.pk, "name": "cli"}
    )
    assert response.status_code == 200 and b"<!doctype html>" in response.content
    assert b'id="new-key"' in response.content
