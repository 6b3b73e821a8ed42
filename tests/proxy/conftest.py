"""Fixtures for proxy tests: the real ASGI app under uvicorn, a loopback provider, keys, a client."""

import socket
import threading
import time

import openai
import pytest
import uvicorn
from django.core.exceptions import ObjectDoesNotExist

from proxy.keys import create_key
from proxy.loopback import LoopbackServer


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def upstream():
    with LoopbackServer() as server:
        yield server


@pytest.fixture
def proxy_url(transactional_db, settings, upstream):
    """The whole application served by uvicorn on a free port, its default upstream the loopback."""
    upstream.reset()
    settings.TOKENMIZER_UPSTREAM_URL = f"{upstream.url}/v1"
    settings.TOKENMIZER_READ_TIMEOUT_S = 2.0
    port = free_port()
    config = uvicorn.Config(
        "tokenmizer_site.asgi:application",
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def api_key(alice, project):
    return create_key(alice, project, "laptop")[1]


@pytest.fixture
def client(proxy_url, api_key):
    return openai.OpenAI(base_url=f"{proxy_url}/v1", api_key=api_key, max_retries=0, timeout=10)


def eventually(check, timeout: float = 5.0):
    """Poll ``check`` until it returns something truthy: the proxy records an exchange (and
    stores a new session) after the response has been sent, so a test reads the database a
    moment later. A row not there yet counts as not yet."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = check()
        except ObjectDoesNotExist:
            result = None
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.02)
