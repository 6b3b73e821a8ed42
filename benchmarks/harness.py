"""The proxy benchmarks' test bench: a throwaway database, a key, the loopback upstream, the app."""

from __future__ import annotations

import json
import os
import platform
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from statistics import mean

from benchmarks import extraction

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
# Far above anything a benchmark sends in a minute: the limits are not what is measured.
BENCH_REQUESTS_PER_MINUTE = 1_000_000
BENCH_TOKENS_PER_MINUTE = 2_000_000_000


# The production profile's services, as on these machines (CI starts them).
PG_SERVER = os.environ.get("TOKENMIZER_BENCH_PG", "postgres://postgres@127.0.0.1:5432")
BENCH_REDIS_URL = os.environ.get("TOKENMIZER_BENCH_REDIS", "redis://127.0.0.1:6379/13")


def _psql(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as connection:
        connection.execute(statement)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def wait_listening(port: int, alive, timeout: float = 30.0) -> None:
    """Block until something accepts TCP connections on ``port``; ``alive()`` false means it died."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive():
            raise RuntimeError(f"the server meant for port {port} exited before listening")
        with socket.socket() as sock:
            if sock.connect_ex((HOST, port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listened on port {port} within {timeout:.0f} s")


def stop_process(process: subprocess.Popen | None) -> None:
    """Stop one process we started: SIGTERM, then SIGKILL if it lingers."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


class Bench:
    """Everything a proxy benchmark talks to, started in order and torn down in reverse.

    The database is a SQLite file in a temp dir, chosen through ``DATABASE_URL`` before Django is
    set up (so nothing touches the developer's db.sqlite3). The app runs in its own process under
    uvicorn, as in production (DEBUG off). The loopback upstream runs in this process (its
    ``requests`` then show what the proxy forwarded) or, with ``upstream_process``, in its own.
    """

    def __init__(
        self, mecw: int = 16_000, upstream_process: bool = False, profile: str = "embedded"
    ) -> None:
        self.mecw = mecw
        self.upstream_process = upstream_process
        self.profile = profile
        self.tmp = Path(tempfile.mkdtemp(prefix="tokenmizer-bench-"))
        self.env = dict(
            os.environ,
            DATABASE_URL=f"sqlite:///{self.tmp / 'bench.sqlite3'}",
            DEBUG="0",
            SECRET_KEY=secrets.token_urlsafe(48),
            LOG_LEVEL="WARNING",
            DJANGO_SETTINGS_MODULE="tokenmizer_site.settings",
        )
        self.env.pop("REDIS_URL", None)
        if profile == "production":  # a throwaway PostgreSQL database, a Redis db, a worker
            self.database = f"tokenmizer_bench_{secrets.token_hex(4)}"
            self.env.update(DATABASE_URL=f"{PG_SERVER}/{self.database}", REDIS_URL=BENCH_REDIS_URL)
        self._worker_proc: subprocess.Popen | None = None
        self.loopback = None  # the in-process LoopbackServer, when there is one
        self.upstream_url = ""
        self._upstream_proc: subprocess.Popen | None = None
        self._proxy_proc: subprocess.Popen | None = None
        self.proxy_url = ""
        self.relay_url = ""  # a bare relay to compare with, when a benchmark starts one
        self.api_key = ""

    def __enter__(self) -> Bench:
        try:
            if self.profile == "production":
                _psql(f"CREATE DATABASE {self.database}")
                import redis

                redis.Redis.from_url(BENCH_REDIS_URL).flushdb()
            self._setup_database()
            if self.profile == "production":
                self._start_worker()
            self._start_upstream()
            self._start_proxy()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _setup_database(self) -> None:
        names = (
            "DATABASE_URL",
            "REDIS_URL",
            "DEBUG",
            "SECRET_KEY",
            "LOG_LEVEL",
            "DJANGO_SETTINGS_MODULE",
        )
        os.environ.pop("REDIS_URL", None)
        for name in (n for n in names if n in self.env):
            os.environ[name] = self.env[name]  # read by settings.py, so before django.setup()
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
        self.user = get_user_model().objects.create_user(
            "bench", password=secrets.token_urlsafe(16)
        )
        self.project_pk, self.api_key = self.add_project("Proxy benchmark")

    def add_project(self, name: str) -> tuple[int, str]:
        """Another project of the bench's user (its own memory), and a key for it."""
        from memory.projects import create_project
        from proxy.keys import create_key

        project = create_project(name, self.user)
        project.mecw = self.mecw
        project.requests_per_minute = BENCH_REQUESTS_PER_MINUTE
        project.tokens_per_minute = BENCH_TOKENS_PER_MINUTE
        project.save()
        return project.pk, create_key(self.user, project, "bench")[1]

    def _start_worker(self) -> None:
        """A real Celery worker process on the bench's database and Redis, as in production."""
        from tokenmizer_site.celery import app

        command = [sys.executable, "-m", "celery", "-A", "tokenmizer_site", "worker",
                   "--loglevel=WARNING", "--concurrency=1", "--without-gossip", "--without-mingle"]  # fmt: skip
        self._worker_proc = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        while not app.control.ping(timeout=0.5):
            if self._worker_proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the Celery worker did not start (is Redis up?)")

    def _start_upstream(self) -> None:
        if not self.upstream_process:
            from proxy.loopback import LoopbackServer

            self.loopback = LoopbackServer().start()
            self.upstream_url = self.loopback.url
            return
        port = free_port()
        self._upstream_proc = subprocess.Popen(
            [sys.executable, "-m", "proxy.loopback", "--host", HOST, "--port", str(port)],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_listening(port, lambda: self._upstream_proc.poll() is None)
        self.upstream_url = f"http://{HOST}:{port}"

    def _start_proxy(self) -> None:
        port = free_port()
        env = dict(self.env, TOKENMIZER_UPSTREAM_URL=f"{self.upstream_url}/v1")
        command = [
            sys.executable, "-m", "uvicorn", "tokenmizer_site.asgi:application",
            "--host", HOST, "--port", str(port), "--lifespan", "off",
            "--log-level", "warning", "--no-access-log",
        ]  # fmt: skip
        self._proxy_log = open(self.tmp / "proxy.log", "wb")  # noqa: SIM115 (closed in close())
        self._proxy_proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self._proxy_log, stderr=subprocess.STDOUT
        )
        wait_listening(port, lambda: self._proxy_proc.poll() is None)
        self.proxy_url = f"http://{HOST}:{port}"

    def proxy_log(self) -> str:
        """What the proxy process wrote (warnings and errors), for the report."""
        path = self.tmp / "proxy.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def close(self) -> None:
        if self._proxy_proc is not None and self._proxy_proc.poll() is not None:
            tail = "\n".join(self.proxy_log().splitlines()[-30:])
            progress(
                f"the proxy process exited early (code {self._proxy_proc.returncode}); its log:\n{tail}"
            )
        stop_process(self._proxy_proc)
        if getattr(self, "_proxy_log", None):
            self._proxy_log.close()
        stop_process(self._upstream_proc)
        stop_process(self._worker_proc)
        if self.loopback is not None:
            self.loopback.stop()
            self.loopback = None
        if self.profile == "production":
            from django.db import connections

            connections.close_all()
            _psql(f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)")
        shutil.rmtree(self.tmp, ignore_errors=True)

    def headers(self, session_id: str | None = None, api_key: str = "") -> dict[str, str]:
        key = api_key or self.api_key
        out = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        if session_id:
            out["X-Session-Id"] = session_id
        return out


# --- result-file conventions (as benchmarks.extraction) ------------------------------------------


def working_tree_changes() -> list[str] | None:
    """Files changed since the commit (the run measured them too), or None without git."""
    try:
        out = subprocess.run(
            ["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return [line[3:] for line in out.stdout.splitlines()] if out.returncode == 0 else None


def run_metadata(benchmark: str) -> dict:
    """What identifies a run: benchmark, code version, commit, date, machine, Python."""
    return {
        "benchmark": benchmark,
        "format": 1,
        "code_version": extraction.code_version(),
        "git_commit": extraction.git_commit(),
        "working_tree_changes": working_tree_changes(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "platform": platform.platform(),
            "processor": platform.machine(),
            "cpu_count": os.cpu_count(),
            "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        },
        "python": platform.python_version(),
    }


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (None for no values)."""
    return extraction.percentile(values, q) if values else None


def summary_ms(values: list[float]) -> dict:
    """p50/p95/p99, mean, min and max of timings in milliseconds."""
    return {
        "n": len(values),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "mean": mean(values) if values else None,
        "min": min(values) if values else None,
        "max": max(values) if values else None,
    }


def write_json(results: dict, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_results(results: dict, out: Path, markdown, chart) -> list[Path]:
    """FILE.json, FILE.md and FILE.png from one results dict; the paths written."""
    paths = [out, out.with_suffix(".md"), out.with_suffix(".png")]
    write_json(results, out)
    paths[1].write_text(markdown(results), encoding="utf-8")
    chart(results, paths[2])
    return paths


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
