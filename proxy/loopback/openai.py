"""OpenAI's Chat Completions wire format, as the loopback provider speaks it."""

from __future__ import annotations

from typing import Any

from proxy.loopback.replies import Prompt, Reply, halves, plain_text, sse

Scope = dict[str, Any]


class OpenAIWire:
    """POST /v1/chat/completions."""

    def model(self, body: dict[str, Any], scope: Scope) -> str:
        return str(body.get("model") or "echo")

    def wants_stream(self, body: dict[str, Any], scope: Scope) -> bool:
        return bool(body.get("stream"))

    def prompt(self, body: dict[str, Any]) -> Prompt:
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        users = [m for m in messages if m.get("role") == "user"]
        return Prompt(
            count=len(messages),
            last_user=plain_text(users[-1].get("content")) if users else "",
            tool_names=[(t.get("function") or {}).get("name", "") for t in body.get("tools") or []],
            answered_tools=bool(messages) and messages[-1].get("role") == "tool",
            messages=messages,
        )

    def invalid(self, body: dict[str, Any], headers: dict[str, str]) -> str | None:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return "[] is too short - 'messages'"
        pending: set[str] = set()
        for i, message in enumerate(messages):
            if not isinstance(message, dict):
                return f"Invalid type for 'messages[{i}]': expected an object."
            if message.get("role") == "tool":
                if message.get("tool_call_id") not in pending:
                    return (
                        "Invalid parameter: messages with role 'tool' must be a response to a "
                        "preceeding message with 'tool_calls'."
                    )
                pending.discard(message["tool_call_id"])
                continue
            if pending:
                break
            if message.get("role") == "assistant":
                pending = {c.get("id") for c in message.get("tool_calls") or []}
        if pending:
            return (
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(sorted(pending))}"
            )
        return None

    def error(self, status: int) -> dict[str, Any]:
        if status == 429:
            message, kind, code = (
                "Rate limit reached for requests.",
                "requests",
                "rate_limit_exceeded",
            )
        elif status == 400:
            message, kind, code = (
                "We could not parse the JSON body of your request.",
                "invalid_request_error",
                None,
            )
        else:
            message = "The server had an error while processing your request. Sorry about that!"
            kind, code = "server_error", None
        return self.bad_request(message, kind, code)

    def bad_request(
        self, message: str, kind: str = "invalid_request_error", code: Any = None
    ) -> dict:
        return {"error": {"message": message, "type": kind, "param": None, "code": code}}

    def _calls(self, reply: Reply) -> list[dict[str, Any]]:
        return [
            {
                "id": f"call_loopback_{reply.seq}_{i}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.text},
            }
            for i, call in enumerate(reply.calls)
        ]

    def _usage(self, reply: Reply) -> dict[str, int]:
        return {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        }

    def _head(self, reply: Reply, model: str, kind: str) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-loopback-{reply.seq}",
            "object": kind,
            "created": reply.created,
            "model": model,
            "system_fingerprint": "fp_loopback",
        }

    def message(self, reply: Reply, model: str) -> dict[str, Any]:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.text or None,
            "refusal": None,
        }
        if reply.calls:
            message["tool_calls"] = self._calls(reply)
        finish = "tool_calls" if reply.calls else "stop"
        choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
        return {
            **self._head(reply, model, "chat.completion"),
            "choices": [choice],
            "usage": self._usage(reply),
        }

    def frames(self, reply: Reply, model: str, body: dict[str, Any]) -> list[bytes]:
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        head = self._head(reply, model, "chat.completion.chunk")

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            extra = {"usage": None} if include_usage else {}
            return sse({**head, "choices": [choice], **extra})

        out = [chunk({"role": "assistant", "content": "", "refusal": None})]
        out += [chunk({"content": piece}) for piece in reply.pieces]
        for i, call in enumerate(self._calls(reply)):
            first = {**call, "function": {"name": call["function"]["name"], "arguments": ""}}
            out.append(chunk({"tool_calls": [{"index": i, **first}]}))
            for fragment in halves(call["function"]["arguments"]):
                out.append(
                    chunk({"tool_calls": [{"index": i, "function": {"arguments": fragment}}]})
                )
        out.append(chunk({}, "tool_calls" if reply.calls else "stop"))
        if include_usage:
            out.append(sse({**head, "choices": [], "usage": self._usage(reply)}))
        return [*out, b"data: [DONE]\n\n"]

    def stream_error(self) -> bytes:
        return sse(self.error(500))
