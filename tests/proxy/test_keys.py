"""API keys: shown once, stored as a hash, recognizable, revocable, last use kept cheaply."""

import pytest
from django.core.management import CommandError, call_command

from proxy import keys
from proxy.models import ApiKey


def test_a_key_is_stored_only_as_its_hash_with_a_display_prefix(alice, project):
    row, plaintext = keys.create_key(alice, project, "laptop")
    assert plaintext.startswith("tmz_") and len(plaintext) == 44
    stored = ApiKey.objects.get(pk=row.pk)
    assert plaintext not in {stored.key_hash, stored.prefix, stored.name}
    assert stored.key_hash == keys.hash_key(plaintext)
    assert plaintext.startswith(stored.prefix)


def test_authenticate_finds_the_key_and_records_its_use(alice, project):
    row, plaintext = keys.create_key(alice, project, "laptop")
    found = keys.authenticate(f"Bearer {plaintext}")
    assert (found.pk, found.project, found.user) == (row.pk, project, alice)
    assert ApiKey.objects.get(pk=row.pk).last_used_at is not None


def test_last_use_is_written_at_most_once_a_minute(alice, project, django_assert_num_queries):
    _, plaintext = keys.create_key(alice, project, "laptop")
    keys.authenticate(f"Bearer {plaintext}")
    with django_assert_num_queries(3):  # the key, its project and its user; no UPDATE
        keys.authenticate(f"Bearer {plaintext}")


@pytest.mark.parametrize("header", [None, "", "Basic abc", "Bearer", "Bearer tmz_short"])
def test_missing_or_malformed_headers_are_refused(db, header):
    with pytest.raises(keys.AuthError):
        keys.authenticate(header)


def test_a_revoked_key_is_refused(alice, project):
    row, plaintext = keys.create_key(alice, project, "laptop")
    keys.revoke_key(row)
    with pytest.raises(keys.AuthError, match="revoked"):
        keys.authenticate(f"Bearer {plaintext}")


def test_the_command_prints_the_key_once_and_stores_its_hash(alice, project, capsys):
    call_command("create_api_key", "--user", "alice", "--project", project.slug)
    plaintext = [line for line in capsys.readouterr().out.splitlines() if line.startswith("tmz_")][
        0
    ]
    assert keys.authenticate(f"Bearer {plaintext}").user == alice


def test_the_command_refuses_a_user_outside_the_project(bob, project):
    with pytest.raises(CommandError, match="not a member"):
        call_command("create_api_key", "--user", "bob", "--project", project.slug)
    assert not ApiKey.objects.exists()
