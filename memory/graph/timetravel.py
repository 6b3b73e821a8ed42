"""Bitemporal reads of a graph (valid time, record time) and the status history behind them."""

from __future__ import annotations

import copy

from memory.graph.types import LIVE_STATUSES, EdgeType, Graph, Node, Status

# A history entry is [position, valid_at, recorded_at, status], plain lists so it stores as JSON.
_POSITION, _VALID_AT, _RECORDED_AT, _STATUS = range(4)


def change_status(node: Node, status: Status, position: int, valid_at: float, now: float) -> None:
    """Move ``node`` to ``status`` and remember when: leaving the live graph retires it, coming back
    un-retires it. The only way this package changes a node's status."""
    if not node.history:
        node.history.append(
            [node.valid_from, node.valid_from_at, node.recorded_at, str(node.status)]
        )
    node.status = status
    node.history.append([position, valid_at, now, str(status)])
    if status in LIVE_STATUSES:
        node.retired_at = None
    elif node.retired_at is None:
        node.retired_at = now


def _status_by(node: Node, index: int, moment: float) -> Status:
    """The node's status as it stood at ``moment`` on the history axis ``index``."""
    if not node.history:
        return node.status
    standing = Status(node.history[0][_STATUS])
    for entry in node.history:
        if entry[index] <= moment:
            standing = Status(entry[_STATUS])
    return standing


def _held_at(node: Node, position: int | None, at: float | None) -> bool:
    if position is not None:
        return node.valid_from <= position and (
            node.valid_until is None or node.valid_until > position
        )
    return node.valid_from_at <= at and (node.valid_until_at is None or node.valid_until_at > at)


def _view(graph: Graph, nodes: dict, transitions: list, high_water: int) -> Graph:
    """A new graph of copied ``nodes``; edges kept when both ends are in it and still make sense."""
    view = Graph(nodes=nodes, transitions=transitions, high_water=high_water)
    for key, edge in graph.edges.items():
        if edge.source not in nodes or edge.target not in nodes:
            continue
        if edge.type == EdgeType.CONFLICTS_WITH and not all(
            nodes[k].status == Status.CONTESTED for k in (edge.source, edge.target)
        ):
            continue
        view.edges[key] = copy.copy(edge)
    return view


def as_of_valid(graph: Graph, position: int | None = None, at: float | None = None) -> Graph:
    """The graph as it held at message ``position`` (or valid-time timestamp ``at``), with statuses
    as they stood then. Explicit actions (trigger -1) count as after the last message."""
    if (position is None) == (at is None):
        raise ValueError("give exactly one of position or at")
    axis, moment = (_POSITION, position) if position is not None else (_VALID_AT, at)
    nodes = {}
    for key, node in graph.nodes.items():
        if not _held_at(node, position, at):
            continue
        view = copy.deepcopy(node)
        view.status = _status_by(node, axis, moment)
        nodes[key] = view
    if position is not None:
        transitions = [copy.copy(t) for t in graph.transitions if 0 <= t.trigger <= position]
        high_water = min(graph.high_water, position)
    else:
        transitions = [copy.copy(t) for t in graph.transitions if t.trigger >= 0]
        transitions = [t for t in transitions if _trigger_at(graph, t.trigger) <= at]
        high_water = graph.high_water
    return _view(graph, nodes, transitions, high_water)


def _trigger_at(graph: Graph, trigger: int) -> float:
    """The valid time of a trigger message, read from the nodes first seen in it (else 0)."""
    stamps = [n.valid_from_at for n in graph.nodes.values() if n.valid_from == trigger]
    for node in graph.nodes.values():
        stamps += [e[_VALID_AT] for e in node.history if e[_POSITION] == trigger]
    return min(stamps) if stamps else 0.0


def as_of_record(graph: Graph, at: float) -> Graph:
    """What the system knew at record time ``at``: facts recorded by then and not yet retired."""
    nodes = {}
    for key, node in graph.nodes.items():
        if node.recorded_at > at or (node.retired_at is not None and node.retired_at <= at):
            continue
        view = copy.deepcopy(node)
        view.status = _status_by(node, _RECORDED_AT, at)
        nodes[key] = view
    transitions = [copy.copy(t) for t in graph.transitions if t.at <= at]
    view = _view(graph, nodes, transitions, graph.high_water)
    view.edges = {
        k: e
        for k, e in view.edges.items()
        if e.recorded_at <= at and (e.retired_at is None or e.retired_at > at)
    }
    return view
