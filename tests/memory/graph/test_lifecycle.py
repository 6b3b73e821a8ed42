"""Merging re-mentions, monotonic status, error fixes, tombstones and people's explicit actions."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.graph import lifecycle
from memory.graph.types import EdgeType, NodeType, Status
from tests.memory.graph.lifecycle_helpers import T0, Session, candidate, decision, turn


def task(label: str, status: Status = Status.PENDING, **extra):
    return candidate(NodeType.TASK, label, 0, status, **extra)


def error(label: str, status: Status = Status.FAILED, **extra):
    return candidate(NodeType.ERROR, label, 0, status, **extra)


def test_a_re_mention_merges_into_one_node_and_reinforces_it():
    s = Session()
    s.say("TODO: add rate limiting.", task("add rate limiting"))
    first = s.node(NodeType.TASK, "add rate limiting")
    weight = first.importance
    s.say("Still need to add rate limiting!", task("Add rate limiting!"))
    assert len(s.graph.nodes) == 1
    assert first.mentions == 2 and first.importance > weight
    assert first.last_seen_at == T0 + 60


def test_confidence_is_the_highest_seen():
    s = Session()
    s.say("maybe add caching", task("add caching"))
    sure = task("add caching")
    sure.confidence = 0.95
    s.say("add caching for real", sure)
    assert s.node(NodeType.TASK, "add caching").confidence == 0.95


@pytest.mark.parametrize(
    "sequence, final",
    [
        ((Status.PENDING, Status.IN_PROGRESS, Status.COMPLETED), Status.COMPLETED),
        ((Status.COMPLETED, Status.PENDING), Status.COMPLETED),
        ((Status.IN_PROGRESS, Status.PENDING), Status.IN_PROGRESS),
        ((Status.COMPLETED, Status.IN_PROGRESS, Status.PENDING), Status.COMPLETED),
    ],
)
def test_progress_never_moves_backwards_on_re_mention(sequence, final):
    s = Session()
    for status in sequence:
        s.say("the migration script", task("write the migration script", status))
    assert s.node(NodeType.TASK, "write the migration script").status == final


def test_a_failed_error_is_resolved_by_a_fix_naming_it():
    s = Session()
    s.say("Error: KeyError in recall_at_k", error("KeyError in recall_at_k"))
    s.say(
        "Fixed the KeyError by mapping unknown items to a sentinel.",
        task("map unknown items to a sentinel", Status.COMPLETED, fixes="the KeyError"),
    )
    err = s.node(NodeType.ERROR, "KeyError in recall_at_k")
    fix = s.node(NodeType.TASK, "map unknown items to a sentinel")
    assert err.status == Status.COMPLETED
    assert (fix.key, err.key, EdgeType.FIXES) in s.graph.edges


def test_an_error_re_extracted_as_completed_is_resolved():
    s = Session()
    s.say("Build fails: cannot save field tags", error("cannot save field tags"))
    s.say("Fixed: cannot save field tags", error("cannot save field tags", Status.COMPLETED))
    assert s.node(NodeType.ERROR, "cannot save field tags").status == Status.COMPLETED


def test_a_fixed_error_mentioned_again_stays_fixed():
    s = Session()
    s.say("Error: port collision", error("port collision"))
    s.say("Fixed: port collision", error("port collision", Status.COMPLETED))
    s.say("remember the port collision?", error("port collision"))
    assert s.node(NodeType.ERROR, "port collision").status == Status.COMPLETED


def test_a_pending_task_completed_under_a_longer_label_completes_the_same_node():
    s = Session()
    s.say("TODO: rate limiting on the login endpoint.", task("rate limiting on the login endpoint"))
    s.say(
        "Done: rate limiting on the login endpoint using slowapi.",
        task("rate limiting on the login endpoint using slowapi", Status.COMPLETED),
    )
    [node] = s.graph.of_type(NodeType.TASK)
    assert node.status == Status.COMPLETED and node.mentions == 2


def test_a_task_done_under_a_longer_label_is_the_same_task():
    s = Session()
    s.say("TODO: rate limiting.", task("rate limiting"))
    s.say(
        "Shipped rate limiting using slowapi.",
        task("rate limiting using slowapi", Status.COMPLETED),
    )
    s.say("TODO: offline banner when refresh fails.", task("offline banner when refresh fails"))
    s.say("Completed: offline banner.", task("offline banner done", Status.COMPLETED))
    assert sorted((n.label, n.status) for n in s.graph.of_type(NodeType.TASK)) == [
        ("offline banner when refresh fails", Status.COMPLETED),
        ("rate limiting", Status.COMPLETED),
    ]


def test_near_duplicates_with_different_values_stay_apart():
    s = Session()
    s.say("codes stay at 6 characters", decision("codes stay at 6 characters", 0))
    s.say("codes stay at 8 characters?", task("codes stay at 8 characters"))
    s.say("shorter labels", task("dedupe on order_id"))
    s.say("longer", task("dedupe on order_id plus line_number"))
    assert len(s.graph.nodes) == 3  # the two dedupe tasks merge; 6 and 8 characters do not


def test_an_invalidated_decision_is_not_revived_by_re_extraction():
    s = Session()
    s.say("Decided: store sessions in Redis.", decision("store sessions in Redis", 0))
    key = s.decision("store sessions in Redis").key
    lifecycle.invalidate(s.graph, key, "sessions must survive restarts", "alice", s.now)
    s.say("Decided: store sessions in Redis.", decision("store sessions in Redis", 0))
    s.say("store sessions in Redis again", decision("Store sessions in Redis", 0))
    node = s.graph.nodes[key]
    assert node.status == Status.INVALIDATED and node.mentions == 1


def test_invalidating_records_who_and_why():
    s = Session()
    s.say("Decided: use MD5 for passwords.", decision("use MD5 for passwords", 0))
    node = s.decision("use MD5 for passwords")
    t = lifecycle.invalidate(s.graph, node.key, "MD5 is broken", "alice", s.now, trigger=0)
    assert (t.old_label, t.new_label, t.actor, t.reason) == (
        "use MD5 for passwords",
        "",
        "alice",
        "MD5 is broken",
    )
    assert (t.from_status, t.to_status, t.trigger) == (Status.COMPLETED, Status.INVALIDATED, 0)
    assert node.retired_at == s.now and node not in s.graph.live()


def test_invalidating_needs_a_reason_and_an_existing_node():
    s = Session()
    s.say("Decided: tabs.", decision("tabs over spaces", 0))
    with pytest.raises(ValueError):
        lifecycle.invalidate(s.graph, s.decision("tabs over spaces").key, "", "alice", s.now)
    with pytest.raises(KeyError):
        lifecycle.invalidate(s.graph, (NodeType.DECISION, "nope"), "why", "alice", s.now)


def test_invalidating_one_side_of_a_contested_pair_puts_the_other_in_force():
    s = Session()
    s.say(
        "We keep PostgreSQL for primary user data.", decision("PostgreSQL for primary user data", 0)
    )
    s.say("Use SQLite for the offline cache.", decision("SQLite for the offline cache", 0))
    pg, lite = (
        s.decision("PostgreSQL for primary user data"),
        s.decision("SQLite for the offline cache"),
    )
    assert lite.status == Status.CONTESTED
    lifecycle.invalidate(s.graph, lite.key, "no offline mode after all", "bob", s.now)
    assert (pg.status, lite.status) == (Status.COMPLETED, Status.INVALIDATED)
    assert s.graph.transitions[-1].actor == "bob"


def test_resolving_a_pair_that_is_not_contested_is_refused():
    s = Session()
    s.say("Decided: tabs.", decision("tabs over spaces", 0))
    s.say("Decided: 100 columns.", decision("lines of 100 columns", 0))
    a, b = s.decision("tabs over spaces"), s.decision("lines of 100 columns")
    with pytest.raises(ValueError):
        lifecycle.resolve_contested(s.graph, a.key, b.key, "keep_both", "", "alice", s.now)


def test_going_back_to_a_superseded_decision_brings_it_back_in_force():
    s = Session()
    s.say(
        "Decided: python:3.12-slim as the base image.", decision("python:3.12-slim base image", 0)
    )
    s.say(
        "We'll switch to python:3.12-alpine base image.",
        decision("switch to python:3.12-alpine base image", 0),
    )
    slim = s.decision("python:3.12-slim base image")
    assert slim.status == Status.SUPERSEDED
    s.say(
        "OK, going back to python:3.12-slim base image, musl compiles every wheel.",
        decision("python:3.12-slim base image", 0),
    )
    alpine = s.decision("switch to python:3.12-alpine base image")
    assert (slim.status, alpine.status) == (Status.COMPLETED, Status.SUPERSEDED)
    assert slim.retired_at is None and slim.valid_until is None


def test_a_superseded_decision_merely_mentioned_stays_superseded():
    s = Session()
    s.say("Decided: Flask for the web framework.", decision("Flask for the web framework", 0))
    s.say("Decided: FastAPI for the web framework.", decision("FastAPI for the web framework", 0))
    s.say("Flask for the web framework was fine too.", decision("Flask for the web framework", 0))
    assert s.decision("Flask for the web framework").status == Status.SUPERSEDED


def test_apply_reports_what_it_did():
    s = Session()
    s.turns[0] = turn(0, "TODO: docs")
    changes = lifecycle.apply(s.graph, [task("docs")], s.turns, s.now)
    assert [c.kind for c in changes] == ["created"]
    changes = lifecycle.apply(s.graph, [task("docs", Status.COMPLETED)], s.turns, s.now)
    assert [c.kind for c in changes] == ["advanced"]


_PROGRESS = st.sampled_from([Status.PENDING, Status.IN_PROGRESS, Status.COMPLETED])


@given(st.lists(_PROGRESS, min_size=1, max_size=8))
def test_any_sequence_of_mentions_only_ever_moves_forward(statuses):
    s = Session()
    for status in statuses:
        s.say("the export job", task("the export job", status))
    order = [Status.PENDING, Status.IN_PROGRESS, Status.COMPLETED]
    node = s.node(NodeType.TASK, "the export job")
    assert node.status == max(statuses, key=order.index)
    ranks = [order.index(Status(entry[3])) for entry in node.history]
    assert ranks == sorted(set(ranks))  # each recorded change is a step forward


def test_the_real_pipeline_supersedes_a_reversed_decision_and_keeps_the_reason():
    from memory.graph import pipeline

    said = [
        "Decided: MySQL for the main database.",
        "OK.",
        "Decided: use PostgreSQL instead of MySQL because we need JSONB.",
        "Done.",
    ]
    roles = ["user", "assistant"] * 2
    g = pipeline.build_graph([turn(i, text, roles[i]) for i, text in enumerate(said)], now=T0 + 1)
    decisions = g.of_type(NodeType.DECISION)
    assert {n.status for n in decisions if "MySQL" in n.label and "PostgreSQL" not in n.label} == {
        Status.SUPERSEDED
    }
    assert {n.status for n in decisions if "PostgreSQL" in n.label} == {Status.COMPLETED}
    [t] = [t for t in g.transitions if t.to_status == Status.SUPERSEDED]
    assert "JSONB" in t.reason and t.trigger == 2


def test_the_lifecycle_modules_import_no_django():
    import subprocess
    import sys

    modules = "lifecycle contradictions importance timetravel words technologies"
    code = (
        "import sys\n"
        + "".join(f"import memory.graph.{m}\n" for m in modules.split())
        + "print(any(name.split('.')[0] == 'django' for name in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def environment(label: str):
    return candidate(NodeType.ENVIRONMENT, label, 0)


def test_a_refined_version_replaces_the_rougher_one_in_the_graph():
    s = Session()
    s.say("We're on Python 3.12 and Node 20.", environment("Python 3.12"), environment("Node 20"))
    s.say("Exactly: Python 3.12.3.", environment("Python 3.12.3"))
    rough, precise = (
        s.node(NodeType.ENVIRONMENT, "Python 3.12"),
        s.node(NodeType.ENVIRONMENT, "Python 3.12.3"),
    )
    assert rough.status == Status.SUPERSEDED and rough.valid_until == 1
    assert precise.status == Status.COMPLETED
    assert (precise.key, rough.key, EdgeType.SUPERSEDES) in s.graph.edges
    assert s.node(NodeType.ENVIRONMENT, "Node 20").status == Status.COMPLETED


def test_the_rough_version_said_after_the_precise_one_reinforces_it():
    s = Session()
    s.say("Running Python 3.12.3.", environment("Python 3.12.3"))
    s.say(
        "Python 3.12 everywhere, and Python 3.1 on the old box.",
        environment("Python 3.12"),
        environment("Python 3.1"),
    )
    live = {n.label for n in s.graph.nodes.values() if n.status == Status.COMPLETED}
    assert live == {"Python 3.12.3", "Python 3.1"}  # 3.1 is another version, not a rougher one
    assert s.node(NodeType.ENVIRONMENT, "Python 3.12.3").mentions == 2
