"""Deterministic, inference-free extraction of typed facts (candidates) from session turns."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from memory.graph import failures, labels, paths, phrases
from memory.graph.sentences import Sentence, segment, split_clauses
from memory.graph.types import Candidate, Evidence, NodeType, Status, Turn

MAX_CANDIDATES_PER_TURN = 200  # a pasted log cannot flood the graph
# Set TOKENMIZER_EXTRACTION_STRICT=1 (tests, benchmarks while tuning) to see a rule's exception
# instead of the turn silently yielding nothing.
STRICT = os.environ.get("TOKENMIZER_EXTRACTION_STRICT") == "1"
ADVISORY_BY_RATIO = False
MAX_SIMILAR_PER_WORD = 64  # recent labels sharing a word that a new label is compared with
MAX_OPEN_ERRORS = 64  # open errors a later fix may resolve
MAX_SENTENCES_PER_TURN = 400  # beyond this a message is a paste; its prose is not mined further

_MARKER = re.compile(r"^\s*(?:\*\*)?([A-Za-z][A-Za-z /-]{0,30}?)(?:\*\*)?\s*:(?:\*\*)?\s+(\S.*)$")
_QUESTION = re.compile(r"\?\s*[\"')\]]*$")
_STARTS_DONE_VERB = re.compile(
    r"^(?:(?:i|we)(?:'ve| have)?\s+)?(?:also\s+|just\s+|then\s+|finally\s+)?([a-z]+)(?=\s)"
)
# "that's after I put the setting back": a first-person report a few words into the clause.
_SUBJECT_DONE_VERB = re.compile(
    r"^(?:\S+\s+){0,3}?(?:i|we)(?:'ve| have)?\s+(?:also\s+|just\s+)?([a-z]+)\b(.*)$",
    re.IGNORECASE,
)
_FIX = re.compile(
    r"^(?:(?:i|we)(?:'ve| have)?\s+)?(?:fixed|resolved|solved|patched)\b\s*", re.IGNORECASE
)
_FIXED_STATE = re.compile(
    r"\b(?:is|are|'s|was|were) (?:now )?(?:fixed|resolved)\b|^no more\b", re.IGNORECASE
)
_BY = re.compile(r"\s+(?:by|with|via|through)\s+.*$", re.IGNORECASE)
_PARALLEL_FOR = re.compile(r"^\S.*\s(?:for|in|as|on)\s\S")
_LIST_SPLIT = re.compile(r"\s*;\s*|,\s+(?:and\s+)?|\s+and\s+(?=[A-Z/])")
_FIX_CAUSE = re.compile(r"\s+(?:—|–|--?)\s+(?:was\s+|it was\s+)?(.+)$")
_INLINE_CODE = re.compile(r"`([^`\n]{4,200})`")
# An acknowledgement opening a user's reply: what follows accepts what was proposed.
_ACK = re.compile(
    r"^(?:ok(?:ay)?|fine|sure|right|fair|alright|agreed|so)\b[,.!]?\s+(?:(?:and\s+)?(?:yes|so)\b"
    r"[,]?\s+)?",
    re.IGNORECASE,
)
# An elliptical follow-up adding one more chosen option: "And Coil's disk cache at 250 MB."
_CONTINUATION = re.compile(r"^(?:and|also|plus)\b[,]?\s+", re.IGNORECASE)


@dataclass
class _Seen:
    words: frozenset[str]
    label: str
    status: Status


@dataclass
class _State:
    """What earlier turns left behind: labels per type (for de-duplication) and open errors."""

    # Labels seen, indexed by (type, content word): a near duplicate shares at least one word, so
    # only those are compared, which keeps de-duplication linear in the session's length.
    seen: dict[tuple[NodeType, str], list[_Seen]] = field(default_factory=dict)
    open_errors: list[tuple[str, frozenset[str], int]] = field(default_factory=list)
    # Assistant turns read so far and how many narrated work done, starting from one of each: the
    # first assistant turn gets the benefit of the doubt.
    assistant_turns: int = 1
    narrating_turns: float = 1.0

    def similar(self, node_type: NodeType, words: frozenset[str], share: float) -> _Seen | None:
        checked: set[int] = set()
        for word in sorted(words):
            for s in self.seen.get((node_type, word), ())[-MAX_SIMILAR_PER_WORD:]:
                if id(s) not in checked and labels.near_duplicate(words, s.words, share):
                    return s
                checked.add(id(s))
        return None

    def remember(self, node_type: NodeType, seen: _Seen) -> None:
        for word in seen.words:
            self.seen.setdefault((node_type, word), []).append(seen)
        self.open_errors = self.open_errors[-MAX_OPEN_ERRORS:]


def extract(turns: Sequence[Turn], context: Sequence[Turn] = ()) -> list[Candidate]:
    """Candidates for every fact stated in ``turns``; ``context`` is read, not mined."""
    state = _State()
    for turn in context:
        _safe_turn(turn, state)
    out: list[Candidate] = []
    for turn in turns:
        out.extend(_safe_turn(turn, state))
    return _confirmed(out, turns)


def _confirmed(out: list[Candidate], turns: Sequence[Turn]) -> list[Candidate]:
    """Drop a user's instruction ("use X for Y") when the reply logs the decision in its own words.

    The reply's wording is the one that was carried out, so keeping both would state one fact
    twice, the second time less precisely.
    """
    roles = {t.position: t.role for t in turns}
    decided = {c.evidence.position for c in out if c.type == NodeType.DECISION}
    return [
        c
        for c in out
        if not (
            c.cue.startswith("instruction")
            and roles.get(c.evidence.position + 1) == "assistant"
            and c.evidence.position + 1 in decided
        )
    ]


def _safe_turn(turn: Turn, state: _State) -> list[Candidate]:
    """One turn's candidates; a turn that trips a rule yields nothing instead of failing all."""
    try:
        return _turn(turn, state)[:MAX_CANDIDATES_PER_TURN]
    except Exception:  # noqa: BLE001 - extraction must never break the request path
        if STRICT:
            raise
        return []


def _turn(turn: Turn, state: _State) -> list[Candidate]:
    if not isinstance(turn.content, str) or not turn.content.strip():
        return []
    segs = segment(turn.content)
    out: list[Candidate] = []
    emit = _Emitter(turn, state, out)
    emit.advisory = turn.role != "user" and _advises(segs.sentences, state)
    code_errors = [failures.from_code(b) for b in segs.code_blocks]
    pasted = any(code_errors)
    previous = ""
    for i, sentence in enumerate(segs.sentences[:MAX_SENTENCES_PER_TURN]):
        if turn.role == "user" and turn.position <= 1 and i < 2 and _goal(sentence.text, emit):
            continue
        emit.lead_in = pasted  # the pasted error is the fact; prose around it introduces it
        kind = _sentence(sentence, turn.role, emit, previous)
        previous = "decision" if kind == "decision" or previous == "decision" else kind
    for block, errors in zip(segs.code_blocks, code_errors, strict=True):
        for label, quote in errors:
            emit.error(label, quote, cue="code_error")
        for path in paths.find_paths("\n".join(block), in_code=True):
            emit.add(
                NodeType.FILE, path, Status.COMPLETED, path, cue="code_path", conf=0.8, clean=False
            )
    _references(segs.inline_text, segs.sentences, emit)
    return out


def _references(text: str, sentences: list[Sentence], emit: _Emitter) -> None:
    """Files, endpoints, environment facts and quoted error messages named in the prose."""
    for path in paths.find_paths(text):
        emit.add(
            NodeType.FILE,
            path,
            Status.COMPLETED,
            _quote_for(path, sentences),
            cue="path",
            clean=False,
        )
    for endpoint in paths.find_endpoints(text):
        emit.add(
            NodeType.ENDPOINT,
            endpoint,
            Status.COMPLETED,
            _quote_for(endpoint, sentences),
            cue="endpoint",
            clean=False,
        )
    for m in phrases.ENVIRONMENT.finditer(text):
        emit.add(
            NodeType.ENVIRONMENT,
            m.group(0),
            Status.COMPLETED,
            _quote_for(m.group(0), sentences),
            cue="environment",
            conf=0.7,
            clean=False,
        )
    if emit.advisory:
        return
    for m in _INLINE_CODE.finditer(text):
        if failures.is_error_message(m.group(1)):
            emit.error(
                failures.error_line_label(m.group(1)),
                _quote_for(m.group(1), sentences),
                cue="quoted_error",
            )


def _advises(sentences: list[Sentence], state: _State) -> bool:
    """Whether an assistant turn advises (a consultant) rather than logs or reports (an agent).

    An agent's turn narrates work ("Added X", "Working on Y"), or reports findings in a session
    where the assistant mostly narrates; an adviser addresses the user ("you"), hedges, or
    instructs ("Add a callback ..."). Only an agent's prose is mined beyond explicit markers.
    """
    state.assistant_turns += 1
    if any(_AGENT_LOG.match(s.text) for s in sentences):
        state.narrating_turns += 1
        return False
    if any(_marker_of(s.text) for s in sentences):
        state.narrating_turns += 0.5  # logging state with markers is half-way to an agent's log
    for s in sentences:
        text = labels.strip_leading(s.text)  # "Then set X": the instruction after the filler
        if _ADDRESS.search(text) or phrases.HEDGE.search(text.lower()) or _IMPERATIVE.match(text):
            return True
    return 2 * state.narrating_turns < state.assistant_turns and ADVISORY_BY_RATIO


# Instructions opening an assistant's sentence: advice, not a report.
_IMPERATIVE = re.compile(
    r"^(?:add|use|run|set|put|try|make|keep|pass|point|give|drop|check|call|install|replace|"
    r"switch|move|change|remove|delete|create|write|tell|let|look|pull|cancel|derive|treat|"
    r"split|wrap|read|avoid|upgrade|bump|raise|lower|rebuild|restart|expose|register|enable|"
    r"disable|configure|define|store|send|return|catch|log|test|verify|confirm|double-check|"
    r"don't|do not|never|always|start|stop|skip|mark|note|remember)\b",
    re.IGNORECASE,
)


# Past tenses spelled like the imperative: "Read it with ..." opens advice as often as a report.
_IMPERATIVE_LOOKALIKES = frozenset("read put set cut split run reset".split())
_AGENT_LOG = re.compile(
    r"^(?:I(?:'ve| have)?\s+)?(?:(?:"
    + "|".join(sorted((phrases.DONE_VERBS | phrases.FINDING_VERBS) - _IMPERATIVE_LOOKALIKES))
    + r")\b|working on\b|switching\b|moving\b|going with\b|"
    r"still \w+ing\b|looking at\b|will add\b|starting\b|creating\b|adding\b|set up\b)",
    re.IGNORECASE,
)
_ADDRESS = re.compile(r"\b(?:you|your|you're|you'd|you'll|yours)\b", re.IGNORECASE)


def _goal(text: str, emit: _Emitter) -> bool:
    """The opening statement of intent: a goal, plus the stack it names ("with X and Y")."""
    if _QUESTION.search(text) or not phrases.GOAL.match(text):
        return False
    emit.add(NodeType.GOAL, text, Status.IN_PROGRESS, text, cue="goal", conf=0.8)
    for m in phrases.GOAL_STACK.finditer(text):
        for tech in re.split(r",\s*|\s+and\s+", m.group(1)):
            if len(tech) > 1 and tech.lower() not in _NOT_TECH:
                emit.add(
                    NodeType.DECISION, tech, Status.COMPLETED, text, cue="goal_stack", conf=0.7
                )
    if failures.is_problem(text, "user"):
        emit.error(text, text, cue="goal_problem", conf=0.6)
    return True


_NOT_TECH = frozenset("i we it the a an our my this that no".split())


def _quote_for(needle: str, sentences: list[Sentence]) -> str:
    for s in sentences:
        if needle in s.text:
            return s.text
    return needle


class _Emitter:
    """Builds candidates for one turn, de-duplicating against everything seen so far."""

    def __init__(self, turn: Turn, state: _State, out: list[Candidate]) -> None:
        self.turn, self.state, self.out = turn, state, out
        self.recap = False
        self.advisory = False
        self.lead_in = False
        self.quoted_error = False
        self.after_decision = False
        self.last_error_turn = -1

    def add(
        self,
        node_type: NodeType,
        raw: str,
        status: Status,
        quote: str,
        *,
        cue: str,
        conf: float = 0.75,
        reason: str = "",
        replaces: str = "",
        fixes: str = "",
        clean: bool = True,
    ) -> Candidate | None:
        label = labels.clean(raw) if clean else raw.strip()
        if not labels.is_usable(label):
            return None
        words = labels.content_words(label)
        earlier = self.state.similar(node_type, words, 0.5 if self.recap else 0.8)
        if earlier is not None:
            if not _moves_forward(earlier.status, status):
                return None
            label, earlier.status = earlier.label, status  # same fact, new status: keep its key
        elif not cue.startswith(
            "instruction"
        ):  # an instruction may be dropped for its confirmation later
            self.state.remember(node_type, _Seen(words, label, status))
        c = Candidate(
            type=node_type,
            label=label,
            status=status,
            confidence=conf,
            evidence=Evidence(self.turn.position, quote.strip()[:500]),
            reason=reason,
            replaces=replaces,
            fixes=fixes,
            cue=cue,
        )
        self.out.append(c)
        return c

    def error(self, raw: str, quote: str, cue: str, conf: float = 0.75) -> None:
        c = self.add(NodeType.ERROR, raw, Status.FAILED, quote, cue=cue, conf=conf)
        self.last_error_turn = self.turn.position
        if c is not None and c.status == Status.FAILED:
            words = labels.content_words(c.label)
            self.state.open_errors.append((c.label, words, self.turn.position))

    def fix(self, raw: str, quote: str, cue: str, keep_verb: str = "") -> None:
        """Work that fixes a problem: a completed task, and the error it resolves."""
        cause = _FIX_CAUSE.search(raw)
        obj = raw[: cause.start()] if cause else raw
        if re.match(r"\s*(?:by|with|via|through)\s", obj):  # "Fixed by adding X": the work is X
            work = re.sub(r"^\s*(?:by|with|via|through)\s+", "", obj) if not keep_verb else obj
            target = self._latest_open_error()
            self.add(
                NodeType.TASK,
                f"{keep_verb} {work}".strip(),
                Status.COMPLETED,
                quote,
                cue=cue,
                fixes=target,
            )
            self._resolve(target, quote, cue)
            return
        task_label = labels.clean(obj)
        target = self._open_error_like(labels.content_words(_BY.sub("", task_label)))
        fixes = target or labels.clean(_BY.sub("", obj))
        self.add(
            NodeType.TASK,
            f"{keep_verb} {obj}".strip(),
            Status.COMPLETED,
            quote,
            cue=cue,
            fixes=fixes,
        )
        if target:
            self._resolve(target, quote, cue)
        elif failures.names_problem(obj):
            self.add(NodeType.ERROR, _BY.sub("", obj), Status.COMPLETED, quote, cue=cue)
        if cause and failures.names_problem(cause.group(1), loose=True):
            # "Fixed: X — was missing Y": fixing the cause was the work, and the cause the error.
            self.add(NodeType.TASK, cause.group(1), Status.COMPLETED, quote, cue=cue + "_cause")
            self.add(NodeType.ERROR, cause.group(1), Status.COMPLETED, quote, cue=cue + "_cause")

    def fixed_state(self, clause: str, subject: str, quote: str) -> None:
        target = self._open_error_like(labels.content_words(subject))
        self.add(
            NodeType.TASK,
            clause,
            Status.COMPLETED,
            quote,
            cue="fixed_state",
            fixes=target or labels.clean(subject),
        )
        if target:
            self._resolve(target, quote, "fixed_state")

    def _latest_open_error(self) -> str:
        return self.state.open_errors[-1][0] if self.state.open_errors else ""

    def _resolve(self, label: str, quote: str, cue: str) -> None:
        """Mark an open error resolved. When it is a cause diagnosed in this very turn, the
        symptom reported just before ("the test hangs") is resolved with it."""
        if not label:
            return
        stated_at = next((e[2] for e in self.state.open_errors if e[0] == label), -1)
        self.add(NodeType.ERROR, label, Status.COMPLETED, quote, cue=cue, fixes=label, clean=False)
        self.state.open_errors = [e for e in self.state.open_errors if e[0] != label]
        earlier = [e for e in self.state.open_errors if self.turn.position - 2 <= e[2] < stated_at]
        if stated_at == self.turn.position and earlier:
            symptom = earlier[-1][0]
            self.add(
                NodeType.ERROR,
                symptom,
                Status.COMPLETED,
                quote,
                cue=cue,
                fixes=symptom,
                clean=False,
            )
            self.state.open_errors = [e for e in self.state.open_errors if e[0] != symptom]

    def _open_error_like(self, words: frozenset[str]) -> str:
        """The most recent open error sharing a content word with a fix's object."""
        for label, err_words, _ in reversed(self.state.open_errors):
            if words & err_words - _GENERIC_ERROR_WORDS:
                return label
        return ""


_GENERIC_ERROR_WORDS = frozenset(
    "error errors bug issue problem crash failure fix fixed test tests the now".split()
)
_PROGRESS = {Status.PENDING: 0, Status.IN_PROGRESS: 1, Status.FAILED: 1, Status.COMPLETED: 2}


def _moves_forward(old: Status, new: Status) -> bool:
    """A re-mention matters only when it moves the fact on (planned -> done, open -> fixed)."""
    return _PROGRESS.get(new, 0) > _PROGRESS.get(old, 0)


def _sentence(sentence: Sentence, role: str, emit: _Emitter, previous: str) -> str:
    """Classify one sentence; returns the kind of fact it stated (for elliptical follow-ups)."""
    text = sentence.text
    emit.recap = bool(sentence.heading and phrases.RECAP_HEADINGS.match(sentence.heading)) or bool(
        phrases.RECAP_HEADINGS.match(text)
    )
    marker = _marker_of(text)
    if marker:
        _marked(marker[0], marker[1], text, emit)
        return marker[0]
    if sentence.heading and sentence.in_list:
        kind = _marker_kind(sentence.heading.rstrip(":"))
        if kind:
            _marked(kind, text, text, emit)
            return kind
    if _QUESTION.search(text):
        return ""
    if not emit.advisory and failures.is_error_message(text) and _ERROR_LINE_START.match(text):
        # A pasted message line in prose ("Uncaught ReferenceError: X is not defined").
        emit.error(failures.error_line_label(text), text, cue="quoted_error")
        return "error"
    if role == "user" and _accepts(text, previous):
        body = _CONTINUATION.sub("", _ACK.sub("", text, count=1), count=1)
        _decision(body, text, emit, cue="acceptance", conf=0.65)
        return "decision"
    kind, before = "", ""
    emit.quoted_error = bool(_INLINE_CODE.search(text)) and any(
        failures.is_error_message(m.group(1)) for m in _INLINE_CODE.finditer(text)
    )
    for clause in split_clauses(text):
        # What follows a decision in the same sentence is usually its reason, not a new problem.
        emit.after_decision = kind == "decision"
        if _PRONOUN_SUBJECT.match(labels.strip_leading(clause)) and before:
            # "a char/4 fallback but it is unreachable": the pronoun needs its antecedent.
            clause = text[text.find(before) : text.find(clause) + len(clause)] or clause
        kind = _clause(clause, text, role, emit) or kind
        before = clause
    return kind


_PRONOUN_SUBJECT = re.compile(
    r"^(?:it|it's|this|that|they|which)\s+(?:is|was|are|were|isn't|wasn't)\b", re.IGNORECASE
)


# A line that opens with an exception or error tag, as program output does.
_ERROR_LINE_START = re.compile(
    r"^(?:\w+\s+)?(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b:|"
    r"^(?:fatal error|error|panic|FATAL|ERROR)"
    r"(?:\[\w+\])?:\s"
)


def _accepts(text: str, previous: str) -> bool:
    """A verbless reply that adopts an option: "OK, private bucket with presigned URLs." or, right
    after a decision, "And Coil's disk cache at 250 MB for images."."""
    body = _ACK.sub("", text, count=1)
    if body == text:
        if previous != "decision" or not _CONTINUATION.match(text):  # previous: this turn's
            return False
        body = _CONTINUATION.sub("", text, count=1)
    if len(body.split()) < 3 or phrases.HEDGE.search(body.lower()) or _VERB_LIKE.search(body):
        return False
    low = body.lower()
    deferred = phrases.DEFERRAL.search(low) or phrases.ERROR.search(low)
    # An option is qualified ("bucket with presigned URLs"); a bare noun phrase only names a topic.
    return bool(_QUALIFIED.search(low)) and not (_INTERROGATIVE.match(body) or deferred)


_QUALIFIED = re.compile(
    r"(?<![\w-])(?:with|for|on|at|by|via|in|to|as|per|over|instead|only)(?![\w-])"
)


# Any finite verb or modal: an accepted option is stated without one.
_VERB_LIKE = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|do|does|did|can|will|would|should|'re|'ll|'d|"
    r"works?|looks?|seems?|needs?|wants?|goes|went|got|gets|makes?|says?|said|thinks?|know|"
    r"\w+n't|i|we|you|they|he|she|it|there|this|that|here)\b",
    re.IGNORECASE,
)


def _marker_of(text: str) -> tuple[str, str] | None:
    """The (kind, body) of a "Marker: body" line, or None. A marker sits in the first few words."""
    colon = text.find(":", 0, 40)
    if colon < 0:
        return None
    m = _MARKER.match(text)
    kind = _marker_kind(m.group(1)) if m else ""
    return (kind, m.group(2)) if m and kind else None


def _marker_kind(word: str) -> str:
    key = " ".join(word.lower().split())
    for kind, words in phrases.MARKERS.items():
        if key in words:
            return kind
    first = key.split(" ", 1)[0]
    return "decision" if first in ("decided", "decision") else ""


def _marked(kind: str, body: str, quote: str, emit: _Emitter) -> None:
    """A "Marker: item, item" line: each item is a fact of the marker's kind."""
    body = body.strip()
    for item in _marker_items(kind, body, emit.recap):
        if kind in ("pending", "in_progress") and _only_paths(item):
            continue  # "Working on: a.ts, b.ts" names files; path detection keeps them
        if kind == "decision":
            _decision(item, quote, emit, cue="marker_decision", conf=0.9)
        elif kind == "fixed":
            emit.fix(item, quote, cue="marker_fixed")
        elif kind == "completed":
            emit.add(NodeType.TASK, item, Status.COMPLETED, quote, cue="marker_completed", conf=0.9)
        elif kind == "pending":
            emit.add(NodeType.TASK, item, Status.PENDING, quote, cue="marker_pending", conf=0.9)
        elif kind == "in_progress":
            emit.add(
                NodeType.TASK, item, Status.IN_PROGRESS, quote, cue="marker_in_progress", conf=0.9
            )
        elif kind == "error":
            emit.error(item, quote, cue="marker_error", conf=0.9)
        # "files" markers carry only paths, which path detection already takes.


def _marker_items(kind: str, body: str, recap: bool) -> list[str]:
    """Items of a marker body: a semicolon list always; a comma list only when it is one."""
    if kind == "files":
        return []
    parts = [p for p in re.split(r"\s*;\s*", body) if p.strip()]
    items: list[str] = []
    for part in parts:
        commas = [p for p in _LIST_SPLIT.split(part) if p.strip()]
        if len(commas) > 1 and _is_list(commas, kind, recap):
            items.extend(
                _ROUTE_ASIDE.sub("", c) if paths.is_endpoint(_ROUTE_ASIDE.sub("", c)) else c
                for c in commas
            )
        else:
            items.append(part)
    return items


_ROUTE_ASIDE = re.compile(
    r"\s*\([^)]*\)[\s.;,]*$"
)  # "POST /login (returns JWT)": the route is the item


def _is_list(items: list[str], kind: str, recap: bool) -> bool:
    """Whether comma-separated pieces are parallel items rather than one elaborated item.

    After a marker, a comma usually elaborates the item ("Completed: X, all tests pass"); it
    separates items when they are all routes or paths, when each is an "A for B" choice, or in a
    recap, whose lines are lists by construction.
    """
    if all(
        paths.is_endpoint(i.split(" (")[0]) or paths.find_paths(i) == [i.strip()] for i in items
    ):
        return True
    if kind == "decision" and all(_PARALLEL_FOR.match(i) and len(i.split()) >= 3 for i in items):
        return True
    return recap and all(len(i.split()) <= 8 for i in items)


# Questions people type without a question mark ("what else is slow", "any idea what changed").
_INTERROGATIVE = re.compile(
    r"^(?:what|what's|how|why|where|which|who|when|does|do|did|is|are|can|could|should|would|"
    r"will|any|anything|has|have|isn't|aren't|shall)\b",
    re.IGNORECASE,
)
# An instruction: a clause opening with a bare choosing verb ("Use X", "Switch to Y", "Let's use").
_INSTRUCTION = re.compile(
    r"^(?:let's\s+|please\s+)?(?:use|switch|go with|pick|choose|keep|stick|move|drop)\b",
    re.IGNORECASE,
)
# A verb of touching files followed only by paths: the paths are the facts, not a task.
_PATH_VERB = re.compile(
    r"^(?:(?:also\s+)?(?:updated?|updating|created?|creating|add(?:ed|ing)?|modif(?:y|ied)|"
    r"edit(?:ed)?|chang(?:e|ed)|touch(?:ed)?|wrote|writ(?:e|ing)|will add|working on|"
    r"files? (?:updated|touched)))\s+",
    re.IGNORECASE,
)


def _only_paths(text: str) -> bool:
    """Whether a clause names nothing but files ("Updated src/a.ts and b.json")."""
    rest = _PATH_VERB.sub("", text.strip(), count=1)
    rest = re.sub(r"\b(?:the|and|both|file|files|also|a|new)\b|[,`]", " ", rest)
    words = rest.split()
    return bool(words) and all(paths.find_paths(w) for w in words)


def _clause(clause: str, sentence: str, role: str, emit: _Emitter) -> str:
    """Classify one plain-language clause by its predicate; returns the kind of fact, if any."""
    clause = clause.rstrip(" :")
    low = clause.lower()  # the lexicons match lower-cased text
    stripped = labels.strip_leading(clause)
    if not stripped or _INTERROGATIVE.match(stripped):
        return ""
    if _hedged(clause, role):
        return ""
    if role != "user" and sentence.rstrip().endswith(":") and not _AGENT_LOG.match(sentence):
        return ""  # an assistant line introducing code or a list describes, it does not report
    if _SEQUENCING.match(stripped):
        return ""  # "I'll start with Apple": the order of work, not a piece of it
    reported = bool(phrases.REPORTED.search(low))
    if _FIX.match(stripped):
        if not emit.advisory:
            verb = "Fixed" if role == "user" else ""
            emit.fix(_FIX.sub("", stripped) or stripped, sentence, cue="fix_verb", keep_verb=verb)
        return "completed"
    state = _FIXED_STATE.search(stripped) if role == "user" else None
    if state:  # "the double-booking bug is fixed": the clause is the task, its subject the error
        emit.fixed_state(stripped, stripped[: state.start()], sentence)
        return "completed"
    if failures.is_strong_problem(clause) and _may_state_problem(role, emit):
        emit.error(failures.problem_label(clause), sentence, cue="problem", conf=0.7)
        return "error"
    if emit.advisory:
        return ""
    if reported:
        return _problem(clause, sentence, role, emit)
    if phrases.DEFERRAL.search(low):
        return _pending(stripped, clause, sentence, emit)
    chooses = phrases.DECISION.search(low) or phrases.DECISION_CASED.search(clause)
    if role == "user" and _JUSTIFIED_CHOICE.match(stripped):
        chooses = True  # "LoRA because I only have the one 4090": a bare option with its reason
    if role == "user" and _CONCLUDING_IMPERATIVE.match(clause):
        chooses = True  # "so buffer them and flush every second": the user settles the options
    if chooses and _decides(stripped, role) and not _MEASUREMENT.search(low):
        cue = "instruction" if role == "user" and _INSTRUCTION.match(stripped) else "choice_verb"
        _decision(clause, sentence, emit, cue=cue, conf=0.7)
        return "decision"
    if phrases.PENDING.search(low) or phrases.PENDING_CASED.search(clause):
        return _pending(stripped, clause, sentence, emit)
    done = _reports_done(stripped, clause, role)
    if done:
        if not _only_paths(done):
            emit.add(NodeType.TASK, done, Status.COMPLETED, sentence, cue="done", conf=0.7)
        return "completed"
    return _problem(clause, sentence, role, emit)


def _problem(clause: str, sentence: str, role: str, emit: _Emitter) -> str:
    if emit.quoted_error or emit.after_decision:
        return ""  # the quoted message is the error; a decision's reason is not a new problem
    if role == "user" and _REQUEST.match(labels.strip_leading(clause)):
        return ""  # "Look at the corrupt-database recovery path" asks for work, it reports nothing
    if emit.last_error_turn == emit.turn.position and _RATE.search(clause):
        return ""  # "Roughly one in four runs fails" measures the problem just stated
    if failures.is_problem(clause, role, agent=True) and _may_state_problem(role, emit):
        emit.error(failures.problem_label(clause), sentence, cue="problem", conf=0.65)
        return "error"
    return ""


# Requests to look into something, which name a problem area without stating a problem.
_REQUEST = re.compile(
    r"^(?:look at|look into|check|investigate|debug|find out|figure out|review|audit|fix|help|"
    r"can you|could you|please)\b",
    re.IGNORECASE,
)
# How often a problem happens: a measurement of a problem, not another one.
_RATE = re.compile(
    r"\b(?:one in (?:\w+)|\d+ (?:in|out of) \d+|\d+ ?(?:%|percent)|half|a third|"
    r"a quarter|roughly|about|every (?:other|\w+ (?:run|time)))\b",
    re.IGNORECASE,
)


# Stating the order of work: "I'll start with Apple", "let's start in the handler".
_SEQUENCING = re.compile(
    r"^(?:start|starting|begin|beginning|first)\s+(?:with|in|on|by|from)\b", re.IGNORECASE
)
# A measurement, not a choice: "the build now takes 14 minutes instead of 4".
# A short verbless noun phrase followed by its reason.
_JUSTIFIED_CHOICE = re.compile(r"^(?:[\w.+#@/-]+\s+){0,2}[\w.+#@/-]+\s+(?:because|since)\s+\w")
_MEASUREMENT = re.compile(r"\b(?:takes?|took|taking|went from|is at|are at|dropped|rose)\b[^.;]*\d")
# "so buffer them and flush every second": a user concluding with an instruction.
_CONCLUDING_IMPERATIVE = re.compile(
    r"^(?:so|then|ok so|okay so)\s+(?!i\b|we\b|you\b|it\b|they\b|that\b|this\b|the\b|there\b|"
    r"what\b|how\b|if\b|far\b|much\b|yeah\b|yes\b)[a-z]+\s+(?:them|it|the|a|an|all|every|each|"
    r"both)\b",
    re.IGNORECASE,
)


def _hedged(clause: str, role: str) -> bool:
    """Suggestions and hypotheticals; a user's stated preference ("I'd rather X") still counts."""
    if role == "user":
        low = clause.lower()
        return bool(phrases.USER_HEDGE.search(low)) and not phrases.USER_PREFERENCE.search(clause)
    return bool(phrases.HEDGE.search(clause.lower()))


def _may_state_problem(role: str, emit: _Emitter) -> bool:
    """A pasted error is the fact; the sentence leading into it ("it blows up:") is not another."""
    return not emit.lead_in and (role == "user" or not emit.advisory)


def _pending(stripped: str, clause: str, sentence: str, emit: _Emitter) -> str:
    status = Status.IN_PROGRESS if phrases.IN_PROGRESS.search(clause) else Status.PENDING
    if not _only_paths(stripped):
        emit.add(NodeType.TASK, stripped, status, sentence, cue="deferral", conf=0.7)
    return "pending"


def _decides(stripped: str, role: str) -> bool:
    """Assistants propose; their clauses decide only when narrated as done ("Switching to X")."""
    if role == "user":
        return True
    return bool(_ASSISTANT_DECIDES.match(stripped))


# How an assistant narrates a choice as made rather than proposed.
_ASSISTANT_DECIDES = re.compile(
    r"(?:switching|moving|going with|went with|decid|chose|picked|opted|settled|sticking|roll|"
    r"concluded|agreed|root cause is|owner is|the requirement is|cutting|descop)",
    re.IGNORECASE,
)


def _reports_done(stripped: str, clause: str, role: str) -> str:
    """The label of a clause reporting finished work, or "" when it reports none."""
    m = _STARTS_DONE_VERB.match(stripped.lower())
    if m and m.group(1) in phrases.DONE_VERBS and len(stripped.split()) >= 2:
        return stripped
    inner = _SUBJECT_DONE_VERB.search(clause)
    if inner and inner.group(1).lower() in phrases.DONE_VERBS and len(inner.group(2).split()) >= 1:
        return f"{inner.group(1)}{inner.group(2)}"
    # An assistant saying "tests pass now" confirms its own work; a user saying it reports progress.
    # "it went out this morning" says so of something named before, which already has its label.
    if role == "user" and phrases.DONE_STATE.search(clause.lower()) and len(stripped.split()) >= 2:
        return "" if _PRONOUN_START.match(stripped) else stripped
    return ""


# A parenthetical in words (a reason), as opposed to identifiers or values.
_PROSE_ASIDE = re.compile(r"[A-Za-z][A-Za-z' —–-]*(?:\s[A-Za-z' —–-]+)+")

_PRONOUN_START = re.compile(
    r"^(?:it|it's|they|he|she)\b|^(?:this|that|these|those)\s+(?:is|was|are|were|went|has|have)\b",
    re.IGNORECASE,
)

# An evaluative tail after the choice ("..., less magic", "..., D3 felt like overkill").
_JUDGEMENT_TAIL = re.compile(
    r",\s+((?:[^,]*\b)?(?:overkill|too \w+|simpler|easier|faster|cheaper|safer|smaller|lighter|"
    r"less \w+|more \w+|better|cleaner|heavier|annoying|a pain|overhead|fewer \w+|no \w+ needed)"
    r"[^,]*)$",
    re.IGNORECASE,
)

_FROM_TO = re.compile(
    r"\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|go(?:ing)?|went|chang(?:e|ed|ing))"
    r"(?: \w+)? from\s+(.+?)\s+to\s+(.+)$",
    re.IGNORECASE,
)


def _decision(text: str, quote: str, emit: _Emitter, cue: str, conf: float) -> None:
    """A decision with the reason and the replaced option the text gives."""
    reason = ""
    m = phrases.REASON.search(text) or phrases.REASON.search(quote)
    if m:
        reason = labels.clean(m.group(1))
        head = text[: m.start()] if phrases.REASON.search(text) else text
        if len(labels.strip_leading(head).split()) >= 2:
            text = head  # "LoRA because ...": a one-word choice keeps its reason in the label
    dash = re.search(r"\s+(?:—|–|--?)\s+(.+)$|\s+\(([^)]+)\)\s*\.?$", text)
    if dash and dash.group(2) and not _PROSE_ASIDE.fullmatch(dash.group(2)):
        dash = None  # "(room_id, slot_start)" is part of the choice, not a reason
    if dash:
        reason = reason or labels.clean(dash.group(1) or dash.group(2))
        text = text[: dash.start()]
    replaces = ""
    r = phrases.REPLACES.search(text)
    if r:
        replaces = labels.clean(next(g for g in r.groups() if g))
        if re.match(r"\s*,?\s*replacing\b", text[r.start() :], re.IGNORECASE):
            text = text[: r.start()]
    tail = _JUDGEMENT_TAIL.search(text)
    if tail:  # "went with chi, D3 felt like overkill": the judgement after the comma is the reason
        reason = reason or labels.clean(tail.group(1))
        text = text[: tail.start()]
    move = _FROM_TO.search(text)
    if move:
        # "Switching from X to Y": X was the decision in force until now, Y replaces it.
        replaces = labels.clean(move.group(1))
        emit.add(
            NodeType.DECISION, move.group(1), Status.COMPLETED, quote, cue=cue + "_old", conf=conf
        )
        text = move.group(2)
    emit.add(
        NodeType.DECISION,
        text,
        Status.COMPLETED,
        quote,
        cue=cue,
        conf=conf,
        reason=reason,
        replaces=replaces,
    )
