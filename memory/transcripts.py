"""Recording a session's transcript: each message once, whatever the client resends."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from memory.graph import redact, tokens
from memory.graph.alignment import ResentHistory, align
from memory.models import Message, Session
from tokenmizer_site import sql


@dataclass(frozen=True)
class Recorded:
    new: list[Message]
    diverged_at: int | None


def message_text(content) -> str:
    """The text of an OpenAI message content: a string, or a list of parts (images left out)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "text":
            parts.append(str(part.get("text", "")))
        elif isinstance(part, dict):
            parts.append(f"[{part.get('type', 'part')}]")
    return "\n".join(parts)


def _redact_strings(value):
    """``value`` (parsed JSON) with every string in it redacted."""
    if isinstance(value, str):
        return redact.redact(value)
    if isinstance(value, list):
        return [_redact_strings(v) for v in value]
    if isinstance(value, dict):
        return {k: _redact_strings(v) for k, v in value.items()}
    return value


def clean_message(message: dict) -> dict:
    """The message as it is stored: text content, secrets redacted, only the fields we keep."""
    text = redact.redact(message_text(message.get("content")))
    clean = {"role": str(message.get("role", "")), "content": text}
    if message.get("name"):
        clean["name"] = str(message["name"])
    if message.get("tool_calls"):
        clean["tool_calls"] = _redact_strings(message["tool_calls"])
    if message.get("tool_call_id"):
        clean["tool_call_id"] = str(message["tool_call_id"])
    return clean


def _cleaned_and_hashed(message: dict) -> tuple[dict, str]:
    clean = clean_message(message)
    return clean, tokens.content_hash(clean)


# Each session's last recorded history: what the next exchange resends is not cleaned again.
_recorded = ResentHistory()


def record_messages(session: Session, messages: list[dict], model: str | None = None) -> Recorded:
    """Store the messages of ``messages`` not stored yet, in one transaction with the session locked."""
    pairs = _recorded.values(session.pk, messages, _cleaned_and_hashed)
    cleaned, hashes = [c for c, _ in pairs], [h for _, h in pairs]
    with transaction.atomic(savepoint=False):  # plain SQL: this runs after every exchange
        sql.lock(Session, session.pk)
        stored = sql.column_values(Message, "session", session.pk, "content_hash", "position")
        alignment = align(stored, hashes)
        now = timezone.now()
        rows = [
            Message(
                session=session,
                position=len(stored) + offset,
                role=m["role"],
                name=m.get("name", ""),
                content=m["content"],
                tool_calls=m.get("tool_calls"),
                tool_call_id=m.get("tool_call_id", ""),
                token_count=tokens.count_message(m, model),
                content_hash=h,
                created_at=now,
            )
            for offset, (m, h) in enumerate(
                zip(cleaned[alignment.new_from :], hashes[alignment.new_from :], strict=True)
            )
        ]
        sql.insert_rows(Message, rows)
        session.updated_at, changed = now, ["updated_at"]
        if alignment.diverged_at is not None:
            session.diverged_at_position, session.diverged_at = alignment.diverged_at, now
            changed += ["diverged_at_position", "diverged_at"]
        sql.update_rows(Session, [session], changed)
    return Recorded(new=rows, diverged_at=alignment.diverged_at)
