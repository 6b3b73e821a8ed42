"""Validation of extraction candidates: confidence, rejection and type correction."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.graph import labels, paths
from memory.graph.types import Candidate, NodeType, Status

MIN_CONFIDENCE = 0.5
MAX_LABEL_CHARS = 160

# Types whose label is the thing itself: a path-only label there is the file, not the work.
_RETYPABLE = frozenset({NodeType.DECISION, NodeType.CONCEPT, NodeType.DEPENDENCY, NodeType.API})
# Tokens that are never a fact on their own (pronouns, vague heads left after cleaning).
_VAGUE = frozenset(
    "it this that them these those something stuff things one thing everything".split()
)
# Types whose label states work, a choice or a problem, read as prose (sets: tested per candidate).
_STATED = frozenset({NodeType.TASK, NodeType.DECISION, NodeType.ERROR})
_WORK_OR_CHOICE = frozenset({NodeType.TASK, NodeType.DECISION})
_VERSION_ONLY = re.compile(r"^v?\d+(?:\.\d+)*$")
# "KeyError: 'item_88412'": an exception and its message, which is an error whatever the rule said.
_EXCEPTION_MESSAGE = re.compile(r"^(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception):\s")


def validate(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Candidates worth applying: types corrected, confidence adjusted, weak ones rejected."""
    out: list[Candidate] = []
    for c in candidates:
        checked = _check(c)
        if checked is not None and checked.confidence >= MIN_CONFIDENCE:
            out.append(checked)
    return out


def _check(c: Candidate) -> Candidate | None:
    label = c.label.strip()
    if not label or len(label) > MAX_LABEL_CHARS * 3:
        return None
    # A copy with two fields changed: the constructor on its fields, cheaper than replace().
    c = Candidate(**{**vars(c), "type": _corrected_type(c), "label": _bounded(label)})
    c.confidence = round(_confidence(c), 3)  # on the copy just made
    return c


def _bounded(label: str) -> str:
    """A label cut to the limit at a word boundary, never mid-word."""
    if len(label) <= MAX_LABEL_CHARS:
        return label
    cut = label.rfind(" ", 0, MAX_LABEL_CHARS)
    return label[: cut if cut > 0 else MAX_LABEL_CHARS].rstrip(" ,;:")


def _corrected_type(c: Candidate) -> NodeType:
    """A path is a file, a method+route an endpoint, an exception message an error, when the
    label is nothing else."""
    label = c.label.strip().strip("`")
    if c.type in _WORK_OR_CHOICE and _EXCEPTION_MESSAGE.match(label):
        return NodeType.ERROR
    if c.type in _RETYPABLE or (c.type == NodeType.TASK and c.cue == "path"):
        if paths.is_endpoint(label):
            return NodeType.ENDPOINT
        # A path holds no space (the cheaper test): a label with one is no path by itself.
        if len(label.split()) == 1 and paths.find_paths(label) == [label]:
            return NodeType.FILE
    if c.type == NodeType.FILE and paths.is_endpoint(label):
        return NodeType.ENDPOINT
    return c.type


def _confidence(c: Candidate) -> float:
    """Start from the rule's confidence; penalise vague, overlong or bare labels."""
    conf = c.confidence
    words = labels.content_words(c.label)
    if not words or words <= _VAGUE:
        return 0.0
    n = len(c.label.split())
    if c.type in _STATED:
        if n > 16:
            conf -= 0.15
        if n == 1 and c.type == NodeType.TASK and not _looks_named(c.label):
            conf -= 0.2
        if _VERSION_ONLY.match(c.label):
            conf -= 0.4
    if c.type == NodeType.FILE and not paths.find_paths(c.label) and "\\" not in c.label:
        conf -= 0.4
    if c.status == Status.COMPLETED and c.fixes:
        conf += 0.05
    return max(0.0, min(1.0, conf))


_NAMED_CHAR = re.compile(r"[A-Z_./@0-9]")


def _looks_named(label: str) -> bool:
    """A one-word label that names something concrete (a code identifier, a product name)."""
    return bool(_NAMED_CHAR.search(label[1:])) or bool(paths.find_paths(label))
