"""What the loopback provider answers: behaviours by model name, the reply, and SSE framing."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from memory.graph.tokens import count, count_messages

BEHAVIOURS = (
    "midstream-error",
    "error-500",
    "error-429",
    "garbage",
    "tools",
    "slow",
    "abort",
    "drip",
    "extract",
    "echo",
)
DEFAULT_TOOLS = ("get_weather", "get_time")
TOOL_ARGUMENTS = ({"city": "Paris"}, {"city": "Tokyo"})


def behaviour_of(model: str) -> str:
    """The behaviour a model name asks for: the name itself or its last ``-`` suffix."""
    name = model.rsplit("/", 1)[-1]
    for behaviour in BEHAVIOURS:
        if name == behaviour or name.endswith("-" + behaviour):
            return behaviour
    return "echo"


@dataclass
class Prompt:
    """What a request asked, whatever the protocol: enough to build a reply and count tokens."""

    count: int
    last_user: str
    tool_names: list[str]
    answered_tools: bool
    messages: list[dict[str, Any]]  # OpenAI-shaped, for counting


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]

    @property
    def text(self) -> str:
        return json.dumps(self.arguments)


@dataclass
class Reply:
    seq: int
    pieces: list[str]
    calls: list[Call]
    prompt_tokens: int
    completion_tokens: int
    created: int = field(default_factory=lambda: int(time.time()))

    @property
    def text(self) -> str:
        return "".join(self.pieces)


def build_reply(prompt: Prompt, behaviour: str, model: str, seq: int, drip_chunks: int) -> Reply:
    calls: list[Call] = []
    if behaviour == "tools" and not prompt.answered_tools:
        names = prompt.tool_names or list(DEFAULT_TOOLS)
        calls = [Call(names[i % len(names)], TOOL_ARGUMENTS[i]) for i in range(2)]
        pieces: list[str] = []
    elif behaviour == "drip":
        pieces = [f"drip {i} " for i in range(1, drip_chunks + 1)]
    elif behaviour == "extract":
        pieces = [json.dumps({"facts": extraction_facts(prompt.last_user)})]
    else:
        words = " ".join(prompt.last_user.split()[:8])
        pieces = re.findall(r"\S+\s*", f"echo: {prompt.count} messages; last: {words}")
    completion = count("".join(pieces), model) + sum(count(c.name + c.text, model) for c in calls)
    return Reply(seq, pieces, calls, count_messages(prompt.messages, model), completion)


_TURN_LINE = re.compile(r"^\[#(\d+) \w+\] (.*)$", re.MULTILINE)
_DECIDED = re.compile(r"Decided: ([^.\n]+)")


def extraction_facts(prompt_text: str) -> list[dict[str, Any]]:
    """A stand-in for an LLM extractor: each "Decided: X" of the prompt's turns as a grounded fact,
    plus one fact no message states (which the grounding check must drop)."""
    facts, first = [], None
    for position, text in _TURN_LINE.findall(prompt_text):
        first = first if first is not None else int(position)
        for label in _DECIDED.findall(text):
            fact = {"type": "decision", "label": label.strip(), "status": "completed"}
            facts.append({**fact, "quote": f"Decided: {label}", "source": int(position)})
    invented = {"type": "decision", "label": "MongoDB for everything", "status": "completed"}
    facts.append({**invented, "quote": "we chose MongoDB for everything", "source": first or 0})
    return [{"reason": "", "replaces": "", "fixes": "", **f} for f in facts]


def halves(text: str) -> list[str]:
    middle = len(text) // 2
    return [text[:middle], text[middle:]]


def plain_text(content: Any) -> str:
    """The text of a string, or of the text parts/blocks in a list."""
    if isinstance(content, str):
        return content
    texts = [p.get("text") for p in content or [] if isinstance(p, dict)]
    return " ".join(t for t in texts if isinstance(t, str))


def sse(payload: Any, newline: str = "\n") -> bytes:
    return f"data: {json.dumps(payload)}{newline}{newline}".encode()


def event(name: str, payload: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode()
