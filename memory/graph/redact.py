"""Secret redaction: API keys, tokens, private keys and passwords become ``[REDACTED:<kind>]``."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

Span = tuple[int, int]

# Patterns start at a literal and repeat with possessive quantifiers (no backtracking into them),
# so a scan stays linear in the text and a secret of any length is hidden whole.
_NOT_REDACTED = r"(?!\[REDACTED:)"
# No anchor before the keyword: DB_PASSWORD, PGPASSWORD and x-api-key all end in one.
_ASSIGN_KEY = (
    r"(?:password|passwd|passphrase|pwd|secret|secret[_\-]?key|client[_\-]?secret"
    r"|api[_\-]?key|access[_\-]?key|private[_\-]?key|token)"
)
# `key: str = "x"` (a typed assignment) as well as `key = x`, `key: x`, `"key": "x"`, `key => x`.
_ASSIGN_SEP = r"[\"']?[ \t]*(?::[ \t]*[A-Za-z_][\w\[\]|. ]{0,30}?[ \t]*=(?!=)|=>|:=|=(?!=)|:)[ \t]*"
_ASSIGN_VALUE = (
    _NOT_REDACTED + r"(?:\"(?P<dq>[^\"\n]++)\"|'(?P<sq>[^'\n]++)'"
    r"|(?P<bare>[^\s\"'`,;&<>(){}\[\]]{4,}+))"
)
_PLACEHOLDERS = frozenset(
    "null none nil true false undefined required optional empty string str int bool bytes "
    "secret password token changeme redacted hidden xxx xxxx xxxxxx example your_token".split()
)
_CODE_REF = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Z][A-Z0-9_]*")


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    hints: tuple[str, ...]  # lower-case substrings one of which every match contains
    group: str | int = 0  # the part of the match that is secret
    accept: Callable[[str, re.Match[str]], bool] | None = None


def _has_digit_and_letter(value: str, _m: re.Match[str] | None = None) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _looks_secret_value(value: str, match: re.Match[str]) -> bool:
    """Whether an assigned value is a literal secret rather than code, prose or a placeholder."""
    if value.strip().lower().strip("*<>${}") in _PLACEHOLDERS or set(value) <= set("*x.-_ "):
        return False
    if value.startswith(("$", "%", "{", "<", "/", "~", "./", "os.", "env")):  # refs and paths
        return False
    if match.group("bare") is None:
        return True  # a quoted literal is a value somebody typed
    called = match.string[match.end() : match.end() + 1] in ("(", "[")
    if _CODE_REF.fullmatch(value) or (called and not any(c.isdigit() for c in value)):
        return False  # `password=form.password`, `token=API_TOKEN`, `get_token()`: code
    # (`password=hunter2[` is no call: a name with digits before a bracket is still a value.)
    # A lone lower-case word after `password:` is almost always prose ("password: never share").
    return not value.isalpha() or not value.islower()


def _rule(
    kind: str,
    pattern: str,
    hints: str | tuple[str, ...],
    group: str | int = 0,
    accept: Callable[[str, re.Match[str]], bool] | None = None,
    flags: int = 0,
) -> _Rule:
    hints = (hints,) if isinstance(hints, str) else hints
    return _Rule(kind, re.compile(pattern, flags), hints, group, accept)


_B = r"(?<![A-Za-z0-9_\-])"  # the token starts here, not inside a longer identifier
_E = r"(?![A-Za-z0-9_\-])"
_RULES: tuple[_Rule, ...] = (
    _rule(
        "private_key",
        # The body never holds "-----", so a header without an END stops at the next header.
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[^-]|-(?!----)){0,65536}?"
        r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY-----",
        "private key-----",
    ),
    # A block cut off before its END line (a truncated tool output) still hides its body.
    _rule(
        "private_key",
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY-----"
        r"(?:[ \t]*\r?\n[ \t]*(?:Proc-Type|DEK-Info):[^\n]{0,200})*"
        r"[A-Za-z0-9+/=\s\\]*+",
        "private key-----",
    ),
    _rule("tokenmizer_key", _B + r"tmz_[A-Za-z0-9]{40}" + _E, "tmz_"),  # our own proxy keys
    _rule("anthropic_key", _B + r"sk-ant-[A-Za-z0-9_\-]{20,}+", "sk-ant-"),
    _rule("openrouter_key", _B + r"sk-or-v1-[A-Za-z0-9]{32,}+", "sk-or-"),
    _rule(
        "openai_key",
        _B + r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}+",
        "sk-",
        accept=_has_digit_and_letter,
    ),
    _rule("google_api_key", _B + r"AIza[0-9A-Za-z_\-]{35}" + _E, "aiza"),
    _rule("google_oauth_secret", _B + r"GOCSPX-[A-Za-z0-9_\-]{20,}+", "gocspx-"),
    _rule("google_oauth_token", _B + r"ya29\.[0-9A-Za-z_\-]{20,}+", "ya29."),
    _rule("github_token", _B + r"(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{30,}+" + _E, "gh"),
    _rule("github_token", _B + r"github_pat_[A-Za-z0-9_]{22,}+", "github_pat_"),
    _rule("gitlab_token", _B + r"glpat-[A-Za-z0-9_\-]{20,}+", "glpat-"),
    _rule("huggingface_token", _B + r"hf_[A-Za-z0-9]{30,}+" + _E, "hf_"),
    _rule("groq_key", _B + r"gsk_[A-Za-z0-9]{40,}+" + _E, "gsk_"),
    _rule("xai_key", _B + r"xai-[A-Za-z0-9]{40,}+" + _E, "xai-"),
    _rule("perplexity_key", _B + r"pplx-[A-Za-z0-9]{40,}+" + _E, "pplx-"),
    _rule("replicate_token", _B + r"r8_[A-Za-z0-9]{30,}+" + _E, "r8_"),
    _rule(
        "aws_access_key_id",
        r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
        ("akia", "asia", "abia", "acca"),
    ),
    _rule(
        "aws_secret_access_key",
        r"aws_?secret_?access_?key[\"']?\s{0,5}[:=]>?\s{0,5}[\"']?(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        "secret",
        "v",
        flags=re.IGNORECASE,
    ),
    _rule("slack_token", _B + r"xox[abposr]-[A-Za-z0-9\-]{10,}+", "xox"),
    _rule(
        "slack_webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{8,}+",
        "hooks.slack.com",
    ),
    _rule("stripe_key", _B + r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}+", "_live_"),
    _rule("stripe_key", _B + r"(?:sk|rk)_test_[A-Za-z0-9]{16,}+", "_test_"),
    _rule("stripe_webhook_secret", _B + r"whsec_[A-Za-z0-9]{24,}+", "whsec_"),
    _rule("twilio_key", r"\bSK[0-9a-f]{32}\b", "sk"),
    _rule("sendgrid_key", _B + r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _E, "sg."),
    _rule("npm_token", _B + r"npm_[A-Za-z0-9]{36}" + _E, "npm_"),
    _rule("pypi_token", _B + r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}+", "pypi-"),
    _rule("digitalocean_token", _B + r"do[opr]_v1_[a-f0-9]{64}", "_v1_"),
    _rule("shopify_token", _B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", "shp"),
    _rule("telegram_bot_token", r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}" + _E, ":aa"),
    _rule(
        "jwt",
        _B + r"eyJ[A-Za-z0-9_\-]{5,}+\.eyJ[A-Za-z0-9_\-]{5,}+\.[A-Za-z0-9_\-]*+",
        "eyj",
    ),
    _rule(
        "bearer_token",
        r"\bauthorization[\"']?\s{0,5}[:=]\s{0,5}[\"']?(?:bearer|basic|token|bot)\s{1,5}"
        + _NOT_REDACTED
        + r"(?P<v>[^\s\"'`,;$<{][^\s\"'`,;]{3,}+)",
        "authorization",
        "v",
        flags=re.IGNORECASE,
    ),
    _rule(
        "bearer_token",
        r"\bBearer\s++" + _NOT_REDACTED + r"(?P<v>[A-Za-z0-9\-._~+/]{20,}+=*)",
        "bearer",
        "v",
        accept=_has_digit_and_letter,
    ),
    _rule(
        "url_password",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@\"'<>]{0,256}:"
        + _NOT_REDACTED
        + r"(?P<v>[^\s@/\"'<>]{1,256})@[A-Za-z0-9\[]",
        "://",
        "v",
    ),
    _rule(
        "password",
        r"(?P<key>" + _ASSIGN_KEY + r")(?![A-Za-z0-9])" + _ASSIGN_SEP + _ASSIGN_VALUE,
        ("pass", "pwd", "secret", "key", "token"),
        "value",
        accept=_looks_secret_value,
        flags=re.IGNORECASE,
    ),
)
_PRIORITY = {id(rule): i for i, rule in enumerate(_RULES)}


def _assignment_kind(key: str) -> str:
    key = key.lower()
    if "pass" in key or "pwd" in key:
        return "password"
    if "token" in key:
        return "token"
    if "secret" in key:
        return "secret"
    return "api_key" if "api" in key else "secret"


def _matches(rule: _Rule, text: str) -> list[tuple[int, str, Span]]:
    found = []
    for m in rule.pattern.finditer(text):
        if rule.group == "value":
            group = next(g for g in ("dq", "sq", "bare") if m.group(g) is not None)
            kind = _assignment_kind(m.group("key"))
        else:
            group, kind = rule.group, rule.kind
        value = m.group(group)
        if not value or (rule.accept is not None and not rule.accept(value, m)):
            continue
        found.append((_PRIORITY[id(rule)], kind, m.span(group)))
    return found


def _applies(rule: _Rule, lowered: str) -> bool:
    return any(h in lowered for h in rule.hints)


def find_secrets(text: str) -> list[tuple[str, Span]]:
    """The secrets in ``text`` as (kind, (start, end)), in order and never overlapping.

    Overlapping matches merge into one span named after the most specific rule among them
    (an `api_key=sk-...` assignment is reported as an OpenAI key).
    """
    lowered = text.lower()
    hits = [h for rule in _RULES if _applies(rule, lowered) for h in _matches(rule, text)]
    hits.sort(key=lambda h: (h[2][0], h[0]))
    merged: list[tuple[int, str, Span]] = []
    for priority, kind, (start, end) in hits:
        if merged and start < merged[-1][2][1]:
            best, best_kind, (m_start, m_end) = merged[-1]
            if priority < best:
                best, best_kind = priority, kind
            merged[-1] = (best, best_kind, (m_start, max(m_end, end)))
        else:
            merged.append((priority, kind, (start, end)))
    return [(kind, span) for _, kind, span in merged]


@lru_cache(maxsize=4096)  # a client resends its whole history on every request
def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``; idempotent."""
    secrets = find_secrets(text)
    if not secrets:
        return text
    out, last = [], 0
    for kind, (start, end) in secrets:
        out.append(text[last:start])
        out.append(f"[REDACTED:{kind}]")
        last = end
    out.append(text[last:])
    return "".join(out)
