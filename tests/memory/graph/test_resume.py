"""The resume block: what each tier shows, what it never shows, its budgets and its stable bytes."""

import pytest

from memory.graph import tokens
from memory.graph.pipeline import build_graph
from memory.graph.redact import find_secrets
from memory.graph.resume import HEADER, TIER_BUDGETS, render, render_tiers
from memory.graph.types import (
    Edge,
    EdgeType,
    Evidence,
    Graph,
    Node,
    NodeType,
    Status,
    Transition,
    Turn,
)

D, T = NodeType.DECISION, NodeType.TASK
OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" * 2
GITHUB = "ghp_" + "a1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def node(type_, label, status=Status.COMPLETED, importance=1.0, at=0, **kw):
    evidence = kw.pop("evidence", Evidence(at, label))
    return Node(
        type=type_,
        label=label,
        status=status,
        confidence=0.9,
        evidence=evidence,
        importance=importance,
        valid_from=at,
        last_seen_at=float(at),
        **kw,
    )


def graph_of(*nodes, edges=(), transitions=()):
    g = Graph()
    for n in nodes:
        g.nodes[n.key] = n
    for a, b, kind in edges:
        g.edges[(a.key, b.key, kind)] = Edge(a.key, b.key, kind)
    g.transitions.extend(transitions)
    return g


@pytest.fixture
def session_graph():
    postgres = node(D, "PostgreSQL", Status.SUPERSEDED, at=3)
    sqlite = node(D, "SQLite", importance=2.0, at=9)
    celery = node(D, "Celery for background jobs", Status.CONTESTED, at=10)
    djq = node(D, "Django-Q for background jobs", Status.CONTESTED, at=11)
    return graph_of(
        node(NodeType.GOAL, "Ship an invoice tracker for a small accounting team", importance=3.0),
        node(T, "Write the CSV import", Status.IN_PROGRESS, at=5),
        node(T, "Add login with email links", Status.PENDING, at=7),
        node(T, "Set up the Django project", Status.COMPLETED, at=2),
        postgres,
        sqlite,
        celery,
        djq,
        node(D, "MongoDB", Status.INVALIDATED, at=4, reason="no multi-document transactions"),
        node(D, "MySQL", Status.ARCHIVED, at=1),
        node(NodeType.FILE, "invoices/importer.py", at=5),
        node(NodeType.ENVIRONMENT, "Python 3.11 on Debian 12", at=1),
        node(NodeType.ERROR, "UnicodeDecodeError on cp1252 files", Status.PENDING, at=12),
        node(NodeType.ERROR, "Timezone off by one hour", Status.COMPLETED, at=6),
        node(NodeType.ENDPOINT, "POST /api/invoices/import", at=8),
        node(NodeType.DEPENDENCY, "django 5.2", at=2),
        edges=[(celery, djq, EdgeType.CONFLICTS_WITH)],
        transitions=[
            Transition(
                "PostgreSQL",
                "SQLite",
                Status.COMPLETED,
                Status.SUPERSEDED,
                9,
                reason="hosting cost of a managed database is too high",
            ),
        ],
    )


def test_contested_pair_stays_visible_in_resume_and_is_not_in_force(session_graph):
    for tier in ("standard", "full"):
        r = render(session_graph, tier)
        assert "Contested (unresolved, neither in force):" in r.text
        assert "- Celery for background jobs vs Django-Q for background jobs" in r.text
        assert r.contested == (("Celery for background jobs", "Django-Q for background jobs"),)
        assert not {"Celery for background jobs", "Django-Q for background jobs"} & set(r.in_force)
        decisions = r.text.split("Decisions in force:")[1].split("Contested")[0]
        assert "Celery" not in decisions


def test_superseded_and_archived_decisions_never_appear_as_facts(session_graph):
    for r in render_tiers(session_graph).values():
        assert "- PostgreSQL" not in r.text
        assert "MySQL" not in r.text
        assert "PostgreSQL" not in r.in_force


def test_the_reason_of_the_latest_transition_stands_beside_the_decision_in_force(session_graph):
    session_graph.transitions.append(
        Transition(
            "PostgreSQL",
            "SQLite",
            Status.COMPLETED,
            Status.SUPERSEDED,
            14,
            reason="one office needs no database server",
        )
    )
    text = render(session_graph, "standard").text
    assert "- SQLite (switched from PostgreSQL because one office needs no database server)" in text
    assert "hosting cost" not in text


def test_a_decision_without_transition_shows_its_own_reason():
    g = graph_of(node(D, "Use uv for packaging", reason="because it is fast"))
    assert "- Use uv for packaging (because it is fast)" in render(g).text


def test_invalidated_decision_is_only_a_warning(session_graph):
    for tier in ("standard", "full"):
        r = render(session_graph, tier)
        assert (
            "Do not re-adopt (invalidated):\n- MongoDB (wrong: no multi-document transactions)"
            in r.text
        )
        assert "MongoDB" not in r.in_force
        assert r.text.count("MongoDB") == 1
    assert "MongoDB" not in render(session_graph, "critical").text


def test_in_force_lists_exactly_the_decisions_shown_as_in_force(session_graph):
    tiers = render_tiers(session_graph)
    assert all(r.in_force == ("SQLite",) for r in tiers.values())


def test_critical_tier_holds_goal_work_in_progress_and_top_decisions(session_graph):
    text = render(session_graph, "critical").text
    assert text.startswith(HEADER)
    assert (
        "Ship an invoice tracker" in text and "Write the CSV import" in text and "- SQLite" in text
    )
    assert "Add login" not in text and "invoices/importer.py" not in text


def test_critical_tier_shows_at_most_three_decisions():
    g = graph_of(*(node(D, f"decision number {i}", importance=10 - i) for i in range(6)))
    r = render(g, "critical")
    assert r.in_force == ("decision number 0", "decision number 1", "decision number 2")


def test_standard_tier_holds_open_work_files_and_environment(session_graph):
    text = render(session_graph, "standard").text
    for expected in (
        "Add login with email links",
        "invoices/importer.py",
        "Python 3.11 on Debian 12",
        "Set up the Django project",
    ):
        assert expected in text
    assert "UnicodeDecodeError" not in text  # errors are the full tier's


def test_standard_tier_shows_only_the_most_recently_completed_tasks():
    g = graph_of(*(node(T, f"finished step {i}", Status.COMPLETED, at=i) for i in range(10)))
    text = render(g, "standard").text
    assert [f"finished step {i}" in text for i in range(10)] == [False] * 5 + [True] * 5
    assert all(f"finished step {i}" in render(g, "full").text for i in range(10))


def test_many_decisions_do_not_crowd_the_open_tasks_out_of_a_full_tier():
    decisions = [
        node(D, f"use tool {i} for stage {i}", at=i, reason="the previous tool kept timing out")
        for i in range(30)
    ]
    open_tasks = [node(T, f"migrate report {i}", Status.PENDING, at=100 + i) for i in range(20)]
    for tier in ("standard", "full"):
        text = render(graph_of(*decisions, *open_tasks), tier).text
        shown_decisions = sum(f"use tool {i} " in text for i in range(30))
        shown_tasks = sum(f"migrate report {i}\n" in text + "\n" for i in range(20))
        # Past the first three of each, the two sections take turns until the budget runs out.
        assert shown_decisions > 3
        assert shown_tasks >= min(len(open_tasks), shown_decisions), (tier, text)


def test_full_tier_holds_the_whole_live_graph(session_graph):
    text = render(session_graph, "full").text
    assert "- UnicodeDecodeError on cp1252 files (open)" in text
    assert "- Timezone off by one hour (fixed)" in text
    assert "POST /api/invoices/import" in text and "django 5.2" in text


def test_retired_nodes_are_gone():
    g = graph_of(node(T, "an old task", Status.PENDING, retired_at=5.0), node(T, "a live task"))
    text = render(g, "full").text
    assert "an old task" not in text and "a live task" in text


def test_no_secret_reaches_any_tier_from_labels_reasons_or_evidence():
    leaky = Evidence(1, f"my key is {OPENAI}")
    g = graph_of(
        node(NodeType.GOAL, f"deploy with key {OPENAI}", evidence=leaky),
        node(D, f"authenticate with {GITHUB}", reason="password=hunter2 was rejected"),
        node(D, "old auth", Status.SUPERSEDED),
        node(D, f"token={GITHUB}", Status.INVALIDATED, reason=f"leaked {OPENAI}"),
        node(NodeType.ENVIRONMENT, "DATABASE_URL=postgres://app:s3cret@db/app"),
        node(NodeType.ERROR, "401 with Authorization: Bearer abcdef0123456789xyz", Status.PENDING),
        transitions=[
            Transition(
                "old auth",
                f"authenticate with {GITHUB}",
                Status.COMPLETED,
                Status.SUPERSEDED,
                3,
                reason=f"the new one uses {OPENAI}",
                evidence=OPENAI,
            ),
        ],
    )
    for r in render_tiers(g).values():
        assert find_secrets(r.text) == []
        for raw in (OPENAI, GITHUB, "hunter2", "s3cret", "abcdef0123456789xyz"):
            assert raw not in r.text
        assert not any(OPENAI in s or GITHUB in s for s in r.in_force)
    assert "[REDACTED:openai_key]" in render(g, "standard").text


def test_same_graph_renders_the_same_bytes_whatever_the_insertion_order(session_graph):
    shuffled = Graph(transitions=list(session_graph.transitions))
    for key in reversed(list(session_graph.nodes)):
        shuffled.nodes[key] = session_graph.nodes[key]
    for key in reversed(list(session_graph.edges)):
        shuffled.edges[key] = session_graph.edges[key]
    assert render_tiers(session_graph) == render_tiers(shuffled)
    assert render(session_graph, "full") == render_tiers(session_graph)["full"]


def test_ties_are_broken_by_importance_then_first_mention_then_label():
    g = graph_of(
        node(T, "b task", Status.PENDING, at=1),
        node(T, "a task", Status.PENDING, at=1),
        node(T, "c task", Status.PENDING, at=0),
        node(T, "d task", Status.PENDING, 2.0, at=9),
    )
    text = render(g).text
    assert text.index("d task") < text.index("c task") < text.index("a task") < text.index("b task")


def test_every_tier_fits_its_budget_in_real_tokens_for_a_big_graph():
    g = graph_of(
        *(
            node(
                T,
                f"task {i} migrates the billing ledger table to the new schema",
                Status.IN_PROGRESS if i % 3 else Status.PENDING,
                importance=(i % 7) / 7,
                at=i,
            )
            for i in range(2000)
        ),
        *(node(NodeType.FILE, f"src/module_{i}/handlers.py", at=i) for i in range(500)),
        *(node(D, f"decision {i} über Straße 数据库 🙂", at=i) for i in range(300)),
    )
    for encoding in ("cl100k_base", "o200k_base"):
        for tier, r in render_tiers(g, encoding).items():
            assert r.tokens == len(tokens.get_encoding(encoding).encode_ordinary(r.text))
            assert r.tokens <= TIER_BUDGETS[tier] == r.budget
            assert r.omitted > 0
            assert r.tokens > TIER_BUDGETS[tier] * 0.8  # the budget is used, not wasted


def test_a_huge_label_is_shortened_at_a_word_boundary():
    label = " ".join(f"word{i}" for i in range(3000))
    r = render(graph_of(node(NodeType.GOAL, label)), "critical")
    line = r.text.splitlines()[2]
    assert line.endswith(" …") and r.tokens <= 100
    kept = line[2:-2]
    assert label.startswith(kept) and label[len(kept)] == " "


def test_a_label_that_cannot_be_cut_at_a_word_is_left_out_not_mangled():
    r = render(
        graph_of(node(NodeType.GOAL, "x" * 5000), node(T, "a small task", Status.IN_PROGRESS))
    )
    assert "xxxx" not in r.text and "a small task" in r.text


def test_an_empty_graph_renders_only_the_header():
    r = render(Graph(), "standard")
    assert r.text == HEADER and r.tokens == tokens.count(HEADER)
    assert r.in_force == () and r.contested == ()


def test_an_unknown_tier_is_refused():
    with pytest.raises(ValueError):
        render(Graph(), "huge")


def test_a_model_name_selects_its_encoding():
    g = graph_of(node(NodeType.GOAL, "Добрый день, переезжаем на SQLite"))
    assert render(g, encoding="gpt-4o") == render(g, encoding="o200k_base")


def transition(old, new, to_status, reason="", trigger=1, from_status=Status.COMPLETED):
    return Transition(old, new, from_status, to_status, trigger, reason=reason)


def test_a_person_resolving_a_pair_later_wins_over_an_earlier_supersession():
    g = graph_of(
        node(D, "Redis", Status.SUPERSEDED),
        node(D, "Memcached"),
        transitions=[
            transition("Redis", "Memcached", Status.CONTESTED, "both named", 4),
            transition("Redis", "Memcached", Status.SUPERSEDED, "the team chose", -1),
            transition(
                "Memcached", "Redis", Status.COMPLETED, "simpler to run", -1, Status.CONTESTED
            ),
        ],
    )
    assert "- Memcached (chosen over Redis because simpler to run)" in render(g).text


def test_a_pair_kept_both_says_so():
    g = graph_of(
        node(D, "S3 for uploads"),
        node(D, "local disk for dev"),
        transitions=[
            transition("S3 for uploads", "local disk for dev", Status.COMPLETED, "both kept"),
            transition("local disk for dev", "S3 for uploads", Status.COMPLETED, "both kept"),
        ],
    )
    text = render(g).text
    assert "- S3 for uploads (kept alongside local disk for dev)" in text
    assert "- local disk for dev (kept alongside S3 for uploads)" in text


def test_a_revived_decision_says_it_was_adopted_again():
    g = graph_of(
        node(D, "Flask"),
        transitions=[transition("Flask", "", Status.COMPLETED, "because FastAPI was overkill")],
    )
    assert "- Flask (adopted again because FastAPI was overkill)" in render(g).text


def test_an_inferred_reason_is_not_presented_as_a_stated_one():
    g = graph_of(
        node(D, "Redis", Status.SUPERSEDED),
        node(D, "Memcached"),
        transitions=[
            transition("Redis", "Memcached", Status.SUPERSEDED, "inferred: a later decision (x)"),
        ],
    )
    assert "- Memcached (switched from Redis)\n" in render(g).text + "\n"


def test_an_invalidation_reason_comes_from_its_transition():
    g = graph_of(
        node(D, "MongoDB", Status.INVALIDATED, retired_at=9.0),
        transitions=[transition("MongoDB", "", Status.INVALIDATED, "no transactions", 5)],
    )
    assert "Do not re-adopt (invalidated):\n- MongoDB (wrong: no transactions)" in render(g).text


def test_a_version_refined_later_is_shown_once():
    turns = [
        Turn(
            0, "user", "The worker runs Python 3.12 and Node 20; the old box has Python 3.1.", 0.0
        ),
        Turn(1, "assistant", "Checked the image: it is Python 3.12.3 exactly.", 60.0),
    ]
    text = render(build_graph(turns), "standard").text + "\n"
    assert "- Python 3.12.3" in text and "- Python 3.12\n" not in text
    assert "- Node 20" in text and "- Python 3.1\n" in text  # another version, not a shorter one


def test_links_are_shown_while_one_end_is_open_not_between_two_finished_things():
    fix = node(T, "pin the websocket library to 8.x")
    gone = node(NodeType.ERROR, "the socket drops every minute")
    open_error = node(NodeType.ERROR, "the export times out", Status.FAILED)
    blocker = node(T, "raise the export timeout", Status.PENDING)
    g = graph_of(
        fix,
        gone,
        open_error,
        blocker,
        edges=[(fix, gone, EdgeType.FIXES), (blocker, open_error, EdgeType.FIXES)],
    )
    text = render(g, "full").text
    assert "raise the export timeout fixes the export times out" in text
    assert "pin the websocket library to 8.x fixes" not in text
