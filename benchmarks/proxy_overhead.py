"""Proxy overhead: the latency the proxy adds over calling the loopback upstream directly.

Sequential requests alternate between the upstream and the proxy with the same body, so machine
noise hits both; the added latency of a percentile is the proxy's minus the upstream's. Time to
first byte is measured on streams, total time on plain JSON answers, each with the session
pipeline off (no session id) and on (a growing tool-using conversation under the compaction
threshold). Then 200 streams at once through the proxy, counting errors.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from benchmarks.harness import (
    Bench,
    percentile,
    progress,
    run_metadata,
    summary_ms,
    write_results,
)
from benchmarks.token_economy import file_text, generate_session, test_output

# paced: a pause after each pair, as a real upstream's seconds of generation would leave, so the
# previous exchange's recording and eager extraction are over before the next request comes.
# bare-relay: the floor of this stack, uvicorn plus one httpx client relaying bytes (no Django, no
# database), measured the same way to tell the server and HTTP client's share from the proxy's own.
# passthrough-paced: the same pause without a session, for what waking up after a pause costs any
# request (the paced session figures minus these are the session pipeline's own); bare-relay-paced,
# what it costs the stack's floor.
MODES = (
    "bare-relay",
    "bare-relay-paced",
    "passthrough",
    "passthrough-paced",
    "session",
    "session-paced",
)
PACE_S = 0.1
KINDS = ("stream", "json")  # stream: time to first byte; json: total time
METRIC = {"stream": "ttfb", "json": "total"}
MODEL = "tools"  # the loopback calls tools until the last message is a tool result, then answers
TURNS_PER_CONVERSATION = 8  # two requests a turn: the user's, then the tool results
WARMUP_PAIRS = 40
FLOORS = {"p50": 4.0, "p95": 10.0}  # ms added with the pipeline on, on this 2-core machine
LITELLM = {"p50": 12.0, "p95": 18.0}  # ms LiteLLM's proxy adds to TTFT on this kind of machine
BOOTSTRAP_DRAWS = 1000
BOOTSTRAP_SEED = 20261201
TOOLS = [
    {"type": "function", "function": {"name": name, "description": text, "parameters": {"type": "object", "properties": {}}}}
    for name, text in (("read_file", "Read a file of the repository."), ("run_tests", "Run the test suite."))
]  # fmt: skip


# --- the conversation ----------------------------------------------------------------------------


@dataclass
class Conversation:
    """A coding conversation that grows as a client's would: it resends exactly what it was sent."""

    index: int
    messages: list[dict] = field(default_factory=list)
    turn: int = 0

    def __post_init__(self) -> None:
        self.users = [
            t.user["content"] for t in USER_TURNS[self.index % 37 :][:TURNS_PER_CONVERSATION]
        ]
        self.messages = [
            {
                "role": "system",
                "content": "You are a coding assistant on the orders-service repository.",
            }
        ]
        self.messages.append({"role": "user", "content": self.users[0]})

    @property
    def done(self) -> bool:
        return self.turn >= len(self.users)

    def body(self, stream: bool) -> dict:
        body = {"model": MODEL, "messages": self.messages, "tools": TOOLS, "stream": stream}
        return body

    def advance(self, reply: dict) -> None:
        """Append the reply; answer its tool calls, or move to the next user message."""
        self.messages.append(reply)
        if reply.get("tool_calls"):
            rng = random.Random(f"{self.index}:{self.turn}")
            for i, call in enumerate(reply["tool_calls"]):
                text = (
                    file_text(f"src/orders/module_{self.turn}.py", rng)
                    if i == 0
                    else test_output("tests/", rng, None)
                )
                self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
            return
        self.turn += 1
        if not self.done:
            self.messages.append({"role": "user", "content": self.users[self.turn]})


USER_TURNS = generate_session(TURNS_PER_CONVERSATION + 37)


def conversations(prefix: str, session: bool) -> Iterator[tuple[Conversation, str | None]]:
    """Endless conversations, each with its own session id when the pipeline is on."""
    k = 0
    while True:
        yield Conversation(k), (f"{prefix}-{k}" if session else None)
        k += 1


def reply_of_stream(raw: bytes) -> dict:
    """The assistant message an OpenAI SSE stream spells (content and tool calls)."""
    content, calls = [], {}
    for line in raw.decode().splitlines():
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                content.append(delta["content"])
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(
                    call["index"],
                    {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                )
                slot["id"] = call.get("id") or slot["id"]
                slot["function"]["name"] += (call.get("function") or {}).get("name") or ""
                slot["function"]["arguments"] += (call.get("function") or {}).get("arguments") or ""
    reply = {"role": "assistant", "content": "".join(content) or None}
    if calls:
        reply["tool_calls"] = [calls[i] for i in sorted(calls)]
    return reply


def reply_of_json(data: dict) -> dict:
    message = data["choices"][0]["message"]
    reply = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        reply["tool_calls"] = message["tool_calls"]
    return reply


# --- one timed request ---------------------------------------------------------------------------


def timed(client: httpx.Client, url: str, body: dict, headers: dict) -> tuple[float, float, bytes]:
    """(ms to the first body byte, ms to the end, body) of one POST; raises on a non-200."""
    start = time.perf_counter()
    with client.stream("POST", url, json=body, headers=headers) as response:
        chunks = response.iter_raw()
        first = next(chunks, b"")
        ttfb = (time.perf_counter() - start) * 1000
        raw = first + b"".join(chunks)
        total = (time.perf_counter() - start) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"HTTP {response.status_code} from {url}: {raw[:300]!r}")
    return ttfb, total, raw


def sequential(bench: Bench, mode: str, kind: str, n: int, deadline: float) -> dict:
    """``n`` interleaved pairs (upstream, proxy) after a warm-up; the timings of each side."""
    stream = kind == "stream"
    direct_url = f"{bench.upstream_url}/v1/chat/completions"
    proxy_url = f"{bench.relay_url if mode.startswith('bare-relay') else bench.proxy_url}/v1/chat/completions"
    sides = {"direct": {"ttfb": [], "total": []}, "proxy": {"ttfb": [], "total": []}}
    sizes: list[int] = []
    source = conversations(f"overhead-{kind}-{time.monotonic_ns()}", mode.startswith("session"))
    pause = PACE_S if mode.endswith("-paced") else 0.0
    conv, session_id = next(source)
    timeout = httpx.Timeout(30, connect=5)
    with httpx.Client(timeout=timeout) as direct, httpx.Client(timeout=timeout) as proxied:
        for i in range(-WARMUP_PAIRS, n):
            if time.monotonic() > deadline:
                break
            if conv.done:
                conv, session_id = next(source)
            body = conv.body(stream)
            order = ("direct", "proxy") if i % 2 == 0 else ("proxy", "direct")
            for side in order:
                client, url = (direct, direct_url) if side == "direct" else (proxied, proxy_url)
                headers = bench.headers(session_id if side == "proxy" else None)
                ttfb, total, raw = timed(client, url, body, headers)
                if side == "proxy":
                    reply = reply_of_stream(raw) if stream else reply_of_json(json.loads(raw))
                if i >= 0:
                    sides[side]["ttfb"].append(ttfb)
                    sides[side]["total"].append(total)
            if i >= 0:
                sizes.append(len(json.dumps(body)))
            conv.advance(reply)
            if pause:
                time.sleep(pause)
    return {"sides": sides, "body_bytes": sizes, "tokens": _tokens_of(sizes)}


def _tokens_of(sizes: list[int]) -> dict:
    return {
        "mean_body_bytes": sum(sizes) / len(sizes) if sizes else None,
        "max_body_bytes": max(sizes, default=None),
    }


def added(direct: list[float], proxy: list[float]) -> dict:
    """Proxy percentile minus upstream percentile, with bootstrap 95% intervals for p50 and p95."""
    out = {
        q: percentile(proxy, int(q[1:])) - percentile(direct, int(q[1:]))
        for q in ("p50", "p95", "p99")
    }
    rng = random.Random(BOOTSTRAP_SEED)
    for q in ("p50", "p95"):
        draws = sorted(
            percentile(rng.choices(proxy, k=len(proxy)), int(q[1:])) - percentile(rng.choices(direct, k=len(direct)), int(q[1:]))
            for _ in range(BOOTSTRAP_DRAWS)
        )  # fmt: skip
        out[f"{q}_ci95"] = [
            draws[int(0.025 * BOOTSTRAP_DRAWS)],
            draws[int(0.975 * BOOTSTRAP_DRAWS) - 1],
        ]
    return out


def sequential_result(raw: dict, kind: str) -> dict:
    metric = METRIC[kind]
    d, p = raw["sides"]["direct"], raw["sides"]["proxy"]
    return {
        "metric": metric,
        "pairs": len(p[metric]),
        "direct_ms": {m: summary_ms(d[m]) for m in ("ttfb", "total")},
        "proxy_ms": {m: summary_ms(p[m]) for m in ("ttfb", "total")},
        "added_ms": added(d[metric], p[metric]),
        "mean_body_bytes": raw["tokens"]["mean_body_bytes"],
        "max_body_bytes": raw["tokens"]["max_body_bytes"],
    }


# --- concurrency ---------------------------------------------------------------------------------


async def one_stream(
    client: httpx.AsyncClient, url: str, body: dict, headers: dict, gate: asyncio.Event
) -> dict:
    await gate.wait()
    start = time.perf_counter()
    try:
        async with client.stream("POST", url, json=body, headers=headers) as response:
            ttfb, raw = None, b""
            async for chunk in response.aiter_raw():
                if ttfb is None:
                    ttfb = (time.perf_counter() - start) * 1000
                raw += chunk
            total = (time.perf_counter() - start) * 1000
    except httpx.HTTPError as error:
        return {"error": f"{type(error).__name__}: {error}"[:200]}
    if response.status_code != 200:
        return {"error": f"HTTP {response.status_code}: {raw[:200]!r}"}
    if b"data: [DONE]" not in raw or b"upstream_stream_error" in raw:
        return {"error": f"incomplete stream: {raw[-200:]!r}"}
    return {"ttfb": ttfb, "total": total}


async def burst(bench: Bench, target: str, session: bool, concurrency: int) -> dict:
    """``concurrency`` streams released at once; TTFB and total of each, and the errors."""
    base = {"direct": bench.upstream_url, "relay": bench.relay_url}.get(target, bench.proxy_url)
    url = f"{base}/v1/chat/completions"
    bodies = []
    for k, (conv, session_id) in zip(
        range(concurrency), conversations(f"burst-{time.monotonic_ns()}", session), strict=False
    ):
        for _ in range(3):  # a few exchanges in: a conversation of some size, a tool result last
            conv.advance(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{k}_{conv.turn}",
                            "type": "function",
                            "function": {"name": "read_file", "arguments": "{}"},
                        }
                    ],
                }
            )
            conv.advance({"role": "assistant", "content": "Read it; next step."})
        headers = bench.headers(session_id if target == "proxy" else None)
        bodies.append(({**conv.body(True), "model": "echo"}, headers))
    limits = httpx.Limits(
        max_connections=concurrency + 10, max_keepalive_connections=concurrency + 10
    )
    gate = asyncio.Event()
    async with httpx.AsyncClient(timeout=httpx.Timeout(60, connect=30), limits=limits) as client:
        tasks = [asyncio.create_task(one_stream(client, url, b, h, gate)) for b, h in bodies]
        await asyncio.sleep(0.05)
        start = time.perf_counter()
        gate.set()
        outcomes = await asyncio.gather(*tasks)
        wall = (time.perf_counter() - start) * 1000
    good = [o for o in outcomes if "error" not in o]
    errors = [o["error"] for o in outcomes if "error" in o]
    return {
        "streams": concurrency,
        "errors": len(errors),
        "error_samples": errors[:5],
        "ttfb_ms": summary_ms([o["ttfb"] for o in good]),
        "total_ms": summary_ms([o["total"] for o in good]),
        "wall_ms": wall,
    }


# --- the floor: a bare relay --------------------------------------------------------------------

_relay_client: httpx.AsyncClient | None = None


async def bare_relay(scope, receive, send) -> None:
    """ASGI app relaying POST bodies to $TOKENMIZER_BENCH_UPSTREAM and the answer back, byte for byte."""
    global _relay_client
    if scope["type"] != "http":
        return
    if _relay_client is None:
        _relay_client = httpx.AsyncClient(
            timeout=httpx.Timeout(30, connect=5), limits=httpx.Limits(max_connections=1000)
        )
    body, more = b"", True
    while more:
        message = await receive()
        body, more = body + message.get("body", b""), message.get("more_body", False)
    url = os.environ["TOKENMIZER_BENCH_UPSTREAM"] + scope["path"]
    async with _relay_client.stream(
        "POST", url, content=body, headers={"content-type": "application/json"}
    ) as up:
        headers = [(b"content-type", up.headers.get("content-type", "application/json").encode())]
        await send({"type": "http.response.start", "status": up.status_code, "headers": headers})
        async for chunk in up.aiter_raw():
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await send({"type": "http.response.body", "body": b""})


class BareRelay:
    """``bare_relay`` under uvicorn in its own process, as the app is run."""

    def __init__(self, upstream_url: str) -> None:
        self.upstream_url = upstream_url
        self.process = None
        self.url = ""

    def __enter__(self) -> BareRelay:
        import subprocess

        from benchmarks.harness import HOST, ROOT, free_port, wait_listening

        port = free_port()
        command = [sys.executable, "-m", "uvicorn", "benchmarks.proxy_overhead:bare_relay", "--host", HOST,
                   "--port", str(port), "--lifespan", "off", "--log-level", "warning", "--no-access-log"]  # fmt: skip
        env = dict(os.environ, TOKENMIZER_BENCH_UPSTREAM=self.upstream_url)
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            wait_listening(port, lambda: self.process.poll() is None)
        except BaseException:
            self.__exit__()
            raise
        self.url = f"http://{HOST}:{port}"
        return self

    def __exit__(self, *exc: object) -> None:
        from benchmarks.harness import stop_process

        stop_process(self.process)


# --- the run -------------------------------------------------------------------------------------


PROFILES = {
    "embedded": "embedded profile (SQLite, eager extraction in the serving process)",
    "production": "production profile (PostgreSQL, Redis, extraction in a Celery worker process)",
}


def run(
    requests: int,
    concurrency: int,
    max_seconds: float,
    show: bool = True,
    profile: str = "embedded",
) -> dict:
    results = run_metadata("proxy_overhead")
    results["setup"] = {
        "client": f"httpx {httpx.__version__} (sync, keep-alive, one client per side)",
        "profile": profile,
        "app": f"uvicorn tokenmizer_site.asgi:application in its own process, DEBUG off, {PROFILES[profile]}",
        "upstream": "proxy.loopback in its own process (model 'tools' sequentially, 'echo' in bursts)",
        "bare_relay": "uvicorn + one httpx.AsyncClient relaying bytes, no Django, no database",
        "requests_per_case": requests,
        "warmup_pairs": WARMUP_PAIRS,
        "paced_pause_s": PACE_S,
        "turns_per_conversation": TURNS_PER_CONVERSATION,
        "floors_ms": FLOORS,
        "litellm_reference_ms": LITELLM,
    }
    deadline = time.monotonic() + max_seconds
    results["sequential"], results["concurrent"] = {}, {}
    with (
        Bench(upstream_process=True, profile=profile) as bench,
        BareRelay(bench.upstream_url) as relay,
    ):
        bench.relay_url = relay.url
        for kind in KINDS:
            for mode in MODES:
                if show:
                    progress(f"proxy overhead: {mode} {kind}, {requests} pairs…")
                raw = sequential(bench, mode, kind, requests, deadline)
                results["sequential"][f"{mode}/{kind}"] = dict(
                    sequential_result(raw, kind), mode=mode, kind=kind
                )
                if show:
                    a = results["sequential"][f"{mode}/{kind}"]["added_ms"]
                    progress(
                        f"  added p50 {a['p50']:.2f} ms, p95 {a['p95']:.2f} ms, p99 {a['p99']:.2f} ms"
                    )
        pairs = (
            ("direct", "passthrough"),
            ("relay", "passthrough"),
            ("proxy", "passthrough"),
            ("proxy", "session"),
        )
        for target, mode in pairs:
            if show:
                progress(f"proxy overhead: {concurrency} concurrent streams, {target} {mode}…")
            out = asyncio.run(burst(bench, target, mode == "session", concurrency))
            results["concurrent"][f"{target}/{mode}"] = out
            if show:
                progress(
                    f"  {out['errors']} errors, TTFB p50 {out['ttfb_ms']['p50']:.1f} ms, p95 {out['ttfb_ms']['p95']:.1f} ms"
                )
        results["proxy_log"] = [ln for ln in bench.proxy_log().splitlines() if "kombu" not in ln][
            -20:
        ]
    results["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    results["verdict"] = verdict(results)
    return results


def verdict(results: dict) -> dict:
    """The floors against the pipeline-on figures, and zero errors under concurrency."""
    out = {}
    for key, r in results["sequential"].items():
        if r["mode"].startswith("session"):
            out[key] = {q: r["added_ms"][q] <= limit for q, limit in FLOORS.items()}
    out["concurrent_errors_zero"] = all(
        c["errors"] == 0 for k, c in results["concurrent"].items() if k.startswith("proxy")
    )
    return out


# --- report --------------------------------------------------------------------------------------


def _ms(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def markdown(results: dict) -> str:
    from benchmarks.report import table

    s = results["setup"]
    lines = [
        "# Proxy overhead — added latency over the loopback upstream",
        "",
        f"tokenmizer {results['code_version']}, commit {results['git_commit'] or 'none'}"
        f"{' (working tree changed)' if results.get('working_tree_changes') else ''}, {results['date']}, "
        f"Python {results['python']}, {results['machine']['platform']} ({results['machine']['cpu_count']} CPUs). "
        f"Client: {s['client']}. App: {s['app']}. Upstream: {s['upstream']}. Load average (1/5/15 min) "
        f"at the start {results['machine'].get('load_average_at_start')}, at the end "
        f"{results['machine'].get('load_average_at_end')}: other work shared the machine.",
        "",
        f"{s['requests_per_case']} interleaved pairs per case after {s['warmup_pairs']} warm-up pairs; "
        "added = proxy percentile − upstream percentile (bootstrap 95% interval in brackets). "
        "TTFB on streams, total time on JSON answers. Session mode: a new session every "
        f"{s['turns_per_conversation']} turns of a tool-using conversation (under the compaction threshold); "
        f"back to back, and paced ({s['paced_pause_s'] * 1000:.0f} ms pause after each pair, so the previous "
        "exchange's recording and eager extraction are done, as a real upstream's generation time would allow).",
        "",
        f"`bare-relay` is the stack's floor: {s['bare_relay']}; the proxy's own cost is its figures minus that row's "
        "(paced: minus `bare-relay-paced`).",
        "",
        "## Sequential requests",
        "",
    ]
    rows = []
    for key, r in results["sequential"].items():
        m, a = r["metric"], r["added_ms"]
        rows.append([
            key, m, f"{r['pairs']}", f"{r['mean_body_bytes'] / 1024:.0f} KiB",
            f"{_ms(r['direct_ms'][m]['p50'])} / {_ms(r['direct_ms'][m]['p95'])}",
            f"{_ms(r['proxy_ms'][m]['p50'])} / {_ms(r['proxy_ms'][m]['p95'])}",
            f"{_ms(a['p50'])} [{_ms(a['p50_ci95'][0])}, {_ms(a['p50_ci95'][1])}]",
            f"{_ms(a['p95'])} [{_ms(a['p95_ci95'][0])}, {_ms(a['p95_ci95'][1])}]",
            _ms(a["p99"]),
        ])  # fmt: skip
    lines += table(["case", "metric", "pairs", "mean body", "upstream p50 / p95 ms", "proxy p50 / p95 ms",
                    "added p50 ms", "added p95 ms", "added p99 ms"], rows)  # fmt: skip
    f, ll = s["floors_ms"], s["litellm_reference_ms"]
    v = results["verdict"]
    checks = [f"{k}: p50 {'≤' if ok['p50'] else '>'} {f['p50']} ms, p95 {'≤' if ok['p95'] else '>'} {f['p95']} ms"
              for k, ok in v.items() if isinstance(ok, dict)]  # fmt: skip
    lines += ["", f"Floors with the pipeline on (this 2-core machine): {'; '.join(checks)}. "
              f"For scale, LiteLLM's proxy adds about {ll['p50']:.0f} ms p50 / {ll['p95']:.0f} ms p95 to TTFT."]  # fmt: skip
    lines += ["", "## Concurrent streams", ""]
    rows = [
        [key, str(c["streams"]), str(c["errors"]), f"{_ms(c['ttfb_ms']['p50'], 1)} / {_ms(c['ttfb_ms']['p95'], 1)}",
         f"{_ms(c['total_ms']['p50'], 1)} / {_ms(c['total_ms']['p95'], 1)}", _ms(c["wall_ms"], 0)]
        for key, c in results["concurrent"].items()
    ]  # fmt: skip
    lines += table(
        ["target/mode", "streams", "errors", "TTFB p50 / p95 ms", "total p50 / p95 ms", "wall ms"],
        rows,
    )
    samples = [e for c in results["concurrent"].values() for e in c["error_samples"]]
    if samples:
        lines += ["", "Errors (samples): " + "; ".join(f"`{e}`" for e in samples[:5])]
    lines += [
        "",
        f"Zero errors through the proxy: {'yes' if v['concurrent_errors_zero'] else 'no'}.",
    ]
    return "\n".join(lines) + "\n"


def chart(results: dict, path: Path) -> None:
    """Added p50/p95/p99 per case, with the floors; concurrent TTFB beside it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(results["sequential"])
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(12, 4.8), dpi=120, gridspec_kw={"width_ratios": [2, 1]}
    )
    width = 0.26
    for j, (q, color) in enumerate((("p50", "#1f6feb"), ("p95", "#d29922"), ("p99", "#8b949e"))):
        values = [results["sequential"][c]["added_ms"][q] for c in cases]
        xs = [i + (j - 1) * width for i in range(len(cases))]
        bars = left.bar(xs, values, width, label=f"added {q}", color=color)
        for bar, v in zip(bars, values, strict=True):
            left.text(
                bar.get_x() + width / 2,
                max(v, 0) + 0.1,
                f"{v:.1f}",
                ha="center",
                va="bottom",
                fontsize=7,
            )
    floors = results["setup"]["floors_ms"]
    left.axhline(
        floors["p50"],
        color="#1f6feb",
        linestyle="--",
        linewidth=1,
        label=f"p50 floor {floors['p50']:.0f} ms",
    )
    left.axhline(
        floors["p95"],
        color="#d29922",
        linestyle="--",
        linewidth=1,
        label=f"p95 floor {floors['p95']:.0f} ms",
    )
    labels = [
        c.replace("/", "\n") + f"\n({METRIC[results['sequential'][c]['kind']]})" for c in cases
    ]
    left.set_xticks(range(len(cases)), labels, fontsize=8)
    left.set_ylabel("added latency (ms)")
    left.set_title("Latency the proxy adds (sequential, interleaved)")
    left.grid(axis="y", alpha=0.3)
    left.legend(fontsize=7)
    conc = results["concurrent"]
    keys = list(conc)
    for j, (q, color) in enumerate((("p50", "#1f6feb"), ("p95", "#d29922"))):
        xs = [i + (j - 0.5) * 0.35 for i in range(len(keys))]
        right.bar(
            xs, [conc[k]["ttfb_ms"][q] or 0 for k in keys], 0.35, label=f"TTFB {q}", color=color
        )
    right.set_xticks(
        range(len(keys)),
        [k.replace("/", "\n") + f"\n{conc[k]['errors']} errors" for k in keys],
        fontsize=8,
    )
    right.set_ylabel("ms")
    streams = conc[keys[0]]["streams"] if keys else 0
    right.set_title(f"{streams} concurrent streams")
    right.grid(axis="y", alpha=0.3)
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.proxy_overhead", description=__doc__
    )
    parser.add_argument(
        "--out", required=True, type=Path, help="results JSON; .md and .png beside it"
    )
    parser.add_argument(
        "--requests", type=int, default=500, help="timed pairs per case (default 500)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=200, help="streams at once (default 200)"
    )
    parser.add_argument(
        "--max-seconds", type=float, default=900, help="stop timing after this long"
    )
    parser.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default="embedded",
        help="the app's profile: embedded (SQLite, eager) or production (PostgreSQL, Redis and a "
        "Celery worker, which must be running on 127.0.0.1)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    results = run(args.requests, args.concurrency, args.max_seconds, not args.quiet, args.profile)
    paths = write_results(results, args.out, markdown, chart)
    print("wrote " + ", ".join(map(str, paths)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
