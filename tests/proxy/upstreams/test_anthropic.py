"""The Anthropic adapter: OpenAI requests, replies and streams translated to and from Messages."""

import json

import httpx
import pytest

from proxy.sse import SSEParser
from proxy.upstreams import Target, UpstreamStreamError
from proxy.upstreams.anthropic import ADAPTER, CONTINUATION, DEFAULT_MAX_TOKENS
from tests.proxy.upstreams.chunks import assemble, translate

TARGET = Target(kind="anthropic", base_url="https://api.anthropic.com/v1", api_key="sk-ant-test")
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
TOOL_TURN = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris and Tokyo?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            },
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Tokyo"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_a", "content": "18 C"},
    {"role": "tool", "tool_call_id": "call_b", "content": [{"type": "text", "text": "25 C"}]},
    {"role": "user", "content": "Which is warmer?"},
]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


def translated(**body) -> dict:
    return ADAPTER.request({"model": "claude-sonnet-4-5", **body}, TARGET, stream=False).json


def test_the_request_goes_to_messages_with_anthropic_headers():
    request = ADAPTER.request({"model": "claude-x", "messages": []}, TARGET, stream=True)
    assert request.url == "https://api.anthropic.com/v1/messages"
    assert request.headers["x-api-key"] == "sk-ant-test"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.json["stream"] is True and request.json["model"] == "claude-x"


def test_every_system_message_moves_to_the_top_level_system():
    messages = [
        {"role": "system", "content": "Rule one."},
        {"role": "user", "content": "hi"},
        {"role": "developer", "content": [{"type": "text", "text": "Rule two."}]},
        {
            "role": "system",
            "content": [{"type": "text", "text": "Rule"}, {"type": "text", "text": " three."}],
        },
    ]
    body = translated(messages=messages)
    assert body["system"] == "Rule one.\n\nRule two.\n\nRule three."
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def test_parallel_tool_results_merge_into_the_one_user_message_after_the_tool_use():
    body = translated(messages=TOOL_TURN)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    uses = body["messages"][1]["content"]
    assert uses == [
        {"type": "tool_use", "id": "call_a", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "call_b", "name": "get_weather", "input": {"city": "Tokyo"}},
    ]
    results = body["messages"][2]["content"]
    assert results == [
        {"type": "tool_result", "tool_use_id": "call_a", "content": "18 C"},
        {
            "type": "tool_result",
            "tool_use_id": "call_b",
            "content": [{"type": "text", "text": "25 C"}],
        },
        {"type": "text", "text": "Which is warmer?"},
    ]


def test_tool_results_come_first_even_when_a_user_message_came_before_them():
    messages = [*TOOL_TURN[1:3], {"role": "user", "content": "(while you wait)"}, *TOOL_TURN[3:5]]
    content = translated(messages=messages)["messages"][2]["content"]
    assert [b["type"] for b in content] == ["tool_result", "tool_result", "text"]


def test_malformed_tool_arguments_become_empty_input_with_the_raw_text_kept_in_view():
    call = {"id": "call_x", "type": "function", "function": {"name": "f", "arguments": '{"a": 1'}}
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": [call]}]
    content = translated(messages=messages)["messages"][1]["content"]
    assert content[-1] == {"type": "tool_use", "id": "call_x", "name": "f", "input": {}}
    assert content[0]["type"] == "text" and '{"a": 1' in content[0]["text"]


def test_tool_ids_outside_anthropics_alphabet_are_made_safe_on_both_sides():
    call = {"id": "functions.f:0", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "functions.f:0", "content": "ok"},
    ]
    turns = translated(messages=messages)["messages"]
    assert turns[1]["content"][0]["id"] == turns[2]["content"][0]["tool_use_id"] == "functions_f_0"


def test_images_become_base64_or_url_image_blocks():
    content = [
        {"type": "text", "text": "Compare these."},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg", "detail": "low"}},
    ]
    blocks = translated(messages=[{"role": "user", "content": content}])["messages"][0]["content"]
    assert blocks[1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
    }
    assert blocks[2] == {
        "type": "image",
        "source": {"type": "url", "url": "https://example.com/cat.jpg"},
    }


def test_consecutive_same_role_messages_merge_and_the_first_turn_is_the_users():
    messages = [
        {"role": "assistant", "content": "Earlier summary."},
        {"role": "user", "content": "one"},
        {"role": "user", "content": "two"},
    ]
    turns = translated(messages=messages)["messages"]
    assert turns[0] == {"role": "user", "content": [{"type": "text", "text": CONTINUATION}]}
    assert turns[2]["content"] == [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]


def test_tools_become_input_schemas():
    body = translated(messages=TOOL_TURN, tools=[WEATHER_TOOL])
    assert body["tools"] == [
        {
            "name": "get_weather",
            "description": "Current weather",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ]
    assert "tool_choice" not in body


@pytest.mark.parametrize(
    "choice, parallel, expected",
    [
        ("auto", None, {"type": "auto"}),
        ("none", None, {"type": "none"}),
        ("required", None, {"type": "any"}),
        (
            {"type": "function", "function": {"name": "get_weather"}},
            None,
            {"type": "tool", "name": "get_weather"},
        ),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
    ],
)
def test_tool_choice_translates(choice, parallel, expected):
    extra = {"tool_choice": choice} if choice else {}
    if parallel is not None:
        extra["parallel_tool_calls"] = parallel
    assert translated(messages=TOOL_TURN, tools=[WEATHER_TOOL], **extra)["tool_choice"] == expected


def test_max_tokens_default_sampling_and_stops_translate_and_extras_are_dropped():
    body = translated(
        messages=TOOL_TURN, temperature=1.7, top_p=0.9, stop="END", seed=3, n=1, logprobs=True
    )
    assert body["max_tokens"] == DEFAULT_MAX_TOKENS
    assert (body["temperature"], body["top_p"], body["stop_sequences"]) == (1.0, 0.9, ["END"])
    assert not {"seed", "n", "logprobs", "stop", "stream_options"} & set(body)
    body = translated(messages=TOOL_TURN, max_completion_tokens=100, max_tokens=5, stop=["a", "b"])
    assert (body["max_tokens"], body["stop_sequences"]) == (100, ["a", "b"])


def test_a_json_response_format_becomes_a_system_instruction():
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    fmt = {"type": "json_schema", "json_schema": {"name": "a", "schema": schema}}
    system = translated(messages=TOOL_TURN, response_format=fmt)["system"]
    assert system.startswith("You are terse.\n\n") and "JSON" in system and '"answer"' in system
    assert "response_format" not in translated(messages=TOOL_TURN, response_format=fmt)


def test_a_reply_with_text_and_tool_use_becomes_an_openai_completion():
    message = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [
            {"type": "text", "text": "Checking."},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_weather",
                "input": {"city": "Paris"},
            },
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "cache_read_input_tokens": 100, "output_tokens": 7},
    }
    reply = ADAPTER.response(message, "claude-sonnet-4-5")
    assert reply["object"] == "chat.completion" and reply["model"] == "claude-sonnet-4-5-20250929"
    choice = reply["choices"][0]
    assert choice["finish_reason"] == "tool_calls" and choice["message"]["content"] == "Checking."
    call = choice["message"]["tool_calls"][0]
    assert call == {
        "id": "toolu_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    assert reply["usage"]["prompt_tokens"] == 120 and reply["usage"]["total_tokens"] == 127
    assert reply["usage"]["prompt_tokens_details"] == {"cached_tokens": 100}


@pytest.mark.parametrize(
    "stop_reason, finish",
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool_calls"),
    ],
)
def test_stop_reasons_map_to_finish_reasons(stop_reason, finish):
    message = {"content": [{"type": "text", "text": "x"}], "stop_reason": stop_reason, "usage": {}}
    assert ADAPTER.response(message, "claude")["choices"][0]["finish_reason"] == finish


def sse_events(*events: dict) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def block_delta(index: int, kind: str, **delta) -> dict:
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, **delta}}


RECORDED = sse_events(
    {
        "type": "message_start",
        "message": {
            "id": "msg_01XYZ",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 472, "output_tokens": 2},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "ping"},
    block_delta(0, "text_delta", text="Let me "),
    block_delta(0, "text_delta", text="check both."),
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_A", "name": "get_weather", "input": {}},
    },
    block_delta(1, "input_json_delta", partial_json=""),
    block_delta(1, "input_json_delta", partial_json='{"city": "Pa'),
    block_delta(1, "input_json_delta", partial_json='ris"}'),
    {"type": "content_block_stop", "index": 1},
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "tool_use", "id": "toolu_B", "name": "get_time", "input": {}},
    },
    block_delta(2, "input_json_delta", partial_json='{"city": "Tokyo"}'),
    {"type": "content_block_stop", "index": 2},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 89},
    },
    {"type": "message_stop"},
)


def test_a_recorded_stream_with_parallel_tool_use_becomes_openai_chunks():
    chunks = translate(ADAPTER.stream("claude-sonnet-4-5", include_usage=True), RECORDED)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    reply = assemble(chunks)
    assert reply["content"] == "Let me check both."
    assert reply["tool_calls"] == [
        {"id": "toolu_A", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"id": "toolu_B", "name": "get_time", "arguments": {"city": "Tokyo"}},
    ]
    assert reply["finish"] == "tool_calls"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"] == {
        "prompt_tokens": 472,
        "completion_tokens": 89,
        "total_tokens": 561,
    }
    assert all("usage" in c for c in chunks)  # null on each chunk but the last, as OpenAI does


def test_tool_call_deltas_look_like_openais():
    chunks = translate(ADAPTER.stream("claude", include_usage=False), RECORDED)
    calls = [
        c["choices"][0]["delta"]["tool_calls"][0]
        for c in chunks
        if c["choices"][0]["delta"].get("tool_calls")
    ]
    assert calls[0] == {
        "index": 0,
        "id": "toolu_A",
        "type": "function",
        "function": {"name": "get_weather", "arguments": ""},
    }
    assert calls[1] == {"index": 0, "function": {"arguments": '{"city": "Pa'}}
    assert [c["index"] for c in calls] == [0, 0, 0, 1, 1]
    assert "usage" not in chunks[-1] and chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_a_tool_without_parameters_still_gets_an_arguments_object():
    raw = sse_events(
        {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 1}}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "now", "input": {}},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 3},
        },
        {"type": "message_stop"},
    )
    assert (
        assemble(translate(ADAPTER.stream("claude", False), raw))["tool_calls"][0]["arguments"]
        == {}
    )


def test_an_error_event_mid_stream_raises_with_the_providers_message():
    translator = ADAPTER.stream("claude", include_usage=False)
    translator.feed("message_start", json.dumps({"type": "message_start", "message": {"id": "m"}}))
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    with pytest.raises(UpstreamStreamError, match="Overloaded"):
        translator.feed("error", json.dumps(error))


def test_an_event_that_is_not_json_raises_a_stream_error():
    with pytest.raises(UpstreamStreamError, match="not JSON"):
        ADAPTER.stream("claude", include_usage=False).feed("message_start", "{broken")


def test_the_error_message_is_the_providers_own():
    body = (
        b'{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too big"}}'
    )
    assert ADAPTER.error(400, body) == "max_tokens: too big"
    assert ADAPTER.error(502, b"<html>Bad gateway</html>") == "<html>Bad gateway</html>"


def loopback_target(upstream) -> Target:
    return Target(kind="anthropic", base_url=f"{upstream.url}/v1", api_key="k")


def test_a_translated_tool_round_trip_is_accepted_by_the_loopback_anthropic(upstream):
    upstream.reset()
    request = ADAPTER.request(
        {"model": "claude-echo", "messages": TOOL_TURN, "tools": [WEATHER_TOOL]},
        loopback_target(upstream),
        stream=False,
    )
    response = httpx.post(request.url, json=request.json, headers=request.headers)
    assert response.status_code == 200, response.text
    reply = ADAPTER.response(response.json(), "claude-echo")
    assert reply["choices"][0]["message"]["content"] == "echo: 3 messages; last: Which is warmer?"
    assert upstream.requests[-1]["headers"]["x-api-key"] == "k"


def test_a_loopback_anthropic_stream_translates_into_two_tool_calls(upstream):
    upstream.reset()
    body = {
        "model": "claude-tools",
        "messages": TOOL_TURN[:2],
        "tools": [WEATHER_TOOL],
        "stream": True,
    }
    request = ADAPTER.request(body, loopback_target(upstream), stream=True)
    translator, parser, chunks = ADAPTER.stream("claude-tools", include_usage=True), SSEParser(), []
    with httpx.stream("POST", request.url, json=request.json, headers=request.headers) as response:
        for raw in response.iter_raw():
            for event in parser.feed(raw):
                chunks.extend(translator.feed(event.event, event.data))
    reply = assemble(chunks + translator.finish())
    assert [c["name"] for c in reply["tool_calls"]] == ["get_weather", "get_weather"]
    assert reply["finish"] == "tool_calls" and reply["usage"]["prompt_tokens"] > 0


def test_cache_control_on_a_part_is_kept_for_prompt_caching():
    part = {"type": "text", "text": "A long document.", "cache_control": {"type": "ephemeral"}}
    block = translated(messages=[{"role": "user", "content": [part]}])["messages"][0]["content"][0]
    assert block == {
        "type": "text",
        "text": "A long document.",
        "cache_control": {"type": "ephemeral"},
    }


def test_thinking_blocks_stay_out_of_the_streamed_answer():
    raw = sse_events(
        {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 5}}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": ""},
        },
        block_delta(0, "thinking_delta", thinking="Let me think."),
        block_delta(0, "signature_delta", signature="EqQBCgIYAhIM"),
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        block_delta(1, "text_delta", text="42"),
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    )
    reply = assemble(translate(ADAPTER.stream("claude", include_usage=False), raw))
    assert (reply["content"], reply["tool_calls"], reply["finish"]) == ("42", [], "stop")
