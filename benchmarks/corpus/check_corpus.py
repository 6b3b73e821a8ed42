"""Validate a folder of labelled sessions against the corpus format of PROTOCOL.md.

Usage: python benchmarks/corpus/check_corpus.py FOLDER [FOLDER ...] [--strict]
       [--min-messages N] [--max-messages N]

Checks, per session file:
- JSON shape: id (equal to the file name), origin, domain, register, notes, messages, ground_truth;
- messages alternate user/assistant starting with user, count within the bounds;
- every label of completed_tasks, pending_tasks, decisions and errors is 2-8 words and its content
  words occur in order within ONE message (with --strict: the label is a contiguous run of that
  message's words once articles and surrounding punctuation are dropped);
- every file label occurs literally in one message;
- no duplicate label in a category, no label both completed and pending, no decision repeated as a
  completed task;
- superseded {old, new, reason}: old and new in decisions, reason found in one message;
- contested pairs ([a, b] or {a, b}): both members in decisions, distinct;
- in_force == decisions - superseded olds - contested members.
Exits 1 when any session fails; prints one line per problem and a summary.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

STOP_WORDS = {
    "the",
    "a",
    "an",
    "and",
    "or",
    "but",
    "in",
    "on",
    "at",
    "to",
    "for",
    "of",
    "with",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "it",
    "this",
    "that",
    "we",
    "our",
    "i",
    "you",
    "they",
    "from",
    "by",
    "as",
}
ARTICLES = {"a", "an", "the"}
REGISTERS = {"explicit", "semi", "implicit", "mixed"}
ORIGINS = {"synthetic", "real"}
LABEL_CATEGORIES = ("completed_tasks", "pending_tasks", "decisions", "errors")
ALL_CATEGORIES = LABEL_CATEGORIES + ("files",)
WORD_RE = re.compile(r"[a-z0-9][a-z0-9._/\-]*")
EDGE_PUNCT = ".,;:!?()[]{}\"'`*<>"


def content_words(text: str) -> list[str]:
    """Content words in order, as PROTOCOL.md defines them (pieces of paths follow the word)."""
    words: list[str] = []
    for word in WORD_RE.findall(text.lower()):
        word = word.rstrip(".")  # a sentence's full stop is not part of a path
        if len(word) > 1 and word not in STOP_WORDS:
            words.append(word)
        if "/" in word or "." in word:
            for piece in re.split(r"[/.]", word):
                if len(piece) > 1 and piece not in STOP_WORDS:
                    words.append(piece)
    return words


def in_order(needle: list[str], haystack: list[str]) -> bool:
    """True when needle is a subsequence of haystack."""
    it = iter(haystack)
    return all(any(w == h for h in it) for w in needle)


def plain_tokens(text: str) -> list[str]:
    """Lower-cased whitespace tokens, edge punctuation stripped, articles dropped."""
    tokens = []
    for raw in text.lower().split():
        tok = raw.strip(EDGE_PUNCT)
        if tok and tok not in ARTICLES:
            tokens.append(tok)
    return tokens


def contiguous(needle: list[str], haystack: list[str]) -> bool:
    """needle is a run of haystack; its first word may end a token, its last may start one."""
    n = len(needle)
    if n == 0:
        return False
    for i in range(len(haystack) - n + 1):
        run = haystack[i : i + n]
        if n == 1:
            if needle[0] in run[0]:
                return True
            continue
        if (
            run[0].endswith(needle[0])
            and run[-1].startswith(needle[-1])
            and run[1:-1] == needle[1:-1]
        ):
            return True
    return False


def found_in_message(label: str, messages: list[str], strict: bool) -> bool:
    words = content_words(label)
    if not words:
        return False
    for text in messages:
        if strict:
            if contiguous(plain_tokens(label), plain_tokens(text)):
                return True
        elif in_order(words, content_words(text)):
            return True
    return False


def pair_members(pair) -> tuple[str, str] | None:
    if isinstance(pair, dict) and set(pair) == {"a", "b"}:
        return pair["a"], pair["b"]
    if isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair):
        return pair[0], pair[1]
    return None


def check_shape(data, stem: str, lo: int, hi: int) -> list[str]:
    problems = []
    if not isinstance(data, dict):
        return ["top level is not an object"]
    for key, kind in (
        ("id", str),
        ("origin", str),
        ("domain", str),
        ("notes", str),
        ("messages", list),
        ("ground_truth", dict),
    ):
        if not isinstance(data.get(key), kind):
            problems.append(f"missing or mistyped field {key!r}")
    if problems:
        return problems
    if data["id"] != stem:
        problems.append(f"id {data['id']!r} differs from file name {stem!r}")
    if data["origin"] not in ORIGINS:
        problems.append(f"origin {data['origin']!r} not in {sorted(ORIGINS)}")
    if "register" in data and data["register"] not in REGISTERS:
        problems.append(f"register {data['register']!r} not in {sorted(REGISTERS)}")
    msgs = data["messages"]
    if not lo <= len(msgs) <= hi:
        problems.append(f"{len(msgs)} messages, expected {lo}-{hi}")
    for i, m in enumerate(msgs):
        want = "user" if i % 2 == 0 else "assistant"
        if not isinstance(m, dict) or m.get("role") != want:
            problems.append(f"message {i} should have role {want}")
        elif not isinstance(m.get("content"), str) or not m["content"].strip():
            problems.append(f"message {i} has no content")
    return problems


def check_labels(gt: dict, texts: list[str], strict: bool) -> list[str]:
    problems = []
    for cat in ALL_CATEGORIES:
        items = gt.get(cat, [])
        if not isinstance(items, list) or not all(isinstance(x, str) and x.strip() for x in items):
            problems.append(f"{cat} is not a list of non-empty strings")
            continue
        if len(set(items)) != len(items):
            problems.append(f"{cat} has duplicate labels")
        for label in items:
            if cat == "files":
                if not any(label in t for t in texts):
                    problems.append(f"file {label!r} not written literally in any message")
                continue
            n_words = len(plain_tokens(label))
            if not 2 <= n_words <= 8:
                problems.append(f"{cat} label {label!r} has {n_words} words (2-8 expected)")
            if not found_in_message(label, texts, strict):
                how = "as a contiguous phrase" if strict else "in order"
                problems.append(f"{cat} label {label!r} not found {how} in one message")
    done, todo = set(gt.get("completed_tasks", [])), set(gt.get("pending_tasks", []))
    for label in sorted(done & todo):
        problems.append(f"task {label!r} is both completed and pending")
    for label in sorted(done & set(gt.get("decisions", []))):
        problems.append(f"{label!r} is both a decision and a completed task")
    return problems


def check_lifecycle(gt: dict, texts: list[str], strict: bool) -> list[str]:
    problems = []
    decisions = set(gt.get("decisions", []))
    olds, contested_members = set(), set()
    for entry in gt.get("superseded", []):
        if not isinstance(entry, dict) or set(entry) != {"old", "new", "reason"}:
            problems.append(f"superseded entry {entry!r} is not {{old, new, reason}}")
            continue
        for side in ("old", "new"):
            if entry[side] not in decisions:
                problems.append(f"superseded {side} {entry[side]!r} not in decisions")
        if entry["old"] == entry["new"]:
            problems.append(f"superseded old and new are the same: {entry['old']!r}")
        if not found_in_message(entry["reason"], texts, strict):
            problems.append(f"superseded reason {entry['reason']!r} not found in one message")
        olds.add(entry["old"])
    for pair in gt.get("contested", []):
        members = pair_members(pair)
        if members is None:
            problems.append(f"contested entry {pair!r} is not [a, b] or {{a, b}}")
            continue
        if members[0] == members[1]:
            problems.append(f"contested pair has the same member twice: {members[0]!r}")
        for m in members:
            if m not in decisions:
                problems.append(f"contested member {m!r} not in decisions")
        contested_members.update(members)
    if "in_force" in gt:
        expected = decisions - olds - contested_members
        got = gt["in_force"]
        if len(set(got)) != len(got):
            problems.append("in_force has duplicate labels")
        for label in sorted(expected - set(got)):
            problems.append(f"in_force lacks {label!r}")
        for label in sorted(set(got) - expected):
            problems.append(f"in_force holds {label!r}, which is not a standing decision")
    return problems


def check_file(path: Path, strict: bool, lo: int, hi: int) -> list[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return [f"cannot read JSON: {exc}"]
    problems = check_shape(data, path.stem, lo, hi)
    if problems:
        return problems
    texts = [m["content"] for m in data["messages"]]
    gt = data["ground_truth"]
    return check_labels(gt, texts, strict) + check_lifecycle(gt, texts, strict)


def session_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.json") if not p.name.startswith("results_"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument(
        "--strict",
        action="store_true",
        help="labels must be contiguous phrases of one message (articles aside)",
    )
    parser.add_argument("--min-messages", type=int, default=12)
    parser.add_argument("--max-messages", type=int, default=30)
    args = parser.parse_args(argv)
    failed = total = 0
    for folder in args.folders:
        files = session_files(folder)
        if not files:
            print(f"{folder}: no session files")
            failed += 1
            continue
        bad_here = 0
        for path in files:
            total += 1
            problems = check_file(path, args.strict, args.min_messages, args.max_messages)
            for p in problems:
                print(f"{path}: {p}")
            bad_here += bool(problems)
        print(f"{folder}: {len(files) - bad_here}/{len(files)} sessions pass")
        failed += bad_here
    print(f"{'OK' if not failed else 'FAILED'}: {total - failed}/{total} sessions pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
