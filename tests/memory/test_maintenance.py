"""Decay, pruning and re-extraction are idempotent; pruning never drops what steers the work."""

from types import SimpleNamespace

import pytest

from memory import graphs, tasks
from memory.graph.types import Edge, EdgeType, Evidence, Graph, Node, NodeType, Status
from memory.models import Session
from memory.transcripts import record_messages

DAY = 24 * 3600.0
T0 = 1_760_000_000.0
LATER = T0 + 30 * DAY  # a month idle: importance has decayed a lot
PROTECTED = {
    (NodeType.GOAL, "ship the checkout service"),
    (NodeType.ENVIRONMENT, "python 3.11"),
    (NodeType.SCHEMA, "orders table (id, total, status) schema"),
    (NodeType.DECISION, "postgresql for orders storage"),
    (NodeType.DECISION, "stripe for payments"),
}


def node(kind: NodeType, label: str, status: Status, position: int, mentions: int = 1) -> Node:
    seen = T0 + position
    return Node(
        type=kind, label=label, status=status, confidence=0.9, mentions=mentions,
        evidence=Evidence(position, label), valid_from=position, valid_from_at=seen,
        recorded_at=seen, last_seen_at=seen,
    )  # fmt: skip


def working_graph() -> Graph:
    """Protected facts (goal, environment, schema, decisions in force or contested) among many
    ordinary ones (tasks, files, errors) and history (a superseded decision)."""
    nodes = [
        node(NodeType.GOAL, "Ship the checkout service", Status.IN_PROGRESS, 0),
        node(NodeType.ENVIRONMENT, "Python 3.11", Status.COMPLETED, 1),
        node(NodeType.SCHEMA, "orders table (id, total, status) schema", Status.COMPLETED, 2),
        node(NodeType.DECISION, "PostgreSQL for orders storage", Status.COMPLETED, 3),
        node(NodeType.DECISION, "Stripe for payments", Status.CONTESTED, 4),
        node(NodeType.DECISION, "SQLite for orders storage", Status.SUPERSEDED, 5),
    ]
    for i in range(12):
        nodes.append(
            node(NodeType.TASK, f"write tests for module_{i}", Status.PENDING, 6 + i, i % 3 + 1)
        )
        nodes.append(node(NodeType.FILE, f"src/module_{i}.py", Status.COMPLETED, 6 + i))
    nodes.append(node(NodeType.ERROR, "ValueError in checkout", Status.FAILED, 20))
    graph = Graph(high_water=20)
    graph.nodes = {n.key: n for n in nodes}
    task, file = (NodeType.TASK, "write tests for module_0"), (NodeType.FILE, "src/module_0.py")
    for source, target, kind in [
        ((NodeType.DECISION, "postgresql for orders storage"), (NodeType.DECISION, "sqlite for orders storage"), EdgeType.SUPERSEDES),
        (task, file, EdgeType.RELATED_TO),
    ]:  # fmt: skip
        edge = Edge(source, target, kind, recorded_at=T0 + 20)
        graph.edges[edge.key] = edge
    return graph


@pytest.fixture
def worked(session) -> Session:
    record_messages(session, [{"role": "user", "content": "Let's get going."}])  # an active session
    graphs.save_graph(session, working_graph())
    return session


def snapshot(session: Session) -> tuple:
    session.refresh_from_db()
    nodes = sorted(
        (n.type, n.key, n.status, n.importance, n.mentions, n.retired_at, n.valid_until)
        for n in session.nodes.all()
    )
    edges = sorted((e.source.key, e.target.key, e.type, e.retired_at) for e in session.edges.all())
    return nodes, edges, session.transitions.count(), session.graph_version


def live_keys(session: Session) -> set:
    graph = graphs.load_graph(session)
    return {n.key for n in graph.live()}


def test_decaying_twice_as_of_the_same_moment_changes_nothing_more(worked):
    before = snapshot(worked)
    assert graphs.decay_session(worked.pk, LATER) is True
    once = snapshot(worked)
    assert once != before  # a month idle lowers importance
    assert graphs.decay_session(worked.pk, LATER) is False
    assert snapshot(worked) == once  # graph version included: no spurious "graph changed"


def test_pruning_twice_gives_the_same_graph(worked):
    assert graphs.prune_session(worked.pk, 3, LATER) is True
    once = snapshot(worked)
    assert graphs.prune_session(worked.pk, 3, LATER) is False
    assert snapshot(worked) == once


def test_pruning_never_removes_goals_environment_schemas_or_decisions_in_force(worked):
    graphs.prune_session(worked.pk, 0, LATER)  # the tightest cap there is
    graph = graphs.load_graph(worked)
    live = {n.key for n in graph.live()}
    assert PROTECTED <= live
    assert graph.nodes[(NodeType.DECISION, "stripe for payments")].status == Status.CONTESTED
    ordinary = [n for n in graph.nodes.values() if n.key not in PROTECTED]
    assert all(n.status in (Status.ARCHIVED, Status.SUPERSEDED) for n in ordinary)


def test_pruning_under_the_cap_keeps_the_most_important_facts(worked):
    graphs.prune_session(worked.pk, len(PROTECTED) + 2, LATER)
    unprotected_live = live_keys(worked) - PROTECTED
    assert len(unprotected_live) == 2
    # Mentioned three times and the most recently seen of those, two tasks outweigh the rest.
    assert unprotected_live == {
        (NodeType.TASK, "write tests for module_8"),
        (NodeType.TASK, "write tests for module_11"),
    }


def test_the_periodic_jobs_run_twice_give_the_same_graph(worked, monkeypatch, settings):
    settings.TOKENMIZER_GRAPH_NODE_CAP = 4
    monkeypatch.setattr(tasks, "time", SimpleNamespace(time=lambda: LATER))  # one fixed "now"
    assert tasks.decay_importance() == 1
    assert tasks.prune_graphs() == 1
    once = snapshot(worked)
    assert tasks.decay_importance() == 1
    assert tasks.prune_graphs() == 1
    assert snapshot(worked) == once
    assert PROTECTED <= live_keys(worked)


def test_the_periodic_jobs_skip_sessions_idle_past_the_active_window(worked, settings):
    settings.TOKENMIZER_ACTIVE_DAYS = 0
    before = snapshot(worked)
    assert tasks.decay_importance() == 0
    assert tasks.prune_graphs() == 0
    assert snapshot(worked) == before


def test_jobs_on_a_deleted_session_change_nothing(worked):
    session_id = worked.pk
    worked.delete()
    assert graphs.decay_session(session_id, LATER) is None
    assert graphs.prune_session(session_id, 3, LATER) is None


TRANSCRIPT = [
    {"role": "user", "content": "We're building a checkout service in Django 5.2 on Python 3.11."},
    {"role": "assistant", "content": "Decided: SQLite for orders storage."},
    {"role": "user", "content": "TODO: write the migration for the refunds table."},
    {"role": "assistant", "content": "Switched from SQLite to PostgreSQL for orders storage because of concurrent writes."},
    {"role": "user", "content": "Completed: the migration for the refunds table."},
    {"role": "assistant", "content": "Error: IntegrityError in refunds_refund when amount is null."},
    {"role": "user", "content": "Fixed the IntegrityError in refunds_refund by defaulting amount to 0."},
]  # fmt: skip


def facts(session: Session) -> tuple:
    session.refresh_from_db()
    nodes = sorted((n.type, n.key, n.label, n.status, n.mentions, n.valid_from, n.valid_until)
                   for n in session.nodes.all())  # fmt: skip
    edges = sorted(
        (e.source.key, e.target.key, e.type, e.retired_at is None) for e in session.edges.all()
    )
    moves = list(
        session.transitions.order_by("sequence").values_list("old_label", "new_label", "to_status")
    )
    return nodes, edges, moves, session.high_water


def test_extracting_the_same_range_again_or_in_pieces_gives_the_same_graph(project, alice):
    whole = Session.objects.create(project=project, user=alice, external_id="whole")
    record_messages(whole, TRANSCRIPT)
    graphs.extract_session(whole.pk, now=T0)
    once = facts(whole)
    assert graphs.extract_session(whole.pk, now=T0 + 60) == 0  # the same range again: a redelivery
    assert facts(whole) == once
    pieces = Session.objects.create(project=project, user=alice, external_id="pieces")
    for upto in range(1, len(TRANSCRIPT) + 1):  # one job per exchange, as the proxy queues them
        record_messages(pieces, TRANSCRIPT[:upto])
        graphs.extract_session(pieces.pk, now=T0)
        graphs.extract_session(pieces.pk, now=T0)
    assert facts(pieces) == once
