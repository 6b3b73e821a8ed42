"""Anthropic's Messages wire format, as the loopback provider speaks it."""

from __future__ import annotations

import json
from typing import Any

from proxy.loopback.replies import Prompt, Reply, event, halves, plain_text

Scope = dict[str, Any]


class AnthropicWire:
    """POST /v1/messages."""

    def model(self, body: dict[str, Any], scope: Scope) -> str:
        return str(body.get("model") or "echo")

    def wants_stream(self, body: dict[str, Any], scope: Scope) -> bool:
        return bool(body.get("stream"))

    def prompt(self, body: dict[str, Any]) -> Prompt:
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        users = [m for m in messages if m.get("role") == "user" and plain_text(m.get("content"))]
        last = messages[-1].get("content") if messages else None
        system = plain_text(body.get("system"))
        counted = ([{"role": "system", "content": system}] if system else []) + messages
        return Prompt(
            count=len(messages),
            last_user=plain_text(users[-1].get("content")) if users else "",
            tool_names=[str(t.get("name")) for t in body.get("tools") or []],
            answered_tools=isinstance(last, list) and any(_is(b, "tool_result") for b in last),
            messages=[{"role": m.get("role"), "content": m.get("content")} for m in counted],
        )

    def invalid(self, body: dict[str, Any], headers: dict[str, str]) -> str | None:
        if not headers.get("anthropic-version"):
            return "anthropic-version: header is required"
        if not isinstance(body.get("max_tokens"), int):
            return "max_tokens: Field required"
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return "messages: at least one message is required"
        for i, message in enumerate(messages):
            problem = self._invalid_message(messages, i, message)
            if problem:
                return problem
        return None

    def _invalid_message(self, messages: list, i: int, message: Any) -> str | None:
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        blocks = _blocks(message.get("content"))
        if not blocks and i < len(messages) - 1:
            return f"messages.{i}: all messages must have non-empty content"
        if any(_is(b, "text") and not b.get("text") for b in blocks):
            return "messages: text content blocks must be non-empty"
        uses = {b.get("id") for b in blocks if _is(b, "tool_use")}
        following = _blocks(messages[i + 1].get("content")) if i + 1 < len(messages) else []
        missing = uses - {b.get("tool_use_id") for b in following if _is(b, "tool_result")}
        if missing:
            return (
                f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
                f"after: {', '.join(sorted(map(str, missing)))}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message."
            )
        previous = _blocks(messages[i - 1].get("content")) if i else []
        offered = {b.get("id") for b in previous if _is(b, "tool_use")}
        for j, block in enumerate(blocks):
            if _is(block, "tool_result") and block.get("tool_use_id") not in offered:
                return (
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` "
                    f"blocks: {block.get('tool_use_id')}. Each `tool_result` block must have a "
                    "corresponding `tool_use` block in the previous message."
                )
        return None

    def error(self, status: int) -> dict[str, Any]:
        if status == 429:
            return self.bad_request(
                "Number of requests has exceeded your rate limit.", "rate_limit_error"
            )
        if status == 400:
            return self.bad_request("There was an issue with the format of your request.")
        return self.bad_request("Internal server error", "api_error")

    def bad_request(self, message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
        return {"type": "error", "error": {"type": kind, "message": message}}

    def _content(self, reply: Reply) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
        for i, call in enumerate(reply.calls):
            tool_id = f"toolu_loopback_{reply.seq}_{i}"
            content.append(
                {"type": "tool_use", "id": tool_id, "name": call.name, "input": call.arguments}
            )
        return content

    def message(self, reply: Reply, model: str) -> dict[str, Any]:
        return {
            "id": f"msg_loopback_{reply.seq}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": self._content(reply),
            "stop_reason": "tool_use" if reply.calls else "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": reply.prompt_tokens,
                "output_tokens": reply.completion_tokens,
            },
        }

    def frames(self, reply: Reply, model: str, body: dict[str, Any]) -> list[bytes]:
        start = {**self.message(reply, model), "content": [], "stop_reason": None}
        start["usage"] = {"input_tokens": reply.prompt_tokens, "output_tokens": 1}
        out = [event("message_start", {"type": "message_start", "message": start})]
        index = 0
        if reply.pieces:
            out += self._text_block(index, reply.pieces)
            index += 1
        for i, block in enumerate(b for b in self._content(reply) if b["type"] == "tool_use"):
            out += self._tool_block(index + i, block)
        delta = {"stop_reason": "tool_use" if reply.calls else "end_turn", "stop_sequence": None}
        usage = {"output_tokens": reply.completion_tokens}
        out.append(
            event("message_delta", {"type": "message_delta", "delta": delta, "usage": usage})
        )
        return [*out, event("message_stop", {"type": "message_stop"})]

    def _text_block(self, index: int, pieces: list[str]) -> list[bytes]:
        block = {"type": "text", "text": ""}
        out = [
            event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": block},
            )
        ]
        out.append(event("ping", {"type": "ping"}))
        for piece in pieces:
            delta = {"type": "text_delta", "text": piece}
            out.append(
                event(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        return [*out, event("content_block_stop", {"type": "content_block_stop", "index": index})]

    def _tool_block(self, index: int, block: dict[str, Any]) -> list[bytes]:
        opened = {**block, "input": {}}
        out = [
            event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opened},
            )
        ]
        for fragment in ["", *halves(json.dumps(block["input"]))]:
            delta = {"type": "input_json_delta", "partial_json": fragment}
            out.append(
                event(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        return [*out, event("content_block_stop", {"type": "content_block_stop", "index": index})]

    def stream_error(self) -> bytes:
        return event("error", self.bad_request("Overloaded", "overloaded_error"))


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [b for b in content or [] if isinstance(b, dict)]


def _is(block: Any, kind: str) -> bool:
    return isinstance(block, dict) and block.get("type") == kind
