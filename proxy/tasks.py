"""Celery tasks of the proxy app: the optional LLM extraction through the project's upstream."""

from __future__ import annotations

import httpx
from celery import shared_task
from django.db import DatabaseError

from proxy import extraction


@shared_task(
    acks_late=True,
    autoretry_for=(DatabaseError, httpx.HTTPError),
    max_retries=3,
    retry_backoff=True,
)
def llm_extract_session(session_id: int) -> int | None:
    return extraction.llm_extract_session(session_id)
