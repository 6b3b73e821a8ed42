"""TokenMizer's memory as MCP tools over stdio: a thin client of the REST API, no Django in it.

Run it as ``tokenmizer-mcp`` (or ``python -m memory.mcp_server``) with TOKENMIZER_URL (the base URL
of a TokenMizer server) and TOKENMIZER_API_KEY (a project's ``tmz_…`` key) in the environment.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import httpx
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

EXIT_CONFIG = 2
TIMEOUT = httpx.Timeout(30.0, connect=5.0)
MAX_PAGES = 50  # a list longer than this many pages is a runaway, not a project's contested pairs
_KEY_SHAPE = re.compile(r"^tmz_[A-Za-z0-9]{40}$")

SessionId = Annotated[
    str, Field(min_length=1, description="The session id the client sends as X-Session-Id.")
]
ProjectOrSession = Annotated[
    str | None,
    Field(description="The session id the client sends as X-Session-Id; omit for the project."),
]
Level = Annotated[
    Literal["critical", "standard", "full"],
    Field(description="critical (about 100 tokens), standard (about 300) or full (about 600)."),
]
Outcome = Annotated[
    Literal["keep_both", "a_replaces_b", "b_replaces_a", "invalidate_a", "invalidate_b"],
    Field(
        description="What to do with the pair: keep both, one replaces the other, or one "
        "is invalidated (wrong)."
    ),
]
NodeId = Annotated[int, Field(ge=1, description="A decision's node id, as list_contested gives.")]


class ConfigError(Exception):
    """The environment does not say where the server is or which key to use."""


@dataclass(frozen=True)
class Config:
    url: str  # the server's base URL, without a trailing slash
    api_key: str

    @property
    def api_url(self) -> str:
        return self.url + "/api/"


def config_from_env(environ: Mapping[str, str]) -> Config:
    url = environ.get("TOKENMIZER_URL", "").strip().rstrip("/")
    key = environ.get("TOKENMIZER_API_KEY", "").strip()
    missing = [
        name for name, value in (("TOKENMIZER_URL", url), ("TOKENMIZER_API_KEY", key)) if not value
    ]
    if missing:
        raise ConfigError(
            f"{' and '.join(missing)} not set. Set TOKENMIZER_URL to the TokenMizer server "
            "(e.g. http://127.0.0.1:8000) and TOKENMIZER_API_KEY to a project API key (tmz_…, "
            "from the dashboard's Keys page or `manage.py create_api_key`)."
        )
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise ConfigError(
            f"TOKENMIZER_URL must be an http(s) URL such as http://127.0.0.1:8000, not {url!r}."
        )
    if url.endswith("/api"):
        url = url[: -len("/api")]
    if not _KEY_SHAPE.match(key):
        raise ConfigError(
            "TOKENMIZER_API_KEY does not look like a TokenMizer key: expected 'tmz_' followed by "
            "40 letters and digits."
        )
    return Config(url, key)


def error_message(response: httpx.Response) -> str:
    """What the API said went wrong: DRF's ``detail``, or its field errors, one per field."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        return body["detail"]
    if isinstance(body, dict) and body:
        parts = []
        for field, problems in body.items():
            text = " ".join(map(str, problems)) if isinstance(problems, list) else str(problems)
            parts.append(text if field == "non_field_errors" else f"{field}: {text}")
        return "; ".join(parts)
    if isinstance(body, list) and body:
        return " ".join(map(str, body))
    return f"TokenMizer answered {response.status_code} {response.reason_phrase}"


class TokenMizerAPI:
    """The REST API as this server uses it: one client, the key's project, sessions by their id."""

    def __init__(self, config: Config, transport: httpx.AsyncBaseTransport | None = None):
        self.config = config
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._project: dict | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:  # made on first use, inside the server's event loop
            self._client = httpx.AsyncClient(
                base_url=self.config.api_url,
                headers={
                    "Authorization": f"Bearer {self.config.api_key}",
                    "Accept": "application/json",
                    "User-Agent": "tokenmizer-mcp",
                },
                timeout=TIMEOUT,
                transport=self._transport,
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    async def request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = await self.client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ToolError(f"cannot reach TokenMizer at {self.config.url}: {exc}") from exc
        if response.is_error:
            raise ToolError(error_message(response))
        try:
            return response.json()
        except ValueError as exc:
            raise ToolError(
                f"TokenMizer at {self.config.url} answered {path} with something not JSON"
            ) from exc

    async def get(self, path: str, **params: Any) -> Any:
        return await self.request("GET", path, params=params or None)

    async def post(self, path: str, body: dict | None = None) -> Any:
        return await self.request("POST", path, json=body or {})

    async def all_pages(self, path: str, **params: Any) -> list:
        """Every item of a paginated list, following ``next`` links."""
        page = await self.get(path, **params)
        if isinstance(page, list):
            return page
        items = list(page.get("results", []))
        for _ in range(MAX_PAGES):
            if not page.get("next"):
                return items
            page = await self.request("GET", page["next"])
            items += page.get("results", [])
        raise ToolError(f"{path} has more than {MAX_PAGES} pages")

    async def project(self) -> dict:
        """The one project the key is scoped to."""
        if self._project is None:
            projects = await self.all_pages("projects/")
            if len(projects) != 1:
                names = ", ".join(repr(p.get("name")) for p in projects) or "none"
                raise ToolError(
                    f"the API key should see exactly one project, it sees {len(projects)}: {names}"
                )
            self._project = projects[0]
        return self._project

    async def session_id(self, external_id: str) -> int:
        """The id of the project's session the client calls ``external_id``."""
        project = await self.project()
        found = await self.get(f"projects/{project['id']}/sessions/", external_id=external_id)
        results = found.get("results", []) if isinstance(found, dict) else found
        matching = [s for s in results if s.get("external_id") == external_id]
        if not matching:
            raise ToolError(f"no session {external_id!r} in project {project['name']!r}")
        return matching[0]["id"]


INSTRUCTIONS = (
    "TokenMizer keeps a typed memory graph (goal, tasks, decisions, files, errors, environment) "
    "of each LLM session of a project. `session` arguments are the session id the client sends "
    "to the proxy as X-Session-Id. Use resume_session to recover the state of a session, "
    "search_memory to find what the project decided, and list_contested / resolve_decision to "
    "settle decisions whose evidence does not say which replaced which."
)


def build_server(api: TokenMizerAPI) -> MCPServer:
    """The MCP server with its tools, each one call (or two) of the REST API."""

    @asynccontextmanager
    async def closing(_server: MCPServer) -> AsyncIterator[None]:
        try:
            yield None
        finally:
            await api.aclose()

    server = MCPServer(
        "tokenmizer", instructions=INSTRUCTIONS, lifespan=closing, log_level="WARNING"
    )

    @server.tool()
    async def checkpoint_session(session: SessionId) -> dict[str, Any]:
        """Take a checkpoint of a session now: render its memory graph into the token-budgeted
        resume tiers (critical, standard, full) that later requests are compacted with."""
        return await api.post(f"sessions/{await api.session_id(session)}/checkpoints/")

    @server.tool()
    async def resume_session(session: SessionId, level: Level = "standard") -> str:
        """The resume block of a session's latest checkpoint: its goal, tasks, decisions in force
        with their reasons, files, environment, contested pairs and warnings, as plain text."""
        resume = await api.get(f"sessions/{await api.session_id(session)}/resume/", level=level)
        return resume["text"]

    @server.tool()
    async def search_memory(
        query: Annotated[str, Field(min_length=1, description="The words to look for.")],
        limit: Annotated[int, Field(ge=1, le=100, description="How many results at most.")] = 10,
    ) -> dict[str, Any]:
        """Full-text search over the memory of every session of the project: decisions, tasks,
        files, errors and the rest, best match first."""
        project = await api.project()
        found = await api.all_pages(f"projects/{project['id']}/search/", q=query, limit=limit)
        return {"query": query, "count": len(found[:limit]), "results": found[:limit]}

    @server.tool()
    async def get_graph_stats(session: ProjectOrSession = None) -> dict[str, Any]:
        """Counts of a session's memory graph (nodes by type and by status, contested pairs,
        messages, transcript tokens, latest checkpoint); the whole project's when no session."""
        if session is None:
            return await api.get(f"projects/{(await api.project())['id']}/stats/")
        return await api.get(f"sessions/{await api.session_id(session)}/stats/")

    @server.tool()
    async def list_contested() -> dict[str, Any]:
        """Every contested pair of the project: two decisions on one topic where the evidence
        does not say which replaced which. Both stay in force until resolve_decision settles them.
        """
        project = await api.project()
        pairs = await api.all_pages(f"projects/{project['id']}/contested/")
        return {"count": len(pairs), "pairs": pairs}

    @server.tool()
    async def resolve_decision(
        node_a: NodeId,
        node_b: NodeId,
        outcome: Outcome,
        reason: Annotated[
            str, Field(description="Why; required unless both are kept. Kept in the history.")
        ] = "",
    ) -> dict[str, Any]:
        """Settle a contested pair of decisions (node ids as list_contested gives them): the
        transition is recorded with your reason, and the pair stops being contested."""
        body = {"node_a": node_a, "node_b": node_b, "outcome": outcome, "reason": reason}
        return await api.post("decisions/resolve/", body)

    @server.tool()
    async def get_savings_stats(session: ProjectOrSession = None) -> dict[str, Any]:
        """Tokens and money saved by compaction for a session, or for the whole project when no
        session: requests, tokens sent by the client and forwarded upstream, the share saved."""
        if session is None:
            return await api.get(f"projects/{(await api.project())['id']}/usage/")
        return await api.get(f"sessions/{await api.session_id(session)}/usage/")

    return server


def main() -> None:
    try:
        config = config_from_env(os.environ)
    except ConfigError as exc:
        print(f"tokenmizer-mcp: {exc}", file=sys.stderr)
        sys.exit(EXIT_CONFIG)
    build_server(TokenMizerAPI(config)).run("stdio")


if __name__ == "__main__":
    main()
