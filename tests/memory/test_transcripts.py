"""Recording transcripts: replay idempotence, repeated messages, divergence, redaction."""

from memory.transcripts import record_messages

CONVERSATION = [
    {"role": "system", "content": "You are a careful coding assistant."},
    {"role": "user", "content": "Let's build a URL shortener in Go."},
    {"role": "assistant", "content": "Decided: chi for the router. Created cmd/shortener/main.go."},
]


def stored(session):
    return list(session.messages.order_by("position").values_list("role", "content"))


def test_replaying_the_history_records_each_message_once(session):
    record_messages(session, CONVERSATION[:2])
    record_messages(session, CONVERSATION)
    record_messages(session, CONVERSATION)
    assert [r for r, _ in stored(session)] == ["system", "user", "assistant"]


def test_a_message_repeated_later_is_kept(session):
    history = CONVERSATION + [{"role": "user", "content": "run it"}]
    record_messages(session, history)
    history += [
        {"role": "assistant", "content": "It failed."},
        {"role": "user", "content": "run it"},
    ]
    result = record_messages(session, history)
    assert [m.content for m in result.new] == ["It failed.", "run it"]
    assert [c for _, c in stored(session)].count("run it") == 2


def test_an_edited_history_records_the_divergence_and_keeps_the_stored_transcript(session):
    record_messages(session, CONVERSATION)
    edited = [CONVERSATION[0], {"role": "user", "content": "Let's build it in Rust."}]
    result = record_messages(
        session, edited + [CONVERSATION[2], {"role": "user", "content": "next"}]
    )
    session.refresh_from_db()
    assert session.diverged_at_position == 1
    assert stored(session)[1] == ("user", "Let's build a URL shortener in Go.")
    assert [m.content for m in result.new] == ["next"]


def test_a_compacted_history_appends_only_the_new_turns(session):
    record_messages(session, CONVERSATION)
    compacted = [{"role": "system", "content": "Summary of earlier work."}, CONVERSATION[2]]
    result = record_messages(session, compacted + [{"role": "user", "content": "ship it"}])
    assert [m.position for m in result.new] == [3]
    assert len(stored(session)) == 4


def test_secrets_are_redacted_before_they_are_stored(session):
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 2
    record_messages(session, [{"role": "user", "content": f"my key is {key}, use it"}])
    [(_, content)] = stored(session)
    assert key not in content
    assert "use it" in content


def test_tool_calls_and_list_content_are_recorded(session):
    call = {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    record_messages(
        session,
        [
            {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url"}]},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "file body"},
        ],
    )
    messages = list(session.messages.order_by("position"))
    assert messages[0].content == "look\n[image_url]"
    assert messages[1].tool_calls == [call]
    assert messages[2].tool_call_id == "call_1"
    assert all(m.token_count > 0 for m in messages)
