"""Exports of a session's stored graph: every node and edge, with its status, in all three formats."""

import json
import re
from html.parser import HTMLParser

import pytest

from memory import exports, graphs
from memory.graph.exports import STATUS_COLORS
from memory.models import Edge, Node
from memory.transcripts import record_messages
from tests.conftest import CONTESTED_TALK

TALK = [
    *CONTESTED_TALK,
    {"role": "user", "content": "We'll use MySQL for the audit log."},
    {
        "role": "user",
        "content": "Decided: use ClickHouse instead of MySQL for the audit log because it "
        "compresses better.",
    },
]
# XML namespace names inside D3's code: identifiers it passes to createElementNS, never fetched.
NAMESPACES = {
    "http://www.w3.org/1999/xhtml",
    "http://www.w3.org/1999/xlink",
    "http://www.w3.org/2000/svg",
    "http://www.w3.org/2000/xmlns/",
    "http://www.w3.org/XML/1998/namespace",
}


@pytest.fixture
def graph_session(session):
    record_messages(session, TALK)
    graphs.extract_session(session.pk)
    statuses = set(session.nodes.values_list("status", flat=True))
    assert {"contested", "superseded", "completed", "in_progress"} <= statuses
    return session


def rows(session) -> tuple[dict, set]:
    nodes = {n.pk: n for n in Node.objects.filter(session=session)}
    edges = {
        (e.source_id, e.target_id, e.type, e.retired_at is not None)
        for e in Edge.objects.filter(session=session)
    }
    return nodes, edges


class Scripts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts, self.attrs, self._open = [], [], None

    def handle_starttag(self, tag, attrs):
        self.attrs += [(tag, name, value) for name, value in attrs if name in {"src", "href"}]
        if tag == "script":
            self._open = (dict(attrs), [])

    def handle_data(self, data):
        if self._open:
            self._open[1].append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._open:
            self.scripts.append((self._open[0], "".join(self._open[1])))
            self._open = None


def test_d3_json_has_every_node_and_edge_with_its_status(graph_session):
    data = exports.d3_json(graph_session)
    nodes, edges = rows(graph_session)
    assert {n["id"]: (n["label"], n["type"], n["status"]) for n in data["nodes"]} == {
        pk: (n.label, n.type, n.status) for pk, n in nodes.items()
    }
    assert {
        (ln["source"], ln["target"], ln["type"], ln["retired"]) for ln in data["links"]
    } == edges
    clickhouse = next(n for n in data["nodes"] if n["label"].startswith("use ClickHouse"))
    assert clickhouse["reason"] == "it compresses better" and clickhouse["importance"] > 0


def test_d3_json_is_what_the_dashboard_graph_page_draws(graph_session, client, alice):
    from django.urls import reverse

    client.force_login(alice)
    page = client.get(reverse("dashboard:session-graph-data", args=[graph_session.pk])).json()
    data = exports.d3_json(graph_session)
    fields = ("id", "label", "type", "status", "importance")
    assert [{f: n[f] for f in fields} for n in data["nodes"]] == page["nodes"]
    assert sorted(map(json.dumps, data["links"])) == sorted(map(json.dumps, page["links"]))


def test_the_html_page_embeds_the_d3_json_and_the_real_d3(graph_session):
    page = exports.html_page(graph_session)
    parser = Scripts()
    parser.feed(page)
    embedded = next(t for a, t in parser.scripts if a.get("id") == "graph-data")
    assert json.loads(embedded) == exports.d3_json(graph_session)
    d3 = next(t for a, t in parser.scripts if not a and "forceSimulation" in t)
    assert "Mike Bostock" in d3 and "Permission to use, copy, modify" in d3  # licence kept
    assert "Checkout service" in page and "sess-1" in page


def test_the_html_page_references_no_address_at_all(graph_session):
    page = exports.html_page(graph_session)
    parser = Scripts()
    parser.feed(page)
    assert parser.attrs == []  # no src= and no href=: nothing to load
    assert set(re.findall(r"https?://[^\s\"'`)]*", page)) <= NAMESPACES
    assert not re.search(r"['\"(]//[a-z0-9-]+\.[a-z]", page)  # no protocol-relative address


def test_the_canvas_has_a_card_per_node_coloured_by_status_and_every_edge(graph_session):
    doc = exports.obsidian_canvas(graph_session)
    nodes, edges = rows(graph_session)
    cards = {c["id"]: c for c in doc["nodes"]}
    assert set(cards) == {f"node-{pk}" for pk in nodes}
    for pk, n in nodes.items():
        card = cards[f"node-{pk}"]
        assert card["text"].startswith(n.label) and card["type"] == "text"
        assert f"{n.type} · {n.status.replace('_', ' ')}" in card["text"]
        assert card["color"] == STATUS_COLORS[n.status]
    got = {(e["fromNode"], e["toNode"], e["label"]) for e in doc["edges"]}
    assert got == {
        (f"node-{s}", f"node-{t}", kind + (" (resolved)" if retired else ""))
        for s, t, kind, retired in edges
    }
    ids = [c["id"] for c in doc["nodes"]] + [e["id"] for e in doc["edges"]]
    assert len(ids) == len(set(ids))


def test_the_same_graph_exports_to_the_same_bytes(graph_session):
    first = (
        json.dumps(exports.d3_json(graph_session)),
        exports.html_page(graph_session),
        json.dumps(exports.obsidian_canvas(graph_session)),
    )
    graph_session.refresh_from_db()
    again = (
        json.dumps(exports.d3_json(graph_session)),
        exports.html_page(graph_session),
        json.dumps(exports.obsidian_canvas(graph_session)),
    )
    assert first == again


def test_an_empty_session_exports_empty_documents(session):
    assert exports.d3_json(session) == {"nodes": [], "links": []}
    assert exports.obsidian_canvas(session) == {"nodes": [], "edges": []}
    assert "has no nodes yet" in exports.html_page(session)
