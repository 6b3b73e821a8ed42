"""Decisions in plain words: whether a clause decides, the choice, its reason, what it replaces."""

from __future__ import annotations

import re

from memory.graph import labels, phrases, words
from memory.graph.candidates import Emitter, Offer, Seen
from memory.graph.prefilter import Folded, Guarded, Twin
from memory.graph.types import Candidate, Evidence, NodeType, Status

# An acknowledgement opening a user's reply: what follows accepts what was proposed.
ACK = re.compile(
    r"^(?:ok(?:ay)?|fine|sure|right|fair|alright|agreed|so)\b[,.!]?\s+(?:(?:and\s+)?(?:yes|so)\b"
    r"[,]?\s+)?",
    re.IGNORECASE,
)
# An elliptical follow-up adding one more chosen option: "And Coil's disk cache at 250 MB."
CONTINUATION = re.compile(r"^(?:and|also|plus)\b[,]?\s+", re.IGNORECASE)
_CONCLUSION = re.compile(r"^so\s", re.IGNORECASE)
# Present tenses a verbless option has none of: "-ing" forms and the commonest third persons.
_PRESENT = re.compile(
    r"\b(?:\w{3,}ing|holds|shows|starts?|means|gives|fits|costs|takes|makes|leaves|comes|goes|"
    r"stays|keeps|helps|works|runs|fails|breaks|lands|happens|matters|applies|beats)\b",
    re.IGNORECASE,
)
# An option is qualified ("bucket with presigned URLs"); a bare noun phrase only names a topic.
_QUALIFIED = re.compile(
    r"(?<![\w-])(?:with|for|on|at|by|via|in|to|as|per|over|instead|only)(?![\w-])"
)
# Any finite verb or modal: an accepted option is stated without one.
_VERB_LIKE = Twin(
    re.compile(
        r"\b(?:is|are|was|were|be|been|has|have|had|do|does|did|can|will|would|should|'re|'ll|'d|"
        r"works?|looks?|seems?|needs?|wants?|goes|went|got|gets|makes?|says?|said|thinks?|know|"
        r"helped|worked|failed|broke|crashed|fixed|changed|happened|passed|finished|stopped|"
        r"\w+n't|i|we|you|they|he|she|it|there|this|that|here)\b",
        re.IGNORECASE,
    )
)
# An instruction: a clause opening with a bare choosing verb ("Use X", "Switch to Y", "Let's use").
_INSTRUCTION = re.compile(
    r"^(?:let's\s+|please\s+)?(?:use|switch|go with|pick|choose|keep|stick|move|drop)\b",
    re.IGNORECASE,
)
# "so buffer them and flush every second": a user concluding with an instruction.
_CONCLUDING_IMPERATIVE = re.compile(
    r"^(?:so|then|ok so|okay so)\s+(?!i\b|we\b|you\b|it\b|they\b|that\b|this\b|the\b|there\b|"
    r"what\b|how\b|if\b|far\b|much\b|yeah\b|yes\b|now\b)"
    r"[a-z]+\s+(?:them|it|the|a|an|all|every|each|both)\b",
    re.IGNORECASE,
)
# A short verbless noun phrase followed by its reason: "LoRA because I only have one GPU".
_JUSTIFIED_CHOICE = Guarded(
    re.compile(r"^(?:[\w.+#@/-]+\s+){0,2}[\w.+#@/-]+\s+(?:because|since)\s+\w"),
    ("because", "since"),
)
# Users state many choices in a few words, without a choosing verb. Each pattern may follow an
# opening ("ok,", "and yeah") and, for the terse picks, "I think we just".
_OPENING = (
    r"^(?:(?:and|also|so|but|ok|okay|yeah|yes|no|nah|right|then|fine|alright)[,.!]?\s+)*"
    r"(?:i\s+(?:think|guess)\s+)?(?:(?:we|i)\s+(?:just\s+|can\s+just\s+)?(?=[a-z]))?"
)
# A thing ruled out: "No Horizon.", "not moving the tree online", "we won't retry them", "I don't
# want to touch autovacuum", "skip localStorage", "leave the hot tub out".
_RULED_OUT = re.compile(
    _OPENING + r"(?:"
    r"no\s+(?!\w+ing\b|(?:idea|luck|rush|problem|problems|worries|need|way|thanks|clue|changes?|one|longer|"
    r"more|matter|doubt|sign|errors?|issues?|response|reply|output|joy|dice|success|data|results?|"
    r"difference|effect|improvement|progress|news|word|answer|access|internet|connection|signal|"
    r"space|time|hurry|pressure|kidding|wonder|surprise|big|such|other|real|further|new|less|"
    r"worse|better|matches|records?|emails?|messages?|logs?|warnings?|crash(?:es)?|failures?|"
    r"complaints|reason|chance|money|budget|room)\b)[\w./+-]+(?:\s+[\w./+-]+){0,3}\s*[.!]?$|"
    r"(?:(?:we're|we\s+are|i'm|i\s+am)\s+)?not\s+(?=\w+\s+(?!(?:it|that|this|them)\b))"
    r"(?:moving|using|adding|doing|touching|changing|upgrading|migrating|switching|shipping|renewing|"
    r"building|keeping|buying|hiring|publishing|paying|supporting|including|bothering|"
    r"splitting|merging|going with|putting|storing|enabling|exposing|offering|selling|booking)\b|"
    r"(?:i|we)\s*(?:will\s+not|won't|'ll\s+not|am\s+not\s+going\s+to|are\s+not\s+going\s+to|"
    r"'m\s+not\s+going\s+to|'re\s+not\s+going\s+to|aren't\s+going\s+to)\s+(?:add|use|correct|"
    r"touch|change|support|migrate|move|ship|build|retry|renew|fix|keep|include|publish|pay|buy|"
    r"hire|bother|enable|expose|store|send|split|merge|upgrade|install|switch|run|offer|accept|"
    r"allow|book|sell|print|rewrite|refactor|automate)\b|"
    r"(?:i|we)\s+(?:don't|do\s+not)\s+want\s+to\s+(?:add|use|touch|change|move|ship|build|"
    r"pay|buy|hire|store|send|split|merge|upgrade|install|switch|run|offer|depend|maintain|"
    r"deal|expose|rely|lock|host)\b|"
    r"(?:don't|do\s+not)\s+(?:retry|use|add|bother|touch|include|ship|merge|migrate|upgrade|"
    r"install|enable|expose|store|send|cache|support|change|move|split|rename|delete|remove|drop|"
    r"publish|share|translate|shrink|rewrite|hardcode|commit|deploy)\b|"
    # A standing rule in the negative: "we don't shrink the font".
    r"(?:we|i)\s+(?:don't|do\s+not)\s+(?:shrink|use|store|send|ship|deploy|support|accept|allow|"
    r"cache|log|track|sell|charge|offer|keep|retry|translate|rename|expose|publish|print|delete|"
    r"share)\b|"
    r"skip\s+(?!(?:it|that|this|ahead|to|over|past|the\s+rest)\b)\w|"
    r"leave\s+(?:\S+\s+){1,4}?out\b|"
    # An idea given up: "we dropped the idea of a mobile app", "shelved the plan to self-host".
    r"(?:dropped|scrapped|ditched|killed|shelved|abandoned|parked)\s+the\s+(?:idea|plan)\s+"
    r"(?:of|to|for)\s+\w)"
)
# A pick in a few words: "switch the queue to Redis", "make it one NAT gateway", "I'm treating the
# 1851 baptism as ours", "my intention is to let Harlow pull the permit", "Minimum iOS 17", "Token
# goes in Keychain", "SwiftData, not Core Data".
_USER_CHOICE = re.compile(
    _OPENING + r"(?:"
    r"switch\s+(?:\S+\s+){1,4}?to\s+\S|"
    r"(?:final|decision|verdict)\s*:\s*\S|"
    # The arrangement in the present: "We do the demo live", "we map it to 3001 for the demo".
    r"we\s+(?:do|map|host|keep|send|store)\s+(?:the|it|them|our|this|that)\s+\w+\s+\w|"
    r"make\s+it\s+(?:a|an|one|two|three|the|\d)\b|"
    # One of the options, picked: "go for the annual billing".
    r"go\s+for\s+(?:the|a|an)\s+(?!(?:walk|run|drink|coffee|lunch|dinner|ride|swim|beer|break)\b)\w|"
    r"(?:i'm|we're|i\s+am|we\s+are)\s+(?:treating|counting|calling|taking)\s.+\sas\s|"
    r"(?:my|our|the)\s+(?:intention|plan|idea),?(?:\s+[\w,]+){0,6}?\s+is\s+to\s+\w|"
    r"(?:my|our)\s+plan\s+(?:is|was)\s+(?!(?:that|to|still|not|good|fine|done|ok)\b)\w|"
    r"(?:i'd|i\s+would|we'd|we\s+would)\s+like\s+[^,;]{2,40},\s+not\s+\w|"
    r"(?:i|we)\s+want\s+(?!to\b)[^,;]{2,40}\s+only\b|"
    r"(?:minimum|min|maximum|max|target)\s+(?:(?!(?:is|was|are|were|of|at)\b)[a-z][\w.-]*\s+){1,3}"
    r"v?\d)"
)
# Picks that open with the option itself, so that the regex would try them word after word: each
# is tried only on a clause holding its keyword. "fine, the blue one", "Mobile gets the dark mode
# first", "Token goes in Keychain", "SwiftData, not Core Data".
_PICKED = tuple(
    Guarded(re.compile(_OPENING + pick), keywords)
    for pick, keywords in (
        (r"(?:the|that)\s+[\w-]+(?:\s+[\w-]+)?\s+one\s*[.!]?$", ("one",)),
        (r"[\w-]+(?:\s+[\w-]+)?\s+gets?\s+(?:the\s+)?[\w -]{2,30}\s+first\b", ("first",)),
        (
            r"[\w-]+(?:\s+[\w-]+){0,2}\s+(?:goes|go|will\s+go|will\s+live|will\s+sit)\s+"
            r"in(?:to)?\s+(?!(?:effect|force|production|prod)\b)\S",
            ("go", "live", "sit"),
        ),
        (
            r"(?![^,]*\b(?:is|are|was|were|has|have|had|does|did|it's)\b)"
            r"[\w./+#-]+(?:\s+[\w./+#-]+){0,3},\s+not\s+[\w./+#-]+(?:\s+[\w./+#-]+){0,2}\s*[.!]?$",
            ("not",),
        ),
        # An option dropped, told in the passive: "Sub-07 is excluded", "the gallery is shelved".
        (
            r"(?!(?:it|this|that|they|nothing|everything)\b)[\w./+#-]+(?:\s+[\w./+#-]+){0,2}\s+"
            r"(?:is|are)\s+(?:now\s+)?(?:excluded|dropped|scrapped|shelved|binned|left\s+out)\b",
            ("excluded", "dropped", "scrapped", "shelved", "binned", "left out"),
        ),
        # What is kept as it is: "so the bars stay", "hake stays on the menu".
        (
            r"(?!(?:the\s+)?(?:it|this|that|they|he|she|nothing|everything|problem|issue|error|bug)"
            r"\b)[\w'./+#-]+(?:\s+[\w'./+#-]+){0,2}(?<!\bmust)(?<!\bshould)(?<!\bto)(?<!\bwill)"
            r"\s+(?:stays?|remains?)"
            r"(?:\s+(?:on|in|as|at|where|put|pinned|for|with)\b[^,;]*)?\s*[.!]?$",
            ("stay", "remain"),
        ),
    )
)
# "we only give marketing the rank, not the score": searched only where ", not " is.
_ONLY_NOT = re.compile(
    r"\bonly\s[^,;]{2,40},\s+not\s+(?:the\s+|a\s+|an\s+)?[\w-]+(?:\s+[\w-]+)?\s*[.!]?$"
)
# A preference stated as one's own: "Having thought it over, I would rather file it myself"; "I'd
# rather not" mostly turns an offer down.
_PREFERS = re.compile(
    r"\b(?:i|we)(?:\s+would|'d)\s+(?:rather|prefer)\s+(?!not\b|(?:say|know|ask|wait|check|"
    r"hear|understand|find|figure|learn|see|be|have)\b)\w"
)
# The stance that opens a stated intention, and is no part of the option.
_STANCE = re.compile(
    r"^(?:my|our|the)\s+(?:intention|plan|idea),?(?:\s+[\w,]+){0,6}?\s+is\s+to\s+", re.IGNORECASE
)
# A measurement or a symptom, not a choice: "the build now takes 14 minutes instead of 4".
_MEASUREMENT = Twin(
    re.compile(
        r"\b(?:takes?|took|taking|went from|is at|are at|dropped|rose|shows?)\b[^.;]*\d|"
        r"\d\S* (?:\S+ ){0,3}?instead of (?:the )?[£$€]?\d|"
        # A wrong result, not a choice: "the chart shows last month's data instead of this month's".
        r"\b(?:shows?|showed|showing|displays?|displayed|returned|prints?|printed|renders?|rendered|"
        r"charged) (?:\S+ ){1,6}?instead of\b"
    )
)
# A choice said not to be made yet: "we haven't decided if raw keeps event_date", "no idea yet
# whether we keep the check", "we need to pick state management this week".
_NOT_DECIDED = re.compile(
    r"\b(?:haven't|have not|havent|hasn't|has not|not yet|didn't|did not|yet to) (?:\w+ )?decided?\b|"
    r"\bundecided\b|\bno idea (?:yet )?(?:whether|if|which)\b|"
    r"\b(?:need|needs|have|has|got) to (?:pick|choose|decide)\b|\b(?:don't|do not) (?:pick|choose|decide)\b|"
    r"\bstill (?:deciding|choosing|torn)\b|"
    r"\b(?:not|n't|never) (?:picking|choosing|deciding|taking sides)\b"  # "I'm not picking one"
)
# How an assistant narrates a choice as made rather than proposed.
_ASSISTANT_DECIDES = re.compile(
    r"(?:switching|switched (?:over |back )?to\b|moved (?:over |back )?to\b|moving|going with|"
    r"gone with|went with|decid|chose|picked|opted|settled|sticking|roll|concluded|agreed|"
    r"root cause is|owner is|the requirement is|cutting|descop)",
    re.IGNORECASE,
)
# An assistant stating the team's new standing practice: "We'll send invoice emails through
# Postmark from now on".
_ASSISTANT_COMMITS = re.compile(r"^(?:we|i)(?:'ll| will) .{3,80}\bfrom now on\b", re.IGNORECASE)
# A trailing dash or parenthesis: an aside, often the reason ("— faster revocation").
# Both branches open with a space, read first: the regex engine skips from space to space.
_ASIDE = re.compile(r"\s(?:\s*(?:—|–|--?)\s+(.+)$|\s*\(([^)]+)\)\s*\.?$)")
# A parenthetical in words (a reason), as opposed to identifiers or values.
_PROSE_ASIDE = re.compile(r"[A-Za-z][A-Za-z' —–-]*(?:\s[A-Za-z' —–-]+)+")
# An evaluative tail after the choice ("..., less magic", "..., D3 felt like overkill").
_JUDGEMENT_TAIL = Twin(
    re.compile(
        r",\s+((?:[^,]*\b)?(?:overkill|too \w+|not worth|simpler|easier|faster|cheaper|safer|smaller|"
        r"lighter|less \w+|more \w+|better|cleaner|heavier|annoying|a pain|overhead|fewer \w+|"
        r"no \w+ needed)[^,]*)$",
        re.IGNORECASE,
    )
)
_OPTION_END = re.compile(r"\s*[,;]\s+|\s+(?:—|–|--?)\s+|\s+(?:because|since|so|as|which)\s+")
_SO = re.compile(r",?\s+so\s+(?!that\b|far\b|much\b|many\b|long\b)", re.IGNORECASE)
_POINTER_FIRST = re.compile(r"(?:it|them|this|that|these|those|one)\b", re.IGNORECASE)
_REPLACING = re.compile(r"\s*,?\s*replacing\b", re.IGNORECASE)
_REASON_ONLY = re.compile(r"^(?:because|since|given that|so that|due to)\b", re.IGNORECASE)
# The option dropped, named before the one taking its place: "scrapped Jenkins, going with X".
_DROPPED_FIRST = re.compile(
    r"^(?:so\s+|ok\s+)?(?:scrap(?:ped)?|scratch|ditch(?:ed)?|mov(?:ed|ing) off|forget)\s+"
    r"(?!that\b|this\b|it\b)([^,;]{2,60}?)\s*[,;]\s+(?:and\s+|so\s+)?(.{4,})$|"
    # "I remove Ceph and make ZFS on each node": the old option taken out, the new one put in.
    r"^(?:so\s+|ok\s+)?(?:remove|drop|rip out|get rid of|take out)\s+(?!that\b|this\b|it\b|them\b)"
    r"([^,;]{2,40}?)\s+and\s+((?:make|use|go with|set up|do|switch to|move to|put|run)\s.{3,})$",
    re.IGNORECASE,
)
_FROM_TO = Twin(
    re.compile(
        r"\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|go(?:ing)?|went|chang(?:e|ed|ing))"
        r"(?: \w+)? from\s+(.+?)\s+to\s+(.+)$",
        re.IGNORECASE,
    )
)


def choice_cue(clause: str, stripped: str, low: str, role: str, opening: bool = False) -> str:
    """The rule by which a clause states a decision, or "" when it states none.

    Users decide in their own words; assistants propose, and decide only when they narrate the
    choice as made ("Switching to X"). A measurement ("takes 14 minutes instead of 4") is not one.
    In the ``opening`` message the team's present practice describes the starting point.
    """
    if role != "user" and not (_ASSISTANT_DECIDES.match(stripped) or _ASSISTANT_COMMITS.match(low)):
        return ""  # tested first: it is far cheaper than the lexicons below
    chooses = bool(
        phrases.DECISION.search(low)
        or phrases.settles(low)
        or phrases.DECISION_CASED.search(clause)
        or (not opening and phrases.TEAM_PRACTICE.search(low))
    )
    if role == "user" and not chooses:
        if _RULED_OUT.match(low):
            return "ruled_out"
        if (" rather " in low or " prefer " in low) and _PREFERS.search(low):
            return "preference"
        chooses = bool(
            _JUSTIFIED_CHOICE.match(stripped)
            or _CONCLUDING_IMPERATIVE.match(clause)
            or _USER_CHOICE.match(low)
            or any(picked.match(low) for picked in _PICKED)
            or (", not " in low and _ONLY_NOT.search(low))
            or _DROPPED_FIRST.match(stripped)
        )
    if not chooses or _MEASUREMENT.search(low) or _NOT_DECIDED.search(low):
        return ""
    return "instruction" if role == "user" and _INSTRUCTION.match(stripped) else "choice_verb"


def declines(clause: str, emit: Emitter) -> bool:
    """ "No set lunch" after the assistant suggested one: an offer turned down, not a choice of
    the user's own (what is ruled out there was never on the table)."""
    offer = emit.state.offer
    return offer is not None and offer.names(labels.topic_words(clause) - _RULING_WORDS)


_RULING_WORDS = frozenset(
    "no not nah don't won't want will we i skip leave out yeah ok okay also and so but just think "
    "going to".split()
)


# A switch reported done: "Switched to the non-root user", "we moved over to Fastmail".
_SWITCHED = re.compile(
    r"^(?:(?:we|i)(?:'ve| have)?\s+)?(?:just\s+|finally\s+|now\s+)?(?:switched|moved) "
    r"(?:over |back )?to\s+(.+)$",
    re.IGNORECASE,
)


def _decided_before(what: re.Match[str] | None, emit: Emitter) -> Seen | None:
    """The decision taken earlier in the session on what the match's first group names."""
    if what is None:
        return None
    return emit.state.similar(NodeType.DECISION, labels.topic_words(what.group(1)), 0.5)


def carries_out(stripped: str, emit: Emitter) -> bool:
    """ "Switched to the non-root user" after "we run as non-root from now on": the switch carries
    out a decision already taken; it is the work done, not another choice."""
    return _decided_before(_SWITCHED.match(stripped), emit) is not None


# A setting's figure changed: "raised the upload cap to 25 MB", "cut the TTL to 60 seconds".
_FIGURE_CHANGED = re.compile(
    r"^(?:(?:we|i)(?:'ve| have)?\s+)?(?:raised|lowered|increased|decreased|reduced|bumped|dropped|"
    r"cut|upped|doubled|halved)\s+(.+?)\s+(?:to|at)\s+[$£€]?\d",
    re.IGNORECASE,
)


# What a team sets by its value: "The budget is £9,000", "target food cost is 30%", "every slot is
# fifteen minutes", "Batch size 16 with 4 accumulation steps", "Price goes up to £49". What it
# measures names no setting ("the build is 14 minutes", "p95 is 800 ms").
_SETTING_NOUNS = (
    "budget target price fee deposit rent markup margin discount salary wage "
    "timeout retries retry interval ttl retention threshold slot shift schedule "
    "frequency minimum maximum quota allowance curfew bedtime split ratio seed epochs batch "
    "batches size buffer port tolerance compatibility default"
).split()
_VALUE = (
    r"(?:[£$€]\s?\d|\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
    r"twenty|thirty|forty|fifty|sixty|ninety|a hundred|daily|weekly|monthly|nightly|hourly|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?)\b)"
)
_SETTING = Folded(
    r"^(?:(?:the|our|my|every|each|new)\s+(?:[\w'-]+\s+){0,2}?|"
    r"(?!\w+ed\s|ran\s|reran\s|set\s|kept\s|got\s|put\s|took\s|had\s|did\s)"
    r"(?:[\w'-]+\s+)?)(?:" + "|".join(_SETTING_NOUNS) + r")"
    # with a verb, "is/are ..." or a colon; without one, as "Batch size 16", "Markup 12%"
    r"(?:(?:e?s)?\s+(?:is|are|will\s+be|stays?|'s)(?:\s+(?:now|still|only|fixed\s+at|"
    r"capped\s+at|set\s+to))?|:)?\s+"
    + _VALUE
    + r"|^(?:the\s+)?(?:[\w'-]+\s+){0,2}?(?:goes|go|will\s+go)\s+(?:up|down)\s+to\s+[£$€]\d"
)


def sets_a_value(stripped: str) -> bool:
    """Whether a user's clause sets something by its value (``_SETTING``)."""
    return _SETTING.match(stripped) is not None


def revises_a_figure(stripped: str, emit: Emitter) -> bool:
    """ "Raised the upload cap to 25 MB" after "let's cap uploads at 10 MB": the work done moves a
    decided figure, so it states the new choice."""
    decided = _decided_before(_FIGURE_CHANGED.match(stripped), emit)
    return decided is not None and any(ch.isdigit() for ch in decided.label)


def accepts(text: str, decided_before: bool) -> bool:
    """A verbless reply that adopts an option: "OK, private bucket with presigned URLs." or, after
    a decision in the same turn, "And Coil's disk cache at 250 MB for images."."""
    body = ACK.sub("", text, count=1)
    if body == text:
        if not decided_before or not CONTINUATION.match(text):
            return False
        body = CONTINUATION.sub("", text, count=1)
    if len(body.split()) < 3 or phrases.HEDGE.search(body.lower()) or _VERB_LIKE.search(body):
        return False
    low = body.lower()
    deferred = phrases.DEFERRAL.search(low) or phrases.names_symptom(low)
    return bool(_QUALIFIED.search(low)) and not (phrases.INTERROGATIVE.match(body) or deferred)


def concludes(clause: str) -> bool:
    """ "I'd rather not add a queue, so cron jobs on the box": after "so", the option reasoned to,
    stated without a verb; "so three years holds" concludes a fact, not a choice."""
    return (
        bool(_CONCLUSION.match(clause)) and accepts(clause, False) and not _PRESENT.search(clause)
    )


def accepted_option(text: str) -> str:
    return CONTINUATION.sub("", ACK.sub("", text, count=1), count=1)


def decision(text: str, quote: str, emit: Emitter, cue: str, conf: float) -> None:
    """A decision with the reason and the replaced option the text gives."""
    if _REASON_ONLY.match(text.strip()):
        # "X, since managers read it on their phones": split off a list or a clause, the reason
        # is the decision's before it, not one of its own.
        before = next((c for c in reversed(emit.out) if c.type == NodeType.DECISION), None)
        if before is not None and before.evidence.position == emit.turn.position:
            before.reason = before.reason or labels.clean(text)
        return
    stance = _STANCE.match(text)
    if stance and "," in stance.group(0):
        # "My intention, for now, is to let Harlow pull the permit": the option, not the aside.
        text = text[stance.end() :]
    text, reason = _after_so(text)
    text, because = _reason(text, quote)
    reason = reason or because
    replaces = ""
    lead = _DROPPED_FIRST.match(labels.strip_leading(text))
    if lead:
        # "scratch Sidekiq, we'll do Solid Queue": the old option first, the new one after it.
        old, text = (
            (lead.group(1), lead.group(2)) if lead.group(1) else (lead.group(3), lead.group(4))
        )
        replaces = labels.clean(old)
    r = None if lead else phrases.REPLACES.search(text)
    if r and _POINTER_FIRST.match(next(g for g in r.groups() if g)):
        r = None  # "we're replacing it (with X)": the old option is the one talked about
    if r:
        group = next(i for i, g in enumerate(r.groups(), 1) if g)
        # "instead of ECS Fargate, the team knows Kubernetes": the option ends where a clause
        # begins, and that clause is the reason when the text gave none.
        tail = _OPTION_END.search(r.group(group))
        if tail:
            reason = reason or labels.clean(r.group(group)[tail.end() :])
            text = text[: r.start(group) + tail.start()]
        replaces = labels.clean(r.group(group)[: tail.start()] if tail else r.group(group))
        if _REPLACING.match(text[r.start() :]):
            text = text[: r.start()]
    move = _FROM_TO.search(text)
    if move:
        # "Switching from X to Y": X was the decision in force until now, Y replaces it.
        replaces = labels.clean(move.group(1))
        if labels.is_usable(labels.clean(move.group(2))):  # else ("RQ") the switch is the label
            emit.add(
                NodeType.DECISION,
                move.group(1),
                Status.COMPLETED,
                quote,
                cue=cue + "_old",
                conf=conf,
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


def _after_so(text: str) -> tuple[str, str]:
    """ "we have a Conan remote already so Conan 2 it is": the choice follows "so", and what comes
    before it is the reason, when only the part after "so" is worded as a choice."""
    for m in _SO.finditer(text):
        before, after = text[: m.start()], text[m.end() :]
        if _chooses(after.lower()) and not _chooses(before.lower()):
            return after, labels.clean(before)
    return text, ""


def _chooses(low: str) -> bool:
    return bool(phrases.DECISION.search(low) or phrases.TEAM_PRACTICE.search(low))


_NEXT_CLAUSE = re.compile(r"[:;]\s")


def _reason(text: str, quote: str) -> tuple[str, str]:
    """The choice without its reason, and the reason ("because ...", "— ...", "(...)", ", X")."""
    reason = ""
    m = phrases.REASON.search(text) or phrases.REASON.search(quote)
    if m:
        # The reason ends where the next clause begins: "because X leaked: we now use Y".
        reason = labels.clean(_NEXT_CLAUSE.split(m.group(1), maxsplit=1)[0])
        head = text[: m.start()] if phrases.REASON.search(text) else text
        if len(labels.strip_leading(head).split()) >= 2:
            text = head  # "LoRA because ...": a one-word choice keeps its reason in the label
    aside = _ASIDE.search(text)
    if aside and aside.group(2) and not _PROSE_ASIDE.fullmatch(aside.group(2)):
        aside = None  # "(room_id, slot_start)" is part of the choice, not a reason
    if aside:
        reason = reason or labels.clean(aside.group(1) or aside.group(2))
        text = text[: aside.start()]
    tail = _JUDGEMENT_TAIL.search(text)
    if tail:
        reason = reason or labels.clean(tail.group(1))
        text = text[: tail.start()]
    return text, reason


def without_restatements(out: list[Candidate]) -> list[Candidate]:
    """One message's candidates, a switch and its restatement made one decision.

    "Going with JWT instead of PASETO, since X. So: sign API tokens as JWT with ES256 keys": the
    later decision holds every word of the option the switch chose, so it states the same choice
    more precisely. It keeps its wording and takes the switch's reason, what it replaces and
    the sentence saying so (read again across sessions, see ``standing``).
    """
    kept: list[Candidate] = []
    for c in out:
        if c.type == NodeType.DECISION and not c.replaces:
            switch = next((k for k in reversed(kept) if _restates(c, k)), None)
            if switch is not None:
                c.reason, c.replaces = c.reason or switch.reason, switch.replaces
                if switch.evidence.quote not in c.evidence.quote:  # the words naming the switch
                    quote = f"{switch.evidence.quote} {c.evidence.quote}"[:500]
                    c.evidence = Evidence(c.evidence.position, quote)
                kept.remove(switch)
        kept.append(c)
    return kept


def _restates(later: Candidate, switch: Candidate) -> bool:
    if switch.type != NodeType.DECISION or not switch.replaces:
        return False
    chosen = words.topic(switch.label) - words.topic(switch.replaces)
    return bool(chosen) and chosen <= words.topic(later.label)


# A reply taking up what the assistant just proposed, without restating it: "ok, do that", "sounds
# good, let's do it", "yes please", "go with your suggestion".
_ADOPTS = re.compile(
    r"^(?:(?:ok|okay|yes|yeah|yep|sure|great|perfect|fine|alright|agreed|good|cool|right|thanks|"
    r"thank you)\b[,.!]*\s*)*(?:"
    r"(?:(?:let's|we'll|i'll|please|then|just|so)\s+)*(?:do|go with|go for|use|take|try|apply|"
    r"implement)\s+(?:that|it|this|those|them|yours|your (?:suggestion|idea|proposal|approach|"
    r"version|fix|plan|option|recommendation))\b|"
    r"(?:that|this|it)?\s*(?:sounds|looks) (?:good|great|right|fine|sensible|reasonable)\b|"
    r"(?:that|this) works(?: for me)?\b|works for me\b|(?:yes|ok),? please\b|makes sense,"
    r")",
    re.IGNORECASE,
)
# How a reply taking an option may open: "ok,", "yes", "so".
_ASSENT_OPENING = r"^(?:(?:ok|okay|yes|yeah|so|then)[,.!]?\s+)?"
# A reply naming the proposed option it takes: "Influx + Grafana, yes", "token bucket sounds good".
_ADOPTS_NAMED = re.compile(
    _ASSENT_OPENING + r"(?!(?:that|this|it|all|both|everything|sounds|"
    r"looks)\b)([^,;.?!]{2,50}?),?\s+(?:yes|yep|please|sounds (?:good|great|right|fine)|"
    r"looks (?:good|right|fine)|works for me|is fine)\b[^?]*$",
    re.IGNORECASE,
)
# The words of assent ``_ADOPTS_NAMED`` ends with: a scan for them spares most replies its regex.
_NAMES_ASSENT = re.compile(r"\b(?:yes|yep|please|sounds|looks|works for me|is fine)\b")
# "Do the GenServer buffer, 500ms flush": one of the options offered, taken.
_TAKES_ONE = re.compile(
    _ASSENT_OPENING + r"(?:let's\s+|we'll\s+|i'll\s+)?(?:do|take)\s+"
    r"((?:the|your)\s+[^,;.?!]{3,60})",
    re.IGNORECASE,
)
# How an assistant puts an option forward, before the option itself: "For retries I'd use X".
_PROPOSING = re.compile(
    r"^(?:(?:for|on|about|as for) [^,]{2,40}?,?\s+)?(?:(?:i'd|i would|i'd probably|i would probably)"
    r"(?: (?:just|still|rather|personally))? (?:use|go with|pick|choose|keep|switch to|do|start with|"
    r"add|put|set|run|make)|i (?:recommend|suggest)(?: (?:that )?(?:you|we))?|i'd (?:recommend|"
    r"suggest)(?: (?:that )?(?:you|we))?|my (?:suggestion|recommendation) (?:is|would be)(?: to)?|"
    r"(?:the )?(?:simplest|easiest|safest|cleanest|best) (?:fix|option|route|approach|way) "
    r"(?:is|would be)(?: to)?|one option is(?: to)?|(?:you could|you can|you might|consider))\s+",
    re.IGNORECASE,
)


def adopts(text: str, emit: Emitter) -> bool:
    """A user adopting what the assistant proposed; the proposal becomes the decision.

    "ok, do that" adopts the proposal itself; "token bucket sounds good" adopts the option it
    names, when the assistant named it too; "Model actor." or "yes, paging." echoes one of the
    options offered. A question adopts nothing.
    """
    offer = emit.state.offer
    if offer is None or "?" in text:
        return False
    low = text.lower()
    named = (
        (_NAMES_ASSENT.search(low) and _ADOPTS_NAMED.match(text))
        or _TAKES_ONE.match(text)
        or (", " in text and _OPTION_THEN_ADOPTED.match(text))
    )
    if named and not _ADOPTS.match(text):
        if not offer.names(labels.topic_words(named.group(1))):
            return False
        decision(text, text, emit, cue="adopted", conf=0.65)
        return True
    if _ADOPTS.match(text):
        proposal = next((p for p in offer.statements if _PROPOSING.match(p)), None)
        if proposal is None:
            return False
        decision(_PROPOSING.sub("", proposal, count=1), text, emit, cue="adopted", conf=0.6)
        return True
    return len(text) < 80 and len(text.split()) <= 10 and _echoes(text, offer, emit)


def _echoes(text: str, offer: Offer, emit: Emitter) -> bool:
    """ "Model actor.", "ok, interceptor, 3 attempts.", "we'll compute proration in the updater
    then": a short reply repeating one of the options just offered takes it. The option is the
    offer that says it, unless the reply itself says enough."""
    body = _REPLY_OPENING.sub("", text.strip(), count=1).rstrip(" .!")
    if len(body.split()) > 8 or _NOT_AN_OPTION.search(body):
        return False
    if _VERB_LIKE.search(body) and not body.endswith(" then"):
        return False
    found = labels.topic_words(body)
    if not found or not offer.names(found):
        return False
    offers = [p for p in offer.statements if _OFFERS.search(p)]
    if not offers:
        return False
    best = max(offers, key=lambda p: len(found & labels.topic_words(p)))
    if len(found & labels.topic_words(best)) * 5 < len(found) * 3:
        return False
    option = body if len(found) >= 3 else _PROPOSING.sub("", best, count=1)
    decision(option, text, emit, cue="adopted", conf=0.6)
    return True


# A sentence putting options forward: "I'd use X", "two options: X or Y", "X is cleaner".
_OFFERS = re.compile(
    r"\b(?:i'd|i would|recommend|suggest|options?|alternative|either|you could|or|instead|"
    r"cleaner|simpler|safer|better|prefer)\b",
    re.IGNORECASE,
)
# A reply reporting or describing, not naming an option: "done, temp then replace", "mostly large
# accounts", "not a historic district", "omg both links connected".
_NOT_AN_OPTION = re.compile(
    r"\b(?:done|mostly|not|no|both|all|checked|tried|added|fixed|connected|works?|working|"
    r"omg|lol|thanks)\b|\w+ed\b",
    re.IGNORECASE,
)
_REPLY_OPENING = re.compile(
    r"^(?:(?:ok|okay|yes|yeah|yep|sure|fine|right|alright|perfect|great|good|so)\b[,.!]*\s*)+",
    re.IGNORECASE,
)
# "relay heats in the morning is smart, let's do that": the option named, then taken.
_OPTION_THEN_ADOPTED = re.compile(
    r"^(?:(?:ok|okay|yes|yeah)[,.!]?\s+)?([^,;.?!]{3,60}?)\s+(?:is|sounds|seems|looks)\s+\w+,\s+"
    r"(?:so\s+)?(?:let's\s+)?(?:do|go with|take)\s+(?:that|it)\b",
    re.IGNORECASE,
)
