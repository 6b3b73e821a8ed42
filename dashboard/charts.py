"""Server-rendered SVG charts: the geometry of a bar chart, computed here, drawn by a template."""

from __future__ import annotations

from dataclasses import dataclass

WIDTH, HEIGHT = 720, 220
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 12, 36


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    value: int
    css: str
    title: str


@dataclass(frozen=True)
class Tick:
    y: float
    label: str


@dataclass(frozen=True)
class Label:
    x: float
    text: str


@dataclass(frozen=True)
class BarChart:
    bars: list[Bar]
    ticks: list[Tick]
    labels: list[Label]
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    baseline: float = HEIGHT - BOTTOM


def _short(n: float) -> str:
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= size:
            return f"{n / size:.1f}".rstrip("0").rstrip(".") + suffix
    return str(int(n))


def paired_bars(points: list[dict], keys: tuple[str, str], fmt: str) -> BarChart:
    """Two bars per point (e.g. tokens sent and forwarded), scaled to the largest value."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = max([max(p[k] for k in keys) for p in points] + [1])
    slot = plot_w / max(len(points), 1)
    bar_w = max(min(slot * 0.38, 22), 1.5)
    bars, labels = [], []
    step = max(1, len(points) // 8)  # at most ~8 time labels
    for i, point in enumerate(points):
        x0 = LEFT + i * slot + (slot - 2 * bar_w) / 2
        for j, key in enumerate(keys):
            h = point[key] / top * plot_h
            when = point["t"].strftime(fmt)
            bars.append(
                Bar(x0 + j * bar_w, TOP + plot_h - h, bar_w, h, point[key], f"bar-{j}",
                    f"{when}: {point[key]:,} {key.replace('_', ' ')}")
            )  # fmt: skip
        if i % step == 0:
            labels.append(Label(LEFT + i * slot + slot / 2, point["t"].strftime(fmt)))
    ticks = [Tick(TOP + plot_h - f * plot_h, _short(top * f)) for f in (0, 0.5, 1)]
    return BarChart(bars, ticks, labels)
