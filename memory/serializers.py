"""How the REST API shows projects, sessions, graphs, checkpoints and usage, and reads its inputs."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from memory.decisions import OUTCOMES
from memory.models import Checkpoint, DecisionTransition, Edge, Message, Node, Project, Session

MAX_ID = 2**63 - 1  # the largest primary key a database column holds
# The models' choice sets, so filters and time-travelled nodes share the schema's enums with rows.
NODE_TYPES = Node._meta.get_field("type").choices
EDGE_TYPES = Edge._meta.get_field("type").choices
STATUSES = Node._meta.get_field("status").choices
LEVELS = ("critical", "standard", "full")


# ---- errors (documented in the schema) ----------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


# ---- projects, sessions, messages ---------------------------------------------------------------


class ProjectSerializer(serializers.ModelSerializer):
    role = serializers.CharField(read_only=True, help_text="The caller's role in the project.")

    class Meta:
        model = Project
        fields = ["id", "name", "slug", "role", "mecw", "compaction_ratio", "created_at"]


class SessionSerializer(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Session
        fields = [
            "id", "project", "external_id", "title", "user", "mecw", "high_water",
            "graph_version", "branched_from", "created_at", "updated_at",
        ]  # fmt: skip


class SessionFilterSerializer(serializers.Serializer):
    external_id = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Only the session the client calls by this id.",
    )


class MessageSerializer(serializers.ModelSerializer):
    class Meta:
        model = Message
        fields = [
            "id", "position", "role", "name", "content", "tool_calls", "tool_call_id",
            "token_count", "created_at",
        ]  # fmt: skip


# ---- the graph ----------------------------------------------------------------------------------


class NodeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Node
        fields = [
            "id", "session", "type", "label", "status", "importance", "mentions", "confidence",
            "reason", "valid_from", "valid_until", "recorded_at", "retired_at",
            "evidence_position", "evidence_quote",
        ]  # fmt: skip


class EdgeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Edge
        fields = ["id", "source", "target", "type", "recorded_at", "retired_at"]


@extend_schema_field(OpenApiTypes.DATETIME)
class EpochField(serializers.Field):
    """A domain timestamp (epoch seconds; 0 when unknown) shown as an ISO-8601 datetime or null."""

    def to_representation(self, value: float | None) -> str | None:
        if not value:
            return None
        return datetime.fromtimestamp(value, tz=UTC).isoformat().replace("+00:00", "Z")


class GraphNodeSerializer(serializers.Serializer):
    """A node of the graph as it stands now or stood then (its status at that moment)."""

    id = serializers.IntegerField(source="pk")
    type = serializers.ChoiceField(choices=NODE_TYPES, source="type_name")
    label = serializers.CharField()
    status = serializers.ChoiceField(choices=STATUSES, source="status_name")
    importance = serializers.FloatField()
    mentions = serializers.IntegerField()
    confidence = serializers.FloatField()
    reason = serializers.CharField()
    valid_from = serializers.IntegerField()
    valid_until = serializers.IntegerField(allow_null=True)
    recorded_at = EpochField(allow_null=True)
    retired_at = EpochField(allow_null=True)
    evidence_position = serializers.IntegerField(source="evidence.position")
    evidence_quote = serializers.CharField(source="evidence.quote")


class GraphEdgeSerializer(serializers.Serializer):
    source = serializers.IntegerField(help_text="The id of the source node.")
    target = serializers.IntegerField(help_text="The id of the target node.")
    type = serializers.ChoiceField(choices=EDGE_TYPES)
    recorded_at = EpochField(allow_null=True)
    retired_at = EpochField(allow_null=True)


class GraphSerializer(serializers.Serializer):
    nodes = GraphNodeSerializer(many=True)
    edges = GraphEdgeSerializer(many=True)


class NodeFilterSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=NODE_TYPES, required=False, allow_blank=True)
    status = serializers.ChoiceField(choices=STATUSES, required=False, allow_blank=True)
    q = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Case-insensitive text the label contains.",
    )


@extend_schema_field(
    {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "string", "format": "date-time"}]}
)
class TravelPointField(serializers.Field):
    """A message position (an integer: valid time) or an ISO-8601 datetime (record time)."""

    default_error_messages = {
        "invalid": "Give a message position (an integer from 0) or an ISO-8601 datetime, "
        "e.g. 2026-01-31T12:00:00Z.",
    }

    def to_internal_value(self, data) -> int | datetime:
        text = str(data).strip()
        if text.isascii() and text.isdigit():
            return int(text)
        try:
            moment = parse_datetime(text)
        except ValueError:
            moment = None
        if moment is None:
            self.fail("invalid")
        return moment if timezone.is_aware(moment) else moment.replace(tzinfo=UTC)

    def to_representation(self, value: int | datetime) -> int | str:
        return value if isinstance(value, int) else value.isoformat()


class HistoryQuerySerializer(NodeFilterSerializer):
    at = TravelPointField(
        help_text="A message position (the graph as valid at that message) or an ISO-8601 "
        "datetime (the graph as the memory knew it at that moment)."
    )


class HistorySerializer(GraphSerializer):
    at = TravelPointField(help_text="The message position or the datetime asked for.")
    axis = serializers.ChoiceField(
        choices=["valid", "record"],
        help_text="valid: by message position; record: by when the memory learned it.",
    )


class TransitionSerializer(serializers.ModelSerializer):
    class Meta:
        model = DecisionTransition
        fields = [
            "id", "sequence", "old_node", "new_node", "old_label", "new_label", "from_status",
            "to_status", "trigger_position", "reason", "evidence", "confidence_before",
            "confidence_after", "actor", "at",
        ]  # fmt: skip


# ---- checkpoints and the resume -----------------------------------------------------------------


class CheckpointSerializer(serializers.ModelSerializer):
    class Meta:
        model = Checkpoint
        fields = [
            "id", "session", "parent", "sequence", "high_water", "graph_version",
            "critical_tokens", "standard_tokens", "full_tokens", "tokens_before", "tokens_after",
            "content_hash", "created_at",
        ]  # fmt: skip


class TierSerializer(serializers.Serializer):
    text = serializers.CharField()
    tokens = serializers.IntegerField()


class TiersSerializer(serializers.Serializer):
    critical = TierSerializer()
    standard = TierSerializer()
    full = TierSerializer()


class CheckpointDetailSerializer(CheckpointSerializer):
    tiers = serializers.SerializerMethodField()
    diff = serializers.JSONField(help_text="What changed against the parent checkpoint.")

    class Meta(CheckpointSerializer.Meta):
        fields = CheckpointSerializer.Meta.fields + ["tiers", "diff"]

    @extend_schema_field(TiersSerializer)
    def get_tiers(self, checkpoint: Checkpoint) -> dict:
        return {
            level: {
                "text": getattr(checkpoint, level),
                "tokens": getattr(checkpoint, f"{level}_tokens"),
            }
            for level in LEVELS
        }


class ResumeQuerySerializer(serializers.Serializer):
    level = serializers.ChoiceField(choices=LEVELS, default="standard", required=False)


class ResumeSerializer(serializers.Serializer):
    level = serializers.ChoiceField(choices=LEVELS)
    text = serializers.CharField()
    tokens = serializers.IntegerField()
    checkpoint = serializers.IntegerField(help_text="The id of the checkpoint it comes from.")


class LineageSerializer(serializers.Serializer):
    """One checkpoint of a lineage tree and, under it, the checkpoints made from it."""

    checkpoint = serializers.IntegerField(required=False)
    session = serializers.IntegerField(required=False)
    session_external_id = serializers.CharField(required=False)
    sequence = serializers.IntegerField(required=False)
    created_at = serializers.DateTimeField(required=False)
    tokens_after = serializers.IntegerField(required=False)


# The tree is recursive: a node's children are nodes of the same shape.
LineageSerializer._declared_fields["children"] = LineageSerializer(many=True, required=False)


class BranchRequestSerializer(serializers.Serializer):
    external_id = serializers.CharField(
        required=False,
        allow_null=True,
        max_length=200,
        help_text="The session id the client will send; made up when not given.",
    )
    include_transcript = serializers.BooleanField(
        default=False, help_text="Copy the messages up to the checkpoint into the new session."
    )


# ---- decisions ----------------------------------------------------------------------------------


class InvalidateSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=1000, help_text="Why the decision is wrong.")


class ResolveSerializer(serializers.Serializer):
    node_a = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    node_b = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    outcome = serializers.ChoiceField(choices=OUTCOMES)
    reason = serializers.CharField(
        required=False, allow_blank=True, max_length=1000, default="",
        help_text="Required unless both decisions are kept.",
    )  # fmt: skip

    def validate(self, data: dict) -> dict:
        if data["outcome"] != "keep_both" and not data["reason"].strip():
            raise serializers.ValidationError(
                {"reason": "Say why: a reason is required unless both decisions are kept."}
            )
        if data["node_a"] == data["node_b"]:
            raise serializers.ValidationError({"node_b": "Name two different decisions."})
        return data


class ResolvedSerializer(serializers.Serializer):
    node_a = NodeSerializer()
    node_b = NodeSerializer()


class ContestedPairSerializer(serializers.Serializer):
    edge = serializers.IntegerField(source="edge_id", help_text="The conflicts_with edge.")
    session = serializers.IntegerField(source="a.session_id")
    a = NodeSerializer(help_text="The older decision.")
    b = NodeSerializer(help_text="The newer decision.")


# ---- stats, usage, search -----------------------------------------------------------------------


class LatestCheckpointSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    tokens_before = serializers.IntegerField()
    tokens_after = serializers.IntegerField()


class StatsSerializer(serializers.Serializer):
    nodes_by_type = serializers.DictField(child=serializers.IntegerField())
    nodes_by_status = serializers.DictField(child=serializers.IntegerField())
    contested = serializers.IntegerField(help_text="Contested pairs waiting for a person.")
    messages = serializers.IntegerField()
    transcript_tokens = serializers.IntegerField()


class SessionStatsSerializer(StatsSerializer):
    latest_checkpoint = LatestCheckpointSerializer(allow_null=True)


class CheckpointTotalsSerializer(serializers.Serializer):
    sessions = serializers.IntegerField(help_text="Sessions that have a checkpoint.")
    tokens_before = serializers.IntegerField()
    tokens_after = serializers.IntegerField()


class ProjectStatsSerializer(StatsSerializer):
    sessions = serializers.IntegerField()
    latest_checkpoints = CheckpointTotalsSerializer(
        help_text="The latest checkpoint of each session, summed."
    )


class UsagePointSerializer(serializers.Serializer):
    t = serializers.DateTimeField(help_text="The start of the hour or day.")
    requests = serializers.IntegerField()
    sent = serializers.IntegerField()
    forwarded = serializers.IntegerField()


class UsageSerializer(serializers.Serializer):
    requests = serializers.IntegerField()
    tokens_sent = serializers.IntegerField()
    tokens_forwarded = serializers.IntegerField()
    tokens_saved = serializers.IntegerField()
    saved_share = serializers.FloatField()
    completion_tokens = serializers.IntegerField()
    errors = serializers.IntegerField()
    ttft_ms = serializers.FloatField(allow_null=True, help_text="Mean time to first token.")
    money_saved = serializers.DecimalField(max_digits=30, decimal_places=6)
    priced = serializers.BooleanField(help_text="Whether any request's model had a price.")
    bucket = serializers.ChoiceField(choices=["hour", "day"])
    series = UsagePointSerializer(many=True)


class SearchResultSerializer(NodeSerializer):
    rank = serializers.FloatField(help_text="Relevance to the query; higher is closer.")

    class Meta(NodeSerializer.Meta):
        fields = NodeSerializer.Meta.fields + ["rank"]


class SearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=200, help_text="Words to look for.")
    limit = serializers.IntegerField(min_value=1, max_value=100, default=20, required=False)
