"""Anthropic's Messages API: OpenAI chat requests, replies and streams translated both ways.

``response_format`` has no Anthropic equivalent: it becomes a system instruction asking for JSON
(and quoting the schema), so the reply is JSON by request, not by constrained decoding.
``temperature`` is clamped to Anthropic's 0-1; OpenAI-only fields (n, seed, logprobs,
penalties, stream_options, ...) are dropped, since Anthropic refuses unknown fields.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from proxy.upstreams import Target, UpstreamRequest, UpstreamStreamError
from proxy.upstreams.shapes import (
    SYSTEM_ROLES,
    ChunkWriter,
    assistant_message,
    completion,
    completion_id,
    data_url,
    error_message,
    event_payload,
    image_url_of,
    json_instruction,
    max_tokens_of,
    parse_arguments,
    parts_of,
    stop_list,
    system_text,
    text_of,
    tool_call,
    usage,
)

VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096  # Anthropic requires max_tokens; OpenAI callers often leave it out
FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
CONTINUATION = "(conversation continues)"  # Anthropic wants the first message to be the user's
_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")  # tool_use ids must match ^[a-zA-Z0-9_-]+$


def _tool_id(raw: Any) -> str:
    return _ID_UNSAFE.sub("_", str(raw or "")) or "toolu_missing"


def _image_block(url: str) -> dict[str, Any] | None:
    found = data_url(url)
    if found:
        source = {"type": "base64", "media_type": found[0], "data": found[1]}
        return {"type": "image", "source": source}
    if url.startswith(("http://", "https://")):
        return {"type": "image", "source": {"type": "url", "url": url}}
    return None


def _document_block(part: dict[str, Any]) -> dict[str, Any] | None:
    file = part.get("file") if isinstance(part.get("file"), dict) else {}
    found = data_url(str(file.get("file_data") or ""))
    if not found or found[0] != "application/pdf":
        return None  # uploaded file ids and other media have no Anthropic equivalent
    source = {"type": "base64", "media_type": found[0], "data": found[1]}
    return {"type": "document", "source": source}


def _content_blocks(content: Any) -> list[dict[str, Any]]:
    """User content as Anthropic blocks (text, images, PDFs); empty text is refused, so left out."""
    blocks = []
    for part in parts_of(content):
        kind = part.get("type")
        if kind == "image_url":
            block = _image_block(image_url_of(part))
        elif kind == "file":
            block = _document_block(part)
        else:
            text = text_of([part])
            block = {"type": "text", "text": text} if text else None
        if block:
            if isinstance(part.get("cache_control"), dict):  # as OpenRouter-style clients send it
                block["cache_control"] = part["cache_control"]
            blocks.append(block)
    return blocks


def _assistant_blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = [b for b in _content_blocks(message.get("content")) if b["type"] == "text"]
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        raw = function.get("arguments")
        arguments = parse_arguments(raw)
        if arguments is None:
            # The call is kept with empty input; its text stays in view of the model.
            note = f"[tool call {call.get('id')} arguments were not a JSON object: {raw}]"
            blocks.append({"type": "text", "text": note})
            arguments = {}
        blocks.append(
            {
                "type": "tool_use",
                "id": _tool_id(call.get("id")),
                "name": str(function.get("name") or ""),
                "input": arguments,
            }
        )
    return blocks


def _tool_result(message: dict[str, Any]) -> list[dict[str, Any]]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": _tool_id(message.get("tool_call_id")),
    }
    content = message.get("content")
    if isinstance(content, str):
        if content:
            block["content"] = content
    else:
        inner = [b for b in _content_blocks(content) if b["type"] in ("text", "image")]
        if inner:
            block["content"] = inner
    return [block]


def _turn(message: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    role = message.get("role")
    if role == "tool":
        return "user", _tool_result(message)
    if role == "assistant":
        return "assistant", _assistant_blocks(message)
    return "user", _content_blocks(message.get("content"))


def translate_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI messages (system ones excepted) as alternating Anthropic turns.

    Consecutive same-role turns merge, so parallel tool results land in the one user message
    that must follow the assistant's tool_use blocks, with the tool_result blocks first.
    """
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") in SYSTEM_ROLES:
            continue
        role, blocks = _turn(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    for turn in turns:
        if turn["role"] == "user":
            turn["content"].sort(key=lambda b: b["type"] != "tool_result")  # stable
    if not turns or turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": [{"type": "text", "text": CONTINUATION}]})
    last = turns[-1]["content"][-1]
    if turns[-1]["role"] == "assistant" and last["type"] == "text":
        last["text"] = last["text"].rstrip()  # a prefill may not end in whitespace
    return turns


def translate_tools(tools: Any) -> list[dict[str, Any]]:
    specs = []
    for tool in tools or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or tool.get("type", "function") != "function":
            continue
        schema = dict(function.get("parameters") or {})
        schema.setdefault("type", "object")
        spec = {"name": str(function.get("name") or ""), "input_schema": schema}
        if function.get("description"):
            spec["description"] = function["description"]
        specs.append(spec)
    return specs


def translate_tool_choice(choice: Any, parallel: Any) -> dict[str, Any] | None:
    if choice == "none":
        return {"type": "none"}
    if choice == "required":
        result = {"type": "any"}
    elif isinstance(choice, dict) and (choice.get("function") or {}).get("name"):
        result = {"type": "tool", "name": choice["function"]["name"]}
    elif choice == "auto" or parallel is False:
        result = {"type": "auto"}
    else:
        return None
    if parallel is False:
        result["disable_parallel_tool_use"] = True
    return result


def _sampling(body: dict[str, Any], payload: dict[str, Any]) -> None:
    if isinstance(body.get("temperature"), int | float):
        payload["temperature"] = min(max(float(body["temperature"]), 0.0), 1.0)  # OpenAI's is 0–2
    if isinstance(body.get("top_p"), int | float):
        payload["top_p"] = body["top_p"]
    stops = stop_list(body.get("stop"))
    if stops:
        payload["stop_sequences"] = stops
    if isinstance(body.get("user"), str) and body["user"]:
        payload["metadata"] = {"user_id": body["user"]}


def translate_request(body: dict[str, Any], stream: bool) -> dict[str, Any]:
    """An OpenAI chat request body as an Anthropic Messages body; other fields are dropped."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    payload: dict[str, Any] = {
        "model": body.get("model"),
        "max_tokens": max_tokens_of(body) or DEFAULT_MAX_TOKENS,
        "messages": translate_messages(messages),
    }
    system = "\n\n".join(
        t for t in (system_text(messages), json_instruction(body.get("response_format"))) if t
    )
    if system:
        payload["system"] = system
    _sampling(body, payload)
    tools = translate_tools(body.get("tools"))
    if tools:
        payload["tools"] = tools
        choice = translate_tool_choice(body.get("tool_choice"), body.get("parallel_tool_calls"))
        if choice:
            payload["tool_choice"] = choice
    if stream:
        payload["stream"] = True
    return payload


def usage_of(raw: dict[str, Any]) -> dict[str, Any]:
    """OpenAI usage from Anthropic's: its input_tokens leave out the cached part, so add it back."""
    cached = int(raw.get("cache_read_input_tokens") or 0)
    prompt = int(raw.get("input_tokens") or 0) + int(raw.get("cache_creation_input_tokens") or 0)
    return usage(prompt + cached, int(raw.get("output_tokens") or 0), cached=cached)


class AnthropicStream:
    """Turns Anthropic's stream events into OpenAI chunks, one event at a time."""

    def __init__(self, model: str, include_usage: bool) -> None:
        self.out = ChunkWriter(model, include_usage)
        self.calls: dict[int, int] = {}  # Anthropic block index -> OpenAI tool_calls index
        self.with_arguments: set[int] = set()
        self.usage: dict[str, Any] = {}
        self.started = False
        self.handlers: dict[str, Callable[[dict[str, Any]], list[dict]]] = {
            "message_start": self._message_start,
            "content_block_start": self._block_start,
            "content_block_delta": self._block_delta,
            "content_block_stop": self._block_stop,
            "message_delta": self._message_delta,
            "error": self._error,
        }

    def feed(self, event: str, data: str) -> list[dict]:
        payload = event_payload(data, "Anthropic")
        if payload is None:
            return []
        handler = self.handlers.get(str(payload.get("type") or event))
        try:
            return handler(payload) if handler else []  # ping, message_stop, future event types
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            message = f"Anthropic sent an event of an unexpected shape: {data[:200]}"
            raise UpstreamStreamError(message) from error

    def finish(self) -> list[dict]:
        if self.out.include_usage and self.started:
            return [self.out.usage_chunk(usage_of(self.usage))]
        return []

    def _message_start(self, payload: dict[str, Any]) -> list[dict]:
        message = payload.get("message") or {}
        self.out.id = str(message.get("id") or self.out.id)
        self.out.model = str(message.get("model") or self.out.model)
        self.usage.update(message.get("usage") or {})
        self.started = True
        return [self.out.chunk({"role": "assistant", "content": ""})]

    def _block_start(self, payload: dict[str, Any]) -> list[dict]:
        block = payload.get("content_block") or {}
        if block.get("type") == "text" and block.get("text"):
            return [self.out.chunk({"content": block["text"]})]
        if block.get("type") != "tool_use":
            return []  # thinking and server-side tool blocks have no OpenAI form
        index = self.calls[payload.get("index", 0)] = len(self.calls)
        head = tool_call(str(block.get("id") or ""), str(block.get("name") or ""), "")
        chunks = [self.out.chunk({"tool_calls": [{"index": index, **head}]})]
        if block.get("input"):
            chunks.append(self._arguments(index, json.dumps(block["input"])))
        return chunks

    def _block_delta(self, payload: dict[str, Any]) -> list[dict]:
        delta = payload.get("delta") or {}
        if delta.get("type") == "text_delta" and delta.get("text"):
            return [self.out.chunk({"content": delta["text"]})]
        index = self.calls.get(payload.get("index", 0))
        if (
            delta.get("type") == "input_json_delta"
            and delta.get("partial_json")
            and index is not None
        ):
            return [self._arguments(index, delta["partial_json"])]
        return []

    def _block_stop(self, payload: dict[str, Any]) -> list[dict]:
        index = self.calls.get(payload.get("index", 0))
        if index is None or index in self.with_arguments:
            return []
        return [self._arguments(index, "{}")]  # a call without parameters still gets an object

    def _message_delta(self, payload: dict[str, Any]) -> list[dict]:
        self.usage.update({k: v for k, v in (payload.get("usage") or {}).items() if v is not None})
        reason = (payload.get("delta") or {}).get("stop_reason")
        return [self.out.chunk({}, finish=FINISH.get(reason, "stop"))]

    def _error(self, payload: dict[str, Any]) -> list[dict]:
        error = payload.get("error") or {}
        message = str(error.get("message") or "Anthropic reported an error")
        raise UpstreamStreamError(f"{message} ({error['type']})" if error.get("type") else message)

    def _arguments(self, index: int, text: str) -> dict:
        self.with_arguments.add(index)
        return self.out.chunk({"tool_calls": [{"index": index, "function": {"arguments": text}}]})


class AnthropicAdapter:
    relay_raw = False

    def request(self, body: dict[str, Any], target: Target, stream: bool) -> UpstreamRequest:
        headers = {"anthropic-version": VERSION, "content-type": "application/json"}
        if target.api_key:
            headers["x-api-key"] = target.api_key
        return UpstreamRequest(
            f"{target.base_url}/messages", headers, translate_request(body, stream)
        )

    def response(self, data: Any, model: str) -> dict[str, Any]:
        text, calls = [], []
        for block in data.get("content") or []:
            if block.get("type") == "text":
                text.append(str(block.get("text") or ""))
            elif block.get("type") == "tool_use":
                calls.append(
                    tool_call(str(block["id"]), str(block["name"]), block.get("input") or {})
                )
        finish = FINISH.get(data.get("stop_reason"), "stop")
        message = assistant_message("".join(text), calls)
        cid = str(data.get("id") or completion_id())
        return completion(
            cid, str(data.get("model") or model), message, finish, usage_of(data.get("usage") or {})
        )

    def stream(self, model: str, include_usage: bool) -> AnthropicStream:
        return AnthropicStream(model, include_usage)

    def error(self, status: int, body: bytes) -> str:
        return error_message(status, body)


ADAPTER = AnthropicAdapter()
