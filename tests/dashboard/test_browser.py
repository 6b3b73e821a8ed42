"""End to end in a real browser: sign in, make a project and a key, talk through the proxy, watch the
session and its graph appear live, settle a contested pair, and see the next resume reflect it."""

import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

import openai
import pytest
import uvicorn
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

from memory.models import Checkpoint, Session
from proxy.loopback import LoopbackServer
from tests.proxy.conftest import eventually, free_port

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
FIRST = "We are building a notes app. Decided: PostgreSQL for primary user data."
SECOND = "Decided: SQLite for the local offline cache."

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is missing")


@pytest.fixture
def site_url(transactional_db, settings):
    """The whole ASGI application under uvicorn (static files served beside it, as DEBUG would)."""
    from tokenmizer_site.asgi import application

    with LoopbackServer() as upstream:
        settings.TOKENMIZER_UPSTREAM_URL = f"{upstream.url}/v1"
        port = free_port()
        config = uvicorn.Config(
            ASGIStaticFilesHandler(application), host="127.0.0.1", port=port,
            log_level="warning", lifespan="off",
        )  # fmt: skip
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}", upstream
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def page(monkeypatch):
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the test's own ORM reads are sync.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    SHOTS.mkdir(parents=True, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="tmz-chromium-")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=ARGS, headless=True,
            viewport={"width": 1360, "height": 900},
        )  # fmt: skip
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.on("dialog", lambda dialog: dialog.accept())
        yield page
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


def shot(page, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def talk(client, history: list, text: str) -> list:
    history = [*history, {"role": "user", "content": text}]
    reply = client.chat.completions.create(
        model="echo", messages=history, extra_body={"session_id": "notes-1"}
    )
    return [*history, {"role": "assistant", "content": reply.choices[0].message.content}]


def test_a_team_member_sees_a_session_appear_and_settles_its_contested_pair(site_url, page, alice):
    url, upstream = site_url
    page.goto(url + "/")
    assert "/accounts/login/" in page.url
    shot(page, "01-sign-in")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", "alice-password-1")
    page.click("button[type=submit]")
    page.fill("input[name=name]", "Notes app")
    page.click("text=Create project")
    page.wait_for_selector("h1:has-text('Sessions')")
    project_url = page.url

    # A small MECW so the worker checkpoints this short conversation.
    page.click("nav.tabs >> text=Settings")
    page.fill("input[name=mecw]", "150")
    page.fill("input[name=compaction_ratio]", "0.5")
    page.click("text=Save settings")
    page.wait_for_selector("text=Settings saved.")
    shot(page, "02-settings")

    page.click("text=API keys")
    page.fill("#key-panel input[name=name]", "laptop")
    page.click("text=Create key")
    plaintext = page.text_content("#new-key").strip()
    assert plaintext.startswith("tmz_") and plaintext in page.text_content("#new-key-snippet")
    shot(page, "03-key-created")

    page.goto(project_url)
    page.wait_for_selector("#live-indicator.on")  # the websocket is open
    client = openai.OpenAI(base_url=f"{url}/v1", api_key=plaintext, max_retries=0, timeout=10)
    history = talk(client, [], FIRST)
    history = talk(client, history, SECOND)
    # The session appears without a reload, pushed over the websocket.
    page.wait_for_selector("#session-list a:has-text('notes-1')")
    session = eventually(lambda: Session.objects.filter(external_id="notes-1").first())
    eventually(lambda: session.nodes.filter(status="contested").count() == 2)
    shot(page, "04-sessions")

    page.click("#session-list a:has-text('notes-1')")
    page.wait_for_selector("#node-table td:has-text('PostgreSQL for primary user data')")
    page.select_option("select[name=type]", "decision")
    page.wait_for_function(
        "() => !document.querySelector('#node-table').textContent.includes('notes app')"
    )
    assert "type=decision" in page.url  # the filter is kept in the URL
    page.fill("input[name=q]", "sqlite")  # typing filters too, without leaving the field
    page.wait_for_function(
        "() => !document.querySelector('#node-table').textContent.includes('PostgreSQL')"
    )
    page.fill("input[name=q]", "")
    page.wait_for_selector("#node-table td:has-text('PostgreSQL for primary user data')")
    shot(page, "05-session-nodes")
    page.fill("input[name=position]", "0")
    page.press("input[name=position]", "Enter")
    page.wait_for_selector("text=as it held at message #0")
    assert "SQLite" not in page.text_content("#node-table")  # not yet said at message 0
    assert "position=0" in page.url
    page.click("[data-clear-travel]")
    page.wait_for_selector("#node-table td:has-text('SQLite for the local offline cache')")
    assert "position=0" not in page.url and "type=decision" in page.url
    page.fill("input[name=position]", "0")
    page.press("input[name=position]", "Enter")
    page.wait_for_selector("text=as it held at message #0")
    page.click("text=PostgreSQL for primary user data")
    page.wait_for_selector("#node-status")
    shot(page, "05b-node")
    page.click(".crumbs >> text=notes-1")

    page.click("nav.subtabs >> text=Graph")
    page.wait_for_selector("#graph g.node.contested circle")
    page.wait_for_timeout(1200)  # let the force layout settle for the picture
    shot(page, "06-graph")
    page.eval_on_selector(
        "#graph-position", "el => { el.value = 0; el.dispatchEvent(new Event('input')); }"
    )
    page.wait_for_function("() => document.querySelectorAll('#graph g.node').length === 2")
    # At message 0 nothing was contested yet.
    assert page.locator("#graph g.node.contested").count() == 0
    assert "position=0" in page.url

    page.click("nav.tabs >> text=Review")
    page.wait_for_selector(".pair .side h3:has-text('SQLite for the local offline cache')")
    shot(page, "07-review")
    page.fill(".pair input[name=reason]", "complementary: server data vs offline cache")
    page.click(".pair button[value=keep_both]")
    page.wait_for_selector("text=Nothing to review")
    assert page.url.endswith("/review/")  # settled without a page load

    # The next request lets the worker checkpoint the settled graph: that is the next resume.
    talk(client, history, "Completed: notes sync endpoint. The sync log reads: " + "ok " * 80)
    latest = eventually(
        lambda: (
            (c := Checkpoint.objects.filter(session=session).order_by("-sequence").first())
            and "kept alongside" in c.standard
            and c
        )
    )
    assert latest, [(c.sequence, c.standard) for c in Checkpoint.objects.filter(session=session)]
    assert "Contested" not in latest.standard
    assert "PostgreSQL for primary user data" in latest.standard

    page.click("nav.tabs >> text=Decisions")
    page.wait_for_selector("#decision-history .actor.person:has-text('alice')")
    shot(page, "08-decisions")
    page.goto(f"{url}/checkpoints/{latest.pk}/")
    page.wait_for_selector("text=Decisions in force")
    shot(page, "09-checkpoint")
    page.goto(project_url + "members/")
    page.wait_for_selector("#member-list")
    shot(page, "11-members")
    page.goto(project_url + "usage/")
    page.wait_for_selector("svg.chart rect")
    shot(page, "10-usage")
    assert os.path.exists(SHOTS / "10-usage.png")
