"""The resume block: three token-budgeted, redacted, deterministic tiers rendered from a graph."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import tiktoken

from memory.graph import tokens
from memory.graph.budget import LineCounter, shorten
from memory.graph.redact import find_secrets, redact
from memory.graph.types import (
    EdgeType,
    Graph,
    Node,
    NodeKey,
    NodeType,
    Status,
    Transition,
    normalize_label,
)

TIER_BUDGETS = {"critical": 100, "standard": 300, "full": 600}
HEADER = "[TokenMizer session memory]"

TOP_DECISIONS = 3  # critical tier: the decisions that matter most
RECENT_DONE = 5  # standard tier: completed tasks shown
# No single line may take more than this, so one huge label cannot crowd out the rest.
LINE_CAPS = {"critical": 35, "standard": 50, "full": 50}
FIRST_PASS = 3  # items every section gets before any section gets more
MIN_SHORTENED = 8  # below this many tokens left, a shortened line says too little to be worth it
GIVE_UP_AFTER = 200  # consecutive lines that did not fit: the rest will not either
RAW_CHARS = 8000  # a label is cut to this many characters before any other work (far past any cap)

_MARK = "- "
_JUNK = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")
_CAUSAL = ("because", "since", "as ", "due to", "for ", "to ", "so ")
# What lifecycle writes when the text gave no reason: not a reason, not worth a token.
_PLACEHOLDER_REASONS = frozenset({"both kept", "adopted again"})
_INFERRED = "inferred"
_LINK_WORDS = {
    EdgeType.DEPENDS_ON: "depends on",
    EdgeType.RELATED_TO: "relates to",
    EdgeType.IMPLEMENTS: "implements",
    EdgeType.FIXES: "fixes",
    EdgeType.BLOCKS: "blocks",
    EdgeType.PART_OF: "is part of",
}


@dataclass(frozen=True)
class Rendered:
    tier: str
    text: str
    tokens: int
    in_force: tuple[str, ...] = ()  # labels (secrets redacted) of the decisions shown as in force
    contested: tuple[tuple[str, str], ...] = ()  # contested pairs it shows
    budget: int = 0
    omitted: int = 0  # facts of this tier left out to stay within the budget


def _encoding(name: str) -> tiktoken.Encoding:
    if name in tokens.ENCODING_NAMES:
        return tokens.get_encoding(name)
    return tokens.encoding_for(name)  # a model name is accepted too


# ---- what the graph holds, ranked once and shared by all tiers ----


def _importance(node: Node) -> float:
    return node.importance if math.isfinite(node.importance) else 0.0


def _rank(node: Node) -> tuple:
    """Importance first, then the order facts appeared; label and type break every tie (a graph
    holds one node per type and label)."""
    return (-_importance(node), node.valid_from, node.label, node.type.value)


def _recency(node: Node) -> tuple:
    last = node.last_seen_at if math.isfinite(node.last_seen_at) else 0.0
    return (-last, -node.valid_from, *_rank(node))


def _explanations(transitions: Sequence[Transition]) -> tuple[dict, dict]:
    """The latest transition that put each decision in force, and that invalidated each one.

    Lifecycle records a supersession as (old -> new, SUPERSEDED), and a decision settled or revived
    as (itself -> rival or "", COMPLETED). The list is in the order things happened.
    """
    in_force: dict[str, Transition] = {}
    invalidated: dict[str, Transition] = {}
    for t in transitions:
        if t.to_status == Status.SUPERSEDED and t.new_label:
            in_force[normalize_label(t.new_label)] = t
        elif t.to_status == Status.COMPLETED and t.old_label:
            in_force[normalize_label(t.old_label)] = t
        elif t.to_status == Status.INVALIDATED and t.old_label:
            invalidated[normalize_label(t.old_label)] = t
    return in_force, invalidated


# Types whose facts read by the learned lexicon alone are listed apart as likely (a likely error
# is shown with the others: it asks for a look, and states no choice or work).
_LISTED_APART = (NodeType.DECISION, NodeType.TASK)


@dataclass
class _View:
    live: list[Node]
    reasons: dict[str, Transition]  # normalized decision label -> why it is in force
    invalidations: dict[str, Transition]  # normalized decision label -> why it is wrong
    invalidated: list[Node]
    pairs: list[tuple[Node, Node]]
    lone_contested: list[Node]
    links: list[tuple[Node, EdgeType, Node]]
    in_force: list[Node] = field(init=False)
    likely: list[Node] = field(init=False)  # decisions the learned lexicon read, no rule stated
    likely_work: list[Node] = field(init=False)  # tasks, likewise

    def __post_init__(self) -> None:
        self.in_force = self.of(NodeType.DECISION, Status.COMPLETED)
        apart = [n for n in self.live if n.learned and n.type in _LISTED_APART]
        self.likely = [n for n in apart if n.type == NodeType.DECISION]
        self.likely_work = [n for n in apart if n.type == NodeType.TASK]

    @functools.cached_property
    def in_force_labels(self) -> frozenset[str]:
        return frozenset(n.key[1] for n in self.in_force)

    def of(self, node_type: NodeType, *statuses: Status) -> list[Node]:
        """Live nodes of a type with one of ``statuses``; by default all but the contested ones.
        A decision or work only the lexicon read is not among them: it is listed apart, as likely."""
        wanted = statuses or tuple(s for s in Status if s != Status.CONTESTED)
        apart = node_type in _LISTED_APART
        return [
            n
            for n in self.live
            if n.type == node_type and n.status in wanted and not (apart and n.learned)
        ]


def _edges(graph: Graph, live: list[Node], keys: dict[int, NodeKey]) -> tuple[list, list]:
    """Contested pairs (both ends contested, joined by conflicts_with) and the other live links."""
    index = {keys[id(n)]: i for i, n in enumerate(live)}
    pairs, links = set(), set()
    for edge in graph.edges.values():
        if edge.retired_at is not None or edge.source not in index or edge.target not in index:
            continue
        a, b = sorted((index[edge.source], index[edge.target]))
        if edge.type == EdgeType.CONFLICTS_WITH:
            if a != b and live[a].status == live[b].status == Status.CONTESTED:
                pairs.add((a, b))
        elif edge.type in _LINK_WORDS and not live[a].status == live[b].status == Status.COMPLETED:
            # Between two finished things ("X fixes Y", both done) a link is history, not state.
            links.add((index[edge.source], edge.type.value, index[edge.target]))
    return (
        [(live[a], live[b]) for a, b in sorted(pairs)],
        [(live[a], EdgeType(kind), live[b]) for a, kind, b in sorted(links)],
    )


def _view(graph: Graph) -> _View:
    live = sorted(graph.live(), key=_rank)
    # Edges name nodes by the graph's keys; Node.key would re-normalize every label again.
    wanted = {id(n) for n in live}
    keys = {id(n): k for k, n in graph.nodes.items() if id(n) in wanted}
    pairs, links = _edges(graph, live, keys)
    paired = {id(n) for pair in pairs for n in pair}
    # Invalidation retires a node, but its tombstone is exactly what the warning must show.
    invalidated = [
        n
        for n in graph.nodes.values()
        if n.type == NodeType.DECISION and n.status == Status.INVALIDATED
    ]
    reasons, invalidations = _explanations(graph.transitions)
    return _View(
        live=live,
        reasons=reasons,
        invalidations=invalidations,
        invalidated=sorted(invalidated, key=_rank),
        pairs=pairs,
        lone_contested=[n for n in live if n.status == Status.CONTESTED and id(n) not in paired],
        links=links,
    )


# ---- lines ----


@dataclass(frozen=True)
class _Item:
    text: str
    decision: str = ""  # the label this line shows as in force
    pair: tuple[str, str] | None = None


@dataclass
class _Section:
    title: str
    sources: Sequence
    fmt: Callable[[object], _Item]
    # Where the session stands (its goal, decisions and open work): past the first pass these
    # sections take turns, a line each, so that a long list of decisions cannot starve the open
    # tasks (nor the reverse); the other sections get more room only after them.
    standing: bool = False
    _done: dict[int, _Item | None] = field(default_factory=dict)


def _clean(text: str) -> str:
    """One line of printable text: no control characters, single spaces, valid UTF-8."""
    text = _JUNK.sub(" ", text[:RAW_CHARS]).strip()
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates from a bad decode upstream
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def _because(reason: str) -> str:
    return reason if reason.lower().startswith(_CAUSAL) else f"because {reason}"


def _plain(node: Node) -> _Item:
    return _Item(_clean(node.label))


_STATUS_WORDS = {
    Status.PENDING: "pending",
    Status.IN_PROGRESS: "in progress",
    Status.FAILED: "failed",
    Status.COMPLETED: "",
}


def _with_status(node: Node) -> _Item:
    word = _STATUS_WORDS.get(node.status, "")
    return _Item(_clean(node.label) + (f" ({word})" if word else ""))


def _error(node: Node) -> _Item:
    return _Item(f"{_clean(node.label)} ({'fixed' if node.status == Status.COMPLETED else 'open'})")


def _test(node: Node) -> _Item:
    words = {Status.COMPLETED: "passing", Status.FAILED: "failing"}
    return _Item(f"{_clean(node.label)} ({words.get(node.status, 'not run yet')})")


def _explanation(view: _View, node: Node) -> str:
    """Why ``node`` is in force, from its latest transition: what it replaced or beat, and why."""
    t = view.reasons.get(node.key[1])
    reason = _clean(t.reason if t else node.reason)
    if reason.lower() in _PLACEHOLDER_REASONS or reason.lower().startswith(_INFERRED):
        reason = ""
    other = "" if t is None else t.old_label if t.to_status == Status.SUPERSEDED else t.new_label
    other = "" if normalize_label(other) == node.key[1] else _clean(other)
    if t is None:
        lead = ""
    elif t.to_status == Status.SUPERSEDED:
        lead = f"switched from {other}" if other else ""
    elif other:
        rival_in_force = normalize_label(other) in view.in_force_labels
        lead = f"kept alongside {other}" if rival_in_force else f"chosen over {other}"
    else:
        lead = "adopted again"
    words = " ".join(w for w in (lead, _because(reason) if reason else "") if w)
    return f" ({words})" if words else ""


def _decision(view: _View, with_reason: bool) -> Callable[[Node], _Item]:
    def fmt(node: Node) -> _Item:
        text = _clean(node.label) + (_explanation(view, node) if with_reason else "")
        return _Item(text, decision=redact(node.label))

    return fmt


def _contested(item: object) -> _Item:
    if isinstance(item, Node):
        return _Item(f"{_clean(item.label)} (disputed, no alternative recorded)")
    a, b = item  # type: ignore[misc]
    return _Item(f"{_clean(a.label)} vs {_clean(b.label)}", pair=(redact(a.label), redact(b.label)))


def _invalidated(view: _View) -> Callable[[Node], _Item]:
    def fmt(node: Node) -> _Item:
        t = view.invalidations.get(node.key[1])
        reason = _clean((t.reason if t else "") or node.reason)
        return _Item(_clean(node.label) + (f" (wrong: {reason})" if reason else ""))

    return fmt


def _link(link: object) -> _Item:
    a, kind, b = link  # type: ignore[misc]
    return _Item(f"{_clean(a.label)} {_LINK_WORDS[kind]} {_clean(b.label)}")


def _critical(view: _View) -> list[_Section]:
    return [
        _Section("Goal:", view.of(NodeType.GOAL), _plain),
        _Section("In progress:", view.of(NodeType.TASK, Status.IN_PROGRESS), _plain),
        _Section("Decisions in force:", view.in_force[:TOP_DECISIONS], _decision(view, False)),
    ]


def _standard(view: _View) -> list[_Section]:
    standing = [
        _Section("Goal:", view.of(NodeType.GOAL), _plain),
        _Section("Project:", view.of(NodeType.PROJECT), _plain),
        _Section("In progress:", view.of(NodeType.TASK, Status.IN_PROGRESS), _plain),
        _Section("Decisions in force:", view.in_force, _decision(view, True)),
        _Section(
            "Contested (unresolved, neither in force):",
            [*view.pairs, *view.lone_contested],
            _contested,
        ),
        _Section("Do not re-adopt (invalidated):", view.invalidated, _invalidated(view)),
        _Section("Open tasks:", view.of(NodeType.TASK, Status.PENDING), _plain),
    ]
    for section in standing:
        section.standing = True
    return [
        *standing,
        _Section("Environment:", view.of(NodeType.ENVIRONMENT), _with_status),
        _Section("Files:", view.of(NodeType.FILE), _with_status),
    ]


def _rest_of_graph(view: _View) -> list[_Section]:
    """Everything else that is live, for the full tier."""
    errors = sorted(view.of(NodeType.ERROR), key=lambda n: (n.status == Status.COMPLETED, _rank(n)))
    other_decisions = view.of(NodeType.DECISION, Status.PENDING, Status.IN_PROGRESS, Status.FAILED)
    return [
        _Section("Errors:", errors, _error),
        _Section("Failed tasks:", view.of(NodeType.TASK, Status.FAILED), _plain),
        _Section("Schemas:", view.of(NodeType.SCHEMA), _with_status),
        _Section("Tests:", view.of(NodeType.TEST), _test),
        _Section("Endpoints:", view.of(NodeType.ENDPOINT), _with_status),
        _Section("APIs:", view.of(NodeType.API), _with_status),
        _Section("Dependencies:", view.of(NodeType.DEPENDENCY), _with_status),
        _Section("Concepts:", view.of(NodeType.CONCEPT), _with_status),
        _Section("Agents:", view.of(NodeType.AGENT), _with_status),
        _Section("Decisions not adopted yet:", other_decisions, _with_status),
        _Section("Likely decisions (read from phrasing, unconfirmed):", view.likely, _plain),
        _Section("Likely work (read from phrasing, unconfirmed):", view.likely_work, _with_status),
    ]


def _sections(view: _View, tier: str) -> list[_Section]:
    """What a tier shows, in reading order, which is also the order of priority."""
    if tier == "critical":
        return _critical(view)
    done = sorted(view.of(NodeType.TASK, Status.COMPLETED), key=_recency)
    if tier == "standard":
        return [*_standard(view), _Section("Recently done:", done[:RECENT_DONE], _plain)]
    return [
        *_standard(view),
        *_rest_of_graph(view),
        _Section("Done:", done, _plain),
        _Section("Links:", view.links, _link),
    ]


# ---- fitting lines into the budget ----


def _line(section: _Section, j: int, count: LineCounter, cap: int) -> _Item | None:
    if j not in section._done:
        item = section.fmt(section.sources[j])
        text = shorten(count, redact(_MARK + item.text), cap, len(_MARK))
        section._done[j] = _Item(text, item.decision, item.pair) if text else None
    return section._done[j]


def _order(sections: Sequence[_Section]) -> list[tuple[int, int]]:
    """The order lines are considered in: a few of every section first, then the rest of the
    standing sections in turn, then the rest of the others section by section."""
    first = [
        (s, j) for s, sec in enumerate(sections) for j in range(min(FIRST_PASS, len(sec.sources)))
    ]
    standing = [s for s, sec in enumerate(sections) if sec.standing]
    longest = max((len(sections[s].sources) for s in standing), default=0)
    turns = [
        (s, j) for j in range(FIRST_PASS, longest) for s in standing if j < len(sections[s].sources)
    ]
    rest = [
        (s, j)
        for s, sec in enumerate(sections)
        if s not in standing
        for j in range(FIRST_PASS, len(sec.sources))
    ]
    return first + turns + rest


def _select(sections: list[_Section], budget: int, count: LineCounter, cap: int) -> list[tuple]:
    """Greedy by priority: (section, index, item) of the lines that fit, in the order chosen.

    Costs are summed per line plus one token per newline, an upper bound on the joined text's
    count in practice (joining only lets BPE merge across a line end); `_render` verifies it.
    """
    used, misses, opened, chosen = count(HEADER), 0, set(), []
    for s, j in _order(sections):
        if budget - used < 3 or misses >= GIVE_UP_AFTER:
            break
        item = _line(sections[s], j, count, cap)
        if item is None:
            continue
        overhead = 1 + (0 if s in opened else count(sections[s].title) + 1)
        if used + overhead + count(item.text) > budget:
            room = budget - used - overhead
            text = shorten(count, item.text, room, len(_MARK)) if room >= MIN_SHORTENED else None
            if text is None:
                misses += 1
                continue
            item = _Item(text, item.decision, item.pair)
        used += overhead + count(item.text)
        opened.add(s)
        chosen.append((s, j, item))
        misses = 0
    return chosen


def _assemble(sections: list[_Section], chosen: list[tuple]) -> str:
    lines = [HEADER]
    for s, sec in enumerate(sections):
        items = sorted(((j, item) for s2, j, item in chosen if s2 == s), key=lambda c: c[0])
        if items:
            lines.append(sec.title)
            lines.extend(item.text for _, item in items)
    return "\n".join(lines)


def _render(view: _View, tier: str, count: LineCounter) -> Rendered:
    if tier not in TIER_BUDGETS:
        raise ValueError(f"unknown tier {tier!r}; expected one of {', '.join(TIER_BUDGETS)}")
    budget = TIER_BUDGETS[tier]
    sections = _sections(view, tier)
    chosen = _select(sections, budget, count, LINE_CAPS[tier])
    while True:
        text = _assemble(sections, chosen)
        if find_secrets(text):  # a secret only visible across two lines: never ship it
            text = redact(text)
        n = len(count.enc.encode_ordinary(text))
        if n <= budget or not chosen:
            break
        chosen = chosen[:-1]  # drop the line chosen last, the one that mattered least
    by_order = sorted(chosen, key=lambda c: (c[0], c[1]))
    return Rendered(
        tier=tier,
        text=text,
        tokens=n,
        in_force=tuple(item.decision for _, _, item in by_order if item.decision),
        contested=tuple(item.pair for _, _, item in by_order if item.pair),
        budget=budget,
        omitted=sum(len(sec.sources) for sec in sections) - len(chosen),
    )


def render(graph: Graph, tier: str = "standard", encoding: str = "cl100k_base") -> Rendered:
    """One tier of the resume block of ``graph``; the same graph always gives the same bytes."""
    return _render(_view(graph), tier, LineCounter(_encoding(encoding)))


def render_tiers(graph: Graph, encoding: str = "cl100k_base") -> dict[str, Rendered]:
    """All three tiers, sharing one ranking of the graph and one cache of line counts."""
    view, count = _view(graph), LineCounter(_encoding(encoding))
    return {tier: _render(view, tier, count) for tier in TIER_BUDGETS}
