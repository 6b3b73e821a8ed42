"""Structurally lossless trimming of a Claude Code session (its JSONL entries): the rules of
``memory.graph.trim`` applied to user/assistant blocks, tool_use/tool_result, thinking and images,
keeping every other entry and field, and the parent chain, as they were."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Mapping
from typing import Any

from memory.graph import formats, stubs
from memory.graph.trim import (
    DEFAULT_THRESHOLD,
    EMPTY_TOOL_OUTPUT,
    NAMESPACE,
    NO_RESULT,
    ORPHAN_TAG,
    RESULT_STUB,
    STUB_KEY,
    ClaudeTrimResult,
    Counts,
    canonical_json,
    check_threshold,
    lean_parts,
    make_report,
    marker_counts,
    marker_text,
    measure_items,
    placeholder_for,
    stub_input,
    stub_text,
)


def trim_claude_entries(
    entries: list[dict], threshold: int = DEFAULT_THRESHOLD, *, model: str | None = None
) -> ClaudeTrimResult:
    """The Claude Code session trimmed, every other entry and field kept, and what was done."""
    check_threshold(threshold)
    before = measure_items(entries, formats.claude_to_messages(entries)[0], model)
    work = copy.deepcopy(list(entries))
    totals, work = _take_marker(work)
    counts = Counts()
    calls = _claude_calls(work)
    gone: dict[Any, Any] = {}
    for entry in work:
        if formats.is_conversation_entry(entry) and _lean_entry(entry, calls, threshold, counts):
            gone[entry.get("uuid")] = entry.get("parentUuid")
            counts.merged += 1
    work = _relinked([e for e in work if not _is_gone(e, gone)], gone)
    work = _claude_paired(work, counts)
    totals = totals.plus(counts)
    if totals.any():
        work = _with_marker(work, marker_text(totals, threshold))
    after = measure_items(work, formats.claude_to_messages(work)[0], model)
    return ClaudeTrimResult(work, make_report("claude-code", threshold, counts, before, after))


def _is_gone(entry: Mapping, gone: Mapping) -> bool:
    return formats.is_conversation_entry(entry) and entry.get("uuid") in gone


def _relinked(entries: list[dict], gone: Mapping[Any, Any]) -> list[dict]:
    """Entries whose parent (or summary leaf) was dropped point to the nearest kept ancestor."""

    def resolve(uuid_: Any) -> Any:
        seen = set()
        while uuid_ in gone and uuid_ not in seen:
            seen.add(uuid_)
            uuid_ = gone[uuid_]
        return uuid_

    for entry in entries:
        for key in ("parentUuid", "leafUuid", "logicalParentUuid"):
            if entry.get(key) in gone:
                entry[key] = resolve(entry[key])
    return entries


def _take_marker(entries: list[dict]) -> tuple[Counts, list[dict]]:
    totals, gone = Counts(), {}
    for entry in entries:
        if formats.is_conversation_entry(entry) and entry["type"] == "user":
            found = marker_counts(entry["message"].get("content"))
            if found is not None:
                totals = totals.plus(found)
                gone[entry.get("uuid")] = entry.get("parentUuid")
    return totals, _relinked([e for e in entries if not _is_gone(e, gone)], gone)


def _claude_calls(entries: list[dict]) -> dict[str, tuple[str, str]]:
    """tool_use id -> (tool name, input as JSON), for stubbing the results."""
    calls: dict[str, tuple[str, str]] = {}
    for entry in entries:
        if formats.is_conversation_entry(entry) and entry["type"] == "assistant":
            for block in _blocks(entry):
                if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                    calls.setdefault(
                        block["id"],
                        (str(block.get("name") or "tool"), canonical_json(block.get("input"))),
                    )
    return calls


def _blocks(entry: Mapping) -> list[dict]:
    content = entry["message"].get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _lean_entry(entry: dict, calls: Mapping, threshold: int, counts: Counts) -> bool:
    """Trim one entry in place; True when nothing is left of it and it should go."""
    message = entry["message"]
    content = message.get("content")
    removed = Counts()
    if isinstance(content, list):
        content = [
            b
            for b in (_lean_block(b, calls, threshold, counts, removed) for b in content)
            if b is not None
        ]
        if any(b.get("type") == "tool_result" for b in content if isinstance(b, dict)):
            _stub_metadata(entry, calls, threshold, counts)
    counts.images += removed.images
    counts.thinking += removed.thinking
    if not stubs.has_content(content) and not any(_is_tool_block(b) for b in content or ()):
        if entry["type"] == "assistant":
            return True
        content = [{"type": "text", "text": placeholder_for("user", removed)}]
        counts.filled += 1
    message["content"] = content
    return False


def _is_tool_block(block: Any) -> bool:
    return isinstance(block, Mapping) and block.get("type") in ("tool_use", "tool_result")


def _lean_block(block: Any, calls: Mapping, threshold: int, counts: Counts, removed: Counts) -> Any:
    kind = block.get("type") if isinstance(block, Mapping) else None
    if kind in formats.IMAGE_BLOCKS:
        removed.images += 1
        return None
    if kind in formats.THINKING_BLOCKS:
        removed.thinking += 1
        return None
    if kind == "tool_use":
        stub = stub_input(
            canonical_json(block.get("input")), str(block.get("name") or "tool"), threshold
        )
        if stub is not None:
            counts.inputs += 1
            return {**block, "input": {STUB_KEY: stub}}
    if kind == "tool_result":
        return _lean_result(block, calls, threshold, counts, removed)
    return block


def _lean_result(
    block: dict, calls: Mapping, threshold: int, counts: Counts, removed: Counts
) -> dict:
    content = block.get("content")
    if isinstance(content, list):
        content = lean_parts(content, removed)
    name, arguments = calls.get(block.get("tool_use_id"), ("tool", ""))
    stub = stub_text(formats.block_text(content), name, arguments, threshold)
    if stub is not None:
        content = stub
        counts.results += 1
    if not stubs.has_content(content):
        content = EMPTY_TOOL_OUTPUT
        counts.filled += 1
    return {**block, "content": content}


def _stub_metadata(entry: dict, calls: Mapping, threshold: int, counts: Counts) -> None:
    """Claude Code keeps a structured copy of each tool result (``toolUseResult``) for its UI."""
    copy_ = entry.get("toolUseResult")
    if copy_ is None or (isinstance(copy_, str) and copy_.startswith(RESULT_STUB)):
        return
    serialized = copy_ if isinstance(copy_, str) else canonical_json(copy_)
    block = next(b for b in _blocks(entry) if b.get("type") == "tool_result")
    name, arguments = calls.get(block.get("tool_use_id"), ("tool", ""))
    stub = stub_text(serialized, name, arguments, threshold)
    if stub is not None:
        entry["toolUseResult"] = stub
        counts.metadata += 1


def _runs(entries: list[dict]) -> list[tuple[str, list[int]]]:
    """Indices of conversation entries grouped into runs of one type (what the API merges)."""
    runs: list[tuple[str, list[int]]] = []
    for i, entry in enumerate(entries):
        if not formats.is_conversation_entry(entry):
            continue
        if runs and runs[-1][0] == entry["type"]:
            runs[-1][1].append(i)
        else:
            runs.append((entry["type"], [i]))
    return runs


def _claude_paired(entries: list[dict], counts: Counts) -> list[dict]:
    """Every tool_use answered in the user turn right after it; every tool_result has its call."""
    runs = _runs(entries)
    appended: list[tuple[int, dict]] = []
    for r, (kind, indices) in enumerate(runs):
        if kind != "user":
            continue
        previous = runs[r - 1][1] if r > 0 else []
        pending = _pending_calls(entries, previous)
        for i in indices:
            _pair_user_entry(entries[i], pending, counts)
        if pending:
            _prepend_results(entries[indices[0]], list(pending), counts)
    if runs and runs[-1][0] == "assistant":
        pending = _pending_calls(entries, runs[-1][1])
        if pending:
            last = runs[-1][1][-1]
            appended.append((last, _result_entry(entries[last], list(pending), counts)))
    for at, entry in reversed(appended):
        entries.insert(at + 1, entry)
    return entries


def _pending_calls(entries: list[dict], indices: list[int]) -> dict[str, None]:
    pending: dict[str, None] = {}
    for i in indices:
        for block in _blocks(entries[i]):
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                pending[block["id"]] = None
    return pending


def _pair_user_entry(entry: dict, pending: dict[str, None], counts: Counts) -> None:
    content = entry["message"].get("content")
    if not isinstance(content, list):
        return
    results, others = [], []
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "tool_result":
            if block.get("tool_use_id") in pending:
                del pending[block["tool_use_id"]]
                results.append(block)
                continue
            counts.orphan_results += 1
            text = formats.block_text(block.get("content")) or EMPTY_TOOL_OUTPUT
            block = {
                "type": "text",
                "text": f"{ORPHAN_TAG} tool output (call {block.get('tool_use_id') or 'none'}) "
                f"whose call is not in the transcript:\n{text}",
            }
        others.append(block)
    entry["message"]["content"] = results + others  # the API wants tool results first


def _no_result(call_id: str) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": NO_RESULT}


def _prepend_results(entry: dict, call_ids: list[str], counts: Counts) -> None:
    content = entry["message"].get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
    entry["message"]["content"] = [_no_result(c) for c in call_ids] + blocks
    counts.orphan_calls += len(call_ids)


def _derived(entry: Mapping, uuid_: str, parent: Any, content: Any, meta: bool = False) -> dict:
    """A new user entry in the style of ``entry`` (its session, cwd and time)."""
    new: dict[str, Any] = {"parentUuid": parent, "isSidechain": False}
    for key in ("userType", "cwd", "sessionId", "version", "gitBranch"):
        if key in entry:
            new[key] = entry[key]
    if meta:
        new["isMeta"] = True
    new.update(type="user", message={"role": "user", "content": content}, uuid=uuid_)
    if "timestamp" in entry:
        new["timestamp"] = entry["timestamp"]
    return new


def _result_entry(last: dict, call_ids: list[str], counts: Counts) -> dict:
    counts.orphan_calls += len(call_ids)
    uuid_ = str(uuid.uuid5(NAMESPACE, "no-result:" + ",".join(call_ids)))
    return _derived(last, uuid_, last.get("uuid"), [_no_result(c) for c in call_ids])


def _with_marker(entries: list[dict], text: str) -> list[dict]:
    at = next((i for i, e in enumerate(entries) if formats.is_conversation_entry(e)), None)
    if at is None:
        return entries
    first = entries[at]
    uuid_ = str(uuid.uuid5(NAMESPACE, f"marker:{first.get('sessionId')}:{first.get('uuid')}"))
    marker = _derived(first, uuid_, first.get("parentUuid"), text, meta=True)
    first["parentUuid"] = uuid_
    return [*entries[:at], marker, *entries[at:]]
