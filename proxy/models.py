"""API keys, configured upstreams, and the usage record of each proxied request."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from memory.models import Project, Role, Session


class ApiKeyQuerySet(models.QuerySet):
    def for_user(self, user) -> ApiKeyQuerySet:
        """The user's own keys, and the keys of members of the projects the user owns."""
        if not user.is_authenticated:
            return self.none()
        owned = Project.objects.filter(memberships__user=user, memberships__role=Role.OWNER)
        return self.filter(Q(user=user) | Q(project__in=owned)).distinct()

    def active(self) -> ApiKeyQuerySet:
        return self.filter(revoked_at__isnull=True)


class ApiKey(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys"
    )
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, help_text="The first characters, for display.")
    key_hash = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the whole key.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class UpstreamKind(models.TextChoices):
    OPENAI = "openai", "OpenAI-compatible"
    ANTHROPIC = "anthropic", "Anthropic Messages"
    GEMINI = "gemini", "Google Gemini"


class Upstream(models.Model):
    """A provider a project routes models to; its credential is read from an environment variable."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="upstreams")
    name = models.CharField(max_length=100)
    kind = models.CharField(
        max_length=20, choices=UpstreamKind.choices, default=UpstreamKind.OPENAI
    )
    base_url = models.URLField(
        help_text="e.g. https://api.deepseek.com/v1 or http://127.0.0.1:11434/v1"
    )
    api_key_env = models.CharField(
        max_length=100, blank=True, help_text="Name of the environment variable holding the key."
    )
    model_patterns = models.CharField(
        max_length=500, default="*", help_text="Comma-separated model name patterns, e.g. claude-*"
    )
    position = models.PositiveIntegerField(default=0, help_text="Lower positions are tried first.")

    class Meta:
        ordering = ["project", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="upstream_unique_name"),
            models.CheckConstraint(
                condition=Q(api_key_env__regex=r"^([A-Z_][A-Z0-9_]*)?$"),
                name="upstream_env_var_name",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class RequestLogQuerySet(models.QuerySet):
    def for_user(self, user) -> RequestLogQuerySet:
        return self.filter(project__in=Project.objects.for_user(user))


class RequestLog(models.Model):
    """What one proxied request cost and saved."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="requests")
    api_key = models.ForeignKey(
        ApiKey, on_delete=models.SET_NULL, null=True, related_name="requests"
    )
    session = models.ForeignKey(
        Session, on_delete=models.SET_NULL, null=True, blank=True, related_name="requests"
    )
    model = models.CharField(max_length=200, blank=True)
    stream = models.BooleanField(default=False)
    tokens_sent = models.PositiveIntegerField(default=0, help_text="Prompt tokens the client sent.")
    tokens_forwarded = models.PositiveIntegerField(
        default=0, help_text="Prompt tokens sent upstream."
    )
    completion_tokens = models.PositiveIntegerField(default=0)
    compacted = models.BooleanField(default=False)
    upstream_status = models.PositiveIntegerField(null=True, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    ttft_ms = models.FloatField(null=True, blank=True, help_text="Time to first token, streaming.")
    error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    objects = RequestLogQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["project", "-created_at"], name="requestlog_recent")]

    def __str__(self) -> str:
        return f"{self.model} at {self.created_at:%Y-%m-%d %H:%M:%S}"

    @property
    def tokens_saved(self) -> int:
        return max(self.tokens_sent - self.tokens_forwarded, 0)
