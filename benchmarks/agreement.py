"""How far two labellings of the same sessions agree: the ceiling the extractor is measured under.

    python -m benchmarks.agreement --corpus DIR --second DIR --out FILE.json

``--corpus`` is a labelled corpus folder; ``--second`` holds a second labelling of its sessions,
one ``<file name>.json`` each with the session's ``id`` and a ``ground_truth`` written by another
annotator who did not see the first. Each labelling is scored against the other with the
protocol's own relation (``benchmarks.scoring``), both ways, since the relation is not symmetric;
so is the extractor, against each. The JSON holds macro F1 and per-category F1 of the four
pairings; a Markdown table is written beside it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from statistics import mean

from benchmarks import scoring
from benchmarks.extraction import git_commit, run_method
from benchmarks.harness import write_json
from benchmarks.report import pct, table
from benchmarks.sessions import Session, load

PAIRINGS = {
    "second against first": ("second", "first"),
    "first against second": ("first", "second"),
    "extractor against first": ("extractor", "first"),
    "extractor against second": ("extractor", "second"),
}


def labellings(session: Session, second: dict) -> dict[str, dict]:
    """The session's three labellings by name, each category to its labels."""
    first = {c: session.ground_truth.get(c, []) for c in scoring.CATEGORIES}
    extracted = run_method(session, extract_ms=0.0)["extracted"]
    return {
        "first": first,
        "second": {c: second.get(c, []) for c in scoring.CATEGORIES},
        "extractor": {c: extracted.get(c, []) for c in scoring.CATEGORIES},
    }


def summary(scores: list[dict]) -> dict:
    """Macro F1 over sessions and the mean F1 of each category where it is scored."""
    per_category = {}
    for category in scoring.CATEGORIES:
        f1s = [
            s["categories"][category]["f1"] for s in scores if s["categories"][category]["scored"]
        ]
        per_category[category] = mean(f1s) if f1s else None
    return {"macro_f1": scoring.macro(scores), "f1": per_category}


def agreement(corpus_dir: Path, second_dir: Path) -> dict:
    corpus = load(corpus_dir)
    scores: dict[str, list[dict]] = {name: [] for name in PAIRINGS}
    missing = []
    for session in corpus.sessions:
        path = second_dir / Path(session.path).name
        if not path.exists():
            missing.append(path.name)
            continue
        second = json.loads(path.read_text(encoding="utf-8"))
        if second.get("id") != session.id:
            raise SystemExit(f"{path}: id {second.get('id')!r} is not {session.id!r}")
        labels = labellings(session, second["ground_truth"])
        for name, (scored, truth) in PAIRINGS.items():
            scores[name].append(scoring.score_session(labels[scored], labels[truth]))
    if missing:
        raise SystemExit(
            f"{len(missing)} sessions have no second labelling in {second_dir}: {missing[:3]}"
        )
    return {
        "benchmark": "agreement",
        "git_commit": git_commit(),
        "corpus": corpus.id,
        "sessions": len(corpus.sessions),
        "pairings": {name: summary(s) for name, s in scores.items()},
    }


def markdown(results: dict) -> str:
    header = ["scored against", "macro F1", *scoring.CATEGORIES]
    rows = [
        [name, pct(p["macro_f1"]), *(pct(p["f1"][c]) for c in scoring.CATEGORIES)]
        for name, p in results["pairings"].items()
    ]
    title = f"# Agreement on `{results['corpus']}` ({results['sessions']} sessions)"
    return "\n".join([title, "", *table(header, rows), ""])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="a labelled corpus folder")
    parser.add_argument("--second", type=Path, required=True, help="its second labelling")
    parser.add_argument("--out", type=Path, required=True, help="the results JSON file")
    args = parser.parse_args(argv)
    results = agreement(args.corpus, args.second)
    write_json(results, args.out)
    args.out.with_suffix(".md").write_text(markdown(results), encoding="utf-8")
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
