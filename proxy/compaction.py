"""Budget-aware rewriting of chat messages: stub old tool traffic, then resume + recent turns."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory.graph import tokens
from memory.graph.stubs import Memo, has_content, slim, tool_names

Message = dict[str, Any]

EMPTY_TOOL_OUTPUT = "[empty tool output]"
SYSTEM_ROLES = frozenset({"system", "developer"})


@dataclass(frozen=True)
class Plan:
    messages: list[dict]  # what to forward upstream
    tokens_in: int  # prompt tokens of the client's messages
    tokens_out: int  # prompt tokens of `messages`
    strategy: str  # "none" | "stubbed" | "resume" | "truncated"
    dropped: tuple[int, ...]  # indices (in the client's list) of messages left out entirely
    kept_from: int | None = None  # index of the oldest turn kept after the head, if any


class TooLarge(Exception):
    """Even the system messages and the newest turn, stubbed, exceed the budget."""

    def __init__(self, needed: int, budget: int) -> None:
        super().__init__(
            f"this request needs at least {needed:,} prompt tokens after compaction "
            f"(system messages and the newest turn), but the session budget is {budget:,} tokens"
        )
        self.needed = needed
        self.budget = budget


@dataclass(frozen=True)
class _Unit:
    """Messages that move together: one turn, or a tool-call message with all its results."""

    indices: tuple[int, ...]
    messages: tuple[Message, ...]
    tokens: int


@dataclass(frozen=True)
class _Parsed:
    head: tuple[int, ...]  # the client's leading system messages, never rewritten
    units: tuple[tuple[tuple[int, Message], ...], ...]  # well-formed turns, oldest first
    dropped: frozenset[int]  # orphans and empty messages


class _Costs:
    """Token counts, reusing the client's per-message counts for messages left untouched."""

    def __init__(self, messages: Sequence[Message], model: str | None) -> None:
        self.messages = messages
        self.model = model
        self.encoding = tokens.encoding_name_for(model)
        self.counts = [_count(m, model, self.encoding) for m in messages]

    def of(self, index: int, message: Message) -> int:
        if index >= 0 and message is self.messages[index]:
            return self.counts[index]
        return _count(message, self.model, self.encoding)

    def unit(self, pairs: Sequence[tuple[int, Message]]) -> _Unit:
        return _Unit(
            tuple(i for i, _ in pairs),
            tuple(m for _, m in pairs),
            sum(self.of(i, m) for i, m in pairs),
        )


# tokens.count_message keys its cache by sha256 of canonical JSON, which costs more than the rest
# of a compaction for a long transcript; strings hash natively far faster.
_COUNTS = Memo(16384)


def _count(message: Message, model: str | None, encoding: str) -> int:
    """tokens.count_message, memoized by a cheap fingerprint of every field of the message."""
    fields = sorted(
        (str(k), v) if isinstance(v, str) else (str(k), None, json.dumps(v, default=str))
        for k, v in message.items()
    )
    key = (encoding, hash(tuple(fields)))
    found = _COUNTS.get(key)
    return found if found is not None else _COUNTS.put(key, tokens.count_message(message, model))


# --- the public functions ----------------------------------------------------------------------


def compact(
    messages: Sequence[Message],
    *,
    budget: int,
    threshold: float = 0.85,
    resume: str | None = None,
    model: str | None = None,
    keep_recent: int = 1,
    keep_from: int | None = None,
    refill: float | None = None,
) -> Plan:
    """What to forward so the request fits ``threshold × budget`` tokens (never more than budget).

    Under the threshold the messages pass through untouched. Otherwise old turns (before the
    ``keep_recent``-th last user message) lose big tool payloads, data images and reasoning; if
    that is not enough, the client's system messages, the ``resume`` block and the newest whole
    turns that fit are forwarded. Without a resume block, or when it leaves no room for the newest
    turn, the oldest turns are simply dropped. Raises TooLarge when even that cannot fit.

    For prompt caches: with ``keep_from`` (the previous request's ``kept_from``), every turn from
    there on is kept while they fit, so consecutive requests share their prefix; when a new cut
    is needed it keeps only what fits ``refill × budget``, leaving room to grow before the next.
    """
    target = _target(budget, threshold, keep_recent)
    costs = _Costs(messages, model)
    tokens_in = sum(costs.counts) + tokens.REPLY_PRIMING
    if tokens_in <= target:
        return Plan(list(messages), tokens_in, tokens_in, "none", ())
    parsed = _parse(messages)
    units = _aged_units(messages, parsed, costs, keep_recent)
    head = [(i, messages[i]) for i in parsed.head]
    stubbed = _plan(messages, head, units, costs, tokens_in, "stubbed")
    if stubbed.tokens_out <= target:
        return stubbed
    if resume is not None and resume.strip():
        try:
            head_r, units_r = _with_resume(head, units, resume)
            since = [u for u in units_r if keep_from is not None and u.indices[0] >= keep_from]
            if since and _head_tokens(head_r, costs) + sum(u.tokens for u in since) <= target:
                return _plan(messages, head_r, since, costs, tokens_in, "resume")
            cut = _target(budget, refill, keep_recent) if refill else target
            return _fit(
                messages, head_r, units_r, costs, min(cut, target), budget, tokens_in, "resume"
            )
        except TooLarge:
            pass  # the block itself may crowd out the newest turn; memory must not fail a request
    return _fit(messages, head, units, costs, target, budget, tokens_in, "truncated")


def truncate(
    messages: Sequence[Message],
    *,
    budget: int,
    threshold: float = 0.85,
    model: str | None = None,
) -> Plan:
    """The fallback: system messages plus the newest whole turns that fit, verbatim."""
    target = _target(budget, threshold, 0)
    costs = _Costs(messages, model)
    tokens_in = sum(costs.counts) + tokens.REPLY_PRIMING
    if tokens_in <= target:
        return Plan(list(messages), tokens_in, tokens_in, "none", ())
    parsed = _parse(messages)
    units = [costs.unit(pairs) for pairs in parsed.units]
    head = [(i, messages[i]) for i in parsed.head]
    return _fit(messages, head, units, costs, target, budget, tokens_in, "truncated")


def plan_drop(
    messages: Sequence[Message],
    *,
    budget: int,
    threshold: float = 0.85,
    resume: str | None = None,
    model: str | None = None,
    keep_recent: int = 1,
) -> tuple[int, ...]:
    """Indices compact() would leave out, so their facts can reach the graph first."""
    plan = compact(
        messages,
        budget=budget,
        threshold=threshold,
        resume=resume,
        model=model,
        keep_recent=keep_recent,
    )
    return plan.dropped


# --- selection ---------------------------------------------------------------------------------


def _target(budget: int, threshold: float, keep_recent: int) -> int:
    if budget <= 0 or not 0 < threshold <= 1 or keep_recent < 0:
        raise ValueError("budget must be positive, threshold in (0, 1], keep_recent >= 0")
    # The epsilon keeps 0.85 × 16000 at 13600 despite binary floating point.
    return math.floor(threshold * budget + 1e-9)


def _with_resume(
    head: list[tuple[int, Message]], units: list[_Unit], resume: str
) -> tuple[list[tuple[int, Message | None]], list[_Unit]]:
    """Head and units with the resume block after the system prompt, never twice.

    A copy among the leading system messages (our own output fed back) stays where it is, so
    compacting a compacted request changes nothing; any other copy is represented by it.
    """
    copies = [i for i, m in head if _is_resume(m, resume)]
    kept: list[tuple[int, Message | None]] = [
        (i, m) for i, m in head if not _is_resume(m, resume) or i == copies[0]
    ]
    if not copies:
        kept.append((-1, {"role": "system", "content": resume}))
    represented = copies[1:]
    others = []
    for unit in units:
        if len(unit.messages) == 1 and _is_resume(unit.messages[0], resume):
            represented += unit.indices
        else:
            others.append(unit)
    kept += [(i, None) for i in represented]  # placeholders: indices kept, nothing sent
    return kept, others


def _is_resume(message: Message, resume: str) -> bool:
    return message.get("role") == "system" and message.get("content") == resume


def _fit(
    messages: Sequence[Message],
    head: list[tuple[int, Message | None]],
    units: list[_Unit],
    costs: _Costs,
    target: int,
    budget: int,
    tokens_in: int,
    strategy: str,
) -> Plan:
    """Head plus the longest run of newest units within target; the newest alone within budget."""
    head_tokens = _head_tokens(head, costs)
    chosen = _newest_run(units, target - head_tokens)
    if not chosen and units:
        newest = units[-1]
        last_resort = _stub_unit(newest, costs)
        # Keeping the newest turn whole beats headroom; stubbing it beats refusing the request.
        if head_tokens + newest.tokens <= budget:
            chosen = [newest]
        elif last_resort is not newest:
            room = target - head_tokens - last_resort.tokens
            chosen = _newest_run(units[:-1], room) + [last_resort] if room >= 0 else []
            if not chosen and head_tokens + last_resort.tokens <= budget:
                chosen = [last_resort]
        if not chosen:
            raise TooLarge(head_tokens + last_resort.tokens, budget)
    if head_tokens > budget:
        raise TooLarge(head_tokens, budget)
    return _plan(messages, head, chosen, costs, tokens_in, strategy)


def _head_tokens(head: list[tuple[int, Message | None]], costs: _Costs) -> int:
    return tokens.REPLY_PRIMING + sum(costs.of(i, m) for i, m in head if m is not None)


def _newest_run(units: Sequence[_Unit], room: int) -> list[_Unit]:
    """The newest units whose tokens fit ``room``, stopping at the first that does not (no gaps)."""
    taken = 0
    for unit in reversed(units):
        if unit.tokens > room:
            break
        room -= unit.tokens
        taken += 1
    return list(units[len(units) - taken :])


def _plan(
    messages: Sequence[Message],
    head: list[tuple[int, Message | None]],
    units: Sequence[_Unit],
    costs: _Costs,
    tokens_in: int,
    strategy: str,
) -> Plan:
    out: list[Message] = []
    kept: set[int] = set()
    total = tokens.REPLY_PRIMING
    for i, m in head:
        kept.add(i)
        if m is not None:
            out.append(m)
            total += costs.of(i, m)
    for unit in units:
        kept.update(unit.indices)
        out.extend(unit.messages)
        total += unit.tokens
    dropped = tuple(i for i in range(len(messages)) if i not in kept)
    kept_from = units[0].indices[0] if units else None
    return Plan(out, tokens_in, total, strategy, dropped, kept_from)


# --- parsing into well-formed units ------------------------------------------------------------


def _parse(messages: Sequence[Message]) -> _Parsed:
    """Split into the leading system messages and whole turns, leaving out orphans and empties."""
    n = len(messages)
    i = 0
    head: list[int] = []
    dropped: set[int] = set()
    while i < n and messages[i].get("role") in SYSTEM_ROLES:
        if _is_empty(messages[i]):
            dropped.add(i)
        else:
            head.append(i)
        i += 1
    units: list[tuple[tuple[int, Message], ...]] = []
    while i < n:
        message = messages[i]
        if message.get("role") == "assistant" and message.get("tool_calls"):
            end = i + 1
            while end < n and messages[end].get("role") == "tool":
                end += 1
            pairs, lost = _pair(messages, i, end)
            dropped.update(lost)
            if pairs:
                units.append(pairs)
            i = end
            continue
        if message.get("role") == "tool" or _is_empty(message):
            dropped.add(i)  # a result whose call is not right before it: providers reject it
        else:
            units.append(((i, message),))
        i += 1
    return _Parsed(tuple(head), tuple(units), frozenset(dropped))


def _pair(
    messages: Sequence[Message], start: int, end: int
) -> tuple[tuple[tuple[int, Message], ...], list[int]]:
    """A tool-call message and the results that follow it, keeping only calls that were answered.

    A call without a result cannot be forwarded (OpenAI rejects it, even as the last message), and
    inventing a result would put words in the tool's mouth, so unanswered calls are removed; the
    message survives only if some call was answered or it has text of its own.
    """
    call_message = messages[start]
    calls: dict[str, Any] = {}
    for call in call_message["tool_calls"]:
        if isinstance(call, Mapping) and isinstance(call.get("id"), str):
            calls.setdefault(call["id"], call)
    results: list[tuple[int, Message]] = []
    lost: list[int] = []
    answered: set[str] = set()
    for j in range(start + 1, end):
        call_id = messages[j].get("tool_call_id")
        if call_id in calls and call_id not in answered:
            answered.add(call_id)
            results.append((j, _filled(messages[j])))
        else:
            lost.append(j)
    kept_calls = [c for c in calls.values() if c["id"] in answered]
    if kept_calls == list(call_message["tool_calls"]):
        return ((start, call_message), *results), lost
    trimmed = {k: v for k, v in call_message.items() if k != "tool_calls"}
    if kept_calls:
        trimmed["tool_calls"] = kept_calls
    elif _is_empty(trimmed):
        return (), [start, *lost]
    return ((start, trimmed), *results), lost


def _filled(result: Message) -> Message:
    """A tool result with content: an empty one gets a placeholder so its call stays answered."""
    if has_content(result.get("content")):
        return result
    return {**result, "content": EMPTY_TOOL_OUTPUT}


def _is_empty(message: Message) -> bool:
    if message.get("tool_calls") or message.get("function_call"):
        return False
    if message.get("refusal") or message.get("audio"):
        return False
    return not has_content(message.get("content"))


# --- old turns: stubs, images, reasoning -------------------------------------------------------


def _aged_units(
    messages: Sequence[Message], parsed: _Parsed, costs: _Costs, keep_recent: int
) -> list[_Unit]:
    """Units with old ones slimmed down; a unit left with nothing to say is dropped."""
    recent = _recent_start(messages, keep_recent)
    names = tool_names(messages)
    units: list[_Unit] = []
    for pairs in parsed.units:
        if pairs[0][0] < recent:
            pairs = _slimmed(pairs, names, costs, keep_users=False)
        if pairs:
            units.append(costs.unit(pairs))
    return units


def _slimmed(
    pairs: Sequence[tuple[int, Message]],
    names: Mapping[str, tuple[str, str]],
    costs: _Costs,
    keep_users: bool,
) -> tuple[tuple[int, Message], ...]:
    """Slim versions of messages, dropping those left empty.

    A stub of highly repetitive output can cost more tokens than the output itself; then the
    original stays, so slimming never makes a turn bigger.
    """
    slim_pairs = []
    for i, message in pairs:
        lean = message if keep_users and message.get("role") == "user" else slim(message, names)
        if lean is not message and _is_empty(lean):
            continue
        if lean is not message and costs.of(i, lean) > costs.of(i, message):
            lean = message
        slim_pairs.append((i, lean))
    return tuple(slim_pairs)


def _recent_start(messages: Sequence[Message], keep_recent: int) -> int:
    """Index of the keep_recent-th last user message: it and what follows are recent."""
    if keep_recent == 0:
        return len(messages)
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    return users[-keep_recent] if len(users) >= keep_recent else 0


def _stub_unit(unit: _Unit, costs: _Costs) -> _Unit:
    """The last resort for a recent turn: its tool payloads and reasoning go, user text never."""
    pairs = tuple(zip(unit.indices, unit.messages, strict=True))
    lean = _slimmed(pairs, tool_names(unit.messages), costs, keep_users=True)
    if len(lean) == len(pairs) and all(a[1] is b[1] for a, b in zip(lean, pairs, strict=True)):
        return unit  # nothing to stub: an equal unit would only cost a recount
    return costs.unit(lean)
