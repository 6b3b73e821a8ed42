"""Parsing upstream SSE in arbitrary chunks, and reassembling a streamed reply."""

import json

from proxy.replies import ReplyAssembler
from proxy.sse import SSEParser

STREAM = (
    b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}\n\n'
    b": keep-alive comment\n\n"
    b'data: {"choices":[{"index":0,"delta":{"content":"lo"}}]}\r\n\r\n'
    b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"read","arguments":"{\\"pa"}}]}}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\\": 1}"}}]}}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"completion_tokens":5}}\n\n'
    b"data: [DONE]\n\n"
)


def parse_in_pieces(size: int) -> list:
    parser = SSEParser()
    events = []
    for start in range(0, len(STREAM), size):
        events += parser.feed(STREAM[start : start + size])
    return events


def test_events_are_the_same_whatever_the_chunking():
    whole = parse_in_pieces(len(STREAM))
    assert [e.data for e in whole][-1] == "[DONE]" and len(whole) == 6
    assert parse_in_pieces(1) == whole and parse_in_pieces(7) == whole


def test_the_reply_is_reassembled_with_its_tool_calls():
    assembler = ReplyAssembler()
    for event in parse_in_pieces(13)[:-1]:
        assembler.feed(json.loads(event.data))
    reply = assembler.message()
    assert reply["content"] == "Hello"
    assert reply["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path": 1}'}}
    ]
    assert assembler.finish_reason == "tool_calls" and assembler.usage == {"completion_tokens": 5}
