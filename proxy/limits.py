"""Per-key rate limits (requests and tokens per minute) in fixed one-minute windows of the cache."""

from __future__ import annotations

import logging
import time

from tokenmizer_site import caching

log = logging.getLogger(__name__)
WINDOW_S = 60


def _window_counts(counts: dict[str, int], now: float) -> list[int]:
    """Add each amount to its counter of the current window; the counters' new values."""
    window = int(now // WINDOW_S)
    keys = {f"tmz:rate:{name}:{window}": amount for name, amount in counts.items()}
    redis = caching.redis_client()
    if redis is not None:  # one round trip for all the counters
        pipe = redis.pipeline(transaction=False)
        for key, amount in keys.items():
            pipe.incrby(key, amount)
            pipe.expire(key, WINDOW_S * 2, nx=True)
        return pipe.execute()[::2]
    return [_add(key, amount) for key, amount in keys.items()]


def _add(key: str, amount: int) -> int:
    cache = caching.shared()
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
        requests, used = _window_counts({f"{key_id}:req": 1, f"{key_id}:tok": tokens}, now)
    except Exception:
        log.warning("rate-limit cache unavailable; letting the request through")
        return None
    if requests > rpm or used > tpm:
        return max(1, int(WINDOW_S - now % WINDOW_S))
    return None


def charge(key_id: int, tokens: int, now: float | None = None) -> None:
    """Add tokens counted after a request was let through to its key's current minute."""
    if tokens <= 0:
        return
    try:
        _window_counts({f"{key_id}:tok": tokens}, time.time() if now is None else now)
    except Exception:
        log.warning("rate-limit cache unavailable; %d tokens not charged", tokens)
