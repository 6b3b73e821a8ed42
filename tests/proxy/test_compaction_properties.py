"""Properties of the compactor over random transcripts: pairing, budget, verbatim, idempotence."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.graph.stubs import IMAGE_REMOVED
from memory.graph.tokens import count_messages
from proxy.compaction import TooLarge, compact, truncate

PNG = "data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB" * 50
WORDS = [
    "pytest",
    "src/app.py",
    "Redis",
    "ошибка",
    "数据库",
    "😀",
    "def f():",
    "https://x.io/a",
    "$ ls",
]

RESUME = "[TokenMizer session memory]\n- goal: keep the prefix stable"

words = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
# Mostly short text, sometimes a huge block, sometimes empty or blank: all have to be survived.
texts = st.one_of(
    words,
    st.text(max_size=40),
    st.tuples(words, st.integers(1, 600)).map(lambda t: (t[0] + "\n") * t[1]),
    st.sampled_from(["", "   "]),
)


@st.composite
def user_message(draw) -> dict:
    text = draw(texts)
    if draw(st.booleans()):
        return {"role": "user", "content": text}
    parts = [{"type": "text", "text": text}]
    if draw(st.booleans()):
        parts.append({"type": "image_url", "image_url": {"url": PNG}})
    return {"role": "user", "content": parts}


@st.composite
def assistant_message(draw) -> dict:
    content = draw(st.one_of(texts, st.none()))
    if draw(st.integers(0, 3)) == 0:
        content = [
            {"type": "thinking", "thinking": draw(texts)},
            {"type": "text", "text": draw(texts)},
        ]
    message = {"role": "assistant", "content": content}
    if draw(st.integers(0, 3)) == 0:
        message["reasoning_content"] = draw(texts)
    return message


@st.composite
def tool_output(draw):
    if draw(st.integers(0, 4)):
        return draw(texts)
    parts = [{"type": "text", "text": draw(texts)}]
    return parts + [{"type": "image_url", "image_url": {"url": PNG}}] * draw(st.integers(0, 1))


@st.composite
def tool_round(draw, ids) -> list[dict]:
    """An assistant message with 1-3 calls, then its results: shuffled, some missing, some extra."""
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        ids.append(f"call_{len(ids)}")
        arguments = json.dumps({"path": "src/app.py", "content": draw(texts)}, ensure_ascii=False)
        calls.append(
            {
                "id": ids[-1],
                "type": "function",
                "function": {"name": "write", "arguments": arguments},
            }
        )
    content = draw(st.one_of(st.none(), words))
    results = [
        {"role": "tool", "tool_call_id": c["id"], "content": draw(tool_output())}
        for c in calls
        if draw(st.integers(0, 5)) > 0
    ]
    if draw(st.integers(0, 6)) == 0:
        results.append({"role": "tool", "tool_call_id": "call_unknown", "content": "stray"})
    return [
        {"role": "assistant", "content": content, "tool_calls": calls},
        *draw(st.permutations(results)),
    ]


@st.composite
def transcripts(draw) -> list[dict]:
    ids: list[str] = []
    system = draw(st.sampled_from(["Be brief.", "", "Системный промпт."]))
    messages = [{"role": "system", "content": system}]
    if draw(st.integers(0, 4)) == 0:
        messages.append({"role": "developer", "content": "Prefer small diffs."})
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.integers(0, 10))
        if kind < 3:
            messages.append(draw(user_message()))
        elif kind < 5:
            messages.append(draw(assistant_message()))
        elif kind < 9:
            messages += draw(tool_round(ids))
        elif kind < 10:
            messages.append({"role": "tool", "tool_call_id": "orphan", "content": draw(texts)})
        else:
            messages.append({"role": "system", "content": draw(st.sampled_from([RESUME, "Note."]))})
    return messages


requests = st.fixed_dictionaries(
    {
        "budget": st.integers(30, 12_000),
        "threshold": st.sampled_from([0.5, 0.85, 1.0]),
        "resume": st.one_of(st.none(), words, st.just(RESUME), st.just("memory " * 300)),
        "keep_recent": st.integers(0, 3),
        "model": st.sampled_from([None, "gpt-4o"]),
    }
)


def text_of(message: dict):
    content = message.get("content")
    if not isinstance(content, list):
        return content
    return tuple(
        p["text"] for p in content if p.get("type") == "text" and p["text"] != IMAGE_REMOVED
    )


def assert_pairs_intact(messages: list[dict]) -> None:
    i = 0
    while i < len(messages):
        message = messages[i]
        assert message["role"] != "tool", f"tool result without its call at {i}"
        i += 1
        if message.get("tool_calls"):
            ids = [c["id"] for c in message["tool_calls"]]
            answered = []
            while i < len(messages) and messages[i]["role"] == "tool":
                answered.append(messages[i]["tool_call_id"])
                i += 1
            assert sorted(answered) == sorted(ids), "calls and results differ"


def assert_not_empty(message: dict) -> None:
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(p.get("text", "x") for p in content)
    assert message.get("tool_calls") or (content and content.strip()), message


def assert_forwardable(plan, messages: list[dict], budget: int, resume, model) -> None:
    if plan.strategy == "none":
        assert plan.messages == messages and plan.dropped == ()
        return
    assert plan.tokens_out == count_messages(plan.messages, model) <= budget
    assert_pairs_intact(plan.messages)
    for message in plan.messages:
        assert_not_empty(message)
    originals = {(m["role"], json.dumps(text_of(m))) for m in messages}
    for message in plan.messages:
        if message["role"] in ("user", "assistant"):
            assert (message["role"], json.dumps(text_of(message))) in originals
    if resume is not None:
        block = {"role": "system", "content": resume}
        copies = [sum(m == block for m in ms) for ms in (messages, plan.messages)]
        assert copies[1] <= max(1, copies[0])  # never added to a block already there
    assert list(plan.dropped) == sorted(set(plan.dropped)) and set(plan.dropped) <= set(
        range(len(messages))
    )


PROPERTY_SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@PROPERTY_SETTINGS
@given(transcripts(), requests)
def test_every_compacted_request_is_well_formed_within_budget_and_stable(messages, request):
    try:
        plan = compact(messages, **request)
    except TooLarge as error:
        assert error.needed > request["budget"]
        truncation = {k: request[k] for k in ("budget", "threshold", "model")}
        with pytest.raises(TooLarge):  # compaction only ever fails where truncation fails too
            truncate(messages, **truncation)
        return
    assert_forwardable(plan, messages, request["budget"], request["resume"], request["model"])
    assert json.dumps(compact(messages, **request).messages) == json.dumps(plan.messages)
    again = compact(plan.messages, **request)
    assert again.messages == plan.messages


@PROPERTY_SETTINGS
@given(transcripts(), requests)
def test_truncation_fallback_is_well_formed_and_verbatim(messages, request):
    args = {k: request[k] for k in ("budget", "threshold", "model")}
    try:
        plan = truncate(messages, **args)
    except TooLarge:
        return
    assert_forwardable(plan, messages, request["budget"], None, request["model"])
    assert truncate(plan.messages, **args).messages == plan.messages


def expected_head(messages: list[dict]) -> list[dict]:
    """The client's leading system messages as sent (not the empty ones; repeats kept), with the
    resume block once."""
    block = {"role": "system", "content": RESUME}
    head = []
    for message in messages:
        if message["role"] not in ("system", "developer"):
            break
        if message["content"] and not (message == block and block in head):
            head.append(message)
    return head if block in head else [*head, block]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transcripts(), transcripts(), st.integers(300, 4000))
def test_growing_conversation_keeps_the_system_and_resume_prefix(first, more, budget):
    plans = []
    for messages in (first, first + [m for m in more if m["role"] not in ("system", "developer")]):
        try:
            plan = compact(messages, budget=budget, resume=RESUME)
        except TooLarge:
            return
        if plan.strategy == "resume":
            head = expected_head(messages)
            assert plan.messages[: len(head)] == head
            plans.append(plan)
    if len(plans) == 2:
        head = expected_head(first)
        assert plans[0].messages[: len(head)] == plans[1].messages[: len(head)]
