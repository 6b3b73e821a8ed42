"""Test helpers: feeding recorded SSE bytes to a translator, and reassembling its OpenAI chunks."""

from __future__ import annotations

import json
from typing import Any

from proxy.sse import SSEParser
from proxy.upstreams import StreamTranslator


def translate(translator: StreamTranslator, raw: bytes, step: int = 7) -> list[dict]:
    """The chunks a translator makes of a recorded stream, fed in awkward slices like a socket."""
    parser, chunks = SSEParser(), []
    for start in range(0, len(raw), step):
        for event in parser.feed(raw[start : start + step]):
            chunks.extend(translator.feed(event.event, event.data))
    return chunks + translator.finish()


def assemble(chunks: list[dict]) -> dict[str, Any]:
    """Content, tool calls (arguments parsed), finish reason and usage, as an OpenAI client sees."""
    content, calls, finish, usage = "", {}, None, None
    for chunk in chunks:
        assert chunk["object"] == "chat.completion.chunk" and chunk["id"] == chunks[0]["id"]
        usage = chunk.get("usage") or usage
        for choice in chunk["choices"]:
            finish = choice["finish_reason"] or finish
            delta = choice["delta"]
            content += delta.get("content") or ""
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(call["index"], {"id": "", "name": "", "arguments": ""})
                slot["id"] += call.get("id") or ""
                slot["name"] += (call.get("function") or {}).get("name") or ""
                slot["arguments"] += (call.get("function") or {}).get("arguments") or ""
    tool_calls = [
        {**calls[i], "arguments": json.loads(calls[i]["arguments"])} for i in sorted(calls)
    ]
    return {"content": content, "tool_calls": tool_calls, "finish": finish, "usage": usage}
