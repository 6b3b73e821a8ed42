"""Project memory across sessions: does a new session's first request carry what earlier ones settled?

Each scenario in benchmarks/corpus/projects/ is one project: 1–3 earlier sessions, the labelled
decisions in force at their end (and the ones they superseded), and the first user message of a
new session, phrased without naming those decisions. The earlier sessions are sent through the
real proxy turn by turn (uvicorn in its own process, the loopback upstream, extraction as in the
embedded profile); then the new session's first request is sent, and what the loopback received is
scored: recall of the labelled decisions (the benchmarks.scoring coverage relation, sentence by
sentence), superseded decisions shown as in force, and the token cost. The same scenario in a
second project with memory off (budget 0) is the baseline.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus" / "projects"
MODEL = "echo"  # the loopback's plain behaviour; tokens are counted with cl100k_base
MEMORY_BUDGET = 400  # the default Project.memory_budget
VARIANTS = {"memory": MEMORY_BUDGET, "baseline": 0}
# Sent after a session's last scripted turn, so the proxy records the assistant's last words too.
CLOSING = {"role": "user", "content": "Thanks, that is all for today."}


def load_scenarios(corpus: Path = CORPUS, names: Sequence[str] | None = None) -> list[dict]:
    """The scenario files (sorted by name), each with its file name and sha256."""
    out = []
    for path in sorted(corpus.glob("*.json")):
        if names and path.stem not in names:
            continue
        raw = path.read_bytes()
        scenario = json.loads(raw)
        scenario.update(file=path.name, sha256=hashlib.sha256(raw).hexdigest())
        out.append(scenario)
    if not out:
        raise SystemExit(
            f"no scenario in {corpus}" + (f" named {', '.join(names)}" if names else "")
        )
    return out


def _project(bench, name: str, budget: int) -> tuple[int, str]:
    """A project of the bench user with its own key and the given memory budget."""
    from django.contrib.auth import get_user_model

    from benchmarks.harness import BENCH_REQUESTS_PER_MINUTE, BENCH_TOKENS_PER_MINUTE
    from memory.projects import create_project
    from proxy.keys import create_key

    user = get_user_model().objects.get(username="bench")
    project = create_project(name, user)
    project.mecw = bench.mecw
    project.memory_budget = budget
    project.requests_per_minute = BENCH_REQUESTS_PER_MINUTE
    project.tokens_per_minute = BENCH_TOKENS_PER_MINUTE
    project.save()
    return project.pk, create_key(user, project, "bench")[1]


def _post(client, bench, key: str, session_id: str, messages: list[dict]) -> tuple[dict, float]:
    """One request through the proxy; what the loopback received for it, and the round trip."""
    seen = len(bench.loopback.requests)
    start = time.perf_counter()
    response = client.post(
        f"{bench.proxy_url}/v1/chat/completions",
        json={"model": MODEL, "messages": messages},
        headers={"Authorization": f"Bearer {key}", "X-Session-Id": session_id},
    )
    ms = (time.perf_counter() - start) * 1000
    if response.status_code != 200:
        raise RuntimeError(
            f"{session_id}: the proxy answered {response.status_code}: {response.text[:300]}"
        )
    received = bench.loopback.requests[seen:]
    return (received[-1]["body"] if received else {}), ms


def _send_session(client, bench, key: str, session_id: str, system: str, turns: list[dict]) -> int:
    """An earlier session, one request per user turn (the scripted assistant turns follow them in
    the history), closed by a short user message so the last assistant turn is recorded too."""
    history = [{"role": "system", "content": system}]
    requests = 0
    for message in [*turns, CLOSING]:
        if message["role"] == "user":
            _post(client, bench, key, session_id, [*history, message])
            requests += 1
        history.append(message)
    return requests


def wait_extracted(project_pk: int, requests: int, timeout: float = 60.0) -> int:
    """Until the proxy has recorded all ``requests`` of the project (it does so after each
    response has gone out) and extraction has read every recorded message.

    Extraction is queued once per session while a job is waiting; a recording that lands while
    the job runs waits for the periodic catch-up (``extract_pending``, run by beat in production).
    The bench has no beat: after a short grace it calls that catch-up itself. Returns how many
    times it had to.
    """
    from django.db.models import F

    from memory.models import Session
    from memory.tasks import extract_pending
    from proxy.models import RequestLog

    deadline, catch_ups = time.monotonic() + timeout, 0
    grace = time.monotonic() + 2.0
    while True:
        recorded = RequestLog.objects.filter(project_id=project_pk).count()
        behind = Session.objects.filter(
            project_id=project_pk, messages__position__gt=F("high_water")
        ).exists()
        if recorded >= requests and not behind:
            return catch_ups
        if time.monotonic() > deadline:
            raise RuntimeError(f"the proxy did not record and extract within {timeout:.0f} s")
        if recorded >= requests and time.monotonic() > grace:
            extract_pending()
            catch_ups += 1
            grace = time.monotonic() + 2.0
        time.sleep(0.05)


def in_force_lines(preamble: str) -> list[str]:
    """The decisions a preamble shows as in force: the lines of that section, reasons cut off."""
    from memory.graph.standing import SECTIONS

    section = preamble.partition(SECTIONS["decision"] + "\n")[2]
    lines = []
    for line in section.splitlines():
        if not line.startswith("- "):
            break
        lines.append(line[2:].split(" (because ", 1)[0])
    return lines


def _rather_shows(line: str, superseded: str, in_force: list[str]) -> bool:
    """Whether ``line`` is the decision that replaced ``superseded``, not ``superseded`` itself:
    "cache exchange rates in Memcached" covers "... in Redis" (3 of its 4 content words) but
    covers the in-force "... in Memcached" more."""
    from benchmarks.scoring import content_words

    def share(item: str) -> float:
        words = content_words(item)
        return len(words & content_words(line)) / len(words) if words else 0.0

    return any(share(d) > share(superseded) for d in in_force)


def score_request(scenario: dict, sent: list[dict], forwarded: list[dict]) -> dict:
    """Recall of the labelled decisions in what went upstream, leaks, and the token cost."""
    from benchmarks.scoring import covers
    from benchmarks.token_economy import message_text, recall
    from memory.graph.tokens import count_message, count_messages

    added = [m for m in forwarded if m not in sent]  # what the proxy added: the preamble
    preamble = "\n".join(message_text(m) for m in added)
    shown = in_force_lines(preamble)
    leaked = [
        s
        for s in scenario.get("superseded", [])
        if any(covers(x, s) and not _rather_shows(x, s, scenario["in_force"]) for x in shown)
    ]
    return {
        "recall": recall(forwarded, scenario["in_force"]),
        "preamble_recall": recall(added, scenario["in_force"]),
        "superseded_shown_in_force": leaked,
        "preamble": preamble,
        "preamble_tokens": sum(count_message(m, MODEL) for m in added),
        "forwarded_tokens": count_messages(forwarded, MODEL) if forwarded else 0,
        "client_tokens": count_messages(sent, MODEL),
        "forwarded_messages": len(forwarded),
    }


def run_scenario(bench, client, scenario: dict, variant: str, budget: int) -> dict:
    name = f"{scenario['project']} ({variant})"
    project_pk, key = _project(bench, name, budget)
    prefix = f"{Path(scenario['file']).stem}-{variant}"  # session ids are unique across projects
    started = time.perf_counter()
    requests = 0
    for n, turns in enumerate(scenario["sessions"], 1):
        requests += _send_session(client, bench, key, f"{prefix}-s{n}", scenario["system"], turns)
    catch_ups = wait_extracted(project_pk, requests)
    sent = [
        {"role": "system", "content": scenario["system"]},
        {"role": "user", "content": scenario["first_request"]},
    ]
    body, ms = _post(client, bench, key, f"{prefix}-new", sent)
    out = score_request(scenario, sent, body.get("messages", []))
    out.update(
        requests=requests + 1,
        extraction_catch_ups=catch_ups,
        first_request_ms=ms,
        seconds=time.perf_counter() - started,
        forwarded=body.get("messages", []),
    )
    return out


def _aggregate(rows: list[dict]) -> dict:
    labels = sum(r["recall"]["n"] for r in rows)
    covered = sum(r["recall"]["covered"] for r in rows)
    superseded = sum(r["superseded"] for r in rows)
    return {
        "scenarios": len(rows),
        "labelled_decisions": labels,
        "covered": covered,
        "recall": covered / labels if labels else None,
        "macro_recall": sum(r["recall"]["recall"] for r in rows) / len(rows) if rows else None,
        "superseded_labels": superseded,
        "superseded_shown_in_force": sum(len(r["superseded_shown_in_force"]) for r in rows),
        "preamble_tokens": {
            "total": sum(r["preamble_tokens"] for r in rows),
            "mean": sum(r["preamble_tokens"] for r in rows) / len(rows) if rows else None,
            "max": max((r["preamble_tokens"] for r in rows), default=0),
        },
        "forwarded_tokens": {
            "total": sum(r["forwarded_tokens"] for r in rows),
            "mean": sum(r["forwarded_tokens"] for r in rows) / len(rows) if rows else None,
        },
    }


def run(names: Sequence[str] | None = None, show: bool = True) -> dict:
    import os

    import httpx

    from benchmarks.harness import Bench, run_metadata

    # The profile measured is the embedded one: extraction eager in the proxy's process. With a
    # Redis broker it would wait for a worker of another database.
    os.environ.pop("REDIS_URL", None)
    scenarios = load_scenarios(CORPUS, names)
    results = run_metadata("project_memory")
    results.update(
        model=MODEL,
        tokenizer="cl100k_base (memory.graph.tokens)",
        memory_budget=MEMORY_BUDGET,
        profile="embedded (SQLite, eager extraction), app under uvicorn in its own process",
        corpus={
            "path": "benchmarks/corpus/projects",
            "files": {s["file"]: s["sha256"] for s in scenarios},
        },  # fmt: skip
        scenarios=[],
    )
    with Bench() as bench, httpx.Client(timeout=httpx.Timeout(120, connect=10)) as client:
        for scenario in scenarios:
            row = {
                "file": scenario["file"],
                "project": scenario["project"],
                "domain": scenario["domain"],
                "sessions": len(scenario["sessions"]) + 1,
                "labelled": scenario["in_force"],
                "superseded": len(scenario.get("superseded", [])),
                "first_request": scenario["first_request"],
            }
            for variant, budget in VARIANTS.items():
                row[variant] = run_scenario(bench, client, scenario, variant, budget)
            results["scenarios"].append(row)
            if show:
                m, b = row["memory"], row["baseline"]
                print(
                    f"project memory: {scenario['project']}: recall {m['recall']['recall']:.0%} "
                    f"(baseline {b['recall']['recall']:.0%}), preamble {m['preamble_tokens']} tokens",
                    file=sys.stderr,
                    flush=True,
                )
        results["proxy_log"] = [
            line for line in bench.proxy_log().splitlines() if "kombu" not in line
        ][-20:]
    flat = {
        v: [{**s[v], "superseded": s["superseded"]} for s in results["scenarios"]] for v in VARIANTS
    }
    results["aggregate"] = {v: _aggregate(rows) for v, rows in flat.items()}
    return results


# --- report --------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def markdown(results: dict) -> str:
    from benchmarks.report import table

    agg = results["aggregate"]
    rows = []
    for s in results["scenarios"]:
        m, b = s["memory"], s["baseline"]
        rows.append([
            s["project"], s["domain"], str(s["sessions"]),
            f"{m['recall']['covered']} / {m['recall']['n']} ({_pct(m['recall']['recall'])})",
            f"{b['recall']['covered']} / {b['recall']['n']} ({_pct(b['recall']['recall'])})",
            f"{len(m['superseded_shown_in_force'])} / {s['superseded']}",
            str(m["preamble_tokens"]), f"{m['forwarded_tokens']:,}", f"{b['forwarded_tokens']:,}",
        ])  # fmt: skip
    overall = [[
        "**all**", "", "",
        f"{agg['memory']['covered']} / {agg['memory']['labelled_decisions']} ({_pct(agg['memory']['recall'])})",
        f"{agg['baseline']['covered']} / {agg['baseline']['labelled_decisions']} ({_pct(agg['baseline']['recall'])})",
        f"{agg['memory']['superseded_shown_in_force']} / {agg['memory']['superseded_labels']}",
        f"{agg['memory']['preamble_tokens']['mean']:.0f} mean, {agg['memory']['preamble_tokens']['max']} max",
        f"{agg['memory']['forwarded_tokens']['mean']:.0f} mean", f"{agg['baseline']['forwarded_tokens']['mean']:.0f} mean",
    ]]  # fmt: skip
    lines = [
        f"# Project memory — {len(results['scenarios'])} projects through the proxy",
        "",
        f"tokenmizer {results['code_version']}, commit {results['git_commit'] or 'none'}"
        f"{' (working tree changed)' if results.get('working_tree_changes') else ''}, {results['date']}, "
        f"Python {results['python']}, {results['machine']['platform']} ({results['machine']['cpu_count']} CPUs); "
        f"{results['profile']}. Tokens: {results['tokenizer']}.",
        "",
        "Each project's earlier sessions go through the proxy turn by turn; then a new session's first "
        "request (its system prompt and one user message that does not name the decisions). Recall: the "
        "labelled decisions in force at the end of the earlier sessions that a sentence of the forwarded "
        f"request covers (benchmarks.scoring). Memory: Project.memory_budget = {results['memory_budget']} "
        "tokens; baseline: the same scenario in a project with memory off (0).",
        "",
        *table(
            [
                "project",
                "domain",
                "sessions",
                "recall, memory",
                "recall, baseline",
                "superseded shown in force",
                "preamble tokens",
                "forwarded tokens, memory",
                "forwarded tokens, baseline",
            ],
            rows + overall,
        ),  # fmt: skip
        "",
        f"Macro recall: memory {_pct(agg['memory']['macro_recall'])}, baseline {_pct(agg['baseline']['macro_recall'])}.",
        "",
        "Superseded shown in force: labelled superseded decisions that a line of the preamble's "
        "*Decisions in force* section covers, unless that line covers a labelled decision in force "
        "more (the replacement, which shares most of its words). Standing knowledge leaves out "
        "what the graph marks "
        "superseded; a count here means extraction did not link the replacement to the decision it "
        "replaced (indirect phrasing), so the graph still holds both in force.",
        "",
        "## Missed decisions (memory on)",
        "",
    ]
    for s in results["scenarios"]:
        misses = s["memory"]["recall"]["misses"]
        if misses:
            lines.append(f"- {s['project']}: " + "; ".join(f"“{m}”" for m in misses))
    if not any(s["memory"]["recall"]["misses"] for s in results["scenarios"]):
        lines.append("None.")
    return "\n".join(lines) + "\n"


def chart(results: dict, path: Path) -> None:
    """Recall per project, memory on against off, with the preamble's tokens written on each bar."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scenarios = results["scenarios"]
    names = [s["project"] for s in scenarios]
    x = range(len(names))
    fig, ax = plt.subplots(figsize=(9, 4.8), dpi=120)
    mem = [s["memory"]["recall"]["recall"] for s in scenarios]
    base = [s["baseline"]["recall"]["recall"] for s in scenarios]
    bars = ax.bar([i - 0.2 for i in x], mem, 0.4, color="#1f6feb", label="memory on (budget 400)")
    ax.bar([i + 0.2 for i in x], base, 0.4, color="#8b949e", label="memory off (baseline)")
    for bar, s in zip(bars, scenarios, strict=True):
        ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height() + 0.02,
                f"{s['memory']['preamble_tokens']} t", ha="center", fontsize=7)  # fmt: skip
    ax.set_xticks(list(x), names, rotation=20, ha="right", fontsize=8)
    ax.set_ylim(0, 1.3)
    ax.set_ylabel("labelled decisions recalled in the first request")
    ax.set_title("Project memory: what a new session's first request carries")
    ax.legend(loc="upper left", fontsize=8, ncol=2)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.project_memory", description=__doc__
    )
    parser.add_argument(
        "--out", required=True, type=Path, help="results JSON; .md and .png beside it"
    )
    parser.add_argument(
        "--scenario", action="append", help="run only this scenario (file stem); repeatable"
    )
    parser.add_argument("--no-chart", action="store_true", help="write the JSON and .md only")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    results = run(args.scenario, show=not args.quiet)
    from benchmarks.harness import write_json

    write_json(results, args.out)
    paths = [args.out, args.out.with_suffix(".md")]
    paths[1].write_text(markdown(results), encoding="utf-8")
    if not args.no_chart:
        paths.append(args.out.with_suffix(".png"))
        chart(results, paths[-1])
    agg = results["aggregate"]
    print(
        f"recall: memory {_pct(agg['memory']['recall'])}, baseline {_pct(agg['baseline']['recall'])}; "
        "wrote " + ", ".join(map(str, paths)),
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
