"""The CMV cost model reproduced on the study's 76 sessions, and our trimmer on transcripts we have.

Reads the study's published per-session results and summary statistics from shared/ (by path:
TOKENMIZER_SHARED, default ../shared beside the repository; the third-party data is never copied
into the repository), recomputes every derived figure from each session's measured inputs (tokens
before and after the trim, byte counts), and reports ours against published with the largest
absolute deviation. Then trims the demo sessions and the token-economy benchmark's generated
300-turn coding session with our trimmer and prices them with the same model.

    python -m benchmarks.cmv --out benchmarks/results/cmv.json   (writes .md and .png beside it)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from memory.graph import cmv, trim

ROOT = Path(__file__).resolve().parent.parent
RESULTS_FILE = Path("anchors/cmv/benchmark_results.json")
STATS_FILE = Path("anchors/cmv/cmv_benchmark_stats.json")
DEMO_DIR = ROOT / "memory" / "demo"
# The study's measured inputs, the rest of a session's numbers being derived from them.
INPUT_FIELDS = ("estimatedTokens", "postTrimTokens", "totalBytes", "messageCount")


def shared_dir() -> Path:
    return Path(os.environ.get("TOKENMIZER_SHARED", ROOT.parent / "shared"))


def load_published(shared: Path | None = None) -> tuple[dict, dict]:
    """The study's results and statistics; FileNotFoundError says how to point at them."""
    shared = shared or shared_dir()
    loaded = []
    for name in (RESULTS_FILE, STATS_FILE):
        path = shared / name
        if not path.is_file():
            raise FileNotFoundError(
                f"the CMV study's {name.name} is missing at {path}: set TOKENMIZER_SHARED to the "
                "shared folder that holds anchors/cmv/"
            )
        loaded.append(json.loads(path.read_text(encoding="utf-8")))
    return loaded[0], loaded[1]


def ours_for(session: Mapping[str, Any], model: str, hit_rate: float) -> dict[str, Any]:
    """Every derived figure of one published session, recomputed from its measured inputs."""
    figures = cmv.session_cost(
        session["estimatedTokens"], session["postTrimTokens"], model, hit_rate
    ).as_dict()
    breakdown = session["breakdown"]
    total = session["totalBytes"]
    metrics = session["trimMetrics"]
    figures.update(
        toolResultBytePct=cmv.percent(breakdown["toolResults"]["bytes"], total),
        toolResultCount=breakdown["toolResults"]["count"],
        messageCount=session["userMessages"] + session["assistantMessages"],
        breakdown={
            name: {**part, "percent": pct}
            for (name, part), pct in zip(
                breakdown.items(), cmv.breakdown_percents(breakdown, total).values(), strict=True
            )
        },
        trimMetrics={
            **metrics,
            "byteReductionPct": cmv.byte_reduction_percent(
                metrics["originalBytes"], metrics["trimmedBytes"]
            ),
        },
    )
    return figures


def _leaves(value: Any, prefix: str = "") -> Iterable[tuple[str, Any]]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{prefix}[{i}]")
    else:
        yield prefix, value


def compare(ours: Mapping[str, Any], published: Mapping[str, Any]) -> dict[str, Any]:
    """Numeric fields compared one by one: how many, which differ, the largest gap."""
    theirs = dict(_leaves({k: published[k] for k in ours}))
    fields = 0
    differing = []
    deviation = 0.0
    for name, value in _leaves(ours):
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        fields += 1
        gap = abs(value - theirs[name]) if name in theirs else float("inf")
        deviation = max(deviation, gap)
        if name not in theirs or value != theirs[name]:
            differing.append(name)
    return {"fields": fields, "differing": differing, "max_abs_deviation": deviation}


def reproduce(published: Mapping[str, Any], stats: Mapping[str, Any]) -> dict[str, Any]:
    model, hit_rate = published["model"], published["cacheHitRate"]
    rows = []
    for session in published["sessions"]:
        ours = ours_for(session, model, hit_rate)
        check = compare(ours, session)
        published_leaves = dict(_leaves(session))
        rows.append(
            {
                "sessionId": session["sessionId"],
                "inputs": {k: session[k] for k in INPUT_FIELDS},
                "ours": ours,
                # Only where we differ: the study's data stays in shared/, not in our results.
                "published_where_different": {
                    name: published_leaves.get(name) for name in check["differing"]
                },
                **check,
            }
        )
    our_stats = cmv.summary_stats(published["sessions"])
    stats_check = compare(
        {"tiers": our_stats["tiers"], "overall": our_stats["overall"]},
        {"tiers": stats["tiers"], "overall": stats["overall"]},
    )
    return {
        "model": model,
        "prices": asdict(cmv.prices_for(model)),
        "cache_hit_rate": hit_rate,
        "session_count": len(rows),
        "sessions_exact": sum(not r["differing"] for r in rows),
        "fields_compared": sum(r["fields"] for r in rows),
        "max_abs_deviation": max((r["max_abs_deviation"] for r in rows), default=0.0),
        "sessions": rows,
        "stats": {"ours": our_stats, **stats_check},
    }


# --- our trimmer on transcripts we have -------------------------------------------------------


def own_transcripts() -> list[tuple[str, list[dict]]]:
    """The demo sessions and the token-economy benchmark's generated coding session."""
    from benchmarks.token_economy import SYSTEM_PROMPT, generate_session

    found = []
    for path in sorted(DEMO_DIR.glob("*.json")):
        sample = json.loads(path.read_text(encoding="utf-8"))
        found.append((sample["session_id"], sample["messages"]))
    generated = [{"role": "system", "content": SYSTEM_PROMPT}]
    for turn in generate_session():
        generated += [turn.user, *turn.replies]
    found.append(("token-economy-300-turns", generated))
    return found


def own_trims(model: str, hit_rate: float) -> list[dict[str, Any]]:
    rows = []
    for name, messages in own_transcripts():
        report = trim.trim_messages(messages).report
        costs = cmv.session_cost(report.tokens_before, report.tokens_after, model, hit_rate)
        rows.append(
            {
                "session": name,
                "messages": len(messages),
                "report": report.as_dict(),
                "cost": costs.as_dict(),
            }
        )
    return rows


def run(shared: Path | None = None) -> dict[str, Any]:
    published, stats = load_published(shared)
    results = reproduce(published, stats)
    results["own_trimmer"] = own_trims(published["model"], published["cacheHitRate"])
    return results


# --- report -----------------------------------------------------------------------------------


def markdown(results: Mapping[str, Any]) -> str:
    exact = results["sessions_exact"]
    total = results["session_count"]
    stats = results["stats"]
    prices = results["prices"]
    lines = [
        "# CMV cost model: reproduction and our trimmer",
        "",
        f"Model {prices['display_name']} (cache write ${prices['cache_write']}/M, "
        f"read ${prices['cache_read']}/M), cache hit rate {results['cache_hit_rate']}.",
        "",
        f"- **{exact} of {total} sessions reproduced exactly**: {results['fields_compared']:,} "
        f"numeric fields compared with `==`, largest absolute deviation "
        f"{results['max_abs_deviation']:g}.",
        f"- Summary statistics (tiers and overall): {stats['fields']} fields, "
        f"{len(stats['differing'])} differing.",
        "",
        "Formulas: warm turn = (t·h/1e6)·read + (t·(1−h)/1e6)·write; first turn after a trim = "
        "t/1e6·write; penalty = first − before; savings = before − steady; break-even = "
        "⌈penalty/savings⌉ + 1 (999 when nothing is saved); percentages rounded half up.",
        "",
        "| session | tokens before → after | reduction | penalty $ | break-even | exact |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in results["sessions"]:
        ours, inputs = row["ours"], row["inputs"]
        lines.append(
            f"| {row['sessionId'][:8]} | {inputs['estimatedTokens']:,} → "
            f"{inputs['postTrimTokens']:,} | {ours['reductionPercent']}% | "
            f"{ours['cacheMissPenalty']:.4f} | {ours['breakEvenTurns']} | "
            f"{'yes' if not row['differing'] else ', '.join(row['differing'])} |"
        )
    lines += [
        "",
        "## Our trimmer (threshold 500 characters), priced with the same model",
        "",
        "| transcript | messages | tokens before → after | reduction | stubbed results / "
        "inputs | break-even turn |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in results["own_trimmer"]:
        r, c = row["report"], row["cost"]
        lines.append(
            f"| {row['session']} | {row['messages']} | {r['tokens_before']:,} → "
            f"{r['tokens_after']:,} | {r['token_reduction_percent']}% | "
            f"{r['tool_results_stubbed']} / {r['tool_inputs_stubbed']} | {c['breakEvenTurns']} |"
        )
    lines += [
        "",
        "The demo sessions are conversational (no tool output), so there is nothing to trim; "
        "the generated coding session is tool-heavy, the case trimming is for.",
        "",
    ]
    return "\n".join(lines)


def chart(results: Mapping[str, Any], path: Path) -> None:
    """Break-even turn against token reduction, the study's sessions and ours."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5), dpi=120)
    cap = cmv.BREAK_EVEN_CAP
    study = [
        (r["ours"]["reductionPercent"], r["ours"]["breakEvenTurns"]) for r in results["sessions"]
    ]
    ax.scatter(
        [x for x, _ in study],
        [min(y, cap + 5) for _, y in study],
        color="#1f6feb",
        alpha=0.7,
        label=f"CMV study sessions ({results['sessions_exact']}/{results['session_count']} "
        "reproduced exactly)",
    )
    own = [(r["report"]["token_reduction_percent"], r["cost"]["breakEvenTurns"]) for r in results["own_trimmer"]]  # fmt: skip
    ax.scatter(
        [x for x, _ in own],
        [min(y, cap + 5) for _, y in own],
        color="#cf222e",
        marker="D",
        label="our trimmer on our transcripts",
    )
    ax.axhline(cap, color="#8b949e", linestyle=":", label=f"{cap}+ turns (never or barely pays)")
    ax.set_xlabel("token reduction by the trim (%)")
    ax.set_ylabel(f"break-even turn (capped at {cap + 5})")
    ax.set_title("Prompt-cache break-even after a trim (Sonnet 4, 90% cache hits)")
    ax.grid(alpha=0.3)
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cmv", description=__doc__)
    parser.add_argument(
        "--out", required=True, type=Path, help="results JSON; .md and .png beside it"
    )
    parser.add_argument("--shared", type=Path, help="the shared folder (default TOKENMIZER_SHARED)")
    args = parser.parse_args(argv)
    try:
        results = run(args.shared)
    except FileNotFoundError as error:
        print(error, file=sys.stderr)
        return 2
    from benchmarks.harness import write_results

    args.out.parent.mkdir(parents=True, exist_ok=True)
    paths = write_results(results, args.out, markdown, chart)
    print(
        f"{results['sessions_exact']}/{results['session_count']} sessions exact, max deviation "
        f"{results['max_abs_deviation']:g}; wrote " + ", ".join(map(str, paths)),
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
