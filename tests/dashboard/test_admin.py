"""Django admin: every model listed with filters and search; keys never show their hash and can be
revoked; rows only the pipeline may write are read-only."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from dashboard.models import ModelPrice
from memory.models import Node

MODELS = [
    "memory/project", "memory/membership", "memory/session", "memory/message", "memory/node",
    "memory/edge", "memory/decisiontransition", "memory/checkpoint", "proxy/apikey",
    "proxy/requestlog", "proxy/upstream", "dashboard/modelprice",
]  # fmt: skip


@pytest.fixture
def admin_client(db):
    root = get_user_model().objects.create_superuser("root", password="root-password-1")
    client = Client()
    client.force_login(root)
    return client


@pytest.mark.parametrize("model", MODELS)
def test_every_model_has_a_searchable_list(admin_client, contested_session, member_key, model):
    response = admin_client.get(f"/admin/{model}/", {"q": "a"})
    assert response.status_code == 200


def test_a_key_page_never_shows_its_hash(admin_client, member_key):
    html = admin_client.get(f"/admin/proxy/apikey/{member_key.pk}/change/").content.decode()
    assert member_key.prefix in html and member_key.key_hash not in html


def test_the_revoke_action_revokes_the_selected_keys(admin_client, member_key):
    admin_client.post(
        "/admin/proxy/apikey/", {"action": "revoke", "_selected_action": [member_key.pk]}
    )
    member_key.refresh_from_db()
    assert member_key.revoked_at is not None


def test_keys_are_not_added_in_admin_where_the_secret_could_not_be_shown(admin_client):
    assert admin_client.get("/admin/proxy/apikey/add/").status_code == 403


def test_graph_rows_are_read_only_in_admin(admin_client, contested_session):
    node = contested_session.nodes.first()
    page = admin_client.get(f"/admin/memory/node/{node.pk}/change/").content.decode()
    assert 'name="_save"' not in page
    response = admin_client.post(f"/admin/memory/node/{node.pk}/change/", {"status": "invalidated"})
    assert response.status_code == 403
    assert Node.objects.get(pk=node.pk).status == node.status


def test_model_prices_are_edited_in_admin(admin_client):
    admin_client.post(reverse("admin:dashboard_modelprice_add"), {
        "pattern": "claude-*", "input_per_million": "3", "output_per_million": "15",
    })  # fmt: skip
    assert ModelPrice.objects.get().pattern == "claude-*"
