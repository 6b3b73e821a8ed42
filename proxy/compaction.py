"""Budget-aware rewriting of chat messages: stub old tool traffic, then resume + recent turns."""

from __future__ import annotations

import json
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory.graph import tokens
from memory.graph.paths import clean_path, is_path

Message = dict[str, Any]

STUB_OVER = 500  # characters: old tool outputs and arguments longer than this are stubbed
# A stub stays shorter than STUB_OVER, so a stubbed transcript is never stubbed again.
STUB_MAX = 400
ITEM_MAX = 100  # characters kept of one path, command or URL in a stub
NAME_MAX = 60
IMAGE_REMOVED = "[image removed]"
EMPTY_TOOL_OUTPUT = "[empty tool output]"
SYSTEM_ROLES = frozenset({"system", "developer"})
REASONING_KEYS = ("reasoning_content", "reasoning", "thinking")
REASONING_PARTS = frozenset({"thinking", "reasoning", "redacted_thinking"})
TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
IMAGE_PARTS = frozenset({"image_url", "input_image"})
# Argument keys whose values name commands, files or URLs (bash, read_file, fetch and friends).
COMMAND_KEYS = frozenset({"command", "cmd", "commands", "script", "shell", "bash", "run"})
PATH_KEYS = frozenset(
    {"path", "paths", "file", "files", "file_path", "filepath", "filename", "target_file", "cwd"}
)
URL_KEYS = frozenset({"url", "urls", "uri", "href", "link"})
# Paths at the end matter (tracebacks), so a huge output is scanned at both ends, never whole.
SCAN_HEAD, SCAN_TAIL = 8000, 4000

_PATH_CANDIDATE = re.compile(r"[\w@+.~\-]*[/.][\w@+.~\-/]*\w")
_URL = re.compile(r"\bhttps?://[^\s\"'<>`)\]}]+")
_SHELL_LINE = re.compile(r"^\s*\$ (\S.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Plan:
    messages: list[dict]  # what to forward upstream
    tokens_in: int  # prompt tokens of the client's messages
    tokens_out: int  # prompt tokens of `messages`
    strategy: str  # "none" | "stubbed" | "resume" | "truncated"
    dropped: tuple[int, ...]  # indices (in the client's list) of messages left out entirely


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
        self.counts = [_count(m, model) for m in messages]

    def of(self, index: int, message: Message) -> int:
        if index >= 0 and message is self.messages[index]:
            return self.counts[index]
        return _count(message, self.model)

    def unit(self, pairs: Sequence[tuple[int, Message]]) -> _Unit:
        return _Unit(
            tuple(i for i, _ in pairs),
            tuple(m for _, m in pairs),
            sum(self.of(i, m) for i, m in pairs),
        )


class _Memo:
    """A bounded, thread-safe LRU map from a 64-bit fingerprint to a small value.

    Keys are Python hashes of the content, not the content, so the memo never keeps transcripts
    alive; a collision (odds about 2**-64) could only skew one count or one stub.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> Any:
        with self.lock:
            found = self.items.get(key)
            if found is not None:
                self.items.move_to_end(key)
            return found

    def put(self, key: tuple[Any, ...], value: Any) -> Any:
        with self.lock:
            self.items[key] = value
            if len(self.items) > self.size:
                self.items.popitem(last=False)
        return value


# tokens.count_message keys its cache by sha256 of canonical JSON, which costs more than the rest
# of a compaction for a long transcript; strings hash natively far faster.
_counts = _Memo(16384)
_stubs = _Memo(4096)  # the same old outputs are stubbed again on every later request


def _count(message: Message, model: str | None) -> int:
    """tokens.count_message, memoized by a cheap fingerprint of every field of the message."""
    fields = sorted(
        (str(k), v) if isinstance(v, str) else (str(k), None, json.dumps(v, default=str))
        for k, v in message.items()
    )
    key = (tokens.encoding_name_for(model), hash(tuple(fields)))
    found = _counts.get(key)
    return found if found is not None else _counts.put(key, tokens.count_message(message, model))


# --- the public functions ----------------------------------------------------------------------


def compact(
    messages: Sequence[Message],
    *,
    budget: int,
    threshold: float = 0.85,
    resume: str | None = None,
    model: str | None = None,
    keep_recent: int = 1,
) -> Plan:
    """What to forward so the request fits ``threshold × budget`` tokens (never more than budget).

    Under the threshold the messages pass through untouched. Otherwise old turns (before the
    ``keep_recent``-th last user message) lose big tool payloads, data images and reasoning; if
    that is not enough, the client's system messages, the ``resume`` block and the newest whole
    turns that fit are forwarded. Without a resume block, or when it leaves no room for the newest
    turn, the oldest turns are simply dropped. Raises TooLarge when even that cannot fit.
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
            with_resume = _with_resume(head, units, resume)
            return _fit(messages, *with_resume, costs, target, budget, tokens_in, "resume")
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
    head_tokens = tokens.REPLY_PRIMING + sum(costs.of(i, m) for i, m in head if m is not None)
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
    return Plan(out, tokens_in, total, strategy, dropped)


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
    if _has_content(result.get("content")):
        return result
    return {**result, "content": EMPTY_TOOL_OUTPUT}


def _is_empty(message: Message) -> bool:
    if message.get("tool_calls") or message.get("function_call"):
        return False
    if message.get("refusal") or message.get("audio"):
        return False
    return not _has_content(message.get("content"))


def _has_content(content: Any) -> bool:
    if content is None:
        return False
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        return any(_has_content_part(part) for part in content)
    return True


def _has_content_part(part: Any) -> bool:
    if isinstance(part, str):
        return bool(part.strip())
    if isinstance(part, Mapping) and part.get("type") in TEXT_PARTS:
        return bool(str(part.get("text") or "").strip())
    if isinstance(part, Mapping) and part.get("type") in REASONING_PARTS:
        return False  # reasoning alone is not an answer
    return part is not None


# --- old turns: stubs, images, reasoning -------------------------------------------------------


def _aged_units(
    messages: Sequence[Message], parsed: _Parsed, costs: _Costs, keep_recent: int
) -> list[_Unit]:
    """Units with old ones slimmed down; a unit left with nothing to say is dropped."""
    recent = _recent_start(messages, keep_recent)
    names = _tool_names(messages)
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
        slim = message if keep_users and message.get("role") == "user" else _slim(message, names)
        if slim is not message and _is_empty(slim):
            continue
        if slim is not message and costs.of(i, slim) > costs.of(i, message):
            slim = message
        slim_pairs.append((i, slim))
    return tuple(slim_pairs)


def _recent_start(messages: Sequence[Message], keep_recent: int) -> int:
    """Index of the keep_recent-th last user message: it and what follows are recent."""
    if keep_recent == 0:
        return len(messages)
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    return users[-keep_recent] if len(users) >= keep_recent else 0


def _tool_names(messages: Sequence[Message]) -> dict[str, tuple[str, str]]:
    """tool_call_id -> (tool name, arguments), so a stubbed result can say what produced it."""
    names: dict[str, tuple[str, str]] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            if isinstance(call, Mapping) and isinstance(call.get("id"), str):
                names.setdefault(call["id"], _call_name_and_arguments(call))
    return names


def _call_name_and_arguments(call: Mapping[str, Any]) -> tuple[str, str]:
    function = call.get("function")
    if not isinstance(function, Mapping):
        return "tool", ""
    arguments = function.get("arguments")
    return str(function.get("name") or "tool"), arguments if isinstance(arguments, str) else ""


def _stub_unit(unit: _Unit, costs: _Costs) -> _Unit:
    """The last resort for a recent turn: its tool payloads and reasoning go, user text never."""
    pairs = tuple(zip(unit.indices, unit.messages, strict=True))
    slim = _slimmed(pairs, _tool_names(unit.messages), costs, keep_users=True)
    if len(slim) == len(pairs) and all(a[1] is b[1] for a, b in zip(slim, pairs, strict=True)):
        return unit  # nothing to stub: an equal unit would only cost a recount
    return costs.unit(slim)


def _slim(message: Message, names: Mapping[str, tuple[str, str]]) -> Message:
    """An old message without big tool payloads, data images or reasoning; unchanged if none."""
    slim = message
    if slim.get("role") == "tool":
        slim = _stub_tool_output(slim, names)
    if slim.get("tool_calls"):
        slim = _stub_arguments(slim)
    slim = _strip_reasoning(slim)
    return _strip_images(slim)


def _stub_tool_output(message: Message, names: Mapping[str, tuple[str, str]]) -> Message:
    text = _text(message.get("content"))
    if len(text) <= STUB_OVER:
        return message
    fallback = (str(message.get("name") or "tool"), "")
    name, arguments = names.get(message.get("tool_call_id"), fallback)
    return {**message, "content": _stub("tool output", name, text, arguments)}


def _stub_arguments(message: Message) -> Message:
    calls = message["tool_calls"]
    stubbed = [_stub_call(call) for call in calls]
    if all(a is b for a, b in zip(stubbed, calls, strict=True)):
        return message
    return {**message, "tool_calls": stubbed}


def _stub_call(call: Any) -> Any:
    if not isinstance(call, Mapping) or not isinstance(call.get("function"), Mapping):
        return call
    function = call["function"]
    arguments = function.get("arguments")
    if not isinstance(arguments, str) or len(arguments) <= STUB_OVER:
        return call
    stub = _stub("tool arguments", str(function.get("name") or "tool"), arguments, arguments)
    # Arguments must stay a JSON object: providers and SDKs parse them.
    new_arguments = json.dumps({"_stubbed": stub}, ensure_ascii=False)
    return {**call, "function": {**function, "arguments": new_arguments}}


def _strip_reasoning(message: Message) -> Message:
    content = message.get("content")
    has_parts = isinstance(content, list) and any(_is_reasoning_part(p) for p in content)
    if not has_parts and not any(key in message for key in REASONING_KEYS):
        return message
    slim = {k: v for k, v in message.items() if k not in REASONING_KEYS}
    if has_parts:
        parts = [p for p in content if not _is_reasoning_part(p)]
        slim["content"] = parts or None
    return slim


def _is_reasoning_part(part: Any) -> bool:
    return isinstance(part, Mapping) and part.get("type") in REASONING_PARTS


def _strip_images(message: Message) -> Message:
    content = message.get("content")
    if not isinstance(content, list) or not any(_is_data_image(p) for p in content):
        return message
    parts = [p for p in content if not _is_data_image(p)]
    if not any(_has_content_part(p) for p in parts):
        parts.append({"type": "text", "text": IMAGE_REMOVED})
    return {**message, "content": parts}


def _is_data_image(part: Any) -> bool:
    if not isinstance(part, Mapping) or part.get("type") not in IMAGE_PARTS:
        return False
    image = part.get("image_url")
    url = image.get("url") if isinstance(image, Mapping) else image
    return isinstance(url, str) and url.startswith("data:")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, Mapping) and part.get("type") in TEXT_PARTS:
            texts.append(str(part.get("text") or ""))
    return "\n".join(texts)


# --- stubs -------------------------------------------------------------------------------------


def _stub(kind: str, name: str, text: str, arguments: str) -> str:
    """``[tool output stubbed by TokenMizer: bash, 18,432 chars; commands: pytest -q]``."""
    key = (kind, name, len(text), hash(text), hash(arguments))
    found = _stubs.get(key)
    return (
        found if found is not None else _stubs.put(key, _render_stub(kind, name, text, arguments))
    )


def _render_stub(kind: str, name: str, text: str, arguments: str) -> str:
    paths, commands, urls = _argument_facts(arguments)
    window = (
        text if len(text) <= SCAN_HEAD + SCAN_TAIL else text[:SCAN_HEAD] + "\n" + text[-SCAN_TAIL:]
    )
    commands += [m.group(1) for m in _SHELL_LINE.finditer(window)]
    urls += [m.group(0).rstrip(".,;:") for m in _URL.finditer(window)]
    paths += _find_paths(_URL.sub(" ", window))
    stub = f"[{kind} stubbed by TokenMizer: {_short(name, NAME_MAX)}, {len(text):,} chars"
    for label, items in (("paths", paths), ("commands", commands), ("urls", urls)):
        stub = _add_section(stub, label, items)
    return stub + "]"


def _add_section(stub: str, label: str, items: list[str]) -> str:
    """The stub with as many distinct items as fit under STUB_MAX characters."""
    section = ""
    for item in dict.fromkeys(_short(i, ITEM_MAX) for i in items if i.strip()):
        candidate = f"{section}, {item}" if section else f"; {label}: {item}"
        if len(stub) + len(candidate) + 1 > STUB_MAX:
            break
        section = candidate
    return stub + section


def _short(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _find_paths(text: str) -> list[str]:
    found: list[str] = []
    for match in _PATH_CANDIDATE.finditer(text):
        path = clean_path(match.group(0))
        if path not in found and is_path(path):
            found.append(path)
            if len(found) >= 8:  # more than a stub can show
                break
    return found


def _argument_facts(arguments: str) -> tuple[list[str], list[str], list[str]]:
    """Paths, commands and URLs named by well-known argument keys of a JSON object."""
    paths: list[str] = []
    commands: list[str] = []
    urls: list[str] = []
    try:
        data = json.loads(arguments) if arguments else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return paths, commands, urls
    for key, value in data.items():
        values = value if isinstance(value, list) else [value]
        strings = [v for v in values if isinstance(v, str)]
        key = str(key).lower()
        if key in COMMAND_KEYS and strings:
            # ["bash", "-lc", "pytest -q"] is one command; ["ls", "pwd"] under "commands" is two.
            commands += strings if key == "commands" else [" ".join(strings)]
        elif key in PATH_KEYS:
            paths += strings
        elif key in URL_KEYS:
            urls += strings
    return paths, commands, urls
