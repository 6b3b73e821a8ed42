"""Aligning a client's resent history with the stored transcript, by content hash and position."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Alignment:
    new_from: int  # index in the incoming history of the first message not yet stored
    diverged_at: int | None  # stored position where the incoming history stops matching, if it does


def align(stored: Sequence[str], incoming: Sequence[str]) -> Alignment:
    """Which incoming messages are new, given the stored and incoming content hashes in order.

    Matching is positional, so a message legitimately repeated later ("run it") is new. When the
    client edited or compacted its history, the stored transcript is kept: the messages after the
    last stored one (found again by hash) are new, or, if it is gone, everything after the point
    of divergence.
    """
    prefix = 0
    for old, new in zip(stored, incoming, strict=False):
        if old != new:
            break
        prefix += 1
    if prefix == len(stored):  # the usual case: the stored transcript, then new turns
        return Alignment(new_from=prefix, diverged_at=None)
    if prefix == len(incoming):  # an older request resent: a prefix of what is stored
        return Alignment(new_from=len(incoming), diverged_at=None)
    last = stored[-1]
    for index in range(len(incoming) - 1, prefix - 1, -1):
        if incoming[index] == last:
            return Alignment(new_from=index + 1, diverged_at=prefix)
    return Alignment(new_from=prefix, diverged_at=prefix)
