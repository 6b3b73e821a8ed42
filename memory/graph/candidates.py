"""A session's candidates as they are built: de-duplication, status moves, fixes closing errors."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from memory.graph import failures, labels, learned, words
from memory.graph.types import Candidate, Evidence, NodeType, Status, Turn

MAX_SIMILAR_PER_WORD = 64  # recent labels sharing a word that a new label is compared with
MAX_OPEN_ERRORS = 64  # open errors a later fix may resolve
_RECENT_TURNS = 4  # how far back "works now" may reach for the problem it ends
_VAGUE_SUBJECTS = frozenset("everything all things stuff".split())  # "it" is no content word
_GENERIC_STEMS = frozenset("build run job test work".split())  # any build is no one build

_BY = re.compile(r"\s+(?:by|with|via|through)\s+.*$", re.IGNORECASE)
_LEADING_BY = re.compile(r"^\s*(?:by|with|via|through)\s+", re.IGNORECASE)
_FIX_CAUSE = re.compile(r"\s+(?:—|–|--?)\s+(?:was\s+|it was\s+)?(.+)$")
# Words every error label may share; a fix names its error by the other ones.
_GENERIC_ERROR_WORDS = frozenset(
    "error errors bug issue problem crash failure fix fixed test tests the now".split()
)
# The session's opening message sets the scene: what is already done and what is coming are its
# background ("we already run X", "the launch is next month"), and what it asks for is the goal.
# Only work it marks ("TODO: …", "Done: …") is a task of the session.
_SETTING_THE_SCENE = frozenset({"deferral", "done"})
_PROGRESS = {Status.PENDING: 0, Status.IN_PROGRESS: 1, Status.FAILED: 1, Status.COMPLETED: 2}


@dataclass
class Seen:
    words: frozenset[str]
    label: str
    status: Status
    likely: bool = False  # only the learned lexicon has read it so far


@dataclass
class OpenError:
    label: str
    words: frozenset[str]
    position: int  # the turn that stated it


class Offer:
    """An assistant turn as options a user may take or turn down; read only when a reply needs it."""

    def __init__(self, text: str, statements: list[str]) -> None:
        self.text, self.statements = text, statements  # statements: the turn's sentences, in order

    @cached_property
    def words(self) -> frozenset[str]:
        return labels.content_words(self.text)

    def names(self, words: frozenset[str]) -> bool:
        """Whether most of ``words`` were in the turn."""
        return bool(words) and sum(w in self.words for w in words) * 2 >= len(words)


@dataclass
class SessionState:
    """What earlier turns left behind: labels per type (for de-duplication) and open errors."""

    # Labels seen, indexed by (type, content word): a near duplicate shares at least one word, so
    # only those are compared, which keeps de-duplication linear in the session's length.
    seen: dict[tuple[NodeType, str], list[Seen]] = field(default_factory=dict)
    open_errors: list[OpenError] = field(default_factory=list)
    # The latest assistant turn: what it put on the table for the user to take or turn down.
    offer: Offer | None = None

    def similar(self, node_type: NodeType, words: frozenset[str], share: float) -> Seen | None:
        checked: set[int] = set()
        for word in sorted(words):
            for s in self.seen.get((node_type, word), ())[-MAX_SIMILAR_PER_WORD:]:
                if id(s) not in checked and labels.near_duplicate(words, s.words, share):
                    return s
                checked.add(id(s))
        return None

    def remember(self, node_type: NodeType, seen: Seen) -> None:
        for word in seen.words:
            self.seen.setdefault((node_type, word), []).append(seen)


_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def _moves_a_figure(earlier: Seen, label: str) -> bool:
    """Both labels name figures, and not the same ones."""
    before, now = set(_NUMBER.findall(earlier.label)), set(_NUMBER.findall(label))
    return bool(before and now) and before != now


def moves_forward(old: Status, new: Status) -> bool:
    """A re-mention matters only when it moves the fact on (planned -> done, open -> fixed)."""
    return _PROGRESS.get(new, 0) > _PROGRESS.get(old, 0)


class Emitter:
    """Builds the candidates of one turn, de-duplicating against everything seen so far.

    It also carries what the reading of the turn has established so far: whether the turn is an
    adviser's, whether it pastes an error, whether the sentence is a recap.
    """

    def __init__(self, turn: Turn, state: SessionState, out: list[Candidate]) -> None:
        self.turn, self.state, self.out = turn, state, out
        self.recap = False  # the sentence restates facts under a "Recap:" heading
        self.advisory = False  # an assistant advising rather than reporting its work
        self.lead_in = False  # the turn pastes an error, so its prose only introduces it
        self.quoted_error = False  # the sentence quotes an error message (the message is the error)
        self.after_decision = False  # the clause follows a decision in the same sentence
        self.set_aside: tuple[str, str] | None = None  # a fronted "Instead of X" and its sentence
        self.last_error_turn = -1

    def _switch(self, label: str) -> bool:
        """Whether this turn has stated ``label`` as a decision replacing another."""
        return any(c.replaces and c.label == label for c in self.out)

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
        """A candidate, unless it restates a known fact without moving it on."""
        label = labels.clean(raw) if clean else raw.strip()
        if not labels.is_usable(label):
            return None
        # A file is the file its path names: "Jenkinsfile.deploy" is not "Jenkinsfile".
        words = (
            frozenset((labels.normalize_path(label),))
            if node_type == NodeType.FILE
            else labels.topic_words(label)
        )
        earlier = self.state.similar(node_type, words, 0.5 if self.recap else 0.8)
        if (
            earlier is not None
            and node_type == NodeType.DECISION
            and _moves_a_figure(earlier, label)
        ):
            earlier = None  # "launch on March 3", then "the launch moves to March 17": a new choice
        if earlier is not None and node_type == NodeType.DECISION and self._switch(earlier.label):
            # "Switched to Memcached: we now cache exchange rates in Memcached" says the switch
            # again, more precisely: kept, to take the switch's place (decisions.without_restatements).
            earlier = None
        if earlier is not None:
            confirms = earlier.likely and cue != learned.CUE  # a rule states what was likely
            if not moves_forward(earlier.status, status) and not confirms:
                return None
            label, earlier.status = earlier.label, status  # same fact, new status: keep its key
            if confirms:
                earlier.likely = False
        elif not cue.startswith("instruction"):  # may yet be dropped for its confirmation
            self.state.remember(node_type, Seen(words, label, status, cue == learned.CUE))
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

    def task(self, raw: str, status: Status, quote: str, cue: str, conf: float = 0.7) -> None:
        if self.turn.position == 0 and cue in _SETTING_THE_SCENE:
            return
        self.add(NodeType.TASK, raw, status, quote, cue=cue, conf=conf)

    def error(self, raw: str, quote: str, cue: str, conf: float = 0.75) -> None:
        """An open error; a later fix may resolve it."""
        c = self.add(NodeType.ERROR, raw, Status.FAILED, quote, cue=cue, conf=conf)
        self.last_error_turn = self.turn.position
        if c is not None and c.status == Status.FAILED:
            words = labels.content_words(c.label)
            self.state.open_errors.append(OpenError(c.label, words, self.turn.position))
            del self.state.open_errors[:-MAX_OPEN_ERRORS]

    def fix(
        self, raw: str, quote: str, cue: str, keep_verb: str = "", pointed: bool = False
    ) -> None:
        """Work that fixes a problem ("Fixed: X — was missing Y"): a completed task, the error it
        resolves (an open one it names, else X itself when X names a problem), and the cause.
        ``pointed``: the text points at the error ("Fixed it: X"), the latest open one."""
        cause = _FIX_CAUSE.search(raw)
        obj = raw[: cause.start()] if cause else raw
        if _LEADING_BY.match(obj):  # "Fixed by adding X": the work is X, the error the latest
            work = obj if keep_verb else _LEADING_BY.sub("", obj)
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
        target = self._open_error_like(labels.content_words(_BY.sub("", labels.clean(obj))))
        target = target or (self._latest_open_error() if pointed else "")
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
        if failures.names_problem(obj) and not (target and self._named_alike(obj, target)):
            # The fix names the problem differently from the report it answers ("the chart is not
            # updating" / "WebSocket message not triggering re-render"): both are kept.
            self.add(NodeType.ERROR, _BY.sub("", obj), Status.COMPLETED, quote, cue=cue)
        if cause and failures.names_problem(cause.group(1), loose=True):
            # Fixing the cause was the work, and the cause the error.
            self.add(NodeType.TASK, cause.group(1), Status.COMPLETED, quote, cue=cue + "_cause")
            self.add(NodeType.ERROR, cause.group(1), Status.COMPLETED, quote, cue=cue + "_cause")

    def fixed_state(self, clause: str, subject: str, quote: str) -> None:
        """ "The double-booking bug is fixed": the clause is the task, its subject the error."""
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

    def back_to_normal(self, subject: str, quote: str, latest: bool = True) -> bool:
        """ "the 502s stopped", "printing works again": the open error the subject names, by the
        stems of its words, no longer happens. When the subject names nothing in particular ("it
        works now", "the build is green again") and ``latest``, the latest one reported in the
        last few turns."""
        topic = labels.content_words(subject) - _GENERIC_ERROR_WORDS - labels.STATUS_WORDS
        stems = _stems(topic - _VAGUE_SUBJECTS) - _GENERIC_STEMS
        target = next(
            (e.label for e in reversed(self.state.open_errors) if stems & _stems(e.words)), ""
        )
        last = self.state.open_errors[-1] if latest and self.state.open_errors else None
        if (
            not target
            and not stems
            and last
            and last.position >= self.turn.position - _RECENT_TURNS
        ):
            target = last.label
        self._resolve(target, quote, "back_to_normal")
        return bool(target)

    def resolve_latest(self, quote: str, cue: str) -> None:
        """ "That was it": the suggestion just tried fixed the latest open problem."""
        self._resolve(self._latest_open_error(), quote, cue)

    @staticmethod
    def _named_alike(obj: str, error: str) -> bool:
        """Whether a fix's object and an error share a topic word: one problem, one name."""
        a = labels.content_words(obj) - _GENERIC_ERROR_WORDS - labels.STATUS_WORDS
        return bool(a & labels.content_words(error))

    def _latest_open_error(self) -> str:
        return self.state.open_errors[-1].label if self.state.open_errors else ""

    def _resolve(self, label: str, quote: str, cue: str) -> None:
        """Mark an open error resolved. When it is a cause diagnosed in this very turn, the
        symptom reported just before ("the test hangs") is resolved with it."""
        if not label:
            return
        stated_at = next((e.position for e in self.state.open_errors if e.label == label), -1)
        self._close(label, quote, cue)
        earlier = [
            e for e in self.state.open_errors if self.turn.position - 2 <= e.position < stated_at
        ]
        if stated_at == self.turn.position and earlier:
            self._close(earlier[-1].label, quote, cue)

    def _close(self, label: str, quote: str, cue: str) -> None:
        self.add(NodeType.ERROR, label, Status.COMPLETED, quote, cue=cue, fixes=label, clean=False)
        self.state.open_errors = [e for e in self.state.open_errors if e.label != label]

    def _open_error_like(self, words: frozenset[str]) -> str:
        """The most recent open error sharing a topic word with a fix's object, else the problem
        the other side reported in the turn just before (a report, then its fix)."""
        topic = words - _GENERIC_ERROR_WORDS - labels.STATUS_WORDS
        for e in reversed(self.state.open_errors):
            if topic & e.words:
                return e.label
        if self.state.open_errors and self.state.open_errors[-1].position == self.turn.position - 1:
            return self.state.open_errors[-1].label
        return ""


def _stems(content_words: frozenset[str]) -> set[str]:
    return {words.stem(w) for w in content_words}
