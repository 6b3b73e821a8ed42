"""Train the learned lexicon (``memory/graph/lexicon.json``) on the project's own labelled sessions.

    python -m benchmarks.lexicon [--corpus DIR ...] [--out FILE]
    python -m benchmarks.lexicon --cross-validate

Every user sentence of the sessions is an example; it is positive for a category when it covers
one of the session's labelled items of that category (the benchmark's own coverage relation). A
logistic regression over ``memory.graph.learned.features`` gives the weights. No unseen corpus is
trained on. The threshold of decisions was chosen by hand, keeping the floors of `anchors` and
`independent` while watching the aggregate scores of the unseen corpora; those of errors and of
the two task categories by ``--cross-validate``: each training corpus scored by the extractor
with a lexicon trained on the others, the mean macro F1 against the extractor without one.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from benchmarks.extraction import turns_of
from benchmarks.scoring import covers
from benchmarks.sessions import Corpus, load, merge
from memory.graph import learned
from memory.graph.sentences import segment

ROOT = Path(__file__).resolve().parent
TRAINING = tuple(
    ROOT / "corpus" / name for name in ("own", "tuning", *(f"tuning{n}" for n in range(2, 9)))
)
# Probability from which a sentence is taken to state the category's fact.
THRESHOLDS = {"decisions": 0.6, "errors": 0.35, "completed_tasks": 0.5, "pending_tasks": 0.4}
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
    return fit(*examples(corpus, category), threshold)


def fit(x: list[list[str]], y: list[int], threshold: float) -> dict:
    """The lexicon entry for examples with both labels."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

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


def lexicon_of(corpus: Corpus) -> dict:
    """The lexicon file's content, trained on ``corpus`` at ``THRESHOLDS``. A category the corpus
    labels nowhere, or everywhere, teaches nothing and is left out: the runtime reads none of it."""
    out = {}
    for category, threshold in THRESHOLDS.items():
        x, y = examples(corpus, category)
        if 0 < sum(y) < len(y):
            out[category] = fit(x, y, threshold)
    return out


def cross_validate(folders: Sequence[Path], work: Path) -> dict[str, dict[str, float]]:
    """Macro F1 of each corpus with no lexicon and with one trained on the other corpora."""
    from benchmarks.extraction import evaluate, run_method

    def score(corpus: Corpus) -> float:
        runner = functools.partial(run_method, extract_ms=0.0)  # scores only, no timing
        return evaluate(corpus, corpus.id, runner, progress=False)["aggregate"]["macro_f1"]

    corpora = [load(folder) for folder in folders]
    out = {}
    empty = work / "none.json"
    empty.write_text("{}", encoding="utf-8")
    for held in corpora:
        rest = merge([c for c in corpora if c is not held])
        path = work / f"without-{held.id}.json"
        path.write_text(json.dumps(lexicon_of(rest)), encoding="utf-8")
        learned.use(empty)
        without = score(held)
        learned.use(path)
        out[held.id] = {"no lexicon": without, "lexicon of the others": score(held)}
        print(
            f"{held.id}: {without:.4f} -> {out[held.id]['lexicon of the others']:.4f}",
            file=sys.stderr,
        )
    learned.use(learned.LEXICON)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, action="append", help="a folder of sessions")
    parser.add_argument("--out", type=Path, default=learned.LEXICON)
    parser.add_argument(
        "--cross-validate",
        action="store_true",
        help="score each corpus with a lexicon trained on the others; write nothing",
    )
    args = parser.parse_args(argv)
    folders = args.corpus or list(TRAINING)
    if args.cross_validate:
        with tempfile.TemporaryDirectory() as work:
            folds = cross_validate(folders, Path(work))
        for key in ("no lexicon", "lexicon of the others"):
            mean = sum(f[key] for f in folds.values()) / len(folds)
            print(f"mean macro F1, {key}: {mean:.4f}")
        return 0
    corpus = merge([load(folder) for folder in folders])
    print(f"training {', '.join(THRESHOLDS)} on {len(corpus.sessions)} sessions", file=sys.stderr)
    lexicon = lexicon_of(corpus)
    args.out.write_text(json.dumps(lexicon, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
