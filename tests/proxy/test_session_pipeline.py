"""The session pipeline end to end: redaction, loops, ownership, compaction over a long session."""

import json
import time

import openai
import pytest
from django.conf import settings

from memory.graph import tokens
from memory.models import Session
from proxy.models import Upstream
from tests.proxy.conftest import eventually

SECRET = "sk-proj-" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz" * 2
HELLO = [{"role": "user", "content": "Say hello."}]


def test_the_upstream_receives_redacted_text_by_default(client, upstream):
    messages = [{"role": "user", "content": f"deploy with key {SECRET} please"}]
    client.chat.completions.create(
        model="echo", messages=messages, extra_body={"session_id": "r-1"}
    )
    forwarded = upstream.requests[-1]["body"]["messages"][0]["content"]
    assert SECRET not in forwarded and "deploy with key" in forwarded
    stored = eventually(lambda: Session.objects.get(external_id="r-1").messages.first())
    assert SECRET not in stored.content


def test_a_project_can_send_the_upstream_the_original_text(client, upstream, project):
    project.redact_upstream = False
    project.save()
    messages = [{"role": "user", "content": f"deploy with key {SECRET} please"}]
    client.chat.completions.create(
        model="echo", messages=messages, extra_body={"session_id": "r-2"}
    )
    assert SECRET in upstream.requests[-1]["body"]["messages"][0]["content"]
    stored = eventually(lambda: Session.objects.get(external_id="r-2").messages.first())
    assert SECRET not in stored.content


def test_too_many_consecutive_tool_rounds_answer_a_clear_error(client, project):
    project.max_tool_rounds = 2
    project.save()
    history = list(HELLO)
    for n in range(3):
        call = {"id": f"c{n}", "type": "function", "function": {"name": "run", "arguments": "{}"}}
        history += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": "still failing"},
        ]
    with pytest.raises(openai.BadRequestError, match="tool-call rounds"):
        client.chat.completions.create(
            model="echo", messages=history, extra_body={"session_id": "loop"}
        )


def test_another_members_session_answers_404(client, project, bob):
    from memory.projects import set_member

    set_member(project, bob, "member")
    Session.objects.create(project=project, user=bob, external_id="bobs")
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(
            model="echo", messages=HELLO, extra_body={"session_id": "bobs"}
        )


@pytest.mark.parametrize("kind, path", [("anthropic", "/v1"), ("gemini", "/v1beta")])
def test_a_project_upstream_in_another_protocol_streams_to_the_openai_client(
    client, upstream, project, kind, path
):
    Upstream.objects.create(
        project=project,
        name=kind,
        kind=kind,
        base_url=f"{upstream.url}{path}",
        model_patterns="other-*",
    )
    stream = client.chat.completions.create(model="other-echo", messages=HELLO, stream=True)
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text.startswith("echo")
    assert upstream.requests[-1]["path"].startswith(path)


def tool_pairs_are_intact(messages: list[dict]) -> bool:
    calls = [
        c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []
    ]
    results = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    return sorted(calls) == sorted(results)


def long_session(turns: int):
    """A coding session with tool calls whose outputs are large, stating facts as it goes."""
    for n in range(turns):
        user = {
            "role": "user",
            "content": f"Step {n}: look at module_{n}.py and tell me what to change.",
        }
        call = {
            "id": f"call_{n}",
            "type": "function",
            "function": {
                "name": "read_file",
                "arguments": json.dumps({"path": f"src/module_{n}.py"}),
            },
        }
        body = "\n".join(
            f"def function_{n}_{i}(x):\n    return x * {i}  # generated" for i in range(40)
        )
        yield [
            user,
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{n}", "content": body},
            {
                "role": "assistant",
                "content": f"Completed: reviewed src/module_{n}.py. Decided: keep module_{n} pure.",
            },
        ]


def test_a_long_session_is_compacted_validly_on_every_request(client, upstream, project):
    project.mecw = 4000
    project.save()
    history: list[dict] = [{"role": "system", "content": "You are a careful reviewer."}]
    for turn in long_session(100):
        history += turn[:3]  # the user asks, the assistant calls a tool, the tool answers
        client.chat.completions.create(
            model="echo", messages=history, extra_body={"session_id": "long"}
        )
        history.append(turn[3])
    forwarded = [r["body"]["messages"] for r in upstream.requests]
    assert len(forwarded) == 100
    for messages in forwarded:
        assert tokens.count_messages(messages, "echo") <= 4000
        assert tool_pairs_are_intact(messages)
        assert all(m.get("content") or m.get("tool_calls") for m in messages)
        assert messages[0] == {"role": "system", "content": "You are a careful reviewer."}
    resumes = {m[1]["content"] for m in forwarded if len(m) > 1 and m[1]["role"] == "system"}
    assert len(resumes) >= 2  # the threshold was crossed more than once, each time a new checkpoint
    assert any("module_1.py" in r for r in resumes)  # facts of dropped turns reach the model
    session = Session.objects.get(external_id="long")
    assert session.checkpoints.count() >= 2
    # Prompt caches: while the resume stays the same checkpoint's, a compacted request starts with
    # the whole previous request but its last turn (which, no longer the newest, has its big tool
    # output stubbed); the cut moves again only for a refill. How often a checkpoint comes depends
    # on when the worker's jobs run, so the count is bounded, not fixed.
    compacted = [m for m in forwarded if len(m) > 1 and m[1]["role"] == "system"]
    pairs = [(a, b) for a, b in zip(compacted, compacted[1:], strict=False) if a[1] == b[1]]
    extended = [b[: len(a) - 3] == a[: len(a) - 3] for a, b in pairs]
    assert sum(extended) >= 0.9 * len(pairs)
    assert len({m[1]["content"] for m in compacted}) <= len(compacted) / 2


def test_models_are_listed_from_the_upstream(client):
    assert [m.id for m in client.models.list()]


def test_a_failing_compactor_falls_back_to_truncation_and_serves_the_request(
    client, upstream, project, monkeypatch, caplog
):
    from proxy import compaction

    def broken(*args, **kwargs):
        raise RuntimeError("compactor bug")

    monkeypatch.setattr(compaction, "compact", broken)
    project.mecw = 1500
    project.save()
    history: list[dict] = [{"role": "system", "content": "Be brief."}]
    for turn in long_session(6):
        history += turn
    history.append({"role": "user", "content": "What now?"})
    reply = client.chat.completions.create(
        model="echo", messages=history, extra_body={"session_id": "fb"}
    )
    assert reply.choices[0].message.content.startswith("echo")
    forwarded = upstream.requests[-1]["body"]["messages"]
    assert tokens.count_messages(forwarded, "echo") <= 1500
    assert forwarded[-1] == {"role": "user", "content": "What now?"} and tool_pairs_are_intact(
        forwarded
    )
    assert "falling back to truncation" in caplog.text


@pytest.mark.parametrize(("mecw", "tier"), [(16_000, "full"), (4_000, "standard")])
def test_a_compacted_request_carries_the_largest_resume_tier_its_mecw_affords(
    project, alice, mecw, tier
):
    from proxy import sessions

    session = Session.objects.create(project=project, user=alice, external_id="tiers", mecw=mecw)
    talk = [{"role": "system", "content": "You are a careful reviewer."}]
    for n in range(mecw // 400):
        talk.append(
            {"role": "user", "content": f"Decided: keep module_{n} pure. " + "Context. " * 200}
        )
        talk.append({"role": "assistant", "content": f"Completed: reviewed src/module_{n}.py."})
    plan = sessions.compact_for_session(session, talk, talk, "gpt-4o")
    checkpoint = session.checkpoints.latest("sequence")
    assert plan.messages[1] == {"role": "system", "content": getattr(checkpoint, tier)}
    assert tokens.count_messages(plan.messages, "gpt-4o") <= mecw


def _record(key, session, messages, reply):
    from proxy import sessions

    sessions.record_exchange(key, session, messages, reply, model="echo", stream=False,
                             tokens_sent=1, tokens_forwarded=1, compacted=False, latency_ms=1.0)  # fmt: skip


def test_an_exchange_with_a_later_one_waiting_leaves_the_extraction_to_it(
    transactional_db, alice, project
):
    """A server behind on its bookkeeping extracts once for two exchanges, and loses nothing."""
    from proxy import sessions
    from proxy.keys import create_key

    key, _ = create_key(alice, project, "laptop")
    session = Session.objects.create(project=project, user=alice, external_id="b-1")
    first = [{"role": "user", "content": "Decided: use Redis for the job queue."}]
    second = [*first, {"role": "assistant", "content": "OK."},
              {"role": "user", "content": "Decided: deploy on Fly.io."}]  # fmt: skip
    sessions.exchange_waiting(session)
    sessions.exchange_waiting(session)  # the next request came before the first was recorded
    _record(key, session, first, {"role": "assistant", "content": "OK."})
    time.sleep(settings.TOKENMIZER_EXTRACTION_DELAY_MS / 1000 + 0.3)  # past any job's start
    session.refresh_from_db()
    assert session.messages.count() == 2 and not session.nodes.exists()  # recorded, not extracted
    _record(key, session, second, {"role": "assistant", "content": "Noted."})
    wanted = {"use Redis for the job queue", "deploy on Fly.io"}
    assert eventually(  # at once on the embedded profile; by the worker on the production one
        lambda: wanted <= set(session.nodes.filter(type="decision").values_list("label", flat=True))
    )


def test_an_exchange_left_the_extraction_is_extracted_by_the_next_even_if_it_adds_nothing(
    transactional_db, alice, project
):
    from proxy import sessions
    from proxy.keys import create_key

    key, _ = create_key(alice, project, "laptop")
    session = Session.objects.create(project=project, user=alice, external_id="b-2")
    messages = [{"role": "user", "content": "Decided: use Redis for the job queue."}]
    reply = {"role": "assistant", "content": "OK."}
    sessions.exchange_waiting(session)
    sessions.exchange_waiting(session)
    _record(key, session, messages, reply)
    _record(key, session, messages, reply)  # a retry of the same request: nothing new
    assert eventually(
        lambda: session.nodes.filter(type="decision", label="use Redis for the job queue").exists()
    )
