"""The proxy endpoint through the official openai client, against a loopback provider."""

import httpx
import openai
import pytest

from memory.models import Session
from proxy.models import RequestLog
from tests.proxy.conftest import eventually

HELLO = [{"role": "user", "content": "Say hello."}]


def test_a_request_without_session_passes_through_and_is_counted(client, upstream):
    reply = client.chat.completions.create(model="echo", messages=HELLO)
    assert reply.choices[0].message.content.startswith("echo")
    assert upstream.requests[-1]["body"]["messages"] == HELLO
    log = eventually(RequestLog.objects.first)
    assert (log.model, log.upstream_status, log.session_id) == ("echo", 200, None)
    assert log.tokens_sent == log.tokens_forwarded > 0
    assert not Session.objects.exists()


def test_a_streamed_reply_arrives_in_chunks_and_ends_with_usage_when_asked(client):
    stream = client.chat.completions.create(
        model="echo", messages=HELLO, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len(chunks) > 2 and text.startswith("echo")
    assert chunks[-1].usage is not None and chunks[-1].usage.prompt_tokens > 0


def test_streamed_parallel_tool_calls_reach_the_client_whole(client):
    stream = client.chat.completions.create(model="tools", messages=HELLO, stream=True)
    calls: dict[int, dict] = {}
    for chunk in stream:
        for call in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            slot = calls.setdefault(call.index, {"name": "", "arguments": ""})
            slot["name"] += call.function.name or ""
            slot["arguments"] += call.function.arguments or ""
    assert len(calls) == 2
    assert all(c["name"] and c["arguments"].startswith("{") for c in calls.values())


def test_unknown_extra_fields_and_response_format_pass_through(client, upstream):
    client.chat.completions.create(
        model="echo",
        messages=HELLO,
        response_format={"type": "json_object"},
        extra_body={"seed_x": 7},
    )
    body = upstream.requests[-1]["body"]
    assert body["response_format"] == {"type": "json_object"} and body["seed_x"] == 7


@pytest.mark.parametrize("session", [None, "s-raw"])
def test_a_request_the_proxy_leaves_unchanged_reaches_the_upstream_byte_for_byte(
    proxy_url, api_key, upstream, session
):
    # The client's own formatting (spacing, escapes, key order) is kept, with or without a session.
    raw = b'{ "messages": [{"content": "Caf\\u00e9 \\u2615, say hi", "role": "user"}],\n  "model": "echo" }'
    headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}
    if session:
        headers["X-Session-Id"] = session
    response = httpx.post(f"{proxy_url}/v1/chat/completions", content=raw, headers=headers)
    assert response.status_code == 200
    assert upstream.requests[-1]["raw"] == raw


def test_a_session_records_the_turns_and_the_reassembled_reply(client, upstream):
    history = [{"role": "system", "content": "Be brief."}, *HELLO]
    stream = client.chat.completions.create(
        model="tools", messages=history, stream=True, extra_body={"session_id": "s-1"}
    )
    list(stream)
    session = eventually(lambda: Session.objects.get(external_id="s-1"))
    messages = eventually(lambda: list(session.messages.order_by("position")))
    assert [m.role for m in messages] == ["system", "user", "assistant"]
    assert len(messages[2].tool_calls) == 2
    assert "session_id" not in upstream.requests[-1]["body"]


def test_replaying_a_conversation_does_not_duplicate_it(client):
    for _ in range(3):
        client.chat.completions.create(
            model="echo", messages=HELLO, extra_headers={"X-Session-Id": "s-2"}
        )
    eventually(lambda: RequestLog.objects.count() == 3)
    session = Session.objects.get(external_id="s-2")
    assert session.messages.filter(role="user").count() == 1


def test_the_graph_grows_from_a_conversation(client):
    turns = [
        {"role": "user", "content": "Let's build an invoicing API in Django."},
        {
            "role": "assistant",
            "content": "Decided: PostgreSQL for the ledger. Created billing/models.py.",
        },
        {"role": "user", "content": "Good, continue."},
    ]
    client.chat.completions.create(model="echo", messages=turns, extra_body={"session_id": "s-3"})
    session = eventually(lambda: Session.objects.get(external_id="s-3"))
    eventually(lambda: session.nodes.filter(type="file").exists())
    assert session.nodes.filter(type="file", label="billing/models.py").exists()
    assert session.nodes.filter(type="decision", label__icontains="PostgreSQL").exists()


@pytest.mark.parametrize(
    "authorization, code",
    [
        (None, "missing_api_key"),
        ("Bearer nope", "invalid_api_key"),
        ("Bearer tmz_" + "x" * 40, "invalid_api_key"),
    ],
)
def test_bad_keys_get_401_in_openai_form(proxy_url, authorization, code):
    headers = {"Authorization": authorization} if authorization else {}
    response = httpx.post(
        f"{proxy_url}/v1/chat/completions",
        json={"model": "echo", "messages": HELLO},
        headers=headers,
    )
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["code"] == code and error["type"] == "authentication_error" and error["message"]


def test_a_revoked_key_is_refused(client, alice):
    from proxy.keys import revoke_key

    revoke_key(alice.api_keys.get())
    with pytest.raises(openai.AuthenticationError, match="revoked"):
        client.chat.completions.create(model="echo", messages=HELLO)


@pytest.mark.parametrize(
    "body, param",
    [
        ({"model": "echo"}, "messages"),
        ({"model": "echo", "messages": "hi"}, "messages"),
        ({"messages": HELLO}, "model"),
        ({"model": "echo", "messages": [{"role": "robot", "content": "x"}]}, "messages[0].role"),
        ({"model": "echo", "messages": HELLO, "stream": "yes"}, "stream"),
    ],
)
def test_malformed_requests_get_400_naming_the_field(proxy_url, api_key, body, param):
    response = httpx.post(
        f"{proxy_url}/v1/chat/completions",
        json=body,
        headers={"Authorization": f"Bearer {api_key}"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["param"] == param


def test_a_body_that_is_not_json_gets_400(proxy_url, api_key):
    response = httpx.post(
        f"{proxy_url}/v1/chat/completions",
        content=b"{nope",
        headers={"Authorization": f"Bearer {api_key}"},
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_json"


def test_a_body_over_the_limit_gets_413(proxy_url, api_key, settings):
    settings.TOKENMIZER_MAX_BODY_BYTES = 1000
    body = {"model": "echo", "messages": [{"role": "user", "content": "x" * 5000}]}
    response = httpx.post(
        f"{proxy_url}/v1/chat/completions",
        json=body,
        headers={"Authorization": f"Bearer {api_key}"},
    )
    assert response.status_code == 413


def test_going_over_the_request_rate_gets_429_with_retry_after(client, project):
    project.requests_per_minute = 2
    project.save()
    client.chat.completions.create(model="echo", messages=HELLO)
    client.chat.completions.create(model="echo", messages=HELLO)
    with pytest.raises(openai.RateLimitError) as caught:
        client.chat.completions.create(model="echo", messages=HELLO)
    assert int(caught.value.response.headers["retry-after"]) >= 1


def test_the_request_that_takes_a_key_over_its_token_rate_is_the_last_served(client, project):
    project.tokens_per_minute = 1000
    project.save()
    text = "We moved the orders service from Flask to FastAPI last week. " * 12  # ~150 tokens
    served = 0
    with pytest.raises(openai.RateLimitError) as caught:
        for i in range(20):
            client.chat.completions.create(
                model="echo", messages=[{"role": "user", "content": f"{i}: {text}"}]
            )
            served += 1  # its tokens are counted after the response, as it is recorded
            eventually(lambda n=served: RequestLog.objects.count() == n or None)
    forwarded = list(RequestLog.objects.order_by("pk").values_list("tokens_forwarded", flat=True))
    assert sum(forwarded[:-1]) <= 1000 < sum(forwarded)
    assert int(caught.value.response.headers["retry-after"]) >= 1


def test_a_request_over_the_whole_token_rate_is_refused_before_it_goes_upstream(
    client, project, upstream
):
    project.tokens_per_minute = 100
    project.save()
    text = "We moved the orders service from Flask to FastAPI last week. " * 12
    with pytest.raises(openai.RateLimitError):
        client.chat.completions.create(model="echo", messages=[{"role": "user", "content": text}])
    assert upstream.requests == []


def test_another_projects_session_id_answers_404(client, bob):
    from memory.projects import create_project

    other = create_project("Bob's project", bob)
    Session.objects.create(project=other, user=bob, external_id="bobs-session")
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(
            model="echo", messages=HELLO, extra_body={"session_id": "bobs-session"}
        )
    assert other.sessions.get().messages.count() == 0


def test_an_upstream_error_keeps_its_status_and_message(client):
    with pytest.raises(openai.InternalServerError) as caught:
        client.chat.completions.create(model="error-500", messages=HELLO)
    assert caught.value.status_code == 500
    assert eventually(RequestLog.objects.first).upstream_status == 500


def test_an_upstream_that_is_too_slow_gets_504(client, upstream):
    upstream.slow_seconds = 5
    with pytest.raises(openai.APIStatusError) as caught:
        client.chat.completions.create(model="slow", messages=HELLO)
    assert caught.value.status_code == 504


def test_an_upstream_that_refuses_connections_gets_502(client, settings):
    from tests.proxy.conftest import free_port

    settings.TOKENMIZER_UPSTREAM_URL = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(openai.APIStatusError) as caught:
        client.chat.completions.create(model="echo", messages=HELLO)
    assert caught.value.status_code == 502
    assert "reach the upstream" in caught.value.message


def test_a_garbage_upstream_body_gets_502(client):
    with pytest.raises(openai.APIStatusError) as caught:
        client.chat.completions.create(model="garbage", messages=HELLO)
    assert caught.value.status_code == 502


def test_an_error_in_the_middle_of_a_stream_reaches_the_client(client):
    stream = client.chat.completions.create(model="midstream-error", messages=HELLO, stream=True)
    with pytest.raises(openai.APIError):
        list(stream)


def test_a_stream_the_upstream_drops_ends_with_an_error_not_a_hang(client):
    stream = client.chat.completions.create(model="abort", messages=HELLO, stream=True)
    with pytest.raises(openai.APIError):
        list(stream)


def test_a_client_disconnect_cancels_the_upstream_stream(proxy_url, api_key, upstream):
    upstream.drip_chunks, upstream.drip_delay = 200, 0.05
    body = {"model": "drip", "messages": HELLO, "stream": True}
    headers = {"Authorization": f"Bearer {api_key}"}
    with httpx.stream(
        "POST", f"{proxy_url}/v1/chat/completions", json=body, headers=headers
    ) as response:
        next(response.iter_raw())
    upstream.wait_cancelled(1, timeout=5)
    assert upstream.cancelled >= 1
