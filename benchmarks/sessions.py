"""Loading a labelled corpus folder: one JSON session per file, with the files' hashes."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Session:
    id: str
    origin: str
    register: str  # "unspecified" when the file has none
    domain: str
    messages: list[dict]
    ground_truth: dict
    path: str

    @property
    def has_lifecycle(self) -> bool:
        return any(k in self.ground_truth for k in ("superseded", "contested", "in_force"))


@dataclass
class Corpus:
    id: str
    sessions: list[Session] = field(default_factory=list)
    hashes: dict[str, str] = field(default_factory=dict)  # file name -> sha256 of its bytes
    skipped: list[str] = field(default_factory=list)  # JSON files that are not sessions


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def session_from(data: dict, path: Path) -> Session:
    return Session(
        id=str(data.get("id") or path.stem),
        origin=data.get("origin") or "unspecified",
        register=data.get("register") or "unspecified",
        domain=data.get("domain") or "",
        messages=list(data["messages"]),
        ground_truth=dict(data.get("ground_truth") or {}),
        path=str(path),
    )


def load(folder: str | Path) -> Corpus:
    """Every ``*.json`` of ``folder`` holding ``messages``, by file name; others are skipped."""
    root = Path(folder)
    corpus = Corpus(id=root.resolve().name)
    for path in sorted(root.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
            corpus.skipped.append(path.name)
            continue
        corpus.sessions.append(session_from(data, path))
        corpus.hashes[path.name] = sha256(path)
    return corpus


def merge(corpora: list[Corpus]) -> Corpus:
    """Several folders as one corpus; its id joins theirs with ``+``."""
    if len(corpora) == 1:
        return corpora[0]
    merged = Corpus(id="+".join(c.id for c in corpora))
    for c in corpora:
        merged.sessions.extend(c.sessions)
        merged.hashes.update({f"{c.id}/{k}": v for k, v in c.hashes.items()})
        merged.skipped.extend(f"{c.id}/{k}" for k in c.skipped)
    return merged
