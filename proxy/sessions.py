"""The session side of a proxied request: finding the session, compacting, recording the exchange."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from memory import checkpoints, graphs, recall, tasks, transcripts
from memory.graph import redact, resume
from memory.models import Session
from proxy import compaction, keys
from proxy.errors import ProxyError
from proxy.models import ApiKey, RequestLog, Upstream
from proxy.tasks import llm_extract_session
from tokenmizer_site import sql

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Admitted:
    key: ApiKey
    upstreams: list[Upstream]
    session: Session | None


# Recent admissions by (Authorization header, session id): a conversation's next request is
# admitted without a database call, and a key's new session skips reading the key again (its
# entry has no session id). Only successes are kept, each for TOKENMIZER_ADMISSION_TTL_S; one
# used past half that moment is read again off the request path (``readmit``), so a
# conversation that keeps coming back never waits for the database.
_recent: dict[tuple[str | None, str | None], tuple[float, Admitted]] = {}
_RECENT_MAX = 10_000
_rereading: set[tuple[str | None, str | None]] = set()


def admitted_recently(authorization: str | None, session_id: str | None) -> Admitted | None:
    """The admission of a request with the same key and session a moment ago, if still fresh."""
    hit = _recent.get((authorization, session_id))
    if hit is None or time.monotonic() - hit[0] >= settings.TOKENMIZER_ADMISSION_TTL_S:
        return None
    return hit[1]


def readmission_due(authorization: str | None, session_id: str | None) -> bool:
    """Whether a remembered admission is past half its moment and nobody reads it again yet
    (the caller then calls ``readmit``)."""
    entry = (authorization, session_id)
    hit = _recent.get(entry)
    due = (
        hit is not None
        and entry not in _rereading
        and time.monotonic() - hit[0] >= settings.TOKENMIZER_ADMISSION_TTL_S / 2
    )
    if due:
        _rereading.add(entry)
    return due


def forget_admissions() -> None:
    """Drop every remembered admission (a key was revoked in this process)."""
    _recent.clear()
    _rereading.clear()


def _remember(authorization: str | None, admitted: Admitted) -> Admitted:
    if settings.TOKENMIZER_ADMISSION_TTL_S > 0:
        if len(_recent) >= _RECENT_MAX:
            _recent.clear()
        external_id = admitted.session.external_id if admitted.session else None
        _recent[(authorization, external_id)] = (time.monotonic(), admitted)
    return admitted


def _keyed(authorization: str | None) -> Admitted:
    key = keys.authenticate(authorization)
    upstreams = sql.rows(Upstream, "project", key.project_id, order_by=("position", "id"))
    return _remember(authorization, Admitted(key, upstreams, None))


def admit(
    authorization: str | None,
    session_id: str | None,
    messages: list[dict[str, Any]] | None = None,
) -> Admitted:
    """Everything a request needs from the database before it goes upstream, in one call:
    the key (401 otherwise), the project's upstreams, and the session (404 if not the key's).
    ``messages`` (the request's) are read only when the session is new, for its preamble.

    A new session comes back unsaved (no pk), its preamble chosen, and is remembered as such:
    the bookkeeping after the response stores it (``stored``), off the request's path."""
    keyed = admitted_recently(authorization, None) or _keyed(authorization)
    if not session_id:
        return keyed
    session = open_session(keyed.key, session_id, messages)
    return _remember(authorization, Admitted(keyed.key, keyed.upstreams, session))


def readmit(authorization: str | None, session_id: str | None) -> None:
    """Read a remembered admission again, as ``admit`` would, and remember it afresh. A session
    not stored yet stays the one remembered (its preamble chosen once). A key revoked, or a
    session id now another's, meanwhile: the key's admissions are forgotten, so the next
    request is admitted afresh, and refused."""
    try:
        remembered = _recent.get((authorization, session_id))
        keyed = _keyed(authorization)
        if session_id and remembered is not None:
            session = _session_row(keyed.key, session_id) or remembered[1].session
            _remember(authorization, Admitted(keyed.key, keyed.upstreams, session))
    except (keys.AuthError, ProxyError):
        for entry in [e for e in list(_recent) if e[0] == authorization]:
            _recent.pop(entry, None)
    except Exception:  # the database is away: the admission expires as usual
        log.exception("reading an admission again failed")
    finally:
        _rereading.discard((authorization, session_id))


def last_user_text(messages: list[dict[str, Any]] | None) -> str:
    for message in reversed(messages or []):
        if message.get("role") == "user":
            return transcripts.message_text(message.get("content"))
    return ""


def project_preamble(project, messages: list[dict[str, Any]] | None) -> str:
    """A new session's preamble: the project's standing knowledge most relevant to the first
    request's last user message, within the project's memory budget ("" when off or empty)."""
    if not project.memory_budget:
        return ""
    try:
        return recall.standing_knowledge(project, last_user_text(messages), project.memory_budget)
    except Exception:  # memory must never fail a request: the session just starts without it
        log.exception("project memory failed for a new session of project %s", project.pk)
        return ""


def open_session(
    key: ApiKey, external_id: str, messages: list[dict[str, Any]] | None = None
) -> Session:
    """The key's session of that id, or a new one (unsaved) with its preamble; 404 if the id is
    another user's or another project's session."""
    return _session_row(key, external_id) or Session(
        project=key.project,
        external_id=external_id,
        user=key.user,
        mecw=key.project.mecw,
        preamble=project_preamble(key.project, messages),
    )


def _session_row(key: ApiKey, external_id: str) -> Session | None:
    """The key's stored session of that id, None if there is none; 404 if it is another's."""
    # One read finds the id in every project: another project's session of that id is not ours
    # to see, and not a new one to open either.
    found = sql.rows(Session, "external_id", external_id, limit=2)
    session = next((s for s in found if s.project_id == key.project_id), None)
    if (session is None and found) or (session is not None and session.user_id != key.user_id):
        raise _no_session(external_id)
    return session


_storing = threading.Lock()


def stored(session: Session) -> Session:
    """The session, inserted if it is new. A concurrent request of the conversation (in this
    process or another) may have stored it first: this object then takes that row's id."""
    if session.pk is not None:
        return session
    with _storing:  # the requests of one new conversation, in this process, store it once
        if session.pk is None:
            try:
                with transaction.atomic():
                    session.save(force_insert=True)
            except IntegrityError:
                row = Session.objects.get(project=session.project, external_id=session.external_id)
                session.pk, session._state.adding = row.pk, False
    return session


def _no_session(external_id: str) -> ProxyError:
    return ProxyError(
        404,
        f"No session {external_id!r} in this key's project.",
        code="session_not_found",
        param="session_id",
    )


def redacted_message(message: dict[str, Any]) -> dict[str, Any]:
    """The message with secrets redacted from its text and tool arguments; all else untouched."""
    out = dict(message)
    content = message.get("content")
    if isinstance(content, str):
        out["content"] = redact.redact(content)
    elif isinstance(content, list):
        out["content"] = [
            {**p, "text": redact.redact(p["text"])}
            if isinstance(p, dict) and isinstance(p.get("text"), str)
            else p
            for p in content
        ]
    if isinstance(message.get("tool_calls"), list):
        out["tool_calls"] = [_redacted_call(c) for c in message["tool_calls"]]
    return out


def _redacted_call(call: Any) -> Any:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("arguments"), str):
        return call
    return {**call, "function": {**function, "arguments": redact.redact(function["arguments"])}}


def with_preamble(
    messages: list[dict[str, Any]], preamble: str
) -> tuple[list[dict[str, Any]], int | None]:
    """``messages`` with the session's preamble as one system message right after the client's
    leading system messages, and the index it went to (None when there is no preamble)."""
    if not preamble:
        return messages, None
    at = 0
    while at < len(messages) and messages[at].get("role") in compaction.SYSTEM_ROLES:
        at += 1
    return [*messages[:at], {"role": "system", "content": preamble}, *messages[at:]], at


def tool_rounds(messages: list[dict[str, Any]]) -> int:
    """Consecutive assistant tool-call rounds since the last user message."""
    rounds = 0
    for message in reversed(messages):
        if message.get("role") == "user":
            break
        if message.get("role") == "assistant" and message.get("tool_calls"):
            rounds += 1
    return rounds


def _covered(plan: compaction.Plan, upto: int, preamble_at: int | None = None) -> bool:
    # Plan indices are of the forwarded list; the preamble there is no transcript message.
    dropped = [
        i - (preamble_at is not None and i > preamble_at) for i in plan.dropped if i != preamble_at
    ]
    return not dropped or max(dropped) <= upto


REFILL_RATIO = 0.5  # after a new cut the request fills half the MECW, leaving room to grow
# The resume a compacted request carries: the full tier (the whole live graph, at most 600 tokens)
# when that is at most this share of the session's MECW, else the standard tier (at most 300).
FULL_RESUME_SHARE = 0.05


def resume_tier(mecw: int) -> str:
    return "full" if resume.TIER_BUDGETS["full"] <= mecw * FULL_RESUME_SHARE else "standard"


def compact_for_session(
    session: Session,
    messages: list[dict[str, Any]],
    forward: list[dict[str, Any]],
    model: str,
    preamble_at: int | None = None,
) -> compaction.Plan:
    """Compact ``forward`` (the request as it would go upstream) for an over-budget request.

    The resume stays the latest checkpoint's while that checkpoint had read every message the
    plan drops (the kept recent turns carry anything newer), and the cut stays where the last
    request made it while the turns since fit, so consecutive requests share their prefix. Once
    the plan would drop past the checkpoint, the client's ``messages`` are recorded and extracted
    first and a checkpoint is made on the spot, so nothing dropped is forgotten.

    ``preamble_at`` is where ``forward`` carries the session's preamble (counted like any system
    message, never dropped); if even the newest turn cannot fit beside it, it is left out rather
    than fail the request. A checkpoint whose content was changed is refused: truncation then.
    A new session is stored first.
    """
    session_pk = stored(session).pk
    session = Session.objects.select_related("project").get(pk=session_pk)
    budget, ratio = session.mecw, session.project.compaction_ratio

    def plan_with(checkpoint) -> compaction.Plan:
        same = checkpoint.pk == session.compacted_with_id
        block = getattr(checkpoints.verify(checkpoint), resume_tier(budget))
        return compaction.compact(
            forward, budget=budget, threshold=ratio, resume=block, model=model,
            keep_from=session.compacted_from if same else None, refill=REFILL_RATIO,
        )  # fmt: skip

    try:
        latest = checkpoints.latest_checkpoint(session)
        plan = plan_with(latest) if latest is not None else None
        if plan is None or not _covered(plan, latest.high_water, preamble_at):
            transcripts.record_messages(session, messages, model)
            graphs.extract_session(session.pk)
            latest = checkpoints.save_checkpoint(session)
            plan = plan_with(latest)
        _remember_cut(session, plan, latest)
        return plan
    except compaction.TooLarge as error:
        return _without_preamble(error, session, messages, forward, model, preamble_at)
    except Exception:
        log.exception("compaction failed for session %s; falling back to truncation", session_pk)
    try:
        return compaction.truncate(forward, budget=budget, threshold=ratio, model=model)
    except compaction.TooLarge as error:
        return _without_preamble(error, session, messages, forward, model, preamble_at)


def _without_preamble(
    error: compaction.TooLarge,
    session: Session,
    messages: list,
    forward: list,
    model: str,
    preamble_at: int | None,
) -> compaction.Plan:
    """Too large even compacted: without the preamble if there is one, else the client's 400."""
    if preamble_at is None:
        raise _too_large(error) from None
    log.warning(
        "session %s: the preamble left no room for the newest turn; sent without", session.pk
    )
    rest = forward[:preamble_at] + forward[preamble_at + 1 :]
    return compact_for_session(session, messages, rest, model)


def _remember_cut(session: Session, plan: compaction.Plan, checkpoint) -> None:
    if (session.compacted_from, session.compacted_with_id) != (plan.kept_from, checkpoint.pk):
        Session.objects.filter(pk=session.pk).update(
            compacted_from=plan.kept_from, compacted_with=checkpoint
        )


def _too_large(error: compaction.TooLarge) -> ProxyError:
    return ProxyError(400, str(error), code="context_length_exceeded", param="messages")


# Exchanges handed to the bookkeeping threads whose recording has not started yet, per session
# (its project and id: a new one has no pk yet). When a server gets requests faster than it
# records them, an exchange that committed while a later one of its session still waits to start
# leaves the extraction to that one: it commits after, so its extraction reads both.
_waiting: Counter[tuple[int, str]] = Counter()
_owed: set[tuple[int, str]] = set()  # sessions whose extraction an exchange left to a later one
_waiting_lock = threading.Lock()


def _conversation(session: Session) -> tuple[int, str]:
    return session.project_id, session.external_id


def exchange_waiting(session: Session | None) -> None:
    """Note that an exchange of the session is on its way to ``record_exchange``."""
    if session is not None:
        with _waiting_lock:
            _waiting[_conversation(session)] += 1


def _recording(session: Session) -> None:
    conversation = _conversation(session)
    with _waiting_lock:
        if _waiting[conversation] > 1:
            _waiting[conversation] -= 1
        else:
            _waiting.pop(conversation, None)


def _extraction_due(session: Session, new: bool) -> bool:
    """After a commit: extract now, unless a later exchange of the session waits to start (it
    will, owing this one's extraction too)."""
    conversation = _conversation(session)
    with _waiting_lock:
        if not new and conversation not in _owed:
            return False
        if _waiting[conversation]:
            _owed.add(conversation)
            return False
        _owed.discard(conversation)
        return True


def record_exchange(
    key: ApiKey,
    session: Session | None,
    messages: list[dict[str, Any]],
    reply: dict[str, Any] | None,
    **usage: Any,
) -> None:
    """After the response: a new session stored, the new messages and the reply recorded once,
    extraction enqueued (or left to a later exchange of the session waiting to be recorded),
    usage kept."""
    if session is not None:  # the admitted session: its project as admitted, a moment ago
        _recording(session)
        stored(session)
    with transaction.atomic():
        if session is not None:
            history = messages + (
                [reply] if reply and (reply.get("content") or reply.get("tool_calls")) else []
            )
            recorded = transcripts.record_messages(session, history, usage.get("model"))
            transaction.on_commit(lambda: _after_recording(session, bool(recorded.new)))
        entry = RequestLog(
            project_id=key.project_id,
            api_key_id=key.pk,
            session_id=session and session.pk,
            created_at=timezone.now(),
            **usage,
        )
        sql.insert_rows(RequestLog, [entry])


def _after_recording(session: Session, new: bool) -> None:
    if not _extraction_due(session, new):
        return
    tasks.enqueue_extraction(session.pk)
    if session.project.llm_extraction:
        llm_extract_session.delay(session.pk)
