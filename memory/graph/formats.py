"""Transcript files: OpenAI-format messages (JSON or JSONL) and Claude Code session JSONL, read and written."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

OPENAI = "openai"
CLAUDE_CODE = "claude-code"
FORMATS = (OPENAI, CLAUDE_CODE)

OPENAI_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
CONVERSATION_TYPES = frozenset({"user", "assistant"})
THINKING_BLOCKS = frozenset({"thinking", "redacted_thinking"})
IMAGE_BLOCKS = frozenset({"image", "image_url", "input_image"})
PROGRESS_EVERY = 2000  # lines


class FormatError(ValueError):
    """A transcript that cannot be read; ``line`` is 1-based when the fault has one."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line

    def __str__(self) -> str:
        text = super().__str__()
        return f"line {self.line}: {text}" if self.line is not None else text


@dataclass
class Transcript:
    """A parsed file: its messages in OpenAI shape, and for Claude Code the raw entries too."""

    format: str
    messages: list[dict[str, Any]]
    entries: list[dict[str, Any]] = field(default_factory=list)  # Claude Code only
    container: str = "list"  # OpenAI: "list", "object" (with "messages") or "jsonl"
    envelope: dict[str, Any] = field(default_factory=dict)  # an object's other keys
    # What was left out: entry types skipped, thinking blocks and images dropped.
    skipped: Counter[str] = field(default_factory=Counter)
    lines: int = 0


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- reading ----------------------------------------------------------------------------------


def read_jsonl(
    text: str, progress: Callable[[int], None] | None = None
) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line; a line that is not a JSON object is an error."""
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if progress is not None and number % PROGRESS_EVERY == 0:
            progress(number)
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as error:
            raise FormatError(f"not valid JSON ({error.msg})", number) from None
        if not isinstance(value, dict):
            raise FormatError("each line must be one JSON object", number)
        rows.append((number, value))
    return rows


def _is_claude_entry(value: Mapping[str, Any]) -> bool:
    return isinstance(value.get("type"), str) and "role" not in value


def detect(text: str) -> str:
    """``openai`` or ``claude-code``, from the file's shape."""
    stripped = text.lstrip()
    if not stripped:
        raise FormatError("the file is empty")
    if stripped[0] == "[":
        return OPENAI
    if stripped[0] != "{":
        raise FormatError("neither a JSON list of messages, an object with messages, nor JSONL", 1)
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and "messages" in whole:
        return OPENAI
    first = read_jsonl(next(line for line in text.splitlines() if line.strip()))[0][1]
    return CLAUDE_CODE if _is_claude_entry(first) else OPENAI


def parse(
    text: str, fmt: str | None = None, progress: Callable[[int], None] | None = None
) -> Transcript:
    """The transcript in ``text``, in format ``fmt`` or the detected one."""
    if fmt is not None and fmt not in FORMATS:
        raise FormatError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    fmt = fmt or detect(text)
    if fmt == CLAUDE_CODE:
        rows = read_jsonl(text, progress)
        entries = [value for _, value in rows]
        for number, value in rows:
            if not isinstance(value.get("type"), str):
                raise FormatError("a Claude Code entry needs a string `type`", number)
        messages, skipped = claude_to_messages(entries, lines=[n for n, _ in rows])
        return Transcript(CLAUDE_CODE, messages, entries, skipped=skipped, lines=len(rows))
    return _parse_openai(text, progress)


def _parse_openai(text: str, progress: Callable[[int], None] | None) -> Transcript:
    stripped = text.lstrip()
    whole: Any = None
    if stripped.startswith("["):
        whole = _load_whole(text)
    elif stripped.startswith("{"):
        try:
            whole = json.loads(text)
        except ValueError:
            whole = None  # JSONL, one message per line
    if isinstance(whole, list):
        _check_messages((i + 1, m) for i, m in enumerate(whole))
        return Transcript(OPENAI, list(whole), container="list", lines=len(whole))
    if isinstance(whole, dict) and "messages" in whole:
        messages = whole["messages"]
        if not isinstance(messages, list):
            raise FormatError("`messages` must be a JSON list")
        _check_messages((i + 1, m) for i, m in enumerate(messages))
        envelope = {k: v for k, v in whole.items() if k != "messages"}
        return Transcript(OPENAI, messages, container="object", envelope=envelope)
    rows = read_jsonl(text, progress)
    _check_messages(rows, unit="line")
    return Transcript(OPENAI, [m for _, m in rows], container="jsonl", lines=len(rows))


def _load_whole(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as error:
        raise FormatError(f"not valid JSON ({error.msg})", error.lineno) from None


def _check_messages(rows: Iterable[tuple[int, Any]], unit: str = "message") -> None:
    for number, message in rows:
        where = number if unit == "line" else None
        label = "" if unit == "line" else f"message {number}: "
        if not isinstance(message, dict):
            raise FormatError(f"{label}each message must be a JSON object", where)
        role = message.get("role")
        if role not in OPENAI_ROLES:
            raise FormatError(
                f"{label}role {role!r} is not one of {', '.join(sorted(OPENAI_ROLES))}", where
            )
        content = message.get("content")
        if content is not None and not isinstance(content, str | list):
            raise FormatError(f"{label}content must be a string, a list of parts or null", where)


# --- Claude Code entries to OpenAI messages -------------------------------------------------------


def is_conversation_entry(entry: Mapping[str, Any]) -> bool:
    """A user or assistant entry of the main conversation (not a subagent's sidechain)."""
    return (
        entry.get("type") in CONVERSATION_TYPES
        and isinstance(entry.get("message"), Mapping)
        and not entry.get("isSidechain")
    )


def _skip_reason(entry: Mapping[str, Any]) -> str | None:
    if entry.get("type") not in CONVERSATION_TYPES:
        return str(entry.get("type"))
    if not isinstance(entry.get("message"), Mapping):
        return "no message"
    if entry.get("isSidechain"):
        return "sidechain"
    return None


def block_text(content: Any, skipped: Counter[str] | None = None) -> str:
    """The text of a Claude content value (a string or blocks); images and thinking counted."""
    if isinstance(content, str):
        return content
    texts = []
    for block in content if isinstance(content, list) else ():
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif skipped is not None and kind in IMAGE_BLOCKS:
            skipped["image"] += 1
        elif skipped is not None and kind in THINKING_BLOCKS:
            skipped["thinking"] += 1
        elif isinstance(block, str):
            texts.append(block)
    return "\n\n".join(texts)


def _tool_call(block: Mapping[str, Any]) -> dict[str, Any]:
    arguments = block.get("input")
    return {
        "id": str(block.get("id") or ""),
        "type": "function",
        "function": {
            "name": str(block.get("name") or "tool"),
            "arguments": arguments if isinstance(arguments, str) else _dumps(arguments or {}),
        },
    }


def _assistant_message(
    content: Any, skipped: Counter[str]
) -> tuple[list[str], list[dict[str, Any]]]:
    if isinstance(content, str):
        return [content], []
    texts, calls = [], []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, Mapping) and block.get("type") == "tool_use":
            calls.append(_tool_call(block))
        else:
            text = block_text([block], skipped)
            if text:
                texts.append(text)
    return texts, calls


def _user_messages(content: Any, skipped: Counter[str]) -> list[dict[str, Any]]:
    """Tool results become ``tool`` messages (first, as providers want), the rest one user message."""
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    results, texts = [], []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, Mapping) and block.get("type") == "tool_result":
            results.append(
                {
                    "role": "tool",
                    "tool_call_id": str(block.get("tool_use_id") or ""),
                    "content": block_text(block.get("content"), skipped),
                }
            )
        else:
            text = block_text([block], skipped)
            if text:
                texts.append(text)
    if texts:
        results.append({"role": "user", "content": "\n\n".join(texts)})
    return results


def claude_to_messages(
    entries: list[dict[str, Any]], lines: list[int] | None = None
) -> tuple[list[dict[str, Any]], Counter[str]]:
    """OpenAI-shape messages of a Claude Code session, and what was skipped or dropped.

    Claude Code writes one entry per content block, so consecutive assistant entries (one API
    message, or several the API would merge) become one assistant message with all its text and
    tool calls, which keeps parallel calls right before their results.
    """
    messages: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    for index, entry in enumerate(entries):
        reason = _skip_reason(entry)
        if reason is not None:
            skipped[reason] += 1
            continue
        content = entry["message"].get("content")
        if content is not None and not isinstance(content, str | list):
            line = lines[index] if lines else index + 1
            raise FormatError("message.content must be a string or a list of blocks", line)
        if entry["type"] == "user":
            messages.extend(_user_messages(content, skipped))
            continue
        texts, calls = _assistant_message(content, skipped)
        if messages and messages[-1]["role"] == "assistant":
            _extend_assistant(messages[-1], texts, calls)
        elif texts or calls:
            messages.append(_new_assistant(texts, calls))
    return messages, skipped


def _new_assistant(texts: list[str], calls: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": "\n\n".join(texts) or None}
    if calls:
        message["tool_calls"] = calls
    return message


def _extend_assistant(message: dict[str, Any], texts: list[str], calls: list[dict]) -> None:
    if texts:
        message["content"] = "\n\n".join(
            [message["content"], *texts] if message["content"] else texts
        )
    if calls:
        message.setdefault("tool_calls", []).extend(calls)


# --- writing ----------------------------------------------------------------------------------


def dump_openai(messages: list[dict[str, Any]], container: str = "list", envelope=None) -> str:
    if container == "jsonl":
        return "".join(_dumps(m) + "\n" for m in messages)
    if container == "object":
        return json.dumps({**(envelope or {}), "messages": messages}, ensure_ascii=False, indent=2)
    return json.dumps(messages, ensure_ascii=False, indent=2) + "\n"


def dump_claude(entries: list[dict[str, Any]]) -> str:
    """JSONL as Claude Code writes it: one compact JSON object per line."""
    return "".join(_dumps(e) + "\n" for e in entries)
