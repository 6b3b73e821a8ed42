"""Django admin for API keys (the hash is never shown), upstreams and request usage."""

from django.contrib import admin

from proxy.keys import revoke_key
from proxy.models import ApiKey, RequestLog, Upstream


class RevokedFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("active", "active"), ("revoked", "revoked")]

    def queryset(self, request, queryset):
        if self.value() == "active":
            return queryset.filter(revoked_at__isnull=True)
        if self.value() == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        return queryset


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("name", "prefix", "user", "project", "created_at", "last_used_at", "revoked_at")
    list_filter = (RevokedFilter, "project")
    search_fields = ("name", "prefix", "user__username", "project__name")
    list_select_related = ("user", "project")
    fields = ("name", "prefix", "user", "project", "created_at", "last_used_at", "revoked_at")
    # A key belongs to one user and one project for life; revoking is the only change of state.
    readonly_fields = ("prefix", "user", "project", "created_at", "last_used_at", "revoked_at")
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False  # a key is created where its plaintext can be shown once: dashboard or CLI

    @admin.action(description="Revoke the selected keys")
    def revoke(self, request, queryset):
        keys = list(queryset.filter(revoked_at__isnull=True))
        for key in keys:
            revoke_key(key)
        self.message_user(request, f"Revoked {len(keys)} key(s).")


@admin.register(Upstream)
class UpstreamAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "project",
        "kind",
        "base_url",
        "model_patterns",
        "api_key_env",
        "position",
    )
    list_filter = ("kind", "project")
    search_fields = ("name", "base_url", "project__name")


@admin.register(RequestLog)
class RequestLogAdmin(admin.ModelAdmin):
    list_display = (
        "created_at",
        "project",
        "model",
        "tokens_sent",
        "tokens_forwarded",
        "upstream_status",
        "latency_ms",
        "error",
    )
    list_filter = ("project", "compacted", "stream", "upstream_status")
    search_fields = ("model", "error", "session__external_id")
    list_select_related = ("project",)
    date_hierarchy = "created_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # the usage record is what happened
