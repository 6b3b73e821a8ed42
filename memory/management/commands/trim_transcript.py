"""`manage.py trim_transcript FILE [--out FILE]`: a transcript trimmed losslessly, same format."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memory.graph import formats, trim, trim_claude
from memory.imports import ImportFailed, read_transcript


class Command(BaseCommand):
    help = (
        "Trim a transcript (OpenAI messages or Claude Code JSONL): big tool outputs and inputs "
        "stubbed, images and thinking removed, tool pairing repaired; text kept verbatim."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--out", type=Path, help="where to write (default: FILE.trimmed.EXT)")
        parser.add_argument(
            "--threshold",
            type=int,
            default=trim.DEFAULT_THRESHOLD,
            help=f"stub tool payloads longer than this many characters (>= {trim.MIN_THRESHOLD})",
        )
        parser.add_argument("--format", choices=formats.FORMATS, help="default: detected")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args, file: Path, out: Path | None, threshold: int, **options):
        try:
            trim.check_threshold(threshold)
            transcript = read_transcript(file, options["format"])
        except (ImportFailed, ValueError) as error:
            raise CommandError(str(error)) from None
        if transcript.format == formats.CLAUDE_CODE:
            result = trim_claude.trim_claude_entries(transcript.entries, threshold)
            text, report = formats.dump_claude(result.entries), result.report
        else:
            result = trim.trim_messages(transcript.messages, threshold)
            text = formats.dump_openai(result.messages, transcript.container, transcript.envelope)
            report = result.report
        out = out or file.with_name(f"{file.stem}.trimmed{file.suffix}")
        if out.resolve() == file.resolve():
            raise CommandError(f"--out {out} is the input file: write the trimmed copy elsewhere")
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as error:
            raise CommandError(f"cannot write {out}: {error}") from None
        if options["json"]:
            self.stdout.write(json.dumps({"out": str(out), **report.as_dict()}, indent=2))
            return
        self.stdout.write(self.style.SUCCESS(f"Wrote {out} ({transcript.format})."))
        for line in report.lines():
            self.stdout.write(f"  {line}")
