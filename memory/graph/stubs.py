"""What an old message becomes: big tool payloads stubbed, data images and reasoning removed."""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from memory.graph.paths import clean_path, is_path

Message = dict[str, Any]

STUB_OVER = 500  # characters: old tool outputs and arguments longer than this are stubbed
# A stub stays shorter than STUB_OVER, so a stubbed transcript is never stubbed again.
STUB_MAX = 400
ITEM_MAX = 100  # characters kept of one path, command or URL in a stub
NAME_MAX = 60
IMAGE_REMOVED = "[image removed]"
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


class Memo:
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


_STUBS = Memo(4096)  # the same old outputs are stubbed again on every later request


def has_content(content: Any) -> bool:
    """Whether message content says anything: not None, blank, or only reasoning parts."""
    if content is None:
        return False
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        return any(has_content_part(part) for part in content)
    return True


def has_content_part(part: Any) -> bool:
    if isinstance(part, str):
        return bool(part.strip())
    if isinstance(part, Mapping) and part.get("type") in TEXT_PARTS:
        return bool(str(part.get("text") or "").strip())
    if isinstance(part, Mapping) and part.get("type") in REASONING_PARTS:
        return False  # reasoning alone is not an answer
    return part is not None


def tool_names(messages: Sequence[Message]) -> dict[str, tuple[str, str]]:
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


# --- slimming -------------------------------------------------------------------------------------


def slim(message: Message, names: Mapping[str, tuple[str, str]]) -> Message:
    """An old message without big tool payloads, data images or reasoning; unchanged if none."""
    lean = message
    if lean.get("role") == "tool":
        lean = _stub_tool_output(lean, names)
    if lean.get("tool_calls"):
        lean = _stub_arguments(lean)
    return _strip_images(_strip_reasoning(lean))


def _stub_tool_output(message: Message, names: Mapping[str, tuple[str, str]]) -> Message:
    text = text_of(message.get("content"))
    if len(text) <= STUB_OVER:
        return message
    fallback = (str(message.get("name") or "tool"), "")
    name, arguments = names.get(message.get("tool_call_id"), fallback)
    return {**message, "content": stub("tool output", name, text, arguments)}


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
    stubbed = stub("tool arguments", str(function.get("name") or "tool"), arguments, arguments)
    # Arguments must stay a JSON object: providers and SDKs parse them.
    new_arguments = json.dumps({"_stubbed": stubbed}, ensure_ascii=False)
    return {**call, "function": {**function, "arguments": new_arguments}}


def _strip_reasoning(message: Message) -> Message:
    content = message.get("content")
    has_parts = isinstance(content, list) and any(_is_reasoning_part(p) for p in content)
    if not has_parts and not any(key in message for key in REASONING_KEYS):
        return message
    lean = {k: v for k, v in message.items() if k not in REASONING_KEYS}
    if has_parts:
        parts = [p for p in content if not _is_reasoning_part(p)]
        lean["content"] = parts or None  # an empty list is refused where null is not
    return lean


def _is_reasoning_part(part: Any) -> bool:
    return isinstance(part, Mapping) and part.get("type") in REASONING_PARTS


def _strip_images(message: Message) -> Message:
    content = message.get("content")
    if not isinstance(content, list) or not any(_is_data_image(p) for p in content):
        return message
    parts = [p for p in content if not _is_data_image(p)]
    if not any(has_content_part(p) for p in parts):
        parts.append({"type": "text", "text": IMAGE_REMOVED})
    return {**message, "content": parts}


def _is_data_image(part: Any) -> bool:
    if not isinstance(part, Mapping) or part.get("type") not in IMAGE_PARTS:
        return False
    image = part.get("image_url")
    url = image.get("url") if isinstance(image, Mapping) else image
    return isinstance(url, str) and url.startswith("data:")


def text_of(content: Any) -> str:
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


def stub(kind: str, name: str, text: str, arguments: str) -> str:
    """``[tool output stubbed by TokenMizer: bash, 18,432 chars; commands: pytest -q]``."""
    key = (kind, name, len(text), hash(text), hash(arguments))
    found = _STUBS.get(key)
    return (
        found if found is not None else _STUBS.put(key, _render_stub(kind, name, text, arguments))
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
