"""Structurally lossless trimming of a whole transcript: OpenAI messages or Claude Code entries.

What changes, and nothing else:

- tool results and tool inputs longer than the threshold become stubs naming the tool, the
  paths, commands and URLs involved and the original size (memory.graph.stubs renders them, so a
  trimmed transcript reads like one the proxy compacted); a stub is used only when shorter;
- images and thinking/reasoning blocks are removed;
- tool pairing is made valid in both directions: a result with no call right before it becomes
  a user note tagged ``[tokenmizer:orphan-result]`` (its text kept), and a call with no result gets
  a ``[tokenmizer:no-result]`` tool result, so a provider accepts the transcript;
- a message left with nothing to say gets a short placeholder (OpenAI); a Claude Code entry left
  empty (a thinking-only fragment of a larger assistant message) is dropped and its children
  re-parented, which is how the API would have merged it anyway;
- one boundary marker, a system note (OpenAI) or meta user entry (Claude Code) right at the top
  of the conversation, starting ``[tokenmizer:trimmed ...]`` with the running counts.

User and assistant text is kept verbatim. Trimming is deterministic and idempotent: stubs and
placeholders are recognised, and the marker's counts are added to, not repeated.
"""

from __future__ import annotations

import copy
import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from memory.graph import stubs, tokens

DEFAULT_THRESHOLD = stubs.STUB_OVER
MIN_THRESHOLD = 50

TAG = "[tokenmizer:trimmed"
ORPHAN_TAG = "[tokenmizer:orphan-result]"
NO_RESULT = "[tokenmizer:no-result] the transcript holds no result for this call"
RESULT_STUB = "[tool output stubbed by TokenMizer:"
INPUT_STUB = "[tool arguments stubbed by TokenMizer:"
STUB_KEY = "_stubbed"
IMAGE_REMOVED = stubs.IMAGE_REMOVED
THINKING_REMOVED = "[thinking removed]"
EMPTY_MESSAGE = "[empty message]"
EMPTY_TOOL_OUTPUT = "[empty tool output]"
IMAGE_PARTS = frozenset({"image_url", "input_image", "image"})
THINKING_PARTS = stubs.REASONING_PARTS
SYSTEM_ROLES = frozenset({"system", "developer"})
NAMESPACE = uuid.UUID("5b0e7d1c-3f0a-4c57-9a53-7d6f2b1e9c40")  # TokenMizer's uuid5 namespace
_MARKER_COUNTS = re.compile(r"^\[tokenmizer:trimmed((?: [a-z_]+=\d+)*)\]")

Message = dict[str, Any]


@dataclass
class Counts:
    """What one pass changed; also the running totals a boundary marker records."""

    results: int = 0
    inputs: int = 0
    images: int = 0
    thinking: int = 0
    orphan_results: int = 0
    orphan_calls: int = 0
    filled: int = 0
    merged: int = 0
    metadata: int = 0  # Claude Code's `toolUseResult` copies stubbed with their result

    def any(self) -> bool:
        return any(asdict(self).values())

    def plus(self, other: Counts) -> Counts:
        return Counts(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        )


@dataclass(frozen=True)
class TrimReport:
    format: str
    threshold: int
    messages_before: int
    messages_after: int
    tool_results_stubbed: int
    tool_inputs_stubbed: int
    tool_metadata_stubbed: int
    images_stripped: int
    thinking_stripped: int
    orphan_results_fixed: int
    orphan_calls_fixed: int
    empty_messages_filled: int
    empty_entries_merged: int
    chars_before: int
    chars_after: int
    tokens_before: int
    tokens_after: int

    @property
    def token_reduction_percent(self) -> float:
        if not self.tokens_before:
            return 0.0
        return round(100 * (1 - self.tokens_after / self.tokens_before), 1)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "token_reduction_percent": self.token_reduction_percent}

    def lines(self) -> list[str]:
        return [
            f"tokens: {self.tokens_before:,} -> {self.tokens_after:,} "
            f"({self.token_reduction_percent}% fewer); characters: "
            f"{self.chars_before:,} -> {self.chars_after:,}",
            f"{'entries' if self.format == 'claude-code' else 'messages'}: "
            f"{self.messages_before} -> {self.messages_after}",
            f"stubbed over {self.threshold} characters: {self.tool_results_stubbed} tool results, "
            f"{self.tool_inputs_stubbed} tool inputs"
            + (
                f", {self.tool_metadata_stubbed} result copies"
                if self.tool_metadata_stubbed
                else ""
            ),
            f"removed: {self.images_stripped} images, {self.thinking_stripped} thinking blocks",
            f"pairing fixed: {self.orphan_results_fixed} results without a call became notes, "
            f"{self.orphan_calls_fixed} calls without a result got one",
            f"empty messages: {self.empty_messages_filled} given a placeholder, "
            f"{self.empty_entries_merged} merged away",
        ]


@dataclass(frozen=True)
class TrimResult:
    messages: list[Message]
    report: TrimReport


@dataclass(frozen=True)
class ClaudeTrimResult:
    entries: list[dict[str, Any]]
    report: TrimReport


def check_threshold(threshold: int) -> int:
    if isinstance(threshold, bool) or not isinstance(threshold, int):
        raise ValueError("the threshold must be a whole number of characters")
    if threshold < MIN_THRESHOLD:
        raise ValueError(
            f"a threshold of {threshold} characters would stub ordinary short outputs; "
            f"use at least {MIN_THRESHOLD} (the default is {DEFAULT_THRESHOLD})"
        )
    return threshold


# --- stubs and the marker, shared by both formats -------------------------------------------------


def stub_text(text: str, name: str, arguments: str, threshold: int) -> str | None:
    """The stub of a tool output over the threshold, or None to keep it (short, stubbed already,
    or a stub that would not be shorter)."""
    if len(text) <= threshold or text.startswith(RESULT_STUB):
        return None
    stub = stubs.stub("tool output", name, text, arguments)
    return stub if len(stub) < len(text) else None


def stub_input(serialized: str, name: str, threshold: int) -> str | None:
    """The stub of a tool input over the threshold, or None to keep it."""
    if len(serialized) <= threshold or is_stubbed_input(serialized):
        return None
    stub = stubs.stub("tool arguments", name, serialized, serialized)
    return stub if len(canonical_json({STUB_KEY: stub})) < len(serialized) else None


def is_stubbed_input(arguments: Any) -> bool:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return False
    return isinstance(arguments, Mapping) and set(arguments) == {STUB_KEY}


def marker_counts(text: Any) -> Counts | None:
    """The running counts of a boundary marker's text; None when ``text`` is not a marker."""
    match = _MARKER_COUNTS.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    known = {f.name for f in fields(Counts)}
    pairs = (item.split("=") for item in match.group(1).split())
    return Counts(**{k: int(v) for k, v in pairs if k in known})


def marker_text(totals: Counts, threshold: int) -> str:
    tag = " ".join(f"{k}={v}" for k, v in asdict(totals).items())
    return (
        f"{TAG} {tag}] TokenMizer trimmed this transcript: tool outputs and inputs over "
        f"{threshold} characters are stubs naming the tool, its paths, commands, URLs and the "
        "original size; images and thinking blocks were removed; tool calls and results were "
        "re-paired where one was missing. User and assistant text is verbatim."
    )


def canonical_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _chars(items: list[Any]) -> int:
    return sum(len(canonical_json(item)) for item in items)


def make_report(fmt: str, threshold: int, counts: Counts, before: dict, after: dict) -> TrimReport:
    return TrimReport(
        format=fmt,
        threshold=threshold,
        tool_results_stubbed=counts.results,
        tool_inputs_stubbed=counts.inputs,
        tool_metadata_stubbed=counts.metadata,
        images_stripped=counts.images,
        thinking_stripped=counts.thinking,
        orphan_results_fixed=counts.orphan_results,
        orphan_calls_fixed=counts.orphan_calls,
        empty_messages_filled=counts.filled,
        empty_entries_merged=counts.merged,
        **{f"{k}_before": v for k, v in before.items()},
        **{f"{k}_after": v for k, v in after.items()},
    )


def measure_items(items: list[Any], messages: list[Message], model: str | None) -> dict[str, int]:
    return {
        "messages": len(items),
        "chars": _chars(items),
        "tokens": tokens.count_messages(messages, model),
    }


# --- OpenAI-format messages ---------------------------------------------------------------------


def trim_messages(
    messages: list[dict], threshold: int = DEFAULT_THRESHOLD, *, model: str | None = None
) -> TrimResult:
    """The transcript trimmed (a new list; ``messages`` is left as it is) and what was done."""
    check_threshold(threshold)
    before = measure_items(messages, messages, model)
    work = copy.deepcopy(list(messages))
    totals = Counts()
    kept = []
    for message in work:
        found = marker_counts(message.get("content")) if message.get("role") == "system" else None
        if found is None:
            kept.append(message)
        else:
            totals = totals.plus(found)
    counts = Counts()
    names = stubs.tool_names(kept)
    lean = [_lean(m, i, names, threshold, counts) for i, m in enumerate(kept)]
    out = _paired(lean, counts)
    totals = totals.plus(counts)
    if totals.any():
        at = next((i for i, m in enumerate(out) if m.get("role") not in SYSTEM_ROLES), len(out))
        out.insert(at, {"role": "system", "content": marker_text(totals, threshold)})
    report = make_report("openai", threshold, counts, before, measure_items(out, out, model))
    return TrimResult(out, report)


def _lean(message: Message, index: int, names: Mapping, threshold: int, counts: Counts) -> Message:
    """One message without its big payloads, images and thinking; never left empty."""
    for key in stubs.REASONING_KEYS:
        if message.pop(key, None) is not None:
            counts.thinking += 1
    removed = Counts()
    content = message.get("content")
    if isinstance(content, list):
        content = lean_parts(content, removed)
    role = message.get("role")
    if role == "tool":
        fallback = (str(message.get("name") or "tool"), "")
        name, arguments = names.get(message.get("tool_call_id"), fallback)
        stub = stub_text(stubs.text_of(content), name, arguments, threshold)
        if stub is not None:
            content, counts.results = stub, counts.results + 1
    if message.get("tool_calls"):
        message["tool_calls"] = [
            _lean_call(c, index, k, threshold, counts) for k, c in enumerate(message["tool_calls"])
        ]
    counts.images += removed.images
    counts.thinking += removed.thinking
    if not stubs.has_content(content) and not (role == "assistant" and message.get("tool_calls")):
        content = placeholder_for(role, removed)
        counts.filled += 1
    elif isinstance(content, list) and not content:
        content = None  # an assistant with tool calls: null content, never an empty list
    message["content"] = content
    return message


def lean_parts(parts: list, removed: Counts) -> list:
    kept = []
    for part in parts:
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind in IMAGE_PARTS:
            removed.images += 1
        elif kind in THINKING_PARTS:
            removed.thinking += 1
        else:
            kept.append(part)
    return kept


def placeholder_for(role: Any, removed: Counts) -> str:
    if role == "tool":
        return EMPTY_TOOL_OUTPUT
    if removed.images:
        return IMAGE_REMOVED
    return THINKING_REMOVED if removed.thinking else EMPTY_MESSAGE


def _lean_call(call: Any, index: int, k: int, threshold: int, counts: Counts) -> Any:
    if not isinstance(call, Mapping):
        return call
    call = dict(call)
    if not isinstance(call.get("id"), str) or not call["id"]:
        call["id"] = f"call_tmz_{index}_{k}"  # a call must have an id for its result to name
    function = call.get("function")
    if isinstance(function, Mapping) and isinstance(function.get("arguments"), str):
        name = str(function.get("name") or "tool")
        stub = stub_input(function["arguments"], name, threshold)
        if stub is not None:
            call["function"] = {**function, "arguments": canonical_json({STUB_KEY: stub})}
            counts.inputs += 1
    return call


def _paired(messages: list[Message], counts: Counts) -> list[Message]:
    """Every call answered right after its message, every result right after its call."""
    out: list[Message] = []
    pending: dict[str, None] = {}  # call ids of the open tool-call message, in order
    notes: list[Message] = []  # orphan results met inside the open block, to follow it

    def close() -> None:
        for call_id in pending:
            out.append({"role": "tool", "tool_call_id": call_id, "content": NO_RESULT})
            counts.orphan_calls += 1
        out.extend(notes)
        pending.clear()
        notes.clear()

    for message in messages:
        if message.get("role") == "tool":
            call_id = message.get("tool_call_id")
            if call_id in pending:
                del pending[call_id]
                out.append(message)
                continue
            counts.orphan_results += 1
            (notes if pending or notes else out).append(_orphan_note(message))
            continue
        close()
        if message.get("role") == "assistant" and message.get("tool_calls"):
            message["tool_calls"] = _unique_ids(message["tool_calls"])
            pending.update((c["id"], None) for c in message["tool_calls"] if isinstance(c, Mapping))
        out.append(message)
    close()
    return out


def _unique_ids(calls: list) -> list:
    """Calls whose ids are unique within their message (a repeat gets a suffix)."""
    seen: set[str] = set()
    unique = []
    for call in calls:
        if isinstance(call, Mapping):
            base, n = call["id"], 1
            while call["id"] in seen:
                n += 1
                call = {**call, "id": f"{base}_{n}"}
            seen.add(call["id"])
        unique.append(call)
    return unique


def _orphan_note(message: Message) -> Message:
    name = str(message.get("name") or "tool")
    call_id = message.get("tool_call_id") or "none"
    text = stubs.text_of(message.get("content")) or EMPTY_TOOL_OUTPUT
    return {
        "role": "user",
        "content": f"{ORPHAN_TAG} output of {name} (call {call_id}), whose call is not in the "
        f"transcript:\n{text}",
    }
