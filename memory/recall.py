"""Project memory across sessions: full-text search over a project's nodes, and the standing
knowledge a new session of the project starts with.

The index is PostgreSQL full-text search (a GIN index over the expression below) in production
and an SQLite FTS5 table kept in step by triggers in the embedded default; both are created by
migration 0005 for the database it runs on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from django.db import connection
from django.db.models import Q

from memory.graph import standing
from memory.graph.types import NodeType, Status
from memory.models import DecisionTransition, Edge, Node, Project, Session
from tokenmizer_site import caching

FTS_TABLE = "memory_node_fts"
MAX_TERMS = 48  # a long first message is a query of its most telling words, not all of them
MAX_LIMIT = 500
# Nodes considered for standing knowledge: this many by relevance and as many by importance. A
# 400-token preamble holds a few dozen lines, so this bounds the work whatever the project's size.
STANDING_CANDIDATES = 100
_WORD = re.compile(r"\w+", re.UNICODE)
# Words that say nothing about a project's facts; PostgreSQL drops them itself, FTS5 does not.
_STOP = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how i if in "
    "into is it its let me my no not of on or our please should so than that the their them then "
    "there these they this to up us was we were what when where which while who why will with "
    "would you your".split()
)


def terms(text: str) -> list[str]:
    """The distinct words of ``text`` worth searching for, in order, lower-cased."""
    out: list[str] = []
    for word in _WORD.findall(text.casefold()):
        word = word.strip("_")
        if len(word) < 2 or word in _STOP or word in out:
            continue
        out.append(word)
        if len(out) == MAX_TERMS:
            break
    return out


def _fts5_query(words: Iterable[str]) -> str:
    # Every word is quoted as an FTS5 string (a quote inside doubled), so no user text can be
    # read as query syntax: column filters, NEAR, AND/NOT, prefixes and parentheses are all inert.
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def _sqlite_search(words: list[str]) -> tuple[str, list]:
    sql = (
        f"SELECT n.id, -bm25({FTS_TABLE}, 4.0, 1.0, 2.0) AS score "
        f"FROM {FTS_TABLE} JOIN memory_node n ON n.id = {FTS_TABLE}.rowid "
        f"JOIN memory_session s ON s.id = n.session_id WHERE {FTS_TABLE} MATCH %s"
    )
    return sql, [_fts5_query(words)]


def _postgres_search(words: list[str]) -> tuple[str, list]:
    # websearch_to_tsquery never raises on user text; the words are joined with its "or". Each
    # node stores its vector, the label weighted above the quote and the reason (migration 0007),
    # and a GIN index over it serves the match.
    sql = (
        "SELECT n.id, ts_rank(n.search_vector, q) AS score "
        "FROM memory_node n JOIN memory_session s ON s.id = n.session_id, "
        "websearch_to_tsquery('english'::regconfig, %s) q WHERE n.search_vector @@ q"
    )
    return sql, [" or ".join(words)]


def ranks(
    project: Project,
    query: str,
    limit: int = 20,
    exclude_session: int | None = None,
    types: Iterable[str] = (),
) -> list[tuple[int, float]]:
    """(node id, relevance) of the project's nodes matching ``query``, most relevant first
    (of the given node ``types`` only, if any)."""
    words = terms(query)
    limit = max(0, min(limit, MAX_LIMIT))
    if not words or not limit:
        return []
    # Plain SQL, as every new session runs it: the ORM took 2.5 ms to compile PostgreSQL's.
    search = _postgres_search if connection.vendor == "postgresql" else _sqlite_search
    sql, params = search(words)
    sql += " AND s.project_id = %s"
    params.append(project.pk)
    if exclude_session is not None:
        sql += " AND n.session_id <> %s"
        params.append(exclude_session)
    if types := tuple(map(str, types)):
        sql += f" AND n.type IN ({', '.join(['%s'] * len(types))})"
        params.extend(types)
    sql += " ORDER BY score DESC, n.importance DESC, n.id LIMIT %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, limit])
        return [(row[0], float(row[1])) for row in cursor.fetchall()]


def search(project: Project, query: str, limit: int = 20) -> list[Node]:
    """The project's nodes (label, reason, evidence quote) ranked by relevance to ``query``, each
    with its session loaded and its relevance as ``rank``. Any text is a valid query."""
    ranked = ranks(project, query, limit)
    rows = Node.objects.select_related("session").in_bulk([pk for pk, _ in ranked])
    out = []
    for pk, score in ranked:
        node = rows.get(pk)
        if node is not None:  # deleted between the two reads
            node.rank = score
            out.append(node)
    return out


# ---- standing knowledge ------------------------------------------------------------------------

_STANDING_TYPES = (NodeType.DECISION, NodeType.GOAL, NodeType.ENVIRONMENT)
_STANDING_FIELDS = (
    "pk", "type", "key", "label", "status", "importance", "reason", "session_id", "valid_from_at",
    "last_seen_at", "recorded_at", "extra", "evidence_quote",
)  # fmt: skip


def _moment(node) -> float:
    """When the project last said something of the node: the valid time of its latest mention or
    status change (its message's time, or a person's action). Not record time: that is when a job
    happened to read the session, and a lagging, retried or re-run job would make an earlier
    session's word look like the project's latest."""
    stamps = [t.timestamp() for t in (node.valid_from_at, node.last_seen_at) if t is not None]
    history = node.extra.get("history") or []
    stamps += [float(e[1]) for e in history if len(e) > 1 and e[1] is not None]
    return max(stamps) if stamps else node.recorded_at.timestamp()


def _observation(node, reason: str | None) -> standing.Observation:
    """``node``: a Node, or a row with its ``_STANDING_FIELDS``."""
    return standing.Observation(
        type=NodeType(node.type),
        label=node.label,
        status=Status(node.status),
        importance=node.importance,
        moment=_moment(node),
        reason=node.reason if reason is None else reason,
        session=node.session_id,
        node=node.pk,
        quote=node.evidence_quote,
    )


def _invalidation_reasons(session_ids: set[int]) -> dict[tuple[int, str], str]:
    if not session_ids:
        return {}
    rows = DecisionTransition.objects.filter(
        session_id__in=session_ids, to_status=Status.INVALIDATED
    ).order_by("sequence")
    return {(t.session_id, t.old_label): t.reason for t in rows}


def standing_knowledge(
    project: Project, text: str, budget_tokens: int, exclude_session: Session | int | None = None
) -> str:
    """The project's standing knowledge for a new session, within ``budget_tokens`` real tokens.

    From the project's other sessions: decisions in force, goals, environment facts, unresolved
    contested pairs (both sides), and invalidated decisions as warnings — never superseded ones.
    Chosen by relevance to ``text``, then importance, one per normalized label. Deterministic.
    """
    if budget_tokens <= 0:
        return ""
    exclude = exclude_session.pk if isinstance(exclude_session, Session) else exclude_session
    relevance = dict(ranks(project, text, STANDING_CANDIDATES, exclude, _STANDING_TYPES))
    base, conflicts, swapped = _standing_base(project, exclude)
    missing = set(relevance) - base.keys()
    if missing:
        nodes = _candidates(project, exclude)
        base = {
            **base,
            **_observations(nodes, set(nodes.filter(pk__in=missing).values_list("type", "key"))),
        }
    observations = {
        pk: replace(o, relevance=relevance[pk]) if pk in relevance else o
        for pk, o in sorted(base.items())
    }
    pairs = [
        standing.Pair(observations[a], observations[b])
        for a, b in conflicts
        if a in observations and b in observations
    ]
    # The swaps among the base's decisions, found when it was read: a request compares no pairs.
    facts = standing.facts(list(observations.values()), pairs, swapped)
    return standing.render(facts, budget_tokens)


# The project's most important standing candidates and its open conflicts, read once per state of
# its graphs (every graph change bumps its session's graph_version): sessions opened together read
# them once. Each extraction job reads them afresh for the state it leaves (``refresh_standing``),
# so a busy project's new sessions seldom wait for them; with Redis the job's read is shared with
# the proxy processes, as the job runs in a worker.
# Also read once per state: the decisions a later session swapped for another value, which takes
# comparing pairs of decisions (``standing.swapped_later``).
Base = tuple[dict[int, standing.Observation], list[tuple[int, int]], frozenset[str]]
_bases: dict[tuple, Base] = {}
SHARED_TTL_S = 600


def forget_standing() -> None:
    _bases.clear()


def _candidates(project: Project, exclude: int | None):
    """The nodes a new session may be told of; a likely decision, no rule having stated it, is not
    one (``Node.learned``)."""
    nodes = Node.objects.filter(session__project=project, type__in=_STANDING_TYPES).exclude(
        extra__learned=True
    )
    return nodes.exclude(session_id=exclude) if exclude is not None else nodes


def _graphs_state(project: Project) -> tuple:
    """(count, summed graph versions, last id) of the project's sessions that have a graph:
    opening a new session does not move it. Plain SQL: it runs for every new session, and the
    ORM takes longer to compile this aggregate than the database takes to answer it."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COUNT(*), SUM(graph_version), MAX(id) FROM {Session._meta.db_table} "
            "WHERE project_id = %s AND graph_version > 0",
            [project.pk],
        )
        return cursor.fetchone()


def _base_key(project: Project, exclude: int | None) -> tuple:
    return (project.pk, exclude, *_graphs_state(project))


def _shared_name(key: tuple) -> str:
    return "tmz:standing:v2:" + ":".join(map(str, key))  # v2: the base holds the swapped set


def shared_name(project: Project) -> str:
    """The shared cache's key for the project's standing candidates, for its graphs as now."""
    return _shared_name(_base_key(project, None))


def _standing_base(project: Project, exclude: int | None) -> Base:
    key = _base_key(project, exclude)
    cached = _bases.get(key)
    if cached is None:
        shared = _shared_cache()
        name = _shared_name(key)
        cached = shared.get(name) if shared is not None else None
        if cached is None:
            cached = _read_base(project, exclude)
            if shared is not None:
                shared.set(name, cached, SHARED_TTL_S)
        if len(_bases) >= 256:
            _bases.clear()
        _bases[key] = cached
    return cached


def _shared_cache():
    """Redis, when the processes share one (production); else None: one process, one copy."""
    return caching.shared() if caching.redis_client() is not None else None


def _read_base(project: Project, exclude: int | None) -> Base:
    nodes = _candidates(project, exclude)
    important = nodes.order_by("-importance", "-pk").values_list("type", "key")
    observations = _observations(nodes, set(important[:STANDING_CANDIDATES]))
    swapped = standing.swapped_later(observations.values())
    return observations, _conflicts(project, exclude), swapped


def refresh_standing(project: Project) -> None:
    """Read the project's standing candidates for its graphs as they are now, ahead of its next
    new session: for the proxy processes through Redis, else if this process has read them
    before (a project opening sessions here). Nothing when the project's memory is off."""
    if project.memory_budget and (
        _shared_cache() is not None or any(key[0] == project.pk for key in _bases)
    ):
        _standing_base(project, None)


def _observations(nodes, labels: set[tuple[str, str]]) -> dict[int, standing.Observation]:
    """Every sighting of the labels (type, normalized label) among ``nodes`` (a later session's
    word on a label decides it), as observations without relevance. Rows, not model instances:
    a project's new sessions wait for this read when its graphs have just moved."""
    keys = {key for _, key in labels}
    rows = [
        n
        for n in nodes.filter(key__in=keys).values_list(*_STANDING_FIELDS, named=True)
        if (n.type, n.key) in labels
    ]
    wrong = _invalidation_reasons({n.session_id for n in rows if n.status == Status.INVALIDATED})
    return {
        n.pk: _observation(
            n,
            wrong.get((n.session_id, n.label), "") if n.status == Status.INVALIDATED else None,
        )
        for n in rows
    }


def _conflicts(project: Project, exclude: int | None) -> list[tuple[int, int]]:
    """The open conflicts_with edges between contested decisions, as (source, target) node ids."""
    edges = Edge.objects.filter(
        Q(session__project=project),
        type="conflicts_with",
        retired_at__isnull=True,
        source__status=Status.CONTESTED,
        target__status=Status.CONTESTED,
    ).order_by("id")
    if exclude is not None:
        edges = edges.exclude(session_id=exclude)
    return list(edges.values_list("source_id", "target_id"))
