"""Exports of a graph: an Obsidian canvas laid out in type columns, and an offline HTML page."""

import json
import re
from html.parser import HTMLParser

from memory.graph import exports
from memory.graph.types import Edge, EdgeType, Evidence, Graph, Node, NodeType, Status

FAKE_D3 = "window.d3 = {forceSimulation: function () {}};"


def node(node_type: NodeType, label: str, status: Status, importance: float = 1.0, **kw) -> Node:
    return Node(
        type=node_type,
        label=label,
        status=status,
        confidence=0.9,
        evidence=Evidence(0, label),
        importance=importance,
        **kw,
    )


def sample_nodes() -> list[Node]:
    return [
        node(NodeType.GOAL, "Build a notes app", Status.IN_PROGRESS, 3.0),
        node(NodeType.DECISION, "PostgreSQL for user data", Status.CONTESTED, 2.0),
        node(NodeType.DECISION, "SQLite for the offline cache", Status.CONTESTED, 1.5),
        node(NodeType.DECISION, "MySQL for storage", Status.SUPERSEDED, 0.5),
        node(NodeType.DECISION, "Redis for sessions", Status.COMPLETED, 1.2, reason="it is fast"),
        node(NodeType.FILE, "notes/models.py", Status.COMPLETED),
        node(NodeType.ERROR, "ImportError: no module named notes", Status.FAILED),
        node(NodeType.DECISION, "MongoDB", Status.INVALIDATED, 0.1),
    ]


def sample_graph(order=lambda items: items) -> Graph:
    nodes = sample_nodes()
    graph = Graph()
    for n in order(nodes):
        graph.nodes[n.key] = n
    edges = [
        Edge(nodes[1].key, nodes[2].key, EdgeType.CONFLICTS_WITH),
        Edge(nodes[1].key, nodes[3].key, EdgeType.SUPERSEDES),
        Edge(nodes[5].key, nodes[0].key, EdgeType.PART_OF, retired_at=5.0),
    ]
    for e in order(edges):
        graph.edges[e.key] = e
    return graph


def sample_ids(graph: Graph) -> dict:
    return {key: 100 + i for i, key in enumerate(sorted(graph.nodes, key=str))}


# ---- canvas ---------------------------------------------------------------------------------------


def test_the_canvas_has_one_text_card_per_node_coloured_by_status():
    graph = sample_graph()
    ids = sample_ids(graph)
    doc = exports.canvas(graph, ids)
    cards = {card["id"]: card for card in doc["nodes"]}
    assert len(cards) == len(doc["nodes"]) == len(graph.nodes)
    for key, n in graph.nodes.items():
        card = cards[f"node-{ids[key]}"]
        assert card["type"] == "text"
        assert card["text"].startswith(n.label)
        assert f"{n.type} · {str(n.status).replace('_', ' ')}" in card["text"]
        assert card["color"] == exports.STATUS_COLORS[n.status]
        assert all(isinstance(card[f], int) for f in ("x", "y", "width", "height"))
    contested = cards[f"node-{ids[graph.nodes[sample_nodes()[1].key].key]}"]
    assert contested["color"] == "#e11d48"
    redis = next(c for c in doc["nodes"] if c["text"].startswith("Redis"))
    assert "completed (in force)" in redis["text"] and "Why: it is fast" in redis["text"]


def test_a_likely_fact_is_marked_unconfirmed_on_its_card():
    likely = node(NodeType.DECISION, "Weekly invoices", Status.COMPLETED, learned=True)
    assert exports.status_text(likely) == "completed (likely, unconfirmed)"
    work = node(NodeType.TASK, "Shelving moved", Status.PENDING, learned=True)
    assert exports.status_text(work) == "pending (likely, unconfirmed)"
    assert exports.status_text(node(NodeType.TASK, "Shelving moved", Status.PENDING)) == "pending"


def test_the_canvas_has_every_edge_between_existing_cards_with_unique_ids():
    graph = sample_graph()
    ids = sample_ids(graph)
    doc = exports.canvas(graph, ids)
    card_ids = {c["id"] for c in doc["nodes"]}
    edges = {(e["fromNode"], e["toNode"], e["label"]) for e in doc["edges"]}
    expected = {
        (
            f"node-{ids[e.source]}",
            f"node-{ids[e.target]}",
            str(e.type) + (" (resolved)" if e.retired_at else ""),
        )
        for e in graph.edges.values()
    }
    assert edges == expected
    assert all(e["fromNode"] in card_ids and e["toNode"] in card_ids for e in doc["edges"])
    all_ids = [c["id"] for c in doc["nodes"]] + [e["id"] for e in doc["edges"]]
    assert len(set(all_ids)) == len(all_ids) and all(isinstance(i, str) for i in all_ids)
    conflict = next(e for e in doc["edges"] if e["label"] == "conflicts_with")
    assert conflict["color"] == exports.CONFLICT_COLOR


def test_the_canvas_puts_each_node_type_in_its_own_column_most_important_first():
    graph = sample_graph()
    doc = exports.canvas(graph, sample_ids(graph))
    by_text = {c["text"].split("\n")[0]: c for c in doc["nodes"]}
    columns: dict[int, list[dict]] = {}
    for card in doc["nodes"]:
        columns.setdefault(card["x"], []).append(card)
    assert len(columns) == len({n.type for n in graph.nodes.values()})
    for cards in columns.values():
        assert len({c["text"].split("\n")[2].split(" · ")[0] for c in cards}) == 1  # one type
        cards.sort(key=lambda c: c["y"])
        for upper, lower in zip(cards, cards[1:], strict=False):
            assert upper["y"] + upper["height"] < lower["y"]  # no overlap
    decisions = sorted(
        (c for c in doc["nodes"] if "\ndecision · " in c["text"]), key=lambda c: c["y"]
    )
    assert decisions[0]["text"].startswith("PostgreSQL")  # the most important decision on top
    # columns follow the vocabulary's order: tasks, files, decisions, errors, ..., goals
    assert by_text["notes/models.py"]["x"] < by_text["Redis for sessions"]["x"]
    assert by_text["Redis for sessions"]["x"] < by_text["ImportError: no module named notes"]["x"]
    assert by_text["ImportError: no module named notes"]["x"] < by_text["Build a notes app"]["x"]


def test_a_long_label_gets_a_taller_card():
    short = node(NodeType.TASK, "Write tests", Status.PENDING)
    long = node(NodeType.TASK, "Write tests " * 30, Status.PENDING)
    graph = Graph(nodes={short.key: short, long.key: long})
    doc = exports.canvas(graph, {short.key: 1, long.key: 2})
    heights = {c["id"]: c["height"] for c in doc["nodes"]}
    assert heights["node-2"] > heights["node-1"]


def test_the_same_graph_gives_the_same_canvas_whatever_the_order_it_was_built_in():
    forward, backward = sample_graph(), sample_graph(lambda items: list(reversed(items)))
    ids = sample_ids(forward)
    first = json.dumps(exports.canvas(forward, ids))
    assert first == json.dumps(exports.canvas(backward, ids))
    assert first == json.dumps(exports.canvas(sample_graph(), ids))


def test_nodes_without_an_id_are_left_out_with_their_edges():
    graph = sample_graph()
    ids = sample_ids(graph)
    dropped = sample_nodes()[1].key  # the contested PostgreSQL decision
    del ids[dropped]
    doc = exports.canvas(graph, ids)
    assert len(doc["nodes"]) == len(graph.nodes) - 1
    assert not any(c["text"].startswith("PostgreSQL") for c in doc["nodes"])
    assert [e["label"] for e in doc["edges"]] == ["part_of (resolved)"]


# ---- HTML -----------------------------------------------------------------------------------------


class Page(HTMLParser):
    """The scripts of a page, and every attribute that could load something."""

    def __init__(self):
        super().__init__()
        self.scripts: list[tuple[dict, str]] = []
        self.links: list[tuple[str, str, str]] = []
        self._open: dict | None = None
        self._text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in {"src", "href", "action", "srcset", "data"}:
                self.links.append((tag, name, value or ""))
        if tag == "script":
            self._open, self._text = dict(attrs), []

    def handle_data(self, data):
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._open is not None:
            self.scripts.append((self._open, "".join(self._text)))
            self._open = None


def parse(page: str) -> Page:
    parser = Page()
    parser.feed(page)
    return parser


def d3_data(labels: list[str]) -> dict:
    nodes = [
        {"id": i, "label": label, "type": "decision", "status": "contested", "importance": 1.0}
        for i, label in enumerate(labels)
    ]
    links = [{"source": 0, "target": 1, "type": "conflicts_with", "retired": False}]
    return {"nodes": nodes, "links": links}


HOSTILE = [
    'Use </script><script>alert("x")</script> in templates',
    "<!-- <script> & ' \" \u2028 end",
]


def test_the_page_embeds_the_graph_data_intact_even_when_labels_look_like_html():
    data = d3_data(HOSTILE)
    page = exports.html_page(data, title="Graph", d3_source=FAKE_D3)
    parsed = parse(page)
    embedded = [text for attrs, text in parsed.scripts if attrs.get("id") == "graph-data"]
    assert len(embedded) == 1
    assert json.loads(embedded[0]) == data
    # Nothing the labels say became markup: four scripts, the ones the page itself has.
    assert len(parsed.scripts) == 4 and parsed.tags.count("script") == 4
    assert "</script><script>alert" not in page


def test_the_page_inlines_its_library_and_loads_nothing_from_anywhere():
    page = exports.html_page(d3_data(["a", "b"]), title="Graph", d3_source=FAKE_D3)
    parsed = parse(page)
    assert parsed.links == []  # no src=, href=, action=: every script and style is inline
    assert any(text.strip() == FAKE_D3 for attrs, text in parsed.scripts if not attrs)
    assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", page, re.IGNORECASE)
    assert "@import" not in page and "url(" not in page and "<link" not in page


def test_a_library_that_says_script_end_cannot_close_its_element():
    page = exports.html_page(
        d3_data(["a", "b"]), title="Graph", d3_source='var s = "</script><b>x</b>";'
    )
    parsed = parse(page)
    assert "b" not in parsed.tags and len(parsed.scripts) == 4


def test_the_page_has_a_legend_with_every_status_and_the_dashboard_colours():
    page = exports.html_page(d3_data(["a", "b"]), title="T <&>", d3_source=FAKE_D3)
    legend = page.split('<div class="legend">')[1].split("</div>")[0]
    for status, _ in exports.LEGEND:
        assert f'class="dot {status}"' in legend
        assert f".dot.{status} {{ background: {exports.STATUS_COLORS[status]}" in page
    colors = next(t for a, t in parse(page).scripts if a.get("id") == "graph-colors")
    assert json.loads(colors) == {str(k): v for k, v in exports.STATUS_COLORS.items()}
    assert "<title>T &lt;&amp;&gt;</title>" in page
    assert ".link.supersedes { stroke: #9ca3af; stroke-dasharray: 4 3; }" in page


def test_the_same_data_gives_the_same_page():
    first = exports.html_page(d3_data(HOSTILE), title="Graph", d3_source=FAKE_D3)
    assert first == exports.html_page(d3_data(HOSTILE), title="Graph", d3_source=FAKE_D3)
