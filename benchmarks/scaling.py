"""Extraction cost against session length: generated N-turn sessions, time and peak memory."""

from __future__ import annotations

import gc
import math
import sys
import time
import tracemalloc
from collections.abc import Sequence
from statistics import median

from memory.graph.pipeline import build_graph
from memory.graph.types import Turn

SIZES = (50, 100, 250, 500, 1000, 2000)
REPEATS = 3  # timing runs per size; the median is kept

_USER = (
    "Decided: use {tool} for the {area} module instead of {old}.",
    "Can you add {area} validation in src/{area}/handler_{i}.py?",
    "TODO: write tests for the {area} endpoint after the {tool} migration.",
    "Let's go with {tool} for {area}; {old} kept timing out.",
)
_ASSISTANT = (
    "Completed: {area} handler in src/{area}/handler_{i}.py with {tool}.",
    "Error: {tool} raised TimeoutError in {area}_{i} under load; fixed by raising the pool size.",
    "Fixed the failing {area} test in tests/test_{area}_{i}.py; all tests pass now.",
    "The {area} rollout is done; next is the {tool} dashboard for {area}.",
)
_TOOLS = ("redis", "postgres", "celery", "httpx", "pydantic", "sqlite", "kafka", "nginx")
_AREAS = ("auth", "billing", "search", "upload", "export", "reports", "alerts", "profile")


def generated_session(n: int) -> list[Turn]:
    """A deterministic n-turn session cycling through decisions, tasks, files and errors."""
    turns = []
    for i in range(n):
        user = i % 2 == 0
        templates = _USER if user else _ASSISTANT
        text = templates[(i // 2) % len(templates)].format(
            tool=_TOOLS[i % len(_TOOLS)],
            old=_TOOLS[(i + 3) % len(_TOOLS)],
            area=_AREAS[(i // 3) % len(_AREAS)],
            i=i,
        )
        turns.append(Turn(i, "user" if user else "assistant", text, timestamp=float(i)))
    return turns


def time_ms(turns: Sequence[Turn]) -> float:
    """Median wall time of extracting the whole session from nothing."""
    runs = []
    for _ in range(REPEATS):
        gc.collect()
        start = time.perf_counter()
        build_graph(turns)
        runs.append((time.perf_counter() - start) * 1000)
    return median(runs)


def peak_kib(turns: Sequence[Turn]) -> float:
    """Peak memory traced while extracting the session (a separate run: tracing slows it)."""
    gc.collect()
    tracemalloc.start()
    try:
        build_graph(turns)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 1024


def linear_fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float, float]:
    """Least-squares slope, intercept and R² of ys on xs."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    intercept = my - slope * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys, strict=True))
    return slope, intercept, (1 - ss_res / ss_tot) if ss_tot else 1.0


def growth_exponent(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Slope of log y on log x: about 1 for linear growth, about 2 for quadratic."""
    pairs = [(math.log(x), math.log(y)) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0]
    if len(pairs) < 2:
        return None
    return linear_fit([p[0] for p in pairs], [p[1] for p in pairs])[0]


def scaling_curve(sizes: Sequence[int] = SIZES, progress: bool = False) -> dict:
    """Time and peak memory per size, with linear fits and log-log growth exponents.

    Linear extraction shows as an exponent near 1 and a flat ms-per-turn column.
    """
    points = []
    for n in sizes:
        turns = generated_session(n)
        ms = time_ms(turns)
        points.append({"turns": n, "ms": ms, "ms_per_turn": ms / n, "peak_kib": peak_kib(turns)})
        if progress:
            print(f"scaling: {n} turns, {ms:.1f} ms", file=sys.stderr)
    xs = [p["turns"] for p in points]
    slope, intercept, r2 = linear_fit(xs, [p["ms"] for p in points])
    mem_slope, _, mem_r2 = linear_fit(xs, [p["peak_kib"] for p in points])
    fit = {
        "exponent": growth_exponent(xs, [p["ms"] for p in points]),
        "memory_exponent": growth_exponent(xs, [p["peak_kib"] for p in points]),
        "ms_per_turn": slope,
        "intercept_ms": intercept,
        "r2": r2,
        "kib_per_turn": mem_slope,
        "memory_r2": mem_r2,
    }
    return {"repeats": REPEATS, "points": points, "fit": fit}
