"""Per-key rate limits (requests and tokens per minute) in fixed one-minute windows of the cache."""

from __future__ import annotations

import time

from django.core.cache import cache

WINDOW_S = 60


def _window_counter(name: str, amount: int, now: float) -> int:
    key = f"tmz:rate:{name}:{int(now // WINDOW_S)}"
    if cache.add(key, amount, WINDOW_S * 2):
        return amount
    try:
        return cache.incr(key, amount)
    except ValueError:  # expired between add and incr
        cache.add(key, amount, WINDOW_S * 2)
        return amount


def retry_after(key_id: int, rpm: int, tpm: int, tokens: int, now: float | None = None) -> int | None:
    """Count this request; the seconds to wait if it goes over either limit, else None."""
    now = time.time() if now is None else now
    requests = _window_counter(f"{key_id}:req", 1, now)
    used = _window_counter(f"{key_id}:tok", tokens, now)
    if requests > rpm or used > tpm:
        return max(1, int(WINDOW_S - now % WINDOW_S))
    return None
