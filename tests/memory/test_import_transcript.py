"""`import_transcript` and `trim_transcript`: transcript files into sessions, and trimmed copies."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from memory.graph import trim
from memory.models import Message, Session
from memory.projects import set_member

DECIDING = [
    {"role": "system", "content": "You are a careful engineer."},
    {"role": "user", "content": "We need a queue for the email jobs. Let's use Celery with Redis as the broker."},
    {"role": "assistant", "content": "Agreed: Celery with a Redis broker, tasks in app/tasks.py."},
    {"role": "user", "content": "Also we decided to store all timestamps in UTC."},
    {"role": "assistant", "content": "Noted, timestamps stay in UTC everywhere."},
]  # fmt: skip


def claude_session() -> str:
    entries = [
        {"type": "summary", "summary": "Queue work", "leafUuid": "u4"},
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "cc-1", "message": {"role": "user", "content": "We decided to use PostgreSQL 16 for the orders database."}},
        {"type": "assistant", "uuid": "u2", "parentUuid": "u1", "sessionId": "cc-1", "message": {"id": "m1", "role": "assistant", "content": [{"type": "thinking", "thinking": "ok", "signature": "s"}]}},
        {"type": "assistant", "uuid": "u3", "parentUuid": "u2", "sessionId": "cc-1", "message": {"id": "m1", "role": "assistant", "content": [{"type": "tool_use", "id": "T1", "name": "Read", "input": {"file_path": "app/db.py"}}]}},
        {"type": "user", "uuid": "u4", "parentUuid": "u3", "sessionId": "cc-1", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "T1", "content": "engine = create_engine(URL)\n" * 100}]}},
        {"type": "assistant", "uuid": "u5", "parentUuid": "u4", "sessionId": "cc-1", "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "PostgreSQL 16 it is; app/db.py already builds the engine."}]}},
        {"type": "system", "uuid": "s1", "content": "hook ran"},
    ]  # fmt: skip
    return "".join(json.dumps(e) + "\n" for e in entries)


@pytest.fixture
def openai_file(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(DECIDING))
    return path


def test_importing_a_messages_file_records_extracts_and_checkpoints(project, openai_file, capsys):
    call_command(
        "import_transcript", str(openai_file), "--project", project.slug, "--session", "imp-1"
    )
    session = Session.objects.get(project=project, external_id="imp-1")
    assert session.user.username == "alice"  # the project owner
    assert [m.content for m in session.messages.order_by("position")] == [
        m["content"] for m in DECIDING
    ]
    assert session.nodes.filter(type="decision").exists()
    assert session.checkpoints.count() == 1
    out = capsys.readouterr().out
    assert "5 messages recorded, 0 already stored" in out
    assert "checkpoint #1" in out and "nodes" in out


def test_importing_the_same_file_again_adds_nothing(project, openai_file, capsys):
    args = (
        "import_transcript",
        str(openai_file),
        "--project",
        str(project.pk),
        "--session",
        "imp-1",
    )
    call_command(*args)
    nodes = Session.objects.get(external_id="imp-1").nodes.count()
    call_command(*args)
    session = Session.objects.get(external_id="imp-1")
    assert session.messages.count() == len(DECIDING)
    assert session.nodes.count() == nodes
    assert session.checkpoints.count() == 1
    assert "0 messages recorded, 5 already stored" in capsys.readouterr().out


def test_a_claude_code_session_is_imported_as_openai_shaped_messages(project, tmp_path, capsys):
    path = tmp_path / "session.jsonl"
    path.write_text(claude_session())
    call_command("import_transcript", str(path), "--project", project.slug, "--session", "cc-1")
    rows = list(Session.objects.get(external_id="cc-1").messages.order_by("position"))
    assert [r.role for r in rows] == ["user", "assistant", "tool", "assistant"]
    assert rows[1].tool_calls[0]["function"]["name"] == "Read"
    assert rows[2].tool_call_id == "T1"
    out = capsys.readouterr().out
    assert "(claude-code)" in out
    assert "1 summary" in out and "1 system" in out and "1 thinking" in out


def test_a_new_session_can_belong_to_another_member_but_not_to_a_viewer(project, openai_file, bob):
    set_member(project, bob, "member")
    call_command("import_transcript", str(openai_file), "--project", project.slug, "--session", "b", "--user", "bob")  # fmt: skip
    assert Session.objects.get(external_id="b").user == bob
    carol = get_user_model().objects.create_user("carol")
    set_member(project, carol, "viewer")
    with pytest.raises(CommandError, match="cannot write"):
        call_command("import_transcript", str(openai_file), "--project", project.slug, "--session", "c", "--user", "carol")  # fmt: skip
    assert not Session.objects.filter(external_id="c").exists()


def test_an_unknown_project_says_how_to_create_one(db, openai_file):
    with pytest.raises(CommandError, match="create_project"):
        call_command("import_transcript", str(openai_file), "--project", "nope", "--session", "x")
    assert not Session.objects.exists()


def test_a_malformed_line_names_the_file_and_line_and_writes_nothing(project, tmp_path):
    path = tmp_path / "broken.jsonl"
    lines = [json.dumps(m) for m in DECIDING[:3]] + ['{"role": "user", "content": "oops"']
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(CommandError, match=rf"{path}:4: not valid JSON.*--format"):
        call_command("import_transcript", str(path), "--project", project.slug, "--session", "x")
    assert not Session.objects.exists()
    assert not Message.objects.exists()


def test_a_failure_after_recording_leaves_nothing_half_written(project, openai_file, monkeypatch):
    from memory import checkpoints

    def broken(session):
        raise RuntimeError("disk full")

    monkeypatch.setattr(checkpoints, "save_checkpoint", broken)
    with pytest.raises(RuntimeError):
        call_command("import_transcript", str(openai_file), "--project", project.slug, "--session", "x")  # fmt: skip
    assert not Session.objects.exists()
    assert not Message.objects.exists()


def test_a_missing_file_is_a_clear_error(project, tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_transcript", str(tmp_path / "nope.json"), "--project", project.slug, "--session", "x")  # fmt: skip


# --- trim_transcript ----------------------------------------------------------------------------


def test_trimming_a_claude_code_file_writes_claude_code_jsonl_and_prints_the_report(
    tmp_path, capsys
):
    path = tmp_path / "session.jsonl"
    path.write_text(claude_session())
    call_command("trim_transcript", str(path))
    out_path = tmp_path / "session.trimmed.jsonl"
    entries = [json.loads(line) for line in out_path.read_text().splitlines()]
    assert entries[0]["type"] == "summary" and entries[-1]["type"] == "system"
    assert entries[1]["isMeta"] and entries[1]["message"]["content"].startswith(trim.TAG)
    result = next(e for e in entries if e.get("uuid") == "u4")
    assert result["message"]["content"][0]["content"].startswith(trim.RESULT_STUB)
    assert not any(e.get("uuid") == "u2" for e in entries)  # the thinking-only entry
    out = capsys.readouterr().out
    assert f"Wrote {out_path}" in out
    assert "1 tool results" in out and "1 thinking blocks" in out


def test_trimming_an_openai_file_keeps_its_container_and_can_report_json(tmp_path, capsys):
    path = tmp_path / "chat.json"
    messages = [
        *DECIDING,
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "line\n" * 300},
    ]  # fmt: skip
    path.write_text(json.dumps({"model": "gpt-4o", "messages": messages}))
    out_path = tmp_path / "out.json"
    call_command(
        "trim_transcript", str(path), "--out", str(out_path), "--threshold", "100", "--json"
    )
    written = json.loads(out_path.read_text())
    assert written["model"] == "gpt-4o"
    assert written["messages"][-1]["content"].startswith(trim.RESULT_STUB)
    report = json.loads(capsys.readouterr().out)
    assert report["tool_results_stubbed"] == 1 and report["threshold"] == 100
    assert report["tokens_after"] < report["tokens_before"]


def test_trimming_refuses_a_tiny_threshold_and_overwriting_the_input(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(DECIDING))
    with pytest.raises(CommandError, match="at least 50"):
        call_command("trim_transcript", str(path), "--threshold", "10")
    with pytest.raises(CommandError, match="input file"):
        call_command("trim_transcript", str(path), "--out", str(path))
    assert json.loads(path.read_text()) == DECIDING


def test_a_long_file_reports_progress_while_it_is_read(project, tmp_path, capsys):
    path = tmp_path / "long.jsonl"
    noise = "".join(
        json.dumps({"type": "file-history-snapshot", "n": i}) + "\n" for i in range(4500)
    )
    path.write_text(claude_session() + noise)
    call_command("import_transcript", str(path), "--project", project.slug, "--session", "long")
    out = capsys.readouterr().out
    assert "read 2,000 lines" in out and "read 4,000 lines" in out
    assert "4500 file-history-snapshot" in out
