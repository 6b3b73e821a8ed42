"""Supersede, contested or complementary: each pair is told apart in whichever order it is said."""

import re

import pytest

from memory.graph import importance, lifecycle
from memory.graph.pipeline import build_graph
from memory.graph.types import EXTRACTOR, EdgeType, NodeType, Status, Turn
from tests.memory.graph.lifecycle_helpers import Session, decision

# (first message, its decision, later message, its decision, the later decision's `replaces`)
SUPERSEDED = {
    "switch cue with a stated reason": (
        "We'll use MySQL for the main database.",
        "MySQL for the main database",
        "Scratch that, we're switching to PostgreSQL for the main database because we need JSONB.",
        "PostgreSQL for the main database",
        "",
        ("MySQL", "PostgreSQL"),
    ),
    "bare technology swap": (
        "Decided: Flask for the web framework.",
        "Flask for the web framework",
        "Decided: FastAPI for the web framework.",
        "FastAPI for the web framework",
        "",
        ("Flask", "FastAPI"),
    ),
    "rival technologies with no shared words": (
        "I'll use Flask here.",
        "use Flask",
        "Going with FastAPI.",
        "going with FastAPI",
        "",
        ("Flask", "FastAPI"),
    ),
    "the extractor names the replaced option": (
        "Decided: AsyncStorage for offline drafts.",
        "AsyncStorage for offline drafts",
        "Decided: use MMKV for drafts instead of AsyncStorage, because of the size cap.",
        "use MMKV for drafts instead of AsyncStorage",
        "AsyncStorage",
        ("AsyncStorage", "MMKV"),
    ),
    "a moved date": (
        "The launch date is June 3.",
        "launch date is June 3",
        "We're moving launch to June 17 so the pilots can roll out with SSO.",
        "moving launch to June 17",
        "",
        ("3", "17"),
    ),
    "same kind of value, different value": (
        "Decided: HTTP-01 solver via ingress-nginx.",
        "HTTP-01 solver via ingress-nginx",
        "OK, we're switching to DNS-01: wildcards need DNS-01 anyway.",
        "switching to DNS-01",
        "",
        ("HTTP-01", "DNS-01"),
    ),
    "a new value for the same setting": (
        "Decided: batch size 32 with lr 3e-4.",
        "batch size 32 with lr 3e-4",
        "Decided: batch size 16 with gradient accumulation 2.",
        "batch size 16 with gradient accumulation 2",
        "",
        ("32", "16"),
    ),
    "a negated choice reversed": (
        "Plan was no schema in the prompt, to keep it short.",
        "no schema in the prompt",
        "The made-up columns settle it, the prompt gets the schema after all.",
        "prompt gets the schema after all",
        "",
        (
            "Plan was to put the schema in the prompt.",
            "schema in the prompt",
            "Sequences are too long, so no schema in the prompt after all.",
            "no schema in the prompt after all",
            "",
        ),
    ),
    "a starting point moved on from": (
        "I started with a cron job polling the inbox every minute.",
        "started with a cron job polling the inbox",
        "The inbox now pushes webhooks to the worker; polling wasted a request a minute.",
        "inbox pushes webhooks to the worker",
        "",
        (
            "Right now the cache is flushed on every deploy.",
            "Right now the cache is flushed on every deploy",
            "The cache gets flushed only when the schema changes.",
            "cache gets flushed only when the schema changes",
            "",
        ),
    ),
    "one parameter set again among other words": (
        "Decided: training runs at resolution 1024 with 4 workers.",
        "training runs at resolution 1024 with 4 workers",
        "Decided: the served model runs at resolution 768.",
        "served model runs at resolution 768",
        "",
        ("1024", "768"),
    ),
    "a rival settled on with a closing 'then'": (
        "Hashing passwords with bcrypt for now.",
        "hashing passwords with bcrypt",
        "Memory-hard is the safer default. Argon2id then.",
        "Argon2id",
        "",
        ("bcrypt", "Argon2id"),
    ),
    "a figure revised by a verb": (
        "Decided: trial accounts stay open for 14 days.",
        "trial accounts stay open for 14 days",
        "Sales asked for more room, so we're extending the trial to 30 days.",
        "extending the trial to 30 days",
        "",
        (
            "Decided: the grant asks for $80,000.",
            "grant asks for $80,000",
            "Reviewers balk at $80,000 from first-timers, so we cut the request to $60k.",
            "cut the request to $60k",
            "",
        ),
    ),
    "a switch with nothing on its topic moves on from where things started": (
        "I started with a single shell script that does everything.",
        "started with a single shell script that does everything",
        "After two weeks of this I ended up going with Make targets per step.",
        "ended up going with Make targets per step",
        "",
        (
            "The plan is a big-bang rewrite over the summer.",
            "The plan is a big-bang rewrite over the summer",
            "We're switching to a strangler pattern, one endpoint at a time.",
            "switching to a strangler pattern, one endpoint at a time",
            "",
        ),
    ),
}

CONTESTED = {
    "two databases, two scopes, no replacement cue": (
        "We keep PostgreSQL for primary user data.",
        "PostgreSQL for primary user data",
        "We'll use SQLite for the local offline cache.",
        "SQLite for the local offline cache",
        ("PostgreSQL", "SQLite"),
    ),
    "two caches for one feed": (
        "Decided: Room for the feed cache, a Room DAO per screen.",
        "Room for the feed cache",
        "We're going with the OkHttp cache for feed responses.",
        "OkHttp cache for feed responses",
        ("Room", "OkHttp"),
    ),
    "a tentative lean, then another option liked": (
        "I'd lean toward an email checklist for that.",
        "lean toward an email checklist",
        "Design has a mock for an in-app checklist on the connect screen.",
        "in-app checklist on the connect screen",
        ("email", "in-app"),
    ),
    "one metric primary, another reported": (
        "Decided: Recall@20 is the primary offline metric.",
        "Recall@20 is the primary offline metric",
        "Leadership prefers it, so let's report NDCG@10 in the weekly review.",
        "report NDCG@10 in the weekly review",
        ("Recall@20", "NDCG@10"),
    ),
    "two autoscalers on the same workers": (
        "So I threw an HPA at them targeting 70% cpu.",
        "threw an HPA at them targeting 70% cpu",
        "I'll put keda on the workers at 500 messages per pod.",
        "keda on workers at 500 messages per pod",
        ("HPA", "keda"),
    ),
}

COMPLEMENTARY = {
    "a figure moved on another topic with the same unit": (
        "Decided: sessions expire after 30 minutes.",
        "sessions expire after 30 minutes",
        "The cache made it fast, we cut the build to 5 minutes.",
        "cut the build to 5 minutes",
    ),
    "a current state and another change on its topic": (
        "Right now the API returns JSON.",
        "Right now the API returns JSON",
        "Decided: the API gets rate limits per key.",
        "API gets rate limits per key",
    ),
    "source of truth and a cache": (
        "Postgres stays the source of truth for bookings.",
        "Postgres stays source of truth for bookings",
        "Redis is only the availability cache.",
        "Redis is only the availability cache",
    ),
    "prod and dev scopes": (
        "Decided: S3 for uploads in prod.",
        "S3 for uploads in prod",
        "Decided: FileSystemStorage for local dev and tests.",
        "FileSystemStorage for local dev and tests",
    ),
    "staging and prod sizes": (
        "Decided: single-AZ db.t4g.medium for staging.",
        "single-AZ db.t4g.medium for staging",
        "Decided: prod will be Multi-AZ.",
        "prod will be Multi-AZ",
    ),
    "a second thing kept alongside": (
        "Decided: dbt tests run on every PR in CI.",
        "dbt tests run on every PR in CI",
        "The nightly full build stays alongside it.",
        "nightly full build stays alongside it",
    ),
    "one technology under two spellings": (
        "Decided: PostgreSQL for orders.",
        "PostgreSQL for orders",
        "For tests we use a throwaway Postgres in Docker.",
        "a throwaway Postgres in Docker for tests",
    ),
    "a framework and another framework's feature": (
        "Decided: FastAPI for the API.",
        "FastAPI for the API",
        "Decided: Django admin for the back office.",
        "Django admin for the back office",
    ),
    "two settings of different things": (
        "Decided: access tokens expire after 8 hours.",
        "access tokens expire after 8 hours",
        "Decided: refresh tokens expire after 30 days.",
        "refresh tokens expire after 30 days",
    ),
    "different topics": (
        "Decided: access tokens expire after 8 hours.",
        "access tokens expire after 8 hours",
        "Decided: normalize currency to uppercase in the validator.",
        "normalize currency to uppercase in the validator",
    ),
}


def _said(
    first: str, first_label: str, later: str, later_label: str, replaces: str = ""
) -> Session:
    s = Session()
    s.say(first, decision(first_label, 0))
    s.say("Noted.", role="assistant")
    s.say(later, decision(later_label, 0, replaces=replaces))
    return s


def _direction(case: tuple, reverse: bool) -> tuple:
    """The pair as written, or the other way round: its options swapped, or an explicit mirror."""
    *pair, other = case
    if not reverse:
        return tuple(pair)
    if len(other) == 2:
        x, y = other
        pattern = re.compile(rf"(?<![\w@-])({re.escape(x)}|{re.escape(y)})(?![\w@-])")
        return tuple(pattern.sub(lambda m: y if m.group(1) == x else x, t) for t in pair)
    return tuple(other)


@pytest.mark.parametrize("case", sorted(SUPERSEDED))
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_a_later_decision_supersedes_the_earlier_in_either_order(case, reverse):
    first, first_label, later, later_label, replaces = _direction(SUPERSEDED[case], reverse)
    s = _said(first, first_label, later, later_label, replaces)
    old, new = s.decision(first_label), s.decision(later_label)
    assert (old.status, new.status) == (Status.SUPERSEDED, Status.COMPLETED)
    assert (new.key, old.key, EdgeType.SUPERSEDES) in s.graph.edges
    [t] = s.graph.transitions
    assert (t.old_label, t.new_label, t.trigger, t.actor) == (
        first_label,
        later_label,
        2,
        EXTRACTOR,
    )
    assert (t.from_status, t.to_status) == (Status.COMPLETED, Status.SUPERSEDED)
    assert t.reason and t.evidence
    assert old.valid_until == 2 and old.valid_until_at == s.turns[2].timestamp
    assert old.retired_at is not None


@pytest.mark.parametrize("case", sorted(CONTESTED))
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_an_ambiguous_pair_is_contested_in_either_order(case, reverse):
    first, first_label, later, later_label = _direction(CONTESTED[case], reverse)
    s = _said(first, first_label, later, later_label)
    a, b = s.decision(first_label), s.decision(later_label)
    assert (a.status, b.status) == (Status.CONTESTED, Status.CONTESTED)
    assert (b.key, a.key, EdgeType.CONFLICTS_WITH) in s.graph.edges
    assert {t.old_label for t in s.graph.transitions} == {first_label, later_label}
    assert all(t.to_status == Status.CONTESTED for t in s.graph.transitions)
    assert {a.key, b.key} <= {n.key for n in s.graph.live()}  # both stay visible


@pytest.mark.parametrize("case", sorted(COMPLEMENTARY))
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_complementary_decisions_both_stay_in_force(case, reverse):
    pair = COMPLEMENTARY[case]
    first, first_label, later, later_label = (
        (pair[2], pair[3], pair[0], pair[1]) if reverse else pair
    )
    s = _said(first, first_label, later, later_label)
    assert s.decision(first_label).status == Status.COMPLETED
    assert s.decision(later_label).status == Status.COMPLETED
    assert s.graph.transitions == []


def test_decisions_in_one_message_never_contradict_each_other():
    s = Session()
    s.say(
        "Decided: Postgres for the main database. Decided: MySQL for the main database replica.",
        decision("Postgres for the main database", 0),
        decision("MySQL for the main database replica", 0),
    )
    assert {n.status for n in s.graph.nodes.values()} == {Status.COMPLETED}


def test_a_message_that_keeps_the_old_technology_for_another_scope_contests_nothing():
    s = Session()
    s.say("For tests, Postgres in Docker.", decision("Postgres in Docker for tests", 0))
    s.say(
        "Decided: SQLite for the fast unit tests, Postgres for integration tests.",
        decision("SQLite for the fast unit tests", 0),
        decision("Postgres for integration tests", 0),
    )
    assert {n.status for n in s.graph.nodes.values()} == {Status.COMPLETED}


def test_saying_no_to_a_named_technology_supersedes_the_decision_to_use_it():
    s = Session()
    s.say("Decided: CloudKit for sync.", decision("CloudKit for sync", 0))
    s.say("Right, we're not doing CloudKit.", decision("not doing CloudKit", 0))
    assert s.decision("CloudKit for sync").status == Status.SUPERSEDED


def test_the_old_side_of_a_from_to_sentence_is_superseded_in_the_same_message():
    s = Session()
    s.say(
        "Switching from cenkalti/backoff to a hand-rolled retry loop.",
        decision("cenkalti/backoff", 0),
        decision("a hand-rolled retry loop", 0, replaces="cenkalti/backoff"),
    )
    assert s.decision("cenkalti/backoff").status == Status.SUPERSEDED
    assert s.decision("a hand-rolled retry loop").status == Status.COMPLETED


def test_a_from_to_sentence_also_supersedes_the_earlier_decision_it_names():
    s = Session()
    s.say(
        "Decided: HuggingFace transformers, using bert-base-uncased.",
        decision("HuggingFace transformers, using bert-base-uncased", 0),
    )
    s.say(
        "Switching from bert-base-uncased to distilbert-base-uncased.",
        decision("bert-base-uncased", 0),
        decision("distilbert-base-uncased", 0, replaces="bert-base-uncased"),
    )
    live = [n.label for n in s.graph.live() if n.type == NodeType.DECISION]
    assert live == ["distilbert-base-uncased"]


def test_a_proposed_switch_replaces_nothing_until_it_is_taken():
    s = Session()
    s.say("Decided: Flask for the web framework.", decision("Flask for the web framework", 0))
    proposal = decision("FastAPI for the web framework", 0)
    proposal.status = Status.PENDING
    s.say("Maybe we should switch to FastAPI for the web framework?", proposal)
    assert s.decision("Flask for the web framework").status == Status.COMPLETED
    s.say(
        "OK, switching to FastAPI for the web framework.",
        decision("FastAPI for the web framework", 0),
    )
    assert s.decision("Flask for the web framework").status == Status.SUPERSEDED
    assert s.graph.transitions[-1].trigger == 2  # the message that took it


def test_customers_switching_is_not_a_decision_being_replaced():
    s = Session()
    s.say("Decided: Pro monthly stays at $12.", decision("Pro monthly stays at $12", 0))
    s.say(
        "Assumption: 15% of monthly subscribers switch to annual in the first month.",
        decision("15% of monthly subscribers switch to annual", 0),
    )
    assert s.decision("Pro monthly stays at $12").status == Status.COMPLETED


def test_the_reason_comes_from_the_trigger_sentence_when_the_extractor_gave_none():
    s = _said(*SUPERSEDED["switch cue with a stated reason"][:-1])
    assert s.graph.transitions[0].reason == "we need JSONB"


def test_the_extractors_reason_wins_over_the_text():
    s = Session()
    s.say("Decided: Flask for the web framework.", decision("Flask for the web framework", 0))
    s.say(
        "Switching to FastAPI for the web framework.",
        decision("FastAPI for the web framework", 0, reason="async support"),
    )
    assert s.graph.transitions[0].reason == "async support"


def test_an_unstated_reason_is_marked_as_inferred():
    s = _said(*SUPERSEDED["bare technology swap"][:-1])
    assert "inferred" in s.graph.transitions[0].reason


def test_a_named_replacement_that_was_never_decided_supersedes_nothing():
    s = Session()
    s.say(
        "Decided: offset pagination for /invoices.", decision("offset pagination for /invoices", 0)
    )
    s.say(
        "Decided: use PyJWT instead of python-jose.",
        decision("use PyJWT instead of python-jose", 0, replaces="python-jose"),
    )
    assert s.decision("offset pagination for /invoices").status == Status.COMPLETED


def test_one_message_can_reverse_two_decisions_each_with_its_own_reason():
    s = Session()
    s.say(
        "Decided: HTTP-01 solver via ingress-nginx, one cert per tenant host.",
        decision("HTTP-01 solver via ingress-nginx", 0),
        decision("one cert per tenant host", 0),
    )
    s.say(
        "OK, we're switching to DNS-01 and a single wildcard for *.app.example.io: per-tenant certs"
        " would keep hitting the rate limit, and wildcards need DNS-01 anyway.",
        decision("switching to DNS-01", 0),
        decision("single wildcard for *.app.example.io", 0),
    )
    reasons = {t.old_label: (t.new_label, t.reason) for t in s.graph.transitions}
    assert reasons == {
        "HTTP-01 solver via ingress-nginx": ("switching to DNS-01", "wildcards need DNS-01 anyway"),
        "one cert per tenant host": (
            "single wildcard for *.app.example.io",
            "per-tenant certs would keep hitting the rate limit",
        ),
    }


@pytest.mark.parametrize("outcome", lifecycle.OUTCOMES)
def test_a_person_resolves_a_contested_pair(outcome):
    s = _said(*CONTESTED["two databases, two scopes, no replacement cue"][:-1])
    a = s.decision("PostgreSQL for primary user data")
    b = s.decision("SQLite for the local offline cache")
    before = len(s.graph.transitions)
    lifecycle.resolve_contested(
        s.graph, a.key, b.key, outcome, "offline needs sqlite", "alice", s.now
    )
    expected = {
        "keep_both": (Status.COMPLETED, Status.COMPLETED),
        "a_replaces_b": (Status.COMPLETED, Status.SUPERSEDED),
        "b_replaces_a": (Status.SUPERSEDED, Status.COMPLETED),
        "invalidate_a": (Status.INVALIDATED, Status.COMPLETED),
        "invalidate_b": (Status.COMPLETED, Status.INVALIDATED),
    }[outcome]
    assert (a.status, b.status) == expected
    made = s.graph.transitions[before:]
    assert made and all(t.actor == "alice" for t in made)
    assert not [e for e in s.graph.live_edges() if e.type == EdgeType.CONFLICTS_WITH]


def test_resolving_needs_a_reason_unless_both_are_kept():
    s = _said(*CONTESTED["two caches for one feed"][:-1])
    a, b = s.decision("Room for the feed cache"), s.decision("OkHttp cache for feed responses")
    with pytest.raises(ValueError):
        lifecycle.resolve_contested(s.graph, a.key, b.key, "a_replaces_b", " ", "alice", s.now)
    with pytest.raises(ValueError):
        lifecycle.resolve_contested(s.graph, a.key, b.key, "merge", "why", "alice", s.now)
    assert (a.status, b.status) == (Status.CONTESTED, Status.CONTESTED)


def test_a_contested_pair_is_not_resolved_by_re_mentioning_one_side():
    s = _said(*CONTESTED["two caches for one feed"][:-1])
    s.say("The Room for the feed cache works.", decision("Room for the feed cache", 0))
    assert s.decision("Room for the feed cache").status == Status.CONTESTED


def test_a_contested_pair_is_settled_when_the_text_says_one_replaced_the_other():
    s = _said(*CONTESTED["two caches for one feed"][:-1])
    s.say(
        "We're dropping Room, so the OkHttp cache for feed responses is it.",
        decision("OkHttp cache for feed responses", 0, replaces="Room"),
    )
    room, okhttp = (
        s.decision("Room for the feed cache"),
        s.decision("OkHttp cache for feed responses"),
    )
    assert (room.status, okhttp.status) == (Status.SUPERSEDED, Status.COMPLETED)
    assert not [e for e in s.graph.live_edges() if e.type == EdgeType.CONFLICTS_WITH]


def test_transitions_keep_their_labels_after_the_nodes_are_pruned():
    s = _said(*SUPERSEDED["bare technology swap"][:-1])
    s.say("Decided: weekly releases on Tuesday.", decision("weekly releases on Tuesday", 0))
    importance.prune(s.graph, cap=0, now=s.now + 10**9)
    assert (NodeType.DECISION, "flask for the web framework") not in s.graph.nodes
    [t] = s.graph.transitions
    assert (t.old_label, t.new_label) == (
        "Flask for the web framework",
        "FastAPI for the web framework",
    )


def test_two_people_preferring_different_options_in_an_unsettled_message_are_contested():
    s = Session()
    s.say(
        "We still disagree on the launch venue. Priya wants the rooftop bar downtown. "
        "Marco wants the old warehouse by the river.",
        decision("Priya wants the rooftop bar downtown", 0),
        decision("Marco wants the old warehouse by the river", 0),
    )
    a = s.decision("Priya wants the rooftop bar downtown")
    b = s.decision("Marco wants the old warehouse by the river")
    assert (a.status, b.status) == (Status.CONTESTED, Status.CONTESTED)
    assert (b.key, a.key, EdgeType.CONFLICTS_WITH) in s.graph.edges


def test_preferences_reported_without_saying_they_are_open_are_not_contested():
    s = Session()
    s.say(
        "Priya wants the rooftop bar downtown. Marco wants the slides in English.",
        decision("Priya wants the rooftop bar downtown", 0),
        decision("Marco wants the slides in English", 0),
    )
    assert {n.status for n in s.graph.nodes.values()} == {Status.COMPLETED}


def test_a_switch_sharing_one_word_with_the_rest_of_its_sentence_replaces_nothing():
    s = Session()
    s.say("Decided: nightly backups go to the NAS.", decision("nightly backups go to the NAS", 0))
    s.say(
        "The backups got a good review, and Tomas is moving the wiki to Confluence.",
        decision("Tomas is moving the wiki to Confluence", 0),
    )
    assert s.decision("nightly backups go to the NAS").status == Status.COMPLETED


def test_a_switch_revises_the_decision_said_to_hold_for_now_over_a_closer_match():
    s = Session()
    s.say(
        "Uploads go to local disk for now, and no S3 in the staging account.",
        decision("uploads go to local disk for now", 0),
        decision("no S3 in the staging account", 0),
    )
    s.say(
        "Decided: moving uploads to S3 in the prod account.",
        decision("moving uploads to S3 in the prod account", 0),
    )
    assert s.decision("uploads go to local disk for now").status == Status.SUPERSEDED
    assert s.decision("no S3 in the staging account").status == Status.COMPLETED


def test_a_switch_with_no_word_in_common_moves_on_from_the_choice_made_for_now():
    s = Session()
    s.say("Polylang free for now.", decision("polylang free for now", 0))
    s.say("The newsletter goes out monthly.", decision("the newsletter goes out monthly", 0))
    s.say("Switching to WPML.", decision("switching to WPML", 0))
    assert s.decision("polylang free for now").status == Status.SUPERSEDED
    assert s.decision("the newsletter goes out monthly").status == Status.COMPLETED


def test_a_trial_does_not_move_on_from_the_choice_made_for_now():
    s = Session()
    s.say(
        "Keep the fetching in onMount for now.", decision("keep the fetching in onMount for now", 0)
    )
    s.say(
        "Let's try moving the orders page to a load function.",
        decision("try moving the orders page to a load function", 0),
    )
    assert s.decision("keep the fetching in onMount for now").status == Status.COMPLETED


def test_taking_one_option_out_and_putting_another_in_replaces_it():
    graph = build_graph(
        [
            Turn(0, "user", "We'll go with Ceph on the NVMe disks."),
            Turn(1, "assistant", "Ceph needs a fast network between the nodes."),
            Turn(2, "user", "So I remove Ceph and make ZFS on each node."),
        ]
    )
    (transition,) = graph.transitions
    assert "Ceph" in transition.old_label
    assert transition.new_label.startswith("make ZFS on each node")


def test_a_message_leaving_open_whether_an_earlier_choice_stays_contests_the_two():
    s = Session()
    s.say(
        "We render the charts on the server with Matplotlib.",
        decision("render charts on the server with Matplotlib", 0),
    )
    s.say(
        "The dashboard now renders charts in the browser. Not sure yet whether we keep Matplotlib"
        " for the PDF export.",
        decision("dashboard renders charts in the browser", 0),
    )
    old = s.decision("render charts on the server with Matplotlib")
    new = s.decision("dashboard renders charts in the browser")
    assert (old.status, new.status) == (Status.CONTESTED, Status.CONTESTED)


def test_the_open_question_itself_contests_nothing():
    s = Session()
    s.say(
        "The plan is to shard the users table by region.",
        decision("shard the users table by region", 0),
    )
    s.say(
        "We haven't decided if the users table keeps the region column at all.",
        decision("haven't decided if the users table keeps the region column", 0),
    )
    assert s.decision("shard the users table by region").status == Status.COMPLETED


def test_a_replacement_named_inside_another_decision_of_the_sentence_is_not_this_ones():
    s = Session()
    s.say(
        "Fine, retries it is, flaky jobs get retried rather than failing the build, and I'll post"
        " a weekly digest to the team channel.",
        decision("flaky jobs get retried rather than failing the build", 0),
        decision("post a weekly digest to the team channel", 0),
    )
    assert {n.status for n in s.graph.nodes.values()} == {Status.COMPLETED}


# ----- disagreement told across messages, read from the transcript itself ------------------------


def _contested_pairs(*messages: str) -> set[frozenset[str]]:
    """The contested pairs of the graph of a user-only transcript, each reply a bare "Noted."."""
    turns = []
    for text in messages:
        turns += [Turn(len(turns), "user", text), Turn(len(turns) + 1, "assistant", "Noted.")]
    graph = build_graph(turns)
    return {
        frozenset((graph.nodes[e.source].label, graph.nodes[e.target].label))
        for e in graph.edges.values()
        if e.type == EdgeType.CONFLICTS_WITH and e.retired_at is None
    }


@pytest.mark.parametrize(
    ("messages", "pair"),
    [
        (
            (
                "I'm leaning towards Figma for the mockups.",
                "Ana insists on Sketch for the mockups. No consensus yet.",
            ),
            {"leaning towards Figma for the mockups", "Ana insists on Sketch for the mockups"},
        ),
        (
            (
                "Priya wants to host the retreat in Lisbon.",
                "Tom would rather do Porto, it's cheaper. We haven't settled it.",
            ),
            {"Priya wants to host the retreat in Lisbon", "Tom would rather do Porto"},
        ),
        (
            (
                "Decided: weekly newsletter.",
                "Marketing pushes for a daily digest instead; we need to decide.",
            ),
            {"weekly newsletter", "Marketing pushes for a daily digest instead"},
        ),
        (
            (
                "Ops wants the window on Sunday at 02:00 because traffic is lowest. The app team "
                "wants Saturday at 22:00. That part is not settled.",
            ),
            {"Ops wants the window on Sunday at 02:00", "The app team wants Saturday at 22:00"},
        ),
        (
            (
                "We do the demo live, that's what people remember.",
                "Lena thinks we should record the demo instead of live. I'm not sure, live is "
                "more fun.",
            ),
            {"do the demo live", "Lena thinks we should record the demo instead of live"},
        ),
        (
            (
                "I'm treating the 1851 baptism as ours.",
                "So for now I'm going with the 1852 baptism after all. Haven't made up my mind.",
            ),
            {"treating the 1851 baptism as ours", "going with the 1852 baptism"},
        ),
    ],
)
def test_positions_in_a_choice_said_to_be_open_are_contested(messages, pair):
    assert _contested_pairs(*messages) == {frozenset(pair)}


@pytest.mark.parametrize(
    "messages",
    [
        ("I'm leaning towards Figma for the mockups.", "Ana insists on Sketch for the mockups."),
        ("Priya wants to host the retreat in Lisbon.", "Tom would rather do Porto, it's cheaper."),
        ("Decided: weekly newsletter.", "Marketing pushes for a daily digest instead."),
        ("Ops wants the window on Sunday at 02:00. The app team wants Saturday at 22:00.",),
    ],
)
def test_the_same_positions_without_an_open_choice_contest_nothing(messages):
    assert _contested_pairs(*messages) == set()
