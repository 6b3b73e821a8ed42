"""Reading a graph as of a past message (valid time) or a past system moment (record time)."""

import pytest

from memory.graph import lifecycle, timetravel
from memory.graph.types import EdgeType, NodeType, Status
from tests.memory.graph.lifecycle_helpers import T0, Session, candidate, decision


def _session() -> Session:
    s = Session()
    s.say("TODO: export invoices.", candidate(NodeType.TASK, "export invoices", 0, Status.PENDING))
    s.say("Decided: Flask for the web framework.", decision("Flask for the web framework", 0))
    s.say(
        "Working on the export invoices.",
        candidate(NodeType.TASK, "export invoices", 0, Status.IN_PROGRESS),
    )
    s.say(
        "Switching to FastAPI for the web framework because we need async.",
        decision("FastAPI for the web framework", 0),
    )
    s.say(
        "Done: export invoices.", candidate(NodeType.TASK, "export invoices", 0, Status.COMPLETED)
    )
    return s


def _statuses(graph) -> dict[str, Status]:
    return {n.label: n.status for n in graph.nodes.values()}


def test_a_superseded_decision_was_in_force_before_its_trigger():
    s = _session()
    assert _statuses(timetravel.as_of_valid(s.graph, position=2)) == {
        "export invoices": Status.IN_PROGRESS,
        "Flask for the web framework": Status.COMPLETED,
    }
    assert _statuses(timetravel.as_of_valid(s.graph, position=4)) == {
        "export invoices": Status.COMPLETED,
        "FastAPI for the web framework": Status.COMPLETED,
    }


def test_valid_time_can_be_read_by_timestamp_too():
    s = _session()
    by_time = timetravel.as_of_valid(s.graph, at=T0 + 60 * 2 + 1)
    assert _statuses(by_time) == _statuses(timetravel.as_of_valid(s.graph, position=2))
    assert timetravel.as_of_valid(s.graph, at=T0 - 1).nodes == {}


def test_a_valid_time_view_holds_only_transitions_triggered_by_then():
    s = _session()
    assert timetravel.as_of_valid(s.graph, position=2).transitions == []
    [t] = timetravel.as_of_valid(s.graph, position=3).transitions
    assert t.new_label == "FastAPI for the web framework"


def test_record_time_shows_what_the_system_knew_then():
    s = _session()
    flask = s.decision("Flask for the web framework")
    learned, retired = flask.recorded_at, flask.retired_at
    assert retired is not None and retired > learned
    known = timetravel.as_of_record(s.graph, learned)
    assert _statuses(known) == {
        "export invoices": Status.PENDING,
        "Flask for the web framework": Status.COMPLETED,
    }
    after = timetravel.as_of_record(s.graph, retired)
    assert "Flask for the web framework" not in _statuses(after)
    first = s.node(NodeType.TASK, "export invoices").recorded_at
    assert timetravel.as_of_record(s.graph, first - 1).nodes == {}


def test_a_resolved_conflict_shows_as_contested_in_the_past_only():
    s = Session()
    s.say(
        "We keep PostgreSQL for primary user data.", decision("PostgreSQL for primary user data", 0)
    )
    s.say("Use SQLite for the offline cache.", decision("SQLite for the offline cache", 0))
    a, b = (
        s.decision("PostgreSQL for primary user data"),
        s.decision("SQLite for the offline cache"),
    )
    contested_at = s.now
    lifecycle.resolve_contested(s.graph, a.key, b.key, "keep_both", "", "alice", s.now + 50)
    then = timetravel.as_of_record(s.graph, contested_at)
    assert {n.status for n in then.nodes.values()} == {Status.CONTESTED}
    assert [e.type for e in then.edges.values()] == [EdgeType.CONFLICTS_WITH]
    now = timetravel.as_of_record(s.graph, s.now + 50)
    assert {n.status for n in now.nodes.values()} == {Status.COMPLETED}
    assert not now.edges


def test_views_are_new_graphs_and_the_original_is_untouched():
    s = _session()
    view = timetravel.as_of_valid(s.graph, position=2)
    view.nodes[next(iter(view.nodes))].status = Status.ARCHIVED
    assert s.node(NodeType.TASK, "export invoices").status == Status.COMPLETED
    assert s.decision("Flask for the web framework").status == Status.SUPERSEDED


def test_exactly_one_of_position_or_timestamp():
    s = _session()
    with pytest.raises(ValueError):
        timetravel.as_of_valid(s.graph)
    with pytest.raises(ValueError):
        timetravel.as_of_valid(s.graph, position=1, at=T0)
