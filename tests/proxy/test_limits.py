"""Rate limits per key, in one-minute windows."""

from proxy.limits import charge, retry_after

NOW = 1_800_000_000.0  # the start of a minute


def test_requests_under_the_limit_pass():
    assert all(retry_after(1, rpm=3, tpm=10_000, tokens=10, now=NOW + i) is None for i in range(3))


def test_the_request_over_the_limit_waits_for_the_next_window():
    for i in range(3):
        retry_after(2, rpm=3, tpm=10_000, tokens=10, now=NOW + i)
    assert retry_after(2, rpm=3, tpm=10_000, tokens=10, now=NOW + 20) == 40


def test_tokens_per_minute_are_limited_too():
    assert retry_after(3, rpm=100, tpm=1000, tokens=900, now=NOW) is None
    assert retry_after(3, rpm=100, tpm=1000, tokens=200, now=NOW + 1) == 59


def test_a_new_minute_starts_afresh():
    for i in range(3):
        retry_after(4, rpm=2, tpm=10_000, tokens=1, now=NOW + i)
    assert retry_after(4, rpm=2, tpm=10_000, tokens=1, now=NOW + 61) is None


def test_tokens_charged_after_a_request_count_towards_the_minute():
    assert retry_after(5, rpm=100, tpm=1000, tokens=100, now=NOW) is None
    charge(5, 850, now=NOW + 1)
    assert retry_after(5, rpm=100, tpm=1000, tokens=100, now=NOW + 2) == 58
