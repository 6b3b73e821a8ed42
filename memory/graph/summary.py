"""The five benchmark categories read off a graph (tasks done and pending, decisions, files, errors)."""

from __future__ import annotations

from memory.graph import labels
from memory.graph.types import Graph, Node, NodeType, Status

CATEGORIES = ("completed_tasks", "pending_tasks", "decisions", "files", "errors")

# Task statuses that mean "not done yet".
_OPEN_TASK = frozenset({Status.PENDING, Status.IN_PROGRESS, Status.FAILED, Status.CONTESTED})
# Statuses a node may hold and still be part of the session's history (retired facts excluded).
_SHOWN = frozenset(
    {
        Status.PENDING,
        Status.IN_PROGRESS,
        Status.COMPLETED,
        Status.FAILED,
        Status.SUPERSEDED,
        Status.CONTESTED,
        Status.INVALIDATED,
        Status.ARCHIVED,
    }
)


def category_labels(graph: Graph) -> dict[str, list[str]]:
    """Labels per category, in the order the facts appeared in the session.

    Every decision taken counts, superseded ones included; a task is completed or pending by its
    latest status; errors count whether open or resolved; a file counts once even when it is also
    named by its bare basename.
    """
    nodes = sorted(graph.nodes.values(), key=lambda n: (n.valid_from, n.evidence.position))
    out: dict[str, list[str]] = {c: [] for c in CATEGORIES}
    for n in nodes:
        if n.status not in _SHOWN:
            continue
        category = _category(n)
        if category:
            out[category].append(n.label)
    out["files"] = _without_bare_duplicates(out["files"])
    return out


# The category of each other type that has one (a dict: one lookup per node, not a test per type).
_CATEGORY_OF = {NodeType.DECISION: "decisions", NodeType.FILE: "files", NodeType.ERROR: "errors"}


def _category(n: Node) -> str:
    if n.type == NodeType.TASK:
        return "pending_tasks" if n.status in _OPEN_TASK else "completed_tasks"
    return _CATEGORY_OF.get(n.type, "")


def _without_bare_duplicates(files: list[str]) -> list[str]:
    """Drop a bare file name when a longer path to the same name is also listed."""
    full = {f.replace("\\", "/").rsplit("/", 1)[-1] for f in files if "/" in f or "\\" in f}
    keep = [f for f in files if "/" in f or "\\" in f or f not in full]
    return [
        f
        for i, f in enumerate(keep)
        if labels.normalize_path(f) not in {labels.normalize_path(g) for g in keep[:i]}
    ]
