"""OpenAI-compatible upstreams (OpenAI, DeepSeek, Mistral, OpenRouter, Grok, Ollama, vLLM, llama.cpp)."""

from __future__ import annotations

import json
from typing import Any

from proxy.upstreams import Target, UpstreamRequest


class _NoTranslation:
    def feed(self, event: str, data: str) -> list[dict]:
        return []

    def finish(self) -> list[dict]:
        return []


class OpenAIAdapter:
    relay_raw = True

    def request(self, body: dict[str, Any], target: Target, stream: bool) -> UpstreamRequest:
        headers = {"Content-Type": "application/json"}
        if target.api_key:
            headers["Authorization"] = f"Bearer {target.api_key}"
        return UpstreamRequest(f"{target.base_url}/chat/completions", headers, body)

    def response(self, data: Any, model: str) -> dict[str, Any]:
        return data

    def stream(self, model: str, include_usage: bool) -> _NoTranslation:
        return _NoTranslation()

    def error(self, status: int, body: bytes) -> str:
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict):
            err = data.get("error")
            if isinstance(err, dict) and err.get("message"):
                return str(err["message"])
            if isinstance(err, str):
                return err
            if data.get("message"):
                return str(data["message"])
        text = body.decode("utf-8", "replace").strip()
        return text[:500] or f"upstream answered HTTP {status}"


ADAPTER = OpenAIAdapter()
