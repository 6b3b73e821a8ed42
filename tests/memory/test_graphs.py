"""Graph persistence and incremental extraction against the database."""

from dataclasses import replace

import pytest
from django.db import IntegrityError, transaction

from memory import graphs
from memory.graph.resume import render_tiers
from memory.graph.types import (
    Edge,
    EdgeType,
    Evidence,
    Graph,
    Node,
    NodeType,
    Status,
    Transition,
)
from memory.models import DecisionTransition
from memory.models import Node as NodeRow
from memory.transcripts import record_messages


def decision(label: str, status: Status, position: int) -> Node:
    return Node(
        type=NodeType.DECISION,
        label=label,
        status=status,
        confidence=0.9,
        evidence=Evidence(position, f"we chose {label}"),
        valid_from=position,
        valid_from_at=1_700_000_000.0 + position,
        recorded_at=1_700_000_100.0,
        last_seen_at=1_700_000_000.0 + position,
    )


def sample_graph() -> Graph:
    old = decision("PostgreSQL for storage", Status.SUPERSEDED, 1)
    old.valid_until, old.valid_until_at, old.retired_at = 3, 1_700_000_003.0, 1_700_000_200.0
    new = decision("SQLite for storage", Status.COMPLETED, 3)
    graph = Graph(high_water=3)
    graph.nodes = {old.key: old, new.key: new}
    edge = Edge(new.key, old.key, EdgeType.SUPERSEDES, recorded_at=1_700_000_200.0)
    graph.edges = {edge.key: edge}
    graph.transitions = [
        Transition(
            old_label=old.label,
            new_label=new.label,
            from_status=Status.COMPLETED,
            to_status=Status.SUPERSEDED,
            trigger=3,
            reason="hosting cost",
            evidence="switched",
            confidence_before=0.9,
            confidence_after=0.95,
            at=1_700_000_200.0,
        )
    ]
    return graph


def test_a_saved_graph_loads_back_identical(session):
    graph = sample_graph()
    graphs.save_graph(session, graph)
    assert graphs.load_graph(session) == graph


def test_a_likely_decision_stays_likely_after_a_round_trip(session):
    """The lexicon's mark is kept with the node: reloaded, the decision is still not in force."""
    graph = sample_graph()
    likely = replace(decision("weekly invoices", Status.COMPLETED, 2), learned=True)
    graph.nodes[likely.key] = likely
    graphs.save_graph(session, graph)
    loaded = graphs.load_graph(session)
    assert loaded.nodes[likely.key].learned
    assert render_tiers(loaded)["standard"].in_force == ("SQLite for storage",)


def test_a_loaded_graph_with_a_live_link_renders_its_resume(session):
    """Edge types come back as EdgeType, as the resume reads them (it names each link)."""
    graph = sample_graph()
    fix = replace(decision("render PDFs with WeasyPrint", Status.COMPLETED, 4), type=NodeType.TASK)
    error = replace(decision("the invoice PDF is blank", Status.FAILED, 2), type=NodeType.ERROR)
    graph.nodes.update({fix.key: fix, error.key: error})
    link = Edge(fix.key, error.key, EdgeType.FIXES, recorded_at=1_700_000_300.0)
    graph.edges[link.key] = link
    graphs.save_graph(session, graph)
    loaded = graphs.load_graph(session)
    assert {type(e.type) for e in loaded.edges.values()} == {EdgeType}
    assert "fixes" in render_tiers(loaded)["full"].text


def test_nodes_load_in_the_order_they_became_valid_whatever_order_they_were_saved_in(session):
    graph = Graph(high_water=9)
    for label, position in [("Redis for the queue", 7), ("Caddy in front", 2), ("Fly.io", 5)]:
        node = decision(label, Status.COMPLETED, position)
        graph.nodes[node.key] = node
    graphs.save_graph(session, graph)
    loaded = [node.label for node in graphs.load_graph(session).nodes.values()]
    assert loaded == ["Caddy in front", "Fly.io", "Redis for the queue"]  # tiers break ties so


def test_saving_twice_writes_nothing_new(session):
    graphs.save_graph(session, sample_graph())
    graphs.save_graph(session, graphs.load_graph(session))
    assert session.nodes.count() == 2
    assert session.edges.count() == 1
    assert session.transitions.count() == 1


def test_the_database_refuses_two_nodes_with_one_label_and_type(session):
    graphs.save_graph(session, sample_graph())
    row = session.nodes.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        NodeRow.objects.create(
            session=session,
            type=row.type,
            label=row.label.upper(),
            key=row.key,
            status=row.status,
            recorded_at=row.recorded_at,
        )


def test_transitions_keep_their_labels_when_the_nodes_are_pruned(session):
    graphs.save_graph(session, sample_graph())
    pruned = graphs.load_graph(session)
    pruned.nodes = {k: n for k, n in pruned.nodes.items() if n.status != Status.SUPERSEDED}
    pruned.edges = {}
    graphs.save_graph(session, pruned)
    transition = DecisionTransition.objects.get(session=session)
    assert transition.old_node is None
    assert (transition.old_label, transition.new_label) == (
        "PostgreSQL for storage",
        "SQLite for storage",
    )


EXPLICIT = [
    {"role": "user", "content": "Let's build a FastAPI authentication service."},
    {"role": "assistant", "content": "Decided: bcrypt for password hashing. Created api/auth.py."},
    {"role": "user", "content": "Login keeps returning 422."},
    {
        "role": "assistant",
        "content": "Fixed: 422 error in api/models.py. Completed: login endpoint.",
    },
]


def graph_summary(session):
    return sorted(session.nodes.values_list("type", "key", "status"))


def test_extraction_puts_the_facts_of_new_messages_in_the_graph(session):
    record_messages(session, EXPLICIT)
    assert graphs.extract_session(session.pk) > 0
    files = set(session.nodes.filter(type="file").values_list("label", flat=True))
    assert {"api/auth.py", "api/models.py"} <= files
    assert session.nodes.filter(type="decision", label__icontains="bcrypt").exists()
    session.refresh_from_db()
    assert session.high_water == 3


def test_extracting_again_changes_nothing(session):
    record_messages(session, EXPLICIT)
    graphs.extract_session(session.pk)
    before = graph_summary(session)
    assert graphs.extract_session(session.pk) == 0
    assert graph_summary(session) == before


def test_overlapping_chunks_give_the_same_graph_as_one_pass(session, project, alice):
    record_messages(session, EXPLICIT)
    graphs.extract_session(session.pk)
    other = project.sessions.create(user=alice, external_id="sess-2")
    for end in (2, 3, 4, 4):
        record_messages(other, EXPLICIT[:end])
        graphs.extract_session(other.pk)
    assert graph_summary(other) == graph_summary(session)


def test_extraction_of_a_deleted_session_returns_quietly(db):
    assert graphs.extract_session(987654) is None
