"""The CMV cost model: per-turn cost under prompt caching, the cold-cache penalty, break-even."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.graph import cmv

SONNET = cmv.PRICES["sonnet"]


def test_a_warm_turn_reads_most_of_the_context_from_cache():
    # 90% at $0.30/M read plus 10% at $3.75/M written: $0.645 per million tokens.
    assert cmv.cost_per_turn(1_000_000, SONNET) == pytest.approx(0.645)
    assert cmv.cold_turn_cost(1_000_000, SONNET) == pytest.approx(3.75)


def test_halving_the_context_pays_back_from_the_fifth_turn():
    cost = cmv.session_cost(100_000, 50_000)
    assert cost.reductionPercent == 50
    assert cost.contextUsedPercent == 50
    assert cost.cacheMissPenalty == pytest.approx(0.1875 - 0.0645)
    assert cost.breakEvenTurns == 5
    by_turns = {p.turns: p for p in cost.projections}
    assert by_turns[5].withTrim < by_turns[5].withoutTrim
    assert by_turns[5].savedPercent == 2


def test_a_trim_that_saves_nothing_never_breaks_even():
    cost = cmv.session_cost(80_000, 80_000)
    assert cost.savingsPerTurn == 0
    assert cost.breakEvenTurns == cmv.NO_BREAK_EVEN
    assert all(p.savedPercent < 0 for p in cost.projections)


@given(
    before=st.integers(min_value=5_000, max_value=1_000_000),
    share=st.floats(min_value=0.05, max_value=0.95),
)
def test_break_even_is_the_first_turn_the_trimmed_session_costs_no_more(before, share):
    after = int(before * share)
    cost = cmv.session_cost(before, after)
    if cost.savingsPerTurn <= 0 or cost.breakEvenTurns > 10_000:
        return

    def totals(n: int) -> tuple[float, float]:
        p = cmv.projection(
            n, cost.preTrimCostPerTurn, cost.postTrimFirstTurnCost, cost.postTrimSteadyCostPerTurn
        )
        return p.withTrim, p.withoutTrim

    n = cost.breakEvenTurns
    with_trim, without = totals(n)
    assert with_trim <= without * (1 + 1e-9)
    if n > 2:
        with_trim, without = totals(n - 2)
        assert with_trim > without


def test_percentages_round_halves_up_like_the_study():
    assert cmv.round_half_up(2.5) == 3
    assert cmv.round_half_up(-2.5) == -2
    assert round(2.5) == 2  # what Python alone would give
    assert cmv.percent(1, 8) == 13


def test_the_summary_caps_break_even_turns_and_sorts_sessions_into_tiers():
    sessions = [
        {"toolResultBytePct": 50, "reductionPercent": 80, "breakEvenTurns": 2, "estimatedTokens": 9, "postTrimTokens": 2, "cacheMissPenalty": 0.1},
        {"toolResultBytePct": 20, "reductionPercent": 30, "breakEvenTurns": 999, "estimatedTokens": 6, "postTrimTokens": 4, "cacheMissPenalty": 0.2},
        {"toolResultBytePct": 1, "reductionPercent": 0, "breakEvenTurns": 100, "estimatedTokens": 3, "postTrimTokens": 3, "cacheMissPenalty": 0.3},
    ]  # fmt: skip
    stats = cmv.summary_stats(sessions)
    assert [stats["tiers"][t]["count"] for t in ("tool_heavy", "mixed", "conversational")] == [
        1,
        1,
        1,
    ]
    assert stats["overall"]["breakeven"]["max_turns"] == cmv.BREAK_EVEN_CAP
    assert stats["overall"]["breakeven"]["mean_turns"] == round((2 + 60 + 60) / 3)
    assert stats["overall"]["tokens"]["mean_pre_trim"] == 6
    assert stats["overall"]["reduction"]["sessions_above_30pct"] == 1


def test_an_unknown_model_or_empty_session_is_refused():
    with pytest.raises(ValueError, match="known: sonnet"):
        cmv.session_cost(1000, 500, model="gpt-9")
    with pytest.raises(ValueError, match="positive"):
        cmv.session_cost(0, 0)
    assert math.isfinite(cmv.session_cost(1000, 0).cacheMissPenalty)
