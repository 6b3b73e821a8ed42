"""Reassembling the assistant's reply from streamed chunks, so it is recorded like a whole message."""

from __future__ import annotations

from typing import Any


class ReplyAssembler:
    """Feed it OpenAI chat.completion.chunk objects; ``message()`` is the reply they spell."""

    def __init__(self) -> None:
        self.content: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.usage: dict[str, Any] | None = None
        self.finish_reason: str | None = None
        self.first_token = False

    def feed(self, chunk: Any) -> None:
        if not isinstance(chunk, dict):
            return
        if isinstance(chunk.get("usage"), dict):
            self.usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            self.finish_reason = choice.get("finish_reason") or self.finish_reason
            self._delta(choice.get("delta") or {})

    def _delta(self, delta: dict[str, Any]) -> None:
        if isinstance(delta.get("content"), str) and delta["content"]:
            self.content.append(delta["content"])
            self.first_token = True
        for call in delta.get("tool_calls") or []:
            self.first_token = True
            slot = self.calls.setdefault(
                call.get("index", len(self.calls)),
                {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
            )
            slot["id"] = call.get("id") or slot["id"]
            function = call.get("function") or {}
            slot["function"]["name"] += function.get("name") or ""
            slot["function"]["arguments"] += function.get("arguments") or ""

    def message(self) -> dict[str, Any]:
        reply: dict[str, Any] = {"role": "assistant", "content": "".join(self.content) or None}
        if self.calls:
            reply["tool_calls"] = [self.calls[i] for i in sorted(self.calls)]
        return reply


def reply_of(completion: Any) -> dict[str, Any] | None:
    """The assistant message of a non-streamed chat.completion, if it has one."""
    try:
        message = completion["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return None
    reply = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        reply["tool_calls"] = message["tool_calls"]
    return reply
