"""Per-user API keys: generated once, stored as a hash, scoped to one project, revocable."""

from __future__ import annotations

import hashlib
import re
import secrets
import string
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.utils import timezone

from memory.models import Project
from proxy.models import ApiKey
from tokenmizer_site import caching, sql

KEY_PREFIX = "tmz_"
_ALPHABET = string.ascii_letters + string.digits
_KEY_SHAPE = re.compile(r"^tmz_[A-Za-z0-9]{40}$")
DISPLAY_CHARS = 12
LAST_USED_EVERY_S = 60  # last_used_at is written at most this often per key


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def create_key(user, project, name: str) -> tuple[ApiKey, str]:
    """A new key for ``user`` in ``project``: the row, and the plaintext key, shown only once."""
    plaintext = KEY_PREFIX + "".join(secrets.choice(_ALPHABET) for _ in range(40))
    row = ApiKey.objects.create(
        user=user,
        project=project,
        name=name.strip() or "key",
        prefix=plaintext[:DISPLAY_CHARS],
        key_hash=hash_key(plaintext),
    )
    return row, plaintext


def revoke_key(key: ApiKey) -> None:
    """Revoke the key; this process refuses it at once, other proxy processes within
    TOKENMIZER_ADMISSION_TTL_S (they may have admitted it a moment ago)."""
    from proxy.sessions import forget_admissions  # the proxy's cache of recent admissions

    if key.revoked_at is None:
        ApiKey.objects.filter(pk=key.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    forget_admissions()


@dataclass(frozen=True)
class AuthError(Exception):
    message: str
    code: str


def bearer_token(authorization: str | None) -> str:
    if not authorization:
        raise AuthError(
            "Missing API key: send it as 'Authorization: Bearer tmz_…' (create one in the dashboard "
            "or with `manage.py create_api_key`).",
            "missing_api_key",
        )
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not _KEY_SHAPE.match(token):
        raise AuthError(
            "Malformed API key: expected 'Authorization: Bearer tmz_' + 40 letters and digits.",
            "invalid_api_key",
        )
    return token


def _key_by_hash(key_hash: str) -> ApiKey | None:
    """The key with its project and user. Plain SQL: it runs whenever a conversation comes back
    after a pause, and the ORM takes longer to compile the query than the database to answer."""
    key = sql.row(ApiKey, "key_hash", key_hash)
    if key is not None:
        key.project = sql.row(Project, "id", key.project_id)
        key.user = sql.row(get_user_model(), "id", key.user_id)
    return key


def authenticate(authorization: str | None) -> ApiKey:
    """The active key named by an Authorization header, or AuthError (an OpenAI-style 401)."""
    token = bearer_token(authorization)
    key = _key_by_hash(hash_key(token))
    if key is None:
        raise AuthError("Incorrect API key provided.", "invalid_api_key")
    if key.revoked_at is not None or not key.user.is_active:
        raise AuthError("This API key has been revoked.", "revoked_api_key")
    _touch(key)
    return key


def _touch(key: ApiKey) -> None:
    # A cache marker keeps this to one UPDATE per key per minute, not one per request.
    try:
        due = caching.shared().add(f"tmz:key-used:{key.pk}", 1, LAST_USED_EVERY_S)
    except Exception:  # the cache (Redis) is down: skip the bookkeeping, serve the request
        return
    if due:
        now = timezone.now()
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
