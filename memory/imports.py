"""Importing a transcript file into a session: recorded, extracted and checkpointed in one go."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction

from memory import checkpoints, graphs, transcripts
from memory.graph import formats
from memory.models import WRITE_ROLES, Project, Role, Session


class ImportFailed(ValueError):
    """A transcript that cannot be imported; the message says what to do about it."""


@dataclass(frozen=True)
class ImportSummary:
    path: str
    format: str
    session: Session
    created: bool
    recorded: int
    already_stored: int
    nodes: int
    checkpoint_sequence: int
    checkpoint_tokens: int
    transcript_tokens: int
    skipped: Counter[str] = field(default_factory=Counter)


def read_transcript(
    path: Path, fmt: str | None = None, progress: Callable[[str], None] = lambda _: None
) -> formats.Transcript:
    """The parsed file; ImportFailed names the file, the line and the fix."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ImportFailed(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ImportFailed(f"{path}: cannot be read as UTF-8 text ({error})") from None
    try:
        return formats.parse(text, fmt, progress=lambda n: progress(f"read {n:,} lines"))
    except formats.FormatError as error:
        where = f"{path}:{error.line}" if error.line is not None else str(path)
        raise ImportFailed(
            f"{where}: {error.args[0]}. Fix that line or pass the right --format "
            f"({' or '.join(formats.FORMATS)})"
        ) from None


def find_project(ref: str) -> Project:
    """A project by slug or id."""
    project = Project.objects.filter(slug=ref).first()
    if project is None and ref.isdigit():
        project = Project.objects.filter(pk=int(ref)).first()
    if project is None:
        raise ImportFailed(
            f"no project {ref!r} (by slug or id): create one with "
            "`python manage.py create_project NAME --owner USERNAME`"
        )
    return project


def _owner(project: Project, username: str | None):
    if username is None:
        membership = project.memberships.filter(role=Role.OWNER).order_by("pk").first()
        if membership is None:
            raise ImportFailed(f"project {project.slug} has no owner: pass --user USERNAME")
        return membership.user
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ImportFailed(
            f"no user {username!r}: create one with `python manage.py createsuperuser`"
        )
    if project.role_of(user) not in WRITE_ROLES:
        raise ImportFailed(
            f"{username} cannot write to project {project.slug}: make them a member first"
        )
    return user


def import_transcript(
    path: Path,
    project_ref: str,
    session_ref: str,
    username: str | None = None,
    fmt: str | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> ImportSummary:
    """Record the file's messages in the session (created if new), extract, checkpoint.

    Re-importing the same file records nothing new. All of it is one transaction: a failure
    leaves no session, message or node behind.
    """
    transcript = read_transcript(path, fmt, progress)
    if not transcript.messages:
        raise ImportFailed(f"{path}: no user or assistant messages to import")
    project = find_project(project_ref)
    with transaction.atomic():
        session = Session.objects.filter(project=project, external_id=session_ref).first()
        created = session is None
        if created:
            user = _owner(project, username)
            session = Session.objects.create(
                project=project, user=user, external_id=session_ref, mecw=project.mecw
            )
        progress(f"recording {len(transcript.messages):,} messages")
        recorded = transcripts.record_messages(session, transcript.messages)
        progress(f"extracting the graph from {len(recorded.new):,} new messages")
        graphs.extract_session(session.pk)
        checkpoint = checkpoints.save_checkpoint(session)
        session.refresh_from_db()
        return ImportSummary(
            path=str(path),
            format=transcript.format,
            session=session,
            created=created,
            recorded=len(recorded.new),
            already_stored=len(transcript.messages) - len(recorded.new),
            nodes=session.nodes.count(),
            checkpoint_sequence=checkpoint.sequence,
            checkpoint_tokens=checkpoint.tokens_after,
            transcript_tokens=checkpoints.transcript_tokens(session),
            skipped=transcript.skipped,
        )
