"""The CMV cost model: what a turn costs under prompt caching before and after a trim.

A trim rewrites the transcript, so the first request after it finds a cold cache and pays the
cache-write price on the whole (smaller) context; every later turn is again mostly cache reads.
The formulas, and their order of operations, are the ones that reproduce the published CMV
benchmark figures float for float (benchmarks/cmv.py checks all 76 sessions):

- cost per turn = (tokens * hit / 1e6) * cache_read + (tokens * (1 - hit) / 1e6) * cache_write
- first turn after a trim = tokens / 1e6 * cache_write  (nothing is cached)
- cache-miss penalty = first turn after the trim - cost per turn before it
- savings per turn = cost per turn before - steady cost per turn after
- break-even turn = ceil(penalty / savings) + 1, or 999 when the trim saves nothing per turn
- projection over n turns: without = before * n; with = first + steady * (n - 1)
- percentages are rounded half up (JavaScript's Math.round), as the study's tool does.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

CACHE_HIT_RATE = 0.9
CONTEXT_WINDOW = 200_000
PROJECTION_TURNS = (5, 10, 20, 50)
NO_BREAK_EVEN = 999  # the study's value when a trim saves nothing per turn
BREAK_EVEN_CAP = 60  # the study's summary statistics cap break-even turns here


@dataclass(frozen=True)
class Prices:
    """US dollars per million tokens."""

    display_name: str
    input: float
    cache_write: float
    cache_read: float
    output: float


# Anthropic's list prices (5-minute cache writes at 1.25x input, reads at 0.1x input).
PRICES: dict[str, Prices] = {
    "sonnet": Prices("Sonnet 4", 3.0, 3.75, 0.30, 15.0),
    "opus": Prices("Opus 4", 15.0, 18.75, 1.50, 75.0),
    "haiku": Prices("Haiku 4.5", 1.0, 1.25, 0.10, 5.0),
}


@dataclass(frozen=True)
class Projection:
    turns: int
    withoutTrim: float  # noqa: N815 - the study's field names, so results compare key for key
    withTrim: float  # noqa: N815
    savedPercent: int  # noqa: N815


@dataclass(frozen=True)
class SessionCost:
    """The study's per-session cost fields, under the same names."""

    preTrimCostPerTurn: float  # noqa: N815
    postTrimSteadyCostPerTurn: float  # noqa: N815
    postTrimFirstTurnCost: float  # noqa: N815
    cacheMissPenalty: float  # noqa: N815
    savingsPerTurn: float  # noqa: N815
    breakEvenTurns: int  # noqa: N815
    reductionPercent: int  # noqa: N815
    contextUsedPercent: int  # noqa: N815
    projections: tuple[Projection, ...]

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["projections"] = [asdict(p) for p in self.projections]
        return data


def prices_for(model: str) -> Prices:
    try:
        return PRICES[model]
    except KeyError:
        raise ValueError(f"unknown model {model!r}; known: {', '.join(PRICES)}") from None


def round_half_up(value: float) -> int:
    """JavaScript's Math.round: halves go up (-2.5 -> -2), unlike Python's round to even."""
    return math.floor(value + 0.5)


def percent(part: float, whole: float) -> int:
    return round_half_up(part / whole * 100) if whole else 0


def cost_per_turn(tokens: int, prices: Prices, hit_rate: float = CACHE_HIT_RATE) -> float:
    """A warm turn: ``hit_rate`` of the context read from cache, the rest written to it."""
    return (tokens * hit_rate / 1e6) * prices.cache_read + (
        tokens * (1 - hit_rate) / 1e6
    ) * prices.cache_write


def cold_turn_cost(tokens: int, prices: Prices) -> float:
    """The first turn after a trim: the rewritten context is all cache writes."""
    return tokens / 1e6 * prices.cache_write


def break_even_turns(penalty: float, savings: float) -> int:
    """The turn from which the trimmed session has cost less in total than the untrimmed one."""
    if savings <= 0:
        return NO_BREAK_EVEN
    return math.ceil(penalty / savings) + 1


def projection(turns: int, before: float, first: float, steady: float) -> Projection:
    without = before * turns
    with_trim = first + steady * (turns - 1)
    return Projection(
        turns, without, with_trim, round_half_up((without - with_trim) / without * 100)
    )


def session_cost(
    tokens_before: int,
    tokens_after: int,
    model: str = "sonnet",
    hit_rate: float = CACHE_HIT_RATE,
    context_window: int = CONTEXT_WINDOW,
    turns: Sequence[int] = PROJECTION_TURNS,
) -> SessionCost:
    """Every cost figure of one session trimmed from ``tokens_before`` to ``tokens_after``."""
    if tokens_before <= 0 or tokens_after < 0:
        raise ValueError("a session needs a positive token count before the trim")
    prices = prices_for(model)
    before = cost_per_turn(tokens_before, prices, hit_rate)
    steady = cost_per_turn(tokens_after, prices, hit_rate)
    first = cold_turn_cost(tokens_after, prices)
    penalty = first - before
    savings = before - steady
    return SessionCost(
        preTrimCostPerTurn=before,
        postTrimSteadyCostPerTurn=steady,
        postTrimFirstTurnCost=first,
        cacheMissPenalty=penalty,
        savingsPerTurn=savings,
        breakEvenTurns=break_even_turns(penalty, savings),
        reductionPercent=round_half_up((1 - tokens_after / tokens_before) * 100),
        contextUsedPercent=percent(tokens_before, context_window),
        projections=tuple(projection(n, before, first, steady) for n in turns),
    )


# --- the study's byte breakdown and summary statistics -------------------------------------------


def breakdown_percents(breakdown: Mapping[str, Mapping[str, int]], total: int) -> dict[str, int]:
    """Each category's share of a session file's bytes, as the study rounds it."""
    return {name: percent(part["bytes"], total) for name, part in breakdown.items()}


def byte_reduction_percent(original: int, trimmed: int) -> int:
    return round_half_up((1 - trimmed / original) * 100) if original else 0


TIERS = (
    ("tool_heavy", "Heavy tool use (>40%)"),
    ("mixed", "Moderate tool use (15-40%)"),
    ("conversational", "Light tool use (<15%)"),
)


def tier_of(tool_result_byte_pct: float) -> str:
    """The study's tiers, by the share of the file's bytes that are tool results."""
    if tool_result_byte_pct > 40:
        return "tool_heavy"
    return "mixed" if tool_result_byte_pct >= 15 else "conversational"


def _tier_stats(sessions: Sequence[Mapping[str, Any]], label: str) -> dict[str, Any]:
    stats: dict[str, Any] = {"count": len(sessions), "label": label}
    if not sessions:
        return stats
    reductions = [s["reductionPercent"] for s in sessions]
    capped = [min(s["breakEvenTurns"], BREAK_EVEN_CAP) for s in sessions]
    stats.update(
        mean_reduction_pct=round(statistics.mean(reductions), 1),
        median_reduction_pct=round(float(statistics.median(reductions)), 1),
        min_reduction_pct=float(min(reductions)),
        max_reduction_pct=float(max(reductions)),
        mean_breakeven=round(statistics.mean(capped), 0),
        median_breakeven=round(float(statistics.median(capped)), 0),
        mean_tokens=int(statistics.mean(s["estimatedTokens"] for s in sessions)),
    )
    return stats


def summary_stats(sessions: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The study's tiers and overall figures (cmv_benchmark_stats.json) from per-session results.

    Break-even turns enter the statistics capped at 60, so the 999 of a trim that never pays
    (and the thousands of one that barely saves) do not swamp the mean.
    """
    sessions = list(sessions)
    by_tier: dict[str, list[Mapping[str, Any]]] = {name: [] for name, _ in TIERS}
    for s in sessions:
        by_tier[tier_of(s["toolResultBytePct"])].append(s)
    reductions = [s["reductionPercent"] for s in sessions]
    capped = [min(s["breakEvenTurns"], BREAK_EVEN_CAP) for s in sessions]
    penalties = [s["cacheMissPenalty"] for s in sessions]
    return {
        "session_count": len(sessions),
        "tiers": {name: _tier_stats(by_tier[name], label) for name, label in TIERS},
        "overall": {
            "reduction": {
                "mean_pct": round(statistics.mean(reductions), 1),
                "median_pct": round(float(statistics.median(reductions)), 1),
                "min_pct": float(min(reductions)),
                "max_pct": float(max(reductions)),
                "sessions_above_30pct": sum(r > 30 for r in reductions),
            },
            "tokens": {
                "mean_pre_trim": int(statistics.mean(s["estimatedTokens"] for s in sessions)),
                "mean_post_trim": int(statistics.mean(s["postTrimTokens"] for s in sessions)),
            },
            "breakeven": {
                "mean_turns": round(statistics.mean(capped), 0),
                "median_turns": round(float(statistics.median(capped)), 0),
                "min_turns": min(capped),
                "max_turns": max(capped),
            },
            "cost": {
                "mean_cache_miss_penalty": round(statistics.mean(penalties), 4),
                "median_cache_miss_penalty": round(statistics.median(penalties), 4),
                "min_cache_miss_penalty": round(min(penalties), 4),
                "max_cache_miss_penalty": round(max(penalties), 4),
            },
        },
    }
