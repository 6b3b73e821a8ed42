"""Project memory: full-text search over a project's nodes and the standing knowledge a new
session starts with. Runs on both profiles: SQLite FTS5 and PostgreSQL full-text search."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.models import F

from memory import decisions, graphs, recall
from memory.graph import standing, tokens
from memory.graph.types import NodeType, Status
from memory.models import Node, Session
from memory.projects import create_project
from memory.transcripts import record_messages

FIRST = [
    {"role": "user", "content": "We are building the billing service. Decided: store invoices in "
     "PostgreSQL 16 because we need transactional integrity."},
    {"role": "assistant", "content": "Decided: cache exchange rates in Redis. The CI runs on Python 3.12."},
    {"role": "user", "content": "Switched from Redis to Memcached because Redis was too heavy for "
     "the pods: we now cache exchange rates in Memcached."},
    {"role": "assistant", "content": "Decided: send invoice emails through Postmark."},
]  # fmt: skip
# A later session's word on FIRST's cache: Memcached superseded.
LATER = [
    {"role": "user", "content": "Decided: cache exchange rates in Memcached."},
    {"role": "user", "content": "Switched from Memcached to Valkey because Memcached lost "
     "keys on restart: we now cache exchange rates in Valkey."},
]  # fmt: skip
CONTESTED = [
    {"role": "user", "content": "Decided: PostgreSQL for primary user data."},
    {"role": "assistant", "content": "OK."},
    {"role": "user", "content": "Decided: SQLite for the local offline cache."},
    {"role": "assistant", "content": "Noted."},
]
NASTY = ['"', "'", "*", "a*", "NEAR(a b)", "AND", "OR NOT", "label:redis", "^redis", "-redis",
         "(", ")", '"unterminated', "redis AND", "{label reason}:x", "\\", "%", "_", "😀", " ",
         "ünïcödé ß", "x" * 5000, "NOT NOT NOT", "redis\x00cache", "<->", "!", "&|"]  # fmt: skip


def new_session(project, user, external_id: str, messages: list[dict]) -> Session:
    session = Session.objects.create(project=project, user=user, external_id=external_id)
    record_messages(session, messages)
    graphs.extract_session(session.pk)
    return session


@pytest.fixture
def billing(project, alice):
    return new_session(project, alice, "billing-1", FIRST)


def labels(nodes) -> list[str]:
    return [n.label for n in nodes]


def test_search_ranks_the_projects_nodes_by_relevance(billing, project):
    found = recall.search(project, "which cache for exchange rates? memcached")
    assert found[0].label == "cache exchange rates in Memcached"
    assert "cache exchange rates in Redis" in labels(found)
    assert found[0].session == billing and found[0].rank > found[-1].rank
    assert all(n.session.project_id == project.pk for n in found)


def test_search_reads_reasons_and_evidence_quotes_too(billing, project):
    by_reason = recall.search(project, "transactional integrity")
    assert labels(by_reason)[0] == "store invoices in PostgreSQL 16"
    by_quote = recall.search(project, "too heavy for the pods")
    assert "cache exchange rates in Memcached" in labels(by_quote)


def test_search_stems_words(billing, project):
    assert "cache exchange rates in Memcached" in labels(recall.search(project, "caching"))


def test_search_respects_the_limit_and_the_project(billing, project, alice):
    other = create_project("Another team", alice)
    new_session(other, alice, "other-1", FIRST)
    found = recall.search(project, "invoices cache exchange rates redis memcached postmark", 2)
    assert len(found) == 2
    assert {n.session.project_id for n in recall.search(other, "memcached")} == {other.pk}
    assert recall.search(project, "kubernetes helm charts") == []


@pytest.mark.parametrize("query", NASTY)
def test_any_user_text_is_a_valid_query(billing, project, query):
    found = recall.search(project, query)
    assert isinstance(found, list)


def test_a_query_with_syntax_around_real_words_still_finds_them(billing, project):
    found = recall.search(project, 'memcached" OR label:* NEAR( -postmark ^')
    assert {"cache exchange rates in Memcached", "send invoice emails through Postmark"} <= set(
        labels(found)
    )


def test_the_index_follows_renames_and_deletions(billing, project):
    node = billing.nodes.get(label="send invoice emails through Postmark")
    graph, rows = graphs.load_with_rows(billing)
    key = (NodeType.DECISION, node.key)
    graph.nodes[key].reason = "because Sendgrid throttled our bulk sends"
    graphs.save_graph(billing, graph, rows)
    assert labels(recall.search(project, "sendgrid throttled")) == [node.label]
    Node.objects.filter(pk=node.pk).delete()
    assert recall.search(project, "sendgrid postmark") == []


def test_the_full_text_index_exists_on_this_database(billing):
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE name LIKE 'memory_node_fts%'")
            names = {row[0] for row in cursor.fetchall()}
            assert {"memory_node_fts", "memory_node_fts_insert", "memory_node_fts_update",
                    "memory_node_fts_delete"} <= names  # fmt: skip
        else:
            cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'node_search'")
            assert "gin" in cursor.fetchone()[0].lower()
            cursor.execute("SET enable_seqscan = off")
            sql, params = recall._postgres_search(["redis"])
            cursor.execute("EXPLAIN " + sql, params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "node_search" in plan


# ---- standing knowledge ------------------------------------------------------------------------


def test_standing_knowledge_holds_decisions_in_force_not_superseded_ones(billing, project):
    text = recall.standing_knowledge(project, "Let's add refunds to billing.", 400)
    assert text.startswith(standing.HEADER)
    assert "- cache exchange rates in Memcached" in text
    line = next(x for x in text.splitlines() if "store invoices in PostgreSQL 16" in x)
    assert "(because" in line and "transactional integrity" in line  # with its reason
    assert "cache exchange rates in Redis" not in text
    assert "Python 3.12" in text  # an environment fact
    assert "billing service" in text  # the goal


def test_a_likely_decision_is_not_told_to_a_new_session(billing, project):
    node = billing.nodes.get(label="send invoice emails through Postmark")
    assert "Postmark" in recall.standing_knowledge(project, "emails for invoices", 400)
    node.extra = {**node.extra, "learned": True}
    node.save(update_fields=["extra"])
    Session.objects.filter(pk=billing.pk).update(graph_version=F("graph_version") + 1)
    assert "Postmark" not in recall.standing_knowledge(project, "emails for invoices", 400)


def test_an_invalidated_decision_appears_only_as_a_warning(billing, project, alice):
    node = billing.nodes.get(label="send invoice emails through Postmark")
    decisions.invalidate(node, "Postmark is not approved by legal", alice)
    text = recall.standing_knowledge(project, "emails for invoices", 400)
    in_force, _, warnings = text.partition(standing.SECTIONS["invalidated"])
    assert "Postmark" not in in_force
    assert "- send invoice emails through Postmark (wrong: Postmark is not approved by legal)" in (
        warnings
    )


def test_a_later_session_has_the_last_word_on_a_decision(billing, project, alice):
    new_session(project, alice, "billing-2", LATER)
    text = recall.standing_knowledge(project, "caching exchange rates", 400)
    assert "- cache exchange rates in Valkey" in text
    assert "in Memcached" not in text.replace("switched from", "")


def test_contested_pairs_show_both_sides(project, alice):
    new_session(project, alice, "notes-1", CONTESTED)
    text = recall.standing_knowledge(project, "where does user data live", 400)
    contested = text.partition(standing.SECTIONS["contested"])[2]
    assert "PostgreSQL for primary user data vs SQLite for the local offline cache" in contested
    decisions_part = text.partition(standing.SECTIONS["decision"])[2].partition(
        standing.SECTIONS["contested"]
    )[0]
    assert "SQLite for the local offline cache" not in decisions_part


def test_the_same_decision_in_two_sessions_is_said_once(billing, project, alice):
    new_session(project, alice, "billing-2", FIRST[:1])
    text = recall.standing_knowledge(project, "invoices", 400)
    assert text.count("store invoices in PostgreSQL 16") == 1


def test_the_new_session_itself_is_left_out(billing, project):
    assert recall.standing_knowledge(project, "cache", 400, exclude_session=billing) == ""


@pytest.mark.parametrize("budget", [0, 5, 20, 45, 80, 400])
def test_standing_knowledge_stays_within_its_budget_in_real_tokens(billing, project, budget):
    text = recall.standing_knowledge(project, "cache exchange rates", budget)
    assert tokens.count(text) <= budget
    assert (text == "") == (budget < 30)


def test_a_tight_budget_keeps_what_is_relevant_to_the_new_session(billing, project):
    text = recall.standing_knowledge(project, "What do we send invoice emails with?", 50)
    assert "Postmark" in text and "Memcached" not in text
    other = recall.standing_knowledge(project, "Are exchange rates cached?", 50)
    assert "Memcached" in other and "Postmark" not in other


def test_standing_knowledge_is_deterministic(billing, project):
    texts = {recall.standing_knowledge(project, "cache invoices emails", 120) for _ in range(3)}
    assert len(texts) == 1


def test_another_projects_knowledge_never_leaks(billing, alice):
    other = create_project("Another team", alice)
    assert recall.standing_knowledge(other, "cache exchange rates invoices", 400) == ""


def obs(label, relevance=0.0, importance=1.0, node=1) -> standing.Observation:
    return standing.Observation(
        NodeType.DECISION, label, Status.COMPLETED, importance, 1.0, relevance, node=node
    )


def test_rendering_says_each_label_once_most_relevant_first():
    facts = standing.facts([
        obs("Use Redis", importance=5.0, node=1), obs("use redis.", relevance=2.0, node=2),
        obs("Use Kafka", relevance=1.0, node=3), obs("Use gRPC", importance=3.0, node=4),
    ])  # fmt: skip
    lines = standing.render(facts, 400).splitlines()[1:]
    assert lines == ["Decisions in force:", "- use redis.", "- Use Kafka", "- Use gRPC"]


def test_under_a_tight_budget_relevance_beats_importance():
    facts = standing.facts(
        [obs("Use Kafka", relevance=1.0, node=1), obs("Use gRPC", importance=9.0, node=2)]
    )
    one_line = tokens.count(f"{standing.HEADER}\nDecisions in force:\n- Use gRPC") + 2
    tight = standing.render(facts, one_line)
    assert "Use Kafka" in tight and "Use gRPC" not in tight
    assert "Use gRPC" in standing.render(facts, one_line + 10)


def test_sessions_opened_together_read_the_project_once(
    billing, project, django_assert_num_queries
):
    first = recall.standing_knowledge(project, "qwxz", 400)
    with django_assert_num_queries(2):  # the graphs' state and the full-text ranking; no node read
        assert recall.standing_knowledge(project, "qwxz", 400) == first


def test_what_a_session_settles_reaches_the_next_new_session(billing, project, alice):
    recall.standing_knowledge(project, "qwxz", 400)  # matches nothing: importance alone chooses
    Node.objects.filter(session__project=project).update(importance=0.1)
    talk = [{"role": "user", "content": "Decided: archive paid invoices to Glacier after a year."}]
    new_session(project, alice, "billing-3", talk)
    assert "archive paid invoices to Glacier after a year" in recall.standing_knowledge(
        project, "qwxz", 400
    )


def test_a_refresh_reads_the_project_ahead_of_the_next_new_session(
    billing, project, alice, django_assert_num_queries
):
    recall.refresh_standing(project)  # nothing read here yet: nothing to refresh
    recall.standing_knowledge(project, "qwxz", 400)
    talk = [{"role": "user", "content": "Decided: archive paid invoices to Glacier."}]
    new_session(project, alice, "billing-3", talk)
    recall.refresh_standing(project)
    with django_assert_num_queries(2):  # the graphs' state and the ranking: nothing left to read
        assert "archive paid invoices to Glacier" in recall.standing_knowledge(project, "qwxz", 400)
    with django_assert_num_queries(1):  # the graphs have not moved: only their state is read
        recall.refresh_standing(project)


# A worker may read an earlier session after a later one (a lagging, retried or re-run job): what
# the project said last is decided by when it was said, not by when a job happened to read it.
SAID_AT = 1_800_000_000.0  # the earlier session's messages; the later one's an hour after
AIRFLOW = [{"role": "user", "content": "Decided: schedule the pipeline with Airflow at 02:00 UTC."}]
DAGSTER = [
    {"role": "user", "content": "We're going with Dagster instead of Airflow, since nobody "
     "wants to babysit the scheduler."},
]  # fmt: skip


def said_then_read_backwards(project, user, earlier: list[dict], later: list[dict]) -> None:
    """Two sessions said an hour apart, the later one's graph built first, the earlier's after."""
    sessions = []
    for n, (talk, offset) in enumerate([(earlier, 0), (later, 3600)], 1):
        session = Session.objects.create(project=project, user=user, external_id=f"late-read-{n}")
        record_messages(session, talk)
        at = datetime.fromtimestamp(SAID_AT + offset, UTC)
        session.messages.update(created_at=at)
        sessions.append(session)
    graphs.extract_session(sessions[1].pk, now=SAID_AT + 7200)
    graphs.extract_session(sessions[0].pk, now=SAID_AT + 7300)


def test_a_replacement_retires_an_earlier_sessions_decision_read_after_it(project, alice):
    said_then_read_backwards(project, alice, AIRFLOW, DAGSTER)
    text = recall.standing_knowledge(project, "when does the pipeline refresh", 400)
    assert "going with Dagster instead of Airflow" in text
    assert "with Airflow at 02:00 UTC" not in text


def test_a_later_sessions_word_on_a_decision_holds_when_read_before_the_earlier(project, alice):
    said_then_read_backwards(project, alice, FIRST, LATER)
    text = recall.standing_knowledge(project, "caching exchange rates", 400)
    assert "- cache exchange rates in Valkey" in text
    assert "in Memcached" not in text.replace("switched from", "")
