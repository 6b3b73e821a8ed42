"""OpenAI chat shapes the translating adapters read and build: content parts, data URLs, chunks."""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any

from proxy.upstreams import UpstreamStreamError
from proxy.upstreams.openai import ADAPTER as OPENAI

_DATA_URL = re.compile(
    r"^data:(?P<type>[\w.+-]+/[\w.+-]+)?(?:;[^,;]*)*?;base64,(?P<data>.*)$", re.S
)
SYSTEM_ROLES = ("system", "developer")


def parts_of(content: Any) -> list[dict[str, Any]]:
    """A message's content as a list of OpenAI content parts (a plain string is one text part)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if isinstance(content, dict):
        content = [content]
    parts = []
    for part in content if isinstance(content, list) else [str(content)]:
        if isinstance(part, str):
            parts.append({"type": "text", "text": part})
        elif isinstance(part, dict):
            parts.append(part)
    return parts


def text_of(content: Any) -> str:
    """The text of a message's content, parts joined; images and other media are left out."""
    texts = []
    for part in parts_of(content):
        if part.get("type") in ("text", "input_text", "output_text", None) and "text" in part:
            texts.append(str(part.get("text") or ""))
        elif part.get("type") == "refusal":
            texts.append(str(part.get("refusal") or ""))
    return "".join(texts)


def image_url_of(part: dict[str, Any]) -> str:
    image = part.get("image_url")
    return str(image.get("url") or "") if isinstance(image, dict) else str(image or "")


def data_url(url: str) -> tuple[str, str] | None:
    """(media type, base64 payload) of a ``data:…;base64,…`` URL, else None."""
    match = _DATA_URL.match(url)
    if not match:
        return None
    return match.group("type") or "application/octet-stream", match.group("data")


def parse_arguments(raw: Any) -> dict[str, Any] | None:
    """A tool call's arguments as an object; None when they are not a JSON object."""
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def system_text(messages: list[dict[str, Any]]) -> str:
    """Every system (and developer) message's text, in order, one paragraph each."""
    texts = [text_of(m.get("content")) for m in messages if m.get("role") in SYSTEM_ROLES]
    return "\n\n".join(t for t in texts if t)


def json_instruction(response_format: Any) -> str:
    """A system instruction standing in for ``response_format`` where nothing native exists."""
    if not isinstance(response_format, dict):
        return ""
    if response_format.get("type") == "json_object":
        return "Respond with a single valid JSON object and nothing else: no prose, no code fences."
    spec = response_format.get("json_schema")
    if response_format.get("type") == "json_schema" and isinstance(spec, dict):
        schema = json.dumps(spec.get("schema") or {}, separators=(",", ":"))
        return (
            "Respond with a single valid JSON value and nothing else (no prose, no code fences) "
            f"that conforms to this JSON Schema: {schema}"
        )
    return ""


def stop_list(stop: Any) -> list[str]:
    if isinstance(stop, str):
        return [stop] if stop else []
    return [s for s in stop or [] if isinstance(s, str) and s]


def max_tokens_of(body: dict[str, Any]) -> int | None:
    value = body.get("max_completion_tokens") or body.get("max_tokens")
    return int(value) if isinstance(value, int | float) and value > 0 else None


def usage(prompt: int, completion: int, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    """OpenAI's usage object."""
    result: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if cached:
        result["prompt_tokens_details"] = {"cached_tokens": cached}
    if reasoning:
        result["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return result


def completion_id(upstream_id: Any = None) -> str:
    return f"chatcmpl-{upstream_id or uuid.uuid4().hex}"


def completion(
    cid: str, model: str, message: dict[str, Any], finish: str | None, use: dict[str, Any] | None
) -> dict[str, Any]:
    """A whole OpenAI ``chat.completion`` with one choice."""
    result: dict[str, Any] = {
        "id": cid,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
    }
    if use is not None:
        result["usage"] = use
    return result


def assistant_message(text: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """OpenAI's assistant message: content is null when the reply is only tool calls."""
    message: dict[str, Any] = {"role": "assistant", "content": text if text or not calls else None}
    message["refusal"] = None
    if calls:
        message["tool_calls"] = calls
    return message


def tool_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


class ChunkWriter:
    """Builds the ``chat.completion.chunk`` objects of one stream, as OpenAI shapes them."""

    def __init__(self, model: str, include_usage: bool) -> None:
        self.id = completion_id()
        self.model = model
        self.include_usage = include_usage
        self.created = int(time.time())

    def chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        result = self._base([choice])
        if self.include_usage:
            result["usage"] = None  # OpenAI sends an explicit null on every chunk but the last
        return result

    def usage_chunk(self, use: dict[str, Any]) -> dict[str, Any]:
        return {**self._base([]), "usage": use}

    def _base(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": choices,
        }


def event_payload(data: str, provider: str) -> dict[str, Any] | None:
    """One SSE event's JSON object; None for a keep-alive; UpstreamStreamError if malformed."""
    if not data.strip():
        return None
    try:
        payload = json.loads(data)
    except ValueError:
        raise UpstreamStreamError(
            f"{provider} sent an event that is not JSON: {data[:200]}"
        ) from None
    if not isinstance(payload, dict):
        raise UpstreamStreamError(f"{provider} sent an unexpected event: {data[:200]}")
    return payload


def error_message(status: int, body: bytes) -> str:
    """The provider's own message from an error body: {"error": {"message": …}} and kin."""
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, list) and data and isinstance(data[0], dict):  # Gemini's array form
        body = json.dumps(data[0]).encode()
    return OPENAI.error(status, body)
