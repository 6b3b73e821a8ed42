"""Reading a chat completion request: the JSON body, its required fields and their types."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from proxy.errors import ProxyError

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})


@dataclass(frozen=True)
class ChatRequest:
    body: dict[str, Any]  # forwarded as it is, less our own fields
    model: str
    messages: list[dict[str, Any]]
    stream: bool
    include_usage: bool
    session_id: str | None
    raw: bytes | None = None  # the body as it came, when it holds none of our own fields


def _bad(message: str, param: str, code: str = "invalid_value") -> ProxyError:
    return ProxyError(400, message, code=code, param=param)


def _check_message(index: int, message: Any) -> None:
    where = f"messages[{index}]"
    if not isinstance(message, dict):
        raise _bad(f"{where} must be an object with a 'role'.", where, "invalid_type")
    role = message.get("role")
    if role not in ROLES:
        raise _bad(
            f"{where}.role must be one of {', '.join(sorted(ROLES))}; got {role!r}.",
            f"{where}.role",
        )
    content = message.get("content")
    if content is not None and not isinstance(content, str | list):
        raise _bad(
            f"{where}.content must be a string, an array of parts, or null.",
            f"{where}.content",
            "invalid_type",
        )
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise _bad(f"{where}.tool_calls must be an array.", f"{where}.tool_calls", "invalid_type")


def parse_chat_request(raw: bytes, header_session: str | None) -> ChatRequest:
    """The request, or a ProxyError (400) naming the field that is wrong."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise ProxyError(
            400, f"The request body is not valid JSON ({error}).", code="invalid_json"
        ) from None
    if not isinstance(body, dict):
        raise ProxyError(400, "The request body must be a JSON object.", code="invalid_json")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise _bad(
            "'model' is required and must be a non-empty string.",
            "model",
            "missing_required_parameter",
        )
    messages = body.get("messages")
    if messages is None:
        raise _bad("'messages' is required.", "messages", "missing_required_parameter")
    if not isinstance(messages, list) or not messages:
        raise _bad("'messages' must be a non-empty array.", "messages", "invalid_type")
    for index, message in enumerate(messages):
        _check_message(index, message)
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise _bad("'stream' must be a boolean.", "stream", "invalid_type")
    options = body.get("stream_options") or {}
    if not isinstance(options, dict):
        raise _bad("'stream_options' must be an object.", "stream_options", "invalid_type")
    ours = "session_id" in body
    session_id = body.pop("session_id", None) or header_session
    if session_id is not None and (
        not isinstance(session_id, str) or not 0 < len(session_id) <= 200
    ):
        raise _bad(
            "'session_id' must be a string of 1 to 200 characters.", "session_id", "invalid_type"
        )
    return ChatRequest(
        body,
        model,
        messages,
        stream,
        bool(options.get("include_usage")),
        session_id,
        None if ours else raw,
    )
