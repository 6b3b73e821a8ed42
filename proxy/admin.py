"""Django admin for API keys (the hash is never shown), upstreams and request usage."""

from django.contrib import admin
from django.utils import timezone

from proxy.models import ApiKey, RequestLog, Upstream


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("name", "prefix", "user", "project", "created_at", "last_used_at", "revoked_at")
    list_filter = ("project",)
    search_fields = ("name", "prefix", "user__username")
    exclude = ("key_hash",)
    readonly_fields = ("prefix", "created_at", "last_used_at", "revoked_at")
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False  # a key is created where its plaintext can be shown once: dashboard or CLI

    @admin.action(description="Revoke the selected keys")
    def revoke(self, request, queryset):
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"Revoked {count} key(s).")


@admin.register(Upstream)
class UpstreamAdmin(admin.ModelAdmin):
    list_display = ("name", "project", "kind", "base_url", "model_patterns", "api_key_env", "position")
    list_filter = ("kind",)


@admin.register(RequestLog)
class RequestLogAdmin(admin.ModelAdmin):
    list_display = ("created_at", "project", "model", "tokens_sent", "tokens_forwarded", "upstream_status", "latency_ms")
    list_filter = ("project", "compacted", "stream")

    def has_change_permission(self, request, obj=None):
        return False
