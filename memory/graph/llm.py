"""Optional LLM extraction: a model proposes facts as JSON; only the grounded ones survive."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from memory.graph.redact import redact
from memory.graph.types import Candidate, Evidence, NodeType, Status, Turn

LLM_CONFIDENCE = 0.8  # self-reported model confidence is uncalibrated; grounding is the real check
MAX_TURN_CHARS = 6000  # keeps one huge tool output from swamping the prompt
MAX_LABEL_CHARS = 200
# Statuses an extractor may state; superseded, archived and contested are lifecycle's to decide.
EXTRACTABLE_STATUSES = (
    Status.PENDING,
    Status.IN_PROGRESS,
    Status.COMPLETED,
    Status.FAILED,
    Status.INVALIDATED,
)
_FIELDS = ("type", "label", "status", "quote", "source", "reason", "replaces", "fixes")

RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["facts"],
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": list(_FIELDS),
                "properties": {
                    "type": {"type": "string", "enum": [t.value for t in NodeType]},
                    "label": {"type": "string", "minLength": 1, "maxLength": MAX_LABEL_CHARS},
                    "status": {"type": "string", "enum": [s.value for s in EXTRACTABLE_STATUSES]},
                    "quote": {"type": "string", "minLength": 1},
                    "source": {"type": "integer", "minimum": 0},
                    "reason": {"type": "string"},
                    "replaces": {"type": "string"},
                    "fixes": {"type": "string"},
                },
            },
        }
    },
}

EXTRACTION_PROMPT = f"""\
You extract the working state of a software session from its messages, for a memory that must
never hold a fact the messages do not state.

Messages appear as "[#<position> <role>] <text>". Messages under CONTEXT are earlier turns: read
them to resolve references such as "it" or "that one", but extract facts only from messages under
NEW.

Report each fact once, as an object with:
- type: one of {", ".join(t.value for t in NodeType)}
- label: a short name using the message's own words (a file path, a task, the option chosen)
- status: one of {", ".join(s.value for s in EXTRACTABLE_STATUSES)}. For a decision,
  "completed" means adopted and "invalidated" means the message says it is wrong. For a task,
  "completed" means done. For an error, "completed" means fixed.
- quote: the exact words of the message the fact is read from, copied verbatim
- source: the position of that message
- reason: why, only if the message says so; otherwise ""
- replaces: for a decision, the option the message says it replaces; otherwise ""
- fixes: for a fix, the label of the error it resolves; otherwise ""

Do not guess, summarise or infer intent. Considering an option is not deciding it. Leave out
greetings, opinions and anything the messages do not state. Never copy secrets.

Reply with JSON only, no prose: {{"facts": [ ... ]}} matching this JSON Schema:
{json.dumps(RESPONSE_SCHEMA, separators=(",", ":"))}
"""

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_WORD = re.compile(r"\w(?:[\w.+#/\-']*\w)?")
_STOPWORDS = frozenset(
    "a an the to of and or in on at by for with from into onto as is are be been was were it its "
    "this that these those we our us i you your they their".split()
)


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _format_turn(turn: Turn) -> str:
    text = redact(turn.content)
    if len(text) > MAX_TURN_CHARS:
        text = text[:MAX_TURN_CHARS] + f" … [{len(turn.content) - MAX_TURN_CHARS} more characters]"
    return f"[#{turn.position} {turn.role}] {text}"


def build_messages(turns: Sequence[Turn], context: Sequence[Turn] = ()) -> list[dict[str, str]]:
    """The chat request the model sees: the instructions, then the context and new turns."""
    parts = []
    if context:
        parts += ["CONTEXT (do not extract from these):", *map(_format_turn, context), ""]
    parts += ["NEW (extract from these):", *map(_format_turn, turns)]
    return [
        {"role": "system", "content": EXTRACTION_PROMPT},
        {"role": "user", "content": "\n".join(parts)},
    ]


def _parse(reply: str) -> list[Any]:
    """The list of fact objects in a reply: bare JSON, fenced JSON, or JSON inside prose."""
    attempts = [reply.strip()]
    attempts += [m.group(1).strip() for m in _FENCE.finditer(reply)]
    for opener, closer in ("{}", "[]"):
        start, end = reply.find(opener), reply.rfind(closer)
        if 0 <= start < end:
            attempts.append(reply[start : end + 1])
    for text in attempts:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("facts"), list):
            return data["facts"]
        if isinstance(data, list):
            return data
    return []


def _as_position(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("#").isdigit():
        return int(value.strip().lstrip("#"))
    return None


def _fields(item: Any) -> dict[str, Any] | None:
    """The fields of one reply item if it satisfies RESPONSE_SCHEMA (extra keys are ignored)."""
    if not isinstance(item, dict):
        return None
    out = {f: item.get(f, "") for f in _FIELDS}
    out["source"] = _as_position(item.get("source"))
    if out["source"] is None or out["source"] < 0:
        return None
    if not all(isinstance(out[f], str) for f in _FIELDS if f != "source"):
        return None
    if out["type"] not in NodeType._value2member_map_:
        return None
    if out["status"] not in {s.value for s in EXTRACTABLE_STATUSES}:
        return None
    out["label"] = " ".join(out["label"].split())
    if not out["label"] or len(out["label"]) > MAX_LABEL_CHARS or not out["quote"].strip():
        return None
    return out


def _content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(_fold(text)) if w not in _STOPWORDS]


def _grounded(text: str, source: str) -> bool:
    """Whether every content word of ``text`` occurs as a word in ``source`` (case-insensitive)."""
    words = _content_words(text)
    return bool(words) and all(
        re.search(r"(?<!\w)" + re.escape(w) + r"(?!\w)", source) for w in words
    )


def _candidate(fields: dict[str, Any], source: str, everything: str) -> Candidate | None:
    if _fold(fields["quote"]) not in source or not _grounded(fields["label"], source):
        return None
    reason = fields["reason"].strip()
    replaces = fields["replaces"].strip()
    fixes = fields["fixes"].strip()
    # Unstated extras are blanked rather than fatal: an invented "replaces" would supersede a
    # decision the user never dropped.
    return Candidate(
        type=NodeType(fields["type"]),
        label=fields["label"],
        status=Status(fields["status"]),
        confidence=LLM_CONFIDENCE,
        evidence=Evidence(fields["source"], fields["quote"].strip()),
        reason=reason if reason and _grounded(reason, source) else "",
        replaces=replaces if replaces and _grounded(replaces, source) else "",
        fixes=fixes if fixes and _grounded(fixes, everything) else "",
        cue="llm",
    )


def ground(
    items: Sequence[Any], turns: Sequence[Turn], context: Sequence[Turn] = ()
) -> list[Candidate]:
    """The reply items that are well formed and stated by the new turn they cite, in reply order."""
    sources = {t.position: _fold(t.content) for t in turns}
    everything = " ".join(_fold(t.content) for t in (*context, *turns))
    out, seen = [], set()
    for item in items:
        fields = _fields(item)
        if fields is None or fields["source"] not in sources:
            continue
        candidate = _candidate(fields, sources[fields["source"]], everything)
        if candidate is None:
            continue
        key = (candidate.key, candidate.evidence.position)
        if key not in seen:
            seen.add(key)
            out.append(candidate)
    return out


class LLMExtractor:
    """Extraction by a model, behind the deterministic extractor's ``extract`` interface.

    ``complete`` sends chat messages to a model and returns its text. Its errors propagate, so a
    worker can retry instead of marking turns extracted; a reply that is not usable JSON gives [].
    """

    def __init__(self, complete: Callable[[list[dict[str, str]]], str]) -> None:
        self.complete = complete

    def extract(self, turns: Sequence[Turn], context: Sequence[Turn] = ()) -> list[Candidate]:
        if not turns:
            return []
        reply = self.complete(build_messages(turns, context))
        if not isinstance(reply, str):
            return []
        return ground(_parse(reply), turns, context)
