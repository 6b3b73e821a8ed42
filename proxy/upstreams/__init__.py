"""Upstream providers: which one a model routes to, and the adapter that speaks its protocol."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.conf import settings


class UpstreamStreamError(Exception):
    """The upstream reported an error in the middle of a stream; the message is its own."""


@dataclass(frozen=True)
class Target:
    kind: str  # openai | anthropic | gemini
    base_url: str  # without a trailing slash
    api_key: str = field(repr=False, default="")
    name: str = "default"


@dataclass(frozen=True)
class UpstreamRequest:
    url: str
    headers: dict[str, str]
    json: dict[str, Any]


class StreamTranslator(Protocol):
    def feed(self, event: str, data: str) -> list[dict]:
        """OpenAI chat.completion.chunk objects for one upstream SSE event."""

    def finish(self) -> list[dict]:
        """Chunks owed at the end of the stream (the usage chunk, when asked for)."""


class Adapter(Protocol):
    relay_raw: bool  # True when upstream SSE bytes are already OpenAI's and are relayed as they are

    def request(self, body: dict[str, Any], target: Target, stream: bool) -> UpstreamRequest: ...

    def response(self, data: Any, model: str) -> dict[str, Any]: ...

    def stream(self, model: str, include_usage: bool) -> StreamTranslator: ...

    def error(self, status: int, body: bytes) -> str:
        """The upstream's own error message, to be relayed in OpenAI form."""


def adapter_for(kind: str) -> Adapter:
    from proxy.upstreams import anthropic, gemini, openai

    return {"openai": openai.ADAPTER, "anthropic": anthropic.ADAPTER, "gemini": gemini.ADAPTER}[
        kind
    ]


def default_target() -> Target:
    return Target(
        kind="openai",
        base_url=settings.TOKENMIZER_UPSTREAM_URL.rstrip("/"),
        api_key=settings.TOKENMIZER_UPSTREAM_KEY,
    )


def resolve(upstreams: Iterable[Any], model: str) -> Target:
    """The first configured upstream whose patterns match ``model``, else the server's default.

    ``upstreams`` are Upstream rows (or anything with their fields), in priority order. The
    credential is read from the environment variable the row names, never from the database.
    """
    for up in upstreams:
        patterns = [p.strip() for p in up.model_patterns.split(",") if p.strip()]
        if any(fnmatch.fnmatchcase(model, p) for p in patterns):
            key = os.environ.get(up.api_key_env, "") if up.api_key_env else ""
            return Target(kind=up.kind, base_url=up.base_url.rstrip("/"), api_key=key, name=up.name)
    return default_target()
