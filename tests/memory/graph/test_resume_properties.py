"""Resume properties over arbitrary graphs: budgets hold, rendering never fails, bytes repeat."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.graph import tokens
from memory.graph.redact import find_secrets
from memory.graph.resume import TIER_BUDGETS, render, render_tiers
from memory.graph.types import Edge, EdgeType, Evidence, Graph, Node, NodeType, Status, Transition

SECRET = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" * 2
WORDS = st.sampled_from(
    [
        "SQLite",
        "migrate",
        "数据库",
        "迁移",
        "кэш",
        "Straße",
        "🙂",
        "src/app.py",
        "a" * 200,
        "\n",
        "password=hunter2",
        SECRET,
        "—",
        "ا",
        "ไทย",
        "  ",
        "[",
        "…",
    ]
)
LABELS = st.one_of(
    st.text(max_size=40),
    st.lists(WORDS, max_size=12).map(" ".join),
    # Huge labels, cheap to generate: a few words or characters repeated hundreds of times.
    st.builds(
        lambda ws, n: " ".join(ws) * n,
        st.lists(WORDS, min_size=1, max_size=4),
        st.integers(20, 800),
    ),
    st.builds(lambda t, n: t * n, st.text(min_size=1, max_size=4), st.integers(100, 3000)),
)


@st.composite
def nodes(draw):
    return Node(
        type=draw(st.sampled_from(list(NodeType))),
        label=draw(LABELS),
        status=draw(st.sampled_from(list(Status))),
        confidence=1.0,
        evidence=Evidence(0, draw(st.sampled_from(["", SECRET]))),
        importance=draw(st.floats(allow_nan=True, allow_infinity=True)),
        reason=draw(LABELS),
        valid_from=draw(st.integers(0, 50)),
        last_seen_at=draw(st.floats(0, 1e9)),
        retired_at=draw(st.sampled_from([None, None, 1.0])),
    )


@st.composite
def graphs(draw):
    g = Graph()
    for n in draw(st.lists(nodes(), max_size=25)):
        g.nodes[n.key] = n
    keys = list(g.nodes)
    if keys:
        for _ in range(draw(st.integers(0, 20))):
            a, b = draw(st.sampled_from(keys)), draw(st.sampled_from(keys))
            kind = draw(st.sampled_from(list(EdgeType)))
            g.edges[(a, b, kind)] = Edge(a, b, kind)
        for _ in range(draw(st.integers(0, 10))):
            old, new = draw(st.sampled_from(keys)), draw(st.sampled_from(keys))
            reason = draw(LABELS)
            g.transitions.append(
                Transition(
                    g.nodes[old].label,
                    g.nodes[new].label,
                    Status.COMPLETED,
                    Status.SUPERSEDED,
                    draw(st.integers(0, 50)),
                    reason=reason,
                )
            )
    return g


SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(graphs(), st.sampled_from(tokens.ENCODING_NAMES))
def test_no_tier_ever_exceeds_its_budget(graph, encoding):
    for tier, r in render_tiers(graph, encoding).items():
        assert r.tokens == len(tokens.get_encoding(encoding).encode_ordinary(r.text))
        assert r.tokens <= TIER_BUDGETS[tier]


@SETTINGS
@given(graphs())
def test_no_tier_ever_shows_a_secret(graph):
    for r in render_tiers(graph).values():
        assert SECRET not in r.text and "hunter2" not in r.text
        assert find_secrets(r.text) == []


@SETTINGS
@given(graphs())
def test_the_same_graph_always_renders_the_same_bytes(graph):
    reordered = Graph(transitions=list(graph.transitions))
    reordered.nodes = dict(reversed(list(graph.nodes.items())))
    reordered.edges = dict(reversed(list(graph.edges.items())))
    assert render_tiers(graph) == render_tiers(reordered)
    assert render(graph, "standard") == render(graph, "standard")


@SETTINGS
@given(graphs())
def test_only_live_decisions_in_force_are_reported_in_force(graph):
    in_force = {
        n.label
        for n in graph.live()
        if n.type == NodeType.DECISION and n.status == Status.COMPLETED
    }
    for r in render_tiers(graph).values():
        assert set(r.in_force) <= in_force | {s for s in r.in_force if "[REDACTED:" in s}
