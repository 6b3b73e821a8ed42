"""Per-key rate limits (requests and tokens per minute) in fixed one-minute windows of the cache."""

from __future__ import annotations

import logging
import time

from django.core.cache import cache

log = logging.getLogger(__name__)
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


def retry_after(
    key_id: int, rpm: int, tpm: int, tokens: int, now: float | None = None
) -> int | None:
    """Count this request; the seconds to wait if it goes over either limit, else None.

    With the cache (Redis) unreachable the request is let through: limits protect spend, and a
    user's request must not fail because of them.
    """
    now = time.time() if now is None else now
    try:
        requests = _window_counter(f"{key_id}:req", 1, now)
        used = _window_counter(f"{key_id}:tok", tokens, now)
    except Exception:
        log.warning("rate-limit cache unavailable; letting the request through")
        return None
    if requests > rpm or used > tpm:
        return max(1, int(WINDOW_S - now % WINDOW_S))
    return None
