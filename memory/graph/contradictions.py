"""Whether a new decision supersedes an earlier one, contests it, or coexists with it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from memory.graph import phrases, technologies, words
from memory.graph.prefilter import Folded, Twin
from memory.graph.types import Candidate, Node, NodeKey

SUPERSEDE = "supersede"
CONTESTED = "contested"

# Phrases saying that a choice replaces an earlier one. Looked for in the new decision's sentence.
_SWITCH = Folded(
    r"(?:\b(?=[a-z])|(?=[,.;:]))(?:switch(?:ed|es|ing)?|mov(?:e|ed|es|ing)\s+(?:\w+\s+){0,3}?to|migrat\w*\s+to|instead"
    r"|rather\s+than|replac(?:e|ed|es|ing)|drop(?:ped|ping|s)?\b|scratch\s+that|in\s+the\s+end"
    r"|after\s+all|(?:go|goes|going|went|gone)\s+back\s+to|revert\w*|chang\w*\s+(?:course|to)"
    r"|changed\s+my\s+mind|on\s+second\s+thought|no\s+longer|any\s?more|ditch\w*|abandon\w*"
    r"|you\s+win|ended\s+up|swap(?:ped|ping|s)?|reversing|reverse[ds]?|in\s+favou?r\s+of"
    r"|pivot\w*\s+to|settled\s+on|ultimately|never\s?mind"
    r"|(?:is|are)\s+now(?!\s+(?:faster|slower|better|worse|working|live|done|fixed|green|fine))"
    r"|(?:pushed|postponed|bumped|shifted)\s+(?:back\s+)?to|brought\s+forward"
    r"|fell\s+through|didn'?t\s+work\s+out|is\s+a\s+no-?go|off\s+the\s+table|stopp(?:ed|ing)"
    r"|(?<=\w\s)(?<!for\s)(?<!right\s)(?<!just\s)now(?=[.!]*$)"
    # "receipts now go out through Postmark": the present of a new arrangement.
    r"|(?<=\w\s)now(?=\s+(?:go|goes|run|runs|live|lives|use|uses|sit|sits|come|comes|ship|"
    r"ships|send|sends|pay|pays|host|hosts|bill|bills|point|points|land|lands)\b)"
    r"|(?<=\w\s)then(?=[.!]*$)"  # "fine, Postgres then.": a conclusion drawn from what came before
    r"|no\s+wait|(?:^|[,.;:]\s*)actually\b|let'?s\s+not|not\s+going\s+(?:to|with)"
    r"|forget\s+(?:the\s+)?\w+|scrap(?:ped|ping|s)?|(?<!from\s)scratch|mov(?:e|ed|es|ing)\s+off"
    r"|(?:is|are)\s+out(?!\s+(?:of|now|today|yesterday|there|in)))\b"
)
# The option a sentence names as replaced ("instead of X", "rather than X", "replacing X").
_REPLACED = Twin(
    re.compile(
        r"\b(?:instead\s+of|rather\s+than|replacing|in\s+place\s+of|away\s+from"
        r"|(?:switch\w*|mov\w*|migrat\w*|chang\w*)\s+(?:\w+\s+){0,2}?from"
        r"|mov(?:e|ed|es|ing)\s+off|scrap(?:ped|ping)?|(?<!from\s)scratch|ditch(?:ed|ing)?"
        r"|replac(?:e|es|ed)(?=.+?\swith\s))"
        r"\s+(.+?)"
        r"(?=\s+(?:to|with|because|since|so|as|which|and|but|for)\b|[,.;!?)]|[:](?!\S)|$)",
        re.IGNORECASE,
    )
)
# Phrases saying that two choices live side by side.
_BESIDE = Folded(
    r"\b(?:alongside|next\s+to|as\s+well|in\s+addition|on\s+top\s+of|both|fallback|backup"
    r"|secondary|only\s+for|everything\s+else|elsewhere|also|too|stays?|keeps?|remains?|still"
    r"|separate(?:ly)?|on\s+its\s+own)\b"
)
# Phrases holding a choice open: a loosely matched pair is contested only if one side is tentative.
_TENTATIVE = re.compile(
    r"\b(?:lean(?:ing)?\s+(?:toward|towards|to)|i'?d\s+(?:go|lean|say|probably|rather|pick)"
    r"|(?:i'?m|we'?re)\s+thinking|thinking\s+(?:of|about)|probably|maybe|might|for\s+now"
    r"|plan\s+(?:was|is)\s+to|i\s+figured|tentative\w*|i\s+guess|considering|seemed\s+like"
    r"|try|trying)\b",
    re.IGNORECASE,
)
# Phrases presenting a choice as where things started ("started with polling the ADC")...
_STARTED = (
    r"start(?:ed|ing)?\s+(?:off\s+)?with|to\s+(?:start|begin)\s+with|initially|originally"
    r"|the\s+plan\s+(?:is|was)|at\s+(?:the\s+)?(?:beginning|start)"
)
# ... or as where they stand for the moment ("right now it saves on every change"): a later choice
# on its topic usually replaces it.
_PROVISIONAL = Folded(
    rf"\b(?:{_STARTED}|at\s+(?:the\s+)?first|right\s+now|for\s+now|pencil(?:l?ed)?\s+in)\b"
)
# The narrowest kind: a choice said to hold only for the moment ("polylang free for now").
_FOR_NOW = Folded(
    r"\b(?:for\s+now|for\s+the\s+moment|for\s+the\s+time\s+being|pencil(?:l?ed)?\s+in)\b"
)
# A figure revised: "extending the grace period to 12 months", "we cut the ask to $62k".
_REVISED_FIGURE = Folded(
    r"\b(?:extend|bump|rais|lower|cut|reduc|increas|push|shorten|lengthen|tighten|loosen|halv|doubl)"
    r"\w*\b[^.;]*?\bto\s+\$?\d[\d.,]*\s*(?:k\b)?\s*[a-z%]*"
)
_FIGURE = re.compile(r"(\$?)(\d[\d.,]*)\s*(k\b)?\s*([a-z%]*)")
# The narrower kind: where things started, which a switch with nothing else to revise moves on from.
_STARTING_POINT = Folded(rf"\b(?:{_STARTED})\b")
# A change of mind about the choice just made; it names no topic, so it revises the latest one.
_CHANGE_OF_MIND = Folded(
    r"\b(?:on second thought|changed (?:my|our|their|his|her) minds?|scratch that|no wait|"
    r"never ?mind)\b"
)
_JUST_NOW = 4  # messages back a change of mind can reach: the exchange before it
# People whose switching is behaviour to measure, not a choice the session made.
_THIRD_PARTY = frozenset(
    "users user customers customer subscribers subscriber people clients client visitors members "
    "buyers accounts they".split()
)
# "Ana wants ...", "the ops team prefers ...", "Lea, our research lead, wants ...": a person's preference.
_PREFERS = re.compile(
    r"^(?:the\s+)?([a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)(?:\s*\([^)]{0,60}\)|,[^,]{1,60},)?\s+"
    r"(?:wants|prefers|would\s+rather|insists\s+on|pushes\s+for|votes\s+for|argues\s+for)\b",
    re.IGNORECASE,
)
# A message leaving open whether an earlier choice still holds ("nobody has said yet whether we
# keep the class weights"): what it names there stays beside the new choice, contested.
_OPEN_WHETHER = Folded(
    r"\b(?:not\s+sure|unsure|no\s+idea|unclear|undecided|don'?t\s+know|(?:nobody|no\s+one)\s+(?:has\s+)?"
    r"(?:said|decided)|(?:haven'?t|hasn'?t|not)\s+(?:yet\s+)?(?:decided|settled))\s+(?:yet\s+)?(?:whether|if)\b"
)
_SPEAKERS = frozenset("i we you they it he she this that everyone nobody".split())
_NEGATION = Twin(re.compile(r"\b(?:no|not|never|without|don't|won't|skip|none)\b", re.IGNORECASE))
# Families of scope words: two decisions scoped to different members of one family coexist.
_SCOPES = (
    frozenset("prod production staging dev development local test tests ci qa".split()),
    frozenset("ios android web mobile desktop server client".split()),
    frozenset("monthly annual yearly weekly daily nightly hourly".split()),
    frozenset("primary fallback secondary backup".split()),
    frozenset("read reads write writes".split()),
)
_SCOPE_PHRASE = re.compile(r"\b(?:for|in|on)\s+(.+?)(?=\s+(?:and|but|with|so|because)\b|[,.;:]|$)")
_REASON_LEAD = re.compile(r"\s*(?:reason|why|rationale)\s*[:-]\s*", re.IGNORECASE)
# Word and clause pieces, compiled once (module-level re calls look their pattern up each time).
_WORD = re.compile(r"[a-z']+")
_LETTERS = re.compile(r"[a-z]+")
_ALNUM = re.compile(r"[a-z0-9]+")
_ATOM = re.compile(r"[a-z0-9']+")
_TOKEN = re.compile(r"[A-Za-z0-9_'-]+")
_SETTING_ATOM = re.compile(r"[a-z0-9][a-z0-9.%:@]*")
_COMMA = re.compile(r",\s+")
_COMMA_OR_SEMICOLON = re.compile(r"[,;]\s+")
_SENTENCE_CLAUSE = re.compile(r"[;:](?=\s)|,\s+and\s+|\s+-{1,2}\s+")
_CLAUSE_END = re.compile(r"[;:.!?](?=\s|$)|,\s+(?:and|but|which)\s+")
_CLAUSE_START = re.compile(r"[;:.!?]\s+|,\s+(?=[a-z])")
_REASON_MARK = re.compile(
    r"\b(because(?:\s+of)?|since|given\s+that|due\s+to|so\s+that|so)\b\s+", re.IGNORECASE
)


@dataclass(frozen=True)
class Verdict:
    """What a new decision does to an earlier one, and why the text says so."""

    kind: str  # SUPERSEDE or CONTESTED
    old: NodeKey
    reason: str = ""
    inferred: bool = False  # the reason was not stated; it was inferred from the topic


# A separator in the shape of a value ('a@0', 'a-0'): a symbolic value, unlike a number.
_SYMBOLIC = re.compile(r"[@\-:_.]")


@dataclass(frozen=True)
class Statement:
    """A decision as the contradiction check reads it: its label, sentence and message."""

    label: str
    sentence: str
    position: int
    text: str = ""  # the whole message
    siblings: tuple[str, ...] = ()  # the other decisions stated in the same message
    names: frozenset[str] | None = None  # proper names of the transcript (None: the sentence's)
    previous: str = ""  # the message before, which often holds the reason for a change

    @cached_property
    def topic(self) -> set[str]:
        return words.topic(self.label)

    @cached_property
    def own_sentence(self) -> str:
        """The sentence without the other decisions said in it: a replacement named inside one of
        them ("X rather than Y, and I'll do Z") is that decision's, not this one's. (A switch cue
        is not cut: "switching to X and Y" switches both.)"""
        sentence = self.sentence
        for other in self.siblings:
            if other not in self.label:
                sentence = sentence.replace(other, " ")
        return sentence

    @cached_property
    def values(self) -> frozenset[str]:
        names = words.proper_names(self.sentence) if self.names is None else self.names
        return words.values(self.label, names)

    @cached_property
    def symbolic(self) -> dict[str, str]:
        """Its values of a symbolic shape, by value: letters, digits and a separator in one token
        ('Recall@20' is 'a@0'). Computed once: every pair this decision is held against reads it."""
        shapes = {v: words.shape(v) for v in self.values}
        return {v: s for v, s in shapes.items() if _SYMBOLIC.search(s) and "a" in s and "0" in s}


def judge(
    new: Statement, candidate: Candidate, earlier: Sequence[tuple[Node, Statement]]
) -> list[Verdict]:
    """The verdicts of a new decision against the earlier live decisions (newest first wins ties).

    Decisions stated in the same message never contradict each other: they were said together.
    """
    split = _split_preferences(new, earlier)
    if split:
        return [Verdict(CONTESTED, node.key) for node in split]
    pool = [(n, s) for n, s in earlier if s.position != new.position and n.key != candidate.key]
    left_open = (_left_open(new, pool) or _still_open(new, pool)) if pool else None
    if left_open:
        return [Verdict(CONTESTED, left_open.key)]
    replaced = candidate.replaces or _named_replacement(new.own_sentence)
    if replaced:
        verdicts = _replacing(new, candidate, replaced, earlier)
        if verdicts:
            return verdicts
    if not pool:
        return []  # only decisions of this very message: each rule below needs an earlier one
    slots = [(n, s, _slot(s, new)) for n, s in pool]
    strong = [(n, s) for n, s, slot in slots if slot >= 2]
    weak = [(n, s) for n, s, slot in slots if slot == 1]
    # A named replacement that is no earlier decision uses up the cue ("X instead of python-jose").
    if not replaced and _cued(new, candidate.label):
        linked = (
            _old_figure_named(new, pool)
            or strong
            or weak
            or [(n, s) for n, s in pool if _linked(s, new)]
        )
        if linked:
            # "queues on the database driver for now" is the one "move queues to Redis" revises
            provisional = [
                (n, s) for n, s in pool if _PROVISIONAL.search(s.label) and s.topic & new.topic
            ]
            node, old = _best(new, provisional or linked)
            return [_supersede(node, old, new, candidate)]
        # "On second thought, Paddle it is" right after "going with Stripe": a change of mind
        # revises the choice just made, whatever its words.
        just_made = [(n, s) for n, s in pool if 0 < new.position - s.position <= _JUST_NOW]
        if just_made and _CHANGE_OF_MIND.search(new.own_sentence):
            node, old = max(just_made, key=lambda p: p[1].position)
            return [_supersede(node, old, new, candidate)]
        # "I started with X" ... "ended up going with Y": a switch moves on from the starting point.
        # Only a cue in the decision itself: one elsewhere in its sentence may be another clause's.
        started = [(n, s) for n, s in pool if _STARTING_POINT.search(s.label)]
        if started and is_switch(candidate.label):
            node, old = max(started, key=lambda p: p[1].position)
            return [_supersede(node, old, new, candidate)]
        # "polylang free for now" ... "switching to wpml": a switch, not a trial, moves on from the
        # choice that was only meant for the moment, whatever its words.
        for_now = [
            (n, s) for n, s in pool if s.position < new.position and _FOR_NOW.search(s.label)
        ]
        if for_now and is_switch(candidate.label) and not _TENTATIVE.search(candidate.label):
            node, old = max(for_now, key=lambda p: p[1].position)
            return [_supersede(node, old, new, candidate)]
        return []
    for node, old in _ranked(new, strong):
        if _flipped(old, new):
            return [_supersede(node, old, new, candidate)]
    negated = _negated(new.label)
    # "we're not doing CloudKit" after "CloudKit for sync"; without a negation, nothing to rank.
    for node, old in _ranked(new, pool) if negated else ():
        if negated & {words.stem(v) for v in old.values if v.isalpha()}:
            return [_supersede(node, old, new, candidate)]
    if _BESIDE.search(new.sentence) or _BESIDE.search(candidate.label):
        return []
    revised = _figure_revised(new, pool)
    if revised:
        node, old = revised
        return [_supersede(node, old, new, candidate)]
    started = _started_elsewhere(new, pool)
    if started:
        node, old = started
        return [_supersede(node, old, new, candidate)]
    for node, old in _ranked(new, strong + weak):
        verdict = _without_cue(node, old, new, candidate)
        if verdict:
            return [verdict]
    return []


def _replacing(
    new: Statement, candidate: Candidate, replaced: str, earlier: Sequence[tuple[Node, Statement]]
) -> list[Verdict]:
    """The text names what this decision replaces: the best earlier decision it names, and any
    stated in the same message ("switching from X to Y" puts X and Y in one message)."""
    named = [(n, s) for n, s in earlier if n.key != candidate.key and _names(replaced, s)]
    here = [(n, s) for n, s in named if s.position == new.position]
    before = [(n, s) for n, s in named if s.position != new.position]
    chosen = here + ([_best(new, before)] if before else [])
    return [_supersede(node, old, new, candidate) for node, old in chosen]


def _split_preferences(new: Statement, earlier: Sequence[tuple[Node, Statement]]) -> list[Node]:
    """Someone else's preference, in the same message or the exchange before, when the message
    says it is not settled: "Maria wants the story first. Dev wants the data first. We haven't
    decided." Only the nearest earlier one, so three voices make a chain of pairs rather than
    every pair."""
    mine = _preference_of(new.sentence)
    if not mine or not phrases.UNSETTLED.search(new.text):
        return []
    others = [
        (n, s)
        for n, s in earlier
        if 0 <= new.position - s.position <= _JUST_NOW
        and _preference_of(s.sentence) not in ("", mine)
    ]
    here = [(n, s) for n, s in others if s.position == new.position]
    if not here:
        return [max(others, key=lambda p: p[1].position)[0]] if others else []
    at = new.text.find(new.sentence)
    before = [(n, s) for n, s in here if new.text.find(s.sentence) < at]
    return [max(before or here, key=lambda p: new.text.find(p[1].sentence))[0]]


def _left_open(new: Statement, pool: list[tuple[Node, Statement]]) -> Node | None:
    """The earlier decision on the new one's topic that its message says may or may not still hold:
    "we oversample rare classes now; not sure yet whether we keep the class weights"."""
    match = _OPEN_WHETHER.search(new.text)
    if not match or _OPEN_WHETHER.search(new.label):  # the open question is no choice itself
        return None
    asked = words.topic(_clause(new.text[match.end() :]))
    named = [
        (n, s)
        for n, s in pool
        if s.topic & new.topic and any(w in s.label.lower() for w in asked if len(w) >= 4)
    ]
    return _best(new, named)[0] if named else None


def _still_open(new: Statement, pool: list[tuple[Node, Statement]]) -> Node | None:
    """The earlier decision in the new one's slot, when the new one's message says the choice is
    not made: "Engineering wants the 24th. We haven't settled it.", "Tom set up DynamoDB for the
    orders, not sure which one we keep"."""
    if _BESIDE.search(new.label) or not phrases.UNSETTLED.search(new.text):
        return None  # "X stays beside Y": no rival; or nothing said to be open
    rivals = [(n, s) for n, s in pool if _slot(s, new) >= 1 or _same_purpose(s, new)]
    if rivals:
        return _best(new, rivals)[0]
    # "Marketing pushes for a daily digest instead; we need to decide": the choice just made.
    recent = [(n, s) for n, s in pool if 0 < new.position - s.position <= _JUST_NOW]
    if recent and _INSTEAD.search(new.sentence):
        return max(recent, key=lambda p: p[1].position)[0]
    return None


_INSTEAD = re.compile(r"\binstead\b(?!\s+of\b)", re.IGNORECASE)
_PURPOSE = re.compile(r"^(.+?)\s+for\s+(.+)$")


def _same_purpose(a: Statement, b: Statement) -> bool:
    """Two options for one purpose: "leaning towards Figma for the mockups", "Ana insists on
    Sketch for the mockups"."""
    pa, pb = _PURPOSE.match(a.label.lower()), _PURPOSE.match(b.label.lower())
    if not (pa and pb):
        return False
    purpose = words.topic(pa.group(2))
    same = bool(purpose) and purpose == words.topic(pb.group(2))
    return same and words.topic(pa.group(1)) != words.topic(pb.group(1))


def _preference_of(sentence: str) -> str:
    """Who states ``sentence`` as their preference ("Ana wants ..."): not I, we or you."""
    match = _PREFERS.match(sentence.strip(" -*•\t"))
    if not match:
        return ""
    who = match.group(1).lower()
    return "" if who.split()[0] in _SPEAKERS else who


def _figure_revised(
    new: Statement, pool: list[tuple[Node, Statement]]
) -> tuple[Node, Statement] | None:
    """The earlier decision whose figure the new one moves: "extending the grace period to 12
    months" revises "customers keep their price for 6 months" (same unit, another number)."""
    match = _REVISED_FIGURE.search(new.label)
    if not match:
        return None
    [*_, target] = _figures(new.label[match.start() : match.end()]) or [("", "")]
    if not target[0]:
        return None
    # The old figure is named again ("6 months lands mid-budget") or the topic is shared: a unit
    # alone is too weak a link ("build cut to 5 minutes" leaves "sessions expire after 30 minutes").
    said = set(_figures(new.text))
    moved = [
        (n, s)
        for n, s in pool
        if any(
            unit == target[0]
            and value != target[1]
            and (s.topic & new.topic - {unit} or (unit, value) in said)
            for unit, value in _figures(s.label)
        )
    ]
    return _best(new, moved) if moved else None


def _figures(text: str) -> list[tuple[str, str]]:
    """Each (unit, number) of a text: '6 months' -> ('month', '6'), '$62,000' -> ('$', '62000')."""
    out = []
    for money, number, thousands, unit in _FIGURE.findall(text.lower()):
        value = number.replace(",", "").rstrip(".") + ("000" if thousands else "")
        kind = "$" if money else words.stem(unit) if unit and unit not in words.GENERIC else ""
        if kind:
            out.append((kind, value))
    return out


def _started_elsewhere(
    new: Statement, pool: list[tuple[Node, Statement]]
) -> tuple[Node, Statement] | None:
    """The earlier decision a firm new one moves on from: said as a starting point ("started with
    polling the ADC", "right now it is saved on every change"), on the new one's topic."""
    if _TENTATIVE.search(new.sentence):
        return None
    started = [
        (n, s)
        for n, s in pool
        if _PROVISIONAL.search(s.label) and _moves_on(s, new) and not _scopes_differ(s, new)
    ]
    return _best(new, started) if started else None


def _moves_on(old: Statement, new: Statement) -> bool:
    """A rival, two shared topic words, or one and the new message naming the old way again
    ("timer-triggered ADC with DMA ... polling kept the core awake"). One shared word alone is
    too little: "right now the API returns JSON" stands beside "the API gets rate limits"."""
    if technologies.rivals(old.label, new.label):
        return True
    shared = old.topic & new.topic
    return len(shared) >= 2 or bool(shared and (old.topic - shared) & words.topic(new.text))


def _cued(new: Statement, label: str) -> bool:
    """A replacement cue for this decision: in its label, or in its sentence unless the label itself
    says it coexists ("..., everything else keeps Provider" shares a sentence with the switch)."""
    if is_switch(label):
        return True
    return is_switch(new.sentence) and _BESIDE.search(label) is None


@lru_cache(maxsize=8192)
def is_switch(text: str) -> bool:
    """Does ``text`` say that a choice replaces an earlier one ("switched to", "instead", ...)?
    Not when the ones switching are users or customers ("15% of subscribers switch to annual")."""
    for match in _SWITCH.finditer(text):
        before = _WORD.findall(text[: match.start()].lower())[-3:]
        if not _THIRD_PARTY & set(before):
            return True
    return False


def reason_in(statement: Statement) -> str:
    """The reason ``statement``'s sentence gives ("because ...", "since ...", "..., so we did")."""
    return _stated_reason(statement, Statement("", "", -1))


def _without_cue(
    node: Node, old: Statement, new: Statement, candidate: Candidate
) -> Verdict | None:
    """No replacement cue: a bare swap in one slot supersedes; conflicting values there contest."""
    if _scopes_differ(old, new) or _kept_beside(old, new):
        return None
    if _slot(old, new) >= 2 and (_bare_swap(old, new) or _new_setting(old, new)):
        return _supersede(node, old, new, candidate)
    if _conflicting(old, new, _slot(old, new)):
        reason, inferred = _reason(new, old, candidate)
        return Verdict(CONTESTED, node.key, reason="" if inferred else reason)
    return None


def takes_the_place_of(new: Statement, old: Statement) -> bool:
    """Whether a decision said later (in another session: each session's graph links only its own)
    takes the place of an earlier one as a bare swap in one slot: "cache exchange rates in
    Memcached" after "cache exchange rates in Redis"."""
    if _scopes_differ(old, new) or _kept_beside(old, new):
        return False
    return _slot(old, new) >= 2 and (_bare_swap(old, new) or _new_setting(old, new))


def _supersede(node: Node, old: Statement, new: Statement, candidate: Candidate) -> Verdict:
    reason, inferred = _reason(new, old, candidate)
    return Verdict(SUPERSEDE, node.key, reason=reason, inferred=inferred)


def _best(new: Statement, pool: list[tuple[Node, Statement]]) -> tuple[Node, Statement]:
    return _ranked(new, pool)[0]


def _ranked(new: Statement, pool: list[tuple[Node, Statement]]) -> list[tuple[Node, Statement]]:
    """Most similar first, then most recent: a choice usually revises the latest on its topic."""
    return sorted(pool, key=lambda p: (-_similarity(p[1], new), -p[1].position, p[1].label))


def _similarity(a: Statement, b: Statement) -> float:
    ta, tb = a.topic | a.values, b.topic | b.values
    shared = len(ta & tb) + (0.5 if _shape_match(a, b) else 0.0)
    return shared / max(1, min(len(ta), len(tb)))


def _slot(a: Statement, b: Statement) -> int:
    """How surely two decisions fill one slot: 2 sure (two shared topic words, or the same kind of
    value such as 'HTTP-01'/'DNS-01'), 1 likely (one shared word, each with its own modifier)."""
    shared = a.topic & b.topic
    if len(shared) >= 2 or (shared and _shape_match(a, b)):
        return 2
    if technologies.rivals(a.label, b.label):
        return 2
    if _shape_match(a, b) and _distinct_values(a, b):
        return 2
    if len(shared) == 1 and _different_modifiers(a, b, next(iter(shared))):
        return 1
    return 0


def _shape_match(a: Statement, b: Statement) -> bool:
    """Two different values of one symbolic shape: 'Recall@20'/'NDCG@10', 'python:3.12-x'/'-y'."""
    for x, sx in a.symbolic.items():
        if x in b.values:
            continue
        for y, sy in b.symbolic.items():  # a value of the same shape is a symbolic one too
            if sy == sx and y not in a.values:
                return True
    return False


def _distinct_values(a: Statement, b: Statement) -> bool:
    if technologies.rivals(a.label, b.label):
        return True
    return bool(a.values - b.values) and bool(b.values - a.values)


def _different_modifiers(a: Statement, b: Statement, head: str) -> bool:
    """Both name ``head`` with a different word before it ('email checklist'/'in-app checklist')."""
    before_a, before_b = _modifier(a.label, head), _modifier(b.label, head)
    return bool(before_a) and bool(before_b) and before_a != before_b


def _modifier(label: str, head: str) -> str:
    atoms = _ATOM.findall(label.lower())
    for i, atom in enumerate(atoms):
        if words.stem(atom) == head and i > 0 and atoms[i - 1] not in words.GENERIC:
            return atoms[i - 1]
    return ""


def _linked(old: Statement, new: Statement) -> bool:
    """With a replacement cue, a looser link will do: one shared topic word or value, or two words
    of the old decision in the new sentence ("per-tenant certs would hit the limit"). One word
    shared with the rest of the sentence or message is too little: the cue usually belongs to
    another clause there ("X rather than Y, and I'll send a summary")."""
    if old.topic & new.topic or old.values & new.values:
        return True
    return len(old.topic & words.topic(new.sentence)) >= 2


def _old_figure_named(
    new: Statement, pool: list[tuple[Node, Statement]]
) -> list[tuple[Node, Statement]]:
    """The earlier decisions whose figure the new sentence names beside its own: "10 is too few,
    so we're recruiting 16 instead" revises "thinking 10 participants"."""
    said = {v for v in words.values(new.sentence) if any(c.isdigit() for c in v)} - new.values
    if not said:
        return []
    return [(n, s) for n, s in pool if said & {v for v in s.values if any(c.isdigit() for c in v)}]


def _names(replaced: str, old: Statement) -> bool:
    """Does the phrase the text says was replaced name this earlier decision? An action named
    ("instead of deleting invoices") names only a decision to do that action."""
    action = _GERUND.match(replaced)
    if action and words.stem(action.group(1)) not in {
        words.stem(w) for w in _TOKEN.findall(old.label.lower())
    }:
        return False
    wanted = words.topic(replaced) | words.values(replaced, old.names)
    have = old.topic | old.values
    return bool(wanted) and len(wanted & have) >= 0.5 * len(wanted)


_GERUND = re.compile(r"([a-z]{3,}ing)\s", re.IGNORECASE)


def _named_replacement(sentence: str) -> str:
    match = _REPLACED.search(sentence)
    return match.group(1).strip() if match else ""


def _flipped(a: Statement, b: Statement) -> bool:
    """One denies what the other asserts: 'no schema in the prompt' / 'the prompt gets the schema'.
    A negation elsewhere ('..., never local time') does not count."""
    in_a, in_b = _negated(a.label) & b.topic, _negated(b.label) & a.topic
    return bool(in_a) != bool(in_b)


def _negated(label: str) -> set[str]:
    """Topic stems of the words a negation governs (the two after 'no', 'not', 'without', ...)."""
    out: set[str] = set()
    for match in _NEGATION.finditer(label):
        following = _TOKEN.findall(label[match.end() :])[:2]
        out |= words.topic(" ".join(following))
    return out


def _kept_beside(old: Statement, new: Statement) -> bool:
    """The new message also keeps the old technology for something else ('SQLite for unit tests,
    Postgres for integration tests'): a split by scope, not a rival."""
    kept = technologies.names(old.label) - technologies.names(new.label)
    return any(kept & technologies.names(label) for label in new.siblings)


def _new_setting(a: Statement, b: Statement) -> bool:
    """One parameter, two values: 'batch size 32 ...' then 'batch size 16 ...'."""
    keys_a, keys_b = _settings(a.label), _settings(b.label)
    if any(keys_a[k] != keys_b[k] for k in keys_a.keys() & keys_b.keys()):
        return True
    heads_a, heads_b = _setting_heads(a.label), _setting_heads(b.label)
    return any(heads_a[k] != heads_b[k] for k in heads_a.keys() & heads_b.keys())


def _setting_heads(label: str) -> dict[str, str]:
    """Each number-bearing value keyed by the parameter name just before it: 'training runs at
    imgsz 1280' and 'the model runs at imgsz 960' set one parameter, whatever their other words."""
    atoms = _setting_atoms(label)
    out: dict[str, str] = {}
    for before, atom in zip(atoms, atoms[1:], strict=False):
        if any(ch.isdigit() for ch in atom) and before.isalpha() and before not in words.GENERIC:
            out.setdefault(words.stem(before), atom)
    return out


@lru_cache(maxsize=4096)
def _setting_atoms(label: str) -> tuple[str, ...]:
    return tuple(_SETTING_ATOM.findall(label.lower().replace("_", " ").replace("-", " ")))


def _settings(label: str) -> dict[frozenset[str], str]:
    """Each number-bearing value of a label, keyed by the content words since the previous value
    ('batch size 32 with lr 3e-4' → {batch, size}: 32, {lr}: 3e-4)."""
    atoms = _setting_atoms(label)
    out: dict[frozenset[str], str] = {}
    name: list[str] = []
    for atom in atoms:
        if any(ch.isdigit() for ch in atom):
            if name:
                out.setdefault(frozenset(name), atom)
            name = []
        elif atom not in words.GENERIC:
            name.append(words.stem(atom))
    return out


def _bare_swap(a: Statement, b: Statement) -> bool:
    """The same words around another value: 'Postgres for the database'/'MySQL for the database'."""
    named = a.values | b.values | technologies.names(a.label) | technologies.names(b.label)
    value_stems = {words.stem(p) for v in named for p in _ALNUM.findall(v)}
    rest_a, rest_b = a.topic - value_stems, b.topic - value_stems
    return rest_a == rest_b and _distinct_values(a, b)


def _conflicting(a: Statement, b: Statement, slot: int) -> bool:
    """One slot, two different named fillers ('Room'/'OkHttp'), not just two numbers: 'access
    tokens expire after 8 hours' and 'refresh tokens ... 30 days' are about different things."""
    if slot < 2:  # one shared word is a weak link: it takes a choice still held open
        return any(_TENTATIVE.search(s.sentence) for s in (a, b))
    if _shape_match(a, b) or technologies.rivals(a.label, b.label):
        return True
    named_a = {v for v in a.values - b.values if any(ch.isalpha() for ch in v)}
    named_b = {v for v in b.values - a.values if any(ch.isalpha() for ch in v)}
    return bool(named_a) and bool(named_b)


def _scopes_differ(a: Statement, b: Statement) -> bool:
    """Scoped to different members of one family (prod/dev, iOS/Android), or to disjoint 'for X'."""
    wa = set(_LETTERS.findall(a.label.lower()))
    wb = set(_LETTERS.findall(b.label.lower()))
    for family in _SCOPES:
        fa, fb = wa & family, wb & family
        if fa and fb and not fa & fb:
            return True
    if technologies.rivals(a.label, b.label):
        return False  # two databases for two kinds of data: the text does not say both stay
    sa, sb = _scope_topic(a.label), _scope_topic(b.label)
    return bool(sa) and bool(sb) and not sa & sb


def _scope_topic(label: str) -> set[str]:
    match = _SCOPE_PHRASE.search(label)
    return words.topic(match.group(1)) if match else set()


def _reason(new: Statement, old: Statement, candidate: Candidate) -> tuple[str, bool]:
    """Why the change: the candidate's reason, else one the sentence gives, else an inferred one."""
    if candidate.reason:
        return candidate.reason, False
    found = _stated_reason(new, old)
    if found:
        return found, False
    return f"inferred: a later decision on the same topic ({new.label}) replaced it", True


def _stated_reason(new: Statement, old: Statement) -> str:
    """The reason the new decision's sentence (or the one next to it) gives for the change."""
    own = _REASON_MARK.search(new.label)
    if own and own.start() > 0:  # "moving launch to June 17 so the pilots can ...": in the label
        return _clause(new.label[own.end() :])
    sentence = new.sentence
    marks = list(_REASON_MARK.finditer(sentence))
    strong = [m for m in marks if m.group(1).lower() != "so"]
    if strong:
        return _clause(sentence[strong[0].end() :])
    about = new.topic
    for mark in marks:  # "so": the reason is whichever side is not the decision itself
        after = _clause(sentence[mark.end() :])
        if len(words.topic(after) & about) <= len(about) / 2:
            return after
        before = _clause_back(sentence[: mark.start()])
        if len(words.topic(before)) >= 2:
            return before
    return _clause_reason(new, old) or _neighbour_reason(new, old)


def _clause_reason(new: Statement, old: Statement) -> str:
    """Another clause of the decision's sentence: one naming either choice, or the opener."""
    for part in _COMMA_OR_SEMICOLON.split(new.label)[:-1] if "," in new.label else ():
        if not is_switch(part) and words.topic(part) & old.topic:
            return part  # "dual write is too risky, use logical replication instead"
    sentence, head = new.sentence, new.label.lower()[:15]
    clauses = [c.strip() for c in _SENTENCE_CLAUSE.split(sentence) if c.strip()]
    others = [c for c in clauses if head not in c.lower()]
    if len(others) < len(clauses):
        wanted = old.topic | old.values | new.topic
        scored = [c for c in others if words.topic(c) & wanted]
        if scored:
            return max(scored, key=lambda c: len(words.topic(c) & wanted)).rstrip(".")
    opener = sentence[: max(0, sentence.lower().find(head))].strip(" ,")
    first = _COMMA.split(opener)[0] if opener else ""
    if is_switch(first) or words.topic(first) & old.topic:
        return ""  # "Switching from X to ...": the change itself, not why
    return first if len(words.topic(first)) >= 3 else ""


def _neighbour_reason(new: Statement, old: Statement) -> str:
    """A sentence next to the decision naming the old choice ("Alpine isn't worth it when ...")."""
    parts = words.sentences(new.text)
    if new.sentence not in parts:
        return ""
    i = parts.index(new.sentence)
    near = parts[i + 1 : i + 2] + parts[max(0, i - 1) : i]
    for part in near:
        said = _REASON_LEAD.match(part)
        if said:
            return _clause(part[said.end() :]) or part
    named_old = old.topic | {v for v in old.values if not v.isdigit()}
    for wanted in (named_old, new.topic):
        for part in near:  # naming the old choice first: that is what the reason is about
            if (words.topic(part) | words.values(part)) & wanted and "?" not in part:
                return part.rstrip(".:")
    for part in words.sentences(new.previous):  # "pglogical needs a superuser we don't have."
        if words.topic(part) & named_old and "?" not in part and not is_switch(part):
            return part.rstrip(".:")
    return ""


def _clause(text: str) -> str:
    return _CLAUSE_END.split(text, maxsplit=1)[0].strip(" ,")


def _clause_back(text: str) -> str:
    return _CLAUSE_START.split(text.strip(" ,"))[-1].strip(" ,") if text else ""
