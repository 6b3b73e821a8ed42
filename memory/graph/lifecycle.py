"""How candidates change a graph (merging, monotonic status, tombstones) and what people do."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from memory.graph import contradictions, importance, learned, words
from memory.graph.contradictions import Statement
from memory.graph.timetravel import change_status
from memory.graph.types import (
    EXTRACTOR,
    LIVE_STATUSES,
    Candidate,
    Edge,
    EdgeType,
    Graph,
    Node,
    NodeKey,
    NodeType,
    Status,
    Transition,
    Turn,
    normalize_label,
)

# Progress order: a re-mention may move a node up this ladder, never down.
_RANK = {Status.PENDING: 0, Status.IN_PROGRESS: 1, Status.FAILED: 1, Status.COMPLETED: 2}
# Decision statuses that an incoming decision may revise or contest.
_OPEN_DECISION = frozenset({Status.PENDING, Status.IN_PROGRESS, Status.COMPLETED, Status.CONTESTED})
# Verbs that say what was done to a task, not which task it is ("write the tests"/"tests written").
_TASK_VERBS = frozenset(
    words.stem(w)
    for w in "fix fixed write wrote written implement implemented create created build built "
    "finish finished complete completed update updated wire wired done ship shipped land landed "
    "merge merged".split()
)
OUTCOMES = ("keep_both", "a_replaces_b", "b_replaces_a", "invalidate_a", "invalidate_b")


@dataclass(frozen=True)
class Moment:
    """When a change happens and who makes it: the trigger message (-1 for an action taken outside
    the transcript, placed just after its last message), its valid time, and the record time."""

    trigger: int
    valid_at: float
    now: float
    actor: str = EXTRACTOR

    def position(self, graph: Graph) -> int:
        return self.trigger if self.trigger >= 0 else graph.high_water + 1


@dataclass(frozen=True)
class Change:
    """One thing ``apply`` did, for logs and tests."""

    kind: str  # created | merged | advanced | ignored | fixed | superseded | contested | revived
    key: NodeKey
    detail: str = ""


@dataclass
class _Pass:
    """What one ``apply`` call reads besides the graph: the turns and the record time."""

    graph: Graph
    turns: Mapping[int, Turn]
    now: float
    names: frozenset[str]  # capitalised words the transcript uses as names ('a Room database')
    decided: dict[int, tuple[str, ...]] = field(default_factory=dict)  # decision labels by message
    # The nodes of each type in the graph's order: a candidate is matched against its own type
    # only, and the nodes are never removed or retyped while candidates are applied.
    kinds: dict[NodeType, list[Node]] = field(default_factory=dict)
    _said: dict[NodeKey, Statement] = field(default_factory=dict)

    def valid_at(self, position: int) -> float:
        turn = self.turns.get(position)
        return turn.timestamp if turn and turn.timestamp else self.now

    def moment(self, position: int) -> Moment:
        return Moment(position, self.valid_at(position), self.now)

    def said(self, node: Node) -> Statement:
        key = node.key  # a property that normalises the label: read once
        said = self._said.get(key)
        if said is None:
            said = self._said[key] = self.statement(
                node.label, node.evidence.quote, node.evidence.position
            )
        return said

    def statement(self, label: str, quote: str, position: int) -> Statement:
        text = self.turns[position].content if position in self.turns else quote
        sentence = words.sentence_of(text, quote or label) if text else label
        siblings = tuple(d for d in self.decided.get(position, ()) if d != label)
        before = self.turns[position - 1].content if position - 1 in self.turns else ""
        return Statement(label, sentence, position, text, siblings, self.names, before)


def apply(
    graph: Graph, candidates: Sequence[Candidate], turns: Mapping[int, Turn], now: float
) -> list[Change]:
    """Apply candidates, in message order, to ``graph``; ``now`` is the record time."""
    names = words.proper_names("\n".join(t.content for _, t in sorted(turns.items())))
    run = _Pass(graph, turns, now, names)
    for node in graph.nodes.values():
        run.kinds.setdefault(node.type, []).append(node)
    for c in candidates:
        if c.type == NodeType.DECISION:
            run.decided[c.evidence.position] = (*run.decided.get(c.evidence.position, ()), c.label)
    changes: list[Change] = []
    for candidate in candidates:
        changes += _apply_one(run, candidate)
    return changes


def _apply_one(run: _Pass, c: Candidate) -> list[Change]:
    node = _match(run, c)
    if node is None:
        node = _create(run, c)
        changes = [Change("created", node.key)]
        if node.type == NodeType.DECISION:
            changes += _check_decision(run, node, c)
        elif node.type == NodeType.ENVIRONMENT:
            changes += _refine(run, node, c)
    else:
        changes = _merge(run, node, c)
    if c.fixes:
        changes += _resolve_fix(run, node, c)
    return changes


def _create(run: _Pass, c: Candidate) -> Node:
    at = run.valid_at(c.evidence.position)
    node = Node(
        type=c.type,
        label=c.label,
        status=c.status,
        confidence=c.confidence,
        evidence=c.evidence,
        reason=c.reason,
        learned=c.cue == learned.CUE,
        valid_from=c.evidence.position,
        valid_from_at=at,
        recorded_at=run.now,
        last_seen_at=at,
    )
    node.importance = importance.base(node)
    node.history.append([node.valid_from, at, run.now, str(node.status)])
    run.graph.nodes[node.key] = node
    run.kinds.setdefault(node.type, []).append(node)
    return node


def _merge(run: _Pass, node: Node, c: Candidate) -> list[Change]:
    """A re-mention: reinforce, raise confidence, and move status forward only."""
    if node.status == Status.INVALIDATED:
        return [Change("ignored", node.key, "tombstone")]  # an invalidated decision stays dead
    node.learned = node.learned and c.cue == learned.CUE  # a rule stating it confirms it
    at = run.valid_at(c.evidence.position)
    importance.reinforce(node, at)
    node.confidence = max(node.confidence, c.confidence)
    node.reason = node.reason or c.reason
    if node.status == Status.SUPERSEDED:
        return _maybe_revive(run, node, c)
    if node.status == Status.ARCHIVED:
        change_status(node, _unarchived(node, c.status), c.evidence.position, at, run.now)
        return [Change("revived", node.key, "re-mentioned after archiving")]
    if node.status == Status.CONTESTED:
        return _maybe_settle_by_text(run, node, c)
    if c.status not in _RANK:
        return [Change("merged", node.key)]
    if _RANK[c.status] > _RANK.get(node.status, 0):
        change_status(node, c.status, c.evidence.position, at, run.now)
        held = node.type == NodeType.DECISION and node.status == Status.COMPLETED
        # A proposal only meets the decisions it may replace once it is actually taken.
        extra = _check_decision(run, node, c) if held else []
        return [Change("advanced", node.key, str(c.status)), *extra]
    return [Change("merged", node.key)]


def _refine(run: _Pass, node: Node, c: Candidate) -> list[Change]:
    """A version that refines an earlier fact ("Python 3.12.3" after "Python 3.12") replaces it:
    one fact, stated more precisely, not two."""
    changes = []
    for other in run.graph.of_type(NodeType.ENVIRONMENT):
        if other.status in LIVE_STATUSES and _refines(node.label, other.label):
            position, at = c.evidence.position, run.valid_at(c.evidence.position)
            change_status(other, Status.SUPERSEDED, position, at, run.now)
            other.valid_until, other.valid_until_at = position, at
            edge = Edge(node.key, other.key, EdgeType.SUPERSEDES, recorded_at=run.now)
            run.graph.edges.setdefault(edge.key, edge)
            changes.append(Change("superseded", other.key, node.label))
    return changes


def _refines(precise: str, rough: str) -> bool:
    """ "Python 3.12.3" refines "Python 3.12"; "Python 3.1" is another version, refining nothing."""
    return precise.startswith(rough) and precise[len(rough) : len(rough) + 1] in (".", "-")


def _unarchived(node: Node, incoming: Status) -> Status:
    """The status a node had before it was archived, or the incoming one if that is further on."""
    before = [Status(e[3]) for e in node.history if Status(e[3]) in _RANK]
    previous = before[-1] if before else Status.PENDING
    if incoming in _RANK and _RANK[incoming] > _RANK[previous]:
        return incoming
    return previous


def _maybe_revive(run: _Pass, node: Node, c: Candidate) -> list[Change]:
    """A superseded decision comes back only when the text says so ("going back to X")."""
    said = run.statement(c.label, c.evidence.quote, c.evidence.position)
    if node.type != NodeType.DECISION or not contradictions.is_switch(said.sentence):
        return [Change("merged", node.key)]
    at = run.valid_at(c.evidence.position)
    before = node.status
    change_status(node, Status.COMPLETED, c.evidence.position, at, run.now)
    node.valid_until = node.valid_until_at = None
    run.graph.transitions.append(
        Transition(
            node.label,
            "",
            before,
            Status.COMPLETED,
            c.evidence.position,
            reason=contradictions.reason_in(said) or "adopted again",
            evidence=c.evidence.quote,
            confidence_before=node.confidence,
            confidence_after=node.confidence,
            at=run.now,
        )
    )
    return [Change("revived", node.key), *_check_decision(run, node, c)]


def _maybe_settle_by_text(run: _Pass, node: Node, c: Candidate) -> list[Change]:
    """A contested decision re-stated as replacing its rival ("dropping X, Y only") wins; a plain
    re-mention settles nothing."""
    rivals = [(r, run.said(r)) for r in _rivals(run.graph, node)]
    said = run.statement(c.label, c.evidence.quote, c.evidence.position)
    when = run.moment(c.evidence.position)
    changes = [Change("merged", node.key)]
    for verdict in contradictions.judge(said, c, rivals):
        if verdict.kind == contradictions.SUPERSEDE:
            rival = run.graph.nodes[verdict.old]
            supersede(run.graph, rival, node, when, verdict.reason, c.evidence.quote)
            _settle(run.graph, node, when, verdict.reason, rival.label)
            changes.append(Change("superseded", rival.key, node.label))
    return changes


def _check_decision(run: _Pass, node: Node, c: Candidate) -> list[Change]:
    """Hold a new decision against the earlier open ones: supersede, contest, or leave be."""
    if node.status != Status.COMPLETED or node.learned:
        # "maybe we should switch to X" proposes, and a likely decision is no statement: neither
        # replaces anything yet.
        return []
    position = c.evidence.position
    earlier = [
        (n, run.said(n))
        for n in run.kinds[NodeType.DECISION]  # ``node`` is one: the list is there
        if n is not node
        and n.status in _OPEN_DECISION
        and not n.learned
        and n.retired_at is None
        and n.valid_from <= position
    ]
    if not earlier:
        return []  # the first decision: nothing to replace or contest, no statement to read
    new = run.statement(c.label, c.evidence.quote, c.evidence.position)
    changes = []
    for verdict in contradictions.judge(new, c, earlier):
        old = run.graph.nodes[verdict.old]
        if verdict.kind == contradictions.SUPERSEDE:
            reason = verdict.reason + (" (inferred)" if verdict.inferred else "")
            supersede(
                run.graph, old, node, run.moment(c.evidence.position), reason, c.evidence.quote
            )
            changes.append(Change("superseded", old.key, node.label))
        else:
            _contest(run, old, node, c, verdict.reason)
            changes.append(Change("contested", old.key, node.label))
    return changes


def supersede(
    graph: Graph, old: Node, new: Node, when: Moment, reason: str, evidence: str = ""
) -> Transition:
    """``new`` replaces ``old``: old leaves the live graph at the trigger; a transition says why."""
    before, position = old.status, when.position(graph)
    for partner in _release_conflicts(graph, old, when.now):
        if partner is not new:
            _settle(graph, partner, when, f"its rival '{old.label}' was replaced", old.label)
    change_status(old, Status.SUPERSEDED, position, when.valid_at, when.now)
    old.valid_until, old.valid_until_at = position, when.valid_at
    edge = Edge(new.key, old.key, EdgeType.SUPERSEDES, recorded_at=when.now)
    graph.edges.setdefault(edge.key, edge)
    transition = Transition(
        old.label, new.label, before, Status.SUPERSEDED, when.trigger, reason=reason,
        evidence=evidence, confidence_before=old.confidence, confidence_after=new.confidence,
        actor=when.actor, at=when.now,
    )  # fmt: skip
    graph.transitions.append(transition)
    return transition


def _contest(run: _Pass, old: Node, new: Node, c: Candidate, reason: str) -> None:
    """Neither is known to stand: both contested, joined by conflicts_with, a transition each."""
    position, at = c.evidence.position, run.valid_at(c.evidence.position)
    why = f"unclear whether '{new.label}' replaced '{old.label}'"
    for node, other in ((old, new), (new, old)):
        before = node.status
        change_status(node, Status.CONTESTED, position, at, run.now)
        run.graph.transitions.append(
            Transition(
                node.label,
                other.label,
                before,
                Status.CONTESTED,
                position,
                reason=why + (f"; {reason}" if reason else ""),
                evidence=c.evidence.quote,
                confidence_before=node.confidence,
                confidence_after=node.confidence,
                at=run.now,
            )
        )
    run.graph.edges[(new.key, old.key, EdgeType.CONFLICTS_WITH)] = Edge(
        new.key, old.key, EdgeType.CONFLICTS_WITH, recorded_at=run.now
    )


def _conflicts_of(graph: Graph, node: Node) -> list[Edge]:
    return [
        e
        for e in graph.edges.values()
        if e.type == EdgeType.CONFLICTS_WITH
        and e.retired_at is None
        and node.key in (e.source, e.target)
    ]


def _rivals(graph: Graph, node: Node) -> list[Node]:
    """The decisions ``node`` is contested against."""
    keys = {k for e in _conflicts_of(graph, node) for k in (e.source, e.target)} - {node.key}
    return [graph.nodes[k] for k in sorted(keys) if k in graph.nodes]


def _release_conflicts(graph: Graph, node: Node, now: float) -> list[Node]:
    """Retire ``node``'s conflicts_with edges; the nodes on their other ends."""
    partners = []
    for edge in _conflicts_of(graph, node):
        edge.retired_at = now
        other = edge.target if edge.source == node.key else edge.source
        if other in graph.nodes:
            partners.append(graph.nodes[other])
    return partners


def _settle(graph: Graph, node: Node, when: Moment, reason: str, other: str = "") -> None:
    """A contested decision with no rival left is in force again."""
    if node.status != Status.CONTESTED or _conflicts_of(graph, node):
        return
    change_status(node, Status.COMPLETED, when.position(graph), when.valid_at, when.now)
    graph.transitions.append(
        Transition(
            node.label,
            other,
            Status.CONTESTED,
            Status.COMPLETED,
            when.trigger,
            reason=reason,
            confidence_before=node.confidence,
            confidence_after=node.confidence,
            actor=when.actor,
            at=when.now,
        )
    )


# --- matching -------------------------------------------------------------------------------


def _match(run: _Pass, c: Candidate) -> Node | None:
    """The node a candidate is about: same key, else a conservative near-duplicate of its type."""
    node = run.graph.nodes.get(c.key)
    if node is not None:
        return node
    kind = run.kinds.get(c.type)
    if not kind:
        return None  # the first of its type: no identity to compare
    if c.type == NodeType.ENVIRONMENT:  # "Python 3.12" after "Python 3.12.3" said: the same fact
        refined = next((n for n in kind if _refines(n.label, c.label)), None)
        if refined is not None:
            return refined
    if c.type == NodeType.DECISION and (c.replaces or contradictions.is_switch(c.label)):
        return None  # "switch from X to Y" mentions X but is a new decision
    best, best_score = None, 0
    mine = _identity(c.label, c.type)
    if len(mine) < 2:
        return None
    node_type = c.type
    for other in kind:
        theirs = _identity(other.label, node_type)
        small, large = (mine, theirs) if len(mine) <= len(theirs) else (theirs, mine)
        if len(small) < 2 or len(small) <= best_score or not small <= large:
            continue
        if node_type == NodeType.DECISION and any(_is_value(w) for w in large - small):
            continue  # 'dedupe on order_id' and '... plus line_number' are two choices
        best, best_score = other, len(small)
    return best


def _is_value(word: str) -> bool:
    return any(ch.isdigit() for ch in word) or any(ch in word for ch in "_/.:@-")


@lru_cache(maxsize=16384)
def _identity(label: str, node_type: NodeType) -> frozenset[str]:
    """The words identifying a fact: topic stems plus values ('6 chars' and '8 chars' differ)."""
    ids = words.topic(label) | words.written_values(label)
    if node_type == NodeType.TASK:
        ids -= _TASK_VERBS
    return frozenset(ids)


def _resolve_fix(run: _Pass, fixer: Node, c: Candidate) -> list[Change]:
    """``c`` fixes an error it names: the error is resolved and the fix points at it."""
    error = _find_error(run.graph, c.fixes)
    if error is None or error is fixer:
        return []
    if error.status != Status.COMPLETED:
        at = run.valid_at(c.evidence.position)
        change_status(error, Status.COMPLETED, c.evidence.position, at, run.now)
    run.graph.edges.setdefault(
        (fixer.key, error.key, EdgeType.FIXES),
        Edge(fixer.key, error.key, EdgeType.FIXES, recorded_at=run.now),
    )
    return [Change("fixed", error.key, fixer.label)]


def _find_error(graph: Graph, named: str) -> Node | None:
    exact = graph.nodes.get((NodeType.ERROR, normalize_label(named)))
    if exact is not None:
        return exact
    wanted = words.topic(named) | words.values(named)
    best, best_key = None, None
    for node in graph.of_type(NodeType.ERROR):
        have = words.topic(node.label) | words.values(node.label)
        shared = len(wanted & have)
        if not shared or shared < 0.5 * min(len(wanted), len(have)):
            continue
        key = (node.status != Status.COMPLETED, shared, node.valid_from)
        if best_key is None or key > best_key:
            best, best_key = node, key
    return best


# --- explicit actions ------------------------------------------------------------------------


def invalidate(
    graph: Graph, key: NodeKey, reason: str, actor: str, now: float, trigger: int = -1
) -> Transition:
    """A person marks a fact as wrong: it becomes a tombstone that re-extraction never revives."""
    node = _require(graph, key)
    if not reason.strip() or not actor.strip():
        raise ValueError("invalidating needs a reason and an actor")
    when, before = Moment(trigger, now, now, actor), node.status
    for partner in _release_conflicts(graph, node, now):
        _settle(graph, partner, when, f"its rival '{node.label}' was invalidated", node.label)
    change_status(node, Status.INVALIDATED, when.position(graph), now, now)
    transition = Transition(
        node.label, "", before, Status.INVALIDATED, trigger, reason=reason,
        confidence_before=node.confidence, confidence_after=node.confidence, actor=actor, at=now,
    )  # fmt: skip
    graph.transitions.append(transition)
    return transition


def resolve_contested(
    graph: Graph, key_a: NodeKey, key_b: NodeKey, outcome: str, reason: str, actor: str, now: float
) -> list[Transition]:
    """A person settles a contested pair; returns the transitions recorded (actor = the person)."""
    a, b = _require(graph, key_a), _require(graph, key_b)
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}")
    if outcome != "keep_both" and not reason.strip():
        raise ValueError("a reason is required unless both decisions are kept")
    edges = [e for e in _conflicts_of(graph, a) if {e.source, e.target} == {key_a, key_b}]
    if not edges:
        raise ValueError("these two decisions are not a contested pair")
    start, when, why = len(graph.transitions), Moment(-1, now, now, actor), reason.strip()
    for edge in edges:
        edge.retired_at = now
    if outcome == "keep_both":
        _settle(graph, a, when, why or "both kept", b.label)
        _settle(graph, b, when, why or "both kept", a.label)
    elif outcome in ("a_replaces_b", "b_replaces_a"):
        new, old = (a, b) if outcome == "a_replaces_b" else (b, a)
        supersede(graph, old, new, when, why)
        _settle(graph, new, when, why, old.label)
    else:
        wrong, right = (a, b) if outcome == "invalidate_a" else (b, a)
        invalidate(graph, wrong.key, why, actor, now)
        _settle(graph, right, when, why, wrong.label)
    return graph.transitions[start:]


def _require(graph: Graph, key: NodeKey) -> Node:
    node = graph.nodes.get(key)
    if node is None:
        raise KeyError(f"no node {key!r} in this graph")
    return node
