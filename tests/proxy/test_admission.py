"""Admission: a conversation's next request reuses the last one's key, upstreams and session for
a moment instead of asking the database again; revocation and errors are never reused."""

import time

import pytest
from django.utils import timezone

from proxy import keys, sessions
from proxy.errors import ProxyError
from tests.proxy.conftest import eventually

MESSAGES = [{"role": "user", "content": "Let's build a URL shortener."}]


@pytest.fixture
def header(alice, project):
    _, plaintext = keys.create_key(alice, project, "laptop")
    return f"Bearer {plaintext}"


def test_the_next_request_of_a_conversation_needs_no_database_call(
    header, django_assert_num_queries
):
    first = sessions.admit(header, "shortener-1", MESSAGES)
    with django_assert_num_queries(0):
        again = sessions.admitted_recently(header, "shortener-1")
    assert again is first and again.session.external_id == "shortener-1"


def test_another_session_or_key_is_admitted_afresh(header, alice, project):
    sessions.admit(header, "shortener-1", MESSAGES)
    _, other = keys.create_key(alice, project, "desktop")
    assert sessions.admitted_recently(header, "shortener-2") is None
    assert sessions.admitted_recently(f"Bearer {other}", "shortener-1") is None


def test_an_admission_is_reused_only_for_the_configured_moment(header, settings, monkeypatch):
    settings.TOKENMIZER_ADMISSION_TTL_S = 1.0
    clock = [1000.0]
    monkeypatch.setattr(sessions.time, "monotonic", lambda: clock[0])
    sessions.admit(header, None)
    clock[0] += 0.9
    assert sessions.admitted_recently(header, None) is not None
    clock[0] += 0.2
    assert sessions.admitted_recently(header, None) is None


def test_a_ttl_of_zero_turns_the_reuse_off(header, settings):
    settings.TOKENMIZER_ADMISSION_TTL_S = 0
    sessions.admit(header, "shortener-1", MESSAGES)
    assert sessions.admitted_recently(header, "shortener-1") is None


def test_revoking_a_key_ends_its_reuse_at_once(header, alice):
    sessions.admit(header, "shortener-1", MESSAGES)
    keys.revoke_key(alice.api_keys.get())
    assert sessions.admitted_recently(header, "shortener-1") is None
    with pytest.raises(keys.AuthError, match="revoked"):
        sessions.admit(header, "shortener-1", MESSAGES)


def test_a_refused_request_is_not_remembered(header, bob):
    from memory.models import Session
    from memory.projects import create_project

    theirs = create_project("Their project", bob)
    Session.objects.create(project=theirs, user=bob, external_id="their-session")
    with pytest.raises(ProxyError):
        sessions.admit(header, "their-session", MESSAGES)
    assert sessions.admitted_recently(header, "their-session") is None


def test_a_key_opening_a_new_session_is_not_read_again(header, django_assert_num_queries):
    sessions.admit(header, "shortener-1", MESSAGES)
    # The session id across projects, then the preamble's graph state and full-text ranking.
    with django_assert_num_queries(3):
        admitted = sessions.admit(header, "shortener-2", MESSAGES)
    assert admitted.session.external_id == "shortener-2"


def test_a_new_session_is_stored_after_the_response_and_the_next_request_finds_it(header):
    from memory.models import Session

    admitted = sessions.admit(header, "shortener-1", MESSAGES)
    assert admitted.session.pk is None and not Session.objects.exists()  # nothing on the way up
    again = sessions.admitted_recently(header, "shortener-1")
    assert again.session is admitted.session  # the conversation's next request: the same one
    sessions.stored(again.session)
    row = Session.objects.get(external_id="shortener-1")
    assert admitted.session.pk == row.pk and row.preamble == admitted.session.preamble
    sessions.stored(admitted.session)  # stored once, whoever asks again
    assert Session.objects.count() == 1


def test_a_session_stored_concurrently_is_joined_not_duplicated(header, alice, project):
    from memory.models import Session

    admitted = sessions.admit(header, "shortener-1", MESSAGES)
    theirs = Session.objects.create(  # another server process stored the conversation first
        project=project, user=alice, external_id="shortener-1", preamble="theirs"
    )
    assert sessions.stored(admitted.session).pk == theirs.pk
    assert Session.objects.filter(external_id="shortener-1").count() == 1


@pytest.fixture
def clock(settings, monkeypatch):
    settings.TOKENMIZER_ADMISSION_TTL_S = 1.0
    now = [1000.0]
    monkeypatch.setattr(sessions.time, "monotonic", lambda: now[0])
    return now


def test_an_admission_used_past_half_its_moment_is_read_again_once(header, clock):
    sessions.admit(header, "shortener-1", MESSAGES)
    clock[0] += 0.4
    assert not sessions.readmission_due(header, "shortener-1")
    clock[0] += 0.2
    assert sessions.readmission_due(header, "shortener-1")
    assert not sessions.readmission_due(header, "shortener-1")  # one reading at a time
    sessions.readmit(header, "shortener-1")
    clock[0] += 0.6  # 1.2 s after the first admission, 0.6 s after the second reading
    assert sessions.admitted_recently(header, "shortener-1") is not None
    assert sessions.admitted_recently(header, None) is not None


def test_a_new_session_read_again_keeps_the_preamble_it_was_opened_with(header, clock):
    first = sessions.admit(header, "shortener-1", MESSAGES)
    clock[0] += 0.6
    sessions.readmit(header, "shortener-1")
    assert sessions.admitted_recently(header, "shortener-1").session is first.session


def test_a_key_revoked_by_another_process_is_refused_after_the_next_reading(header, clock):
    from proxy.models import ApiKey

    sessions.admit(header, "shortener-1", MESSAGES)
    ApiKey.objects.update(revoked_at=timezone.now())  # not through this process's revoke_key
    clock[0] += 0.6
    sessions.readmit(header, "shortener-1")
    assert sessions.admitted_recently(header, "shortener-1") is None
    assert sessions.admitted_recently(header, None) is None
    with pytest.raises(keys.AuthError, match="revoked"):
        sessions.admit(header, "shortener-1", MESSAGES)


def test_a_conversation_that_comes_back_through_the_proxy_keeps_its_admission(
    client, api_key, settings
):
    settings.TOKENMIZER_ADMISSION_TTL_S = 1.0

    def ask():
        client.chat.completions.create(
            model="echo", messages=MESSAGES, extra_body={"session_id": "shortener-1"}
        )

    ask()
    time.sleep(0.6)
    ask()  # past half its moment: read again in the background, after this request is admitted
    time.sleep(0.6)  # 1.2 s after the first admission: only a second reading keeps it
    assert eventually(lambda: sessions.admitted_recently(f"Bearer {api_key}", "shortener-1"))
