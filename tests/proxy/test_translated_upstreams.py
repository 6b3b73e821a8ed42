"""Through the proxy to Anthropic and Gemini upstreams (the loopback), with OpenAI's client."""

import json

import openai
import pytest

from proxy.models import Upstream

HELLO = [{"role": "user", "content": "Weather in Paris and Tokyo?"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


@pytest.fixture(params=["anthropic", "gemini"])
def model(request, project, upstream):
    """A model prefix the project routes to an upstream of the given kind."""
    path = "/v1" if request.param == "anthropic" else "/v1beta"
    Upstream.objects.create(
        project=project,
        name=request.param,
        kind=request.param,
        base_url=upstream.url + path,
        model_patterns=f"{request.param}-*",
    )
    return request.param


def test_a_plain_reply_comes_back_as_an_openai_completion(client, model):
    reply = client.chat.completions.create(model=f"{model}-echo", messages=HELLO)
    assert reply.choices[0].message.content == "echo: 1 messages; last: Weather in Paris and Tokyo?"
    assert reply.choices[0].finish_reason == "stop" and reply.usage.prompt_tokens > 0


def test_streamed_parallel_tool_calls_and_usage_reach_the_client(client, model):
    with client.chat.completions.stream(
        model=f"{model}-tools", messages=HELLO, tools=TOOLS, stream_options={"include_usage": True}
    ) as stream:
        for _ in stream:
            pass
        final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls
    assert final.choices[0].finish_reason == "tool_calls"
    assert [json.loads(c.function.arguments) for c in calls] == [
        {"city": "Paris"},
        {"city": "Tokyo"},
    ]
    assert final.usage is not None and final.usage.prompt_tokens > 0


def test_a_tool_round_trip_is_translated_so_the_provider_accepts_it(client, model, upstream):
    first = client.chat.completions.create(model=f"{model}-tools", messages=HELLO, tools=TOOLS)
    calls = first.choices[0].message.tool_calls
    results = [
        {"role": "tool", "tool_call_id": c.id, "content": f"{i + 18} C"}
        for i, c in enumerate(calls)
    ]
    history = [*HELLO, first.choices[0].message.model_dump(exclude_none=True), *results]
    reply = client.chat.completions.create(model=f"{model}-tools", messages=history, tools=TOOLS)
    assert reply.choices[0].message.content.startswith("echo: 3 messages")


def test_an_upstream_error_keeps_the_providers_status(client, model):
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model=f"{model}-error-500", messages=HELLO)


def test_an_error_event_mid_stream_reaches_the_client_as_an_error(client, model):
    stream = client.chat.completions.create(
        model=f"{model}-midstream-error", messages=HELLO, stream=True
    )
    with pytest.raises(openai.APIError):
        list(stream)
