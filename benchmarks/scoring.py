"""Protocol scoring: content words, the coverage relation, P/R/F1, aggregates and label quality."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from statistics import mean

CATEGORIES = ("completed_tasks", "pending_tasks", "decisions", "files", "errors")
COVERAGE_THRESHOLD = 0.6  # share of the ground-truth item's content words a label must hold
SUBSTRING_MIN = 6  # items this long or longer also cover by case-insensitive substring
BOOTSTRAP_DRAWS = 3000
BOOTSTRAP_SEED = 20260101

STOP_WORDS = frozenset(
    "the a an and or but in on at to for of with is are was were be been it this that "
    "we our i you they from by as".split()
)
_RUN = re.compile(r"[^\W_][\w./-]*")
_PIECES = re.compile(r"[/.]")


def content_words(text: str) -> set[str]:
    """Protocol content words: lower-cased runs minus short and stop words, plus path pieces."""
    words: set[str] = set()
    for run in _RUN.findall(text.lower()):
        if len(run) > 1 and run not in STOP_WORDS:
            words.add(run)
        if "/" in run or "." in run:
            words.update(p for p in _PIECES.split(run) if len(p) > 1 and p not in STOP_WORDS)
    return words


def covers(label: str, item: str) -> bool:
    """Whether an extracted label covers a ground-truth item; the item is the denominator."""
    needle = item.strip().casefold()
    if len(needle) >= SUBSTRING_MIN and needle in label.casefold():
        return True
    item_words = content_words(item)
    if not item_words:
        return False
    shared = len(item_words & content_words(label))
    return shared / len(item_words) >= COVERAGE_THRESHOLD


def f1(precision: float, recall: float) -> float:
    """Harmonic mean of precision and recall (0.0 when both are 0)."""
    total = precision + recall
    return 2 * precision * recall / total if total else 0.0


def score_category(labels: Sequence[str], items: Sequence[str]) -> dict:
    """P/R/F1 of one category, with its misses and spurious labels and the raw counts."""
    covered = [it for it in items if any(covers(lb, it) for lb in labels)]
    hits = [lb for lb in labels if any(covers(lb, it) for it in items)]
    recall = len(covered) / len(items) if items else 1.0
    precision = len(hits) / len(labels) if labels else 1.0
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1(precision, recall),
        "scored": bool(items or labels),
        "n_gt": len(items),
        "n_covered": len(covered),
        "n_extracted": len(labels),
        "n_correct": len(hits),
        "misses": [it for it in items if it not in covered],
        "spurious": [lb for lb in labels if lb not in hits],
    }


def score_session(extracted: dict[str, list[str]], ground_truth: dict) -> dict:
    """Per-category scores, misses, spurious labels and macro F1 of one session.

    Macro F1 is the mean F1 of the scored categories (those with ground truth or output); it is
    None when no category is scored.
    """
    categories = {
        c: score_category(extracted.get(c) or [], ground_truth.get(c) or []) for c in CATEGORIES
    }
    scored = [s["f1"] for s in categories.values() if s["scored"]]
    return {
        "categories": categories,
        "macro_f1": mean(scored) if scored else None,
        "misses": {c: s["misses"] for c, s in categories.items() if s["misses"]},
        "spurious": {c: s["spurious"] for c, s in categories.items() if s["spurious"]},
    }


MISS_KINDS = ("mistyped", "in_user_sentence", "in_assistant_sentence", "paraphrased")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n+")


def miss_kinds(
    misses: dict[str, list[str]], extracted: dict[str, list[str]], messages: Sequence[dict]
) -> dict[str, dict[str, int]]:
    """What each missed item is, per category: ``mistyped`` (a label of another category covers
    it), ``in_user_sentence`` / ``in_assistant_sentence`` (one sentence of the transcript covers
    it, so an extractor reading that sentence could have found it), or ``paraphrased`` (no single
    sentence does). Counts only: the kinds of misses can be reported for a corpus nobody reads."""
    sentences = [
        (m.get("role"), piece)
        for m in messages
        if isinstance(m.get("content"), str)
        for piece in _SENTENCE_BREAK.split(m["content"])
        if piece.strip()
    ]
    out = {}
    for category, items in misses.items():
        kinds = dict.fromkeys(MISS_KINDS, 0)
        for item in items:
            others = (lb for c, labels in extracted.items() if c != category for lb in labels)
            if any(covers(lb, item) for lb in others):
                kinds["mistyped"] += 1
                continue
            role = next((r for r, text in sentences if covers(text, item)), None)
            kinds[f"in_{role}_sentence" if role in ("user", "assistant") else "paraphrased"] += 1
        out[category] = kinds
    return out


def total_miss_kinds(per_session: Iterable[dict[str, dict[str, int]]]) -> dict:
    """``miss_kinds`` summed over the sessions of a corpus, per category."""
    totals = {c: dict.fromkeys(MISS_KINDS, 0) for c in CATEGORIES}
    for kinds in per_session:
        for category, counts in kinds.items():
            for kind, n in counts.items():
                totals[category][kind] += n
    return totals


def macro(session_scores: Iterable[dict]) -> float | None:
    """Corpus macro F1: the mean of the session macro F1s (sessions with none are skipped)."""
    values = [s["macro_f1"] for s in session_scores if s["macro_f1"] is not None]
    return mean(values) if values else None


def bootstrap_ci(
    values: Sequence[float], draws: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED
) -> list[float] | None:
    """95% percentile interval of the mean, resampling the values with a fixed seed."""
    if not values:
        return None
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(draws))
    return [means[int(0.025 * draws)], means[min(draws - 1, int(0.975 * draws))]]


def micro(session_scores: Iterable[dict]) -> dict[str, dict[str, float]]:
    """Micro precision/recall/F1 per category, pooling the counts of all sessions."""
    totals = {c: [0, 0, 0, 0] for c in CATEGORIES}  # gt, covered, extracted, correct
    for s in session_scores:
        for c, cat in s["categories"].items():
            t = totals[c]
            t[0] += cat["n_gt"]
            t[1] += cat["n_covered"]
            t[2] += cat["n_extracted"]
            t[3] += cat["n_correct"]
    out = {}
    for c, (gt, covered, extracted, correct) in totals.items():
        recall = covered / gt if gt else 1.0
        precision = correct / extracted if extracted else 1.0
        out[c] = {"precision": precision, "recall": recall, "f1": f1(precision, recall)}
    return out


def macro_by(session_scores: Sequence[dict], key: str) -> dict[str, float | None]:
    """Macro F1 per value of a session field (``register`` or ``origin``)."""
    groups: dict[str, list[dict]] = {}
    for s in session_scores:
        groups.setdefault(s.get(key) or "unspecified", []).append(s)
    return {k: macro(v) for k, v in sorted(groups.items())}


# --- label quality -------------------------------------------------------------------------------

CUT_MIN_CHARS = 60
NEAR_DUPLICATE_SHARE = 0.8
_BOUNDARY = re.compile(r"[.!?][\"')\]]*\s+[A-Z0-9]")
_WORD_CHAR = re.compile(r"\w")


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


def is_cut(label: str, source: str) -> bool:
    """Whether a 60+ character label ends mid-word.

    Where the transcript holds the label (compared case- and spacing-insensitively), it is cut when
    every occurrence continues with more letters of the same word; a label the transcript does not
    hold is cut when it ends in an ellipsis.
    """
    text = _flat(label)
    if len(text) < CUT_MIN_CHARS:
        return False
    flat = _flat(source)
    ends = [m.end() for m in re.finditer(re.escape(text), flat)]
    if not ends:
        return text.endswith(("…", "..."))
    return all(e < len(flat) and _WORD_CHAR.match(flat[e]) for e in ends)


def spans_sentences(label: str) -> bool:
    """Whether a label runs across a sentence boundary (end mark, space, capital or digit)."""
    return bool(_BOUNDARY.search(label.strip()))


def near_duplicates(labels: Sequence[str]) -> int:
    """Pairs where 80% of the smaller label's content words are in the other one."""
    words = [content_words(lb) for lb in labels]
    pairs = 0
    for i in range(len(words)):
        for j in range(i + 1, len(words)):
            small, large = sorted((words[i], words[j]), key=len)
            if small and len(small & large) / len(small) >= NEAR_DUPLICATE_SHARE:
                pairs += 1
    return pairs


def label_quality(extracted_by_session: Sequence[tuple[dict[str, list[str]], str]]) -> dict:
    """Label quality of one method over a corpus: (extracted, transcript text) per session.

    Near-duplicates are counted within a category of a session (the same fact typed twice, say
    as a task and an error, is not a duplicate).
    """
    labels = [
        (lb, src) for ex, src in extracted_by_session for c in CATEGORIES for lb in ex.get(c, [])
    ]
    dupes = sum(
        near_duplicates(ex.get(c, [])) for ex, _ in extracted_by_session for c in CATEGORIES
    )
    return {
        "labels": len(labels),
        "mean_label_chars": mean(len(lb) for lb, _ in labels) if labels else 0.0,
        "mean_label_words": mean(len(lb.split()) for lb, _ in labels) if labels else 0.0,
        "cut_labels": sum(is_cut(lb, src) for lb, src in labels),
        "sentence_spanning_labels": sum(spans_sentences(lb) for lb, _ in labels),
        "near_duplicate_pairs": dupes,
    }


# --- lifecycle -----------------------------------------------------------------------------------


def _pair_covers(reported: Sequence[str], labelled: Sequence[str], ordered: bool) -> bool:
    a, b = reported[0], reported[1]
    x, y = labelled[0], labelled[1]
    if covers(a, x) and covers(b, y):
        return True
    return not ordered and covers(a, y) and covers(b, x)


def score_pairs(
    reported: Sequence[Sequence[str]], labelled: Sequence[Sequence[str]], ordered: bool
) -> dict:
    """Recall/precision of reported pairs against labelled pairs under the coverage relation."""
    found = [p for p in labelled if any(_pair_covers(r, p, ordered) for r in reported)]
    correct = [r for r in reported if any(_pair_covers(r, p, ordered) for p in labelled)]
    return {
        "labelled": len(labelled),
        "found": len(found),
        "reported": len(reported),
        "correct": len(correct),
        "recall": len(found) / len(labelled) if labelled else 1.0,
        "precision": len(correct) / len(reported) if reported else 1.0,
        "missed": [list(p) for p in labelled if p not in found],
        "false": [list(r) for r in reported if r not in correct],
    }


def score_supersession(reported: Sequence[tuple[str, str, str]], labelled: Sequence[dict]) -> dict:
    """Reported (old, new, reason) replacements against labelled ``{old, new, reason}`` pairs.

    Also counts the labelled pairs found by a replacement whose reason covers the labelled reason.
    """
    gt = [(p["old"], p["new"]) for p in labelled]
    out = score_pairs([(o, n) for o, n, _ in reported], gt, ordered=True)
    out["reasons_covered"] = sum(
        any(
            _pair_covers((o, n), (p["old"], p["new"]), True) and covers(r, p.get("reason", ""))
            for o, n, r in reported
        )
        for p in labelled
        if p.get("reason")
    )
    return out


def score_in_force(shown: Sequence[str], ground_truth: dict) -> dict:
    """In-force P/R/F1; a shown label covering a superseded or contested decision counts against
    precision even if it also covers an in-force one."""
    in_force = ground_truth.get("in_force") or []
    stale = [p["old"] for p in ground_truth.get("superseded") or []]
    contested = [d for pair in ground_truth.get("contested") or [] for d in pair]
    bad = [d for d in stale + contested if d not in in_force]
    covered = [it for it in in_force if any(covers(lb, it) for lb in shown)]
    wrong = [lb for lb in shown if any(covers(lb, d) for d in bad)]
    right = [lb for lb in shown if lb not in wrong and any(covers(lb, it) for it in in_force)]
    recall = len(covered) / len(in_force) if in_force else 1.0
    precision = len(right) / len(shown) if shown else 1.0
    return {
        "labelled": len(in_force),
        "found": len(covered),
        "shown": len(shown),
        "correct": len(right),
        "precision": precision,
        "recall": recall,
        "f1": f1(precision, recall),
        "superseded_or_contested_shown": wrong,
        "missed": [it for it in in_force if it not in covered],
    }


def score_lifecycle(reported: dict, ground_truth: dict) -> dict:
    """Lifecycle scores of one session; ``reported`` has superseded, contested and in_force.

    A part whose field the ground truth lacks is not scored (None), as an absent label is unknown.
    """
    gt = ground_truth
    contested = [tuple(p) for p in gt.get("contested") or []]
    return {
        "supersession": score_supersession(reported["superseded"], gt.get("superseded") or [])
        if "superseded" in gt
        else None,
        "contested": score_pairs(reported["contested"], contested, ordered=False)
        if "contested" in gt
        else None,
        "in_force": score_in_force(reported["in_force"], gt) if "in_force" in gt else None,
    }


def _pooled(parts: Sequence[dict], hit: str, total: str) -> float:
    n = sum(p[total] for p in parts)
    return sum(p[hit] for p in parts) / n if n else 1.0


def _pooled_pairs(parts: Sequence[dict]) -> dict:
    return {
        "sessions": len(parts),
        "recall": _pooled(parts, "found", "labelled"),
        "precision": _pooled(parts, "correct", "reported"),
        "labelled": sum(s["labelled"] for s in parts),
        "found": sum(s["found"] for s in parts),
        "reported": sum(s["reported"] for s in parts),
        "false_pairs": sum(len(s["false"]) for s in parts),
    }


def aggregate_lifecycle(per_session: Sequence[dict]) -> dict:
    """Lifecycle scores pooled (micro) over the sessions that carry each lifecycle field."""
    sup = [s["supersession"] for s in per_session if s["supersession"] is not None]
    con = [s["contested"] for s in per_session if s["contested"] is not None]
    inf = [s["in_force"] for s in per_session if s["in_force"] is not None]
    p, r = _pooled(inf, "correct", "shown"), _pooled(inf, "found", "labelled")
    shown_wrong = sum(len(s["superseded_or_contested_shown"]) for s in inf)
    return {
        "sessions": len(per_session),
        "supersession": dict(
            _pooled_pairs(sup), reasons_covered=sum(s["reasons_covered"] for s in sup)
        ),
        "contested": _pooled_pairs(con),
        "in_force": {
            "sessions": len(inf),
            "precision": p,
            "recall": r,
            "f1": f1(p, r),
            "superseded_or_contested_shown": shown_wrong,
        },
    }
