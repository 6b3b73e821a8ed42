"""Branches: a new session started from any checkpoint, and the checkpoint tree across sessions."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import IntegrityError, transaction

from memory import checkpoints, transcripts
from memory.graph.branching import branch_graph
from memory.graphs import load_graph, save_graph
from memory.models import WRITE_ROLES, Checkpoint, Message, Session

MAX_EXTERNAL_ID = Session._meta.get_field("external_id").max_length


class BranchError(ValueError):
    """A branch that cannot be made as asked; the message says why and what to do instead."""


def _generated_id(source: Session, checkpoint: Checkpoint) -> str:
    suffix = f"-branch-{checkpoint.sequence}-{secrets.token_hex(4)}"
    return source.external_id[: MAX_EXTERNAL_ID - len(suffix)] + suffix


def _as_openai(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.name:
        out["name"] = message.name
    if message.tool_calls:
        out["tool_calls"] = message.tool_calls
    if message.tool_call_id:
        out["tool_call_id"] = message.tool_call_id
    return out


def source_transcript(session: Session, upto: int) -> list[dict[str, Any]]:
    """The session's stored messages up to position ``upto``, in OpenAI format."""
    rows = session.messages.filter(position__lte=upto).order_by("position")
    return [_as_openai(m) for m in rows]


def _trimmed(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from memory.graph.trim import trim_messages  # another team's module: structural trimming

    return trim_messages(messages).messages


def _checked_id(source: Session, checkpoint: Checkpoint, external_id: str | None) -> str:
    if external_id is not None and not isinstance(external_id, str):
        raise BranchError("external_id must be a string")
    wanted = (external_id or "").strip()
    if len(wanted) > MAX_EXTERNAL_ID:
        raise BranchError(f"external_id is longer than {MAX_EXTERNAL_ID} characters")
    if wanted and Session.objects.filter(project=source.project_id, external_id=wanted).exists():
        raise BranchError(
            f"this project already has a session {wanted!r}; choose another id or leave it empty"
        )
    return wanted or _generated_id(source, checkpoint)


def _create(source: Session, user, external_id: str, checkpoint: Checkpoint) -> Session:
    try:
        with transaction.atomic():  # a savepoint: losing a race for the id is a clear error
            return Session.objects.create(
                project=source.project,
                user=user,
                external_id=external_id,
                title=f"Branch of {source} at checkpoint {checkpoint.sequence}"[:200],
                mecw=source.mecw,
                branched_from=checkpoint,
                preamble=checkpoint.standard,
            )
    except IntegrityError:
        raise BranchError(
            f"this project already has a session {external_id!r}; choose another id or leave it empty"
        ) from None


def branch_session(
    checkpoint: Checkpoint,
    user,
    external_id: str | None = None,
    include_transcript: bool = False,
) -> Session:
    """A new session of the checkpoint's project, opened by ``user``, starting from its resume.

    Its graph is the source session's graph as it held at the checkpoint; its first checkpoint
    (made here) has ``checkpoint`` as its parent; its preamble, sent on every request, is the
    checkpoint's standard tier. With ``include_transcript`` its transcript starts with the
    source's messages up to the checkpoint, structurally trimmed. Raises BranchError for bad
    input and checkpoints.TamperedCheckpoint when the checkpoint's content was changed.
    """
    checkpoints.verify(checkpoint)
    source = Session.objects.select_related("project").get(pk=checkpoint.session_id)
    if source.project.role_of(user) not in WRITE_ROLES:
        raise BranchError("only the project's owners and members can branch its sessions")
    new_id = _checked_id(source, checkpoint, external_id)
    history = (
        _trimmed(source_transcript(source, checkpoint.high_water)) if include_transcript else []
    )
    with transaction.atomic():
        branch = _create(source, user, new_id, checkpoint)
        if history:
            transcripts.record_messages(branch, history)
        last = branch.messages.order_by("-position").values_list("position", flat=True).first()
        graph = branch_graph(
            load_graph(source),
            checkpoint.high_water,
            checkpoint.snapshot,
            high_water=last if last is not None else -1,
            at=checkpoint.created_at.timestamp(),
        )
        save_graph(branch, graph)
        checkpoints.save_checkpoint(branch)
    return branch


# ---- lineage -----------------------------------------------------------------------------------


def _root_session(session: Session) -> Session:
    seen = {session.pk}
    while session.branched_from_id is not None:
        source = Checkpoint.objects.select_related("session").get(pk=session.branched_from_id)
        if source.session_id in seen:
            break  # cannot happen (a branch is newer than its source); never loop on bad data
        session = source.session
        seen.add(session.pk)
    return session


def _tree_checkpoints(root: Session) -> list[Checkpoint]:
    """Every checkpoint of the root session and of all sessions branched from it, at any depth."""
    found: list[Checkpoint] = []
    sessions, frontier = {root.pk}, {root.pk}
    while frontier:
        rows = list(
            Checkpoint.objects.filter(session_id__in=frontier)
            .select_related("session")
            .only(
                "pk", "parent_id", "sequence", "created_at", "tokens_after", "session__external_id"
            )
        )
        found += rows
        frontier = set(
            Session.objects.filter(branched_from__in=[c.pk for c in rows])
            .exclude(pk__in=sessions)
            .values_list("pk", flat=True)
        )
        sessions |= frontier
    return found


def _node(c: Checkpoint) -> dict[str, Any]:
    return {
        "checkpoint": c.pk,
        "session": c.session_id,
        "session_external_id": c.session.external_id,
        "sequence": c.sequence,
        "created_at": c.created_at.isoformat(),
        "tokens_after": c.tokens_after,
        "children": [],
    }


def lineage(session: Session) -> dict[str, Any]:
    """The checkpoint tree the session belongs to, from its root checkpoint, JSON-ready; {} when
    the tree has no checkpoint yet. Children are in the order they were made."""
    root_session = _root_session(session)
    rows = sorted(_tree_checkpoints(root_session), key=lambda c: (c.created_at, c.pk))
    nodes = {c.pk: _node(c) for c in rows}
    root = None
    for c in rows:
        parent = nodes.get(c.parent_id) if c.parent_id is not None else None
        if parent is not None:
            parent["children"].append(nodes[c.pk])
        elif c.session_id == root_session.pk and (root is None or c.sequence < root["sequence"]):
            root = nodes[c.pk]
    return root or {}


def lineage_rows(tree: dict[str, Any]) -> list[tuple[dict[str, Any], int]]:
    """The tree as (node, depth) rows in reading order, for a page: a session's next checkpoint
    stays at its depth, a branch goes one deeper. Iterative, so long sessions cannot overflow."""
    rows: list[tuple[dict[str, Any], int]] = []
    stack = [(tree, 0)] if tree else []
    while stack:
        node, depth = stack.pop()
        rows.append((node, depth))
        same = [c for c in node["children"] if c["session"] == node["session"]]
        others = [c for c in node["children"] if c["session"] != node["session"]]
        # Pushed in reverse: branches are read before the session's own continuation.
        stack += [(c, depth) for c in reversed(same)]
        stack += [(c, depth + 1) for c in reversed(others)]
    return rows
