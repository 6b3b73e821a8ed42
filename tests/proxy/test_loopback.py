"""The loopback provider speaks OpenAI's, Anthropic's and Gemini's protocols, model by model."""

import json
import threading

import httpx
import openai
import pytest

from memory.graph.tokens import count_messages
from proxy.loopback import LoopbackServer, behaviour_of
from proxy.sse import SSEParser

HELLO = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Say hello to everyone in the room now please"},
]
ANTHROPIC_HEADERS = {"anthropic-version": "2023-06-01", "x-api-key": "k"}


@pytest.fixture
def server(upstream):
    upstream.reset()
    return upstream


@pytest.fixture
def client(server):
    return openai.OpenAI(base_url=server.url + "/v1", api_key="x", max_retries=0, timeout=5)


def events(response: httpx.Response) -> list:
    parser, found = SSEParser(), []
    for raw in response.iter_raw():
        found.extend(parser.feed(raw))
    return found


def anthropic_body(model: str, **extra) -> dict:
    return {
        "model": model,
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "Hi there"}],
        **extra,
    }


def gemini_url(server, model: str, stream: bool = False) -> str:
    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    return f"{server.url}/v1beta/models/{model}:{method}"


GEMINI_BODY = {"contents": [{"role": "user", "parts": [{"text": "Hi there"}]}]}


@pytest.mark.parametrize(
    "model, behaviour",
    [
        ("gpt-4o", "echo"),
        ("tools", "tools"),
        ("claude-tools", "tools"),
        ("loopback/drip", "drip"),
        ("x-midstream-error", "midstream-error"),
        ("error-429", "error-429"),
    ],
)
def test_the_model_name_picks_the_behaviour(model, behaviour):
    assert behaviour_of(model) == behaviour


def test_echo_answers_with_the_message_count_and_the_last_user_words(client, server):
    reply = client.chat.completions.create(model="gpt-4o", messages=HELLO)
    assert (
        reply.choices[0].message.content
        == "echo: 2 messages; last: Say hello to everyone in the room now"
    )
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage.prompt_tokens == count_messages(HELLO, "gpt-4o")
    recorded = server.requests[-1]
    assert (recorded["method"], recorded["path"]) == ("POST", "/v1/chat/completions")
    assert (
        recorded["body"]["messages"] == HELLO and recorded["headers"]["authorization"] == "Bearer x"
    )


def test_the_openai_client_streams_the_same_text_and_a_usage_chunk(client):
    whole = client.chat.completions.create(model="echo", messages=HELLO).choices[0].message.content
    chunks = list(
        client.chat.completions.create(
            model="echo", messages=HELLO, stream=True, stream_options={"include_usage": True}
        )
    )
    assert chunks[0].choices[0].delta.role == "assistant"
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == whole
    assert chunks[-1].choices == [] and chunks[-1].usage.prompt_tokens == count_messages(
        HELLO, "echo"
    )


def test_the_openai_client_assembles_two_parallel_tool_calls(client):
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
    with client.chat.completions.stream(model="tools", messages=HELLO, tools=tools) as stream:
        for _ in stream:
            pass
        final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls
    assert final.choices[0].finish_reason == "tool_calls"
    assert [c.function.name for c in calls] == ["lookup", "lookup"]
    assert [json.loads(c.function.arguments) for c in calls] == [
        {"city": "Paris"},
        {"city": "Tokyo"},
    ]
    assert len({c.id for c in calls}) == 2


def test_tools_answers_in_text_once_the_tool_results_are_in(client):
    first = client.chat.completions.create(model="tools", messages=HELLO).choices[0].message
    results = [{"role": "tool", "tool_call_id": c.id, "content": "ok"} for c in first.tool_calls]
    history = [*HELLO, first.model_dump(exclude_none=True), *results]
    reply = client.chat.completions.create(model="tools", messages=history)
    assert reply.choices[0].message.content.startswith("echo: 5 messages")


def test_an_openai_tool_call_without_its_results_is_refused_like_openai_does(client):
    first = client.chat.completions.create(model="tools", messages=HELLO).choices[0].message
    with pytest.raises(openai.BadRequestError, match="tool_call_ids did not have response"):
        client.chat.completions.create(
            model="echo", messages=[*HELLO, first.model_dump(exclude_none=True)]
        )


def test_the_models_list_names_the_behaviours(client):
    assert {"echo", "tools", "drip"} <= {m.id for m in client.models.list()}


@pytest.mark.parametrize(
    "protocol, status, kind",
    [
        ("openai", 500, "server_error"),
        ("openai", 429, "requests"),
        ("anthropic", 500, "api_error"),
        ("anthropic", 429, "rate_limit_error"),
        ("gemini", 500, "INTERNAL"),
        ("gemini", 429, "RESOURCE_EXHAUSTED"),
    ],
)
def test_error_models_answer_with_the_providers_error_json(server, protocol, status, kind):
    model = f"error-{status}"
    if protocol == "openai":
        response = httpx.post(
            f"{server.url}/v1/chat/completions", json={"model": model, "messages": HELLO}
        )
        assert response.json()["error"]["type"] == kind
    elif protocol == "anthropic":
        response = httpx.post(
            f"{server.url}/v1/messages", json=anthropic_body(model), headers=ANTHROPIC_HEADERS
        )
        assert response.json()["type"] == "error" and response.json()["error"]["type"] == kind
    else:
        response = httpx.post(gemini_url(server, model), json=GEMINI_BODY)
        assert response.json()["error"]["status"] == kind
    assert response.status_code == status
    assert (response.headers.get("retry-after") == "1") == (status == 429)


def test_the_openai_client_sees_429_as_a_rate_limit(client):
    with pytest.raises(openai.RateLimitError):
        client.chat.completions.create(model="error-429", messages=HELLO)


def test_garbage_answers_200_with_a_body_or_stream_that_is_not_json(server):
    plain = httpx.post(
        f"{server.url}/v1/chat/completions", json={"model": "garbage", "messages": HELLO}
    )
    assert plain.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        plain.json()
    body = {"model": "garbage", "messages": HELLO, "stream": True}
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", json=body) as response:
        found = events(response)
    assert found and all(_not_json(e.data) for e in found)


def _not_json(data: str) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return True
    return False


def test_midstream_error_sends_a_few_chunks_then_an_openai_error_the_client_raises(client):
    received = []
    with pytest.raises(openai.APIError, match="error while processing"):
        for chunk in client.chat.completions.create(
            model="midstream-error", messages=HELLO, stream=True
        ):
            received.append(chunk)
    assert len(received) >= 2


def test_abort_drops_the_connection_mid_stream_and_mid_body(server):
    body = {"model": "abort", "messages": HELLO, "stream": True}
    with pytest.raises(httpx.RemoteProtocolError):
        with httpx.stream("POST", f"{server.url}/v1/chat/completions", json=body) as response:
            response.read()
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.post(f"{server.url}/v1/chat/completions", json={**body, "stream": False})


def test_slow_answers_after_its_configured_delay(client, server):
    server.slow_seconds = 0.05
    assert (
        client.chat.completions.create(model="slow", messages=HELLO)
        .choices[0]
        .message.content.startswith("echo")
    )


def test_slow_outlasts_a_short_client_timeout(server):
    server.slow_seconds = 30
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(
            f"{server.url}/v1/chat/completions",
            json={"model": "slow", "messages": HELLO},
            timeout=0.2,
        )


def test_drip_streams_its_configured_chunks(client, server):
    server.drip_chunks, server.drip_delay = 4, 0.01
    chunks = list(client.chat.completions.create(model="drip", messages=HELLO, stream=True))
    texts = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert texts == ["drip 1 ", "drip 2 ", "drip 3 ", "drip 4 "]
    assert server.cancelled == 0


def test_a_client_leaving_a_drip_stream_is_counted_as_cancelled(server):
    server.drip_chunks, server.drip_delay = 500, 0.02
    body = {"model": "drip", "messages": HELLO, "stream": True}
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", json=body) as response:
        next(response.iter_raw())
    assert server.wait_cancelled(1)
    assert server.cancelled == 1


def test_anthropic_streams_the_real_event_sequence(server):
    body = anthropic_body("claude-echo", stream=True)
    with httpx.stream(
        "POST", f"{server.url}/v1/messages", json=body, headers=ANTHROPIC_HEADERS
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        found = events(response)
    names = [e.event for e in found]
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert names[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert all(json.loads(e.data)["type"] == e.event for e in found)
    text = "".join(
        json.loads(e.data)["delta"].get("text", "")
        for e in found
        if e.event == "content_block_delta"
    )
    assert text == "echo: 1 messages; last: Hi there"


def test_anthropic_tools_stream_tool_use_blocks_with_json_deltas(server):
    body = anthropic_body(
        "claude-tools", stream=True, tools=[{"name": "search", "input_schema": {"type": "object"}}]
    )
    with httpx.stream(
        "POST", f"{server.url}/v1/messages", json=body, headers=ANTHROPIC_HEADERS
    ) as response:
        found = [json.loads(e.data) for e in events(response)]
    starts = [e["content_block"] for e in found if e["type"] == "content_block_start"]
    assert [(b["type"], b["name"]) for b in starts] == [
        ("tool_use", "search"),
        ("tool_use", "search"),
    ]
    fragments = [
        e["delta"]["partial_json"]
        for e in found
        if e["type"] == "content_block_delta" and e["index"] == 0
    ]
    assert json.loads("".join(fragments)) == {"city": "Paris"}
    assert found[-2]["delta"]["stop_reason"] == "tool_use"


def test_anthropic_midstream_error_is_an_error_event(server):
    body = anthropic_body("claude-midstream-error", stream=True)
    with httpx.stream(
        "POST", f"{server.url}/v1/messages", json=body, headers=ANTHROPIC_HEADERS
    ) as response:
        found = events(response)
    assert found[-1].event == "error"
    assert json.loads(found[-1].data)["error"]["type"] == "overloaded_error"


def test_anthropic_refuses_what_anthropic_refuses(server):
    url = f"{server.url}/v1/messages"
    unpaired = {
        **anthropic_body("claude-echo"),
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}],
            },
            {"role": "user", "content": "never mind"},
        ],
    }
    refused = httpx.post(url, json=unpaired, headers=ANTHROPIC_HEADERS)
    assert refused.status_code == 400 and "toolu_1" in refused.json()["error"]["message"]
    assert (
        httpx.post(url, json=anthropic_body("claude-echo")).status_code == 400
    )  # no version header
    no_max = {k: v for k, v in anthropic_body("claude-echo").items() if k != "max_tokens"}
    assert httpx.post(url, json=no_max, headers=ANTHROPIC_HEADERS).status_code == 400
    server.strict = False
    assert httpx.post(url, json=unpaired, headers=ANTHROPIC_HEADERS).status_code == 200


def test_anthropic_reports_prompt_tokens_counted_like_the_proxy_does(server):
    body = {**anthropic_body("claude-echo"), "system": "Be brief."}
    reply = httpx.post(f"{server.url}/v1/messages", json=body, headers=ANTHROPIC_HEADERS).json()
    counted = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi there"}]
    assert reply["usage"]["input_tokens"] == count_messages(counted, "claude-echo")
    assert reply["stop_reason"] == "end_turn" and reply["content"][0]["type"] == "text"


def test_gemini_generates_and_streams_with_alt_sse(server):
    reply = httpx.post(gemini_url(server, "gemini-2.5-flash"), json=GEMINI_BODY).json()
    assert (
        reply["candidates"][0]["content"]["parts"][0]["text"] == "echo: 1 messages; last: Hi there"
    )
    assert (
        reply["candidates"][0]["finishReason"] == "STOP"
        and reply["usageMetadata"]["promptTokenCount"] > 0
    )
    with httpx.stream(
        "POST", gemini_url(server, "gemini-2.5-flash", stream=True), json=GEMINI_BODY
    ) as response:
        found = [json.loads(e.data) for e in events(response)]
    text = "".join(r["candidates"][0]["content"]["parts"][0]["text"] for r in found)
    assert text == "echo: 1 messages; last: Hi there"
    assert [("finishReason" in r["candidates"][0]) for r in found][-2:] == [False, True]
    assert server.requests[-1]["query"] == "alt=sse"


def test_gemini_streams_a_json_array_without_alt_sse(server):
    url = f"{server.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    assert isinstance(httpx.post(url, json=GEMINI_BODY).json(), list)


def test_gemini_tools_call_the_declared_functions(server):
    body = {
        **GEMINI_BODY,
        "tools": [{"functionDeclarations": [{"name": "search"}, {"name": "fetch"}]}],
    }
    reply = httpx.post(gemini_url(server, "gemini-tools"), json=body).json()
    parts = reply["candidates"][0]["content"]["parts"]
    assert [p["functionCall"]["name"] for p in parts] == ["search", "fetch"]


def test_gemini_refuses_a_function_response_count_that_does_not_match_the_calls(server):
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "a", "args": {}}},
                    {"functionCall": {"name": "b", "args": {}}},
                ],
            },
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "a", "response": {"output": "x"}}}],
            },
        ]
    }
    refused = httpx.post(gemini_url(server, "gemini-echo"), json=body)
    assert refused.status_code == 400 and refused.json()["error"]["status"] == "INVALID_ARGUMENT"


def test_unknown_routes_answer_404(server):
    assert httpx.get(f"{server.url}/v2/nothing").status_code == 404


def test_reset_clears_the_records_and_restores_the_knobs(server):
    httpx.get(f"{server.url}/v1/models")
    server.slow_seconds = 0.01
    server.reset()
    assert server.requests == [] and server.cancelled == 0 and server.slow_seconds == 10.0


def test_stopping_wakes_a_sleeping_request_and_leaves_no_thread_behind():
    replies = []
    with LoopbackServer(slow_seconds=60) as own:
        body = {"model": "slow", "messages": HELLO}
        caller = threading.Thread(
            target=lambda: replies.append(
                httpx.post(f"{own.url}/v1/chat/completions", json=body, timeout=30)
            )
        )
        caller.start()
        assert own.wait_requests(1)
        thread = own.thread
    caller.join(timeout=30)
    assert not thread.is_alive() and not caller.is_alive()
    assert replies and replies[0].status_code == 200
