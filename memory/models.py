"""Projects, sessions, transcripts and the typed graph of each session."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from memory.graph.types import EdgeType, NodeType, Status


def _choices(enum: type) -> list[tuple[str, str]]:
    return [(m.value, m.value.replace("_", " ")) for m in enum]


class Role(models.TextChoices):
    OWNER = "owner"
    MEMBER = "member"
    VIEWER = "viewer"


WRITE_ROLES = (Role.OWNER, Role.MEMBER)


class ProjectQuerySet(models.QuerySet):
    def for_user(self, user) -> ProjectQuerySet:
        if not user.is_authenticated:
            return self.none()
        return self.filter(memberships__user=user).distinct()


class Project(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="projects"
    )
    mecw = models.PositiveIntegerField(
        default=settings.TOKENMIZER_DEFAULT_MECW,
        help_text="Maximum effective context window of new sessions, in tokens.",
    )
    compaction_ratio = models.FloatField(
        default=settings.TOKENMIZER_CHECKPOINT_RATIO,
        help_text="Share of the MECW above which requests are compacted and checkpoints made.",
    )
    redact_upstream = models.BooleanField(
        default=True,
        help_text="Send the upstream the redacted text, not the secrets the client sent.",
    )
    requests_per_minute = models.PositiveIntegerField(default=600, help_text="Per API key.")
    tokens_per_minute = models.PositiveIntegerField(default=2_000_000, help_text="Per API key.")
    max_tool_rounds = models.PositiveIntegerField(
        default=50, help_text="Consecutive tool-call rounds allowed in one session."
    )
    llm_extraction = models.BooleanField(
        default=False,
        help_text="Also extract with a model through the project's upstream (only grounded facts are kept).",
    )
    llm_extraction_model = models.CharField(max_length=200, default="gpt-4o-mini", blank=True)
    memory_budget = models.PositiveIntegerField(
        default=400,
        help_text="Tokens of project memory (decisions, goals and facts of the project's other "
        "sessions) a new session receives; 0 turns it off.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ProjectQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(compaction_ratio__gt=0) & Q(compaction_ratio__lte=1),
                name="project_compaction_ratio_in_0_1",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def role_of(self, user) -> str | None:
        membership = self.memberships.filter(user=user).first()
        return membership.role if membership else None


class Membership(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "user"], name="membership_unique_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.project}"


class SessionQuerySet(models.QuerySet):
    def for_user(self, user) -> SessionQuerySet:
        return self.filter(project__in=Project.objects.for_user(user))


class Session(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="sessions")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="memory_sessions"
    )
    external_id = models.CharField(max_length=200, help_text="The session id the client sends.")
    title = models.CharField(max_length=200, blank=True)
    mecw = models.PositiveIntegerField(default=settings.TOKENMIZER_DEFAULT_MECW)
    # The position of the last message extraction has read; -1 before the first pass.
    high_water = models.IntegerField(default=-1)
    graph_version = models.PositiveIntegerField(
        default=0, help_text="Moves on with every change to the graph; checkpoints record it."
    )
    llm_high_water = models.IntegerField(
        default=-1, help_text="The last message position the optional LLM extraction has read."
    )
    # Where the last compacted request cut the transcript, and with which resume: the next
    # request keeps the same cut while it fits, so providers' prompt caches keep hitting.
    compacted_from = models.IntegerField(null=True, blank=True)
    compacted_with = models.ForeignKey(
        "Checkpoint", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Where the client's resent history last stopped matching the stored transcript, if ever.
    diverged_at_position = models.IntegerField(null=True, blank=True)
    diverged_at = models.DateTimeField(null=True, blank=True)
    # A branch starts from another session's checkpoint. RESTRICT, like Checkpoint.parent: that
    # checkpoint roots the branch's history (it is its first checkpoint's parent), so deleting it
    # alone would cut the lineage tree in two: delete the branch first. Deleting the project,
    # branch and source together, is allowed. (SET_NULL would keep the branch but orphan it.)
    branched_from = models.ForeignKey(
        "Checkpoint",
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="branches",
    )
    # Sent as one system message after the client's own on every forwarded request, byte for
    # byte, and never recorded: project memory for a new session, the source resume for a branch.
    preamble = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = SessionQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "external_id"], name="session_unique_external_id"
            ),
            models.CheckConstraint(condition=Q(mecw__gt=0), name="session_mecw_positive"),
        ]
        indexes = [
            models.Index(fields=["project", "-updated_at"], name="session_recent"),
            # The proxy looks a session id up across projects (another team's id answers 404).
            models.Index(fields=["external_id"], name="session_external_id"),
        ]

    def __str__(self) -> str:
        return self.title or self.external_id


class MessageQuerySet(models.QuerySet):
    def for_user(self, user) -> MessageQuerySet:
        return self.filter(session__in=Session.objects.for_user(user))


class Message(models.Model):
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="messages")
    position = models.PositiveIntegerField()
    role = models.CharField(max_length=20)
    name = models.CharField(max_length=200, blank=True)
    content = models.TextField(blank=True)
    tool_calls = models.JSONField(null=True, blank=True)
    tool_call_id = models.CharField(max_length=200, blank=True)
    token_count = models.PositiveIntegerField(default=0)
    content_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = MessageQuerySet.as_manager()

    class Meta:
        ordering = ["session", "position"]
        constraints = [
            models.UniqueConstraint(fields=["session", "position"], name="message_unique_position"),
        ]
        indexes = [models.Index(fields=["session", "content_hash"], name="message_hash")]

    def __str__(self) -> str:
        return f"#{self.position} {self.role}"


class NodeQuerySet(models.QuerySet):
    def for_user(self, user) -> NodeQuerySet:
        return self.filter(session__in=Session.objects.for_user(user))


class Node(models.Model):
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="nodes")
    type = models.CharField(max_length=20, choices=_choices(NodeType))
    label = models.CharField(max_length=500)
    key = models.CharField(max_length=500, help_text="The normalized label; unique per type.")
    status = models.CharField(max_length=20, choices=_choices(Status))
    importance = models.FloatField(default=1.0)
    mentions = models.PositiveIntegerField(default=1)
    confidence = models.FloatField(default=1.0)
    reason = models.TextField(blank=True)
    valid_from = models.IntegerField(default=0, help_text="Message position from which it held.")
    valid_from_at = models.DateTimeField(null=True, blank=True)
    valid_until = models.IntegerField(null=True, blank=True)
    valid_until_at = models.DateTimeField(null=True, blank=True)
    recorded_at = models.DateTimeField()
    retired_at = models.DateTimeField(null=True, blank=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    evidence_message = models.ForeignKey(
        Message, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    evidence_position = models.IntegerField(default=0)
    evidence_quote = models.TextField(blank=True)
    extra = models.JSONField(default=dict, blank=True, help_text="Domain fields with no column.")

    objects = NodeQuerySet.as_manager()

    class Meta:
        ordering = ["session", "valid_from", "id"]
        constraints = [
            models.UniqueConstraint(fields=["session", "type", "key"], name="node_unique_key"),
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1), name="node_confidence_0_1"
            ),
            models.CheckConstraint(
                condition=Q(type__in=[t.value for t in NodeType]), name="node_type_known"
            ),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in Status]), name="node_status_known"
            ),
        ]
        indexes = [
            models.Index(fields=["session", "type", "status"], name="node_type_status"),
            models.Index(fields=["session", "status", "-importance"], name="node_live_rank"),
        ]

    def __str__(self) -> str:
        return f"{self.type}: {self.label}"


class Edge(models.Model):
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="edges")
    source = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="edges_out")
    target = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="edges_in")
    type = models.CharField(max_length=20, choices=_choices(EdgeType))
    recorded_at = models.DateTimeField()
    retired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "target", "type"], name="edge_unique"),
            models.CheckConstraint(
                condition=Q(type__in=[t.value for t in EdgeType]), name="edge_type_known"
            ),
            models.CheckConstraint(condition=~Q(source=models.F("target")), name="edge_no_loop"),
        ]
        indexes = [models.Index(fields=["session", "type"], name="edge_session_type")]

    def __str__(self) -> str:
        return f"{self.source_id} -{self.type}-> {self.target_id}"


class DecisionTransition(models.Model):
    """Why a decision changed status; keeps the labels so it outlives pruning of its nodes."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="transitions")
    sequence = models.PositiveIntegerField(help_text="Order of the transition in its session.")
    old_node = models.ForeignKey(
        Node, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    new_node = models.ForeignKey(
        Node, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    old_label = models.CharField(max_length=500)
    new_label = models.CharField(max_length=500, blank=True)
    from_status = models.CharField(max_length=20, choices=_choices(Status))
    to_status = models.CharField(max_length=20, choices=_choices(Status))
    trigger_message = models.ForeignKey(
        Message, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    trigger_position = models.IntegerField(default=-1)
    reason = models.TextField(blank=True)
    evidence = models.TextField(blank=True)
    confidence_before = models.FloatField(default=0.0)
    confidence_after = models.FloatField(default=0.0)
    actor = models.CharField(max_length=150, help_text="'extractor' or the username who acted.")
    actor_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    at = models.DateTimeField()

    class Meta:
        ordering = ["session", "sequence"]
        constraints = [
            models.UniqueConstraint(fields=["session", "sequence"], name="transition_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.old_label} → {self.to_status}"


class CheckpointQuerySet(models.QuerySet):
    def for_user(self, user) -> CheckpointQuerySet:
        return self.filter(session__in=Session.objects.for_user(user))


class Checkpoint(models.Model):
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="checkpoints")
    # RESTRICT, not PROTECT: a session goes with its whole chain of checkpoints (and a project
    # with all its sessions), but not while another session's checkpoint grows from one of them.
    parent = models.ForeignKey(
        "self", on_delete=models.RESTRICT, null=True, blank=True, related_name="children"
    )
    sequence = models.PositiveIntegerField()
    high_water = models.IntegerField(help_text="The last message position the graph had read.")
    graph_version = models.PositiveIntegerField(
        default=0, help_text="The session's graph version this checkpoint renders."
    )
    critical = models.TextField()
    standard = models.TextField()
    full = models.TextField()
    critical_tokens = models.PositiveIntegerField()
    standard_tokens = models.PositiveIntegerField()
    full_tokens = models.PositiveIntegerField()
    tokens_before = models.PositiveIntegerField(help_text="Transcript tokens the resume replaces.")
    tokens_after = models.PositiveIntegerField(help_text="Tokens of the standard-tier resume.")
    snapshot = models.JSONField(help_text="Node key → status at this checkpoint.")
    diff = models.JSONField(help_text="Changes against the parent checkpoint.")
    content_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CheckpointQuerySet.as_manager()

    class Meta:
        ordering = ["session", "sequence"]
        get_latest_by = "sequence"
        constraints = [
            models.UniqueConstraint(fields=["session", "sequence"], name="checkpoint_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"checkpoint {self.sequence} of {self.session}"
