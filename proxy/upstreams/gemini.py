"""Google's Gemini REST API: OpenAI chat requests, replies and streams translated both ways."""

from __future__ import annotations

import json
import mimetypes
import re
from typing import Any
from urllib.parse import quote

from proxy.upstreams import Target, UpstreamRequest, UpstreamStreamError
from proxy.upstreams.shapes import (
    SYSTEM_ROLES,
    ChunkWriter,
    assistant_message,
    completion,
    completion_id,
    data_url,
    error_message,
    event_payload,
    image_url_of,
    max_tokens_of,
    parse_arguments,
    parts_of,
    stop_list,
    system_text,
    text_of,
    tool_call,
    usage,
)

FILTERED = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}
MAX_STOP_SEQUENCES = 5
# Gemini's Schema is an OpenAPI subset: other JSON Schema keywords are refused, so they are dropped.
_SCHEMA_KEYS = {
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "propertyOrdering",
}
_FORMATS = {"enum", "date-time", "float", "double", "int32", "int64"}
_MAX_SCHEMA_DEPTH = 12  # recursive $refs are cut here
# Gemini 3 refuses replayed function calls without a thought signature; its documentation names
# this placeholder for calls it did not sign (ours come back from an OpenAI client without one).
PLACEHOLDER_SIGNATURE = "context_engineering_is_the_way_to_go"
_MAJOR = re.compile(r"gemini-(\d+)")


def _needs_signature(model: str) -> bool:
    match = _MAJOR.search(model)
    return bool(match) and int(match.group(1)) >= 3


def _type_of(value: Any, out: dict[str, Any]) -> None:
    types = value if isinstance(value, list) else [value]
    named = [str(t) for t in types if t != "null"]
    if "null" in types:
        out["nullable"] = True
    if named:
        out["type"] = named[0].upper()


def gemini_schema(
    schema: Any, defs: dict[str, Any] | None = None, depth: int = 0
) -> dict[str, Any]:
    """A JSON Schema as Gemini's Schema: local $refs inlined, unknown keywords dropped."""
    if not isinstance(schema, dict) or depth > _MAX_SCHEMA_DEPTH:
        return {}
    defs = {**(defs or {}), **(schema.get("$defs") or {}), **(schema.get("definitions") or {})}
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return gemini_schema(defs.get(ref.rsplit("/", 1)[-1]), defs, depth + 1)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            _type_of(value, out)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {k: gemini_schema(v, defs, depth + 1) for k, v in value.items()}
        elif key == "items":
            out[key] = gemini_schema(value, defs, depth + 1)
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            out["anyOf"] = [gemini_schema(v, defs, depth + 1) for v in value]
        elif key == "const":
            out["enum"] = [str(value)]
        elif key == "format" and value in _FORMATS:
            out[key] = value
        elif key == "required" and isinstance(value, list):
            names = set(schema.get("properties") or {})
            out[key] = [n for n in value if n in names]
        elif key in _SCHEMA_KEYS:
            out[key] = value
    if "enum" in out:
        out["enum"] = [str(v) for v in out["enum"]]
    return out


def _media_part(url: str) -> dict[str, Any] | None:
    found = data_url(url)
    if found:
        return {"inlineData": {"mimeType": found[0], "data": found[1]}}
    if url.startswith(("http://", "https://", "gs://")):
        mime = mimetypes.guess_type(url.split("?", 1)[0])[0] or "image/jpeg"
        return {"fileData": {"mimeType": mime, "fileUri": url}}
    return None


def _user_part(part: dict[str, Any]) -> dict[str, Any] | None:
    kind = part.get("type")
    if kind == "image_url":
        return _media_part(image_url_of(part))
    if kind == "file" and isinstance(part.get("file"), dict):
        return _media_part(str(part["file"].get("file_data") or ""))
    if kind == "input_audio" and isinstance(part.get("input_audio"), dict):
        audio = part["input_audio"]
        return {
            "inlineData": {
                "mimeType": f"audio/{audio.get('format') or 'wav'}",
                "data": audio.get("data"),
            }
        }
    text = text_of([part])
    return {"text": text} if text else None


def _model_parts(
    message: dict[str, Any], names: dict[str, str], model: str
) -> list[dict[str, Any]]:
    text = text_of(message.get("content"))
    parts: list[dict[str, Any]] = [{"text": text}] if text else []
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        name = str(function.get("name") or "")
        names[str(call.get("id"))] = name
        arguments = parse_arguments(function.get("arguments"))
        if arguments is None:
            raw = function.get("arguments")
            parts.append(
                {"text": f"[tool call {call.get('id')} arguments were not a JSON object: {raw}]"}
            )
            arguments = {}
        parts.append({"functionCall": {"name": name, "args": arguments}})
    calls = [p for p in parts if "functionCall" in p]
    if calls and _needs_signature(model):
        calls[0]["thoughtSignature"] = PLACEHOLDER_SIGNATURE
    return parts


def _function_response(message: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    name = names.get(str(message.get("tool_call_id"))) or str(message.get("name") or "tool")
    text = text_of(message.get("content"))
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    # Gemini reads {"output": …} as the function's result; an object result stands as it is.
    response = value if isinstance(value, dict) else {"output": text}
    return {"functionResponse": {"name": name, "response": response}}


def translate_contents(messages: list[dict[str, Any]], model: str = "") -> list[dict[str, Any]]:
    """OpenAI messages (system ones excepted) as Gemini contents, same-role turns merged."""
    names: dict[str, str] = {}  # tool_call_id -> function name, as the history goes
    contents: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role in SYSTEM_ROLES:
            continue
        if role == "assistant":
            turn, parts = "model", _model_parts(message, names, model)
        elif role == "tool":
            turn, parts = "user", [_function_response(message, names)]
        else:
            turn = "user"
            parts = [p for p in map(_user_part, parts_of(message.get("content"))) if p]
        if not parts:
            continue
        if contents and contents[-1]["role"] == turn:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": turn, "parts": parts})
    return contents


def translate_tools(tools: Any) -> list[dict[str, Any]]:
    declarations = []
    for tool in tools or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or tool.get("type", "function") != "function":
            continue
        declaration: dict[str, Any] = {"name": str(function.get("name") or "")}
        if function.get("description"):
            declaration["description"] = function["description"]
        parameters = gemini_schema(function.get("parameters"))
        if parameters.get("properties"):  # an OBJECT without properties is refused
            declaration["parameters"] = parameters
        declarations.append(declaration)
    return [{"functionDeclarations": declarations}] if declarations else []


def translate_tool_choice(choice: Any) -> dict[str, Any] | None:
    modes = {"auto": "AUTO", "none": "NONE", "required": "ANY"}
    if isinstance(choice, str) and choice in modes:
        return {"functionCallingConfig": {"mode": modes[choice]}}
    name = (choice.get("function") or {}).get("name") if isinstance(choice, dict) else None
    if name:
        return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [name]}}
    return None


def generation_config(body: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {}
    for ours, theirs in (
        ("temperature", "temperature"),
        ("top_p", "topP"),
        ("seed", "seed"),
        ("presence_penalty", "presencePenalty"),
        ("frequency_penalty", "frequencyPenalty"),
    ):
        if isinstance(body.get(ours), int | float):
            config[theirs] = body[ours]
    if max_tokens_of(body):
        config["maxOutputTokens"] = max_tokens_of(body)
    stops = stop_list(body.get("stop"))[:MAX_STOP_SEQUENCES]
    if stops:
        config["stopSequences"] = stops
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") in (
        "json_object",
        "json_schema",
    ):
        config["responseMimeType"] = "application/json"
        schema = (response_format.get("json_schema") or {}).get("schema")
        if schema:
            config["responseSchema"] = gemini_schema(schema)
    return config


def translate_request(body: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI chat request body as a Gemini generateContent body; other fields are dropped."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    payload: dict[str, Any] = {
        "contents": translate_contents(messages, str(body.get("model") or ""))
    }
    system = system_text(messages)
    if system:
        payload["systemInstruction"] = {"parts": [{"text": system}]}
    tools = translate_tools(body.get("tools"))
    if tools:
        payload["tools"] = tools
        choice = translate_tool_choice(body.get("tool_choice"))
        if choice:
            payload["toolConfig"] = choice
    config = generation_config(body)
    if config:
        payload["generationConfig"] = config
    return payload


def usage_of(meta: dict[str, Any]) -> dict[str, Any]:
    """OpenAI usage from usageMetadata; thinking tokens count as completion, as OpenAI's do."""
    thoughts = int(meta.get("thoughtsTokenCount") or 0)
    completion_tokens = int(meta.get("candidatesTokenCount") or 0) + thoughts
    cached = int(meta.get("cachedContentTokenCount") or 0)
    return usage(int(meta.get("promptTokenCount") or 0), completion_tokens, cached, thoughts)


def finish_reason(reason: Any, called: bool) -> str:
    if reason in FILTERED:
        return "content_filter"
    if reason == "MAX_TOKENS":
        return "length"
    return "tool_calls" if called else "stop"


def _candidate(data: dict[str, Any]) -> dict[str, Any]:
    candidates = data.get("candidates") or [{}]
    return candidates[0] if isinstance(candidates[0], dict) else {}


def _blocked(data: dict[str, Any]) -> bool:
    return not data.get("candidates") and bool(
        (data.get("promptFeedback") or {}).get("blockReason")
    )


class GeminiStream:
    """Turns streamGenerateContent's SSE responses into OpenAI chunks."""

    def __init__(self, model: str, include_usage: bool) -> None:
        self.out = ChunkWriter(model, include_usage)
        self.calls = 0
        self.usage: dict[str, Any] = {}
        self.started = False

    def feed(self, event: str, data: str) -> list[dict]:
        payload = event_payload(data, "Gemini")
        if payload is None:
            return []
        if isinstance(payload.get("error"), dict):
            error = payload["error"]
            message = str(error.get("message") or "Gemini reported an error")
            raise UpstreamStreamError(
                f"{message} ({error['status']})" if error.get("status") else message
            )
        try:
            return self._response(payload)
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            message = f"Gemini sent a response of an unexpected shape: {data[:200]}"
            raise UpstreamStreamError(message) from error

    def _response(self, payload: dict[str, Any]) -> list[dict]:
        chunks = [] if self.started else [self._start(payload)]
        self.usage = payload.get("usageMetadata") or self.usage
        candidate = _candidate(payload)
        for part in (candidate.get("content") or {}).get("parts") or []:
            chunks.extend(self._part(part))
        if candidate.get("finishReason") or _blocked(payload):
            reason = "SAFETY" if _blocked(payload) else candidate["finishReason"]
            chunks.append(self.out.chunk({}, finish=finish_reason(reason, self.calls > 0)))
        return chunks

    def finish(self) -> list[dict]:
        if self.out.include_usage and self.started:
            return [self.out.usage_chunk(usage_of(self.usage))]
        return []

    def _start(self, payload: dict[str, Any]) -> dict:
        self.started = True
        self.out.id = (
            completion_id(payload.get("responseId")) if payload.get("responseId") else self.out.id
        )
        self.out.model = str(payload.get("modelVersion") or self.out.model)
        return self.out.chunk({"role": "assistant", "content": ""})

    def _part(self, part: dict[str, Any]) -> list[dict]:
        if part.get("thought"):
            return []  # thought summaries are not part of the answer
        if part.get("text"):
            return [self.out.chunk({"content": part["text"]})]
        call = part.get("functionCall")
        if not isinstance(call, dict):
            return []
        index, self.calls = self.calls, self.calls + 1
        head = tool_call(f"call_{index}", str(call.get("name") or ""), call.get("args") or {})
        return [self.out.chunk({"tool_calls": [{"index": index, **head}]})]


class GeminiAdapter:
    relay_raw = False

    def request(self, body: dict[str, Any], target: Target, stream: bool) -> UpstreamRequest:
        model = quote(str(body.get("model") or "").removeprefix("models/"), safe="-._")
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        headers = {"Content-Type": "application/json"}
        if target.api_key:
            headers["x-goog-api-key"] = target.api_key
        url = f"{target.base_url}/models/{model}:{method}"
        return UpstreamRequest(url, headers, translate_request(body))

    def response(self, data: Any, model: str) -> dict[str, Any]:
        candidate = _candidate(data)
        text, calls = [], []
        for part in (candidate.get("content") or {}).get("parts") or []:
            if part.get("thought"):
                continue
            if "text" in part:
                text.append(str(part["text"] or ""))
            elif isinstance(part.get("functionCall"), dict):
                call = part["functionCall"]
                calls.append(
                    tool_call(
                        f"call_{len(calls)}", str(call.get("name") or ""), call.get("args") or {}
                    )
                )
        reason = "SAFETY" if _blocked(data) else candidate.get("finishReason")
        finish = finish_reason(reason, bool(calls))
        cid = completion_id(data.get("responseId"))
        message = assistant_message("".join(text), calls)
        return completion(
            cid,
            str(data.get("modelVersion") or model),
            message,
            finish,
            usage_of(data.get("usageMetadata") or {}),
        )

    def stream(self, model: str, include_usage: bool) -> GeminiStream:
        return GeminiStream(model, include_usage)

    def error(self, status: int, body: bytes) -> str:
        return error_message(status, body)


ADAPTER = GeminiAdapter()
