"""The Gemini adapter: OpenAI requests, replies and streams translated to and from Gemini's."""

import json

import httpx
import pytest

from proxy.sse import SSEParser
from proxy.upstreams import Target, UpstreamStreamError
from proxy.upstreams.gemini import ADAPTER, PLACEHOLDER_SIGNATURE, gemini_schema
from tests.proxy.upstreams.chunks import assemble, translate

BASE = "https://generativelanguage.googleapis.com/v1beta"
TARGET = Target(kind="gemini", base_url=BASE, api_key="AIza-test")
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"


def call(call_id: str, name: str, arguments: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


TOOL_TURN = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris, and the time in Tokyo?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            call("call_0", "get_weather", '{"city": "Paris"}'),
            call("call_1", "get_time", '{"city": "Tokyo"}'),
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"time": "21:00"}'},
    {"role": "tool", "tool_call_id": "call_0", "content": "18 C and sunny"},
]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": ["string", "null"]}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}


def translated(**body) -> dict:
    return ADAPTER.request({"model": "gemini-2.5-flash", **body}, TARGET, stream=False).json


def test_urls_and_key_header_for_plain_and_streamed_requests():
    plain = ADAPTER.request({"model": "models/gemini-2.5-flash", "messages": []}, TARGET, False)
    assert plain.url == f"{BASE}/models/gemini-2.5-flash:generateContent"
    assert plain.headers["x-goog-api-key"] == "AIza-test"
    streamed = ADAPTER.request({"model": "gemini-2.5-flash", "messages": []}, TARGET, True)
    assert streamed.url == f"{BASE}/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert "model" not in streamed.json and "stream" not in streamed.json


def test_system_messages_become_the_system_instruction_and_roles_user_and_model():
    body = translated(messages=TOOL_TURN)
    assert body["systemInstruction"] == {"parts": [{"text": "You are terse."}]}
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    assert body["contents"][1]["parts"] == [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
        {"functionCall": {"name": "get_time", "args": {"city": "Tokyo"}}},
    ]


def test_tool_results_are_named_after_their_calls_and_merged_into_one_turn():
    responses = translated(messages=TOOL_TURN)["contents"][2]["parts"]
    assert responses == [
        {"functionResponse": {"name": "get_time", "response": {"time": "21:00"}}},
        {"functionResponse": {"name": "get_weather", "response": {"output": "18 C and sunny"}}},
    ]


def test_a_reused_tool_call_id_maps_to_the_latest_call():
    later = [
        {"role": "user", "content": "Again for Rome."},
        {"role": "assistant", "tool_calls": [call("call_0", "get_forecast", '{"city": "Rome"}')]},
        {"role": "tool", "tool_call_id": "call_0", "content": "rain"},
    ]
    contents = translated(messages=[*TOOL_TURN, *later])["contents"]
    assert contents[-1]["parts"][0]["functionResponse"]["name"] == "get_forecast"


def test_images_become_inline_data_and_urls_file_data():
    content = [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
    ]
    parts = translated(messages=[{"role": "user", "content": content}])["contents"][0]["parts"]
    assert parts[1] == {"inlineData": {"mimeType": "image/png", "data": PNG}}
    assert parts[2] == {
        "fileData": {"mimeType": "image/jpeg", "fileUri": "https://example.com/cat.jpg"}
    }


def test_tools_become_function_declarations_with_a_schema_gemini_accepts():
    no_params = {
        "type": "function",
        "function": {"name": "now", "parameters": {"type": "object", "properties": {}}},
    }
    body = translated(messages=TOOL_TURN, tools=[WEATHER_TOOL, no_params])
    weather, now = body["tools"][0]["functionDeclarations"]
    assert weather == {
        "name": "get_weather",
        "description": "Current weather",
        "parameters": {
            "type": "OBJECT",
            "properties": {
                "city": {"type": "STRING"},
                "unit": {"type": "STRING", "nullable": True},
            },
            "required": ["city"],
        },
    }
    assert now == {"name": "now"}  # an OBJECT without properties is refused, so no parameters


def test_local_refs_are_inlined_and_unsupported_keywords_dropped():
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "Point": {"type": "object", "properties": {"x": {"type": "number", "default": 0}}}
        },
        "properties": {
            "at": {"$ref": "#/$defs/Point"},
            "site": {"type": "string", "format": "uri"},
            "kind": {"const": "a"},
        },
    }
    assert gemini_schema(schema) == {
        "type": "OBJECT",
        "properties": {
            "at": {"type": "OBJECT", "properties": {"x": {"type": "NUMBER"}}},
            "site": {"type": "STRING"},
            "kind": {"enum": ["a"]},
        },
    }


@pytest.mark.parametrize(
    "choice, config",
    [
        ("auto", {"mode": "AUTO"}),
        ("none", {"mode": "NONE"}),
        ("required", {"mode": "ANY"}),
        (
            {"type": "function", "function": {"name": "get_weather"}},
            {"mode": "ANY", "allowedFunctionNames": ["get_weather"]},
        ),
    ],
)
def test_tool_choice_becomes_a_function_calling_config(choice, config):
    body = translated(messages=TOOL_TURN, tools=[WEATHER_TOOL], tool_choice=choice)
    assert body["toolConfig"] == {"functionCallingConfig": config}


def test_generation_config_carries_sampling_limits_stops_and_json_output():
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    body = translated(
        messages=TOOL_TURN,
        temperature=0.2,
        top_p=0.8,
        max_completion_tokens=256,
        stop=["a", "b", "c", "d", "e", "f"],
        response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": schema}},
        logprobs=True,
    )
    assert body["generationConfig"] == {
        "temperature": 0.2,
        "topP": 0.8,
        "maxOutputTokens": 256,
        "stopSequences": ["a", "b", "c", "d", "e"],
        "responseMimeType": "application/json",
        "responseSchema": {"type": "OBJECT", "properties": {"answer": {"type": "STRING"}}},
    }
    assert "logprobs" not in body and "response_format" not in body


def test_gemini_3_replayed_calls_carry_the_placeholder_thought_signature():
    body = ADAPTER.request(
        {"model": "gemini-3-pro-preview", "messages": TOOL_TURN}, TARGET, False
    ).json
    first, second = body["contents"][1]["parts"]
    assert first["thoughtSignature"] == PLACEHOLDER_SIGNATURE and "thoughtSignature" not in second
    assert "thoughtSignature" not in json.dumps(translated(messages=TOOL_TURN))


def test_a_reply_with_text_and_function_calls_becomes_an_openai_completion():
    data = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Thinking it over", "thought": True},
                        {"text": "Checking."},
                        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
                        {"functionCall": {"name": "get_time", "args": {"city": "Tokyo"}}},
                    ],
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 40,
            "candidatesTokenCount": 10,
            "thoughtsTokenCount": 5,
            "totalTokenCount": 55,
        },
        "modelVersion": "gemini-2.5-flash",
        "responseId": "resp-1",
    }
    reply = ADAPTER.response(data, "gemini-2.5-flash")
    choice = reply["choices"][0]
    assert choice["finish_reason"] == "tool_calls" and choice["message"]["content"] == "Checking."
    calls = choice["message"]["tool_calls"]
    assert [c["id"] for c in calls] == ["call_0", "call_1"]
    assert json.loads(calls[1]["function"]["arguments"]) == {"city": "Tokyo"}
    assert reply["usage"]["completion_tokens"] == 15 and reply["usage"]["total_tokens"] == 55


@pytest.mark.parametrize(
    "reason, finish",
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
    ],
)
def test_finish_reasons_map(reason, finish):
    data = {"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": reason}]}
    assert ADAPTER.response(data, "gemini")["choices"][0]["finish_reason"] == finish


def test_a_blocked_prompt_reads_as_a_content_filter():
    data = {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 9}}
    choice = ADAPTER.response(data, "gemini")["choices"][0]
    assert choice["finish_reason"] == "content_filter" and choice["message"]["content"] == ""


def recorded(*responses: dict) -> bytes:
    return b"".join(f"data: {json.dumps(r)}\r\n\r\n".encode() for r in responses)


def chunk(parts: list[dict], finish: str | None = None, **usage) -> dict:
    candidate = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    meta = {"promptTokenCount": 30, **usage}
    return {
        "candidates": [candidate],
        "usageMetadata": meta,
        "modelVersion": "gemini-2.5-flash",
        "responseId": "r1",
    }


RECORDED = recorded(
    chunk([{"text": "Let me "}]),
    chunk([{"text": "check."}]),
    chunk(
        [
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
            {"functionCall": {"name": "get_time", "args": {"city": "Tokyo"}}},
        ],
        "STOP",
        candidatesTokenCount=20,
        thoughtsTokenCount=12,
        totalTokenCount=62,
    ),
)


def test_a_recorded_stream_with_parallel_calls_becomes_openai_chunks():
    chunks = translate(ADAPTER.stream("gemini-2.5-flash", include_usage=True), RECORDED)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    reply = assemble(chunks)
    assert reply["content"] == "Let me check."
    assert reply["tool_calls"] == [
        {"id": "call_0", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"id": "call_1", "name": "get_time", "arguments": {"city": "Tokyo"}},
    ]
    assert reply["finish"] == "tool_calls"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] == 30
    assert chunks[-1]["usage"]["completion_tokens"] == 32


def test_a_stream_error_raises_with_googles_message():
    translator = ADAPTER.stream("gemini", include_usage=False)
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    with pytest.raises(UpstreamStreamError, match="overloaded"):
        translate(translator, recorded(chunk([{"text": "Let me "}]), error))


def test_the_error_message_is_googles_own_in_either_form():
    error = {"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}
    assert ADAPTER.error(400, json.dumps(error).encode()) == "API key not valid."
    assert ADAPTER.error(400, json.dumps([error]).encode()) == "API key not valid."


def loopback_target(upstream) -> Target:
    return Target(kind="gemini", base_url=f"{upstream.url}/v1beta", api_key="k")


def test_a_translated_tool_round_trip_is_accepted_by_the_loopback_gemini(upstream):
    upstream.reset()
    body = {"model": "gemini-echo", "messages": TOOL_TURN, "tools": [WEATHER_TOOL]}
    request = ADAPTER.request(body, loopback_target(upstream), stream=False)
    response = httpx.post(request.url, json=request.json, headers=request.headers)
    assert response.status_code == 200, response.text
    reply = ADAPTER.response(response.json(), "gemini-echo")
    assert reply["choices"][0]["message"]["content"].startswith("echo: 3 messages; last: Weather")
    assert upstream.requests[-1]["headers"]["x-goog-api-key"] == "k"


def test_a_loopback_gemini_stream_translates_into_two_tool_calls(upstream):
    upstream.reset()
    body = {
        "model": "gemini-tools",
        "messages": TOOL_TURN[:2],
        "tools": [WEATHER_TOOL],
        "stream": True,
    }
    request = ADAPTER.request(body, loopback_target(upstream), stream=True)
    translator, parser, chunks = ADAPTER.stream("gemini-tools", include_usage=True), SSEParser(), []
    with httpx.stream("POST", request.url, json=request.json, headers=request.headers) as response:
        for raw in response.iter_raw():
            for event in parser.feed(raw):
                chunks.extend(translator.feed(event.event, event.data))
    reply = assemble(chunks + translator.finish())
    assert [c["id"] for c in reply["tool_calls"]] == ["call_0", "call_1"]
    assert reply["finish"] == "tool_calls" and reply["usage"]["prompt_tokens"] > 0
