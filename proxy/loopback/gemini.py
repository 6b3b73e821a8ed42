"""Gemini's generateContent wire format, as the loopback provider speaks it."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from proxy.loopback.replies import Prompt, Reply, plain_text, sse

Scope = dict[str, Any]


class GeminiWire:
    """POST /v1beta/models/{model}:generateContent and :streamGenerateContent (?alt=sse)."""

    GEMINI_PATH = re.compile(r"^/v1(?:beta|alpha)?/models/(?P<model>[^:]+):(?P<method>\w+)$")

    def model(self, body: dict[str, Any], scope: Scope) -> str:
        match = self.GEMINI_PATH.match(scope["path"])
        return unquote(match.group("model")) if match else "echo"

    def wants_stream(self, body: dict[str, Any], scope: Scope) -> bool:
        return scope["path"].endswith(":streamGenerateContent")

    def prompt(self, body: dict[str, Any]) -> Prompt:
        contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
        users = [
            c for c in contents if c.get("role", "user") == "user" and plain_text(c.get("parts"))
        ]
        system = plain_text((body.get("systemInstruction") or {}).get("parts"))
        counted = [{"role": "system", "content": system}] if system else []
        counted += [{"role": c.get("role"), "content": c.get("parts")} for c in contents]
        declared = [d for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []]
        last = contents[-1].get("parts") if contents else []
        return Prompt(
            count=len(contents),
            last_user=plain_text(users[-1].get("parts")) if users else "",
            tool_names=[str(d.get("name")) for d in declared],
            answered_tools=any("functionResponse" in p for p in last or []),
            messages=counted,
        )

    def invalid(self, body: dict[str, Any], headers: dict[str, str]) -> str | None:
        contents = body.get("contents")
        if not isinstance(contents, list) or not contents:
            return "* GenerateContentRequest.contents: contents is not specified"
        calls = 0
        for content in contents:
            if not isinstance(content, dict) or content.get("role", "user") not in (
                "user",
                "model",
            ):
                return "Please use a valid role: user, model."
            parts = content.get("parts") or []
            responses = sum("functionResponse" in p for p in parts)
            if responses and responses != calls:
                return (
                    "Please ensure that the number of function response parts is equal to the "
                    "number of function call parts of the function call turn."
                )
            calls = sum("functionCall" in p for p in parts) if content.get("role") == "model" else 0
        return None

    def error(self, status: int) -> dict[str, Any]:
        if status == 429:
            message = "You exceeded your current quota, please check your plan and billing details."
            return self.bad_request(message, 429, "RESOURCE_EXHAUSTED")
        if status == 400:
            return self.bad_request("Invalid JSON payload received.")
        return self.bad_request("An internal error has occurred. Please retry.", 500, "INTERNAL")

    def bad_request(self, message: str, code: int = 400, status: str = "INVALID_ARGUMENT") -> dict:
        return {"error": {"code": code, "message": message, "status": status}}

    def _usage(self, reply: Reply, completion: int) -> dict[str, int]:
        return {
            "promptTokenCount": reply.prompt_tokens,
            "candidatesTokenCount": completion,
            "totalTokenCount": reply.prompt_tokens + completion,
        }

    def _response(self, reply: Reply, model: str, parts: list[dict], done: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if done:
            candidate["finishReason"] = "STOP"
        completion = reply.completion_tokens if done else 0
        return {
            "candidates": [candidate],
            "usageMetadata": self._usage(reply, completion),
            "modelVersion": model,
            "responseId": f"loopback-{reply.seq}",
        }

    def _parts(self, reply: Reply) -> list[dict[str, Any]]:
        return [{"functionCall": {"name": c.name, "args": c.arguments}} for c in reply.calls]

    def message(self, reply: Reply, model: str) -> dict[str, Any]:
        parts = ([{"text": reply.text}] if reply.text else []) + self._parts(reply)
        return self._response(reply, model, parts, done=True)

    def responses(self, reply: Reply, model: str) -> list[dict[str, Any]]:
        steps = [[{"text": piece}] for piece in reply.pieces]
        if reply.calls:
            steps.append(self._parts(reply))
        steps = steps or [[{"text": ""}]]
        return [self._response(reply, model, p, i == len(steps) - 1) for i, p in enumerate(steps)]

    def frames(self, reply: Reply, model: str, body: dict[str, Any]) -> list[bytes]:
        return [sse(r, "\r\n") for r in self.responses(reply, model)]

    def stream_error(self) -> bytes:
        return sse(self.error(500), "\r\n")
