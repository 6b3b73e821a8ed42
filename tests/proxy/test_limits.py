"""Rate limits per key, in one-minute windows, counted per process and shared through Redis."""

import pytest
from django.conf import settings

from proxy import limits
from proxy.limits import retry_after, settle

NOW = 1_800_000_000.0  # the start of a minute
WITH_REDIS = pytest.mark.skipif(
    not settings.REDIS_URL, reason="counts are shared between processes through Redis only"
)


def test_requests_under_the_limit_pass():
    assert all(retry_after(1, rpm=3, tpm=10_000, tokens=10, now=NOW + i) is None for i in range(3))


def test_the_request_over_the_limit_waits_for_the_next_window():
    for i in range(3):
        retry_after(2, rpm=3, tpm=10_000, tokens=10, now=NOW + i)
    assert retry_after(2, rpm=3, tpm=10_000, tokens=10, now=NOW + 20) == 40


def test_tokens_per_minute_are_limited_too():
    assert retry_after(3, rpm=100, tpm=1000, tokens=900, now=NOW) is None
    assert retry_after(3, rpm=100, tpm=1000, tokens=200, now=NOW + 1) == 59


def test_a_refused_request_uses_none_of_the_minute():
    assert retry_after(6, rpm=100, tpm=1000, tokens=900, now=NOW) is None
    assert retry_after(6, rpm=100, tpm=1000, tokens=200, now=NOW + 1) == 59
    assert retry_after(6, rpm=100, tpm=1000, tokens=100, now=NOW + 2) is None


def test_a_new_minute_starts_afresh():
    for i in range(3):
        retry_after(4, rpm=2, tpm=10_000, tokens=1, now=NOW + i)
    assert retry_after(4, rpm=2, tpm=10_000, tokens=1, now=NOW + 61) is None


def test_tokens_settled_after_a_request_count_towards_the_minute():
    assert retry_after(5, rpm=100, tpm=1000, tokens=100, now=NOW) is None
    settle(5, 850, now=NOW + 1)
    assert retry_after(5, rpm=100, tpm=1000, tokens=100, now=NOW + 2) == 58


@WITH_REDIS
def test_another_process_sees_the_minute_used_here():
    key = 99_999  # no key of the test database
    assert retry_after(key, rpm=3, tpm=10_000, tokens=10, now=NOW) is None
    assert retry_after(key, rpm=3, tpm=10_000, tokens=10, now=NOW + 1) is None
    settle(key, 0, now=NOW + 2)  # the second request's response
    limits.forget()  # what a second proxy process knows: nothing of its own
    assert retry_after(key, rpm=3, tpm=10_000, tokens=10, now=NOW + 3) is None
    assert retry_after(key, rpm=3, tpm=10_000, tokens=10, now=NOW + 4) == 56
