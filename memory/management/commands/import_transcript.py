"""`manage.py import_transcript FILE --project P --session S`: a transcript file into a session."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memory.graph import formats
from memory.imports import ImportFailed, import_transcript


class Command(BaseCommand):
    help = (
        "Import an OpenAI-format messages file (JSON list, object with `messages`, or JSONL) or a "
        "Claude Code session JSONL into a session: recorded, extracted and checkpointed."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--project", required=True, help="project slug or id")
        parser.add_argument("--session", required=True, help="session id; created if new")
        parser.add_argument("--user", help="owner of a new session (default: the project owner)")
        parser.add_argument("--format", choices=formats.FORMATS, help="default: detected")

    def handle(self, *args, file: Path, project: str, session: str, **options):
        try:
            summary = import_transcript(
                file,
                project,
                session,
                username=options["user"],
                fmt=options["format"],
                progress=lambda line: self.stdout.write(f"  {line}"),
            )
        except ImportFailed as error:
            raise CommandError(str(error)) from None
        skipped = ", ".join(f"{n} {kind}" for kind, n in sorted(summary.skipped.items()))
        verb = "Created" if summary.created else "Updated"
        self.stdout.write(
            f"{summary.path} ({summary.format}): {summary.recorded} messages recorded, "
            f"{summary.already_stored} already stored"
            + (f"; skipped or dropped: {skipped}" if skipped else "")
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb} session {summary.session.external_id!r}: {summary.nodes} nodes, "
                f"checkpoint #{summary.checkpoint_sequence} of {summary.checkpoint_tokens:,} "
                f"tokens (transcript {summary.transcript_tokens:,} tokens)."
            )
        )
