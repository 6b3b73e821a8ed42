"""A learned lexicon: weights of words and word pairs that say how likely a user's sentence states a
decision, reports a problem or reports work, done or to do, in words no rule knows ("the totals
are a few cents off again", "the new units are up along the back wall").

The weights are logistic regressions over ``features``, trained by ``python -m benchmarks.lexicon``
on the project's own labelled sessions and kept in ``lexicon.json`` beside this module. Reading a
sentence is a sum of weights: deterministic, no model to run. What it reads is a likely fact, not a
stated one (``Node.learned``).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

LEXICON = Path(__file__).with_name("lexicon.json")
CUE = "learned"  # the cue of the candidates the lexicon proposes
KINDS = ("decisions", "errors", "completed_tasks", "pending_tasks")
MIN_WORDS, MAX_WORDS = 3, 40  # shorter states nothing; longer is a paste, not a sentence

_WORD = re.compile(r"[a-z0-9_']+")


def _keys(text: str, position: int) -> list[str | tuple[str, str]]:
    """The words, the word pairs (as tuples) and how early in the session the sentence is (an
    opening message sets out the problem more often than a later one), in the order of the text."""
    words = _WORD.findall(text.lower())
    return [f"@turn{min(position, 3)}", *words, *zip(words, words[1:], strict=False)]


def features(text: str, position: int = 0) -> list[str]:
    """``_keys`` as the lexicon file names them: a word pair as "a b"."""
    return [k if isinstance(k, str) else " ".join(k) for k in _keys(text, position)]


def fits(text: str) -> bool:
    """Whether a sentence is of the length the lexicon was trained on."""
    return MIN_WORDS <= len(text.split()) <= MAX_WORDS


_NEVER = {"threshold": 0.5, "bias": -1e9, "weights": {}}  # a kind the file does not hold


def load(path: Path = LEXICON) -> tuple[tuple[float, ...], tuple[dict, ...]]:
    """Per kind, in the order of ``KINDS``: the score from which a sentence states it (the
    threshold's log-odds less the bias), and the weight of each feature, a word pair as a tuple."""
    entries = [json.loads(path.read_text(encoding="utf-8")).get(kind, _NEVER) for kind in KINDS]
    cuts = tuple(math.log(e["threshold"] / (1 - e["threshold"])) - e["bias"] for e in entries)
    weights = tuple(
        {tuple(f.split(" ")) if " " in f else f: w for f, w in e["weights"].items()}
        for e in entries
    )
    return cuts, weights


def _rows(weights: tuple[dict, ...]) -> dict:
    """Each feature's weights, one per kind (0.0 where a kind has none): one lookup a feature."""
    features = set().union(*weights)
    return {f: tuple(w.get(f, 0.0) for w in weights) for f in features}


_CUTS, _WEIGHTS = load()
_ROWS = _rows(_WEIGHTS)
_NOTHING = (0.0,) * len(KINDS)


def use(path: Path) -> None:
    """Read with the lexicon in ``path`` from now on (the trainer's cross-validation)."""
    global _CUTS, _WEIGHTS, _ROWS
    _CUTS, _WEIGHTS = load(path)
    _ROWS = _rows(_WEIGHTS)


def scores(text: str, position: int = 0) -> tuple[float, ...]:
    """Per kind, the weights of the sentence's features summed (its log-odds, less the bias)."""
    # Each feature once, in the order of the text: a set's order changes with the hash seed, and
    # so would the last bit of a float sum (a kind's 0.0 for a feature adds nothing, exactly).
    # Pairs stay tuples: no string to build.
    rows = list(filter(None, map(_ROWS.get, dict.fromkeys(_keys(text, position)))))
    return tuple(map(sum, zip(*rows, strict=True))) if rows else _NOTHING


def stated(text: str, position: int = 0) -> frozenset[str]:
    """The kinds of fact (of ``KINDS``) the lexicon reads in a user's sentence."""
    if not fits(text):
        return frozenset()
    totals = scores(text, position)
    return frozenset(k for k, total, cut in zip(KINDS, totals, _CUTS, strict=True) if total >= cut)
