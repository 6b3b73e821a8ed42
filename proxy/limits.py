"""Per-key rate limits (requests and tokens per minute) in fixed one-minute windows.

Each process counts its keys' requests and tokens itself, so a request is judged without a round
trip. With Redis (the production profile) the processes share their counts there: a key's first
request of a minute reads the shared counters on its path, and each response then adds what the
process counted to them and reads back the total, off the request's path (``settle``). Within a
process the limit is exact; across processes each sees the others' use as of its last exchange
with Redis, so requests arriving at several processes in the same moment can pass a limit by the
few that were in flight. Without Redis (the embedded profile) the process's counts are the limit.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from tokenmizer_site import caching

log = logging.getLogger(__name__)
WINDOW_S = 60


@dataclass
class _Counts:
    """One key's use of one minute, as this process knows it."""

    window: int
    shared: tuple[int, int] = (0, 0)  # requests, tokens in Redis at the last exchange with it
    sending: tuple[int, int] = (0, 0)  # sent to Redis, not yet acknowledged
    unsent: tuple[int, int] = (0, 0)  # counted here only

    def total(self) -> tuple[int, int]:
        return tuple(map(sum, zip(self.shared, self.sending, self.unsent, strict=True)))


_counts: dict[int, _Counts] = {}
_lock = threading.Lock()  # the event loop counts, the bookkeeping threads settle


def forget() -> None:
    """Drop every count this process holds (tests: key ids are reused after a rollback)."""
    with _lock:
        _counts.clear()


def _window(now: float) -> int:
    return int(now // WINDOW_S)


def _minute(key_id: int, window: int) -> tuple[_Counts, bool]:
    """The key's counts of this minute, and whether this process has just started them."""
    with _lock:
        counts = _counts.get(key_id)
        if counts is not None and counts.window == window:
            return counts, False
        counts = _counts[key_id] = _Counts(window)
        return counts, True


def _plus(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return a[0] + b[0], a[1] + b[1]


def _minus(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return a[0] - b[0], a[1] - b[1]


def retry_after(
    key_id: int, rpm: int, tpm: int, tokens: int, now: float | None = None
) -> int | None:
    """Count this request; the seconds to wait if it goes over either limit, else None.

    A refused request is not counted. With Redis unreachable the process's own counts decide:
    limits protect spend, and a user's request must not fail because of them.
    """
    now = time.time() if now is None else now
    counts, first = _minute(key_id, _window(now))
    if first:
        _sync(key_id, counts)  # a key's first request of the minute learns the others' use
    with _lock:
        requests, used = _plus(counts.total(), (1, tokens))
        if requests > rpm or used > tpm:
            return max(1, int(WINDOW_S - now % WINDOW_S))
        counts.unsent = _plus(counts.unsent, (1, tokens))
    return None


def settle(key_id: int, tokens: int = 0, now: float | None = None) -> None:
    """After a response: add the tokens counted since it was let through to its key's minute,
    and share the process's counts through Redis (nothing to do without it)."""
    counts, _ = _minute(key_id, _window(time.time() if now is None else now))
    with _lock:
        counts.unsent = _plus(counts.unsent, (0, max(tokens, 0)))
    _sync(key_id, counts)


def _sync(key_id: int, counts: _Counts) -> None:
    """Add the unsent counts to the shared counters and read their totals back."""
    redis = caching.redis_client()
    if redis is None:
        return
    with _lock:
        amounts, counts.unsent = counts.unsent, (0, 0)
        counts.sending = _plus(counts.sending, amounts)
    names = [f"tmz:rate:{key_id}:{kind}:{counts.window}" for kind in ("req", "tok")]
    totals = None
    try:
        pipe = redis.pipeline(transaction=False)
        for name, amount in zip(names, amounts, strict=True):
            pipe.incrby(name, amount)
            pipe.expire(name, WINDOW_S * 2, nx=True)
        totals = tuple(pipe.execute()[::2])
    except Exception:
        log.warning("rate-limit counters in Redis unavailable; this process's counts decide")
    with _lock:
        counts.sending = _minus(counts.sending, amounts)
        if totals is None:  # not shared: keep them to send with the next exchange
            counts.unsent = _plus(counts.unsent, amounts)
        else:  # responses can come back out of order: the larger total is the later
            counts.shared = tuple(map(max, zip(counts.shared, totals, strict=True)))
