"""Snapshots of a graph's node statuses and the diff between two checkpoints."""

from __future__ import annotations

import difflib

from memory.graph.types import Graph


def snapshot(graph: Graph) -> dict[str, str]:
    """Node identity ("type:key") → status, for every node of the graph."""
    return {f"{t}:{k}": str(n.status) for (t, k), n in sorted(graph.nodes.items())}


def diff(parent: dict[str, str], current: dict[str, str], parent_text: str, text: str) -> dict:
    """What changed between a parent checkpoint and this one: nodes, statuses and resume lines."""
    return {
        "added": sorted(set(current) - set(parent)),
        "removed": sorted(set(parent) - set(current)),
        "changed": [
            {"node": key, "from": parent[key], "to": current[key]}
            for key in sorted(set(parent) & set(current))
            if parent[key] != current[key]
        ],
        "resume": list(
            difflib.unified_diff(
                parent_text.splitlines(), text.splitlines(), "parent", "this", lineterm="", n=0
            )
        ),
    }
