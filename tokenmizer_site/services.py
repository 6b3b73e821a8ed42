"""Checks that the configured services (database, Redis) answer: at start-up and for /healthz."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import redis
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection


def database_status() -> str:
    try:
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:
        return f"unreachable ({type(error).__name__}: {error})".strip()
    return "ok"


def redis_status() -> str:
    if not settings.REDIS_URL:
        return "not configured"
    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2).ping()
    except Exception as error:
        return f"unreachable ({type(error).__name__}: {error})"
    return "ok"


def check_services() -> None:
    """Refuse to start when a configured service does not answer, saying which and what to do.

    Runs in a thread of its own: ASGI servers import the application inside their event loop,
    where Django forbids blocking database calls.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(_check_services).result()


def _check_services() -> None:
    database = database_status()
    connection.close()
    if database != "ok":
        raise ImproperlyConfigured(
            f"The database {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]} is "
            f"{database}: start it or correct DATABASE_URL."
        )
    cache = redis_status()
    if cache not in ("ok", "not configured"):
        raise ImproperlyConfigured(f"Redis at REDIS_URL is {cache}: start it or correct REDIS_URL.")
