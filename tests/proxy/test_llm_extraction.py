"""The optional LLM extraction job, against the loopback provider: grounded facts merge, others drop."""

from memory.transcripts import record_messages
from proxy.extraction import llm_extract_session
from proxy.models import Upstream

TURNS = [
    {"role": "user", "content": "Where do we keep sessions?"},
    {"role": "assistant", "content": "Decided: Redis for session storage. It keeps logins fast."},
]


def llm_project(project, upstream):
    project.llm_extraction, project.llm_extraction_model = True, "loopback-extract"
    project.save()
    Upstream.objects.create(
        project=project, name="loopback", base_url=f"{upstream.url}/v1", model_patterns="loopback-*"
    )


def test_it_is_off_by_default(session):
    record_messages(session, TURNS)
    assert llm_extract_session(session.pk) == 0
    assert not session.nodes.exists()


def test_only_facts_grounded_in_a_message_reach_the_graph(session, project, upstream):
    llm_project(project, upstream)
    record_messages(session, TURNS)
    assert llm_extract_session(session.pk) == 1
    labels = set(session.nodes.filter(type="decision").values_list("label", flat=True))
    assert labels == {"Redis for session storage"}  # the invented MongoDB fact was dropped
    prompt = upstream.requests[-1]["body"]["messages"]
    assert "Decided: Redis for session storage" in prompt[-1]["content"]


def test_running_it_again_reads_nothing_twice(session, project, upstream):
    llm_project(project, upstream)
    record_messages(session, TURNS)
    llm_extract_session(session.pk)
    calls = len(upstream.requests)
    assert llm_extract_session(session.pk) == 0
    assert len(upstream.requests) == calls


def test_a_deleted_session_returns_quietly(db):
    assert llm_extract_session(123456) is None
