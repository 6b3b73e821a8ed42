"""Behaviour of candidate validation: type correction, confidence and rejection."""

from __future__ import annotations

from memory.graph.types import Candidate, Evidence, NodeType, Status
from memory.graph.validator import MIN_CONFIDENCE, validate


def _cand(node_type: NodeType, label: str, conf: float = 0.8, cue: str = "test") -> Candidate:
    return Candidate(
        type=node_type,
        label=label,
        status=Status.COMPLETED,
        confidence=conf,
        evidence=Evidence(0, label),
        cue=cue,
    )


def test_a_path_stated_as_a_decision_is_a_file() -> None:
    [c] = validate([_cand(NodeType.DECISION, "src/routes/availability.ts")])
    assert c.type == NodeType.FILE


def test_a_route_with_method_is_an_endpoint() -> None:
    [c] = validate([_cand(NodeType.DECISION, "POST /api/auth/login")])
    assert c.type == NodeType.ENDPOINT


def test_a_task_that_names_a_file_stays_a_task() -> None:
    [c] = validate([_cand(NodeType.TASK, "User model in api/models.py")])
    assert c.type == NodeType.TASK


def test_a_task_to_build_a_route_stays_a_completed_task() -> None:
    [c] = validate([_cand(NodeType.TASK, "POST /api/auth/register", cue="marker_completed")])
    assert c.type == NodeType.TASK


def test_low_confidence_candidates_are_rejected() -> None:
    assert (
        validate([_cand(NodeType.DECISION, "Redis for the cache", conf=MIN_CONFIDENCE - 0.1)]) == []
    )


def test_vague_labels_are_rejected() -> None:
    assert validate([_cand(NodeType.TASK, "it"), _cand(NodeType.DECISION, "that")]) == []


def test_a_bare_version_number_is_not_a_decision() -> None:
    assert validate([_cand(NodeType.DECISION, "3.12", conf=0.7)]) == []


def test_a_file_label_that_is_not_a_path_is_rejected() -> None:
    assert validate([_cand(NodeType.FILE, "the config", conf=0.7)]) == []


def test_validation_keeps_order_and_is_deterministic() -> None:
    cands = [_cand(NodeType.TASK, "wrote the migration"), _cand(NodeType.DECISION, "use Postgres")]
    assert [c.label for c in validate(cands)] == ["wrote the migration", "use Postgres"]
    assert validate(cands) == validate(cands)


def test_an_exception_message_logged_as_a_task_is_an_error() -> None:
    [c] = validate([_cand(NodeType.TASK, "KeyError: 'item_88412' in the eval harness")])
    assert c.type == NodeType.ERROR


def test_overlong_labels_are_cut_at_a_word_boundary() -> None:
    [c] = validate([_cand(NodeType.TASK, "word " * 60 + "end")])
    assert len(c.label) <= 160 and c.label.endswith("word")
