"""The optional LLM extractor against a fake model: grounded facts kept, everything else dropped."""

import json

import pytest

from memory.graph.llm import EXTRACTION_PROMPT, RESPONSE_SCHEMA, LLMExtractor, build_messages
from memory.graph.types import NodeType, Status, Turn

TURNS = [
    Turn(4, "user", "Let's switch from PostgreSQL to SQLite because hosting cost is too high."),
    Turn(5, "assistant", "Done. I created invoices/importer.py and the CSV import is in progress."),
]
CONTEXT = [Turn(3, "user", "We were on PostgreSQL so far.")]


def fact(**kw):
    base = {
        "type": "decision",
        "label": "SQLite",
        "status": "completed",
        "source": 4,
        "quote": "switch from PostgreSQL to SQLite",
        "reason": "",
        "replaces": "",
        "fixes": "",
    }
    return {**base, **kw}


def extractor(reply, seen=None):
    def complete(messages):
        if seen is not None:
            seen.append(messages)
        return reply if isinstance(reply, str) else json.dumps(reply)

    return LLMExtractor(complete)


def test_grounded_facts_become_candidates():
    reply = {
        "facts": [
            fact(reason="hosting cost is too high", replaces="PostgreSQL"),
            fact(
                type="file",
                label="invoices/importer.py",
                source=5,
                quote="created invoices/importer.py",
            ),
            fact(
                type="task",
                label="CSV import",
                status="in_progress",
                source=5,
                quote="the CSV import is in progress",
            ),
        ]
    }
    found = extractor(reply).extract(TURNS, CONTEXT)
    assert [(c.type, c.label, c.status) for c in found] == [
        (NodeType.DECISION, "SQLite", Status.COMPLETED),
        (NodeType.FILE, "invoices/importer.py", Status.COMPLETED),
        (NodeType.TASK, "CSV import", Status.IN_PROGRESS),
    ]
    decision = found[0]
    assert decision.reason == "hosting cost is too high" and decision.replaces == "PostgreSQL"
    assert decision.evidence.position == 4 and decision.cue == "llm"


@pytest.mark.parametrize(
    "bad",
    [
        fact(label="MySQL"),  # not in the message at all
        fact(label="SQLite database"),  # one content word the message never says
        fact(quote="we moved to SQLite yesterday"),  # the quote is not in the message
        fact(source=5),  # the cited message does not say it
        fact(source=3),  # a context turn: read, not mined
        fact(source=99),
        fact(type="framework"),
        fact(status="superseded"),
        fact(status="done"),
        fact(label=""),
        fact(quote=""),
        fact(source="four"),
        fact(source=True),
        fact(label=["SQLite"]),
        "SQLite",
        None,
    ],
)
def test_ungrounded_or_malformed_items_are_dropped(bad):
    assert extractor({"facts": [bad, fact()]}).extract(TURNS) == extractor(
        {"facts": [fact()]}
    ).extract(TURNS)


def test_grounding_ignores_case_and_stopwords():
    found = extractor(
        {"facts": [fact(label="the sqlite", quote="SWITCH FROM postgresql")]}
    ).extract(TURNS)
    assert [c.label for c in found] == ["the sqlite"]


def test_unstated_reasons_and_replacements_are_blanked_not_trusted():
    found = extractor({"facts": [fact(reason="it is faster", replaces="MySQL")]}).extract(TURNS)
    assert found[0].reason == "" and found[0].replaces == ""


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "not json at all",
        '{"facts": [',
        "[1, 2",
        '{"facts": 3}',
        "```json\n{oops}\n```",
        "null",
        "42",
    ],
)
def test_malformed_replies_give_no_candidates(reply):
    assert extractor(reply).extract(TURNS) == []


def test_fenced_json_is_parsed():
    reply = "Here you go:\n```json\n" + json.dumps({"facts": [fact()]}) + "\n```\nAnything else?"
    assert [c.label for c in extractor(reply).extract(TURNS)] == ["SQLite"]


def test_json_inside_prose_and_bare_lists_are_parsed():
    assert [
        c.label for c in extractor("Sure! " + json.dumps({"facts": [fact()]})).extract(TURNS)
    ] == ["SQLite"]
    assert [c.label for c in extractor(json.dumps([fact()])).extract(TURNS)] == ["SQLite"]


def test_repeated_facts_are_reported_once():
    assert len(extractor({"facts": [fact(), fact(label="sqlite")]}).extract(TURNS)) == 1


def test_no_turns_means_no_model_call():
    seen = []
    assert extractor({"facts": [fact()]}, seen).extract([]) == []
    assert seen == []


def test_the_prompt_marks_context_and_new_turns_and_hides_secrets():
    secret = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" * 2
    turns = [Turn(7, "user", f"the key is {secret}")]
    messages = build_messages(turns, CONTEXT)
    assert messages[0] == {"role": "system", "content": EXTRACTION_PROMPT}
    user = messages[1]["content"]
    assert (
        user.index("CONTEXT")
        < user.index("[#3 user]")
        < user.index("NEW")
        < user.index("[#7 user]")
    )
    assert secret not in user and "[REDACTED:openai_key]" in user


def test_the_schema_names_every_field_a_candidate_needs():
    item = RESPONSE_SCHEMA["properties"]["facts"]["items"]
    assert set(item["required"]) >= {
        "type",
        "label",
        "status",
        "quote",
        "source",
        "reason",
        "replaces",
    }
    assert "superseded" not in item["properties"]["status"]["enum"]
    assert json.dumps(RESPONSE_SCHEMA, separators=(",", ":")) in EXTRACTION_PROMPT


def test_errors_of_the_model_call_propagate_so_a_worker_can_retry():
    def down(messages):
        raise ConnectionError("upstream down")

    with pytest.raises(ConnectionError):
        LLMExtractor(down).extract(TURNS)
