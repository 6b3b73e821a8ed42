"""Many requests at once on one session: every turn recorded once, one node per fact, no 5xx."""

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from memory.graph.types import NodeType
from memory.models import Session

pytestmark = pytest.mark.django_db(transaction=True)
CONCURRENT = 50
SYSTEM = {"role": "system", "content": "You are a careful reviewer of the orders service."}


def wait_for(check, what: str, timeout: float = 60.0):
    """Poll ``check`` until it holds; fail naming ``what`` when it does not within ``timeout``."""
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, f"{what}: not so after {timeout:.0f} s"
        time.sleep(0.05)
    return result


def test_fifty_concurrent_requests_on_one_session_record_every_turn_once(
    proxy_url, api_key, project
):
    project.requests_per_minute = 10 * CONCURRENT  # the limit is not what is tested
    project.save()
    url, gate = f"{proxy_url}/v1/chat/completions", threading.Barrier(CONCURRENT)
    headers = {"Authorization": f"Bearer {api_key}", "X-Session-Id": "crowd"}
    asks = [f"TODO: write the migration for table_{n}." for n in range(CONCURRENT)]

    def ask(text: str) -> tuple[int, str]:
        body = {"model": "echo", "messages": [SYSTEM, {"role": "user", "content": text}]}
        with httpx.Client(timeout=60) as http:
            gate.wait(timeout=30)  # all released together, on a session that does not exist yet
            response = http.post(url, json=body, headers=headers)
        reply = (
            response.json()["choices"][0]["message"]["content"]
            if response.status_code == 200
            else ""
        )
        return response.status_code, reply

    with ThreadPoolExecutor(CONCURRENT) as pool:
        answers = list(pool.map(ask, asks))
    assert Counter(status for status, _ in answers) == {200: CONCURRENT}
    expected = 1 + 2 * CONCURRENT  # the system message once, then each question and its answer

    def settled() -> Session | None:
        session = Session.objects.filter(external_id="crowd").first()
        done = session is not None and session.high_water == expected - 1
        return session if done and session.messages.count() == expected else None

    session = wait_for(settled, "every turn recorded and extracted")
    assert Session.objects.filter(external_id="crowd").count() == 1
    stored = Counter(session.messages.values_list("role", "content"))
    wanted = Counter([("system", SYSTEM["content"])] + [("user", a) for a in asks])
    wanted.update(("assistant", reply) for _, reply in answers)
    assert stored == wanted  # each turn exactly once, none lost
    positions = sorted(session.messages.values_list("position", flat=True))
    assert positions == list(range(expected))
    tasks = list(session.nodes.filter(type=NodeType.TASK).values_list("key", flat=True))
    assert sorted(tasks) == sorted(a.removeprefix("TODO: ").rstrip(".").lower() for a in asks)


def test_one_request_retried_fifty_times_at_once_is_recorded_once(proxy_url, api_key, project):
    project.requests_per_minute = 10 * CONCURRENT
    project.save()
    url, gate = f"{proxy_url}/v1/chat/completions", threading.Barrier(CONCURRENT)
    headers = {"Authorization": f"Bearer {api_key}", "X-Session-Id": "retries"}
    history = [SYSTEM, {"role": "user", "content": "Decided: PostgreSQL for orders storage."}]

    def send(_: int) -> int:
        with httpx.Client(timeout=60) as http:
            gate.wait(timeout=30)
            return http.post(
                url, json={"model": "echo", "messages": history}, headers=headers
            ).status_code

    with ThreadPoolExecutor(CONCURRENT) as pool:
        assert Counter(pool.map(send, range(CONCURRENT))) == {200: CONCURRENT}

    def settled() -> Session | None:
        session = Session.objects.filter(external_id="retries").first()
        return session if session is not None and session.high_water == 2 else None

    session = wait_for(settled, "the exchange recorded and extracted")
    assert list(session.messages.values_list("role", flat=True)) == ["system", "user", "assistant"]
    decisions = session.nodes.filter(type=NodeType.DECISION, key="postgresql for orders storage")
    assert decisions.count() == 1
