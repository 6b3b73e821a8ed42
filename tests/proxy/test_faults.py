"""Faults against the real services: the broker gone, a worker killed mid-job, Redis down,
PostgreSQL restarting under traffic. Production profile only; every service stopped is restarted
in ``finally`` and each outage lasts seconds."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from contextlib import contextmanager

import httpx
import pytest
from django.conf import settings
from django.db import connection

from memory import tasks
from memory.graph.pipeline import build_graph
from memory.graphs import turns_of
from memory.models import Message, Session
from memory.transcripts import record_messages
from tests.conftest import _test_database_url, start_worker, stop_worker
from tokenmizer_site.celery import app

pytestmark = [
    pytest.mark.skipif(
        not (settings.DATABASE_URL.startswith("postgres") and settings.REDIS_URL),
        reason="production profile only (DATABASE_URL + REDIS_URL)",
    ),
    pytest.mark.django_db(transaction=True),
]
REDIS_HOST, REDIS_PORT = "127.0.0.1", "6379"
PG_CLUSTER = ("15", "main")
FACTS = [
    "We're building a checkout service in Django 5.2 on Python 3.11.",
    "Decided: PostgreSQL for orders storage.",
    "TODO: write the migration for the refunds table.",
    "Completed: POST /orders endpoint.",
    "Let's hold off on the loyalty points feature.",
]
KEYS = {
    "postgresql for orders storage",
    "write the migration for the refunds table",
    "post /orders",
    "hold off on the loyalty points feature",
}


def wait_for(check, what: str, timeout: float = 30.0):
    """Poll ``check`` until it holds; fail naming ``what`` when it does not within ``timeout``."""
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, f"{what}: not so after {timeout:.0f} s"
        time.sleep(0.05)
    return result


def converse(client, session_id: str, texts: list[str], history: list | None = None) -> list[dict]:
    """One request per text, each the whole history so far, as a chat client sends them."""
    history = [] if history is None else history
    for text in texts:
        history.append({"role": "user", "content": text})
        reply = client.chat.completions.create(
            model="echo", messages=history, extra_body={"session_id": session_id}
        )
        history.append({"role": "assistant", "content": reply.choices[0].message.content})
    return history


def caught_up(session_id: str, history: list[dict]) -> Session | None:
    """The session once every turn of ``history`` is stored and its graph has read them all."""
    session = Session.objects.filter(external_id=session_id).first()
    if session is None or session.high_water != len(history) - 1:
        return None
    return session if session.messages.count() == len(history) else None


def assert_recorded_once(session: Session, history: list[dict]) -> None:
    stored = list(session.messages.order_by("position").values_list("role", "content"))
    assert stored == [(m["role"], m["content"]) for m in history]  # each turn once, in order


def node_keys(session: Session) -> list[str]:
    return list(session.nodes.values_list("key", flat=True))


# --- the broker unreachable ------------------------------------------------------------------


@contextmanager
def broker_at(url: str):
    """Point this process's Celery producer (the proxy's, served in a thread) at ``url``."""
    saved = app.conf.broker_url
    app.conf.broker_url = url
    app._after_fork()  # drops the connection and producer pools, as Celery does in a child
    try:
        yield
    finally:
        app.conf.broker_url = saved
        app._after_fork()


def test_with_the_broker_unreachable_requests_succeed_and_facts_reach_the_graph(client):
    """The behaviour we chose: a job the broker refuses is run inline, in the request's recording
    thread, once the transcript is committed (``extract_pending`` would catch up on anything still
    left behind). The user notices nothing but a slower recording."""
    closed = "redis://127.0.0.1:1/15"  # nothing listens on port 1
    with broker_at(closed):
        history = converse(client, "no-broker", FACTS)
        session = wait_for(lambda: caught_up("no-broker", history), "inline extraction caught up")
    assert_recorded_once(session, history)
    assert KEYS <= set(node_keys(session))


# --- a worker killed in the middle of a job ---------------------------------------------------

QUEUE = "fault-kill"  # a queue of its own, so the suite's worker does not take the job


def long_transcript(turns: int) -> list[dict]:
    """A transcript long enough that extracting it takes the worker a few seconds."""
    return [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"Step {i}: Decided: keep module_{i} pure. TODO: test src/module_{i}.py "
            f"with pytest. Error: ValueError in module_{i}.",
        }
        for i in range(turns)
    ]


def running_job(worker_name: str, task_id: str) -> int | None:
    """The pid of the pool process running ``task_id`` on that worker, once it runs."""
    active = app.control.inspect(destination=[worker_name], timeout=1.0).active() or {}
    for job in active.get(worker_name, []):
        if job["id"] == task_id and job.get("worker_pid"):
            return job["worker_pid"]
    return None


def own_worker(name: str):
    worker = start_worker(_test_database_url(), "--pool=prefork", "-Q", QUEUE, "-n", name)
    wait_for(lambda: app.control.ping(destination=[name], timeout=0.5), f"worker {name} answers")
    return worker


@pytest.mark.parametrize("victim", ["pool process", "whole worker"])
def test_a_worker_killed_mid_extraction_gets_its_job_redelivered(session, victim):
    """SIGKILL mid-job: the pool process (the worker requeues its job at once) or the whole worker
    (the job waits out the visibility timeout, 5 s in tests, and a new worker takes it). Either way
    the graph ends complete: every message read, no duplicate node, the same facts as a clean run."""
    transcript = long_transcript(300)
    record_messages(session, transcript)
    name = f"fault-{os.getpid()}-{victim.split()[0]}@127.0.0.1"
    worker = own_worker(name)
    replacement = None
    try:
        job = tasks.extract_session.apply_async((session.pk,), queue=QUEUE)
        pid = wait_for(lambda: running_job(name, job.id), "the worker started the extraction")
        if victim == "whole worker":
            os.kill(worker.pid, signal.SIGKILL)  # the main process first: nobody left to requeue
            worker.wait(timeout=10)
        os.kill(pid, signal.SIGKILL)
        session.refresh_from_db()
        assert session.high_water == -1, "the job ended before the kill: lengthen the transcript"
        if victim == "whole worker":
            # Past the visibility timeout: a worker restores such jobs as it starts.
            time.sleep(6)
            replacement = own_worker(name)
        wait_for(
            lambda: Session.objects.get(pk=session.pk).high_water == len(transcript) - 1,
            "the redelivered job extracted every message",
            timeout=90,
        )
    finally:
        stop_worker(worker)
        if replacement is not None:
            stop_worker(replacement)
    keys = [(t, k) for t, k in session.nodes.values_list("type", "key")]
    assert len(keys) == len(set(keys))
    assert Message.objects.filter(session=session).count() == len(transcript)
    expected = build_graph(turns_of(session))
    assert set(keys) == {(str(t), k) for t, k in expected.nodes}


# --- Redis down while the proxy serves --------------------------------------------------------


def redis_answers() -> bool:
    ping = subprocess.run(
        ["redis-cli", "-h", REDIS_HOST, "-p", REDIS_PORT, "ping"], capture_output=True, text=True
    )
    return ping.stdout.strip() == "PONG"


@contextmanager
def redis_stopped():
    """Redis shut down for the block (no persistence: it comes back empty), restarted after."""
    subprocess.run(["redis-cli", "-h", REDIS_HOST, "-p", REDIS_PORT, "shutdown", "nosave"],
                   capture_output=True, timeout=10)  # fmt: skip
    try:
        wait_for(lambda: not redis_answers(), "Redis stopped", timeout=10)
        yield
    finally:
        if not redis_answers():
            subprocess.run(
                ["redis-server", "--daemonize", "yes", "--bind", REDIS_HOST, "--port", REDIS_PORT,
                 "--save", "", "--appendonly", "no"],
                check=True, capture_output=True, timeout=10,
            )  # fmt: skip
        wait_for(redis_answers, "Redis restarted", timeout=10)


def test_with_redis_down_the_proxy_serves_and_loses_nothing(client):
    with redis_stopped():
        history = converse(
            client, "redis-down", FACTS[:3]
        )  # rate limits and key bookkeeping fail open
        # Inline at once: 10 s is far more than it takes, far less than a sender blocked on Redis.
        during = wait_for(lambda: caught_up("redis-down", history), "inline extraction", 10)
    assert KEYS - {"post /orders", "hold off on the loyalty points feature"} <= set(
        node_keys(during)
    )
    history = converse(client, "redis-down", FACTS[3:], history)  # Redis back: the worker's turn
    session = wait_for(lambda: caught_up("redis-down", history), "extraction after the outage", 60)
    assert_recorded_once(session, history)
    keys = node_keys(session)
    assert KEYS <= set(keys) and len(keys) == len(set(keys))


# --- PostgreSQL restarting while requests are in flight ---------------------------------------


def pg_ctl(action: str) -> None:
    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", *PG_CLUSTER, action],
                   check=True, capture_output=True, timeout=60)  # fmt: skip


def pg_answers() -> bool:
    return subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1", "-p", "5432"]).returncode == 0


class Chatter(threading.Thread):
    """A client sending turns of its own session back to back until told to stop."""

    def __init__(self, proxy_url: str, api_key: str, n: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.url, self.stop, self.session_id = f"{proxy_url}/v1/chat/completions", stop, f"pg-{n}"
        self.headers = {"Authorization": f"Bearer {api_key}", "X-Session-Id": self.session_id}
        self.history: list[dict] = []
        self.outcomes: list[tuple[int | str, dict | None]] = []

    def send(self, http: httpx.Client, text: str) -> int | str:
        body = {"model": "drip", "messages": [*self.history, {"role": "user", "content": text}]}
        try:
            response = http.post(self.url, json=body, headers=self.headers)
        except httpx.HTTPError as error:  # a hang (timeout) or a dropped connection
            self.outcomes.append((type(error).__name__, None))
            return type(error).__name__
        data = (
            response.json()
            if response.headers.get("content-type", "").startswith("application/json")
            else None
        )
        self.outcomes.append((response.status_code, data))
        if response.status_code == 200:
            self.history += [body["messages"][-1], data["choices"][0]["message"]]
        return response.status_code

    def run(self) -> None:
        with httpx.Client(timeout=15) as http:
            turn = 0
            while not self.stop.is_set() and turn < 200:
                if (
                    self.send(
                        http, f"Step {turn}: TODO: check module_{turn}.py in {self.session_id}."
                    )
                    == 200
                ):
                    turn += 1


def test_postgresql_restarting_under_traffic_gives_clean_503s_and_the_proxy_recovers(
    proxy_url, api_key, upstream, settings
):
    upstream.drip_delay = 0.02  # each response takes ~0.1 s: requests are in flight throughout
    # Every request asks the database, so the restart meets requests (a recent admission would
    # let a conversation's next request through without it, which is the point of reusing it).
    settings.TOKENMIZER_ADMISSION_TTL_S = 0
    stop = threading.Event()
    chatters = [Chatter(proxy_url, api_key, n, stop) for n in range(6)]
    try:
        for chatter in chatters:
            chatter.start()
        wait_for(lambda: all(c.history for c in chatters), "traffic flowing before the restart")
        pg_ctl("restart")
        wait_for(pg_answers, "PostgreSQL back", timeout=60)
        connection.close()  # this thread's connection died with the server
        served = sum(len(c.history) for c in chatters)
        wait_for(
            lambda: sum(len(c.history) for c in chatters) > served + 12, "requests succeed again"
        )
    finally:
        stop.set()
        for chatter in chatters:
            chatter.join(timeout=30)
        if not pg_answers():
            pg_ctl("start")
            wait_for(pg_answers, "PostgreSQL started", timeout=60)
        connection.close()
    outcomes = [o for c in chatters for o in c.outcomes]
    statuses = {status for status, _ in outcomes}
    assert statuses <= {200, 503}, f"only successes and clean 503s expected, got {statuses}"
    failures = [data for status, data in outcomes if status == 503]
    assert failures, "no request met the restart: nothing was tested"
    for data in failures:
        assert data["error"]["code"] == "service_unavailable" and data["error"]["message"]
        assert "Traceback" not in str(data)
    for chatter in chatters:  # one more turn each: what a failed recording missed is caught up
        with httpx.Client(timeout=15) as http:
            assert chatter.send(http, "Completed: the review of every module.") == 200
        session = wait_for(
            lambda c=chatter: caught_up(c.session_id, c.history), "transcript caught up", 60
        )
        assert_recorded_once(session, chatter.history)
