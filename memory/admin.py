"""Django admin for projects, sessions, transcripts and graphs."""

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


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 1


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "mecw", "compaction_ratio", "created_at")
    search_fields = ("name", "slug")
    inlines = [MembershipInline]


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ("external_id", "title", "project", "user", "high_water", "updated_at")
    list_filter = ("project",)
    search_fields = ("external_id", "title")
    readonly_fields = ("high_water", "diverged_at_position", "diverged_at")


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ("session", "position", "role", "token_count")
    list_filter = ("role",)
    search_fields = ("content",)
    readonly_fields = ("content_hash", "token_count")


@admin.register(Node)
class NodeAdmin(admin.ModelAdmin):
    list_display = ("label", "type", "status", "importance", "confidence", "session")
    list_filter = ("type", "status")
    search_fields = ("label", "evidence_quote")
    readonly_fields = ("key", "recorded_at", "retired_at")


@admin.register(Edge)
class EdgeAdmin(admin.ModelAdmin):
    list_display = ("source", "type", "target", "session")
    list_filter = ("type",)


@admin.register(DecisionTransition)
class DecisionTransitionAdmin(admin.ModelAdmin):
    list_display = ("old_label", "new_label", "to_status", "actor", "at", "session")
    list_filter = ("to_status",)
    search_fields = ("old_label", "new_label", "reason")

    def has_change_permission(self, request, obj=None):
        return False  # history is append-only


@admin.register(Checkpoint)
class CheckpointAdmin(admin.ModelAdmin):
    list_display = ("session", "sequence", "tokens_before", "tokens_after", "created_at")
    readonly_fields = [f.name for f in Checkpoint._meta.fields]

    def has_change_permission(self, request, obj=None):
        return False  # checkpoints are immutable
