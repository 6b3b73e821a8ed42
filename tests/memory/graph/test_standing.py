"""Standing knowledge across sessions: what a later session replaced is not carried as in force."""

from memory.graph.standing import Observation, facts, render
from memory.graph.types import NodeType, Status


def decision(label: str, session: int, moment: float, quote: str = "") -> Observation:
    return Observation(
        NodeType.DECISION, label, Status.COMPLETED, 1.0, moment, session=session, node=session,
        quote=quote,
    )  # fmt: skip


def in_force(observations) -> list[str]:
    return sorted(f.text for f in facts(observations) if f.kind == "decision")


def test_a_replacement_stated_in_a_later_session_retires_the_earlier_decision():
    earlier = decision("run services on ECS Fargate", session=1, moment=100.0)
    later = decision("going with EKS instead of ECS Fargate", session=2, moment=200.0)
    kept = decision("keep Terraform state in S3", session=1, moment=100.0)
    assert in_force([earlier, later, kept]) == [
        "going with EKS instead of ECS Fargate",
        "keep Terraform state in S3",
    ]
    assert "run services on ECS Fargate" not in render(facts([earlier, later, kept]), 400)


def test_a_replacement_named_in_a_sentence_that_goes_on_retires_the_earlier_decision():
    earlier = decision("run services on ECS Fargate", session=1, moment=100.0)
    later = decision(
        "run services on EKS with managed node groups",
        session=2,
        moment=200.0,
        quote="We're going with EKS instead of ECS Fargate, since the team already runs "
        "Kubernetes elsewhere. So: run services on EKS with managed node groups.",
    )
    assert in_force([earlier, later]) == ["run services on EKS with managed node groups"]


def test_an_earlier_mention_of_the_option_does_not_retire_a_later_decision():
    # "instead of X" said first does not undo a decision for X taken afterwards.
    first = decision("Redis instead of Memcached for sessions", session=1, moment=100.0)
    then = decision("Memcached for the page cache", session=2, moment=200.0)
    assert in_force([first, then]) == [
        "Memcached for the page cache",
        "Redis instead of Memcached for sessions",
    ]


def test_said_at_the_same_moment_the_later_session_has_the_last_word():
    # Row ids follow the order a worker first saved the sessions' graphs in, not what was said.
    earlier = Observation(
        NodeType.DECISION, "run services on ECS Fargate", Status.COMPLETED, 1.0, 100.0,
        session=1, node=9,
    )  # fmt: skip
    later = Observation(
        NodeType.DECISION, "run services on ECS Fargate", Status.SUPERSEDED, 1.0, 100.0,
        session=2, node=1,
    )  # fmt: skip
    replacement = decision("going with EKS instead of ECS Fargate", session=2, moment=100.0)
    assert in_force([earlier, later]) == []
    assert in_force([replacement, decision("run on ECS Fargate", session=1, moment=100.0)]) == [
        "going with EKS instead of ECS Fargate"
    ]


def test_a_later_session_swapping_the_value_of_one_slot_retires_the_earlier_decision():
    earlier = decision("cache exchange rates in Redis", session=1, moment=100.0)
    later = decision("cache exchange rates in Memcached", session=2, moment=200.0)
    beside = decision("cache sessions in Redis", session=1, moment=100.0)
    assert in_force([earlier, later, beside]) == [
        "cache exchange rates in Memcached",
        "cache sessions in Redis",
    ]


def test_a_replacement_named_in_the_decisions_sentence_retires_the_earlier_decision():
    earlier = decision("style components with CSS modules and design tokens", 1, 100.0)
    later = decision(
        "style components with vanilla-extract and design tokens", 2, 200.0,
        quote="Switched from CSS modules to vanilla-extract: we now style components with "
        "vanilla-extract and design tokens.",
    )  # fmt: skip
    assert in_force([earlier, later]) == ["style components with vanilla-extract and design tokens"]


def test_values_for_different_scopes_in_later_sessions_both_stand():
    prod = decision("deploy to prod on Fridays", session=1, moment=100.0)
    staging = decision("deploy to staging on Mondays", session=2, moment=200.0)
    assert in_force([prod, staging]) == [
        "deploy to prod on Fridays",
        "deploy to staging on Mondays",
    ]
