"""Token economy of the proxy: a generated 300-turn coding session sent through it turn by turn.

Measures what the upstream received (read back from the loopback provider): every request within
the session's MECW, cumulative tokens against resending the whole history, how much of each
request's prefix survives from the previous one (prompt-cache friendliness), and how many of the
session's labelled decisions in force and open tasks the model could still read at turns 100, 200
and 300.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean, median

SEED = 20261201
TURNS = 300
CHECK_TURNS = (100, 200, 300)
MECW = 16_000
MODEL = "echo"  # the loopback's plain behaviour; the tokenizer is cl100k_base
SYSTEM_PROMPT = (
    "You are a senior engineer pairing on the orders-service repository (Python 3.12, FastAPI). "
    "Read files and run tests with the tools before changing code; keep answers short."
)

# --- the session's facts -------------------------------------------------------------------------

# (label, short name) of each decision; a later entry of the same topic supersedes the earlier,
# with the reason given. Labels are worded so that a replacement never covers what it replaced.
DECISIONS: tuple[tuple[str, str, str], ...] = (
    ("db", "store orders in PostgreSQL 16 with one schema per tenant", "PostgreSQL"),
    ("ids", "give orders UUIDv7 identifiers", "UUIDv7"),
    ("money", "keep monetary amounts as integer cents", "integer cents"),
    ("queue", "run background jobs on Celery with a Redis broker", "Celery"),
    ("http", "make outbound calls with httpx and explicit timeouts", "httpx"),
    ("tokens", "issue PASETO v4 tokens to API clients", "PASETO"),
    ("pages", "paginate list endpoints with opaque cursors", "cursor pagination"),
    ("cache", "cache product lookups in Redis for five minutes", "the Redis product cache"),
    ("logs", "emit structured JSON logs through structlog", "structlog"),
    (
        "config",
        "load configuration from environment variables via pydantic-settings",
        "pydantic-settings",
    ),
    (
        "webhooks",
        "retry webhook deliveries with exponential backoff, five attempts at most",
        "webhook backoff",
    ),
    ("itests", "run integration tests against a real Postgres container", "Postgres containers"),
    ("time", "store every timestamp in UTC and convert only at the edges", "UTC timestamps"),
    ("versions", "version the public API in the URL path as /v2/", "path versioning"),
    ("migrations", "write schema migrations with Alembic", "Alembic"),
    ("search", "search products with Postgres full-text indexes", "Postgres full-text search"),
    ("ratelimit", "allow each API key 100 requests per minute", "100 requests per minute"),
    ("json", "serialize responses with orjson", "orjson"),
    ("errors", "return errors as RFC 7807 problem documents", "problem documents"),
    ("flags", "ship the new checkout behind a LaunchDarkly flag", "LaunchDarkly"),
    ("idempotency", "require an Idempotency-Key header on POST /v2/orders", "idempotency keys"),
    ("lint", "format and lint with ruff in pre-commit", "ruff"),
    ("deploy", "deploy staging blue-green behind the internal load balancer", "blue-green staging"),
    ("emails", "send order emails through Postmark templates", "Postmark"),
    ("audit", "append order state changes to an audit_log table", "the audit_log table"),
    ("locks", "take row locks with SELECT FOR UPDATE when reserving stock", "row locks"),
)
REPLACEMENTS: dict[str, tuple[str, str, str]] = {  # topic -> new label, new short name, reason
    "queue": (
        "move background jobs to RQ workers",
        "RQ",
        "Celery's prefork workers kept leaking memory on the 2 GB pods",
    ),
    "tokens": (
        "sign API tokens as JWT with ES256 keys",
        "JWT",
        "the mobile app already ships a JWT library",
    ),
    "cache": (
        "memoize product lookups in-process for sixty seconds",
        "an in-process cache",
        "the Redis round trip cost more than the database query",
    ),
    "search": (
        "index products in Meilisearch for typo-tolerant search",
        "Meilisearch",
        "full-text ranking was poor for short product names",
    ),
    "ratelimit": (
        "raise the per-key quota to 300 calls a minute",
        "300 calls a minute",
        "the partner batch importer kept hitting 429s",
    ),
    "emails": (
        "render order emails ourselves and deliver them with Amazon SES",
        "SES",
        "Postmark's per-message price tripled",
    ),
    "flags": (
        "gate the checkout rewrite with our own flags table",
        "our flags table",
        "LaunchDarkly needs a contract we do not have yet",
    ),
}
TASKS: tuple[str, ...] = (
    "add a unit test for refund rounding in pricing.py",
    "wire the stock reservation into the checkout handler",
    "document the /v2/orders endpoints in the OpenAPI schema",
    "add a database index on orders.customer_id",
    "backfill currency codes for legacy orders",
    "expose order totals in the admin dashboard",
    "handle partial refunds in the payments adapter",
    "add tracing spans around the payment provider calls",
    "write a load test for the checkout flow",
    "clean up the deprecated v1 serializers",
    "send a webhook when an order ships",
    "validate postal codes per country in the address form",
    "add retries to the inventory client",
    "cap the page size of the order list at 200",
    "make the invoice PDF renderer async",
    "add a health check for the Redis connection",
    "split the fulfilment worker into its own deployment",
    "store the customer's locale on the order",
    "add an export of monthly orders to CSV",
    "reject duplicate coupon codes at checkout",
    "rotate the webhook signing secret",
    "add a metric for failed payment captures",
    "port the discount rules to the new pricing engine",
    "add a soft-delete flag to products",
    "alert on webhook deliveries stuck for an hour",
    "make the tax calculation pluggable per region",
    "add an end-to-end test for order cancellation",
    "migrate the cron jobs to the scheduler service",
    "show the shipment tracking link in order emails",
    "add a read replica for the reporting queries",
    "support gift cards as a payment method",
    "write the runbook for payment provider outages",
    "add optimistic locking to the cart updates",
    "lower the default HTTP timeout for the shipping API",
    "add a CLI command to replay failed webhooks",
    "profile the order list query under load",
    "add a dead-letter queue for failed jobs",
    "translate the order status names for the German shop",
    "add a contract test for the warehouse API",
    "archive orders older than seven years",
    "rate-limit the password reset endpoint",
    "add fuzz tests for the address parser",
    "compress the order export files",
    "move secrets from .env files to the vault",
    "add pagination to the refunds endpoint",
)
FILES: tuple[str, ...] = (
    "src/orders/api/routes.py",
    "src/orders/api/schemas.py",
    "src/orders/pricing.py",
    "src/orders/checkout.py",
    "src/orders/stock.py",
    "src/orders/payments/adapter.py",
    "src/orders/payments/provider.py",
    "src/orders/webhooks.py",
    "src/orders/jobs.py",
    "src/orders/settings.py",
    "src/orders/db/models.py",
    "src/orders/db/queries.py",
    "src/orders/auth/tokens.py",
    "src/orders/search.py",
    "src/orders/emails.py",
    "src/orders/fulfilment.py",
    "src/orders/tax.py",
    "src/orders/coupons.py",
    "src/orders/export.py",
    "src/orders/audit.py",
    "tests/test_pricing.py",
    "tests/test_checkout.py",
    "tests/test_webhooks.py",
    "tests/test_stock.py",
)
ERRORS: tuple[tuple[str, str], ...] = (  # (error line, fix)
    (
        "KeyError: 'currency'",
        "default the currency to the shop's currency when the line item has none",
    ),
    (
        'sqlalchemy.exc.IntegrityError: duplicate key value violates unique constraint "orders_pkey"',
        "generate the id once per request instead of per retry",
    ),
    (
        "AssertionError: assert 1999 == 2000",
        "round half-even on the line total, not on each unit price",
    ),
    (
        "TypeError: can't compare offset-naive and offset-aware datetimes",
        "make the fixture timestamps timezone-aware",
    ),
    (
        "httpx.ReadTimeout: timed out",
        "pass the shipping client's timeout through instead of the default",
    ),
    (
        "AttributeError: 'NoneType' object has no attribute 'postal_code'",
        "skip address validation for digital-only orders",
    ),
    (
        "ValueError: invalid literal for int() with base 10: '12.50'",
        "parse amounts with Decimal before converting to cents",
    ),
    ("RuntimeError: Event loop is closed", "close the async client in the fixture's teardown"),
)
_NOUNS = (
    "order",
    "line_item",
    "refund",
    "payment",
    "shipment",
    "coupon",
    "customer",
    "invoice",
    "cart",
    "stock",
)
_VERBS = (
    "load",
    "save",
    "validate",
    "apply",
    "cancel",
    "reserve",
    "release",
    "render",
    "sync",
    "price",
)


@dataclass
class Turn:
    """One turn: the user's message, then the scripted assistant messages (tool calls, results, reply)."""

    user: dict
    replies: list[dict]
    decisions: list[str]  # labelled decisions in force when the turn's request is sent
    open_tasks: list[str]  # labelled tasks open when the turn's request is sent


@dataclass
class _State:
    in_force: dict[str, str] = field(default_factory=dict)  # topic -> label
    short: dict[str, str] = field(default_factory=dict)  # topic -> short name
    open: list[str] = field(default_factory=list)


# --- tool output ---------------------------------------------------------------------------------


def file_text(path: str, rng: random.Random) -> str:
    """A plausible Python module of 3–5 functions (roughly 500–800 tokens)."""
    module = path.rsplit("/", 1)[-1].removesuffix(".py")
    lines = [f'"""{module.replace("_", " ").capitalize()}: part of the orders service."""', "",
             "from __future__ import annotations", "", "import logging",
             "from decimal import Decimal", "", "log = logging.getLogger(__name__)", ""]  # fmt: skip
    for _ in range(rng.randint(3, 5)):
        verb, noun = rng.choice(_VERBS), rng.choice(_NOUNS)
        arg, other = rng.sample(_NOUNS, 2)
        limit = rng.randint(2, 500)
        lines += [
            "",
            f"def {verb}_{noun}({arg}_id: str, *, {other}: dict | None = None, limit: int = {limit}) -> dict:",
            f'    """{verb.capitalize()} the {noun.replace("_", " ")} of a {arg.replace("_", " ")}; at most {limit} rows."""',
            f"    if not {arg}_id:",
            f'        raise ValueError("{arg}_id is required to {verb} a {noun}")',
            f"    rows = db.fetch_{noun}s({arg}_id=({arg}_id), limit=limit)",
            f"    total = sum(Decimal(r['amount_cents']) for r in rows if r.get('{other}_id'))",
            f'    log.info("{verb}_{noun}", extra={{"{arg}_id": {arg}_id, "rows": len(rows)}})',
            f"    return {{'{noun}s': rows, 'total_cents': int(total), '{other}': {other} or {{}}}}",
        ]
    return "\n".join(lines)


def test_output(target: str, rng: random.Random, error: tuple[str, str] | None) -> str:
    """pytest's output for ``target``: dots per file, and a traceback when ``error`` is given."""
    files = rng.sample([f for f in FILES if f.startswith("tests/")], 3)
    counts = [rng.randint(6, 30) for _ in files]
    total = sum(counts)
    lines = ["============================= test session starts ==============================",
             "platform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0",
             "rootdir: /repo, configfile: pyproject.toml", f"collected {total} items", ""]  # fmt: skip
    done = 0
    for f, n in zip(files, counts, strict=True):
        done += n
        marks = "." * n if error is None or f != files[0] else "." * (n - 1) + "F"
        lines.append(f"{f} {marks:<40} [{100 * done // total:3d}%]")
    if error is None:
        lines.append(
            f"============================== {total} passed in {rng.uniform(1, 9):.2f}s =============================="
        )
        return "\n".join(lines)
    module = files[0].removeprefix("tests/test_").removesuffix(".py")
    lines += ["", "=================================== FAILURES ===================================",
              f"__________________________ test_{module}_{rng.randint(1, 40)} __________________________", "",
              f"    def test_{module}_case():", f">       result = {module}.{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}('ord_{rng.randint(100, 999)}')", "",
              f"src/orders/{module}.py:{rng.randint(20, 300)}: in {rng.choice(_VERBS)}_{rng.choice(_NOUNS)}",
              f"    rows = db.fetch_{rng.choice(_NOUNS)}s(order_id=order_id, limit=limit)", f"E   {error[0]}", "",
              "=========================== short test summary info ============================",
              f"FAILED {files[0]}::test_{module}_case - {error[0]}",
              f"========================= 1 failed, {total - 1} passed in {rng.uniform(1, 9):.2f}s ========================="]  # fmt: skip
    return "\n".join(lines)


# --- the session ---------------------------------------------------------------------------------


def _schedule(rng: random.Random, turns: int) -> dict[int, list[tuple]]:
    """Which fact events happen at which turn (1-based): decisions, replacements, tasks, errors."""
    events: dict[int, list[tuple]] = {t: [] for t in range(1, turns + 1)}
    step = (turns - 30) / len(DECISIONS)
    for k, (topic, _, _) in enumerate(DECISIONS):
        at = 2 + int(k * step)
        events[at].append(("decide", topic, rng.choice(("user", "assistant"))))
        if topic in REPLACEMENTS:
            events[min(turns, at + rng.randint(20, 70))].append(
                ("replace", topic, rng.choice(("user", "assistant")))
            )
    step = (turns - 10) / len(TASKS)
    for k, task in enumerate(TASKS):
        at = 1 + int(k * step)
        events[at].append(("open", task, rng.choice(("user", "assistant"))))
        roll = rng.random()
        if roll < 0.2:  # deferred, picked up and finished later (or never)
            events[min(turns, at + rng.randint(1, 4))].append(("defer", task, "user"))
            if rng.random() < 0.5:
                events[min(turns, at + rng.randint(40, 120))].append(("done", task, "assistant"))
        elif roll < 0.8:
            events[min(turns, at + rng.randint(2, 60))].append(("done", task, "assistant"))
        # else: stays open to the end
    for t in range(5, turns + 1, 7):
        events[t].append(("error", ERRORS[(t // 7) % len(ERRORS)], "assistant"))
    return events


def _fact_sentence(event: tuple, state: _State, rng: random.Random) -> str:
    """One natural sentence stating a fact event, and its effect on ``state``."""
    kind, what, side = event
    if kind == "decide":
        label, short = next((lb, sh) for tp, lb, sh in DECISIONS if tp == what)
        state.in_force[what], state.short[what] = label, short
        forms = ("We're going with this: {l}.", "Decided: {l}.", "Let's {l}; it is the simplest option.") if side == "user" \
            else ("Decided: {l}.", "We'll {l} from now on.", "Decision: {l}, as agreed.")  # fmt: skip
        return rng.choice(forms).format(l=label)
    if kind == "replace":
        label, short, reason = REPLACEMENTS[what]
        old = state.short.get(what, "the old approach")
        state.in_force[what], state.short[what] = label, short
        return rng.choice((
            "Switched from {o} to {s} because {r}: we now {l}.",
            "We're going with {s} instead of {o}, since {r}. So: {l}.",
        )).format(o=old, s=short, r=reason, l=label)  # fmt: skip
    if kind == "open":
        if what not in state.open:
            state.open.append(what)
        forms = ("TODO: {t}.", "Can you also {t} when you get a chance? Put it on the list.") if side == "user" \
            else ("TODO: {t}.", "Next we still need to {t}.")  # fmt: skip
        return rng.choice(forms).format(t=what)
    if kind == "defer":
        return f"Let's hold off on the task to {what} until the launch is behind us; keep it on the list."
    if kind == "done":
        if what in state.open:
            state.open.remove(what)
        return rng.choice(("Done: {t}.", "Finished the work to {t}; the tests pass.")).format(
            t=what
        )
    raise ValueError(kind)


def _user_text(turn: int, path: str, sentences: list[str], rng: random.Random) -> str:
    asks = (
        f"Please look at {path} and tell me what needs to change for the next step.",
        f"Run the tests for {path} and check nothing regressed.",
        f"Let's keep going on {path}; read it first so we don't break the callers.",
        f"I pushed a small change to {path}; can you review it and run the suite?",
        f"Where are we on {path}? Check the tests before touching it.",
    )
    return " ".join([rng.choice(asks), *sentences])


def _assistant_text(
    path: str, sentences: list[str], error: tuple[str, str] | None, rng: random.Random
) -> str:
    opening = rng.choice((
        f"I read {path}. The functions there follow the same pattern: fetch rows, sum cents, log, return a dict.",
        f"{path} is in reasonable shape; the helpers validate their ids first and log one line each.",
        f"I went through {path} and the tests around it.",
    ))  # fmt: skip
    parts = [opening]
    if error is not None:
        parts.append(
            f"The run failed with {error[0]}. Fixed it: {error[1]}, and the suite is green again."
        )
    parts += sentences
    parts.append(
        rng.choice(
            ("Nothing else stands out.", "I kept the change small.", "Ready for the next step.")
        )
    )
    return " ".join(parts)


def generate_session(turns: int = TURNS, seed: int = SEED) -> list[Turn]:
    """The deterministic coding session: per turn, the user message, the scripted replies, labels."""
    rng = random.Random(seed)
    events = _schedule(random.Random(seed + 1), turns)
    state = _State()
    out = []
    for t in range(1, turns + 1):
        path = FILES[rng.randrange(len(FILES))]
        user_events = [e for e in events[t] if e[2] == "user"]
        said = [_fact_sentence(e, state, rng) for e in user_events]
        user = {"role": "user", "content": _user_text(t, path, said, rng)}
        labels = (list(state.in_force.values()), list(state.open))
        error = next((e[1] for e in events[t] if e[0] == "error"), None)
        replies = _tool_round(t, path, error, rng)
        said = [
            _fact_sentence(e, state, rng)
            for e in events[t]
            if e[2] == "assistant" and e[0] != "error"
        ]
        replies.append({"role": "assistant", "content": _assistant_text(path, said, error, rng)})
        out.append(Turn(user, replies, *labels))
    return out


def _tool_round(
    turn: int, path: str, error: tuple[str, str] | None, rng: random.Random
) -> list[dict]:
    """The assistant's tool calls for a turn and their results: read files, run tests."""
    calls = [("read_file", {"path": path})]
    if rng.random() < 0.2:
        calls.append(("read_file", {"path": rng.choice(FILES)}))
    if error is not None or rng.random() < 0.55:
        calls.append(("run_tests", {"target": "tests/", "args": ["-q", "-x"]}))
    call_msgs = [
        {
            "id": f"call_{turn}_{i}",
            "type": "function",
            "function": {"name": n, "arguments": json.dumps(a)},
        }
        for i, (n, a) in enumerate(calls)
    ]
    out: list[dict] = [{"role": "assistant", "content": None, "tool_calls": call_msgs}]
    for call, (name, args) in zip(call_msgs, calls, strict=True):
        rng_out = random.Random(f"{turn}:{call['id']}:{args}")
        text = (
            file_text(args["path"], rng_out)
            if name == "read_file"
            else test_output(args["target"], rng_out, error)
        )
        out.append({"role": "tool", "tool_call_id": call["id"], "content": text})
    return out


# --- running it through the proxy ----------------------------------------------------------------


def message_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content or ""


def recall(messages: Sequence[dict], items: Sequence[str]) -> dict:
    """Recall of ``items`` in the messages' text: the coverage relation, sentence by sentence."""
    from benchmarks.baselines import sentences
    from benchmarks.scoring import score_category

    labels = [s for m in messages for s in sentences(message_text(m))]
    score = score_category(labels, list(items))
    return {
        "recall": score["recall"],
        "n": score["n_gt"],
        "covered": score["n_covered"],
        "misses": score["misses"],
    }


def common_prefix(previous: Sequence[dict], current: Sequence[dict]) -> int:
    """How many leading messages of ``current`` equal those of ``previous``."""
    n = 0
    for a, b in zip(previous, current, strict=False):
        if a != b:
            break
        n += 1
    return n


def prefix_share(previous: Sequence[dict] | None, current: Sequence[dict]) -> dict | None:
    """The share of a request (in messages and in message tokens) that repeats the previous one's start."""
    from memory.graph.tokens import count_message

    if previous is None:
        return None
    k = common_prefix(previous, current)
    total = sum(count_message(m, MODEL) for m in current)
    same = sum(count_message(m, MODEL) for m in current[:k])
    return {
        "messages": k / len(current),
        "tokens": same / total if total else 0.0,
        "prefix_messages": k,
    }


def resume_of(forwarded: Sequence[dict], sent: Sequence[dict]) -> list[dict]:
    """The system messages the proxy added (the resume block): in what it forwarded, not in the request."""
    return [m for m in forwarded if m.get("role") == "system" and m not in sent]


def memory_state(session_id: str) -> dict:
    """The session's memory when a check is made: what was read, and the checkpoint the resume is from."""
    from memory.models import Session

    session = Session.objects.get(external_id=session_id)
    latest = session.checkpoints.order_by("-sequence").first()
    return {
        "transcript_messages": session.messages.count(),
        "high_water": session.high_water,
        "checkpoint": latest
        and {
            "sequence": latest.sequence,
            "high_water": latest.high_water,
            "standard_tokens": latest.standard_tokens,
        },
    }


def check_point(turn: int, sent: list[dict], forwarded: list[dict], labels: Turn) -> dict:
    """Recall of the decisions in force and the open tasks at one turn, from three texts."""
    resume = resume_of(forwarded, sent)
    out = {
        "turn": turn,
        "resume_text": "\n".join(message_text(m) for m in resume),
        "decisions_in_force": len(labels.decisions),
        "open_tasks": len(labels.open_tasks),
    }
    for name, messages in (
        ("forwarded", forwarded),
        ("resume_block", resume),
        ("full_history", sent),
    ):
        out[name] = {
            "decisions": recall(messages, labels.decisions),
            "open_tasks": recall(messages, labels.open_tasks),
        }
    out["resume_tokens"] = sum(_count(m) for m in resume)
    return out


def _count(message: dict) -> int:
    from memory.graph.tokens import count_message

    return count_message(message, MODEL)


# The two ways the history grows. "scripted": the scripted assistant turn follows the user turn, as
# the brief defines it; the upstream's own reply (the loopback's echo), which the proxy recorded,
# never comes back. "reply_kept": the client keeps the upstream's short reply before the scripted
# turn, so the history it resends always extends what the proxy recorded, as a real client's does.
VARIANTS = {"scripted": False, "reply_kept": True}


def run_session(
    bench,
    turns: list[Turn],
    session_id: str,
    keep_reply: bool,
    deadline: float,
    show: bool,
    api_key: str = "",
) -> dict:
    """Send the session through the proxy turn by turn; what the loopback received, per turn."""
    import httpx

    from memory.graph.tokens import count_messages

    history: list[dict] = [{"role": "system", "content": SYSTEM_PROMPT}]
    rows, checks, previous, previous_full = [], [], None, None
    url = f"{bench.proxy_url}/v1/chat/completions"
    with httpx.Client(timeout=httpx.Timeout(300, connect=10)) as client:
        for t, turn in enumerate(turns, 1):
            if time.monotonic() > deadline:
                raise TimeoutError(f"stopped at turn {t}: over the time limit")
            sent = [*history, turn.user]
            seen = len(bench.loopback.requests)
            start = time.perf_counter()
            response = client.post(
                url,
                json={"model": MODEL, "messages": sent},
                headers=bench.headers(session_id, api_key),
            )
            ms = (time.perf_counter() - start) * 1000
            received = bench.loopback.requests[seen:]
            forwarded = received[-1]["body"]["messages"] if received else []
            rows.append({
                "turn": t, "status": response.status_code, "ms": ms, "upstream_requests": len(received),
                "full_tokens": count_messages(sent, MODEL), "forwarded_tokens": count_messages(forwarded, MODEL) if forwarded else 0,
                "forwarded_messages": len(forwarded), "sent_messages": len(sent),
                "compacted": forwarded != sent,
                "prefix": prefix_share(previous, forwarded) if forwarded else None,
                "full_prefix": prefix_share(previous_full, sent),
            })  # fmt: skip
            if t in CHECK_TURNS and forwarded:
                checks.append(check_point(t, sent, forwarded, turn))
                checks[-1]["memory"] = memory_state(session_id)
            if response.status_code != 200:
                rows[-1]["error"] = response.text[:300]
                failures = [r for r in rows[-5:] if r["status"] != 200]
                if len(failures) == 5:
                    raise RuntimeError(
                        f"5 failed requests in a row, the last: {response.text[:300]}"
                    )
            previous, previous_full = (forwarded or None), sent
            reply = _reply(response) if keep_reply else None
            history = [*sent, *([reply] if reply else []), *turn.replies]
            if show and (t % 25 == 0 or t == len(turns)):
                r = rows[-1]
                print(
                    f"token economy ({session_id}): turn {t}/{len(turns)}, {r['full_tokens']:,} → {r['forwarded_tokens']:,} tokens, {ms:.0f} ms",
                    file=sys.stderr,
                    flush=True,
                )
    return {"turns": rows, "checks": checks}


def _reply(response) -> dict | None:
    if response.status_code != 200:
        return None
    message = response.json()["choices"][0]["message"]
    return {"role": "assistant", "content": message.get("content") or ""}


def aggregate(rows: list[dict], mecw: int) -> dict:
    """Budget compliance, cumulative tokens and prefix stability over all turns."""
    ok = [r for r in rows if r["status"] == 200 and r["upstream_requests"] == 1]
    over = [r["turn"] for r in rows if r["forwarded_tokens"] > mecw]
    full = sum(r["full_tokens"] for r in rows)
    forwarded = sum(r["forwarded_tokens"] for r in rows)
    shares = [r["prefix"] for r in rows if r["prefix"]]
    compacted = [r for r in rows if r["compacted"]]
    full_shares = [r["full_prefix"] for r in rows if r["full_prefix"]]

    def stats(values: list[float]) -> dict:
        return (
            {"mean": mean(values), "median": median(values), "min": min(values)} if values else {}
        )

    return {
        "requests": len(rows),
        "answered": len(ok),
        "errors": [{"turn": r["turn"], "status": r["status"]} for r in rows if r not in ok],
        "over_budget_turns": over,
        "max_forwarded_tokens": max((r["forwarded_tokens"] for r in rows), default=0),
        "compacted_requests": len(compacted),
        "first_compacted_turn": compacted[0]["turn"] if compacted else None,
        "cumulative_full_tokens": full,
        "cumulative_forwarded_tokens": forwarded,
        "savings_ratio": full / forwarded if forwarded else None,
        "prefix_share": {
            "tokens": stats([s["tokens"] for s in shares]),
            "messages": stats([s["messages"] for s in shares]),
            "tokens_compacted_only": stats(
                [r["prefix"]["tokens"] for r in compacted if r["prefix"]]
            ),
            "zero_prefix_requests": sum(1 for s in shares if s["prefix_messages"] == 0),
            "system_prompt_only_requests": sum(1 for s in shares if s["prefix_messages"] == 1),
        },
        "full_history_prefix_share": {"tokens": stats([s["tokens"] for s in full_shares])},
        "proxy_ms": {"median": median(r["ms"] for r in rows), "max": max(r["ms"] for r in rows)},
    }


def store_stats(session_id: str) -> dict:
    """What the proxy stored for the session: transcript rows, graph, checkpoints."""
    from memory.models import Session

    session = Session.objects.get(external_id=session_id)
    return {
        "transcript_messages": session.messages.count(),
        "diverged_at_position": session.diverged_at_position,
        "high_water": session.high_water,
        "nodes": session.nodes.count(),
        "checkpoints": session.checkpoints.count(),
    }


def session_facts(turns: list[Turn]) -> dict:
    from memory.graph.tokens import count_messages

    per_turn = [count_messages([t.user, *t.replies], MODEL) - 3 for t in turns]
    return {
        "turns": len(turns),
        "seed": SEED,
        "messages": 1 + sum(1 + len(t.replies) for t in turns),
        "tokens": sum(per_turn),
        "mean_tokens_per_turn": mean(per_turn),
        "tool_results": sum(1 for t in turns for m in t.replies if m["role"] == "tool"),
        "decisions": len(DECISIONS),
        "replacements": len(REPLACEMENTS),
        "tasks": len(TASKS),
    }


def run(turns: int = TURNS, mecw: int = MECW, max_seconds: float = 3000, show: bool = True) -> dict:
    from benchmarks.harness import Bench, run_metadata

    session = generate_session(turns)
    results = run_metadata("token_economy")
    results.update(
        model=MODEL,
        tokenizer="cl100k_base (memory.graph.tokens)",
        mecw=mecw,
        session=session_facts(session),
    )
    deadline = time.monotonic() + max_seconds
    results["profile"] = "embedded (SQLite, eager extraction), app under uvicorn in its own process"
    results["variants"] = {}
    with Bench(mecw=mecw) as bench:
        for name, keep_reply in VARIANTS.items():
            # A project per variant: in one project, the second variant's session would start
            # with the first's decisions as project memory.
            api_key = bench.add_project(f"Token economy: {name}")[1]
            measured = run_session(bench, session, name, keep_reply, deadline, show, api_key)
            results["variants"][name] = {
                "aggregate": aggregate(measured["turns"], mecw),
                "checks": measured["checks"],
                "store": store_stats(name),
                "turns": measured["turns"],
            }
        log = [line for line in bench.proxy_log().splitlines() if "kombu" not in line]
        # A compaction that fails falls back to truncation and the request still succeeds: only
        # the log tells.
        results["proxy_errors"] = sum('"level": "ERROR"' in line for line in log)
        results["proxy_log"] = log[-20:]
    return results


# --- report --------------------------------------------------------------------------------------

RATIO_FLOOR = 8.0


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _budget_rows(variants: dict, mecw: int) -> list[list[str]]:
    def row(name: str, floor: str, value) -> list[str]:
        return [name, *(value(v["aggregate"]) for v in variants.values()), floor]

    return [
        row("requests answered", "all", lambda a: f"{a['answered']} / {a['requests']}"),
        row("forwarded requests over the MECW", "0", lambda a: str(len(a["over_budget_turns"]))),
        row("largest forwarded request (tokens)", f"≤ {mecw:,}", lambda a: f"{a['max_forwarded_tokens']:,}"),
        row("compacted requests (first at turn)", "", lambda a: f"{a['compacted_requests']} ({a['first_compacted_turn']})"),
        row("cumulative tokens, resending everything", "", lambda a: f"{a['cumulative_full_tokens']:,}"),
        row("cumulative tokens forwarded", "", lambda a: f"{a['cumulative_forwarded_tokens']:,}"),
        row("ratio", f"≥ {RATIO_FLOOR:.0f}×", lambda a: f"{a['savings_ratio']:.1f}×" if a["savings_ratio"] else "–"),
        row("prefix share, tokens: mean / median", "", lambda a: f"{_pct(a['prefix_share']['tokens'].get('mean'))} / {_pct(a['prefix_share']['tokens'].get('median'))}"),
        row("prefix share, messages: mean / median", "", lambda a: f"{_pct(a['prefix_share']['messages'].get('mean'))} / {_pct(a['prefix_share']['messages'].get('median'))}"),
        row("prefix share of compacted requests, tokens: mean / median", "", lambda a: f"{_pct(a['prefix_share']['tokens_compacted_only'].get('mean'))} / {_pct(a['prefix_share']['tokens_compacted_only'].get('median'))}"),
        row("requests sharing only the system prompt with the previous", "", lambda a: str(a["prefix_share"]["system_prompt_only_requests"])),
        row("prefix share if resending everything, tokens: mean / median", "", lambda a: f"{_pct(a['full_history_prefix_share']['tokens'].get('mean'))} / {_pct(a['full_history_prefix_share']['tokens'].get('median'))}"),
        row("proxy round trip, median / max (ms)", "", lambda a: f"{a['proxy_ms']['median']:.0f} / {a['proxy_ms']['max']:.0f}"),
    ]  # fmt: skip


def _recall_lines(name: str, variant: dict) -> list[str]:
    from benchmarks.report import table

    rows = []
    for c in variant["checks"]:
        rows.append([
            str(c["turn"]), f"{c['resume_tokens']:,}",
            *(f"{_pct(c[src]['decisions']['recall'])} of {c['decisions_in_force']}" for src in ("forwarded", "resume_block", "full_history")),
            *(f"{_pct(c[src]['open_tasks']['recall'])} of {c['open_tasks']}" for src in ("forwarded", "resume_block", "full_history")),
        ])  # fmt: skip
    lines = [f"### {name}", ""]
    lines += table(["turn", "resume tokens", "decisions: forwarded", "resume only", "full history",
                    "open tasks: forwarded", "resume only", "full history"], rows)  # fmt: skip
    for c in variant["checks"]:
        misses = c["forwarded"]["decisions"]["misses"] + c["forwarded"]["open_tasks"]["misses"]
        if misses:
            lines += ["", f"Missed at turn {c['turn']}: " + "; ".join(f"“{m}”" for m in misses)]
    return lines + [""]


def markdown(results: dict) -> str:
    from benchmarks.report import table

    s, variants = results["session"], results["variants"]
    lines = [
        f"# Token economy — {s['turns']}-turn generated session through the proxy (MECW {results['mecw']:,})",
        "",
        f"tokenmizer {results['code_version']}, commit {results['git_commit'] or 'none'}"
        f"{' (working tree changed)' if results.get('working_tree_changes') else ''}, {results['date']}, "
        f"Python {results['python']}, {results['machine']['platform']} ({results['machine']['cpu_count']} CPUs); "
        f"{results['profile']}. Tokens: {results['tokenizer']}, `count_messages` of what the loopback upstream received.",
        "",
        f"Session (seed {s['seed']}): {s['messages']:,} messages, {s['tokens']:,} tokens "
        f"({s['mean_tokens_per_turn']:.0f} per turn, {s['tool_results']} tool results), {s['decisions']} decisions "
        f"({s['replacements']} later replaced), {s['tasks']} tasks.",
        "",
        "Variants: **scripted** — each request is the history plus the new user turn, and the history then grows "
        "by the scripted assistant turn (the upstream's echo, which the proxy recorded as the reply, never comes "
        "back); **reply_kept** — the same, but the client keeps the upstream's short reply before the scripted "
        "turn, so what it resends always extends what the proxy recorded.",
        "",
        "Prefix share of a request: its leading messages identical to the previous forwarded request's, as a "
        "share of its messages and of its message tokens (framing included, reply priming not): at most what a "
        "provider's prompt cache can reuse.",
        "",
        "## Budget, cumulative tokens, prefix stability",
        "",
        *table(["measure", *variants, "floor"], _budget_rows(variants, results["mecw"])),
        "",
        f"Errors in the proxy's log (a failed compaction falls back to truncation): "
        f"{results.get('proxy_errors', 0)} (floor 0; the last lines are in `proxy_log`).",
        "",
        "## Recall of what the model received",
        "",
        "Labelled decisions in force and open tasks when the turn's request is sent, covered (benchmarks.scoring "
        "coverage relation) by a sentence of the forwarded messages' text; the resume block alone and the full "
        "history (a check of the labels: 100%) beside it.",
        "",
    ]
    for name, variant in variants.items():
        lines += _recall_lines(name, variant)
    lines += ["## What the proxy stored", ""]
    lines += table(["variant", "transcript rows", "client's messages", "diverged at", "high-water", "graph nodes", "checkpoints"], [
        [name, f"{v['store']['transcript_messages']:,}", f"{s['messages']:,}", str(v["store"]["diverged_at_position"]),
         str(v["store"]["high_water"]), str(v["store"]["nodes"]), str(v["store"]["checkpoints"])]
        for name, v in variants.items()
    ])  # fmt: skip
    return "\n".join(lines) + "\n"


def chart(results: dict, path: Path) -> None:
    """Per-turn tokens forwarded against the whole history (log scale), with the MECW."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.8), dpi=120)
    styles = {"scripted": ("#1f6feb", "-"), "reply_kept": ("#2da44e", "--")}
    full_drawn = False
    for name, variant in results["variants"].items():
        rows = variant["turns"]
        turns = [r["turn"] for r in rows]
        if not full_drawn:
            ax.plot(
                turns,
                [r["full_tokens"] for r in rows],
                color="#8b949e",
                label="whole history (resend everything)",
            )
            full_drawn = True
        a = variant["aggregate"]
        color, line = styles.get(name, ("#000000", ":"))
        ax.plot(turns, [r["forwarded_tokens"] for r in rows], color=color, linestyle=line,
                label=f"forwarded, {name}: {a['savings_ratio']:.1f}× fewer, {len(a['over_budget_turns'])} over budget")  # fmt: skip
    ax.axhline(results["mecw"], color="#cf222e", linestyle=":", label=f"MECW {results['mecw']:,}")
    for turn in CHECK_TURNS:
        ax.axvline(turn, color="#d29922", alpha=0.3, linewidth=1)
    ax.set_yscale("log")
    ax.set_xlabel("turn (recall checked at the orange lines)")
    ax.set_ylabel("prompt tokens per request (log)")
    ax.set_title(f"Token economy: {results['session']['turns']}-turn session through the proxy")
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.token_economy", description=__doc__)
    parser.add_argument(
        "--out", required=True, type=Path, help="results JSON; .md and .png beside it"
    )
    parser.add_argument(
        "--turns", type=int, default=TURNS, help=f"session length (default {TURNS})"
    )
    parser.add_argument(
        "--max-seconds", type=float, default=3000, help="stop the run after this long"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    results = run(args.turns, MECW, args.max_seconds, show=not args.quiet)
    from benchmarks.harness import write_results

    paths = write_results(results, args.out, markdown, chart)
    ratios = ", ".join(
        f"{k} {v['aggregate']['savings_ratio']:.1f}×" for k, v in results["variants"].items()
    )
    print(f"ratio {ratios}; wrote " + ", ".join(map(str, paths)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
