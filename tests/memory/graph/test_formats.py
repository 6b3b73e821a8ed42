"""Reading and writing transcript files: OpenAI messages and Claude Code session JSONL."""

import json

import pytest

from memory.graph import formats

MESSAGES = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "hello"},
    {"role": "assistant", "content": "hi"},
]


def claude_lines(*entries) -> str:
    return "".join(json.dumps(e) + "\n" for e in entries)


def entry(kind, content, uuid, **extra):
    return {"type": kind, "uuid": uuid, "message": {"role": kind, "content": content}, **extra}


@pytest.mark.parametrize(
    "text, container",
    [
        (json.dumps(MESSAGES), "list"),
        (json.dumps({"model": "gpt-4o", "messages": MESSAGES}, indent=2), "object"),
        ("".join(json.dumps(m) + "\n" for m in MESSAGES), "jsonl"),
    ],
)
def test_openai_messages_are_read_from_a_list_an_object_or_jsonl(text, container):
    transcript = formats.parse(text)
    assert transcript.format == formats.OPENAI
    assert transcript.messages == MESSAGES
    assert transcript.container == container
    written = formats.dump_openai(transcript.messages, transcript.container, transcript.envelope)
    assert formats.parse(written).messages == MESSAGES


def test_claude_code_parallel_tool_calls_become_one_assistant_message_before_their_results():
    text = claude_lines(
        {"type": "summary", "summary": "old work", "leafUuid": "x"},
        entry("user", "list the files", "u1"),
        entry("assistant", [{"type": "thinking", "thinking": "hm", "signature": "s"}], "u2"),
        entry("assistant", [{"type": "text", "text": "Looking."}], "u3"),
        entry("assistant", [{"type": "tool_use", "id": "T1", "name": "Bash", "input": {"command": "ls"}}], "u4"),
        entry("assistant", [{"type": "tool_use", "id": "T2", "name": "Read", "input": {"file_path": "a.py"}}], "u5"),
        entry("user", [{"type": "tool_result", "tool_use_id": "T1", "content": "a.py"}], "u6"),
        entry("user", [{"type": "tool_result", "tool_use_id": "T2", "content": [{"type": "text", "text": "print(1)"}, {"type": "image", "source": {}}]}], "u7"),
        {"type": "system", "content": "hook", "uuid": "s1"},
        entry("user", "thanks", "u8", isSidechain=True),
    )  # fmt: skip
    transcript = formats.parse(text)
    assert transcript.format == formats.CLAUDE_CODE
    assert len(transcript.entries) == 10
    assert transcript.messages == [
        {"role": "user", "content": "list the files"},
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                {"id": "T1", "type": "function", "function": {"name": "Bash", "arguments": '{"command":"ls"}'}},
                {"id": "T2", "type": "function", "function": {"name": "Read", "arguments": '{"file_path":"a.py"}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "T1", "content": "a.py"},
        {"role": "tool", "tool_call_id": "T2", "content": "print(1)"},
    ]  # fmt: skip
    assert transcript.skipped == {
        "summary": 1,
        "system": 1,
        "sidechain": 1,
        "thinking": 1,
        "image": 1,
    }
    written = formats.dump_claude(transcript.entries)
    assert formats.parse(written).entries == transcript.entries
    assert len(written.splitlines()) == 10


def test_the_format_can_be_forced_and_an_unknown_one_is_refused():
    text = "".join(json.dumps(m) + "\n" for m in MESSAGES)
    assert formats.parse(text, formats.OPENAI).messages == MESSAGES
    with pytest.raises(formats.FormatError, match="unknown format"):
        formats.parse(text, "markdown")


@pytest.mark.parametrize(
    "text, line, words",
    [
        ('{"role": "user", "content": "a"}\n{"role": "user", "content": \n', 2, "not valid JSON"),
        ('{"role": "user", "content": "a"}\n[1, 2]\n', 2, "one JSON object"),
        (
            '{"role": "user", "content": "a"}\n\n{"role": "robot", "content": "b"}\n',
            3,
            "role 'robot'",
        ),
        ('[{"role": "user", "content": "a"},\n  {"role": }]', 2, "not valid JSON"),
        ('{"type": "user", "message": {"role": "user", "content": 7}}\n', 1, "content must be"),
    ],
)
def test_a_malformed_file_names_the_line_and_the_fault(text, line, words):
    with pytest.raises(formats.FormatError, match=words) as caught:
        formats.parse(text)
    assert caught.value.line == line
    assert str(caught.value).startswith(f"line {line}: ")


def test_an_empty_file_or_plain_text_is_not_a_transcript():
    with pytest.raises(formats.FormatError, match="empty"):
        formats.parse("  \n")
    with pytest.raises(formats.FormatError, match="neither"):
        formats.parse("user: hello\nassistant: hi\n")
    with pytest.raises(formats.FormatError, match="message 2: role"):
        formats.parse(json.dumps([MESSAGES[0], {"content": "no role"}]))
