"""The MCP server, driven by the MCP SDK's own client over stdio against a running TokenMizer."""

import ast
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from memory import graphs
from memory.mcp_server import config_from_env
from memory.models import Node
from memory.transcripts import record_messages
from proxy.keys import create_key
from proxy.models import RequestLog
from tests.conftest import CONTESTED_TALK

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "memory" / "mcp_server.py"
TOOLS = {
    "checkpoint_session",
    "resume_session",
    "search_memory",
    "get_graph_stats",
    "list_contested",
    "resolve_decision",
    "get_savings_stats",
}


@pytest.fixture
def seeded(live_server, project, session, alice):
    """A session with an extracted graph holding one contested pair, some usage, and a key."""
    record_messages(session, CONTESTED_TALK)
    graphs.extract_session(session.pk)
    assert session.nodes.filter(type="decision", status="contested").count() == 2
    for sent, forwarded in ((900, 300), (500, 500)):
        RequestLog.objects.create(
            project=project,
            session=session,
            model="gpt-4o-mini",
            tokens_sent=sent,
            tokens_forwarded=forwarded,
            ttft_ms=100.0,
        )
    key = create_key(alice, project, "mcp")[1]
    return {"url": live_server.url, "key": key, "session": session, "project": project}


def server_params(env: dict) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "memory.mcp_server"], env=env, cwd=str(ROOT)
    )


def run_mcp(seeded: dict, calls: list[tuple[str, dict]]) -> tuple[list, list]:
    """Start ``python -m memory.mcp_server`` against the live server, list its tools and make
    ``calls`` in one session: the tools, and each call's result."""
    env = {"TOKENMIZER_URL": seeded["url"], "TOKENMIZER_API_KEY": seeded["key"]}

    async def scenario():
        with anyio.fail_after(120):  # a hung server fails the test instead of the whole run
            async with stdio_client(server_params(env)) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=60) as client:
                    await client.initialize()
                    tools = (await client.list_tools()).tools
                    results = [await client.call_tool(name, args) for name, args in calls]
                    return tools, results

    return anyio.run(scenario)


def data(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def text(result) -> str:
    return result.content[0].text


def test_the_server_lists_its_tools_with_descriptions_and_typed_parameters(seeded):
    tools, _ = run_mcp(seeded, [])
    by_name = {tool.name: tool for tool in tools}
    assert TOOLS <= set(by_name)
    assert all(by_name[name].description for name in TOOLS)
    resolve = by_name["resolve_decision"].input_schema
    assert resolve["properties"]["node_a"]["type"] == "integer"
    assert "a_replaces_b" in resolve["properties"]["outcome"]["enum"]
    assert set(resolve["required"]) == {"node_a", "node_b", "outcome"}
    assert by_name["resume_session"].input_schema["required"] == ["session"]


def test_resume_returns_the_resume_text_and_search_finds_a_decision(seeded):
    session = seeded["session"]
    _, (resume, full, search, checkpoint) = run_mcp(
        seeded,
        [
            ("resume_session", {"session": "sess-1"}),
            ("resume_session", {"session": "sess-1", "level": "full"}),
            ("search_memory", {"query": "SQLite offline cache", "limit": 5}),
            ("checkpoint_session", {"session": "sess-1"}),
        ],
    )
    latest = session.checkpoints.order_by("-sequence").first()
    assert not resume.is_error and text(resume) == latest.standard
    assert "PostgreSQL for primary user data" in text(resume)
    assert "SQLite for the local offline cache" in text(resume)
    assert text(full) == latest.full
    found = data(search)
    assert 1 <= found["count"] <= 5
    hit = found["results"][0]
    assert hit["type"] == "decision" and hit["label"] == "SQLite for the local offline cache"
    assert data(checkpoint)["id"] == latest.pk  # the graph had not moved: the same checkpoint


def test_a_contested_pair_is_listed_and_resolve_decision_settles_it(seeded):
    session = seeded["session"]
    older, newer = session.nodes.filter(status="contested").order_by("valid_from", "pk")
    reason = "the offline cache replaces the server store"
    _, (before, refused, resolved, after) = run_mcp(
        seeded,
        [
            ("list_contested", {}),
            (
                "resolve_decision",
                {"node_a": newer.pk, "node_b": older.pk, "outcome": "a_replaces_b"},
            ),
            (
                "resolve_decision",
                {
                    "node_a": newer.pk,
                    "node_b": older.pk,
                    "outcome": "a_replaces_b",
                    "reason": reason,
                },
            ),
            ("list_contested", {}),
        ],
    )
    pairs = data(before)
    assert pairs["count"] == 1
    assert {pairs["pairs"][0]["a"]["id"], pairs["pairs"][0]["b"]["id"]} == {older.pk, newer.pk}
    assert refused.is_error and "a reason is required" in text(refused)  # the API's own words
    settled = data(resolved)
    assert settled["node_a"]["status"] == "completed"
    assert settled["node_b"]["status"] == "superseded"
    assert data(after) == {"count": 0, "pairs": []}
    older.refresh_from_db()
    newer.refresh_from_db()
    assert (older.status, newer.status) == ("superseded", "completed")
    transition = session.transitions.order_by("-sequence").first()
    assert transition.reason == reason and transition.actor == "alice"


def test_graph_stats_and_savings_match_the_database(seeded):
    session, project = seeded["session"], seeded["project"]
    nodes = Node.objects.filter(session__project=project)
    by_type = Counter(nodes.values_list("type", flat=True))
    by_status = Counter(nodes.values_list("status", flat=True))
    _, (stats, project_stats, savings, project_savings) = run_mcp(
        seeded,
        [
            ("get_graph_stats", {"session": "sess-1"}),
            ("get_graph_stats", {}),
            ("get_savings_stats", {"session": "sess-1"}),
            ("get_savings_stats", {}),
        ],
    )
    for result in (data(stats), data(project_stats)):
        assert result["nodes_by_type"] == dict(by_type)
        assert result["nodes_by_status"] == dict(by_status)
        assert result["contested"] == 1
        assert result["messages"] == session.messages.count() == len(CONTESTED_TALK)
    assert data(project_stats)["sessions"] == 1
    for result in (data(savings), data(project_savings)):
        assert result["requests"] == 2
        assert result["tokens_sent"] == 1400 and result["tokens_forwarded"] == 800
        assert result["tokens_saved"] == 600


def test_an_unknown_session_is_a_tool_error_naming_it(seeded):
    _, (resume, stats) = run_mcp(
        seeded,
        [("resume_session", {"session": "nope"}), ("get_graph_stats", {"session": "nope"})],
    )
    for result in (resume, stats):
        assert result.is_error
        assert "no session 'nope' in project 'Checkout service'" in text(result)


def test_a_revoked_key_is_a_tool_error_with_the_api_message(seeded):
    from proxy.keys import revoke_key
    from proxy.models import ApiKey

    for key in ApiKey.objects.all():
        revoke_key(key)
    _, (result,) = run_mcp(seeded, [("list_contested", {})])
    assert result.is_error and "revoked" in text(result)


# ---- configuration and isolation: no server needed ------------------------------------------------


def run_module(env: dict) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("TOKENMIZER_")}
    return subprocess.run(
        [sys.executable, "-m", "memory.mcp_server"],
        env={**base, **env},
        cwd=ROOT,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_missing_configuration_exits_2_with_a_clear_message():
    done = run_module({})
    assert done.returncode == 2
    assert "TOKENMIZER_URL and TOKENMIZER_API_KEY not set" in done.stderr
    done = run_module({"TOKENMIZER_URL": "http://127.0.0.1:8000"})
    assert done.returncode == 2 and "TOKENMIZER_API_KEY not set" in done.stderr
    done = run_module({"TOKENMIZER_URL": "127.0.0.1:8000", "TOKENMIZER_API_KEY": "tmz_" + "a" * 40})
    assert done.returncode == 2 and "must be an http(s) URL" in done.stderr
    done = run_module({"TOKENMIZER_URL": "http://127.0.0.1:8000", "TOKENMIZER_API_KEY": "sk-123"})
    assert done.returncode == 2 and "does not look like a TokenMizer key" in done.stderr


def test_the_configuration_accepts_a_trailing_slash_or_api_suffix():
    key = "tmz_" + "b" * 40
    for url in ("http://h:8000", "http://h:8000/", "http://h:8000/api", "http://h:8000/api/"):
        config = config_from_env({"TOKENMIZER_URL": url, "TOKENMIZER_API_KEY": key})
        assert config.api_url == "http://h:8000/api/"


def test_the_module_imports_no_django():
    tree = ast.parse(MODULE.read_text())
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert not {m for m in imported if m.split(".")[0] in {"django", "rest_framework", "memory"}}
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys, memory.mcp_server; print(json.dumps(sorted(sys.modules)))",
        ],
        env={k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    modules = json.loads(loaded.stdout)
    assert "memory.mcp_server" in modules and "httpx" in modules
    assert not [m for m in modules if m.split(".")[0] in {"django", "rest_framework"}]
