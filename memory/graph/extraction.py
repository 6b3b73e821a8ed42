"""Deterministic, inference-free extraction of typed facts (candidates) from session turns."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from memory.graph import (
    clauses,
    decisions,
    failures,
    labels,
    learned,
    markers,
    paths,
    phrases,
    speakers,
)
from memory.graph.candidates import Emitter, Offer, SessionState
from memory.graph.prefilter import Guarded, Twin
from memory.graph.sentences import Segments, Sentence, segment, split_clauses
from memory.graph.types import Candidate, NodeType, Status, Turn

MAX_CANDIDATES_PER_TURN = 200  # a pasted log cannot flood the graph
MAX_SENTENCES_PER_TURN = 400  # beyond this a message is a paste; its prose is not mined further
# Set TOKENMIZER_EXTRACTION_STRICT=1 (tests, benchmarks while tuning) to see a rule's exception
# instead of the turn silently yielding nothing.
STRICT = os.environ.get("TOKENMIZER_EXTRACTION_STRICT") == "1"

_QUESTION = re.compile(r"\?\s*[\"')\]]*$")
# Work asked for as a question, for later: "Can you also add retries to the client when you get
# a chance?" is a task to track; "Can you fix X?" is done in the next reply, "Can you explain X?"
# asks for an answer.
_LATER_REQUEST = re.compile(
    r"^(?:(?:ok|okay|so|and|also)[,]?\s+)?(?:can|could|would) you (?:also |please |maybe |then )*"
    r"(\w.+?),?\s+(?:when you (?:get|have) (?:a|the) (?:chance|moment|minute)|at some point|"
    r"later(?: on)?|sometime(?: soon)?|eventually)(?:,? (?:too|as well|please))?\?\s*[\"')\]]*$",
    re.IGNORECASE,
)
# A short question tagged onto a statement: "..., any idea?", "..., right?".
_TAG_QUESTION = re.compile(r",\s*(?:\S+\s+){0,4}\S+\?\s*$")
_DIGIT = Twin(re.compile(r"\d"))
_DIGIT_BYTES = bytes(range(ord("0"), ord("9") + 1))
_INLINE_CODE = re.compile(r"`([^`\n]{4,200})`")
_STACK_SPLIT = re.compile(r",\s*|\s+and\s+")
_NOT_TECH = frozenset("i we it the a an our my this that no".split())
# "a char/4 fallback but it is unreachable": a clause whose subject points back.
# "that" points back only as the subject of a verb: "but that can wait", not "that file went in".
_PRONOUN_SUBJECT = re.compile(
    r"^(?:it|it's|this|they)\s+\w|^that\s+(?:can|will|could|should|needs?|is|was|has)\b",
    re.IGNORECASE,
)
# A clause saying the one before cannot be explained: "..., no idea how", "..., not sure why".
_UNEXPLAINED = Guarded(
    re.compile(
        r",\s+(?:and\s+)?(?:no idea|not sure|(?:i\s+)?(?:don't|do not) know|(?:i\s+)?can't tell|"
        r"dunno)\s+(?:how|why)(?:\s+(?:though|honestly|lol))?\s*[.!]*$",
        re.IGNORECASE,
    ),
    ("no idea", "not sure", "know", "can't tell", "dunno"),
    lower=True,
)
# A line that opens with an exception or error tag, as program output does.
_ERROR_LINE_START = re.compile(
    r"^(?:\w+\s+)?(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b:|"
    r"^(?:fatal error|error|panic|FATAL|ERROR)(?:\[\w+\])?:\s"
)


def extract(turns: Sequence[Turn], context: Sequence[Turn] = ()) -> list[Candidate]:
    """Candidates for every fact stated in ``turns``; ``context`` is read, not mined."""
    state = SessionState()
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
    decision = NodeType.DECISION  # read once: an enum member costs a class attribute lookup
    decided = {c.evidence.position for c in out if c.type == decision}

    def superseded_by_reply(c: Candidate) -> bool:
        reply = c.evidence.position + 1
        return (
            c.cue.startswith("instruction")
            and roles.get(reply) == "assistant"
            and (reply in decided)
        )

    return [c for c in out if not superseded_by_reply(c)]


def _safe_turn(turn: Turn, state: SessionState) -> list[Candidate]:
    """One turn's candidates; a turn that trips a rule yields nothing instead of failing all."""
    try:
        return _turn(turn, state)[:MAX_CANDIDATES_PER_TURN]
    except Exception:  # noqa: BLE001 - extraction must never break the request path
        if STRICT:
            raise
        return []


def _turn(turn: Turn, state: SessionState) -> list[Candidate]:
    if not isinstance(turn.content, str) or not turn.content.strip():
        return []
    segs = segment(turn.content)
    out: list[Candidate] = []
    emit = Emitter(turn, state, out)
    emit.advisory = turn.role != "user" and speakers.advises(segs.sentences)
    code_errors = [failures.from_code(b) for b in segs.code_blocks]
    pasted_error = any(code_errors)
    decided = False
    for i, sentence in enumerate(segs.sentences[:MAX_SENTENCES_PER_TURN]):
        # The pasted error is the fact; the sentence leading into it ("it blows up:") is not
        # another, but a problem stated elsewhere in the message is.
        emit.lead_in = pasted_error and sentence.text.rstrip().endswith(":")
        if turn.role == "user" and turn.position <= 1 and i < 2 and _goal(sentence.text, emit):
            continue
        stated = len(out)
        decided = _sentence(sentence, turn.role, emit, decided) == "decision" or decided
        if turn.role == "user" and len(out) == stated and not emit.lead_in:
            _likely(sentence.text, emit)
    for block, errors in zip(segs.code_blocks, code_errors, strict=True):
        for label, quote in errors:
            emit.error(label, quote, cue="code_error")
        for path in paths.find_paths("\n".join(block), in_code=True):
            line = next((ln.strip() for ln in block if path in ln), path)  # the line naming it
            emit.add(
                NodeType.FILE, path, Status.COMPLETED, line, cue="code_path", conf=0.8, clean=False
            )
    _references(segs, emit)
    if turn.role == "assistant":
        state.offer = Offer(
            segs.inline_text, [s.text for s in segs.sentences[:MAX_SENTENCES_PER_TURN]]
        )
    return decisions.without_restatements(out)


def _likely(text: str, emit: Emitter) -> None:
    """A decision, a problem or work in a user's sentence that no rule read anything in, where
    the learned lexicon sees one ("the totals on the summary tab are a few cents off every month").

    What the rules know to state none is not read: a question, a hedge ("maybe the cache is
    stale"), a choice left open ("we haven't decided if ..."), things getting better ("the page
    got faster after the index"); a quoted error message is the error itself, and talk about
    problems ("fails the build when ...", "restart it if it looks stuck") is none; a request to
    the assistant, a lead-in or a question without its mark is no work.
    """
    kinds = learned.stated(text, emit.turn.position)
    if (
        not kinds
        or ("?" in text and _QUESTION.search(text))
        or clauses.hedged(text, "user")
        or phrases.UNSETTLED.search(text)
        or _IMPROVED.search(text)
    ):
        return
    if "decisions" in kinds:
        emit.add(
            NodeType.DECISION, text, Status.COMPLETED, text, cue=learned.CUE, conf=LIKELY_CONFIDENCE
        )
    if (
        "errors" in kinds
        and not _quotes_error(text)
        and not phrases.ERROR_META.search(text.lower())
    ):
        emit.error(text, text, cue=learned.CUE, conf=LIKELY_CONFIDENCE)
    if (
        text.rstrip().endswith(":")
        or _WH_OPENING.match(labels.strip_filler(text))
        or clauses.asks(text)
    ):
        return  # "Here's the log:", "what did the first run show", "please look at X": no work
    if "completed_tasks" in kinds:
        emit.task(text, Status.COMPLETED, text, cue=learned.CUE, conf=LIKELY_CONFIDENCE)
    elif "pending_tasks" in kinds:
        emit.task(text, Status.PENDING, text, cue=learned.CUE, conf=LIKELY_CONFIDENCE)


_WH_OPENING = re.compile(r"^(?:what|what's|how|why|where|which|who)\b", re.IGNORECASE)


_IMPROVED = re.compile(
    r"\b(?:got|gets|is|are|was|were|runs?|loads?|feels?)\s+(?:much\s+|a\s+lot\s+|way\s+|far\s+)?"
    r"(?:faster|quicker|better|smoother|snappier)\b",
    re.IGNORECASE,
)


def _quotes_error(text: str) -> bool:
    """Whether the sentence quotes an error message in backticks (the message is the error)."""
    return "`" in text and any(
        failures.is_error_message(m.group(1)) for m in _INLINE_CODE.finditer(text)
    )


LIKELY_CONFIDENCE = 0.6  # above the validator's floor, below most rules' own


def _references(segs: Segments, emit: Emitter) -> None:
    """Files, endpoints, environment facts and quoted error messages named in the prose."""
    text, sentences = segs.inline_text, segs.sentences
    named = [(NodeType.FILE, p, "path", 0.75) for p in paths.find_paths(text)]
    named += [(NodeType.ENDPOINT, e, "endpoint", 0.75) for e in paths.find_endpoints(text)]
    if _holds_digit(text):  # every environment fact has a version or a model number
        named += [
            (NodeType.ENVIRONMENT, m.group(0), "environment", 0.7)
            for m in phrases.ENVIRONMENT.finditer(text)
        ]
    for node_type, label, cue, conf in named:
        emit.add(
            node_type,
            label,
            Status.COMPLETED,
            _quote_for(label, sentences),
            cue=cue,
            conf=conf,
            clean=False,
        )
    if emit.advisory:
        return
    for m in _INLINE_CODE.finditer(text) if "`" in text else ():
        if failures.is_error_message(m.group(1)):
            emit.error(
                failures.error_line_label(m.group(1)),
                _quote_for(m.group(1), sentences),
                cue="quoted_error",
            )


def _holds_digit(text: str) -> bool:
    r"""Whether ``text`` holds a digit (``\d``). An ASCII text does when deleting the digits
    from its bytes shortens them: a table lookup per character, cheaper than the regex scan."""
    if text.isascii():
        return len(text.encode("ascii").translate(None, _DIGIT_BYTES)) != len(text)
    return _DIGIT.search(text) is not None


def _goal(text: str, emit: Emitter) -> bool:
    """The opening statement of intent: a goal, plus the stack it names ("with X and Y")."""
    if ("?" in text and _QUESTION.search(text)) or not phrases.GOAL.match(text):
        return False
    emit.add(NodeType.GOAL, text, Status.IN_PROGRESS, text, cue="goal", conf=0.8)
    for m in phrases.GOAL_STACK.finditer(text):
        for tech in _STACK_SPLIT.split(m.group(1)):
            if len(tech) > 1 and tech.lower() not in _NOT_TECH:
                emit.add(
                    NodeType.DECISION, tech, Status.COMPLETED, text, cue="goal_stack", conf=0.7
                )
    if failures.is_problem(text, "user"):
        emit.error(text, text, cue="goal_problem", conf=0.6)
    return True


def _quote_for(needle: str, sentences: list[Sentence]) -> str:
    for s in sentences:
        if needle in s.text:
            return s.text
    return needle


def _sentence(sentence: Sentence, role: str, emit: Emitter, decided_before: bool) -> str:
    """Emit the facts of one sentence; returns the kind of the last one (for follow-ups)."""
    text = sentence.text
    heading = sentence.heading if sentence.in_list else ""
    emit.recap = bool(
        (heading and phrases.RECAP_HEADINGS.match(heading)) or phrases.RECAP_HEADINGS.match(text)
    )
    marker = markers.marker_of(text)
    if marker is None and heading and markers.kind_of(heading.rstrip(":")):
        marker = (markers.kind_of(heading.rstrip(":")), text)  # a list item under "Decided:"
    if marker:
        markers.marked(marker[0], marker[1], text, emit)
        return marker[0]
    if "?" in text and _QUESTION.search(text):  # the substring test first: most are no question
        request = _LATER_REQUEST.match(text) if role == "user" else None
        if request:
            emit.task(request.group(1), Status.PENDING, text, cue="request")
            return "pending"
        tag = _TAG_QUESTION.search(text)
        if not tag:
            return ""
        text = text[: tag.start()]  # "X returns 502 behind nginx, any idea?": X is stated
    if (
        not emit.advisory
        and ":" in text  # both openings of an error line end with a colon: a cheaper test first
        and _ERROR_LINE_START.match(text)
        and failures.is_error_message(text)
    ):
        # A pasted message line in prose ("Uncaught ReferenceError: X is not defined").
        emit.error(failures.error_line_label(text), text, cue="quoted_error")
        return "error"
    if emit.advisory:
        return ""  # an assistant advising states no fact in its prose, only in its markers
    if role == "user" and decisions.accepts(text, decided_before):
        decisions.decision(decisions.accepted_option(text), text, emit, cue="acceptance", conf=0.65)
        return "decision"
    kind = _clauses(text, role, emit)
    if role == "user" and kind != "decision" and decisions.adopts(text, emit):
        return "decision"  # "ok, do that": what the assistant proposed is decided
    return kind


def _clauses(text: str, role: str, emit: Emitter) -> str:
    kind, before, last = "", "", ""
    emit.quoted_error = _quotes_error(text)
    said = failures.message_said(text, role) if not emit.quoted_error else ""
    if said:
        emit.error(said, text, cue="quoted_error")
        emit.quoted_error = True
    announced = announced_choice = False
    count_before = len(emit.out)
    for clause in split_clauses(text):
        # What follows a decision in the same sentence is usually its reason, not a new problem.
        emit.after_decision = kind == "decision"
        if role == "user" and _announces(clause, text):
            announced = True  # "One problem: X": X is the problem, whatever its verb
            continue
        if role == "user" and _heads_a_choice(clause, text):
            announced_choice = (
                True  # "Verdict: Hetzner", "Final: 3 tiers" (a plan is no choice yet)
            )
            continue
        if announced_choice:
            announced_choice = False
            decisions.decision(clause, text, emit, cue="announced", conf=0.7)
            kind = before = "decision"
            continue
        own = clause
        if before and _PRONOUN_SUBJECT.match(labels.strip_leading(clause)):
            # "a char/4 fallback but it is unreachable": the pronoun needs its antecedent.
            clause = text[text.find(before) : text.find(clause) + len(clause)] or clause
        count = len(emit.out)
        if role == "user" and before and kind != "decision" and _THATS_THE_CHOICE.match(clause):
            # "the simplest is to just cron it, so that's what we'll do": the clause before.
            decisions.decision(before, text, emit, cue="taken_up", conf=0.7)
            kind = "decision"
            continue
        found = (
            clauses.continued_plan(clause, text, emit)
            if role == "user" and last == "pending"
            else ""
        ) or clauses.classify(clause, text, role, emit)
        if own != clause and found not in ("error", "decision"):
            # "I wrote the query but it's giving me error": the antecedent's own fact is not all.
            found = clauses.pointed_problem(own, clause, text, role, emit) or found
        if announced and not found and len(emit.out) == count:
            condition = _CONDITION_FIRST.match(clause)
            if condition and "," not in clause:
                before = clause  # "New problem: when I save. X.": X is the problem
                continue
            # "New problem: if I drag the window, X": X is the problem, not its condition.
            stated = clause.split(",", 1)[1].strip() if condition else clause
            found = clauses.announced_problem(stated, text, role, emit)
        announced = False
        if emit.after_decision and not found and len(emit.out) == count:
            _give_reason(emit, clause)
        kind = found or kind
        before, last = clause, found
    if role == "user" and not kind and len(emit.out) == count_before and _may_end_unexplained(text):
        kind = _unexplained(text, role, emit)
    return kind


_CONDITION_FIRST = re.compile(r"^(?:if|when|whenever|once|every\s+time)\s", re.IGNORECASE)


def _may_end_unexplained(text: str) -> bool:
    """A substring test cheaper than `_UNEXPLAINED`: the sentence ends as "no idea how" ends."""
    return text.rstrip(" .!").endswith(("how", "why", "though", "honestly", "lol"))


def _unexplained(text: str, role: str, emit: Emitter) -> str:
    """ "One quiz was marked as extra credit, no idea how": what nobody can explain went wrong."""
    m = _UNEXPLAINED.search(text)
    return clauses.announced_problem(text[: m.start()], text, role, emit) if m else ""


# A clause taking up the option the clause before it named: "..., so that's what we'll do".
_THATS_THE_CHOICE = re.compile(
    r"^(?:so,?\s+|and\s+)?(?:that's|that\s+is|this\s+is)\s+(?:what|how)\s+(?:we'll|we\s+will|"
    r"we're\s+going\s+to|i'll|i\s+will|we're|we\s+are)\s+(?:do|doing|go\s+with|going\s+with|"
    r"use|using)\b|^(?:so,?\s+|and\s+)?(?:that's|that\s+is)\s+the\s+plan\b",
    re.IGNORECASE,
)
_CHOICE_HEADING = re.compile(
    r"^(?:so,?\s+|ok,?\s+)?(?:the\s+|my\s+|our\s+)?(?:final|decision|verdict|conclusion|choice|"
    r"call|final answer|outcome|resolution|decided|consensus|(?:new\s+)?rule|"
    # "New title: X", "One more change: X", "Lockers are settled: X", "Chef and I agreed the mains: X"
    r"new\s+(?:title|name|price|date|venue|plan|time|schedule)|(?:one\s+more|another|last)\s+change|"
    r"(?!nothing\b|none\b)(?:[\w-]+\s+){1,3}(?:is|are)\s+(?:now\s+)?(?:settled|decided|agreed|final)|"
    r"(?:(?:the\s+)?team|we|everyone|all|i|[\w-]+\s+and\s+i)\s+agreed(?:\s+on)?"
    r"(?:\s+the\s+[\w-]+(?:\s+[\w-]+)?)?)$",
    re.IGNORECASE,
)


def _heads_a_choice(clause: str, sentence: str) -> bool:
    """ "Final: 3 tiers, 9/29/99.": a word heading the choice that the text after its colon states."""
    if len(clause) > 40 or not _CHOICE_HEADING.match(clause.strip()):
        return False
    end = sentence.find(clause) + len(clause)
    return sentence[end : end + 1] == ":"


def _announces(clause: str, sentence: str) -> bool:
    """ "Next problem: X": a clause announcing the problem the text after its colon states."""
    end = sentence.find(clause) + len(clause)
    return sentence[end : end + 1] == ":" and failures.announces_problem(clause)


def _give_reason(emit: Emitter, clause: str) -> None:
    """ "Going with X; the old setup let a broken model through": the clause after a decision that
    states nothing else is the decision's reason, when the decision gave none."""
    decision = next((c for c in reversed(emit.out) if c.type == NodeType.DECISION), None)
    if decision is not None and not decision.reason and len(clause.split()) >= 3:
        decision.reason = labels.clean(clause)
