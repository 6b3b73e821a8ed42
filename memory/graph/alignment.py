"""Aligning a client's resent history with the stored transcript, by content hash and position."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Alignment:
    new_from: int  # index in the incoming history of the first message not yet stored
    diverged_at: int | None  # stored position where the incoming history stops matching, if it does


def align(stored: Sequence[str], incoming: Sequence[str]) -> Alignment:
    """Which incoming messages are new, given the stored and incoming content hashes in order.

    Matching is positional, so a message legitimately repeated later ("run it") is new. When the
    client edited, compacted or rewrote its history (or sends its own version of a reply), the
    stored transcript is kept: the new messages are those after the last incoming message that
    is already stored (found by hash: the last stored one, or one anchored on its predecessor), or,
    if none is, everything
    after the point of divergence.
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
    positions: dict[str, list[int]] = {}
    for index, digest in enumerate(stored):
        positions.setdefault(digest, []).append(index)
    for index in range(len(incoming) - 1, prefix - 1, -1):
        for at in positions.get(incoming[index], ()):
            last = at == len(stored) - 1
            if last or at == 0 or index == 0 or stored[at - 1] == incoming[index - 1]:
                return Alignment(new_from=index + 1, diverged_at=prefix)
    return Alignment(new_from=prefix, diverged_at=prefix)


class ResentHistory:
    """The last request of each recent conversation, with a value computed for each message.

    A client resends its whole history on every request: the messages the next request shares
    with the last one, from the start, take their values from it instead of being computed again
    (comparing two messages costs far less than cleaning, hashing or counting one). Thread-safe;
    the least recent conversation is dropped beyond ``size``.
    """

    def __init__(self, size: int = 256) -> None:
        self._last: OrderedDict[Hashable, tuple[tuple, tuple]] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def values(
        self,
        conversation: Hashable,
        messages: Sequence[Mapping[str, Any]],
        compute: Callable[[Mapping[str, Any]], Any],
    ) -> list:
        with self._lock:
            seen, known = self._last.get(conversation, ((), ()))
        values, shared = [], True
        for i, message in enumerate(messages):
            shared = shared and i < len(seen) and seen[i] == message
            values.append(known[i] if shared else compute(message))
        # Copies: a caller replacing a message's fields afterwards cannot make a value wrong.
        remembered = (tuple(dict(m) for m in messages), tuple(values))
        with self._lock:
            self._last[conversation] = remembered
            self._last.move_to_end(conversation)
            if len(self._last) > self._size:
                self._last.popitem(last=False)
        return values
