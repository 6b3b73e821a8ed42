"""Behaviour of the compactor: what an over-budget request looks like once it is forwarded."""

import ast
import json
from pathlib import Path

import pytest

from memory.graph.stubs import IMAGE_REMOVED, STUB_OVER
from memory.graph.tokens import count_messages
from proxy.compaction import EMPTY_TOOL_OUTPUT, TooLarge, compact, plan_drop, truncate

SYSTEM = {"role": "system", "content": "You are a careful coding agent."}
RESUME = "[TokenMizer session memory]\n- goal: ship the checkout service\n- decision: use Redis"
PNG = "data:image/png;base64," + "iVBORw0KGgo" * 400


def traceback(n: int) -> str:
    lines = [
        f'  File "src/app/module_{i % 5}.py", line {i}, in handler\n    x = {i}' for i in range(n)
    ]
    return "Traceback (most recent call last):\n" + "\n".join(lines) + "\nAssertionError"


def call(call_id: str, name: str, arguments: dict) -> dict:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def tool_turn(n: int, output: str) -> list[dict]:
    """A user request answered by one bash call, its output, and a short reply."""
    call_id = f"call_{n}"
    return [
        {"role": "user", "content": f"Step {n}: run the test suite and fix what fails."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [call(call_id, "bash", {"command": "pytest -q"})],
        },
        {"role": "tool", "tool_call_id": call_id, "content": output},
        {"role": "assistant", "content": f"Step {n} done: the handler no longer crashes."},
    ]


def conversation(turns: int, output_lines: int = 40) -> list[dict]:
    messages = [SYSTEM]
    for n in range(turns):
        messages += tool_turn(n, traceback(output_lines) + f"\n(run {n})")
    return messages


def assert_well_formed(messages: list[dict]) -> None:
    """Every tool call answered right after it, every result preceded by its call, nothing empty."""
    i = 0
    while i < len(messages):
        message = messages[i]
        assert message.get("content") or message.get("tool_calls"), message
        assert message["role"] != "tool", f"orphan tool result at {i}"
        i += 1
        if message["role"] == "assistant" and message.get("tool_calls"):
            ids = [c["id"] for c in message["tool_calls"]]
            answered = []
            while i < len(messages) and messages[i]["role"] == "tool":
                answered.append(messages[i]["tool_call_id"])
                i += 1
            assert sorted(answered) == sorted(ids)


def test_request_under_the_threshold_is_forwarded_unchanged():
    messages = conversation(2)
    plan = compact(messages, budget=100_000, resume=RESUME)
    assert plan.strategy == "none"
    assert plan.messages == messages
    assert plan.tokens_in == plan.tokens_out == count_messages(messages)
    assert plan.dropped == ()


def test_under_the_threshold_even_a_malformed_request_passes_through():
    """Below the threshold the proxy is transparent; repairs happen only when it rewrites."""
    messages = [
        SYSTEM,
        {"role": "tool", "tool_call_id": "gone", "content": "x"},
        *tool_turn(0, "ok"),
    ]
    assert compact(messages, budget=100_000).messages == messages


def test_old_tool_output_is_stubbed_keeping_name_paths_commands_and_size():
    messages = conversation(6)
    budget = int(count_messages(messages) * 0.8)
    plan = compact(messages, budget=budget, resume=RESUME)
    assert plan.strategy == "stubbed"
    stub = plan.messages[3]["content"]
    original = messages[3]["content"]
    assert stub.startswith("[tool output stubbed by TokenMizer: bash, ")
    assert f"{len(original):,} chars" in stub
    assert "src/app/module_0.py" in stub and "commands: pytest -q" in stub
    assert len(stub) < STUB_OVER
    assert plan.messages[-2] == messages[-2]  # the newest output is what the model is working on
    assert plan.tokens_out == count_messages(plan.messages) <= 0.85 * budget


def test_a_stub_is_never_stubbed_again():
    messages = conversation(6)
    stubbed = compact(messages, budget=int(count_messages(messages) * 0.8))
    again = compact(stubbed.messages, budget=int(stubbed.tokens_out * 0.5))
    assert stubbed.strategy == "stubbed" and again.strategy == "truncated"
    stubs = {m["tool_call_id"]: m["content"] for m in stubbed.messages if m["role"] == "tool"}
    for message in again.messages:
        if message["role"] == "tool" and message["tool_call_id"] in stubs:
            assert message["content"] == stubs[message["tool_call_id"]]


def test_stub_keeps_urls_and_shell_commands_found_in_the_output():
    output = "$ curl -s https://api.example.com/v1/health\n" + "ok\n" * 400
    messages = [SYSTEM, *tool_turn(0, output), *tool_turn(1, "short")]
    plan = compact(messages, budget=count_messages(messages) - 50)
    stub = plan.messages[3]["content"]
    assert "https://api.example.com/v1/health" in stub
    assert "curl -s https://api.example.com/v1/health" in stub


def test_old_large_tool_arguments_become_a_json_stub():
    body = "def handler():\n    return 42\n" * 100
    write = call("w1", "write_file", {"path": "src/app/handler.py", "content": body})
    messages = [
        SYSTEM,
        {"role": "user", "content": "Write the handler."},
        {"role": "assistant", "content": None, "tool_calls": [write]},
        {"role": "tool", "tool_call_id": "w1", "content": "written"},
        {"role": "user", "content": "Now test it."},
    ]
    plan = compact(messages, budget=count_messages(messages) - 10)
    arguments = json.loads(plan.messages[2]["tool_calls"][0]["function"]["arguments"])
    assert set(arguments) == {"_stubbed"}
    assert "write_file" in arguments["_stubbed"] and "src/app/handler.py" in arguments["_stubbed"]
    assert plan.messages[2]["tool_calls"][0]["id"] == "w1"


def image_turn(text: str) -> dict:
    return {
        "role": "user",
        "content": [
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": PNG}},
        ],
    }


def test_images_and_reasoning_are_stripped_from_old_turns_only():
    thinking = {
        "role": "assistant",
        "content": "It is the date parser.",
        "reasoning_content": "hmm " * 300,
    }
    only_image = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": PNG}}]}
    messages = [
        SYSTEM,
        image_turn("What is wrong here?"),
        thinking,
        only_image,
        image_turn("And now?"),
        thinking,
    ]
    plan = compact(messages, budget=count_messages(messages) - 10)
    old_image, old_thinking, old_only_image, new_image, new_thinking = plan.messages[1:]
    assert old_image["content"] == [{"type": "text", "text": "What is wrong here?"}]
    assert (
        "reasoning_content" not in old_thinking
        and old_thinking["content"] == "It is the date parser."
    )
    assert old_only_image["content"] == [{"type": "text", "text": IMAGE_REMOVED}]
    assert new_image == messages[4] and new_thinking == messages[5]


def test_reasoning_parts_are_removed_and_a_reasoning_only_message_disappears():
    parts = [{"type": "thinking", "thinking": "long " * 200}, {"type": "text", "text": "Use UTC."}]
    messages = [
        SYSTEM,
        {"role": "user", "content": "Which timezone?"},
        {"role": "assistant", "content": parts},
        {"role": "assistant", "content": [{"type": "reasoning", "text": "only thoughts " * 100}]},
        {"role": "user", "content": "Thanks."},
    ]
    plan = compact(messages, budget=count_messages(messages) - 10)
    assert plan.messages[2]["content"] == [{"type": "text", "text": "Use UTC."}]
    assert plan.dropped == (3,)


def test_resume_block_follows_the_client_system_prompt_then_the_newest_turns():
    messages = conversation(40)
    plan = compact(messages, budget=4000, resume=RESUME)
    assert plan.strategy == "resume"
    assert plan.messages[0] == SYSTEM
    assert plan.messages[1] == {"role": "system", "content": RESUME}
    assert plan.messages[-4:] == messages[-4:]
    assert plan.tokens_out == count_messages(plan.messages) <= 0.85 * 4000
    kept = [i for i in range(len(messages)) if i not in plan.dropped]
    assert kept == [0, *range(kept[1], len(messages))]  # one contiguous recent suffix
    assert_well_formed(plan.messages)


def test_parallel_tool_calls_move_with_all_their_results():
    calls = [call(f"p{k}", "read_file", {"path": f"src/f{k}.py"}) for k in range(3)]
    results = [
        {"role": "tool", "tool_call_id": f"p{k}", "content": f"contents {k} " * 300}
        for k in (2, 0, 1)
    ]
    turn = [
        {"role": "user", "content": "Read the three files."},
        {"role": "assistant", "tool_calls": calls},
    ]
    messages = [SYSTEM, *conversation(10)[1:], *turn, *results]
    for budget in range(1500, 9000, 250):
        try:
            plan = compact(messages, budget=budget, resume=RESUME)
        except TooLarge:
            continue
        assert_well_formed(plan.messages)
        assert plan.tokens_out <= budget


def test_orphan_tool_result_is_dropped():
    messages = [
        SYSTEM,
        {
            "role": "tool",
            "tool_call_id": "gone",
            "content": "output of a call the client trimmed " * 50,
        },
        *conversation(3)[1:],
    ]
    plan = compact(messages, budget=count_messages(messages) - 10)
    assert 1 in plan.dropped
    assert_well_formed(plan.messages)


def test_unanswered_calls_are_removed_and_a_bare_trailing_call_is_dropped():
    """OpenAI rejects a call without its result, even as the last message; we never invent one."""
    answered, unanswered = (
        call("a", "bash", {"command": "ls"}),
        call("b", "bash", {"command": "pwd"}),
    )
    messages = [
        *conversation(3),
        {
            "role": "assistant",
            "content": "Checking two things.",
            "tool_calls": [answered, unanswered],
        },
        {"role": "tool", "tool_call_id": "a", "content": "README.md"},
        {"role": "user", "content": "Go on."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [call("c", "bash", {"command": "make"})],
        },
    ]
    plan = compact(messages, budget=count_messages(messages) - 10)
    n = len(messages)
    assert plan.dropped == (n - 1,)
    partial = plan.messages[-3]
    assert partial["content"] == "Checking two things." and partial["tool_calls"] == [answered]
    assert plan.messages[-1] == {"role": "user", "content": "Go on."}
    assert_well_formed(plan.messages)


def test_no_message_is_forwarded_empty():
    messages = [
        SYSTEM,
        {"role": "user", "content": ""},
        {"role": "assistant", "content": "   "},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [call("e", "bash", {"command": "true"})],
        },
        {"role": "tool", "tool_call_id": "e", "content": ""},
        *conversation(3)[1:],
    ]
    plan = compact(messages, budget=count_messages(messages) - 10)
    assert plan.dropped == (1, 2)
    assert plan.messages[2] == {"role": "tool", "tool_call_id": "e", "content": EMPTY_TOOL_OUTPUT}
    assert_well_formed(plan.messages)


def test_impossible_request_raises_too_large_with_the_numbers():
    messages = [SYSTEM, {"role": "user", "content": "Review this: " + "lorem ipsum dolor " * 3000}]
    with pytest.raises(TooLarge) as raised:
        compact(messages, budget=2000, resume=RESUME)
    assert raised.value.budget == 2000 and raised.value.needed > 2000
    assert "2,000" in str(raised.value) and f"{raised.value.needed:,}" in str(raised.value)


def test_huge_newest_tool_output_is_stubbed_as_a_last_resort():
    messages = [
        *conversation(3),
        *tool_turn(3, traceback(2000))[:3],
    ]  # the agent is about to answer
    plan = compact(messages, budget=3000, resume=RESUME)
    assert plan.strategy == "resume"
    assert plan.messages[-1]["content"].startswith("[tool output stubbed by TokenMizer: bash")
    assert plan.messages[-3]["content"].startswith("Step 3:")  # the question itself is kept
    assert plan.tokens_out <= 3000
    assert_well_formed(plan.messages)


def test_newest_turn_may_use_the_headroom_rather_than_be_cut():
    messages = [SYSTEM, {"role": "user", "content": "Summarise: " + "alpha beta " * 1300}]
    budget = count_messages(messages) + 40  # fits the budget, not 85% of it
    plan = compact(messages, budget=budget, resume="short memory")
    assert plan.messages[-1] == messages[-1] and plan.tokens_out <= budget


def test_a_resume_too_large_for_the_newest_turn_falls_back_to_truncation():
    messages = conversation(8)
    plan = compact(messages, budget=1200, resume="remember " * 2000)
    assert plan.strategy == "truncated"
    assert all(m["content"] != "remember " * 2000 for m in plan.messages)


def test_without_a_resume_block_the_oldest_turns_are_truncated():
    messages = conversation(30)
    plan = compact(messages, budget=3000)
    assert plan.strategy == "truncated"
    assert plan.messages[0] == SYSTEM and plan.messages[-4:] == messages[-4:]
    assert plan.tokens_out <= 0.85 * 3000
    assert_well_formed(plan.messages)


def test_truncate_keeps_whole_recent_turns_verbatim():
    messages = conversation(30)
    plan = truncate(messages, budget=6000)
    assert plan.strategy == "truncated"
    assert plan.messages[0] == SYSTEM
    assert all(m in messages for m in plan.messages)
    assert plan.tokens_out <= 0.85 * 6000
    assert_well_formed(plan.messages)


def test_keep_recent_protects_more_user_turns_from_stubbing():
    messages = conversation(4)
    budget = int(count_messages(messages) * 0.95)
    one = compact(messages, budget=budget, keep_recent=1)
    three = compact(messages, budget=budget, keep_recent=3)
    assert one.messages[7]["content"].startswith("[tool output stubbed")
    assert three.messages[7] == messages[7] and three.messages[3] != messages[3]


def test_compacting_the_forwarded_request_again_changes_nothing():
    messages = conversation(40)
    for budget in (1500, 3000, 4000, 8000, 60_000):
        plan = compact(messages, budget=budget, resume=RESUME)
        again = compact(plan.messages, budget=budget, resume=RESUME)
        assert again.messages == plan.messages
        assert sum(m.get("content") == RESUME for m in again.messages) <= 1


def test_consecutive_requests_share_the_system_and_resume_prefix():
    """Provider prompt caches keep hitting while the conversation grows between checkpoints."""
    messages = conversation(40)
    first = compact(messages, budget=4000, resume=RESUME)
    messages += tool_turn(40, traceback(40))
    second = compact(messages, budget=4000, resume=RESUME)
    assert first.strategy == second.strategy == "resume"
    assert (
        first.messages[:2] == second.messages[:2] == [SYSTEM, {"role": "system", "content": RESUME}]
    )
    assert json.dumps(first.messages[:2]) == json.dumps(second.messages[:2])


def test_the_same_request_always_compacts_to_the_same_bytes():
    messages = conversation(40)
    plans = [compact(messages, budget=4000, resume=RESUME) for _ in range(2)]
    assert json.dumps(plans[0].messages) == json.dumps(plans[1].messages)


def test_plan_drop_names_the_messages_compaction_leaves_out():
    messages = conversation(40)
    dropped = plan_drop(messages, budget=4000, resume=RESUME)
    assert dropped == compact(messages, budget=4000, resume=RESUME).dropped
    assert dropped[0] == 1 and 0 not in dropped


def test_compactor_is_plain_python():
    # Its stubbing lives in memory/graph/stubs.py, which the architecture test keeps plain.
    source = Path(__file__).resolve().parents[2] / "proxy" / "compaction.py"
    tree = ast.parse(source.read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not {m for m in imported if m.split(".")[0] in {"django", "rest_framework", "channels"}}
