"""Calling the upstream: one shared httpx client, JSON answers and SSE relayed chunk by chunk."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
from django.conf import settings

from proxy.errors import ProxyError
from proxy.replies import ReplyAssembler, reply_of
from proxy.sse import DONE, SSEParser, frame
from proxy.upstreams import (
    Adapter,
    StreamTranslator,
    Target,
    UpstreamRequest,
    UpstreamStreamError,
)

Send = Callable[[dict], Awaitable[None]]
SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]
_clients: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = {}


def client() -> httpx.AsyncClient:
    """The process's shared client (one per event loop, which under an ASGI server is one)."""
    loop = asyncio.get_running_loop()
    if loop not in _clients:
        timeout = httpx.Timeout(
            settings.TOKENMIZER_READ_TIMEOUT_S, connect=settings.TOKENMIZER_CONNECT_TIMEOUT_S
        )
        limits = httpx.Limits(max_connections=1000, max_keepalive_connections=200)
        _clients[loop] = httpx.AsyncClient(timeout=timeout, limits=limits)
    return _clients[loop]


@dataclass
class Outcome:
    status: int
    reply: dict[str, Any] | None = None
    usage: dict[str, Any] | None = None
    ttft_ms: float | None = None
    error: str = ""


def _transport_error(error: httpx.HTTPError, target: Target) -> ProxyError:
    if isinstance(error, httpx.TimeoutException):
        return ProxyError(
            504,
            f"The upstream {target.name} did not answer in time ({type(error).__name__}).",
            code="upstream_timeout",
        )
    return ProxyError(
        502,
        f"Could not reach the upstream {target.name} at {target.base_url} ({type(error).__name__}): "
        "check that it is running and that the project's upstream URL is right.",
        code="upstream_unreachable",
    )


async def _upstream_error(response: httpx.Response, adapter: Adapter) -> ProxyError:
    body = await response.aread()
    headers = ()
    if response.headers.get("retry-after"):
        headers = ((b"retry-after", response.headers["retry-after"].encode()),)
    message = adapter.error(response.status_code, body)
    return ProxyError(response.status_code, message, code="upstream_error", headers=headers)


def _content(request: UpstreamRequest, raw: bytes | None) -> dict[str, Any]:
    """httpx's body argument: ``raw`` (the client's bytes, forwarded unchanged) or the JSON."""
    return {"content": raw} if raw is not None else {"json": request.json}


async def forward_json(
    adapter: Adapter, target: Target, body: dict, model: str, send: Send, raw: bytes | None = None
) -> Outcome:
    request = adapter.request(body, target, stream=False)
    try:
        response = await client().post(
            request.url, headers=request.headers, **_content(request, raw)
        )
    except httpx.HTTPError as error:
        raise _transport_error(error, target) from None
    if response.status_code >= 400:
        raise await _upstream_error(response, adapter)
    try:
        data = adapter.response(json.loads(response.content), model)
    except (ValueError, KeyError, TypeError, AttributeError):
        raise ProxyError(
            502,
            f"The upstream {target.name} answered with a body that is not a chat completion.",
            code="upstream_bad_response",
        ) from None
    # An OpenAI-compatible upstream's body goes out as it came; a translated one is encoded anew.
    payload = response.content if adapter.relay_raw else json.dumps(data).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": payload})
    return Outcome(
        200, reply=reply_of(data), usage=data.get("usage") if isinstance(data, dict) else None
    )


def _consume(
    event, adapter: Adapter, translator: StreamTranslator, assembler: ReplyAssembler
) -> bytes:
    """Feed one upstream event to the reply; the OpenAI frames to send for it (none when relayed raw)."""
    if adapter.relay_raw:
        if event.data and event.data != "[DONE]":
            try:
                assembler.feed(json.loads(event.data))
            except ValueError:
                pass  # relayed as it came; the client sees what the upstream sent
        return b""
    out = b""
    for chunk in translator.feed(event.event, event.data):
        assembler.feed(chunk)
        out += frame(chunk)
    return out


def _stream_error_message(error: Exception, target: Target) -> str:
    if isinstance(error, UpstreamStreamError):
        return f"The upstream {target.name} reported an error mid-stream: {error}"
    return f"The upstream {target.name} broke off the stream ({type(error).__name__}); retry the request."


def _error_payload(message: str) -> dict:
    return {
        "error": {
            "message": message,
            "type": "server_error",
            "param": None,
            "code": "upstream_stream_error",
        }
    }


async def forward_stream(
    adapter: Adapter,
    target: Target,
    body: dict,
    model: str,
    include_usage: bool,
    send: Send,
    started: float,
    raw: bytes | None = None,
) -> Outcome:
    request = adapter.request(body, target, stream=True)
    assembler, parser, translator = (
        ReplyAssembler(),
        SSEParser(),
        adapter.stream(model, include_usage),
    )
    outcome = Outcome(200)
    try:
        async with client().stream(
            "POST", request.url, headers=request.headers, **_content(request, raw)
        ) as response:
            if response.status_code >= 400:
                raise await _upstream_error(response, adapter)
            await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
            try:
                async for chunk in response.aiter_raw():
                    if adapter.relay_raw and chunk:  # the bytes go out before they are read
                        await send({"type": "http.response.body", "body": chunk, "more_body": True})
                    out = b"".join(
                        _consume(event, adapter, translator, assembler)
                        for event in parser.feed(chunk)
                    )
                    if out:
                        await send({"type": "http.response.body", "body": out, "more_body": True})
                    if outcome.ttft_ms is None and assembler.first_token:
                        outcome.ttft_ms = (time.perf_counter() - started) * 1000
                if not adapter.relay_raw:
                    tail = b"".join(frame(c) for c in translator.finish())
                    await send(
                        {"type": "http.response.body", "body": tail + DONE, "more_body": True}
                    )
            except (httpx.HTTPError, UpstreamStreamError) as error:
                outcome.error = _stream_error_message(error, target)
                await send(
                    {
                        "type": "http.response.body",
                        "body": frame(_error_payload(outcome.error)),
                        "more_body": True,
                    }
                )
    except httpx.HTTPError as error:
        raise _transport_error(error, target) from None
    await send({"type": "http.response.body", "body": b""})
    outcome.reply, outcome.usage = assembler.message(), assembler.usage
    return outcome
