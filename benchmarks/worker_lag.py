"""Worker lag: how soon one Celery worker puts a reply's facts in the graph under 50 live sessions.

    .venv/bin/python -m benchmarks.worker_lag --out benchmarks/results/worker_lag.json

PostgreSQL (a throwaway database, created and dropped here) and Redis (DB 15, on a queue of its
own so no other worker takes the jobs); the app under uvicorn in a subprocess with the loopback
upstream in another; ONE worker process (``--concurrency=1``). Each scenario drives ``--sessions``
conversations at once, each a growing history of facts in natural phrasing, and measures the lag
from a response's end (client side) to the session's high-water mark reaching the reply (polled),
the worker's job times (its log) and throughput, then where a job's time goes (an in-process
profile of incremental extraction on the largest session).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from statistics import median

from benchmarks.harness import (
    free_port,
    percentile,
    progress,
    run_metadata,
    stop_process,
    summary_ms,
    wait_listening,
    write_results,
)

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
PG_SERVER = "postgres://postgres@127.0.0.1:5432"
DB_NAME = "tokenmizer_bench"
REDIS_URL = "redis://127.0.0.1:6379/15"
QUEUE = "worker-lag"
WORKER = "worker-lag@127.0.0.1"
POLL_S = 0.02
TARGET_P95_MS = 1000.0
KEY_PK = 900_001  # far from the test suites' key ids: rate-limit counters in Redis are per key id
# (name, model, think seconds, loopback drip delay): a paced load, then a flat-out one.
SCENARIOS = [
    ("llm-paced", "drip", 3.0, 0.4),  # 2 s to answer (a short LLM reply), 3 s to the next turn
    ("paced", "drip", 1.0, 0.1),  # 0.5 s to answer, 1 s before the next turn
    ("back-to-back", "echo", 0.0, 0.0),  # each session sends its next turn the moment it can
]
SERVICES = ["checkout", "billing", "search", "inventory", "notifications"]
STORES = ["PostgreSQL", "Redis", "SQLite", "DynamoDB"]


def user_turn(session: int, turn: int) -> str:
    """A user message stating one fact in natural phrasing, different for every session and turn."""
    s, t = SERVICES[session % len(SERVICES)], turn
    table, feature = f"{s}_table_{session}_{t}", f"{s} feature {session}.{t}"
    phrases = [
        f"We're building the {s} service {session} in Django 5.2 on Python 3.11.",
        f"Decided: {STORES[t % len(STORES)]} for {s} {session} storage at step {t}.",
        f"TODO: write the migration for the {table} table.",
        f"Let's hold off on the {feature}.",
        f"Done: the tests for src/{s}/module_{session}_{t}.py pass now.",
        f"Error: ValueError in src/{s}/handler_{session}_{t}.py when the total is negative.",
        f"We're going with httpx for the {s} {session} client calls at step {t}.",
        f"Completed: POST /{s}/{session}/items/{t} endpoint.",
    ]
    return (
        f"Step {t}. {phrases[t % len(phrases)]} Please review the change and tell me what is next."
    )


# --- services ------------------------------------------------------------------------------------


def admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as conn:
        conn.execute(sql)


class Stack:
    """The throwaway database, the loopback, the proxy and one worker; closed in reverse."""

    def __init__(self, drip_delay: float) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="tokenmizer-worker-lag-"))
        self.drip_delay = drip_delay
        self.env = dict(
            os.environ,
            DATABASE_URL=f"{PG_SERVER}/{DB_NAME}",
            REDIS_URL=REDIS_URL,
            DEBUG="0",
            SECRET_KEY=secrets.token_urlsafe(48),
            LOG_LEVEL="WARNING",
            DJANGO_SETTINGS_MODULE="tokenmizer_site.settings",
        )
        self.procs: list[subprocess.Popen] = []
        self.logs: list = []

    def spawn(self, name: str, command: list[str], env: dict) -> subprocess.Popen:
        log = open(self.tmp / f"{name}.log", "wb")  # noqa: SIM115 (closed in close())
        self.logs.append(log)
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(proc)
        return proc

    def start(self) -> Stack:
        upstream_port, proxy_port = free_port(), free_port()
        loopback = self.spawn(
            "loopback",
            [sys.executable, "-m", "proxy.loopback", "--host", HOST, "--port", str(upstream_port),
             "--drip-delay", str(self.drip_delay)],
            self.env,
        )  # fmt: skip
        wait_listening(upstream_port, lambda: loopback.poll() is None)
        env = dict(self.env, TOKENMIZER_UPSTREAM_URL=f"http://{HOST}:{upstream_port}/v1")
        proxy = self.spawn(
            "proxy",
            [sys.executable, "-m", "benchmarks.worker_lag", "--serve", str(proxy_port)],
            dict(env, BENCH_EVENTS=str(self.tmp / "proxy.events")),
        )
        wait_listening(proxy_port, lambda: proxy.poll() is None)
        self.proxy_url = f"http://{HOST}:{proxy_port}"
        worker = self.spawn(
            "worker",
            [sys.executable, "-m", "benchmarks.worker_lag", "--work"],
            dict(self.env, LOG_LEVEL="INFO", BENCH_EVENTS=str(self.tmp / "worker.events")),
        )
        from tokenmizer_site.celery import app

        deadline = time.monotonic() + 60
        while not app.control.ping(destination=[WORKER], timeout=0.5):
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the worker did not start; its log:\n{self.log('worker')[-3000:]}"
                )
        return self

    def log(self, name: str) -> str:
        path = self.tmp / f"{name}.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def close(self) -> None:
        for proc in reversed(self.procs):
            stop_process(proc)
        for log in self.logs:
            log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def setup_database() -> dict:
    """A fresh database with a user, a project whose limits are lifted, and a key."""
    admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
    admin(f"CREATE DATABASE {DB_NAME}")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connections

    from memory.projects import create_project
    from proxy.keys import create_key
    from proxy.models import ApiKey

    call_command("migrate", verbosity=0, interactive=False)
    user = get_user_model().objects.create_user("bench", password=secrets.token_urlsafe(16))
    project = create_project("Worker lag benchmark", user)
    project.requests_per_minute, project.tokens_per_minute = 1_000_000, 2_000_000_000
    project.save()
    key, plaintext = create_key(user, project, "bench")
    ApiKey.objects.filter(pk=key.pk).update(id=KEY_PK)
    connections.close_all()
    return {"project": project.pk, "key": plaintext}


# --- load and observation ------------------------------------------------------------------------


class Watcher(threading.Thread):
    """Polls every session's high-water mark; resolves each reply's lag when the graph reaches it."""

    def __init__(self, project: int, prefix: str) -> None:
        super().__init__(daemon=True)
        self.project, self.prefix = project, prefix
        self.lock = threading.Lock()
        self.pending: dict[str, list[tuple[int, float]]] = {}
        self.lags: list[tuple[float, float]] = []  # (response end, lag s)
        self.resolved: list[tuple[str, float, float]] = []  # (session, response end, seen)
        self.ids: dict[str, int] = {}  # session external id -> pk
        self.series: list[tuple[float, int, int]] = []  # (t, messages stored, messages extracted)
        self.stop = threading.Event()

    def expect(self, session: str, position: int, ended: float) -> None:
        with self.lock:
            self.pending.setdefault(session, []).append((position, ended))

    def outstanding(self) -> int:
        with self.lock:
            return sum(len(v) for v in self.pending.values())

    def run(self) -> None:
        import psycopg

        with psycopg.connect(f"{PG_SERVER}/{DB_NAME}", autocommit=True) as conn:
            last_series = 0.0
            while not self.stop.is_set():
                seen = time.monotonic()
                found = conn.execute(
                    "SELECT external_id, high_water, id FROM memory_session "
                    "WHERE project_id = %s AND external_id LIKE %s",
                    (self.project, self.prefix + "%"),
                ).fetchall()
                self.ids.update({name: pk for name, _, pk in found})
                rows = [(name, hw) for name, hw, _ in found]
                self.resolve(dict(rows), seen)
                if seen - last_series >= 0.25:
                    stored = conn.execute(
                        "SELECT count(*) FROM memory_message m JOIN memory_session s "
                        "ON s.id = m.session_id WHERE s.external_id LIKE %s",
                        (self.prefix + "%",),
                    ).fetchone()[0]
                    extracted = sum(hw + 1 for hw in dict(rows).values())
                    self.series.append((seen, stored, extracted))
                    last_series = seen
                time.sleep(POLL_S)

    def resolve(self, high_water: dict[str, int], seen: float) -> None:
        with self.lock:
            for session, waiting in self.pending.items():
                hw = high_water.get(session, -1)
                done = [(p, e) for p, e in waiting if p <= hw]
                if done:
                    self.lags += [(e, seen - e) for _, e in done]
                    self.resolved += [(session, e, seen) for _, e in done]
                    self.pending[session] = [(p, e) for p, e in waiting if p > hw]


async def converse(http, url: str, key: str, name: str, n: int, model: str, turns: int,
                   think: float, deadline: float, watcher: Watcher, errors: list) -> int:  # fmt: skip
    headers = {"Authorization": f"Bearer {key}", "X-Session-Id": name}
    history: list[dict] = []
    # Pauses drawn from 0.5-1.5x the think time (seeded per session), the start spread over one
    # pause: people and agents are not in step, so the requests come as a stream, not in waves.
    pauses = random.Random(n)
    await asyncio.sleep(pauses.uniform(0, 1.5 * think))
    sent = 0
    for turn in range(turns):
        if time.monotonic() > deadline:
            break
        history.append({"role": "user", "content": user_turn(n, turn)})
        response = await http.post(url, json={"model": model, "messages": history}, headers=headers)
        ended = time.monotonic()
        sent += 1
        if response.status_code != 200:
            errors.append(response.status_code)
            history.pop()
            continue
        history.append(
            {"role": "assistant", "content": response.json()["choices"][0]["message"]["content"]}
        )
        watcher.expect(name, len(history) - 1, ended)
        if think:
            await asyncio.sleep(pauses.uniform(0.5 * think, 1.5 * think))
    return sent


async def drive(stack: Stack, db: dict, scenario: tuple, args, watcher: Watcher) -> dict:
    import httpx

    name, model, think, _ = scenario
    url = f"{stack.proxy_url}/v1/chat/completions"
    errors: list = []
    limits = httpx.Limits(
        max_connections=args.sessions * 2, max_keepalive_connections=args.sessions
    )
    started = time.monotonic()
    deadline = started + args.max_seconds
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        sent = await asyncio.gather(*(
            converse(http, url, db["key"], f"{name}-{n}", n, model, args.turns, think, deadline, watcher, errors)
            for n in range(args.sessions)
        ))  # fmt: skip
    return {"requests": sum(sent), "errors": errors, "load_seconds": time.monotonic() - started}


JOB_LINE = re.compile(
    r"Task memory\.tasks\.extract_session\[[^\]]+\] succeeded in ([0-9.]+)s: (\S+)"
)


def job_times(log: str) -> tuple[list[float], int]:
    """Job run times (ms) from the worker's log, and how many found nothing new (duplicates)."""
    found = JOB_LINE.findall(log)
    return [float(s) * 1000 for s, _ in found], sum(1 for _, r in found if r in ("0", "None"))


def read_events(path: Path) -> dict[tuple[str, int], list[float]]:
    """Event times by (kind, session pk), in order."""
    events: dict[tuple[str, int], list[float]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            kind, session, at = line.split()
            events.setdefault((kind, int(session)), []).append(float(at))
    return {k: sorted(v) for k, v in events.items()}


def first_after(times: list[float], after: float) -> float | None:
    return next((t for t in times if t >= after), None)


def breakdown(watcher: Watcher, events: dict, offset: float) -> dict:
    """Each reply's lag in stages: recorded and queued, waiting in the queue, the job, observed.

    Recorded = response end to the job's publication (the proxy records after the response);
    waiting = publication to the first job of that session starting after it; job = its run;
    observed = its end to the poll that saw the graph there. Replies an earlier job already
    covered are left out (their lag has no job of their own).
    """
    stages: dict[str, list[float]] = {"recorded": [], "waiting": [], "job": [], "observed": []}
    for session, ended, seen in watcher.resolved:
        pk = watcher.ids.get(session)
        end_wall, seen_wall = ended + offset, seen + offset
        sent = first_after(events.get(("sent", pk), []), end_wall - 0.05)
        start = sent and first_after(events.get(("start", pk), []), sent)
        stop = start and first_after(events.get(("end", pk), []), start)
        if not stop or stop > seen_wall + 0.2:  # the end is noted after the commit the poll saw
            continue
        for name, a, b in (("recorded", end_wall, sent), ("waiting", sent, start), ("job", start, stop),
                           ("observed", stop, seen_wall)):  # fmt: skip
            stages[name].append(max(0.0, b - a) * 1000)
    return {name: summary_ms(values) for name, values in stages.items()}


def purge_queue() -> int:
    """Empty this benchmark's queue (only it: other suites share the Redis database)."""
    from tokenmizer_site.celery import app

    with app.connection_for_write() as conn:
        return conn.default_channel.queue_purge(QUEUE) or 0


def worker_problems(log: str) -> list[str]:
    """The worker's warnings and errors (retries, failures), at most 20 lines."""
    lines = [
        line
        for line in log.splitlines()
        if '"level": "WARNING"' in line or '"level": "ERROR"' in line
    ]
    return lines[:20]


def run_scenario(db: dict, scenario: tuple, args) -> dict:
    name, model, think, drip = scenario
    purge_queue()
    progress(f"[{name}] starting the proxy, the loopback and one worker")
    stack = Stack(drip).start()
    watcher = Watcher(db["project"], f"{name}-")
    offset = time.time() - time.monotonic()  # the events are wall-clock, the client monotonic
    try:
        watcher.start()
        progress(
            f"[{name}] {args.sessions} sessions x {args.turns} turns, think {think} s, model {model}"
        )
        load = asyncio.run(drive(stack, db, scenario, args, watcher))
        progress(f"[{name}] {load['requests']} requests in {load['load_seconds']:.1f} s; draining")
        drain_start = time.monotonic()
        while watcher.outstanding() and time.monotonic() < drain_start + args.drain_seconds:
            time.sleep(0.1)
        drained = time.monotonic() - drain_start
        time.sleep(0.3)
    finally:
        watcher.stop.set()
        watcher.join(timeout=5)
        worker_log = stack.log("worker")
        events = read_events(stack.tmp / "proxy.events")
        events.update(read_events(stack.tmp / "worker.events"))
        stack.close()
        left = purge_queue()
    runtimes, duplicates = job_times(worker_log)
    lags_ms = [lag * 1000 for _, lag in watcher.lags]
    t0 = watcher.series[0][0] if watcher.series else 0.0
    extracted = watcher.series[-1][2] if watcher.series else 0
    busy_s = sum(runtimes) / 1000
    result = {
        "scenario": name, "model": model, "think_seconds": think, "upstream_drip_delay_s": drip,
        "sessions": args.sessions, "turns_per_session": args.turns, **load,
        "requests_per_second": load["requests"] / load["load_seconds"],
        "lag_ms": summary_ms(lags_ms),
        "lag_stages_ms": breakdown(watcher, events, offset),
        "replies_not_in_graph_after_drain": watcher.outstanding(),
        "target_p95_ms": TARGET_P95_MS,
        "meets_target": bool(lags_ms) and percentile(lags_ms, 95) < TARGET_P95_MS,
        "jobs": {"count": len(runtimes), "found_nothing_new": duplicates, "run_ms": summary_ms(runtimes)},
        "jobs_left_in_queue": left,
        "worker_problems": worker_problems(worker_log),
        "messages_extracted": extracted,
        "worker_busy_seconds": busy_s,
        "drain_seconds": drained,
        "worker_busy_share": busy_s / (load["load_seconds"] + drained),
        "messages_per_worker_second": extracted / busy_s if busy_s else None,
        "lag_over_time": [(round(e - t0, 3), round(lag * 1000, 1)) for e, lag in watcher.lags],
        "backlog_over_time": [(round(t - t0, 3), s, x) for t, s, x in watcher.series],
    }  # fmt: skip
    progress(f"[{name}] lag p50/p95/p99 = {fmt(result['lag_ms'])} ms; jobs {len(runtimes)}; "
             f"{result['messages_per_worker_second'] or 0:.0f} messages per worker-second")  # fmt: skip
    return result


def fmt(summary: dict) -> str:
    return " / ".join(
        "–" if summary[k] is None else f"{summary[k]:.0f}" for k in ("p50", "p95", "p99")
    )


# --- where a job's time goes ---------------------------------------------------------------------


def replay(scenario: str, suffix: str, rounds: int):
    """A copy of the scenario's largest session, extracted up to ``rounds`` exchanges from its end;
    yields after recording each further exchange (two messages), for one job to extract."""
    from memory import graphs
    from memory.models import Session
    from memory.transcripts import record_messages

    source = max(
        Session.objects.filter(external_id__startswith=f"{scenario}-"),
        key=lambda s: s.messages.count(),
    )
    messages = [
        {"role": m.role, "content": m.content} for m in source.messages.order_by("position")
    ]
    copy = Session.objects.create(
        project=source.project, user=source.user, external_id=f"profile-{scenario}-{suffix}"
    )
    start = max(0, len(messages) - 2 * rounds)
    record_messages(copy, messages[:start])
    graphs.extract_session(copy.pk)
    for upto in range(start + 2, len(messages) + 1, 2):
        record_messages(copy, messages[:upto])
        yield copy


def profile_jobs(scenario: str, rounds: int = 20) -> dict:
    """Incremental jobs in-process on the largest session: phase by phase, then the whole task
    body (checkpoint check and dashboard notification included) under cProfile."""
    from django.db import transaction

    from memory import graphs, tasks
    from memory.graph import pipeline
    from memory.models import Session

    phases: dict[str, list[float]] = {
        k: [] for k in ("lock", "load", "turns", "extract", "save", "commit")
    }
    for copy in replay(scenario, "phases", rounds):
        t = [time.perf_counter()]
        with transaction.atomic():
            session = Session.objects.select_for_update().get(pk=copy.pk)
            t.append(time.perf_counter())
            graph, rows = graphs.load_with_rows(session)
            t.append(time.perf_counter())
            turns = graphs.turns_of(session, after=session.high_water - pipeline.CONTEXT_TURNS)
            t.append(time.perf_counter())
            pipeline.extract_into(graph, turns, time.time())
            t.append(time.perf_counter())
            graphs.save_graph(session, graph, rows)
            t.append(time.perf_counter())
        t.append(time.perf_counter())
        for name, a, b in zip(phases, t, t[1:], strict=False):
            phases[name].append((b - a) * 1000)
    profiler, whole = cProfile.Profile(), []
    for copy in replay(scenario, "task", rounds):
        began = time.perf_counter()
        tasks.extract_session(copy.pk)  # the task body, run here: no broker, no worker
        whole.append((time.perf_counter() - began) * 1000)
    for copy in replay(scenario, "profiled", rounds):
        profiler.enable()
        tasks.extract_session(copy.pk)
        profiler.disable()
    return {
        "session_messages": copy.messages.count(), "graph_nodes": copy.nodes.count(), "jobs": len(whole),
        "median_ms": {k: median(v) for k, v in phases.items() if v},
        "task_body_ms": summary_ms(whole),
        "top_functions": hot_spots(profiler, len(whole)),
    }  # fmt: skip


def hot_spots(profiler: cProfile.Profile, jobs: int, top: int = 12) -> list[dict]:
    """The functions with the most time of their own, per job (the profiler's overhead included)."""
    stats = pstats.Stats(profiler)
    rows = sorted(stats.stats.items(), key=lambda item: item[1][2], reverse=True)[:top]
    return [
        {"function": f"{Path(file).name}:{line}:{name}", "own_ms_per_job": own * 1000 / max(jobs, 1),
         "cumulative_ms_per_job": cum * 1000 / max(jobs, 1), "calls_per_job": calls / max(jobs, 1)}
        for (file, line, name), (_, calls, own, cum, _) in rows
    ]  # fmt: skip


# --- report --------------------------------------------------------------------------------------


def markdown(results: dict) -> str:
    lines = [
        "# Worker lag", "",
        f"{results['date']}, commit {(results['git_commit'] or '?')[:10]}, "
        f"{results['machine']['cpu_count']} CPUs, load at start {results['machine']['load_average_at_start']}. "
        f"One Celery worker process (concurrency 1), PostgreSQL + Redis, the proxy under uvicorn, "
        f"the loopback upstream. Lag = response end (client) → the session's high-water mark "
        f"reaching the reply (polled every {POLL_S * 1000:.0f} ms). Target: p95 < {TARGET_P95_MS:.0f} ms.",
        "",
        "| scenario | sessions × turns | requests/s | lag p50 / p95 / p99 / max ms | target | jobs (no-op) "
        "| job ms p50 / p95 | worker busy | messages / worker-s | not caught up | errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for r in results["scenarios"]:
        lag, job = r["lag_ms"], r["jobs"]["run_ms"]
        lines.append(
            f"| {r['scenario']} (think {r['think_seconds']} s) | {r['sessions']} × {r['turns_per_session']} "
            f"| {r['requests_per_second']:.1f} | {fmt(lag)} / {lag['max'] or 0:.0f} "
            f"| {'met' if r['meets_target'] else 'missed'} | {r['jobs']['count']} ({r['jobs']['found_nothing_new']}) "
            f"| {job['p50'] or 0:.0f} / {job['p95'] or 0:.0f} | {100 * (r['worker_busy_share'] or 0):.0f}% "
            f"| {r['messages_per_worker_second'] or 0:.0f} | {r['replies_not_in_graph_after_drain']} | {len(r['errors'])} |"
        )  # fmt: skip
    lines += ["", "## Where a reply's lag goes (p50 / p95 ms per stage)", "",
              "| scenario | replies | recorded and queued | waiting in the queue | the job | seen by the poll |",
              "|---|---|---|---|---|---|"]  # fmt: skip
    for r in results["scenarios"]:
        st = r["lag_stages_ms"]
        cells = [
            f"{st[k]['p50'] or 0:.0f} / {st[k]['p95'] or 0:.0f}"
            for k in ("recorded", "waiting", "job", "observed")
        ]
        lines.append(f"| {r['scenario']} | {st['job']['n']} | " + " | ".join(cells) + " |")
    lines += ["", "## Where a job's time goes (in-process, median ms per incremental job)", ""]
    lines += ["| scenario | messages | nodes | lock | load graph | read turns | extract | save graph | commit "
              "| whole task body p50 / p95 |", "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, p in results["profile"].items():
        m = p["median_ms"]
        if not m:
            continue
        lines.append(f"| {name} | {p['session_messages']} | {p['graph_nodes']} | "
                     + " | ".join(f"{m[k]:.1f}" for k in ("lock", "load", "turns", "extract", "save", "commit"))
                     + f" | {p['task_body_ms']['p50']:.1f} / {p['task_body_ms']['p95']:.1f} |")  # fmt: skip
    for name, p in results["profile"].items():
        if p.get("top_functions"):
            lines += ["", f"Hot spots, {name} (cProfile, own ms per job):", "",
                      "| function | own ms | cumulative ms | calls |", "|---|---|---|---|"]  # fmt: skip
            lines += [f"| `{f['function']}` | {f['own_ms_per_job']:.2f} | {f['cumulative_ms_per_job']:.2f} "
                      f"| {f['calls_per_job']:.0f} |" for f in p["top_functions"][:8]]  # fmt: skip
    lines += ["", "## Reading", "", *results["reading"], ""]
    return "\n".join(lines)


def chart(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = results["scenarios"]
    fig, axes = plt.subplots(2, len(runs), figsize=(6 * len(runs), 7.5), squeeze=False)
    for col, r in enumerate(runs):
        top, bottom = axes[0][col], axes[1][col]
        lags = sorted(lag for _, lag in r["lag_over_time"])
        if lags:
            top.plot(lags, [(i + 1) / len(lags) for i in range(len(lags))])
        top.axvline(TARGET_P95_MS, color="red", linestyle="--", label="target p95")
        top.axhline(0.95, color="grey", linestyle=":")
        top.set_xscale("log")
        top.set(title=f"{r['scenario']}: lag CDF", xlabel="lag (ms)", ylabel="share of replies")
        top.legend()
        xs = [t for t, _ in r["lag_over_time"]]
        bottom.scatter(xs, [lag for _, lag in r["lag_over_time"]], s=4, label="lag of a reply")
        bottom.set(
            title=f"{r['scenario']}: lag over time", xlabel="s since start", ylabel="lag (ms)"
        )
        bottom.set_ylim(bottom=0)
        backlog = bottom.twinx()
        series = r["backlog_over_time"]
        backlog.plot(
            [t for t, _, _ in series],
            [s - x for _, s, x in series],
            color="orange",
            label="messages not yet extracted",
        )
        backlog.set_ylabel("backlog (messages)")
        backlog.set_ylim(bottom=0)
        bottom.legend(loc="upper left")
        backlog.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def reading(results: dict) -> list[str]:
    """Plain sentences on what the figures say, computed from them."""
    out = []
    for r in results["scenarios"]:
        lag, job, st = r["lag_ms"], r["jobs"]["run_ms"], r["lag_stages_ms"]
        verdict = "meets" if r["meets_target"] else "misses"
        out.append(
            f"- {r['scenario']}: {r['requests_per_second']:.1f} requests/s ({2 * r['requests_per_second']:.0f} "
            f"messages/s to extract) from {r['sessions']} sessions; lag p50 {lag['p50'] or 0:.0f} ms, p95 "
            f"{lag['p95'] or 0:.0f} ms: {verdict} the {TARGET_P95_MS:.0f} ms target. Of a reply's lag (p50 per "
            f"stage), {st['recorded']['p50'] or 0:.0f} ms to record it and queue its job, "
            f"{st['waiting']['p50'] or 0:.0f} ms waiting in the queue, {st['job']['p50'] or 0:.0f} ms for the job. "
            f"The worker was busy {100 * (r['worker_busy_share'] or 0):.0f}% of the time and extracted "
            f"{r['messages_per_worker_second'] or 0:.0f} messages per busy second; jobs took {job['p50'] or 0:.0f} ms "
            f"(p50), {job['p95'] or 0:.0f} ms (p95)."
        )  # fmt: skip
        offered, capacity = 2 * r["requests_per_second"], r["messages_per_worker_second"] or 0
        if not r["meets_target"] and offered > 0.8 * capacity:
            out.append(
                f"  Saturated: {offered:.0f} messages/s offered against about {capacity:.0f} per busy second of "
                f"the one worker, so jobs queue and the lag grows while the load lasts (the chart's backlog); "
                f"queued jobs of a session that an earlier job caught up on return at once "
                f"({r['jobs']['found_nothing_new']} of {r['jobs']['count']} returned 0)."
            )  # fmt: skip
    for name, p in results["profile"].items():
        m, body = p["median_ms"], p.get("task_body_ms") or {}
        if not m or not body.get("p50"):
            continue
        worker = (
            next(r for r in results["scenarios"] if r["scenario"] == name)["jobs"]["run_ms"]["p50"]
            or 0
        )
        hot = {f["function"]: f for f in p.get("top_functions", [])}
        sql = sum(
            f["own_ms_per_job"]
            for k, f in hot.items()
            if "_execute_send" in k or "connection.py" in k
        )
        locks = sum(f["own_ms_per_job"] for k, f in hot.items() if "_thread.lock" in k)
        out.append(
            f"- {name}, in-process after the load: the whole task body takes {body['p50']:.0f} ms (p50) on a "
            f"{p['session_messages']}-message session ({p['graph_nodes']} nodes). `graphs.extract_session` is "
            f"{sum(m.values()):.0f} ms of it, extraction proper only {m['extract']:.1f} ms (save {m['save']:.1f}, "
            f"load {m['load']:.1f}, read turns {m['turns']:.1f} ms); the rest is the checkpoint check and the "
            f"dashboard notification (`async_to_sync` around channels_redis' group_send: {locks:.1f} ms of "
            f"thread-lock waits per job in the profile). About {sql:.0f} ms per job are PostgreSQL round trips "
            f"(~20 queries). In the worker under load a job took {worker:.0f} ms: CPU contention and Celery's "
            f"per-job work make the difference."
        )  # fmt: skip
    return out


# --- entry points --------------------------------------------------------------------------------


def note(kind: str, session_id, **_) -> None:
    """Append ``kind session time`` to this process's event file (read back for the breakdown)."""
    with open(os.environ["BENCH_EVENTS"], "a", encoding="utf-8") as events:
        events.write(f"{kind} {session_id} {time.time():.6f}\n")


def on_publish(headers=None, body=None, **_) -> None:
    if headers and headers.get("task") == "memory.tasks.extract_session":
        note("sent", body[0][0])


def on_start(task_id=None, task=None, args=None, **_) -> None:
    if task.name == "memory.tasks.extract_session":
        note("start", args[0])


def on_end(task_id=None, task=None, args=None, **_) -> None:
    if task.name == "memory.tasks.extract_session":
        note("end", args[0])


def work() -> None:
    """The worker process: one Celery worker on this benchmark's queue, noting each job's run."""
    from celery.signals import task_postrun, task_prerun

    from tokenmizer_site.celery import app

    task_prerun.connect(on_start, weak=False)
    task_postrun.connect(on_end, weak=False)
    app.worker_main(["worker", "--loglevel=INFO", "--concurrency=1", "--pool=prefork", "-Q", QUEUE,
                     "-n", WORKER, "--without-gossip", "--without-mingle", "--without-heartbeat"])  # fmt: skip


def serve(port: int) -> None:
    """The proxy process: the app under uvicorn, its jobs sent to this benchmark's queue."""
    from celery.signals import after_task_publish

    from tokenmizer_site.celery import app

    app.conf.task_default_queue = QUEUE
    after_task_publish.connect(on_publish, weak=False)
    import uvicorn

    uvicorn.run("tokenmizer_site.asgi:application", host=HOST, port=port, lifespan="off",
                log_level="warning", access_log=False)  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.worker_lag", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/worker_lag.json"))
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--turns", type=int, default=20, help="turns per session (bounded count)")
    parser.add_argument(
        "--max-seconds", type=float, default=120, help="load time per scenario (bound)"
    )
    parser.add_argument(
        "--drain-seconds", type=float, default=120, help="wait for the worker after the load"
    )
    parser.add_argument("--scenario", choices=[s[0] for s in SCENARIOS], action="append")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--work", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--report-only", action="store_true", help="rewrite .md/.png from --out")
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.serve)
    if args.work:
        return work()
    if args.report_only:
        return write_report(json.loads(args.out.read_text(encoding="utf-8")), args.out)
    for name, value in (("DATABASE_URL", f"{PG_SERVER}/{DB_NAME}"), ("REDIS_URL", REDIS_URL),
                        ("DEBUG", "0"), ("SECRET_KEY", secrets.token_urlsafe(48)), ("LOG_LEVEL", "WARNING")):  # fmt: skip
        os.environ[name] = value  # read by settings.py, so before django.setup()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tokenmizer_site.settings")
    results = run_metadata("worker_lag")
    results["setup"] = {"database": f"PostgreSQL {DB_NAME} (created and dropped)", "redis": REDIS_URL,
                        "queue": QUEUE, "worker": "1 process, --concurrency=1, prefork", "poll_ms": POLL_S * 1000}  # fmt: skip
    progress(f"creating the database {DB_NAME}")
    try:
        db = setup_database()
        chosen = [s for s in SCENARIOS if not args.scenario or s[0] in args.scenario]
        results["scenarios"] = [run_scenario(db, s, args) for s in chosen]
        progress("profiling incremental jobs in-process")
        results["profile"] = {s[0]: profile_jobs(s[0]) for s in chosen}
    finally:
        from django.db import connections

        connections.close_all()
        admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
    write_report(results, args.out)


def write_report(results: dict, out: Path) -> None:
    results["reading"] = reading(results)
    write_results(results, out, markdown, chart)
    progress(f"wrote {out}, .md and .png")


if __name__ == "__main__":
    main()
