"""The demo project: sample sessions shipped in memory/demo/, recorded and extracted like real ones."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from memory import checkpoints, graphs, projects, transcripts
from memory.models import Project, Session

DEMO_DIR = Path(__file__).resolve().parent / "demo"
DEMO_PROJECT = "Demo project"


def demo_sessions() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(DEMO_DIR.glob("*.json"))]


def load_demo(owner, progress: Callable[[str], None] = lambda _: None) -> Project:
    """Create (or refill) the demo project owned by ``owner`` from the shipped sample sessions."""
    project = Project.objects.filter(name=DEMO_PROJECT, memberships__user=owner).first()
    if project is None:
        project = projects.create_project(DEMO_PROJECT, owner)
    for sample in demo_sessions():
        session, _ = Session.objects.get_or_create(
            project=project,
            external_id=sample["session_id"],
            defaults={"user": owner, "title": sample.get("title", ""), "mecw": project.mecw},
        )
        recorded = transcripts.record_messages(session, sample["messages"])
        graphs.extract_session(session.pk)
        checkpoints.save_checkpoint(session)
        progress(f"{session}: {len(recorded.new)} new messages, {session.nodes.count()} nodes")
    return project
