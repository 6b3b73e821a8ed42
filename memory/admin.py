"""Django admin for projects, sessions, transcripts and graphs.

Transcripts, graphs, transitions and checkpoints are written only by the memory pipeline (which
keeps keys, graph versions and history consistent), so here they can be searched and read, not edited.
"""

from django.contrib import admin

from memory.models import (
    Checkpoint,
    DecisionTransition,
    Edge,
    Membership,
    Message,
    Node,
    Project,
    Session,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Look, never touch: rows whose invariants only the pipeline can keep."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 1
    autocomplete_fields = ("user",)


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "mecw", "compaction_ratio", "redact_upstream", "created_at")
    list_filter = ("redact_upstream",)
    search_fields = ("name", "slug")
    readonly_fields = ("created_at",)
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "project", "role", "created_at")
    list_filter = ("role", "project")
    search_fields = ("user__username", "project__name")
    list_select_related = ("user", "project")
    autocomplete_fields = ("user", "project")


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ("external_id", "title", "project", "user", "high_water", "updated_at")
    list_filter = ("project", "user")
    search_fields = ("external_id", "title", "user__username")
    list_select_related = ("project", "user")
    fields = ("title", "mecw", "project", "user", "external_id", "high_water", "graph_version",
              "diverged_at_position", "diverged_at", "created_at", "updated_at")  # fmt: skip
    readonly_fields = ("project", "user", "external_id", "high_water", "graph_version",
                       "diverged_at_position", "diverged_at", "created_at", "updated_at")  # fmt: skip

    def has_add_permission(self, request):
        return False  # sessions are opened by the proxy, under a key's user and project


@admin.register(Message)
class MessageAdmin(ReadOnlyAdmin):
    list_display = ("session", "position", "role", "token_count", "created_at")
    list_filter = ("role", "session__project")
    search_fields = ("content", "session__external_id")
    list_select_related = ("session",)


@admin.register(Node)
class NodeAdmin(ReadOnlyAdmin):
    list_display = ("label", "type", "status", "importance", "confidence", "session")
    list_filter = ("type", "status", "session__project")
    search_fields = ("label", "evidence_quote", "session__external_id")
    list_select_related = ("session",)


@admin.register(Edge)
class EdgeAdmin(ReadOnlyAdmin):
    list_display = ("source", "type", "target", "session", "retired_at")
    list_filter = ("type", "session__project")
    search_fields = ("source__label", "target__label")
    list_select_related = ("source", "target", "session")


@admin.register(DecisionTransition)
class DecisionTransitionAdmin(ReadOnlyAdmin):
    list_display = ("old_label", "new_label", "from_status", "to_status", "actor", "at", "session")
    list_filter = ("to_status", "actor", "session__project")
    search_fields = ("old_label", "new_label", "reason", "evidence", "actor")
    list_select_related = ("session",)


@admin.register(Checkpoint)
class CheckpointAdmin(ReadOnlyAdmin):
    list_display = ("session", "sequence", "tokens_before", "tokens_after", "created_at")
    list_filter = ("session__project",)
    search_fields = ("session__external_id", "standard")
    list_select_related = ("session",)
