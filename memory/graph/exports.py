"""A session graph as files to take away: a self-contained HTML page and an Obsidian canvas."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping

from memory.graph.types import Graph, Node, NodeKey, NodeType, Status

# The colours of the dashboard graph page (dashboard/static/dashboard/graph.js), so that an export
# reads like the page it was downloaded from.
STATUS_COLORS: dict[str, str] = {
    Status.COMPLETED: "#22c55e",
    Status.IN_PROGRESS: "#3b82f6",
    Status.PENDING: "#9ca3af",
    Status.FAILED: "#f97316",
    Status.SUPERSEDED: "#9ca3af",
    Status.INVALIDATED: "#9ca3af",
    Status.ARCHIVED: "#a8a29e",
    Status.CONTESTED: "#e11d48",
}
CONFLICT_COLOR = STATUS_COLORS[Status.CONTESTED]
LEGEND: tuple[tuple[str, str], ...] = (
    (Status.COMPLETED, "in force / done"),
    (Status.IN_PROGRESS, "in progress"),
    (Status.PENDING, "pending"),
    (Status.FAILED, "failed"),
    (Status.CONTESTED, "contested"),
    (Status.SUPERSEDED, "superseded"),
    (Status.INVALIDATED, "invalidated"),
    (Status.ARCHIVED, "archived"),
)

CARD_WIDTH = 360
COLUMN_GAP = 80
ROW_GAP = 40
_CHARS_PER_LINE = 42  # about what fits on one line of a card CARD_WIDTH wide
_LINE_HEIGHT = 26
_CARD_PADDING = 34


# ---- JSON Canvas 1.0 ----------------------------------------------------------------------------


def status_text(node: Node) -> str:
    status = str(node.status).replace("_", " ")
    if node.learned:
        return f"{status} (likely, unconfirmed)"
    if node.status == Status.COMPLETED and node.type == NodeType.DECISION:
        return f"{status} (in force)"
    return status


def card_text(node: Node) -> str:
    lines = [node.label, "", f"{node.type} · {status_text(node)}"]
    if node.reason:
        lines.append(f"Why: {node.reason}")
    return "\n".join(lines)


def card_height(text: str) -> int:
    rows = sum(max(1, -(-len(line) // _CHARS_PER_LINE)) for line in text.split("\n"))
    return _CARD_PADDING + rows * _LINE_HEIGHT


def _column_order(node: Node) -> tuple:
    return (-round(node.importance, 6), node.valid_from, node.label, node.key[1])


def canvas(graph: Graph, ids: Mapping[NodeKey, int | str]) -> dict:
    """The graph as a JSON Canvas 1.0 document: one text card per node, in one column per node type
    (in the vocabulary's order), most important first; one edge per graph edge.

    ``ids`` names each node (the row id); nodes without one are left out, with their edges.
    """
    nodes: list[dict] = []
    column = 0
    for node_type in NodeType:
        members = sorted(
            (n for key, n in graph.nodes.items() if n.type == node_type and key in ids),
            key=_column_order,
        )
        if not members:
            continue
        y = 0
        for node in members:
            text = card_text(node)
            height = card_height(text)
            nodes.append(
                {
                    "id": f"node-{ids[node.key]}",
                    "type": "text",
                    "text": text,
                    "x": column * (CARD_WIDTH + COLUMN_GAP),
                    "y": y,
                    "width": CARD_WIDTH,
                    "height": height,
                    "color": STATUS_COLORS[node.status],
                }
            )
            y += height + ROW_GAP
        column += 1
    edges = []
    for edge in graph.edges.values():
        if edge.source not in ids or edge.target not in ids:
            continue
        source, target = f"node-{ids[edge.source]}", f"node-{ids[edge.target]}"
        item = {
            "id": f"edge-{ids[edge.source]}-{ids[edge.target]}-{edge.type}",
            "fromNode": source,
            "toNode": target,
            "label": str(edge.type) + (" (resolved)" if edge.retired_at is not None else ""),
        }
        if edge.type == "conflicts_with" and edge.retired_at is None:
            item["color"] = CONFLICT_COLOR
        edges.append(item)
    edges.sort(key=lambda e: e["id"])
    return {"nodes": nodes, "edges": edges}


# ---- self-contained HTML ------------------------------------------------------------------------


def script_json(data: object) -> str:
    """JSON safe to place inside a <script> element: no label can close it or open a comment."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def script_source(source: str) -> str:
    """A library's source, safe to inline in a <script> element."""
    return source.replace("</script", "<\\/script").replace("<!--", "<\\!--")


def _legend_html() -> str:
    items = "".join(
        f'<span><i class="dot {status}"></i>{html.escape(text)}</span>' for status, text in LEGEND
    )
    return f'<div class="legend">{items}<span class="muted">size = importance · drag to move · scroll to zoom · click for details</span></div>'


def _dot_colors() -> str:
    return "".join(
        f".dot.{status} {{ background: {color}; }}\n" for status, color in STATUS_COLORS.items()
    )


_STYLE = """
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2937; background: #f7f8fc; }
header { padding: .8rem 1.2rem; background: #fff; border-bottom: 1px solid #e5e7eb; }
header h1 { font-size: 1.1rem; margin: 0; }
header p { margin: .2rem 0 0; color: #6b7280; font-size: .85rem; }
.legend { display: flex; flex-wrap: wrap; gap: .4rem 1rem; padding: .6rem 1.2rem; font-size: .8rem; }
.legend span { display: inline-flex; align-items: center; gap: .35rem; }
.muted { color: #6b7280; }
.dot { display: inline-block; width: 11px; height: 11px; border-radius: 50%; }
.dot.contested { box-shadow: 0 0 0 3px #fecdd3; }
.dot.superseded { opacity: .4; }
.dot.invalidated { opacity: .35; border: 1px dashed #6b7280; box-sizing: border-box; }
main { display: flex; gap: 1rem; padding: 0 1.2rem 1.2rem; }
#graph { flex: 1; height: 78vh; border: 1px solid #e5e7eb; border-radius: 8px; overflow: hidden; background: radial-gradient(circle at 50% 40%, #fff 0, #f7f8fc 70%); }
#graph svg { width: 100%; height: 100%; cursor: grab; }
#details { width: 18rem; background: #fff; border: 1px solid #e5e7eb; border-radius: 8px; padding: .8rem; font-size: .85rem; overflow-wrap: anywhere; }
#details h2 { font-size: .95rem; margin: 0 0 .4rem; }
#details dt { color: #6b7280; margin-top: .35rem; } #details dd { margin: 0; }
.link { stroke: #c5c8d6; stroke-width: 1.2; }
.link.supersedes { stroke: #9ca3af; stroke-dasharray: 4 3; }
.link.conflicts_with { stroke: #e11d48; stroke-width: 2.5; }
.link.retired { stroke-opacity: .25; }
.node circle { stroke: #fff; stroke-width: 1.5; cursor: pointer; }
.node text { font-size: 11px; fill: #374151; pointer-events: none; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.node.superseded { opacity: .35; }
.node.invalidated { opacity: .25; }
.node.invalidated circle { stroke: #6b7280; stroke-dasharray: 2 2; }
.node.contested circle { stroke: #fecdd3; stroke-width: 6; }
.node.contested text { fill: #e11d48; font-weight: 700; }
.empty { color: #6b7280; padding: 2rem; }
"""

# The force layout of the dashboard graph page, without its server round-trips: the data is read
# from the page itself.
_SCRIPT = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var colors = JSON.parse(document.getElementById("graph-colors").textContent);
  var box = document.getElementById("graph"), details = document.getElementById("details");
  if (!data.nodes.length) { box.innerHTML = '<p class="empty">This session has no nodes yet.</p>'; return; }
  var width = box.clientWidth || 960, height = box.clientHeight || 640;
  var svg = d3.select(box).append("svg").attr("viewBox", [0, 0, width, height]);
  var zoomed = svg.append("g");
  svg.call(d3.zoom().scaleExtent([0.2, 4]).on("zoom", function (e) { zoomed.attr("transform", e.transform); }));
  function radius(d) { return 5 + Math.min(Math.max(d.importance, 0), 5) * 2.4; }
  var simulation = d3.forceSimulation(data.nodes)
    .force("link", d3.forceLink(data.links).id(function (d) { return d.id; }).distance(80))
    .force("charge", d3.forceManyBody().strength(-300))
    .force("center", d3.forceCenter(width / 2, height / 2))
    .force("x", d3.forceX(width / 2).strength(0.045))
    .force("y", d3.forceY(height / 2).strength(0.07))
    .force("collide", d3.forceCollide().radius(function (d) { return radius(d) + 10; }));
  var link = zoomed.append("g").selectAll("line").data(data.links).join("line")
    .attr("class", function (d) { return "link " + d.type + (d.retired ? " retired" : ""); });
  link.append("title").text(function (d) { return d.type + (d.retired ? " (resolved)" : ""); });
  var node = zoomed.append("g").selectAll("g").data(data.nodes).join("g")
    .attr("class", function (d) { return "node " + d.status; });
  node.append("circle").attr("r", radius).attr("fill", function (d) { return colors[d.status] || "#6366f1"; });
  node.append("text").attr("dx", 10).attr("dy", 4)
    .text(function (d) { return d.label.length > 40 ? d.label.slice(0, 39) + "\\u2026" : d.label; });
  node.append("title").text(function (d) { return d.type + " \\u00b7 " + d.status.replace("_", " ") + "\\n" + d.label; });
  node.on("click", function (e, d) { show(d); });
  node.call(d3.drag()
    .on("start", function (e, d) { if (!e.active) simulation.alphaTarget(0.3).restart(); d.fx = d.x; d.fy = d.y; })
    .on("drag", function (e, d) { d.fx = e.x; d.fy = e.y; })
    .on("end", function (e, d) { if (!e.active) simulation.alphaTarget(0); d.fx = null; d.fy = null; }));
  simulation.on("tick", function () {
    data.nodes.forEach(function (d) {
      d.x = Math.max(12, Math.min(width - 12, d.x)); d.y = Math.max(12, Math.min(height - 12, d.y));
    });
    link.attr("x1", function (d) { return d.source.x; }).attr("y1", function (d) { return d.source.y; })
        .attr("x2", function (d) { return d.target.x; }).attr("y2", function (d) { return d.target.y; });
    node.attr("transform", function (d) { return "translate(" + d.x + "," + d.y + ")"; });
  });
  function show(d) {
    details.textContent = "";
    d3.select(details).append("h2").text(d.label);
    var list = d3.select(details).append("dl");
    [["type", d.type], ["status", d.status.replace("_", " ")], ["importance", d.importance],
     ["mentions", d.mentions], ["confidence", d.confidence], ["why", d.reason],
     ["from message", d.valid_from], ["until message", d.valid_until]].forEach(function (row) {
      if (row[1] === undefined || row[1] === null || row[1] === "") return;
      list.append("dt").text(row[0]); list.append("dd").text(row[1]);
    });
  }
})();
"""


def html_page(data: Mapping, *, title: str, subtitle: str = "", d3_source: str) -> str:
    """One HTML file that shows the graph offline: D3 and the data inlined, nothing fetched.

    ``data`` is the D3 JSON of the graph ({"nodes": [...], "links": [...]}), embedded as it is.
    """
    colors = {str(status): color for status, color in STATUS_COLORS.items()}
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>{_STYLE}{_dot_colors()}</style>\n"
        "</head>\n<body>\n"
        f"<header><h1>{html.escape(title)}</h1><p>{html.escape(subtitle)}</p></header>\n"
        f"{_legend_html()}\n"
        '<main><div id="graph"></div>'
        '<aside id="details" class="muted">Click a node to see its details.</aside></main>\n'
        f'<script type="application/json" id="graph-data">{script_json(data)}</script>\n'
        f'<script type="application/json" id="graph-colors">{script_json(colors)}</script>\n'
        f"<script>\n{script_source(d3_source)}\n</script>\n"
        f"<script>{_SCRIPT}</script>\n"
        "</body>\n</html>\n"
    )
