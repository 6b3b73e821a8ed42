"""The proxy's ASGI application: POST /v1/chat/completions and GET /v1/models."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import DatabaseError

from memory.graph import tokens
from memory.models import Session
from proxy import keys, limits, relay, sessions
from proxy.errors import ProxyError
from proxy.models import ApiKey
from proxy.upstreams import adapter_for, resolve
from proxy.validation import ChatRequest, parse_chat_request
from tokenmizer_site import activity, logs

log = logging.getLogger("tokenmizer.proxy")


# Bookkeeping after a response gets threads of its own, so it never delays the next request's
# database call.
_AFTERWARDS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tokenmizer-record")


def db(function, executor: ThreadPoolExecutor | None = None):
    """Run a sync ORM function off the event loop, in a pool thread, closing stale connections."""
    return database_sync_to_async(function, thread_sensitive=False, executor=executor)


class ClientGone(Exception):
    pass


async def read_body(receive, limit: int) -> bytes:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise ProxyError(
                413,
                f"The request body is over the limit of {limit:,} bytes.",
                code="request_too_large",
            )
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


async def until_disconnect(receive, work):
    """Run ``work``; if the client disconnects first, cancel it (closing the upstream) and return None."""
    task = asyncio.ensure_future(work)

    async def disconnected() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    watcher = asyncio.ensure_future(disconnected())
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not task.done():
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
        watcher.cancel()
    return None if task.cancelled() else task.result()


async def send_error(send, error: ProxyError, request_id: str) -> None:
    headers = [
        (b"content-type", b"application/json"),
        (b"x-request-id", request_id.encode()),
        *error.headers,
    ]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": error.body()})


def _headers(scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


@dataclass
class Exchange:
    """One chat completion on its way through the proxy: what came in and what goes upstream."""

    key: ApiKey
    request: ChatRequest
    sent: tokens.Tally  # what the client sent
    forward: list[dict]
    forwarded: tokens.Tally  # what goes upstream
    session: Session | None = None
    compacted: bool = False
    charged: int = 0  # the tokens put against the key's rate limit before forwarding


async def _read_request(scope, receive) -> tuple[sessions.Admitted, ChatRequest]:
    headers = _headers(scope)
    keys.bearer_token(headers.get("authorization"))  # a missing or malformed key: 401 at once
    limit = settings.TOKENMIZER_MAX_BODY_BYTES
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ProxyError(
            413, f"The request body is over the limit of {limit:,} bytes.", code="request_too_large"
        )
    request = parse_chat_request(await read_body(receive, limit), headers.get("x-session-id"))
    authorization = headers.get("authorization")
    admitted = sessions.admitted_recently(authorization, request.session_id)
    if admitted is None:
        admitted = await db(sessions.admit)(authorization, request.session_id, request.messages)
    elif sessions.readmission_due(authorization, request.session_id):
        _in_background(db(sessions.readmit, _AFTERWARDS)(authorization, request.session_id))
    return admitted, request


_background: set[asyncio.Future] = set()


def _in_background(work) -> None:
    """Run ``work`` on the loop without waiting for it (kept referenced until it is done)."""
    task = asyncio.ensure_future(work)
    _background.add(task)
    task.add_done_callback(_background.discard)


async def _through_session(exchange: Exchange, session) -> None:
    """Session requests: loop guard, redaction for the upstream, compaction over the threshold."""
    request, project = exchange.request, exchange.key.project
    exchange.session = session
    if sessions.tool_rounds(request.messages) > project.max_tool_rounds:
        raise ProxyError(
            400,
            f"More than {project.max_tool_rounds} consecutive tool-call rounds in this session: "
            "stopping a likely loop. Send a user message to continue.",
            code="tool_round_limit",
        )
    if project.redact_upstream:
        exchange.forward = [sessions.redacted_message(m) for m in request.messages]
    # The session's preamble (project memory, or a branch's starting resume): the same bytes on
    # every request, inside the budget like any other system message.
    exchange.forward, preamble_at = sessions.with_preamble(exchange.forward, session.preamble)
    if preamble_at is not None:
        preamble = exchange.forward[preamble_at]
        exchange.forwarded = exchange.forwarded.plus(tokens.count_message(preamble, request.model))
    if exchange.forwarded.over(session.mecw * project.compaction_ratio):
        plan = await db(sessions.compact_for_session)(
            session, request.messages, exchange.forward, request.model, preamble_at
        )
        exchange.forward, exchange.compacted = plan.messages, True
        exchange.forwarded = tokens.Tally.of(plan.tokens_out)


def _check_rate(exchange: Exchange) -> None:
    """Tokens per minute count what goes upstream (what the provider bills), not what was sent.

    The tokens counted so far are charged now, the rest once counted, after the response (see
    ``_record``): the request that takes a key over its minute's tokens is the last one served.
    """
    project, forwarded = exchange.key.project, exchange.forwarded
    if forwarded.at_most() > project.tokens_per_minute:
        forwarded.exact()  # it could use up the key's whole minute alone: count it first
    exchange.charged = forwarded.counted()
    wait = limits.retry_after(
        exchange.key.pk, project.requests_per_minute, project.tokens_per_minute, exchange.charged
    )
    if wait is not None:
        raise ProxyError(
            429,
            f"Rate limit reached for this key; retry in {wait} s.",
            code="rate_limit_exceeded",
            headers=((b"retry-after", str(wait).encode()),),
        )


async def _relay(
    exchange: Exchange, upstreams: list, receive, send, started: float, request_id: str
) -> relay.Outcome | None:
    """Forward upstream and relay the answer; None when the client went away first."""
    request = exchange.request
    target = resolve(upstreams, request.model)
    adapter = adapter_for(target.kind)
    body = {**request.body, "messages": exchange.forward}
    # Nothing changed, to an upstream speaking the client's protocol: the client's own bytes go.
    unchanged = adapter.relay_raw and exchange.forward == request.messages
    raw = request.raw if unchanged else None
    if request.stream:
        work = relay.forward_stream(
            adapter, target, body, request.model, request.include_usage, send, started, raw
        )
    else:
        work = relay.forward_json(adapter, target, body, request.model, send, raw)
    try:
        return await until_disconnect(receive, work)
    except ProxyError as error:
        await send_error(send, error, request_id)
        return relay.Outcome(error.status, error=error.message)


def _usage(exchange: Exchange, outcome: relay.Outcome | None, latency_ms: float) -> dict:
    usage = {
        "model": exchange.request.model,
        "stream": exchange.request.stream,
        "tokens_sent": exchange.sent.exact(),
        "tokens_forwarded": exchange.forwarded.exact(),
        "compacted": exchange.compacted,
        "latency_ms": latency_ms,
    }
    if outcome is None:
        return {**usage, "error": "client disconnected"}
    return {
        **usage,
        "error": outcome.error[:500],
        "upstream_status": outcome.status,
        "ttft_ms": outcome.ttft_ms,
        "completion_tokens": (outcome.usage or {}).get("completion_tokens") or 0,
    }


async def chat_completions(scope, receive, send, request_id: str) -> None:
    started = time.perf_counter()
    admitted, request = await _read_request(scope, receive)
    key = admitted.key
    conversation = (key.pk, request.session_id)  # a key's passthrough requests share one
    sent = tokens.tally(request.messages, request.model, conversation)
    exchange = Exchange(key, request, sent, request.messages, sent)
    if admitted.session is not None:
        await _through_session(exchange, admitted.session)
    _check_rate(exchange)
    outcome = await _relay(exchange, admitted.upstreams, receive, send, started, request_id)
    latency_ms = (time.perf_counter() - started) * 1000
    sessions.exchange_waiting(exchange.session)
    try:  # after the response: the client is not kept waiting for the bookkeeping
        await db(_record, _AFTERWARDS)(exchange, outcome, latency_ms)
    except Exception:
        log.exception("request %s: recording the exchange failed", request_id)


def _record(exchange: Exchange, outcome: relay.Outcome | None, latency_ms: float) -> None:
    """In a bookkeeping thread: the tokens the request's path had no need to count are counted
    and charged to the key's rate limit, and the exchange is recorded."""
    usage = _usage(exchange, outcome, latency_ms)
    limits.settle(exchange.key.pk, usage["tokens_forwarded"] - exchange.charged)
    ok = outcome is not None and outcome.status == 200 and not outcome.error
    sessions.record_exchange(
        exchange.key,
        exchange.session,
        exchange.request.messages,
        outcome.reply if ok else None,
        **usage,
    )


async def list_models(scope, receive, send, request_id: str) -> None:
    key = await db(keys.authenticate)(_headers(scope).get("authorization"))
    upstreams = await db(list)(key.project.upstreams.filter(kind="openai"))
    target = resolve(upstreams, "*")
    try:
        response = await relay.client().get(
            f"{target.base_url}/models",
            headers={"Authorization": f"Bearer {target.api_key}"} if target.api_key else {},
        )
    except Exception as error:
        raise ProxyError(
            502,
            f"Could not list the upstream's models ({type(error).__name__}).",
            code="upstream_unreachable",
        ) from None
    await send(
        {
            "type": "http.response.start",
            "status": response.status_code,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": response.content})


ROUTES = {("POST", "/v1/chat/completions"): chat_completions, ("GET", "/v1/models"): list_models}


async def application(scope, receive, send) -> None:
    """The ASGI entry point for every path under /v1/."""
    request_id = uuid.uuid4().hex
    logs.request_id.set(request_id)
    handler = ROUTES.get((scope["method"], scope["path"].rstrip("/")))
    try:
        if handler is None:
            raise ProxyError(
                404,
                f"Unknown endpoint {scope['method']} {scope['path']}: this proxy serves POST /v1/chat/completions and GET /v1/models.",
                code="unknown_url",
            )
        with activity.serving:  # the embedded profile's extraction waits for a pause
            await handler(scope, receive, send, request_id)
    except keys.AuthError as error:
        await send_error(send, ProxyError(401, error.message, code=error.code), request_id)
    except ProxyError as error:
        await send_error(send, error, request_id)
    except ClientGone:
        pass
    except DatabaseError:
        log.exception("request %s: database unavailable", request_id)
        await send_error(
            send,
            ProxyError(
                503,
                "The memory database is unavailable; retry in a few seconds.",
                code="service_unavailable",
            ),
            request_id,
        )
