"""The loopback provider's ASGI app, and the server running it in a background thread."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import logging
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

import uvicorn

from proxy.loopback.anthropic import AnthropicWire
from proxy.loopback.gemini import GeminiWire
from proxy.loopback.openai import OpenAIWire
from proxy.loopback.replies import BEHAVIOURS, Reply, behaviour_of, build_reply

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Wire = OpenAIWire | AnthropicWire | GeminiWire
WIRES: dict[str, Wire] = {
    "openai": OpenAIWire(),
    "anthropic": AnthropicWire(),
    "gemini": GeminiWire(),
}
FEW = 3  # frames sent before a midstream error or an abort
SSE_TYPE = b"text/event-stream; charset=utf-8"
GARBAGE_BODY = b"this is not JSON {"
GARBAGE_STREAM = [
    b'data: {"id": "chatcmpl-garbage", "choices": [{"delta": {"content": "ha\n\n',
    b"data: not json at all\n\n",
    b"\x00\xff\xfe binary junk\n\n",
]


class Dropped(Exception):
    """Raised inside the app to make uvicorn drop the connection mid-response (``abort``)."""


class _QuietDrops(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], Dropped))


async def read_body(receive: Receive) -> bytes:
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return body
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


async def respond(send: Send, status: int, payload: Any, headers: list | None = None) -> None:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    start = [(b"content-type", b"application/json"), *(headers or [])]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": body})


async def watch_disconnect(receive: Receive, gone: asyncio.Event) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    gone.set()


class LoopbackApp:
    """The ASGI app. Knobs are plain attributes; ``reset()`` restores them and clears records."""

    def __init__(
        self,
        slow_seconds: float = 10.0,
        drip_chunks: int = 5,
        drip_delay: float = 0.1,
        retry_after: int = 1,
        strict: bool = True,
    ) -> None:
        self._defaults = dict(
            slow_seconds=slow_seconds,
            drip_chunks=drip_chunks,
            drip_delay=drip_delay,
            retry_after=retry_after,
            strict=strict,  # refuse requests the real provider would refuse (tool pairing etc.)
        )
        self.slow_seconds, self.drip_chunks, self.drip_delay = slow_seconds, drip_chunks, drip_delay
        self.retry_after, self.strict = retry_after, strict
        self._changed = threading.Condition()
        self._requests: list[dict[str, Any]] = []
        self._cancelled = 0
        self._seq = itertools.count(1)
        self._closing = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The requests received so far, oldest first: method, path, query, headers, body (JSON)."""
        with self._changed:
            return list(self._requests)

    @property
    def cancelled(self) -> int:
        """Streaming responses whose client went away before the end."""
        with self._changed:
            return self._cancelled

    def reset(self) -> None:
        with self._changed:
            self._requests.clear()
            self._cancelled = 0
            for name, value in self._defaults.items():
                setattr(self, name, value)

    def wait_for(self, predicate: Callable[[LoopbackApp], bool], timeout: float = 5.0) -> bool:
        """Block until ``predicate(server)`` holds; re-checked on each request and cancellation."""
        with self._changed:
            return self._changed.wait_for(lambda: predicate(self), timeout)

    def wait_cancelled(self, n: int = 1, timeout: float = 5.0) -> bool:
        """Block until at least ``n`` streams were cancelled by their client; False on timeout."""
        return self.wait_for(lambda server: server.cancelled >= n, timeout)

    def wait_requests(self, n: int = 1, timeout: float = 5.0) -> bool:
        """Block until at least ``n`` requests arrived; False on timeout."""
        return self.wait_for(lambda server: len(server.requests) >= n, timeout)

    def _note(self, recorded: dict[str, Any] | None = None) -> None:
        with self._changed:
            if recorded is None:
                self._cancelled += 1
            else:
                self._requests.append(recorded)
            self._changed.notify_all()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        self._loop = asyncio.get_running_loop()
        raw = await read_body(receive)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        query = scope.get("query_string", b"").decode("latin-1")
        method, path = scope["method"], scope["path"]
        self._note(
            {
                "method": method,
                "path": path,
                "query": query,
                "headers": headers,
                "body": body,
                "raw": raw,
            }
        )
        if method == "GET" and path == "/v1/models":
            return await respond(send, 200, self._models())
        wire = self._route(method, path)
        if wire is None:
            return await respond(send, 404, {"error": {"message": f"No route for {method} {path}"}})
        await self._provider(wire, scope, body, headers, receive, send)

    def _route(self, method: str, path: str) -> Wire | None:
        if method != "POST":
            return None
        if path == "/v1/chat/completions":
            return WIRES["openai"]
        if path == "/v1/messages":
            return WIRES["anthropic"]
        return WIRES["gemini"] if GeminiWire.GEMINI_PATH.match(path) else None

    def _models(self) -> dict[str, Any]:
        data = [
            {"id": b, "object": "model", "created": 0, "owned_by": "loopback"} for b in BEHAVIOURS
        ]
        return {"object": "list", "data": data}

    async def _provider(
        self, wire: Wire, scope: Scope, body: Any, headers: dict, receive: Receive, send: Send
    ) -> None:
        if not isinstance(body, dict):
            return await respond(send, 400, wire.error(400))
        model = wire.model(body, scope)
        behaviour = behaviour_of(model)
        problem = wire.invalid(body, headers) if self.strict else None
        if problem:
            return await respond(send, 400, wire.bad_request(problem))
        if behaviour == "error-500":
            return await respond(send, 500, wire.error(500))
        if behaviour == "error-429":
            return await respond(
                send, 429, wire.error(429), [(b"retry-after", str(self.retry_after).encode())]
            )
        gone = asyncio.Event()
        watcher = asyncio.create_task(watch_disconnect(receive, gone))
        try:
            if behaviour == "slow":
                await self._pause(self.slow_seconds, gone)
                if gone.is_set():
                    return self._note() if wire.wants_stream(body, scope) else None
            reply = build_reply(
                wire.prompt(body), behaviour, model, next(self._seq), self.drip_chunks
            )
            if wire.wants_stream(body, scope):
                await self._stream(wire, scope, body, model, reply, behaviour, send, gone)
            else:
                await self._answer(wire, model, reply, behaviour, send, gone)
        finally:
            watcher.cancel()

    async def _answer(
        self, wire: Wire, model: str, reply: Reply, behaviour: str, send: Send, gone: asyncio.Event
    ) -> None:
        if behaviour == "garbage":
            return await respond(send, 200, GARBAGE_BODY)
        if behaviour == "midstream-error":
            return await respond(send, 500, wire.error(500))
        if behaviour == "drip":
            await self._pause(self.drip_delay * self.drip_chunks, gone)
        body = json.dumps(wire.message(reply, model)).encode()
        if behaviour != "abort":
            return await respond(send, 200, body)
        length = str(len(body)).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", length)]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send(
            {"type": "http.response.body", "body": body[: len(body) // 2], "more_body": True}
        )
        raise Dropped("abort: connection dropped mid-body")

    async def _stream(
        self,
        wire: Wire,
        scope: Scope,
        body: dict,
        model: str,
        reply: Reply,
        behaviour: str,
        send: Send,
        gone: asyncio.Event,
    ) -> None:
        frames = self._frames(wire, scope, body, model, reply, behaviour)
        if not isinstance(frames, list):  # Gemini without alt=sse: one JSON array, not SSE
            return await respond(send, 200, frames)
        headers = [(b"content-type", SSE_TYPE), (b"cache-control", b"no-cache")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for i, data in enumerate(frames):
            if behaviour == "drip" and i:
                await self._pause(self.drip_delay, gone)
            await asyncio.sleep(0)  # lets the watcher see a disconnect before the next frame
            if gone.is_set():
                return self._note()
            await send({"type": "http.response.body", "body": data, "more_body": True})
        if behaviour == "abort":
            raise Dropped("abort: connection dropped mid-stream")
        await send({"type": "http.response.body", "body": b""})

    def _frames(
        self, wire: Wire, scope: Scope, body: dict, model: str, reply: Reply, behaviour: str
    ) -> list[bytes] | bytes:
        if behaviour == "garbage":
            return GARBAGE_STREAM
        if isinstance(wire, GeminiWire) and "sse" not in parse_qs(
            scope["query_string"].decode()
        ).get("alt", []):
            return json.dumps(wire.responses(reply, model)).encode()
        frames = wire.frames(reply, model, body)
        if behaviour == "midstream-error":
            return [*frames[:FEW], wire.stream_error()]
        return frames[:FEW] if behaviour == "abort" else frames

    async def _pause(self, seconds: float, gone: asyncio.Event) -> None:
        """Sleep, but wake early when the client goes away or the server shuts down."""
        waiters = [asyncio.ensure_future(gone.wait()), asyncio.ensure_future(self._closing.wait())]
        try:
            await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()


class LoopbackServer(LoopbackApp):
    """The app served by uvicorn on 127.0.0.1 and a free port, in a background thread."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, **knobs: Any) -> None:
        super().__init__(**knobs)
        self.host, self.port = host, port
        self._server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None  # serving while alive

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> LoopbackServer:
        logging.getLogger("uvicorn.error").addFilter(_QUIET)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        self._closing = asyncio.Event()
        config = uvicorn.Config(
            self,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            ws="none",
            timeout_graceful_shutdown=5,
        )
        self._server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [sock]},
            name="loopback-provider",
            daemon=True,
        )
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the loopback provider server did not start")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        if self._server is None or self.thread is None:
            return
        self._server.should_exit = True
        if self._loop is not None and not self._loop.is_closed():
            try:
                self._loop.call_soon_threadsafe(self._closing.set)
            except RuntimeError:
                pass  # the loop finished between the check and the call
        self.thread.join(timeout=10)
        if self.thread.is_alive():
            raise RuntimeError("the loopback provider server did not stop within 10 s")
        self._server, self._loop = None, None

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


_QUIET = _QuietDrops()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m proxy.loopback",
        description="A loopback provider speaking OpenAI's, Anthropic's and Gemini's protocols.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--slow-seconds", type=float, default=10.0)
    parser.add_argument("--drip-chunks", type=int, default=5)
    parser.add_argument("--drip-delay", type=float, default=0.1)
    parser.add_argument(
        "--lenient", action="store_true", help="accept requests the provider refuses"
    )
    args = parser.parse_args(argv)
    app = LoopbackApp(args.slow_seconds, args.drip_chunks, args.drip_delay, strict=not args.lenient)
    logging.getLogger("uvicorn.error").addFilter(_QUIET)
    print(
        f"loopback provider on http://{args.host}:{args.port} "
        "(OpenAI and Anthropic under /v1, Gemini under /v1beta)"
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="info", lifespan="off")
