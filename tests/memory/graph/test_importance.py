"""Importance: reinforcement on re-mention, decay from timestamps, pruning sparing what matters."""

import copy

from hypothesis import given
from hypothesis import strategies as st

from memory.graph import importance
from memory.graph.types import Evidence, Graph, Node, NodeType, Status

DAY = 24 * 3600.0
NOW = 1_700_000_000.0


def node(
    kind: NodeType,
    label: str,
    status: Status = Status.COMPLETED,
    seen: float = NOW,
    mentions: int = 1,
) -> Node:
    n = Node(
        kind,
        label,
        status,
        0.8,
        Evidence(0, label),
        mentions=mentions,
        last_seen_at=seen,
        recorded_at=seen,
    )
    n.importance = importance.base(n)
    return n


def graph(*nodes: Node) -> Graph:
    return Graph(nodes={n.key: n for n in nodes})


def test_reinforcing_raises_importance_and_restarts_the_clock():
    n = node(NodeType.TASK, "write docs", seen=NOW - 10 * DAY)
    importance.decay(graph(n), NOW)
    faded = n.importance
    importance.reinforce(n, NOW)
    assert n.mentions == 2 and n.last_seen_at == NOW and n.importance > faded
    assert n.importance > importance.base(node(NodeType.TASK, "write docs"))


def test_decay_halves_importance_after_a_half_life():
    n = node(NodeType.FILE, "app.py", seen=NOW)
    importance.decay(graph(n), NOW + importance.HALF_LIFE_S)
    assert abs(n.importance - importance.base(n) / 2) < 1e-9


def test_decay_run_twice_at_the_same_moment_changes_nothing():
    g = graph(
        node(NodeType.TASK, "a", seen=NOW - DAY), node(NodeType.FILE, "b.py", seen=NOW - 9 * DAY)
    )
    importance.decay(g, NOW)
    once = copy.deepcopy(g)
    importance.decay(g, NOW)
    assert g == once


def test_decay_depends_only_on_timestamps_not_on_how_often_it_ran():
    a, b = node(NodeType.TASK, "a", seen=NOW), node(NodeType.TASK, "a", seen=NOW)
    for step in range(1, 6):
        importance.decay(graph(a), NOW + step * DAY)
    importance.decay(graph(b), NOW + 5 * DAY)
    assert a.importance == b.importance


def _crowded() -> tuple[Graph, list[Node]]:
    old = NOW - 60 * DAY  # everything protected is also the least important, to make it count
    protected = [
        node(NodeType.GOAL, "ship the booking api", seen=old),
        node(NodeType.ENVIRONMENT, "python 3.12", seen=old),
        node(NodeType.SCHEMA, "bookings table", seen=old),
        node(NodeType.DECISION, "postgres for bookings", seen=old),
        node(NodeType.DECISION, "room for the feed cache", Status.CONTESTED, seen=old),
        node(NodeType.DECISION, "md5 for passwords", Status.INVALIDATED, seen=old),
    ]
    others = [node(NodeType.FILE, f"src/f{i}.py", seen=NOW - i * DAY) for i in range(10)]
    others.append(node(NodeType.DECISION, "mysql for bookings", Status.SUPERSEDED, seen=old))
    return graph(*protected, *others), protected


def test_pruning_never_removes_goals_environment_schemas_or_decisions_in_force_or_contested():
    g, protected = _crowded()
    importance.prune(g, cap=3, now=NOW)
    for n in protected:
        assert g.nodes[n.key].status == n.status and g.nodes[n.key].retired_at is None


def test_pruning_archives_the_least_important_live_nodes_first():
    g, _ = _crowded()
    importance.prune(g, cap=10, now=NOW)  # 5 protected live nodes + 10 files: 5 files must go
    archived = sorted(n.label for n in g.nodes.values() if n.status == Status.ARCHIVED)
    assert archived == [f"src/f{i}.py" for i in range(5, 10)]  # the longest unmentioned
    assert len(g.live()) == 10 and all(
        n.retired_at == NOW for n in g.nodes.values() if n.status == Status.ARCHIVED
    )


def test_pruning_removes_history_nodes_over_the_cap_but_keeps_tombstones():
    g, _ = _crowded()
    importance.prune(g, cap=2, now=NOW)
    history = [n for n in g.nodes.values() if n.status in (Status.ARCHIVED, Status.SUPERSEDED)]
    assert len(history) == 2
    assert any(n.status == Status.INVALIDATED for n in g.nodes.values())


def test_pruning_twice_gives_the_same_graph():
    g, _ = _crowded()
    importance.prune(g, cap=4, now=NOW)
    once = copy.deepcopy(g)
    assert importance.prune(g, cap=4, now=NOW) == []
    assert g == once


def test_pruning_under_the_cap_does_nothing():
    g, _ = _crowded()
    before = copy.deepcopy(g)
    importance.prune(g, cap=100, now=NOW)
    assert g == before


_KINDS = st.sampled_from(list(NodeType))
_STATUSES = st.sampled_from(list(Status))


@given(
    st.lists(
        st.tuples(_KINDS, _STATUSES, st.integers(0, 90), st.integers(1, 6)), min_size=1, max_size=30
    ),
    st.integers(0, 12),
)
def test_pruning_is_idempotent_and_spares_protected_nodes_on_any_graph(rows, cap):
    g = graph(
        *(
            node(kind, f"{kind} {i}", status, seen=NOW - days * DAY, mentions=m)
            for i, (kind, status, days, m) in enumerate(rows)
        )
    )
    protected = {k: n.status for k, n in g.nodes.items() if importance.is_protected(n)}
    importance.prune(g, cap=cap, now=NOW)
    once = copy.deepcopy(g)
    importance.prune(g, cap=cap, now=NOW)
    assert g == once
    assert {k: g.nodes[k].status for k in protected} == protected
    assert len([n for n in g.live() if not importance.is_protected(n)]) <= cap
