"""The optional LLM extraction job: the project's upstream proposes facts; only grounded ones stay."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
from django.conf import settings
from django.db import transaction

from memory import graphs, notify
from memory.graph import pipeline
from memory.graph.llm import LLMExtractor
from memory.models import Project, Session
from proxy.upstreams import adapter_for, resolve

Complete = Callable[[list[dict[str, str]]], str]


def complete_with_upstream(project: Project) -> Complete:
    """A blocking completion call to the upstream the project routes its extraction model to."""
    model = project.llm_extraction_model
    target = resolve(list(project.upstreams.all()), model)
    adapter = adapter_for(target.kind)
    timeout = httpx.Timeout(
        settings.TOKENMIZER_READ_TIMEOUT_S, connect=settings.TOKENMIZER_CONNECT_TIMEOUT_S
    )

    def complete(messages: list[dict[str, str]]) -> str:
        body = {
            "model": model,
            "messages": messages,
            "temperature": 0,
            "response_format": {"type": "json_object"},
        }
        request = adapter.request(body, target, stream=False)
        response = httpx.post(
            request.url, json=request.json, headers=request.headers, timeout=timeout
        )
        response.raise_for_status()  # the job retries on upstream errors
        reply = adapter.response(response.json(), model)
        return reply["choices"][0]["message"].get("content") or ""

    return complete


def llm_extract_session(session_id: int, complete: Complete | None = None) -> int | None:
    """Extract the messages past the session's LLM high-water mark and merge the grounded facts.

    The model is called outside any transaction (it is slow); the merge goes through the same
    validator and lifecycle rules as deterministic extraction, with the session row locked.
    """
    session = Session.objects.select_related("project").filter(pk=session_id).first()
    if session is None:
        return None
    if not session.project.llm_extraction:
        return 0
    mark = session.llm_high_water
    turns = graphs.turns_of(session, after=mark - pipeline.CONTEXT_TURNS)
    new = [t for t in turns if t.position > mark]
    if not new:
        return 0
    extractor = LLMExtractor(complete or complete_with_upstream(session.project))
    proposed = extractor.extract(new, context=[t for t in turns if t.position <= mark])
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session_id)
        if session.llm_high_water >= new[-1].position:
            return 0  # another run got there first
        graph, rows = graphs.load_with_rows(session)
        merged = pipeline.merge(graph, proposed, turns, time.time())
        if graphs.save_graph(session, graph, rows):
            notify.graph_changed(session)
        session.llm_high_water = new[-1].position
        session.save(update_fields=["llm_high_water"])
    return len(merged)
