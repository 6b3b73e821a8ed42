"""The structural trimmer: stubs, stripping, pairing, the boundary marker; both formats."""

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.graph import formats, tokens, trim, trim_claude
from memory.graph.stubs import has_content

PLACEHOLDERS = {
    trim.IMAGE_REMOVED,
    trim.THINKING_REMOVED,
    trim.EMPTY_MESSAGE,
    trim.EMPTY_TOOL_OUTPUT,
}


def bash_call(call_id: str, command: str = "pytest -q", pad: int = 0) -> dict:
    arguments = json.dumps({"command": command, "note": "x" * pad})
    return {"id": call_id, "type": "function", "function": {"name": "bash", "arguments": arguments}}


def traceback(size: int) -> str:
    head = '$ pytest -q\nFile "/srv/app/orders.py", line 12\nsee https://docs.example.com/err\n'
    return head + "E   assert 1 == 2\n" * (size // 17)


# --- OpenAI messages: what changes and what never does -----------------------------------------


def test_a_long_tool_output_becomes_a_stub_naming_the_tool_paths_command_url_and_size():
    output = traceback(3000)
    messages = [
        {"role": "user", "content": "run the tests"},
        {"role": "assistant", "content": None, "tool_calls": [bash_call("c1")]},
        {"role": "tool", "tool_call_id": "c1", "content": output},
        {"role": "assistant", "content": "One assertion fails in orders.py."},
    ]
    result = trim.trim_messages(messages)
    stub = next(m for m in result.messages if m["role"] == "tool")["content"]
    assert stub.startswith(trim.RESULT_STUB)
    for fact in ("bash", f"{len(output):,} chars", "/srv/app/orders.py", "pytest -q", "https://docs.example.com/err"):  # fmt: skip
        assert fact in stub
    assert result.report.tool_results_stubbed == 1
    assert result.report.tokens_after < result.report.tokens_before / 5
    assert [m["content"] for m in result.messages if m["role"] in ("user", "assistant")][-1] == (
        "One assertion fails in orders.py."
    )


def test_outputs_and_inputs_at_or_under_the_threshold_are_kept_as_they_are():
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [bash_call("c1", pad=100)]},
        {"role": "tool", "tool_call_id": "c1", "content": "y" * 500},
    ]
    result = trim.trim_messages(messages)
    assert result.messages == messages  # nothing to trim: no marker either
    assert result.report.tokens_after == result.report.tokens_before


def test_the_threshold_decides_what_is_stubbed_and_a_tiny_one_is_refused():
    messages = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": None, "tool_calls": [bash_call("c1", pad=300)]},
        {"role": "tool", "tool_call_id": "c1", "content": traceback(400)},
    ]
    assert trim.trim_messages(messages).report.tool_results_stubbed == 0
    low = trim.trim_messages(messages, threshold=200).report
    assert (low.tool_results_stubbed, low.tool_inputs_stubbed) == (1, 1)
    with pytest.raises(ValueError, match="at least 50"):
        trim.trim_messages(messages, threshold=49)


def test_long_tool_arguments_become_a_json_object_stub():
    messages = [
        {"role": "assistant", "content": None, "tool_calls": [bash_call("c1", "make deploy", 900)]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    result = trim.trim_messages(messages)
    arguments = result.messages[-2]["tool_calls"][0]["function"]["arguments"]
    stub = json.loads(arguments)[trim.STUB_KEY]
    assert "make deploy" in stub and "bash" in stub
    assert result.report.tool_inputs_stubbed == 1


def test_images_and_thinking_go_and_a_message_left_empty_gets_a_placeholder():
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 5000}}
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "what is this?"}, image]},
        {"role": "user", "content": [image]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"}]},
        {"role": "assistant", "content": "A chart.", "reasoning_content": "long thoughts"},
    ]
    out = trim.trim_messages(messages)
    body = [m for m in out.messages if m["role"] != "system"]
    assert body[0]["content"] == [{"type": "text", "text": "what is this?"}]
    assert body[1]["content"] == trim.IMAGE_REMOVED
    assert body[2]["content"] == trim.THINKING_REMOVED
    assert body[3] == {"role": "assistant", "content": "A chart."}
    assert (out.report.images_stripped, out.report.thinking_stripped) == (2, 2)
    assert out.report.empty_messages_filled == 2


def test_an_orphan_result_becomes_a_note_and_an_unanswered_call_gets_a_result():
    messages = [
        {"role": "user", "content": "go"},
        {"role": "tool", "tool_call_id": "lost", "content": "stray output"},
        {"role": "assistant", "content": None, "tool_calls": [bash_call("a"), bash_call("b")]},
        {"role": "tool", "tool_call_id": "ghost", "content": "not ours"},
        {"role": "tool", "tool_call_id": "b", "content": "b done"},
        {"role": "user", "content": "and?"},
    ]
    result = trim.trim_messages(messages)
    body = [m for m in result.messages if m["role"] != "system"]
    assert body[1]["role"] == "user" and body[1]["content"].startswith(trim.ORPHAN_TAG)
    assert "stray output" in body[1]["content"]
    assert [m.get("tool_call_id") for m in body[3:5]] == ["b", "a"]
    assert body[4]["content"] == trim.NO_RESULT
    assert body[5]["content"].startswith(trim.ORPHAN_TAG) and "not ours" in body[5]["content"]
    assert body[6] == {"role": "user", "content": "and?"}
    assert (result.report.orphan_results_fixed, result.report.orphan_calls_fixed) == (2, 1)
    assert_valid_pairing(result.messages)


def test_the_boundary_marker_is_our_own_tagged_system_note_after_the_system_prompt():
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [bash_call("a")]},
        {"role": "tool", "tool_call_id": "a", "content": traceback(2000)},
    ]
    out = trim.trim_messages(messages).messages
    assert out[0] == messages[0]
    assert out[1]["role"] == "system" and out[1]["content"].startswith(trim.TAG + " results=1")
    assert not any(m.get("name") == "summary" for m in out)
    again = trim.trim_messages(out)
    assert again.messages == out
    assert again.report.tool_results_stubbed == 0


def test_the_input_is_left_untouched():
    messages = [
        {"role": "assistant", "content": None, "tool_calls": [bash_call("a", pad=900)]},
        {"role": "tool", "tool_call_id": "a", "content": traceback(2000)},
    ]
    before = copy.deepcopy(messages)
    trim.trim_messages(messages)
    assert messages == before


# --- properties over random transcripts with parallel tool calls --------------------------------

# A text equal to one of our placeholders cannot be told from it by ``claude_said(ours=True)``:
# Hypothesis draws such literals from the source, so they are left out of the drawn texts.
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30).filter(
    lambda t: t not in PLACEHOLDERS and not t.startswith("[tokenmizer:")
)
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
THINK = {"type": "thinking", "thinking": "pondering"}
SIZE = st.sampled_from([0, 30, 400, 700, 2500])


@st.composite
def openai_transcripts(draw):
    messages = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(TEXT)})
    for turn in range(draw(st.integers(0, 7))):
        kind = draw(st.sampled_from(["user", "assistant", "tools", "stray"]))
        if kind == "user":
            parts = [{"type": "text", "text": draw(TEXT)}] + [IMAGE] * draw(st.integers(0, 1))
            messages.append(
                {"role": "user", "content": parts if draw(st.booleans()) else draw(TEXT)}
            )
        elif kind == "assistant":
            message = {"role": "assistant", "content": [THINK] * draw(st.integers(0, 1)) + [{"type": "text", "text": draw(TEXT)}]}  # fmt: skip
            if draw(st.booleans()):
                message["reasoning_content"] = "thoughts"
            messages.append(message)
        elif kind == "tools":
            ids = [f"t{turn}_{i}" for i in range(draw(st.integers(1, 3)))]
            calls = [bash_call(i, pad=draw(SIZE)) for i in ids]
            messages.append({"role": "assistant", "content": draw(st.sampled_from([None, "checking"])), "tool_calls": calls})  # fmt: skip
            answered = draw(st.permutations(ids + ["ghost"]))[: draw(st.integers(0, len(ids) + 1))]
            for call_id in answered:
                messages.append({"role": "tool", "tool_call_id": call_id, "content": traceback(draw(SIZE))})  # fmt: skip
        else:
            messages.append({"role": "tool", "tool_call_id": "stray", "content": draw(TEXT)})
    return messages


def texts(message) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [p["text"] for p in content or () if isinstance(p, dict) and p.get("type") == "text"]


def said(messages, ours: bool = False) -> list[str]:
    """Non-blank user and assistant text in order; for trimmed output, without our own notes."""
    found = []
    for m in messages:
        if m.get("role") in ("user", "assistant"):
            for text in texts(m):
                if ours and (text.startswith("[tokenmizer:") or text in PLACEHOLDERS):
                    continue
                if text.strip():
                    found.append(text)
    return found


def assert_valid_pairing(messages):
    i = 0
    while i < len(messages):
        message = messages[i]
        assert message["role"] != "tool", f"tool result without its call at {i}"
        if message.get("tool_calls"):
            ids = [c["id"] for c in message["tool_calls"]]
            results = messages[i + 1 : i + 1 + len(ids)]
            assert sorted(r.get("tool_call_id") for r in results if r["role"] == "tool") == sorted(
                ids
            )
            i += len(ids)
        i += 1


def assert_nothing_empty(messages):
    for m in messages:
        assert has_content(m.get("content")) or (m["role"] == "assistant" and m.get("tool_calls"))


def all_text(messages) -> list[str]:
    found = []
    for m in messages:
        found += texts(m)
        for call in m.get("tool_calls") or ():
            found.append(call["function"]["arguments"])
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(openai_transcripts())
def test_trimming_any_transcript_keeps_text_fixes_pairing_and_is_idempotent(messages):
    original = copy.deepcopy(messages)
    result = trim.trim_messages(messages)
    out = result.messages
    assert messages == original
    assert said(out, ours=True) == said(messages)
    assert_valid_pairing(out)
    assert_nothing_empty(out)
    again = trim.trim_messages(out)
    assert again.messages == out
    assert not again.report.orphan_results_fixed and not again.report.tool_results_stubbed
    assert trim.trim_messages(copy.deepcopy(messages)) == result


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(openai_transcripts())
def test_the_report_counts_match_what_a_recount_of_the_output_finds(messages):
    result = trim.trim_messages(messages)
    out, report = result.messages, result.report
    out_text = all_text(out)
    assert report.tool_results_stubbed == sum(t.count(trim.RESULT_STUB) for t in out_text)
    assert report.tool_inputs_stubbed == sum(trim.INPUT_STUB in t for t in out_text)
    assert report.orphan_results_fixed == sum(t.startswith(trim.ORPHAN_TAG) for t in out_text)
    assert report.orphan_calls_fixed == sum(t == trim.NO_RESULT for t in out_text)
    in_parts = [p for m in messages if isinstance(m.get("content"), list) for p in m["content"]]
    assert report.images_stripped == sum(p.get("type") == "image_url" for p in in_parts)
    thinking = sum(p.get("type") == "thinking" for p in in_parts)
    assert report.thinking_stripped == thinking + sum("reasoning_content" in m for m in messages)
    assert not any("image_url" in json.dumps(m) or "reasoning_content" in m for m in out)
    assert report.messages_after == len(out)
    assert report.tokens_after == tokens.count_messages(out)
    assert report.chars_after == sum(len(json.dumps(m, ensure_ascii=False, separators=(",", ":"))) for m in out)  # fmt: skip


# --- Claude Code entries --------------------------------------------------------------------------


class Chain:
    """Builds a Claude Code session: entries with uuids, each the parent of the next."""

    def __init__(self) -> None:
        self.entries: list[dict] = []

    def add(self, kind: str, content, **extra) -> dict:
        parent = next((e["uuid"] for e in reversed(self.entries) if "uuid" in e), None)
        entry = {
            "parentUuid": parent,
            "isSidechain": False,
            "type": kind,
            "message": {"role": kind, "content": content, **extra},
            "uuid": f"u{len(self.entries)}",
            "sessionId": "s-1",
            "timestamp": f"2026-01-01T00:00:{len(self.entries):02d}Z",
        }
        self.entries.append(entry)
        return entry


def tool_use(call_id: str, pad: int = 0) -> dict:
    return {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": "pytest -q", "note": "x" * pad}}  # fmt: skip


def tool_result(call_id: str, size: int) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": traceback(size)}


def test_claude_code_entries_are_trimmed_in_place_keeping_every_other_field():
    chain = Chain()
    chain.entries.append({"type": "summary", "summary": "Earlier work", "leafUuid": "u9"})
    chain.add("user", "fix the tests")
    chain.add(
        "assistant", [{"type": "thinking", "thinking": "let me see", "signature": "sig"}], id="m1"
    )
    chain.add("assistant", [tool_use("T1", pad=900)], id="m1")
    result_entry = chain.add("user", [tool_result("T1", 4000)])
    result_entry["toolUseResult"] = {"stdout": traceback(4000), "stderr": ""}
    chain.add("assistant", [{"type": "text", "text": "Fixed."}], id="m2")
    result = trim_claude.trim_claude_entries(chain.entries)
    out = result.entries
    assert out[0] == chain.entries[0]
    marker = out[1]
    assert marker["isMeta"] and marker["message"]["content"].startswith(trim.TAG)
    assert (
        out[2]["parentUuid"] == marker["uuid"] and out[2]["message"]["content"] == "fix the tests"
    )
    assert [e["uuid"] for e in out[2:]] == [
        "u1",
        "u3",
        "u4",
        "u5",
    ]  # the thinking entry merged away
    assert out[3]["parentUuid"] == "u1"
    assert json.loads(json.dumps(out[3]["message"]["content"][0]["input"])).keys() == {"_stubbed"}
    assert out[4]["message"]["content"][0]["content"].startswith(trim.RESULT_STUB)
    assert out[4]["toolUseResult"].startswith(trim.RESULT_STUB)
    assert out[4]["timestamp"] == chain.entries[4]["timestamp"]
    assert out[5]["message"]["content"] == [{"type": "text", "text": "Fixed."}]
    report = result.report
    assert (
        report.tool_results_stubbed,
        report.tool_inputs_stubbed,
        report.tool_metadata_stubbed,
    ) == (1, 1, 1)
    assert (report.thinking_stripped, report.empty_entries_merged) == (1, 1)
    assert report.chars_after < report.chars_before / 3
    assert trim_claude.trim_claude_entries(out).entries == out


def test_a_claude_call_left_unanswered_at_the_end_gets_a_result_entry():
    chain = Chain()
    chain.add("user", "go")
    chain.add("assistant", [tool_use("T1"), tool_use("T2")], id="m1")
    chain.add(
        "user",
        [tool_result("T2", 10), {"type": "tool_result", "tool_use_id": "zz", "content": "stray"}],
    )
    chain.add("assistant", [tool_use("T3")], id="m2")
    out = trim_claude.trim_claude_entries(chain.entries)
    entries = [e for e in out.entries if not e.get("isMeta")]
    blocks = entries[2]["message"]["content"]
    assert [b.get("tool_use_id") for b in blocks] == ["T1", "T2", None]
    assert blocks[0]["content"] == trim.NO_RESULT
    assert blocks[2]["text"].startswith(trim.ORPHAN_TAG) and "stray" in blocks[2]["text"]
    last = entries[-1]
    assert last["parentUuid"] == "u3" and last["message"]["content"][0]["tool_use_id"] == "T3"
    assert (out.report.orphan_calls_fixed, out.report.orphan_results_fixed) == (2, 1)


@st.composite
def claude_sessions(draw):
    chain = Chain()
    if draw(st.booleans()):
        chain.entries.append({"type": "summary", "summary": "before", "leafUuid": "u0"})
    for turn in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["user", "assistant", "tools"]))
        if kind == "user":
            blocks = [{"type": "text", "text": draw(TEXT)}]
            if draw(st.booleans()):
                blocks.append({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}})  # fmt: skip
            chain.add("user", blocks if draw(st.booleans()) else draw(TEXT))
        elif kind == "assistant":
            if draw(st.booleans()):
                chain.add("assistant", [THINK], id=f"m{turn}")
            chain.add("assistant", [{"type": "text", "text": draw(TEXT)}], id=f"m{turn}")
        else:
            ids = [f"T{turn}_{i}" for i in range(draw(st.integers(1, 3)))]
            for call_id in ids:  # Claude Code writes one entry per parallel call
                chain.add("assistant", [tool_use(call_id, pad=draw(SIZE))], id=f"m{turn}")
            answered = draw(st.permutations(ids + ["ghost"]))[: draw(st.integers(0, len(ids) + 1))]
            for call_id in answered:
                chain.add("user", [tool_result(call_id, draw(SIZE))])
        if draw(st.integers(0, 5)) == 0:
            chain.entries.append({"type": "system", "content": "hook ran", "uuid": f"s{turn}"})
    return chain.entries


def claude_said(entries, ours: bool = False) -> list[str]:
    found = []
    for e in entries:
        if formats.is_conversation_entry(e):
            for text in texts(e["message"]):
                if ours and (text.startswith("[tokenmizer:") or text in PLACEHOLDERS):
                    continue
                if text.strip():
                    found.append(text)
    return found


def assert_claude_pairing(entries):
    """Each assistant run's tool_use ids are answered exactly in the user run after it."""
    runs = []
    for e in entries:
        if formats.is_conversation_entry(e):
            if runs and runs[-1][0] == e["type"]:
                runs[-1][1].append(e)
            else:
                runs.append((e["type"], [e]))

    def ids(run, kind, key):
        return sorted(b[key] for e in run for b in e["message"]["content"] if isinstance(e["message"]["content"], list) and b.get("type") == kind)  # fmt: skip

    for r, (kind, run) in enumerate(runs):
        if kind == "user":
            calls = ids(runs[r - 1][1], "tool_use", "id") if r else []
            assert ids(run, "tool_result", "tool_use_id") == calls
        elif r == len(runs) - 1:
            assert ids(run, "tool_use", "id") == []


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(claude_sessions())
def test_trimming_any_claude_session_keeps_text_pairing_and_the_uuid_chain(entries):
    original = copy.deepcopy(entries)
    result = trim_claude.trim_claude_entries(entries)
    out = result.entries
    assert entries == original
    assert claude_said(out, ours=True) == claude_said(entries)
    assert_claude_pairing(out)
    uuids = {e.get("uuid") for e in out}
    for e in out:
        if formats.is_conversation_entry(e):
            assert e["parentUuid"] is None or e["parentUuid"] in uuids
            content = e["message"]["content"]
            assert has_content(content) or any(
                b.get("type", "").startswith("tool_") for b in content
            )
    assert not any(b.get("type") in ("image", "thinking") for e in out if formats.is_conversation_entry(e) and isinstance(e["message"]["content"], list) for b in e["message"]["content"])  # fmt: skip
    assert trim_claude.trim_claude_entries(out).entries == out
    assert trim_claude.trim_claude_entries(copy.deepcopy(entries)) == result
    assert result.report.tokens_after == tokens.count_messages(formats.claude_to_messages(out)[0])
