"""The resume block: three token-budgeted, redacted, deterministic tiers rendered from a graph."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import tiktoken

from memory.graph import tokens
from memory.graph.redact import find_secrets, redact
from memory.graph.types import EdgeType, Graph, Node, NodeType, Status, Transition, normalize_label

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
ELLIPSIS = " …"

_MARK = "- "
_JUNK = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")
_SOFT_BREAKS = frozenset(",;/|)")
_CAUSAL = ("because", "since", "as ", "due to", "for ", "to ", "so ")
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


class _Counter:
    """Token counts of lines with one encoding, each distinct line encoded once."""

    def __init__(self, enc: tiktoken.Encoding) -> None:
        self.enc = enc
        self._cache: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        n = self._cache.get(text)
        if n is None:
            n = self._cache[text] = len(self.enc.encode_ordinary(text))
        return n


def _encoding(name: str) -> tiktoken.Encoding:
    if name in tokens.ENCODING_NAMES:
        return tokens.get_encoding(name)
    return tokens.encoding_for(name)  # a model name is accepted too


# ---- what the graph holds, ranked once and shared by all tiers ----


def _importance(node: Node) -> float:
    return node.importance if math.isfinite(node.importance) else 0.0


def _rank(node: Node) -> tuple:
    """Importance first, then the order facts appeared; labels and keys break every tie."""
    return (-_importance(node), node.valid_from, node.label, node.type.value, node.key[1])


def _recency(node: Node) -> tuple:
    last = node.last_seen_at if math.isfinite(node.last_seen_at) else 0.0
    return (-last, -node.valid_from, *_rank(node))


def _latest(transitions: Sequence[Transition], label_of: Callable[[Transition], str]) -> dict:
    latest: dict[str, tuple[tuple, Transition]] = {}
    for i, t in enumerate(transitions):
        label = normalize_label(label_of(t))
        if not label:
            continue
        at = t.at if math.isfinite(t.at) else 0.0
        order = (t.trigger, at, i)
        if label not in latest or order > latest[label][0]:
            latest[label] = (order, t)
    return {label: t for label, (_, t) in latest.items()}


@dataclass
class _View:
    live: list[Node]
    reasons: dict[str, Transition]  # normalized decision label -> latest transition into it
    invalidations: dict[str, Transition]  # normalized label -> latest transition invalidating it
    invalidated: list[Node]
    pairs: list[tuple[Node, Node]]
    lone_contested: list[Node]
    links: list[tuple[Node, EdgeType, Node]]

    def of(self, node_type: NodeType, *statuses: Status) -> list[Node]:
        """Live nodes of a type with one of ``statuses``; by default all but the contested ones."""
        wanted = statuses or tuple(s for s in Status if s != Status.CONTESTED)
        return [n for n in self.live if n.type == node_type and n.status in wanted]


def _view(graph: Graph) -> _View:
    live = sorted(graph.live(), key=_rank)
    index = {n.key: i for i, n in enumerate(live)}
    contested = {n.key for n in live if n.status == Status.CONTESTED}
    pair_keys, links = set(), set()
    for edge in graph.edges.values():
        if edge.retired_at is not None or edge.source not in index or edge.target not in index:
            continue
        a, b = sorted((edge.source, edge.target), key=index.__getitem__)
        if edge.type == EdgeType.CONFLICTS_WITH and {a, b} <= contested and a != b:
            pair_keys.add((a, b))
        elif edge.type in _LINK_WORDS:
            links.add((index[edge.source], edge.type.value, index[edge.target]))
    pairs = [
        (live[index[a]], live[index[b]])
        for a, b in sorted(pair_keys, key=lambda p: (index[p[0]], index[p[1]]))
    ]
    paired = {k for pair in pair_keys for k in pair}
    invalidated = [
        n
        for n in graph.nodes.values()
        if n.type == NodeType.DECISION and n.status == Status.INVALIDATED
    ]
    return _View(
        live=live,
        reasons=_latest([t for t in graph.transitions if t.new_label], lambda t: t.new_label),
        invalidations=_latest(
            [t for t in graph.transitions if t.to_status == Status.INVALIDATED],
            lambda t: t.old_label,
        ),
        invalidated=sorted(invalidated, key=_rank),
        pairs=pairs,
        lone_contested=[n for n in live if n.key in contested and n.key not in paired],
        links=[(live[s], EdgeType(t), live[d]) for s, t, d in sorted(links)],
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


def _decision(view: _View, with_reason: bool) -> Callable[[Node], _Item]:
    def fmt(node: Node) -> _Item:
        text, label = _clean(node.label), redact(node.label)
        if not with_reason:
            return _Item(text, decision=label)
        t = view.reasons.get(node.key[1])
        old = t.old_label if t and normalize_label(t.old_label) not in ("", node.key[1]) else ""
        reason = _clean((t.reason if t else "") or node.reason)
        if old and reason:
            text += f" (replaces {_clean(old)} {_because(reason)})"
        elif old:
            text += f" (replaces {_clean(old)})"
        elif reason:
            text += f" ({_because(reason)})"
        return _Item(text, decision=label)

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


def _sections(view: _View, tier: str) -> list[_Section]:
    """What a tier shows, in reading order, which is also the order of priority."""
    task = NodeType.TASK
    goal = _Section("Goal:", view.of(NodeType.GOAL), _plain)
    doing = _Section("In progress:", view.of(task, Status.IN_PROGRESS), _plain)
    in_force = view.of(NodeType.DECISION, Status.COMPLETED)
    if tier == "critical":
        top = _Section("Decisions in force:", in_force[:TOP_DECISIONS], _decision(view, False))
        return [goal, doing, top]
    done = sorted(view.of(task, Status.COMPLETED), key=_recency)
    sections = [
        goal,
        _Section("Project:", view.of(NodeType.PROJECT), _plain),
        doing,
        _Section("Decisions in force:", in_force, _decision(view, True)),
        _Section(
            "Contested (unresolved, neither in force):",
            [*view.pairs, *view.lone_contested],
            _contested,
        ),
        _Section("Do not re-adopt (invalidated):", view.invalidated, _invalidated(view)),
        _Section("Open tasks:", view.of(task, Status.PENDING), _plain),
        _Section("Environment:", view.of(NodeType.ENVIRONMENT), _with_status),
        _Section("Files:", view.of(NodeType.FILE), _with_status),
    ]
    if tier == "standard":
        return [*sections, _Section("Recently done:", done[:RECENT_DONE], _plain)]
    errors = sorted(view.of(NodeType.ERROR), key=lambda n: (n.status == Status.COMPLETED, _rank(n)))
    other_decisions = view.of(NodeType.DECISION, Status.PENDING, Status.IN_PROGRESS, Status.FAILED)
    return [
        *sections,
        _Section("Errors:", errors, _error),
        _Section("Failed tasks:", view.of(task, Status.FAILED), _plain),
        _Section("Schemas:", view.of(NodeType.SCHEMA), _with_status),
        _Section("Tests:", view.of(NodeType.TEST), _test),
        _Section("Endpoints:", view.of(NodeType.ENDPOINT), _with_status),
        _Section("APIs:", view.of(NodeType.API), _with_status),
        _Section("Dependencies:", view.of(NodeType.DEPENDENCY), _with_status),
        _Section("Concepts:", view.of(NodeType.CONCEPT), _with_status),
        _Section("Agents:", view.of(NodeType.AGENT), _with_status),
        _Section("Decisions not adopted yet:", other_decisions, _with_status),
        _Section("Done:", done, _plain),
        _Section("Links:", view.links, _link),
    ]


# ---- fitting lines into the budget ----


def _cjk(ch: str) -> bool:
    """Scripts written without spaces, where a line may break between any two characters."""
    return "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\uffef"


def _boundary(text: str, end: int) -> int | None:
    """The last word boundary at or before ``end`` that leaves some text after the list mark."""
    for i in range(min(end, len(text)), len(_MARK), -1):
        if i == len(text) or text[i].isspace() or text[i - 1] in _SOFT_BREAKS:
            return i
        if _cjk(text[i - 1]) or _cjk(text[i]):
            return i
    return None


def _shorten(count: _Counter, text: str, limit: int) -> str | None:
    """``text`` cut at a word boundary (never inside a word) so that it fits ``limit`` tokens."""
    if count(text) <= limit:
        return text
    ids = count.enc.encode_ordinary(text)
    keep = limit - count(ELLIPSIS)
    while keep > 0:
        # A token prefix decodes to a byte prefix of the text; "ignore" drops a split character.
        prefix = count.enc.decode_bytes(ids[:keep]).decode("utf-8", "ignore")
        cut = _boundary(text, len(prefix))
        if cut is None:
            return None
        head = text[:cut].rstrip(" ,;:/|-([{")
        if len(head) <= len(_MARK):
            return None
        short = head + ELLIPSIS
        n = count(short)
        if n <= limit:
            return short
        keep -= n - limit
    return None


def _line(section: _Section, j: int, count: _Counter, cap: int) -> _Item | None:
    if j not in section._done:
        item = section.fmt(section.sources[j])
        text = _shorten(count, redact(_MARK + item.text), cap)
        section._done[j] = _Item(text, item.decision, item.pair) if text else None
    return section._done[j]


def _order(sections: Sequence[_Section]) -> list[tuple[int, int]]:
    """The order lines are considered in: a few of every section first, then the rest."""
    first = [
        (s, j) for s, sec in enumerate(sections) for j in range(min(FIRST_PASS, len(sec.sources)))
    ]
    rest = [(s, j) for s, sec in enumerate(sections) for j in range(FIRST_PASS, len(sec.sources))]
    return first + rest


def _select(sections: list[_Section], budget: int, count: _Counter, cap: int) -> list[tuple]:
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
            text = _shorten(count, item.text, room) if room >= MIN_SHORTENED else None
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
        items = sorted((j, item) for s2, j, item in chosen if s2 == s)
        if items:
            lines.append(sec.title)
            lines.extend(item.text for _, item in items)
    return "\n".join(lines)


def _render(view: _View, tier: str, count: _Counter) -> Rendered:
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
    return _render(_view(graph), tier, _Counter(_encoding(encoding)))


def render_tiers(graph: Graph, encoding: str = "cl100k_base") -> dict[str, Rendered]:
    """All three tiers, sharing one ranking of the graph and one cache of line counts."""
    view, count = _view(graph), _Counter(_encoding(encoding))
    return {tier: _render(view, tier, count) for tier in TIER_BUDGETS}
