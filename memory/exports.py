"""A session's graph as it stands now, exported: D3 JSON, a self-contained HTML page, a canvas."""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

from memory import timeline
from memory.graph import exports
from memory.models import Session

_VENDOR = ("static", "dashboard", "vendor")


@cache
def d3_library() -> str:
    """The D3 build the dashboard serves, read from the installed dashboard package.

    Its one-line banner names the project's web site; the full licence text from the same
    folder stands in for it, so the page keeps the notice and mentions no address at all.
    """
    vendor = files("dashboard").joinpath(*_VENDOR)
    source = vendor.joinpath("d3.min.js").read_text(encoding="utf-8")
    licence = vendor.joinpath("d3.LICENSE").read_text(encoding="utf-8")
    first, _, rest = source.partition("\n")
    if first.startswith("//") and "d3js.org" in first:
        version = re.search(r"v\d+(?:\.\d+)*", first)
        name = f"D3 {version.group(0)}" if version else "D3"
        source = f"/*! {name}\n{licence.replace('*/', '* /')}*/\n{rest}"
    return source


def d3_json(session: Session) -> dict:
    """The graph as the dashboard's graph page draws it, with each node's details for a reader."""
    view = timeline.session_graph(session)
    data = timeline.graph_data(view)
    by_id = {v.pk: v.node for v in view.nodes}
    for item in data["nodes"]:
        node = by_id[item["id"]]
        item.update(
            confidence=round(node.confidence, 3),
            mentions=node.mentions,
            reason=node.reason,
            valid_from=node.valid_from,
            valid_until=node.valid_until,
        )
    data["links"].sort(key=lambda link: (link["source"], link["target"], link["type"]))
    return data


def html_page(session: Session) -> str:
    """One HTML file that opens offline: D3, styles, script and the graph data all inlined."""
    project = session.project
    title = f"{project.name} · {session} — TokenMizer graph"
    subtitle = f"Session {session.external_id} of project {project.name}"
    return exports.html_page(
        d3_json(session), title=title, subtitle=subtitle, d3_source=d3_library()
    )


def obsidian_canvas(session: Session) -> dict:
    """The graph as a JSON Canvas 1.0 document (Obsidian's .canvas), laid out in type columns."""
    view = timeline.session_graph(session)
    return exports.canvas(view.graph, view.ids)
