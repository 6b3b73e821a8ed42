"""One plain-language clause classified by its predicate: problem, deferral, choice, work done."""

from __future__ import annotations

import re

from memory.graph import decisions, failures, labels, paths, phrases, speakers
from memory.graph.candidates import Emitter
from memory.graph.prefilter import Guarded
from memory.graph.speakers import AGENT_LOG
from memory.graph.types import Status

_STARTS_DONE_VERB = re.compile(
    r"^(?:(?:i|we)(?:'ve| have)?\s+)?(?:also\s+|just\s+|then\s+|finally\s+)?([a-z]+)(?=\s)"
)
# "that's after I put the setting back": a first-person report a few words into the clause.
# Possessive runs: a word or a space given back could only meet what cannot follow it.
_SUBJECT_DONE_VERB = re.compile(
    r"^(?:\S++\s++){0,3}?(?:i|we)(?:'ve| have)?\s+(?:also\s+|just\s+)?([a-z]+)\b(.*)$",
    re.IGNORECASE,
)
_FIX = re.compile(
    r"^(?:(?:i|we)(?:'ve| have)?\s+)?(?:fixed|resolved|solved|patched|did (?:fix|solve|patch))\b\s*",
    re.IGNORECASE,
)
_FIXED_STATE = Guarded(
    re.compile(
        r"\b(?:is|are|'s|was|were) (?:now )?(?:fixed|resolved)\b|^no more\b|"
        # "that rounding thing hasn't come back since the patch", "emails are flowing again".
        r"\b(?:hasn't|has not|haven't|have not|didn't) (?:come back|happened again|recurred|"
        r"returned|shown up again)\b|\b(?:is|are|'s|'re) (?:flowing|working|sending|arriving|"
        r"syncing|loading|running|printing) (?:fine |normally |properly )?again\b",
        re.IGNORECASE,
    ),
    ("fixed", "resolved", "no more", "come back", "happened again", "recurred", "returned")
    + ("shown up again", "again"),
    lower=True,
)
# "until the roof is fixed", "once the bug is resolved": the state is a condition for what follows.
_CONDITION_BEFORE = re.compile(
    r"\b(?:until|till|once|when|after|as soon as|before|unless|if)\b[^,;]*$"
)
# Requests to look into something, which name a problem area without stating a problem.
_REQUEST = re.compile(
    r"^(?:look at|look into|check|investigate|debug|find out|figure out|review|audit|fix|help|"
    r"can you|could you|please)\b",
    re.IGNORECASE,
)
# Asking to be told ("look at X and tell me what needs to change"): a question, not work to track.
_ASKS_BACK = re.compile(
    r"^(?:please,? )?(?:(?:have|take) a look at|look (?:at|into|over|through)|check|read|review|go (?:over|through)|"
    r"skim|inspect)\b.*\b(?:and|then) (?:tell me|let me know|explain|report back|summari[sz]e)\b",
    re.IGNORECASE,
)


# "Put it on the list": a pointer to the work just named, not work of its own.
_ON_THE_LIST = re.compile(
    r"^(?:(?:put|keep|add|leave|park) (?:it|this|that|them|those) (?:on|to|in) (?:the |our |my )?"
    r"(?:list|backlog|board|radar|roadmap|todo list)\b)",
    re.IGNORECASE,
)


def asks(text: str) -> bool:
    """Whether a user's sentence asks the assistant for something ("please look at X", "check the
    logs and tell me", "put it on the list"), which the reply answers: no work to track."""
    plain = labels.strip_filler(text)
    return bool(
        _REQUEST.match(plain)
        or speakers.IMPERATIVE.match(plain)
        or _ASKS_BACK.match(plain)
        or _ON_THE_LIST.match(plain)
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
_POINTS_BACK = re.compile(r"(?:that|this|it)\b", re.IGNORECASE)
# "That was it" after a suggestion: the problem it addressed is solved.
_CONFIRMED_FIX = re.compile(
    r"^(?:that|this|it)(?:'s| was| is)? (?:was it|it|fixed it|did it|did the trick|worked|solved it|"
    r"sorted it|the fix|the problem|the issue)\b|"
    # The suggestion named: "interpolate did it", "the longer timeout did the trick".
    r"^(?!(?:i|we|you|they|he|she|nobody|someone|somebody|who|what)\b)(?:the )?[\w.+/-]++"
    r"(?: [\w.+/-]++){0,3} (?:did it|did the trick|fixed it|sorted it|was the fix)\b",
    re.IGNORECASE,
)
# Results an investigation established.
_FINDING = re.compile(
    r"^(?:measured|(?:the |our |a )?(?:experiment|test run|"
    r"benchmark|analysis|profile|profiling|trace|data|results?|logs?|ablation|survey|study) "
    r"(?:showed|shows|revealed|confirmed|indicated|found))\b",
    re.IGNORECASE,
)
_BLOCKED = re.compile(r"\bblocked (?:on|by) (?!it\b|that\b|this\b|them\b)")
# Someone else reporting work done: "Tomasz added the step yesterday", "they fixed the mapping".
_OTHER_DID = re.compile(
    r"^(?:(?:my|our) (?:colleague|teammate|lead) )?(?:(?:[Tt]he )?[A-Za-z]+ team|"
    # "The client signed it", "our accountant filed the return": someone the work was left to.
    r"(?:[Tt]he|[Oo]ur|[Mm]y) (?:client|customer|vendor|supplier|landlord|accountant|lawyer|"
    r"designer|contractor|agency|bank|insurer|plumber|electrician|board|manager|boss|auditor|"
    r"recruiter|developer|broker|editor|publisher|printer|installer|mechanic)|[A-Z][a-z]+|they|he|"
    r"she)"
    # "Priyanka from recruiting sent the apologies": the person named by where they work.
    r"(?: (?:from|in|on) (?:the )?[a-z]+)?(?: (?:already|just|finally|also))? ([a-z]+)\b"
)
# What a person does to the work, as opposed to what numbers do ("Numbers dropped a lot").
_WORK_VERBS = frozenset(
    "added built fixed booked wrote rewrote created deployed merged shipped implemented set "
    "installed configured migrated released published updated upgraded pushed sent ported wired "
    "enabled removed deleted replaced renamed reverted cleaned applied documented generated "
    "finished completed reviewed tested submitted uploaded rebuilt restored signed confirmed "
    "approved drafted backfilled repaired ran reran rolled filed paid ordered delivered".split()
)
# Who wants what: "Ops wants ...", "The app team wants ...", "Lea, our research lead, wants ...".
_TEAM_POSITION = re.compile(
    r"^(?:[Tt]he )?(?!(?:I|[Ww]e|[Yy]ou|[Tt]hey|[Ii]t|[Hh]e|[Ss]he|[Tt]his|[Tt]hat|[Nn]obody|"
    r"[Ee]veryone|[Ss]omeone)\b)[A-Za-z][\w-]*(?: [a-z]+){0,2}(?:,[^,]{3,40},| \([^)]{2,40}\))? "
    r"(?:wants (?!to (?:know|see|ask|check|understand|talk|discuss|meet|chat|hear)\b)|"
    r"(?:thinks|says|said|feels) (?:that )?(?:we|it|they|you) should\b|would like\b|'d like\b|"
    r"prefers\b|insists on\b)"
)
_POSITION_VERB = re.compile(
    r" (?:wants|thinks|says|said|feels|would like|'d like|prefers|insists) "
)
# "will flip it to enforcing on Monday" plans work; "will it hold up" asks.
_OWN_PLAN = re.compile(
    r"^will (?!(?:it|this|that|these|those|the|a|an|we|i|you|they|he|she|there|anyone|someone|"
    r"everyone|my|our|your|be|that|do)\b)[a-z]+ (?:it|them|this|that|the|a|an|my|our|\w+)\b|"
    # "Have to redo the cost model": an obligation with its subject dropped, not "Have you ...".
    r"^(?:have|need) to (?!be\b)[a-z]+",
    re.IGNORECASE,
)
# "did the swap in src/cli.rs" reports work; "did the deploy go out" asks about it.
_DID_REPORT = re.compile(
    r"^did (?:the|a|an|my|our|some|that|this) (?![^,;]*\b(?:go|work|pass|run|break|fail|finish|land|"
    r"help|fix|change|get|make|show|come|happen|start|deploy|ship|merge|build|say|see|look)\b)",
    re.IGNORECASE,
)
# A user reporting an action of theirs in any past-tense verb, with its object: "bumped the sftp
# provider to 4.9.1", "turned the zap off". Not states of mind ("interested in", "confused by").
_DID_SOMETHING = re.compile(
    r"^(?!(?:based|used|supposed|interested|confused|tired|concerned|worried|excited|annoyed|"
    r"surprised|scared|seemed|wanted|needed|planned|tried|hoped|expected|guessed|assumed|"
    r"wondered|noticed|learned|heard|asked|called|named|related|attached|limited|allowed|"
    r"required|stuck|failed|crashed|decided|meant|red|"
    # Running or probing something is how work is checked, not a piece of it.
    r"tested|kicked|retried|restarted|checked|verified|looked|reproduced|rerun|reran|ran)\b)"
    r"(?:[a-z]{3,}ed|did|made|wrote|"
    r"rewrote|sent|built|rebuilt|put|took|cut|split|threw|drew|gave|got)\s+(?:the|a|an|my|our|"
    r"all|both|every|each|it|them|this|that|those|these|one|two|three|\d+|up|out|off|back|over)\b"
)
# Work reported done earlier: "fixed the calculator this afternoon", "backfilled it on Friday"
# is no deferral.
_DONE_TODAY = Guarded(
    re.compile(
        r"^(?!.*\b(?:will|'ll|gonna|going to|need|needs|have to|has to|plan|want|should|must|"
        r"can|not|n't|still)\b)(?:\S+ ){0,3}?(?:[a-z]{3,}ed|sent|made|wrote|built|ran|did|got|went|"
        r"saw|told|took|drove|rang|gave|bought|sold|paid|brought|found|met|spoke|came|chose|kept|"
        r"fed|won|lost|flew|rode)\b"
        r"[^.;]{0,80}?\b(?:this (?:afternoon|morning)|earlier today|"
        r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b"
    ),
    ("this afternoon", "this morning", "earlier today", "on monday", "on tuesday", "on wednesday")
    + ("on thursday", "on friday", "on saturday", "on sunday"),
)
# An artifact named where it lives, without "now"/"already": "the config is in configs/x.yaml".
_IN_PLACE = re.compile(r"\b(?:is|are) in (?:[\w.-]*/[\w./-]+|[\w-]+\.[a-z]{1,5}\b)")
_SOMEONE_DOING = re.compile(
    r"^(?:(?:yeah|yes|ok|so|and|also),? )?[A-Z][a-z]+ is (?:already |currently |now )?"
    r"(?!going\b|seeing\b|getting\b|having\b|saying\b|asking\b|using\b|hoping\b|waiting\b|"
    r"thinking\b|wondering\b|complaining\b|expecting\b|coming\b)[a-z][a-z-]+ing\b"
    r"(?! (?:to|from|over|back|away|off)\b)"  # "Analytics is moving to X" moves itself: a choice
)
_PERFECT_REPORT = re.compile(
    r"^(?:i|we)(?:'ve| have)\s+(?:also\s+|just\s+|now\s+|already\s+)?([a-z]{3,}ed)\s+\S",
    re.IGNORECASE,
)
# A participle reported without its auxiliary: "Parquet written for the 10th and 11th", "new cert
# issued manually with certbot", "already applied on staging", "all 48211 indexed".
_PARTICIPLE_REPORT = re.compile(
    r"^(?:(?:already|all|now|just) (?:[\w.-]+ ){0,2}?|(?:the |new )?(?:[\w.-]+ ){1,2}?)(?:written|"
    r"issued|applied|indexed|uploaded|installed|signed|filed|printed|published|generated|exported|"
    r"imported|backfilled|submitted|booked|ordered|paid|renewed|reissued)"
    r"(?: (?:for|on|in|to|at|with|via|into|manually|automatically|like|yesterday|today|last|this)\b|"
    r"[.!]*$)"
)
# "The vendor confirmed it's Windows-1252": what someone confirmed is a fact, not work done.
_STATES_A_FACT = re.compile(r" (?:that|it's|it is|it was|they're|there's|there is)\b")
_THING_START = re.compile(r"(?:it|this|that|these|those)\b", re.IGNORECASE)
_NEGATED = re.compile(r"n't\b|\b(?:not|never|no longer|nothing|none)\b", re.IGNORECASE)
_PRONOUN_START = re.compile(
    r"^(?:it|it's|they|he|she)\b|^(?:this|that|these|those)\s+(?:is|was|are|were|went|has|have)\b",
    re.IGNORECASE,
)


_REASON_OPENINGS = ("since ", "because ", "as ", "given that ", "seeing as ")
_REASON_START = re.compile(r"\s(?:because|since)\s|,\s(?:as|given that|seeing as)\s")


def _when_it_fails(clause: str, sentence: str, role: str) -> bool:
    """ "When the job runs it crashes": what goes wrong after the moment it names; "When payments
    fail we email the customer" names a failure only as the condition of a rule."""
    body = labels.strip_filler(clause)  # "But when I call it ..."
    if "?" in sentence or not body[:5].lower().startswith("when "):
        return False
    if "," in body:
        # "when i click on save, nothing happen"; not "when it times out, show the retry button".
        after = body.split(",", 1)[1].strip()
        return bool(phrases.names_symptom(after.lower())) and not speakers.IMPERATIVE.match(after)
    after_condition = body.split(maxsplit=3)[-1]
    return failures.is_problem(after_condition, role, agent=True)


def _chosen_before(low: str, deferral: int) -> bool:
    """ "We agreed to freeze the API until the release": a choice, which the deferral after its
    verb only bounds in time."""
    return deferral > 0 and _EXPLICIT_CHOICE.search(low, 0, deferral) is not None


_EXPLICIT_CHOICE = re.compile(r"\b(?:decided|agreed|chose|opted|settled on|went with|going with)\b")


def _main_part(low: str) -> int:
    """Where the clause's own statement ends: "picked the van because the other still has to pass
    inspection" states a choice; what still has to happen is only its reason."""
    m = _REASON_START.search(low) if ("because" in low or "since" in low or " as " in low) else None
    return m.start() if m else len(low)


def classify(clause: str, sentence: str, role: str, emit: Emitter) -> str:
    """Emit the fact one clause states; returns its kind ("decision", "error", ...) or ""."""
    clause = clause.rstrip(" :")
    low = clause.lower()  # the lexicons match lower-cased text
    fronted = _fronted_alternative(clause, low, sentence, role, emit)
    if fronted is not None:
        return fronted
    confirmed = _CONFIRMED_FIX.match(labels.strip_filler(clause)) if role == "user" else None
    if confirmed:
        emit.resolve_latest(sentence, cue="confirmed_fix")
        if not _POINTS_BACK.match(confirmed.group(0)):  # "IFERROR sorted it": the fix is work done
            emit.task(confirmed.group(0), Status.COMPLETED, sentence, cue="confirmed_fix")
        return "completed"
    if emit.after_decision and low.startswith(_REASON_OPENINGS):
        return ""  # "going with X, since Y is not there yet": Y is why, not work left to do
    stripped = labels.strip_leading(clause)
    # The question test reads the clause with its subject: "let's do X" is no question, "do X?" is.
    asked = phrases.INTERROGATIVE.match(labels.strip_filler(clause))
    if asked and _when_it_fails(clause, sentence, role):
        asked = None  # "When the job runs it crashes.": a time, not a question
    if asked and role == "user" and _OWN_PLAN.match(stripped) and "?" not in sentence:
        return _pending(stripped, clause, sentence, emit)  # "will flip it on Monday": no question
    if asked and role == "user" and _DID_REPORT.match(stripped) and "?" not in sentence:
        emit.task(stripped, Status.COMPLETED, sentence, cue="done")  # "did the swap in src/cli.rs"
        return "completed"
    if not stripped or asked or hedged(clause, role):
        return ""
    if role == "user" and (_ASKS_BACK.match(stripped) or _ON_THE_LIST.match(stripped)):
        return ""
    if role != "user" and sentence.rstrip().endswith(":") and not AGENT_LOG.match(sentence):
        return ""  # an assistant line introducing code or a list describes, it does not report
    if _SEQUENCING.match(stripped):
        return ""  # "I'll start with Apple": the order of work, not a piece of it
    resolved = _resolution(stripped, sentence, role, emit)
    if resolved == "completed":
        return resolved
    ended = resolved == "ended"  # a problem reported over is no problem, but may report work
    if not ended and _may_state_problem(role, emit) and failures.is_strong_problem(clause):
        emit.error(failures.problem_label(clause), sentence, cue="problem", conf=0.7)
        return "error"
    if emit.advisory:
        return ""
    if (
        role == "user"
        and _POSITION_VERB.search(low)  # the substring first: the regex is long
        and _TEAM_POSITION.match(clause)
        and phrases.UNSETTLED.search(emit.turn.content)
    ):
        # "Ops wants the window on Sunday. That part is not settled.", "Lena thinks we should
        # record the demo instead. I'm not sure.": someone's position in a choice still open
        # (where no choice is open, a team that wants X states a requirement).
        decisions.decision(clause, sentence, emit, cue="position", conf=0.65)
        return "decision"
    if _reported(low):
        return _problem(clause, sentence, role, emit)  # what others say is no task of ours
    deferral = phrases.DEFERRAL.search(low[: _main_part(low)])
    if deferral and not _DONE_TODAY.search(low) and not _chosen_before(low, deferral.start()):
        if _BLOCKED.search(low):  # a blocker is work waiting and a problem standing in its way
            _problem(clause, sentence, role, emit)
        return _pending(stripped, clause, sentence, emit)
    if role == "user" and _SOMEONE_DOING.match(clause) and not failures.is_problem(clause, role):
        # "Kwame is moving the workflows to OIDC this sprint": work in someone's hands, even when
        # it is worded like a choice; "Search is returning deleted projects" is no one's work.
        return _pending(stripped, clause, sentence, emit)
    if role == "user" and decisions.concludes(clause):
        option = decisions.accepted_option(clause)
        decisions.decision(option, sentence, emit, cue="conclusion", conf=0.65)
        return "decision"
    cue = decisions.choice_cue(clause, stripped, low, role, opening=emit.turn.position == 0)
    if (cue == "ruled_out" and decisions.declines(stripped, emit)) or (
        cue == "preference" and emit.after_decision
    ):
        cue = ""  # an offer turned down; "..., I'd rather give the db room" gives the reason
    if cue and decisions.carries_out(stripped, emit):
        emit.task(stripped, Status.COMPLETED, sentence, cue="done")
        return "completed"
    if cue:
        decisions.decision(clause, sentence, emit, cue=cue, conf=0.7)
        return "decision"
    if role == "user" and decisions.sets_a_value(stripped):
        decisions.decision(clause, sentence, emit, cue="setting", conf=0.65)
        return "decision"
    if _plans(low, role) or (_pending_cased(clause) and not failures.is_problem(clause, role)):
        return _pending(stripped, clause, sentence, emit)
    done = _reports_done(stripped, clause, role) or _finding(stripped, role, emit)
    if done and emit.turn.position <= 1 and _IN_PLACE.search(done):
        # "The playbook is in playbooks/patch.yml" opening a session describes what exists.
        return ""
    if done and decisions.revises_a_figure(stripped, emit):
        decisions.decision(clause, sentence, emit, cue="choice_verb", conf=0.7)
        return "decision"
    if done:
        if not paths.names_only_files(done):
            emit.task(done, Status.COMPLETED, sentence, cue="done")
        return "completed"
    return "" if ended else _problem(clause, sentence, role, emit)


def _fronted_alternative(
    clause: str, low: str, sentence: str, role: str, emit: Emitter
) -> str | None:
    """ "Instead of a rewrite, we'll refactor billing in place" says "we'll refactor billing in
    place instead of a rewrite": the fronted clause is set aside ("") and read with the choice
    after its comma ("decision"). None: the clause is neither."""
    if role == "user" and low.startswith(("instead of ", "rather than ")):
        emit.set_aside = None if "," in clause else (sentence, clause)
        return "" if emit.set_aside else None
    if not emit.set_aside or emit.set_aside[0] != sentence:
        return None
    aside, emit.set_aside = emit.set_aside[1], None
    if not _CHOOSER_FIRST.match(labels.strip_filler(clause)):
        return None
    option = f"{clause.rstrip(' .!')} {aside[0].lower()}{aside[1:]}"
    decisions.decision(option, sentence, emit, cue="instead", conf=0.7)
    return "decision"


def _resolution(stripped: str, sentence: str, role: str, emit: Emitter) -> str:
    """A fix ("Fixed the X by Y") or a problem reported gone ("the X bug is fixed"): "completed";
    "ended" for a problem reported over ("works now"), whose clause may still report work."""
    if _FIX.match(stripped):
        if not emit.advisory:
            verb = "Fixed" if role == "user" else ""
            emit.fix(_FIX.sub("", stripped) or stripped, sentence, cue="fix_verb", keep_verb=verb)
        return "completed"
    reports = role == "user" or not emit.advisory  # an assistant reports when it narrates
    state = _FIXED_STATE.search(stripped) if reports else None
    if state and _CONDITION_BEFORE.search(stripped, 0, state.start()):
        state = None  # "the party can wait until the roof is fixed": a condition, not a report
    if state:
        # "No more duplicate emails": what is no more follows; "the X bug is fixed": it comes first.
        subject = stripped[state.end() :] if state.start() == 0 else stripped[: state.start()]
        emit.fixed_state(stripped, subject, sentence)
        return "completed"
    back = _BACK_TO_NORMAL.search(stripped) if reports and emit.state.open_errors else None
    if (
        back
        and not _NEGATED.search(stripped, 0, back.end())
        and not _CONDITION_BEFORE.search(stripped, 0, back.start())
    ):
        subject = stripped[: back.start()]
        # "All my notes are gone" is a problem; "the login bug is gone", "the 502s stopped" end one.
        named = not back.group(1) or failures.names_problem(subject)
        if emit.back_to_normal(subject, sentence, latest=named):
            return "ended"
    return ""


# A problem reported over, without a fix named: "the login bug is gone now", "the 502s stopped
# after the nginx change", "works now after clearing the cache", "cents match now". The first
# group, something gone or stopped, ends a problem only where its subject names one.
_BACK_TO_NORMAL = Guarded(
    re.compile(
        r"\b((?:is|are|'s|'re) (?:all |now )?gone|stopped|went away|disappeared|vanished)\b|"
        r"\b(?:works?|working|worked|pass|passes|passing) (?:fine |properly |"
        r"correctly )?(?:now|again)\b|\bgreen again\b|\b(?:match|matches|add up|adds up|arrive|"
        r"arrives|go through|goes through|loads?|syncs?|prints?) (?:fine |correctly |properly )?"
        r"(?:now|again)\b|^(?:all )?(?:sorted|solved)\b",
        re.IGNORECASE,
    ),
    ("gone", "stopped", "went away", "disappeared", "vanished", "now", "again", "sorted", "solved"),
    lower=True,
)


# Who chooses, opening a clause: "we'll refactor ...", "I'd rather ...", "let's ...", "cap it at 5".
_CHOOSER_FIRST = re.compile(
    r"^(?:we|i|let's|let us)\b|^(?:cap|use|keep|go|do|make|switch|move|stick|pick|run|put|ship|"
    r"build|write|send|store|host|pay|buy|book|hire|offer)\b",
    re.IGNORECASE,
)

# A purpose: "so nothing gets lost", "so a hung radio stack can't brick a probe"; not a
# consequence ("so now it won't start", "so the build can't finish any more").
_PREVENTS = re.compile(
    r"^so(?: that)? (?!.*\b(?:now|anymore|any more|again)\b)"
    r"(?:(?:nothing|nobody|no one|no)\b|(?:\S+ ){1,5}?(?:can't|cannot|won't|never)\b)",
    re.IGNORECASE,
)
# A clause whose subject comes first ("i keep getting logged out") is no imperative, whatever verb
# follows the subject.
_SUBJECT_FIRST = re.compile(r"^\s*(?:i|we|they|he|she|it)\s", re.IGNORECASE)


def _problem(clause: str, sentence: str, role: str, emit: Emitter) -> str:
    if emit.after_decision:
        return ""  # a decision's reason is not a new problem
    request = labels.strip_leading(clause)
    if role == "user" and (
        _REQUEST.match(request)
        or (speakers.IMPERATIVE.match(request) and not _SUBJECT_FIRST.match(clause))
    ):
        return ""  # "Look at the corrupt-database recovery path" asks for work, it reports nothing
    if _PREVENTS.match(clause):
        return ""  # "..., so nothing gets mixed up at the stall": what a step keeps from happening
    if emit.last_error_turn == emit.turn.position and _RATE.search(clause):
        return ""  # "Roughly one in four runs fails" measures the problem just stated
    if _may_state_problem(role, emit) and failures.is_problem(clause, role, agent=True):
        emit.error(failures.problem_label(clause), sentence, cue="problem", conf=0.65)
        return "error"
    return ""


def pointed_problem(clause: str, whole: str, sentence: str, role: str, emit: Emitter) -> str:
    """A problem stated of "it" after another fact ("I wrote the query but it fails"), labelled
    with the words naming what "it" is."""
    if hedged(clause, role) or not _may_state_problem(role, emit):
        return ""
    if not failures.is_problem(clause, role, agent=True):
        return ""
    emit.error(failures.problem_label(whole), sentence, cue="problem", conf=0.65)
    return "error"


def announced_problem(clause: str, sentence: str, role: str, emit: Emitter) -> str:
    """The clause after "One problem:" states the problem, with or without a failure verb."""
    if hedged(clause, role) or len(clause.split()) < 3 or not _may_state_problem(role, emit):
        return ""
    emit.error(failures.problem_label(clause), sentence, cue="announced_problem", conf=0.65)
    return "error"


# "the export that the managers asked for": a reporting verb inside a relative clause qualifies
# the subject; the clause's own predicate still states the fact.
# "the part that everyone says", "see what he says": a relative clause or a question's object,
# not speech reported.
_RELATIVE_BEFORE = re.compile(r"\b(?:that|which|who)(?: [\w'-]+){0,3} $|\bwhat(?: [\w'-]+){1,2} $")
# The one who will do planned work: an assistant's "the reviewer will look for X" predicts.
_FIRST_PERSON_WILL = re.compile(r"\b(?:i|we)(?:'ll| will| shall)\b|\b(?:i|we) (?:\w+ )?will\b")
# "Tomasz said he'd look at it": reported, but work promised.
_PROMISE = re.compile(
    r" (?:that )?(?:he|she|they)(?:'d|'ll| would| will) (?!be\b|not\b|never\b|have\b)"
)


# "added the field like you said": acting on the advice, not reporting what someone says.
# "I say we keep it", "the ad will say 150 to 170": the speaker's own word or what a text is to
# say, not a report.
_OWN_SAY = re.compile(r"(?:\b(?:i|we|let's|will|should|must|to|can|could|would)|'d|'ll)\s+$")
# What the assistant said ("kept the 8 workers you said") or one's gut says is no third party's.
_AS_ADVISED = re.compile(
    r"\b(?:(?:like|as) )?you (?:\w+ )?$|\bmy (?:gut|instinct|first instinct) $"
)


_DELEGATED = re.compile(
    r" (?!(?:you|me|us|for|about|whether|if|why|how|what|around)\b)(?:the )?[\w-]+(?: [\w-]+)? to "
    r"(?!be\b|know\b|see\b|say\b)[a-z]"
)


def _reported(low: str) -> bool:
    m = phrases.REPORTED.search(low)
    if m is None or _RELATIVE_BEFORE.search(low, 0, m.start()):
        return False
    if _AS_ADVISED.search(low, 0, m.start()) or _OWN_SAY.search(low, 0, m.start()):
        return False
    if low.startswith(("asked", "told"), m.start()) and _DELEGATED.match(low, m.end()):
        return False  # "I've asked Bilal to cut an exercise": work handed on, not speech reported
    return not _PROMISE.match(low, m.end())


def _plans(low: str, role: str) -> bool:
    """Work planned; in an assistant's words, only its own ("I'll add X"), not what others will do."""
    m = phrases.PENDING.search(low)
    if m is None or role == "user" or not low.startswith("will", m.start()):
        return m is not None
    return bool(_FIRST_PERSON_WILL.search(low))


# Hedges that qualify only the clause they stand in (a counterfactual "would have" does not).
_LATER_HEDGE = re.compile(r"maybe|perhaps|probably|might")
_SOMEDAY = re.compile(r"\b(?:i|we) should (?:\w+ )?\w+\b.*\b(?:at some point|eventually|someday)\b")


def hedged(clause: str, role: str) -> bool:
    """Suggestions and hypotheticals; a user's stated preference ("I'd rather X") still counts."""
    low = clause.lower()
    if role != "user":
        if not _REPORTED_WORK.match(low):
            return bool(phrases.HEDGE.search(low))
        # "I added a guard that aborts if the count changes": a condition the work describes.
        return any(not low.startswith(_CONDITIONS, m.start()) for m in phrases.HEDGE.finditer(low))
    m = phrases.USER_HEDGE.search(low)
    if m is None or phrases.USER_PREFERENCE.search(clause):
        return False
    if _SOMEDAY.search(low):
        return False  # "I should probably update X at some point": work for later all the same
    return not (_LATER_HEDGE.match(low, m.start()) and _in_clause_after(low, m.start()))


# An agent reporting its own finished work: "I've added X", "I also rewrote Y", "Added Z".
_REPORTED_WORK = re.compile(
    r"^(?:i(?:'ve|\s+have)?\s+)?(?:also\s+|now\s+|just\s+)?(?:added|fixed|changed|updated|removed|"
    r"wrote|rewrote|renamed|moved|replaced|switched|created|deleted|bumped|pinned|wrapped)\s"
)
_CONDITIONS = ("if ", "unless ", "either ")


def _in_clause_after(low: str, hedge: int) -> bool:
    """ "the boss fight can wait, no point designing for what might change": a hedge in a clause
    of more than four words after a comma qualifies that clause, not the statement before it
    ("X, maybe some day" hedges X)."""
    comma = low.rfind(", ", 0, hedge)
    return comma > 0 and len(low[comma:].split()) > 4


def _may_state_problem(role: str, emit: Emitter) -> bool:
    """A pasted or quoted error is the fact; the sentence leading into it ("it blows up:") or
    quoting it is not another."""
    return not emit.lead_in and not emit.quoted_error and (role == "user" or not emit.advisory)


# The obligation a pending task is stated with ("still need to X"): the task is X.
_OBLIGATION = re.compile(
    r"^(?:next,? )?(?:we |i )?(?:still |also )?(?:need|needs|have|has|got) to\s+(?=\w)|"
    r"^(?:next )?up(?: for (?:me|us))? is\s+|^remind (?:me|us)(?: later)? to\s+|"
    r"^(?:don't|do not) forget(?: to)?\s+|"
    # What is left of "I have to X", "I can X" once the subject is gone.
    r"^(?:to|can)\s+(?=\w)",
    re.IGNORECASE,
)


def _pending(stripped: str, clause: str, sentence: str, emit: Emitter) -> str:
    if emit.turn.role == "user" and _team_will(clause, sentence):
        decisions.decision(clause, sentence, emit, cue="we_will", conf=0.7)
        return "decision"
    status = Status.IN_PROGRESS if phrases.IN_PROGRESS.search(clause) else Status.PENDING
    if _NO_WORK.search(stripped) or sentence.rstrip().endswith(clause.rstrip() + ":"):
        return ""  # "Mensah is back on Thursday", "don't know yet", "Two things are left:"
    task = _OBLIGATION.sub("", stripped)
    if len(task.split()) < 2:
        return ""  # "so we need to dedupe": too little to tell the task by
    if not paths.names_only_files(stripped):
        emit.task(task, status, sentence, cue="deferral")
    return "pending"


def continued_plan(clause: str, sentence: str, emit: Emitter) -> str:
    """ "I'll write to MedDrop this week, and put it to the directors in March": a bare verb after
    work planned in the same sentence shares its subject and its future; more work planned."""
    body = _JOINED.sub("", clause.strip(), count=1)
    return _pending(body, body, sentence, emit) if _BARE_VERB.match(body) else ""


_JOINED = re.compile(r"^(?:and|then|also|plus)\b,?\s*(?:(?:then|also)\s+)?", re.IGNORECASE)
# A verb that opens a clause without a subject: "ask Nightingale for a quote", "put it on github".
_BARE_VERB = re.compile(
    r"^(?:ask|put|send|book|call|ring|email|order|write|check|confirm|do|get|buy|pick|fix|move|"
    r"update|add|finish|post|print|pay|sort|make|take|bring|clean|set|test|ship|push|deploy|"
    r"merge|tell|text|chase|review|draft|fill|submit|sign|return|cancel|change|try|run|build|"
    r"publish|upload|share|invite|arrange|organi[sz]e|prepare|paint|replace|install|measure|"
    r"collect|drop|start|follow|read|rewrite|raise|open|close|hand|pass|let|give|show)"
    r"\s+\S",
)


def _team_will(clause: str, sentence: str) -> bool:
    """ "We'll take the bus there then", "we will validate bodies with malli": what a user says the
    team will do is the way chosen; not a need ("we'll need coaches"), a look ahead ("we'll
    see"), nor work set for a time ("we'll sort the gallery next week")."""
    return bool(
        _TEAM_WILL.match(labels.strip_filler(clause))
        and not _FOR_A_TIME.search(sentence, max(sentence.find(clause), 0))
    )


_TEAM_WILL = re.compile(
    r"^we(?:'ll| will| are going to|'re going to| are gonna|'re gonna)\s+"
    r"(?!(?:need|want|have|see|look|check|think|talk|figure|try|probably|maybe|let|get back)\b)",
    re.IGNORECASE,
)
_FOR_A_TIME = re.compile(
    r"\b(?:later|tomorrow|next|tonight|soon|eventually|once|when|after|before|at some point|"
    r"on (?:mon|tues|wednes|thurs|fri|satur|sun)day)\b",
    re.IGNORECASE,
)


# What is said of work without being work: someone's whereabouts, a choice not made, a bare status
# of something named before.
_NO_WORK = re.compile(
    r"^(?:[\w.]+\s+){1,2}(?:is|'s|are)\s+(?:back|away|off|out|on (?:holiday|vacation|leave))\b|"
    r"\b(?:haven't|have not|hasn't|has not|not)\s+(?:yet\s+)?(?:made up (?:my|our|his|her|their) "
    r"minds?|decided|agreed|settled)\b|^(?:i\s+|we\s+)?(?:don't|do not)\s+know\b|"
    # "nobody is going to type that", "she's not going to install it": a plan denied.
    r"\b(?:nobody|no one|not|n't)\s+(?:is\s+|are\s+)?going\s+to\b|"
    r"^(?:still\s+)?(?:open|pending|not (?:\w+ed|done|started) yet)[.!]*$",
    re.IGNORECASE,
)


def _pending_cased(clause: str) -> bool:
    """Work pending in capitalised wording, read with and without the opening filler (searched
    once when there is none to drop)."""
    if phrases.PENDING_CASED.search(clause):
        return True
    plain = labels.strip_filler(clause)
    return plain != clause and bool(phrases.PENDING_CASED.search(plain))


def _finding(stripped: str, role: str, emit: Emitter) -> str:
    """An agent reporting what an investigation established: "The experiment showed X",
    "Found that Y". A finding is work done; one that states a problem was taken as an error."""
    if role == "user" or emit.advisory or not _FINDING.match(stripped):
        return ""
    return stripped


# A verb whose past is its base form, asked for: "read it first", "put it back before you push".
_ASKED_FIRST = re.compile(
    r"^(?:read|put|set|cut|split|reset) (?:it|them|this|that) (?:first|back|again)\b"
)


def _reports_done(stripped: str, clause: str, role: str) -> str:
    """The label of a clause reporting finished work, or "" when it reports none."""
    low = stripped.lower()
    m = _STARTS_DONE_VERB.match(low)
    if m and m.group(1) in phrases.DONE_VERBS and len(stripped.split()) >= 2:
        if role == "user" and m.start(1) == 0 and _ASKED_FIRST.match(low):
            return ""  # "read it first so we don't break the callers": asked for, not reported
        return stripped
    filler_free = labels.strip_filler(clause)
    perfect = _PERFECT_REPORT.match(filler_free)
    if perfect and perfect.group(1).lower() not in speakers.NOT_WORK:
        return stripped  # "I've tightened the need statement": any verb, in the perfect
    inner = _SUBJECT_DONE_VERB.search(clause)
    if inner and inner.group(1).lower() in phrases.DONE_VERBS and len(inner.group(2).split()) >= 1:
        return f"{inner.group(1)}{inner.group(2)}"
    # An assistant saying "tests pass now" confirms its own work; a user saying it reports progress.
    # "it went out this morning" says so of something named before, which already has its label.
    if role != "user" or len(stripped.split()) < 2:
        return ""
    # "they fixed the mapping on Thursday": a person doing work, unlike "it went out".
    other = _OTHER_DID.match(filler_free)
    if (
        other
        and other.group(1) in _WORK_VERBS
        and not _THING_START.match(other.group(0))
        and not _STATES_A_FACT.match(filler_free, other.end())
    ):
        return stripped
    if _PRONOUN_START.match(stripped):
        return ""
    if _DID_SOMETHING.match(low):
        return (
            stripped  # "flipped the seven sensors to deferrable", "reopened all 60 via bulk edit"
        )
    if phrases.DONE_STATE.search(low):
        return stripped
    passive = phrases.DONE_PASSIVE.search(low)
    if (
        passive
        and not _CONDITION_BEFORE.search(low, 0, passive.start())
        and not phrases.names_symptom(low)
    ):
        return stripped
    if _PARTICIPLE_REPORT.match(low) and not phrases.names_symptom(low):
        return stripped  # "Parquet written for the 10th", "already applied on staging"
    success = phrases.DONE_SUCCESS.search(low)
    return stripped if success and success.start() > 0 and not _NEGATED.search(low) else ""
