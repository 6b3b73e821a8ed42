"""Lexicons of the phrasing that marks decisions, completion, deferral, errors and hedges."""

from __future__ import annotations

import re

from memory.graph.prefilter import Folded, Guarded, Twin, holds_any


def alternation(*phrases: str) -> str:
    """A regex alternation of phrases, longest first so that the most specific one wins."""
    return "|".join(sorted(phrases, key=len, reverse=True))


def grouped_alternation(*phrases: str) -> str:
    """``alternation`` with the phrases that open with one letter grouped: the same matches, each
    position costing a test per letter rather than one per phrase (see ``_factored``)."""
    return _factored(sorted(phrases, key=len, reverse=True))


# Each lexicon with the alternatives it was written as (the test compares the two).
LEXICON_ALTERNATIVES: dict[Twin, tuple[str, ...]] = {}


def _lexicon(*alternatives: str) -> Twin:
    """One word-bounded alternation, matched against LOWER-CASED text.

    A single leading word boundary and no IGNORECASE flag let the regex engine skip ahead ten
    times faster than per-branch boundaries under IGNORECASE; callers pass ``text.lower()``. The
    lookahead on the next character lets it reject most positions at once.

    Callers read only whether, and where, a lexicon matches, never what a branch captured or
    where it ends: so the alternatives may be regrouped for speed (see ``branches``).
    """
    spread = sorted((b for a in alternatives for b in branches(a)), key=len, reverse=True)
    # Only where a match starts counts, so the order may change: the branches that open with a
    # literal first, in the fewest runs; those anchored at the start of the text as one branch.
    anchored = [b[1:] for b in spread if b.startswith("^")]
    spread = sorted((b for b in spread if b[:1] != "^"), key=lambda b: not _opens_with_literal(b))
    if anchored:
        spread.append(f"^(?:{_factored(anchored)})")
    lexicon = Twin(re.compile(r"\b(?=[\w'(#,])(?:" + _factored(spread) + r")"))
    LEXICON_ALTERNATIVES[lexicon] = alternatives
    return lexicon


def branches(alternative: str) -> list[str]:
    """``alternative`` as branches that open with a letter: "(?:is|are) next" gives "is next" and
    "are next". Tried in order, they find the very match ``alternative`` finds, at a position where
    a word boundary holds (as the lexicon's own makes a leading ``\\b`` redundant)."""
    options = _top_level_split(alternative)
    if len(options) > 1:
        return [b for option in options for b in branches(option)]
    body = alternative[2:] if alternative.startswith("\\b") else alternative
    if not body.startswith("(?:"):
        return [body]
    end = _closing(body, 0)
    if body[end + 1 : end + 2] in ("?", "*", "+", "{"):
        return [body]  # an optional group: the branch may open with what follows it
    options, rest = _top_level_split(body[3:end]), body[end + 1 :]
    if "" in options:
        return [body]
    return [b for option in options for b in branches(option + rest)]


def _factored(branches: list[str]) -> str:
    """One alternation of the branches, those opening with the same literal character grouped, and
    so on within each group: a trie of their openings.

    The engine tries an alternation branch after branch; it rejects a branch that opens with
    another character at once, but enters any other. Factored, a position costs a test per
    distinct character at each level of the trie, instead of a test or an entry per branch: "the"
    enters the branches that open with "the" once, not each of the thirty that open with "t".

    The matches are the very ones of the plain alternation, groups and ends included: a branch
    moves only past branches that open with another literal character, which never match where
    it does, and never past one that opens otherwise (with a class, a group, an escape).
    """
    out: list[str] = []
    run: dict[str, list[str]] = {}  # the tails of the current run of literal openings, by opening

    def close_run() -> None:
        for opening, tails in run.items():
            while len(tails) > 1 and all(
                _opens_with_literal(t) and t[0] == tails[0][0] for t in tails
            ):
                opening, tails = opening + tails[0][0], [t[1:] for t in tails]  # "the(?:n|y)"
            out.append(
                opening + tails[0] if len(tails) == 1 else f"{opening}(?:{_factored(tails)})"
            )
        run.clear()

    for branch in branches:
        if _opens_with_literal(branch):
            run.setdefault(branch[0], []).append(branch[1:])
        else:
            close_run()
            out.append(branch)
    close_run()
    return "|".join(out)


def _opens_with_literal(branch: str) -> bool:
    """Whether ``branch`` opens with one literal character, not repeated."""
    first = branch[:1]
    return (first.isalnum() or first in _LITERAL_MARKS) and branch[1:2] not in _QUANTIFIERS


_LITERAL_MARKS = ("'", ",", " ", "-")
_QUANTIFIERS = ("?", "*", "+", "{")


def _closing(pattern: str, start: int) -> int:
    """The index of the parenthesis closing the group opened at ``start``."""
    depth, i = 0, start
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 1
        elif ch == "[":
            i = _class_end(pattern, i)
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError(f"unbalanced group in {pattern!r}")


def _class_end(pattern: str, start: int) -> int:
    """The index of the ']' closing the character class opened at ``start``."""
    i = start + 1
    if pattern[i : i + 1] == "^":
        i += 1
    if pattern[i : i + 1] == "]":
        i += 1  # a ']' first in a class is a literal
    while pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i


def _top_level_split(pattern: str) -> list[str]:
    """The options of an alternation, split at the '|' outside any group or class."""
    options, start, i = [], 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 1
        elif ch == "[":
            i = _class_end(pattern, i)
        elif ch == "(":
            i = _closing(pattern, i)
        elif ch == "|":
            options.append(pattern[start:i])
            start = i + 1
        i += 1
    return [*options, pattern[start:]]


# Explicit line markers people and assistants use to log state ("Decided: ...", "TODO: ...").
MARKERS: dict[str, tuple[str, ...]] = {
    "decision": (
        "decided",
        "decision",
        "decisions",
        "chosen",
        "choice",
        "going with",
        "approach",
        "made up my mind",
        "made up our minds",
        "final decision",
        "final call",
        "my call",
        "our call",
        "verdict",
        "consensus",
        "change of plan",
        "new plan",
    ),
    "completed": (
        "completed",
        "complete",
        "done",
        "finished",
        "implemented",
        "shipped",
        "added",
        "created",
        "built",
        "resolved",
        "merged",
        "deployed",
        "released",
    ),
    "fixed": ("fixed", "fix applied", "solved"),
    "pending": (
        "todo",
        "to do",
        "to-do",
        "next",
        "action items",
        "action item",
        "follow-ups",
        "todos",
        "next up",
        "up next",
        "next steps",
        "next step",
        "pending",
        "remaining",
        "left to do",
        "still to do",
        "outstanding",
        "open items",
        "follow-up",
        "follow up",
        "followup",
        "later",
        "backlog",
        "open",
        "planned",
        "blocked",
        "adding",
        "will add",
        "still to do",
        "not done",
    ),
    "in_progress": ("working on", "in progress", "wip", "currently", "ongoing", "started"),
    "error": (
        "error",
        "errors",
        "bug",
        "bugs",
        "issue",
        "issues",
        "problem",
        "problems",
        "known issues",
        "open issues",
        "failure",
        "exception",
        "crash",
        "regression",
        "incident",
        "root cause",
        "blocker",
    ),
    "files": (
        "files",
        "files updated",
        "files touched",
        "files changed",
        "creating",
        "updated",
        "modified",
        "changed",
        "touched",
        "file",
    ),
}

# Summary headings: what follows restates facts already logged, so it adds nothing new.
RECAP_HEADINGS = Folded(
    r"^\s*(?:\*\*)?(?:recap|summary|to summari[sz]e|in summary|where we are|so far|"
    r"standup notes?|tl;?dr)\b"
)

# Words opening a clause that carry no content: interjections, discourse markers, hedges.
# Discourse markers that open a clause and carry no content ("so", "honestly", "I think").
LEADING_FILLER = (
    "yesterday",
    "today",
    "this morning",
    "last night",
    "earlier",
    "ahh",
    "ohh",
    "oops",
    "whoa",
    "wow",
    "phew",
    "hey",
    "hi",
    "hello",
    "morning",
    "good morning",
    "so",
    "ok",
    "okay",
    "ok so",
    "alright",
    "all right",
    "honestly",
    "anyway",
    "anyways",
    "well",
    "yeah",
    "yep",
    "yes",
    "yup",
    "hmm",
    "mm",
    "ah",
    "oh",
    "ugh",
    "also",
    "and",
    "but",
    "then",
    "actually",
    "basically",
    "just",
    "i think",
    "i guess",
    "i suppose",
    "i mean",
    "in the end",
    "finally",
    "meanwhile",
    "plus",
    "btw",
    "by the way",
    "side note",
    r"first(?! come\b)",  # "first come first served" is an option, not a sequence
    "first though",
    "next",
    "now",
    "for today",
    "for now",
    "that said",
    "otherwise",
    "ok then",
    "so then",
    "kinda",
    "sort of",
    "different problem now though",
    "that settles it",
    "i'd say",
    "i would say",
)

# Interjections that are filler only when punctuated ("Agreed, ..." but "agreed that X").
LEADING_INTERJECTION = (
    "right",
    "fair",
    "fair enough",
    "fine",
    "cool",
    "great",
    "good",
    "nice",
    "sure",
    "sounds good",
    "makes sense",
    "got it",
    "understood",
    "thanks",
    "perfect",
    "bingo",
    "good catch",
    "that was it",
    "agreed",
    "too",
    "no",
    "nope",
    "true",
)

# Subjects and auxiliaries that a label drops ("we're going with X" -> "going with X").
LEADING_SUBJECT = (
    "i",
    "we",
    "i've",
    "we've",
    "i'm",
    "we're",
    "i'll",
    "we'll",
    "i'd",
    "we'd",
    "let's",
    "let us",
    "you",
    "i have",
    "we have",
    "i am",
    "we are",
    "i will",
    "we will",
    "i just",
    "we just",
    "i also",
    "we also",
    "i then",
    "we then",
    "i finally",
    "we finally",
)

# ----- decisions -------------------------------------------------------------------------------
# Choosing verbs and idioms of commitment, in the tenses people narrate them with. Past-tense
# "switched the route to X" reports work done; "switched to X", with no object, names the choice
# made ("Switched to LSODA, RK45 was crawling").
# What one goes for that is no option: "going for lunch", "went for a walk".
_OUTING = (
    r"(?:walk|run|drink|coffee|lunch|dinner|ride|swim|beer|break|pint|meal|check-?up|interview)"
)

DECISION = _lexicon(
    r"\bgo(?:ing|es)? with\b",
    r"\b(?:went|(?:'ve|have|has|had) gone) with\b",
    r"\bdecided (?:to|on|that|against)\b",
    # "we decided unique tests are better": the decision as a clause, without "that".
    r"\b(?:we|i|they)(?:'ve|'d| (?:have|had|just|finally|already))? decided (?!(?:not|yet|whether|if|"
    r"how|what|which|when|where|who|why)\b)[a-z]",
    # A judgement that ranks one option above another: "a unique test is better than the package".
    r"\b(?:is|are|feels?|seems?) (?:\w+ )?(?:better|simpler|safer|cleaner) than\b",
    r"\b(?:chose|choose|choosing|opted|opting)\b",
    r"\b(?:picked|pick|picking)\b(?![^.,;]*\bup\b)",
    r"\bsettl(?:ed|ing) on\b",
    # An option prevailing, or the talk closed on it: "the oak flooring won out over the tiles",
    # "unless someone objects that's what we do", "so that's settled".
    r"\b(?:won|wins|winning) out\b",
    r"\bthat's what (?:we(?:'re| are)?|the [\w -]{2,30}|everyone|everything) (?:do|doing|go with|"
    r"going with|use|uses|using)\b",
    # A vote or a go-ahead: "the vote came out 4-1 for the Thursday slot", "the offsite is a go".
    r"\bvote (?:came out|went|was) [\w-]+ (?:for|in favou?r of)\b",
    r"\b(?:is|it's) a go\b",
    r"\b(?:is|are) off the table\b",
    # A conclusion drawn, with "so": "so the filters should be in the URL query", "so the German
    # card names get translated", "dated urls then I guess", "it's going to be the dark variant".
    r"^so,? (?:the |our |all |every )?[\w-]+(?: [\w-]+){0,3} (?:should|will|must) (?:be|go|live|"
    r"stay|sit) (?:in|on|at|into|under|as)\b",
    r"^so,? (?:the |our |all |every )?[\w-]+(?: [\w-]+){0,3} gets? (?!(?:worse|better|stuck|lost|"
    r"wiped|deleted|dropped|ignored|skipped|rejected|corrupted|truncated|duplicated)\b)[a-z]+ed\b",
    r"^(?:(?:ok|okay|right|fine|alright|so|yeah|yes)[,.!]? )?[\w.-]+(?: [\w.-]+){0,2} then,? i guess\b",
    r"\bit(?:'s| is) going to be (?!(?:a |an )?(?:problem|issue|pain|hard|tough|fine|ok|okay|"
    r"difficult|tricky|slow|expensive|long|close|tight|messy|fun|busy|late|worth)\b)[a-z]",
    # The outcome of a deliberation: "after thinking with Tomasz we will do a snapshot".
    r"\bafter (?:thinking(?: it over)?|some thought|weighing(?: it)?|discussing(?: it)?|"
    r"some back and forth|a lot of back and forth|sleeping on it)\b",
    # A conclusion drawn: "alright, weekly is the cadence then".
    r"\b(?:is|'s) (?:the|our) (?:cadence|plan|date|venue|winner|pick|choice|format|approach|"
    r"default|deadline|budget|frequency|schedule|slot|setup|stack|tool|vendor|provider|host|"
    r"route|layout|name|title|price) then[.!]?$",
    # "I decide to use MySQL": the present, as a non-native writer or a running log puts it.
    r"\b(?:i|we) decide (?:to|on)\b",
    # "sqlite's fine for now": enough, so kept.
    r"^[\w.+-]+(?:'s| is) (?:fine|enough|good enough|ok|okay) (?:for now|for us|for this|for v1|"
    r"for the mvp)\b",
    # "ok we take the second option": one of the options, by its place.
    r"\b(?:take|taking|pick|picking|go with|going with) (?:the )?(?:first|second|third|fourth|last|"
    r"other|latter|former)(?: (?:one|option|route|approach|offer|quote|variant|proposal))?\b",
    # Closed for good: "Tabs over spaces, end of discussion."
    r"\b(?:end of discussion|final answer|non-negotiable|no debate)\b",
    # Scope cut: "Cutting the iPad version from v1", "we're dropping IE11 support".
    r"^(?:we're |we are |we'll be |i'm )?(?:cutting|dropping|shelving|descoping|sunsetting|"
    r"deprecating) (?:the |our )?[\w.-]+(?: [\w.-]+){0,3} (?:from|support|out of)\b",
    r"\b(?:that's|that is|it's) settled\b",
    r"\bthe plan now is\b",
    # "Swapping Trello for Linear next sprint": one tool for another, the switch itself.
    r"^(?:we're |we are |i'm |so )?swapping (?:\S+ ){1,3}?(?:for|with)\b",
    # A body's approval is its decision: "the committee approved the new bylaws".
    r"\b(?:board|committee|council|leadership|management|client|owners?|partners) (?:\w+ )?"
    r"(?:approved|ratified|greenlit|green-lit|okayed|voted for|voted to)\b",
    # A rule laid down: "vendors get paid net-30, no exceptions".
    r"\bno exceptions\s*[.!]?$",
    r"\bstick(?:ing)? with\b",
    r"\bstick(?:ing)? to (?:the|our|my|a|one) (?!(?:plan|point|script|schedule|topic)\b)",
    # A new arrangement stated: "the new opening hours are 9 to 5".
    r"^(?:(?:ok|okay|so|right|alright),? )?(?:the|our) new [\w -]{2,30}? (?:is|are|will be) "
    r"(?![^.;]*\bthan\b)(?![a-z]+ed\b|(?:built|done|gone|set up|sent|paid|made|written|shown)\b)"
    r"(?!(?:broken|slow|down|failing|wrong|missing|great|good|nice|better|worse|ready|live|out|"
    r"here|done|not|still|really|so|too|very|a bit|kind of|pretty|up|on|in|coming|arriving)\b)",
    r"\bstuck with\b",
    r"\bswitching (?:to|over|from|back)\b",
    r"(?:^|\b(?:we|i|let's|will|'ll|to|should|gonna)\s+)switch (?:to|over|from|back)\b",
    r"\bmoving (?:\S+ ){0,3}to\b",
    # A replacement made: "we replaced Jest with Vitest", "dropped Mailgun for Postmark".
    r"\breplac(?:ed|ing|e) (?:\S+ ){1,4}?with\b",
    r"\bdropp(?:ed|ing) (?:\S+ ){1,3}?for\b",
    # A figure or a date moved: "Pro is now $39", "the trial is down to 14 days", "the launch moves
    # to March 17", "the deadline got pushed to next Wednesday".
    r"\b(?:is|are) now (?:at )?[$£€]\d",
    r"\b(?:trial|price|pricing|limit|cap|timeout|quota|budget|retention|ttl|interval|threshold|fee|"
    r"discount|deposit|tier|window|term|batch size|minimum|maximum)s? (?:is|are) (?:now )?(?:down|"
    r"up) to [$£€]?\d",
    r"\b(?:moves?|moved|pushed|bumped|shifted|postponed|brought forward) (?:back )?to "
    r"(?:next |the )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|"
    r"march|april|may|june|july|august|september|october|november|december|\d)",
    # Enough, so chosen: "Kafka would be overkill, a plain queue table will do".
    r"\b(?:will|'ll|would) do(?: (?:fine|for now|the job|for us|us|them))?[.!]*$",
    # An option replaced, or kept as it is: "webpacker gets replaced by importmap", "the flour
    # isn't changing".
    r"\b(?:gets?|got|is getting|will be|is being) replaced (?:by|with)\b",
    # A price moved: "domestic goes from £50/hr to £55 + VAT from December".
    r"\bgo(?:es)? (?:up |down )?from [£$€]\d[\d.,]*\S* to [£$€]?\d",
    r"\b(?:isn't|is not|aren't|are not|won't be) changing\b(?! (?:before|until|yet|today|this|"
    r"tonight|again|anymore|any more)\b)",
    # What we kept of two: "removed the template one and kept the solaredge sensor".
    r"(?:^|\b(?:i|we|and|but|so|just)\s)kept (?:the|our|my|both|all|only)\b",
    # A rule laid down as a ban: "No off-lead walks at all for the first six months".
    r"^no (?!(?:errors?|issues?|problems?|luck|idea|response|reply|answer|change|news|word|sign|"
    r"one|rush|worries|way|need|point|time|bugs?|crashes|complaints)\b)[\w-]+(?: [\w-]+){0,2} "
    r"(?:at all|for now|for the first|until|unless|before|from now on|this (?:year|season|time))\b",
    # The old option dropped, the new one after it: "scratch EC2, the workers go on Fargate".
    r"^(?:so |ok )?(?:scratch|scrap|ditch|forget) (?!that\b|this\b|it\b|about\b)[^,;]{2,40}[,;] \w",
    # Something moved out of one place into another: "moved the keys out of .env into Vault".
    r"\bmov(?:e|ed|ing) (?:\S+ ){1,4}out of (?:\S+ ){1,4}(?:into|to)\b",
    # Where something runs now, and how often: "staging is on Render now", "the newsletter is
    # quarterly now".
    r"\b(?:is|are|runs?) on (?:\S+ ){1,2}now\b",
    r"\b(?:is|are) (?:now )?(?:daily|weekly|biweekly|fortnightly|monthly|quarterly|yearly|annual|"
    r"hourly|nightly)\b",
    # Stopped as a practice: "we stopped pair reviews", "we've stopped the Friday deploys".
    r"\b(?:we|i)(?:'ve| have)? stopped (?!working|responding|loading|syncing|sending|firing|"
    r"running)\w+ing\b|\b(?:we|i)(?:'ve| have)? stopped (?:the |our |doing )?\w+ (?:reviews?|"
    r"deploys?|releases?|meetings?|standups?|calls|syncs|builds)\b",
    # A standing schedule: "backups run nightly at 2am", "the digest goes out every Monday".
    r"\b(?:runs?|go(?:es)? out|ships?) (?:every (?!time\b)|nightly\b|daily\b|weekly\b|"
    r"hourly\b|monthly\b|on the \d+(?:st|nd|rd|th)\b)",
    # "The consensus was to drop the legacy endpoint", "our choice is Kafka".
    r"\b(?:consensus|choice|verdict|decision|call|pick) (?:is|was) to \w",
    r"\b(?:our|my|the final) (?:choice|pick|call) (?:is|was)\b(?! (?:not|still|hard|tough|easy|"
    r"yours|up|open|pending|whether|between)\b)",
    r"(?:^|\b(?:we|i|we've|i've|we have|i have|just|so|then|and|finally)\s+)(?:switched|moved) "
    r"(?:over |back )?to\b",
    # "Switched from Celery to RQ": the swap named both ways is a choice, with or without "to X".
    r"(?:^|\b(?:we|i|we've|i've|we have|i have|just|so|then|and|finally)\s+)(?:switched|moved) "
    r"(?:over )?from \S+(?: \S+){0,3}? to\b",
    r"\bgoing back to\b",
    r"\bwe(?:'ll| will| shall) (?:use|keep|go|stick|switch|count|treat|run|alert|adopt|"
    r"make|standardi[sz]e|rely|host|store|put|send|ship|default|let|leave|report|pin|cap|limit|"
    r"tile|partition|dedupe|cache|buffer|batch|split|serve|show|require|allow|block|skip|"
    # Terms set for others: "we'll sell it at 24.50", "we'll give them the cleaned version".
    r"sell|charge|price|offer|bill|give|accept|reject)\b",
    # One person's "I'll send the summary", "I'll ship it in 2.4.2" is work they take on.
    r"\bi(?:'ll| will| shall) (?:use|keep|go|stick|switch|count|treat|run|alert|adopt|"
    r"standardi[sz]e|rely|host|store|put|default|let|leave|pin|cap|limit|tile|partition|dedupe|"
    r"cache|buffer|batch|split|serve|require|allow|block|skip)\b",
    # "lets" as typed in a hurry; not "it lets you", "this lets us".
    r"(?:^|\b(?:so|ok|okay|then|and|yeah|fine|just) )lets (?:just )?(?:use|go|keep|stick|switch|move|"
    r"drop|pick|make|do|run|try)\b",
    r"\blet's (?:use|go|keep(?! going\b| at it\b| on\b)|stick|switch|report|make|run|treat|count|"
    r"standardi[sz]e)\b",
    r"(?:^|\b(?:we|i|we'll|i'll|let's|will|gonna|so)\s+)(?:use|using)\b",
    r"\b(?:is|are) going to be\b",
    r"\bwill be\b",
    r"\bit'll be\b",
    r"\bstays\b",
    r"(?:^|\b(?:we're|we are|i'm|i am|it's|so) )staying\b(?! up\b| late\b| over\b)",
    r"\bstay (?:at|as|on)\b",
    r"\bremains? (?:at|on|as|the)\b",
    r"\bkeeps?\b(?! \w+ing\b| on\b| up\b| (?:it|this|that|them) (?:on|in) (?:the |our |my )?(?:list|"
    r"backlog|radar|board|roadmap)\b)",
    r"\bthe (?:right|obvious|safe) (?:call|choice|move)\b",
    # An option named as the pick: "the second contractor is the one"; not "the one who".
    r"\b(?:is|are) the (?:one|ones)\b(?! (?:who|that|which|to|i|we|you|they)\b)",
    # "going for the 14-inch model": the pick, not an errand ("going for lunch").
    r"^(?:(?:we're|i'm|so|ok|okay) )?going for (?:the|a|an) (?!" + _OUTING + r"\b)[\w-]+",
    # The pick set against what it replaces: "we'll do it at the vineyard, not the hotel".
    r"\b(?:we'll|we will|let's|it's|it'll be|going to be|we're doing|we're going)\b[^,;]{2,60}, "
    r"not (?:the |a |an )?[\w-]+(?: [\w-]+)?\s*[.!]?$",
    r"\binstead\b",
    r"\brather than\b",
    r"\bin favou?r of\b",
    r"\bnot going to (?:use|support|do|build|ship|keep|add)\b",
    r"\bnot using\b",
    r"\b(?:chose|choose|picked|pick|prefer|preferred|went with|going with|go with) \S+(?: \S+){0,3} "
    r"over\b",
    r"\bit is(?: for\b|[.!,]|$)",
    # Judgement that settles an option: "salmon is more practical", "five seeds is the sweet spot".
    r"\b(?:is|are|feels?(?: like)?|seems?(?: like)?|looks?(?: like)?) (?:the |a |more |much |by far )?"
    r"(?:(?:least|most) \w+ (?:thing|option|way|choice)|sweet spot|right call|"
    r"(?:best|better) (?:option|choice|bet|fit)|"
    r"more practical|more safe|safer bet)\b",
    r"\bmakes? (?:more )?sense\b",
    # An inclination stated as the pick: "my gut says delete them", "my instinct was to wait".
    r"\bmy (?:gut|instinct|first instinct) (?:says|said|is|was|tells me)\b",
    # Committed to: "per household for sure", "the lineup is final", "the date is locked in".
    r"\bfor sure\b(?<!know for sure)(?<!say for sure)(?<!tell for sure)",
    r"(?<!\bnothing )\b(?:is|are) (?:now )?(?:final|locked in|set in stone)\b(?! yet\b)",
    r"\bmy vote (?:is |goes )?(?:for|to)\b",
    r"\bgets my vote\b",
    r"\bthe winner is\b",
    r"\b(?:we|i) should (?:use|go with|stick with|switch to|keep|pick|move to|partition|run)\b",
    # "the polling thing sounds simpler for me": a judgement that settles on an option.
    r"\b(?:sounds?|seems?|feels?) (?:much |a lot |way )?(?:simpler|easier|cleaner|safer)\b",
    # An option named as the winner: "Vitest wins", "the managed option wins on cost"; not "wins
    # the deal" or "wins us a week". Possessive runs: a word given back meets only a space.
    r"^(?:[\w.+#/-]++ ){0,4}[\w.+#/-]++ (?:wins|win)\b(?! (?:a|an|the|us|them|me|it|over|\d))",
    # Possessive runs: a word given back leaves a word character, where only a space may follow,
    # so backtracking into one never matches; it only took time.
    # "OK, monthly partitions then.", "export macros then, do it properly".
    r"^(?:(?:ok|okay|right|fine|alright|so|yeah|yes)[,.!]? )?[\w.-]++(?: [\w.-]++){0,2} "
    r"then(?:[.!,]|$)",
    r"\b(?:it's|its|it is) [^,]{2,40} then(?:[.!,]|$)",
    r"^[\w.-]++(?: [\w.-]++){0,2} first\.?$",
    r"^keeping\b",
    r"\b(?:is|are) now (?:\d|every|weekly|daily|monthly|nightly|hourly)",
    r"\b(?:is|are) (?:weekly|daily|monthly|nightly|hourly)(?: now)?\b",
    r"\bstays? (?:until|in|with|as|prerendered|pinned|on)\b",
    r"^(?:one|a single) [\w-]+ per [\w-]+",
    r"\blet's (?!see\b|check\b|look\b|try\b|figure\b|debug\b|investigate\b|think\b|talk\b|"
    r"wait\b|discuss\b|start\b|begin\b|get\b|review\b|test\b|find\b|make sure\b|keep going\b|"
    r"continue\b|go on\b|move on\b|proceed\b|dig\b|take\b|run\b|ask\b|confirm\b|verify\b|"
    r"hope\b|chat\b|circle\b|revisit\b|sync\b|pair\b|fix\b|encrypt\b|say\b|\w+ (?:it|that|this)\b)"
    r"[a-z]+",
    # Not "the job now uses the request ctx": a change reported done (see DONE_STATE).
    # The word first, then what may not stand before it: a branch opening with a letter is cheap.
    r"uses\b(?<!too uses)(?<!much uses)(?<!now uses)(?<!now actually uses)"
    r"(?! (?:too|a lot|more|less|up|about|around|\d)\b)",
    r"\b(?:lives?|sits?) (?:in|on|under|inside) (?![\w.-]*[/.][\w./-]*|my\b|one\b|a\b|queued?\b|pending\b|the queue\b)",
    r"\b(?:is|are) with\b",
    r"\b(?:are|is) only used (?:for|in|on)\b",
    r"\b(?:is|are) (?:now )?(?:saved|stored|kept|persisted|cached|pinned|hosted|served|weighted|"
    r"booked|protected|partitioned|sharded|encrypted|hashed|versioned|capped|limited|converted|"
    r"revalued|rounded|grouped|keyed|indexed|deduplicated|deduped|matched|routed|sent|written) "
    r"(?:to|in|on|at|by|with|as|every|through|via|only|so|per|against|from|into)\b",
    r"\b(?:refresh(?:es)?|runs|triggers?|fires|syncs?|rotates|expires|polls|retries|rewrites|"
    r"backs? up) (?:\S+ ){0,5}(?:on )?every\b",
    r"^trigger every\b",
    r"\bsyncs? (?:through|via|over)\b",
    r"\bafter all\b",
    r"\b(?:is|are) (?:the|our) (?:primary|default|fallback|backup|standard|source of truth|plan|"
    r"choice|winner|way to go)\b",
    r"\b(?:is|are) (?:only )?the \w+ cache\b",
    r"\bfrom now on\b",
    r"\b(?:going|moving) forward\b(?! (?:on|with)\b)",
    # "That settles it, the contract renews for a year", "that's where we land".
    r"^(?:(?:ok|okay|so|well|right),? )?(?:that|this) (?:settles|decides) it\b",
    r"\b(?:that's|that is|this is) where (?:we|i) (?:land|landed|ended up)\b",
    r"^(?:the )?(?:best|safest|simplest|cheapest|only sane) (?:option|choice|bet|move|call) "
    r"(?:is|was|here is) (?!unclear|not|still|probably|hard|open|unknown|tbd)",
    r"^(?:i'd|i would) say (?:let's|we (?!are\b|were\b|have\b|had\b|can\b|could\b|might\b|may\b|"
    r"need\b|wait\b|still\b|don't\b|do\b))",
    r"\bnot doing\b",
    r"\bwon't (?:use|do|support|build)\b",
    r"\bgoes (?:to|into|first|last)\b",
    # A standing schedule: "the reminder goes out at 9am", "the digest goes out every Monday".
    r"\bgoes out (?:at|every|on (?:the|every)|\d+ (?:hours?|days?|minutes?|weeks?) (?:before|after))\b",
    # How a job or service is run: "the registry runs as a container", "training runs at 1280".
    r"\bruns (?:as(?! of\b)|under|from) (?:a |an |the |our )?[a-z]",
    r"\bruns at (?!about\b|around\b|roughly\b|like\b|only\b|full\b|\d+ ?(?:%|fps|percent)|\d+ per\b)",
    # A route taken: "we'll take the managed route", "going the serverless path".
    r"\b(?:take|taking|took|go|going|went|gone) the [\w-]+(?: [\w-]+)? (?:route|path)\b",
    # "I'd rather go deferrable across the board".
    r"\b(?:i|we)(?:'d| would) rather (?:go|use|keep|stick|do|have|ship|pick|take|run|stay|move|"
    r"switch|build|pay|hire|start|partition|split|host|store|cache|pin|cap|drop|cut|replace|"
    r"avoid)\b",
    # "we'll do solid queue on postgres": doing an option, not a piece of work ("do the rest").
    r"\b(?:we|i)(?:'ll| will) do (?!(?:it|that|this|the|them|some|a|an|more|both|my|our|his|her|"
    r"their|what|whatever|everything|anything|something|one|all|those|these|any|so|well|better|"
    r"fine|my|your|without|some|another|two|three|a|my)\b)[a-z]",
    r"\blean(?:ing)? (?:toward|towards)\b",
    r"\b(?:i|we)'d (?:lean|prefer|leave|keep|go|use|stick|skip)\b",
    r"\brather\b[^.;]*\bthan\b",
    r"\b(?:i|we) prefer\b",
    r"\bagreed (?:that|on|to)\b",
    r"\bwe agreed\b",
    r"\bconcluded\b",
    r"\bout of scope\b",
    r"\bonly for\b",
    r"\bowner is\b",
    r"\bthe requirement is\b",
    r"\broot cause is\b",
    r"\brolled back\b",
    r"\broll(?:ing)? back\b",
    r"\bpartitioned by\b",
    r"\bstarted with\b",
    r"\bended up (?:with|going|using|on|\w+ing)\b",
    r"\b(?:is|are) (?:in|out) for (?:q\d|the|this|next|v\d|launch|release)\b",
    r"\bleav(?:e|ing) \S+(?: \S+){0,4} (?:as|out of|at|alone)\b",
    r"\b(?:i'm|i am) (?:going with|going to use|switching|moving|sticking|using|dropping|keeping)\b",
    r"\b(?:we'll|i'll|let's|we) go for\b",
    # "went for TeamUp", "we've gone for the oak": the pick; not an outing or a stretch of time.
    r"\b(?<!is )(?<!'s )(?:went|gone) for (?!(?:this|that|the|next|a) (?:week|day|quarter|year|"
    r"month|season|weekend|night|summer|winter)\b)(?!(?:a |an |the )?(?:" + _OUTING + r"|it|"
    r"months|weeks|years|ages|days|hours|while|bit|long)\b)",
    r"\bstandardi[sz](?:e|ed|ing) on\b",
    r"(?:^|\bthe )plan(?: as of (?:right )?now| for now| for (?:this|next) \w+)? is\b",
    r"\blanded on\b",
    r"\bgo(?:ing)? ahead with\b",
    r"\bsigned off on\b",
    r"\bmakes the most sense\b",
    r"\bthe (?:final )?call is\b",
    r"\bfinal (?:answer|decision)\b",
    r"\b(?:take|taking|pick|picking|go with) option\b",
    r"\b(?:is|are|will be) (?:on )?(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)"
    r"[a-z]*\.? \d|\d{4}-\d\d-\d\d|(?:mon|tues|wednes|thurs|fri)day)",
    r"\bwe(?:'re| are) cutting\b",
    # A tentative pick, named: "thinking JsonUtility to persistentDataPath", "I was thinking 10
    # participants"; not "thinking about it", "thinking that we could".
    r"^thinking (?!(?:about|of|that|this|it|"
    r"maybe|perhaps|through|out|again|too|hard|more|the same|we|i|you|they|so|if|how|what|"
    r"whether|why|back|twice|ahead|aloud|clearly|straight|long|a lot)\b)[a-z0-9]",
    r"\b(?:i was|i'm|i am|we're|we are|we were) thinking (?!(?:about|of|that|this|it|"
    r"maybe|perhaps|through|out|again|too|hard|more|the same|we|i|you|they|so|if|how|what|"
    r"whether|why|back|twice|ahead|aloud|clearly|straight|long|a lot)\b)[a-z0-9]",
    # An option accepted with praise: "one-shot mode, good call".
    r"^[\w .+/-]{2,40}+, (?:good|great) (?:call|idea|choice)\b",  # possessive: ',' ends the run
    r"\bdescop",
)

# Verdicts that settle an option, each guarded by its own keywords: kept out of DECISION so that a
# text without one costs substring tests, not a regex scan. Lower-cased text.
VERDICTS = (
    # An option judged acceptable as it is: "hardcoding the locale is totally fine", "path refs
    # are fine while it's one repo", "a 90-day notice is acceptable". Not "it's fine", "which is
    # fine" (a reaction), nor "is fine now" (a problem gone).
    Guarded(
        re.compile(
            r"\b(?:is|are)(?<!\bit is)(?<!\bthat is)(?<!\bthis is)(?<!\bwhich is)(?<!\bwhat is)"
            r"(?<!\beverything is)(?<!\bthey are) (?:totally |perfectly |absolutely |completely |"
            r"also )?(?:fine(?! with\b)|acceptable|good enough)\b(?! now\b| again\b| by me\b)"
        ),
        ("fine", "acceptable", "good enough"),
    ),
    # An option dropped, stated as its going: "the midterms go away", "the reflection has to go",
    # "the hake comes off the menu". Not "the warning goes away when I pin it" (a finding).
    Guarded(
        re.compile(
            r"\b(?:goes|go) away\b(?! (?:when|if|after|once|with|on|as soon|by itself|again)\b)|"
            r"\b(?:has|have) to go\b(?! (?:to|through|back|out|in|on|up|down|over|via|into|first)\b)|"
            r"\bcomes? off\b(?! (?:as|well|badly|fine|the (?:wall|hinge|rails))\b)"
        ),
        ("go away", "goes away", "to go", "come off", "comes off"),
    ),
    # A proposal approved by name: "the ORDER BY looks right to me", "your outline sounds good to
    # us". Not "that sounds good to me" (an acceptance, read as one elsewhere).
    Guarded(
        re.compile(
            r"^(?!(?:that|this|it|everything|all|which|what|sounds|looks|seems)\b)"
            r"(?:the |your |our |my )?[\w.+#/-]++(?: [\w.+#/-]++){0,3}? (?:looks?|sounds?|seems?) "
            r"(?:\w+ )?(?:right|good|fine|great|sensible|reasonable) to (?:me|us)\b"
        ),
        (" to me", " to us"),
    ),
)


def settles(low: str) -> bool:
    """Whether a lower-cased clause gives a verdict that settles an option (see ``VERDICTS``)."""
    for verdict in VERDICTS:
        if verdict.search(low):
            return True
    return False


# The team's present practice ("we match on the payout ID", "we're moving the jobs to Fargate"):
# a choice in force, except in the opening message, where it describes how things stand ("we ship
# a notes app", "we're training a detector") before anything is decided.
TEAM_PRACTICE = _lexicon(
    r"(?:^|\bso |\band |\bthen |, |\bi think )we (?:now |only |always |also )?(?!(?:have|had|need|want|see|"
    r"get|got|know|think|hope|can|could|should|would|will|might|may|must|do|don't|did|didn't|are|"
    r"were|was|still|never|noticed|tried|found|lost|hit|talked|just|then|ran|spent|managed|"
    r"already|probably|really|kind|sort|haven't|aren't|weren't|can't|won't|all|both|only|even|"
    r"finally|saw|went|came|started|ended|agreed|decided|looked|checked|tested|fixed|added|"
    r"built|made|said|call|mean|care|like|love|hate|guess|suppose|wonder|feel|seem|expect|plan|"
    r"wanna|gotta|gonna|keep going|lose|miss|risk|end|owe)\b)[a-z]{3,}(?<!ed)(?<!ing)\b"
    r"(?! (?:it|them|that|this)\b)",
    r"\b(?:we're|we are) (?!on\b|in\b|at\b|seeing\b|getting\b|having\b|still\b|"
    r"working\b|looking\b|trying\b|thinking\b|wondering\b|not\b|hoping\b|waiting\b|starting\b|"
    r"picking\b|pulling\b|fighting\b|debugging\b|testing\b|hitting\b|running into\b)\w+ing\b",
)

# Case-sensitive choice idioms, matched on the original text: "the search screen gets Riverpod".
DECISION_CASED = Guarded(
    re.compile(
        r"\bgets? [A-Z][\w.-]+|"
        # What a person wants done, stated as their position: "Priya wants to host the retreat in
        # Lisbon"; what they want had ("the council wants the risk assessment by May") is asked of
        # the team, not chosen.
        r"^(?:[Tt]he )?(?!(?:It|This|That|Nobody|Everyone|Everybody|Anyone|Someone|Who|He|She|"
        r"[Ii]t|[Nn]obody|[Ee]veryone|[Ee]verybody|[Aa]nyone|[Ss]omeone|who|which|he|she|it|this|that|"
        # A department or a client asking for something states a requirement, not a position taken.
        r"[Pp]roduct|[Ff]inance|[Oo]ps|[Ss]ales|[Mm]arketing|[Ll]egal|[Ss]ecurity|[Dd]esign|[Ss]upport|"
        r"[Mm]anagement|[Ll]eadership|PI|[Cc]lient|[Cc]ustomer|[Uu]sers?|[Bb]oss|QA)\b)"
        r"[A-Za-z][\w-]*(?: [a-z]+){0,2}(?:,[^,]{3,40},| \([^)]{2,40}\))? wants to (?!(?:know|see|"
        r"ask|check|understand|talk|discuss|meet|chat|hear)\b)|"
        # A position anyone takes, a department's too: "Ops insists on monthly releases".
        r"^(?:[Tt]he )?(?!(?:It|This|That|Nobody|Everyone|Everybody|Anyone|Someone|Who|He|She|I|We|"
        r"You|They)\b)[A-Z][\w-]*(?: [a-z]+){0,2}(?:,[^,]{3,40},)? (?:prefers|insists on|pushes for|"
        r"votes for|would rather) |"
        r"^No [A-Z][\w.-]+(?:[,.]|$)|"
        # "Playwright over Cypress, because of the trace viewer": one named option over another.
        r"^(?![A-Z][a-z]+(?:ing|ed)\b)[A-Z][\w.+#-]*(?: [\w.+#-]+){0,2} over [A-Z][\w.+#-]*|"
        # "Streak reminders use local notifications": the literal first, so the scan skips ahead.
        r" use (?<=[a-z]{2}s use )(?!of\b|case|to\b|it\b)|"
        # "Hive is the local store", "Firestore is the sync backend for signed-in users".
        r"^(?:The )?(?!(?:Problem|Issue|Question|Thing|Reason|Idea|Point|Difference|Catch|Bug|Error|"
        r"Result|Answer|Goal|Plan|Risk|Cause|Fix|Problem|Here|There|What|Where|Which|Who)\b)"
        r"[A-Z][\w.+#-]+ (?:is|are) (?:the|our) "
        # "Stock is the real problem": a problem named, whatever word qualifies it.
        r"(?!(?:(?:real|next|big|bigger|biggest|main|actual|other|whole|underlying)\s+)?"
        r"(?:problem|issue|bug|question|culprit|cause|reason|one|same|only|first|last|error|"
        r"errors|output|log|logs|trace|message|result|results|diff|link)\b)[a-z]"
    ),
    # A literal of each branch above, in order.
    ("get", "wants to", "prefers", "insists on", "pushes for", "votes for", "would rather", "No ")
    + (" over ", " use ", " is the ", " is our ", " are the ", " are our "),
)

# Words that put a decision on a "why": reason clauses.
REASON = Guarded(
    re.compile(
        r"(?:\bbecause(?: of)?|\bsince|\bas it|\bso that|\bdue to|\bgiven that|\bgiven|\breason:)"
        r"\s+(.+)",
        re.IGNORECASE,
    ),
    ("because", "since", "as it", "so that", "due to", "given", "reason:"),
    lower=True,
)

# Words naming what a decision replaces ("in favour of" names the new option, so it is not here).
REPLACES = Twin(
    re.compile(
        r"\b(?:instead of|rather than|replacing|in place of)\s+(.+)|"
        r"\b(?:chose|choose|picked|pick|prefer|preferred|went with|going with|go with) \S+(?: \S+){0,3}"
        r" over\s+(.+)|"
        r"\bswitch(?:ed|ing)? (?:over )?from\s+(.+?)\s+to\b|\bmov(?:e|ed|ing) from\s+(.+?)\s+to\b|"
        # Not "dropping the PLL to 36 MHz": lowering a setting, not giving an option up.
        r"\bdropp(?:ed|ing)\s+(?![^,.;]*\b(?:to|from|by) \d)(.+?)(?:\s+(?:for|in favou?r of)\b|$)",
        re.IGNORECASE,
    )
)

# ----- completion ------------------------------------------------------------------------------
# Past-tense verbs of doing work: a clause opening with one reports work done.
DONE_VERBS = frozenset(
    """
    added adopted applied automated backfilled batched bumped built cached cancelled canceled
    changed cleaned cleared closed committed completed configured connected
    converted copied created debugged declared defined deleted deployed disabled documented
    downgraded dropped enabled escalated exported extended extracted finished fixed flagged
    generated hooked imported implemented increased installed integrated introduced killed
    landed launched lowered made measured merged migrated moved normalized optimized paged
    parallelized pasted patched pinned ported published pulled pushed put raised
    read rebased rebuilt reconverted recorded redeployed refactored registered reinstalled
    released removed renamed reordered replaced reset resolved restarted restored
    restructured retried reverted reviewed rewrote rolled rotated saved scaled scoped set sent
    shipped shortened signed simplified slimmed sorted split squashed started stored stripped
    submitted swapped switched synced talked tiled trimmed tuned turned uninstalled booked ported
    unpinned updated upgraded uploaded validated wired wrapped wrote
    written done begun made rewritten gotten taken
    emailed called rang
    paid reconciled countersigned ordered baked cooked printed invoiced delivered hired
    interviewed scheduled rescheduled drafted proofread labelled labeled packed posted returned
    refunded approved renewed organized organised tidied contacted replied answered mailed bought
    purchased repaired painted assembled filed finalized finalised transferred restocked refilled
    picked
    """.split()
)

# Verbs of investigating that an agent reports its turn with ("Confirmed the IDOR", "Found it").
FINDING_VERBS = frozenset(
    "confirmed found verified checked tested profiled ran reran traced reproduced investigated "
    "identified diagnosed looked measured concluded".split()
)

# State-change predicates meaning a piece of work is finished or a problem is gone.
DONE_STATE = _lexicon(
    r"(?:is|are|'s|was|were) (?:now |already |all |fully |finally |also |basically )?(?:done|"
    r"finished|complete|completed|in place|merged|shipped|deployed|live|uploaded|fixed|resolved|"
    r"ready|green|clean|working|gone|passing|sorted|applied|registered|set up|built|rebuilt|"
    r"written|recovered|implemented|created|added|enabled|filled|published|replaced|reset|"
    r"generated|installed|configured|migrated|renamed|removed|deleted|updated|upgraded|exported|"
    r"imported|documented|released|rolled out|wired up|hooked up|loaded|rotated|drafted|signed|"
    r"approved|submitted|indexed|backfilled|restored|archived|patched|booked|paid|ordered|"
    r"delivered|assembled|mounted|painted|planted|poured|printed|framed|hung)\b",
    r"(?:went|turned|is|are) green\b",
    r"\b(?:ran|came back|went through|passed) clean(?:ly)?\b",
    # "finally got around to updating the README", "that's the invoices sorted".
    r"\bgot around to \w+ing\b",
    r"^that's (?:the |all the |my |our )?[\w -]{2,30}? (?:sorted|done|handled|finished|out of the way)\b",
    # Out and checked: "the onboarding flow is out in the wild", "the invoices look right this time".
    r"(?:is|are) (?:now )?out in the wild\b",
    r"\blooks? (?:right|correct|good|fine) (?:now|this time)\b",
    # "spent the morning untangling the migrations": the work the time went into.
    r"^(?:i |we )?spent (?:the|all|most of the|a|an|two|three|four|the whole) (?:\w+ )?(?:morning|"
    r"afternoon|evening|day|week|weekend|hours?|night) \w+ing\b",
    # A measure reached, reported as it stands now: "the endpoint is 90 ms now", "lag is back to zero".
    r"(?:is|are) (?:back (?:to|at|under|down to) |down to |up to )?(?:about |around |~)?[£$€]?\d[\d.,]*"
    r" ?(?:%|[a-zµ°]+)?(?: (?:a|per) \w+)? now\b",
    r"(?:is|are) (?:now )?back (?:to|at|under|down to)\b",
    # An artifact reported in place: "the connector config is now in migration/debezium/x.json".
    # Without "now", where a thing lives ("the schema is in rules.yaml") describes; it reports none.
    r"(?:is|are) now in (?:[\w.-]*/[\w./-]+|[\w-]+\.[a-z]{1,5}\b)",
    r"(?:is|are) (?:now |already |fully |all )?on v?\d+(?:\.\d+)+\b",
    r"(?:works|working|passes|pass|resolves?|loads?|builds|connects|starts|goes through|"
    r"shows? up|show|shows|sticks? around|survives?|is quiet) (?:fine |again |now )*"
    r"(?:now|again|fine|correctly|end to end)",
    r"(?:works|worked)\.?$",
    r"went (?:out|live|in)",
    r"no more\b",
    r"no longer",
    # A failure gone: "checkout doesn't hang anymore", "the load test doesn't throw anymore".
    r"(?:doesn't|does not|don't|won't|isn't|aren't|didn't) (?:\w+ )?(?:hang|crash|throw|fail|freez|"
    r"break|leak|error|flicker|jitter|stall|die|time out|stutter|lag|slow)\w* (?:\w+ )?anymore\b",
    r"(?:is|are) gone",
    r"finished overnight",
    r"(?:has|have) been (?:fixed|merged|"
    r"deployed|added|created|done)",
    r"\bdone\b(?!\s+(?:by|before|until))",
    r"(?:is|are) (?:now )?in(?:\.?$|\s+and\b)",
    r"went in as",
    # A state reached: "root MFA is on now", "the billing consumer is already on Avro",
    # "the old keys are deactivated as of now".
    r"(?:is|are) (?:now )?(?:on|off|live|enabled|disabled|in place) now\b(?! and then)",
    r"(?:is|are) already on (?:v?\d|[a-z])",
    r"(?:is|are) (?:\w+ )?[a-z]{3,}ed as of (?:now|today|this|an? |yesterday|\d)",
    r"'s on the cluster",
    r"(?:is|are) on the \w+ now",
    r"is registered",
    r"(?:tests?|builds?|ci) (?:is |are )?(?:green|passing)",
    r"exists? now",
    r"up and running\b",
    # A behaviour changed, reported as it now stands: "the cursor now orders by created_at".
    r"now (?:actually |correctly |only )?(?:uses|orders|returns|reads|sits|writes|sends|calls|"
    r"skips|retries|waits|matches)\b",
    r"(?:is|are) (?:now )?(?:wired|hooked) up\b",
    r"\bmanaged to\b",
    r"\ball green\b",
    r"took care of\b",
    r"got (?:\w+ ){0,4}(?:working|running|going|fixed|done|passing|green|sorted)\b",
    # The passive with "got": "the PR got merged", "the lease got signed".
    r"\bgot (?:finally )?(?:merged|deployed|shipped|released|signed|approved|published|delivered|"
    r"paid|booked|filed|submitted|installed|finished)\b(?! twice\b| again\b| by mistake\b)",
    r"(?:is|are) (?:now )?in (?:our |the |my )?\S+ now\b",
    r"shows? (?:\w+ )?now",
    r"sticks? around",
    r"(?:merged|shipped|landed|"
    r"deployed|released|moved|finished|went out)\b.*\b(?:yesterday|this morning|earlier today|"
    r"last (?:week|night|month))\b",
)

# Any participle reporting a step taken: "the savings account is reconciled", "the accounts are
# mapped", "the employees have been invited", "Bio is sent"; not one that describes ("the file is
# based on", "the API is rate limited", "the job is scheduled", "the rest is scattered").
DONE_PASSIVE = _lexicon(
    r"(?:is|are|has been|have been) (?:now |already |all |also |finally )?(?!(?:based|called|named|"
    r"located|used|supposed|needed|required|allowed|expected|limited|related|interested|"
    r"concerned|involved|associated|designed|intended|blocked|locked|stuck|delayed|tied|capped|"
    r"hosted|stored|owned|managed|scheduled|planned|focused|worried|confused|excited|pleased|"
    r"annoyed|tired|bored|surprised|convinced|aimed|meant|priced|sized|rated|grouped|keyed|"
    r"partitioned|encrypted|deprecated|outdated|unused|paused|disabled|skipped|ignored|"
    r"hardcoded|reserved|crowded|packed|mixed|nested|cached|compressed|shared|mirrored|"
    r"versioned|pinned|exposed|gated|restricted|protected|reported|complicated|dated|detailed|"
    r"advanced|experienced|qualified|scattered|computed|calculated|confirmed|churned|killed|"
    r"referenced|defined|derived|generated|triggered|charged|billed|counted|measured|"
    r"estimated|assumed|considered|treated|handled|covered|included|excluded|listed|"
    r"displayed|rendered|formatted|labelled|labeled|tagged|marked|flagged|set|unexpected|"
    r"undefined|unsigned|unpaid|unfinished|unresolved|unreleased|unmerged|untested)\b)"
    # The participle ends its clause, or a time, a place or the next clause follows it.
    r"[a-z]{3,}ed(?: up| out)?(?:\s*[.!]?$|\s+(?:and|but|so|now|already|too|as well|yesterday|"
    r"today|this|last|on (?:staging|prod|production|all)|to (?:the|our|all|self-))\b)",
    r"(?:is|are|has been|have been) (?:now |already |all |also |finally )?(?:sent|posted|"
    r"connected|mapped|invited|reconciled)\b(?!\s+(?:inline|by|via|through|as|when|if|every|"
    r"from)\b)",
)

# Something working as it should, said of a named subject: "sync works between my phone and iPad",
# "the strict build passes", "the drain went through", "subject 7 fits nicely". Lower-cased text;
# the caller requires a subject before the match and no negation in the clause.
DONE_SUCCESS = _lexicon(
    r"\b(?:works|worked|work(?<!there's work)(?<!of work)(?<!the work)(?<!more work)"
    r"(?<!some work)(?<!any work)(?<!no work)(?<!at work)(?<!to work))\b"
    r"(?! (?:on|for|with|at|as|out|around|toward|by|like|best|intermittently|sometimes)\b"
    r"| (?:\w+ )?(?:half|some|part) (?:of )?the time\b)",
    r"\b(?:passes|pass|passed)\b(?! (?:the|it|through|on|in|a|an|them|this|that)\b)",
    r"\b(?:finished|succeeded|succeeds|compiles|survives|survived)\b",
    r"\b(?:went|goes|go|ran|runs) through\b",
    r"\b(?:fits|fit|loads|load|loaded|shows|show|lands|land|runs|run|ran|starts|boots|connects|"
    r"syncs|renders|builds|plans|matches|match|appears|appear|arrives|arrive|comes through|"
    r"come through) (?:\S+ ){0,4}(?:now|again|fine|nicely|cleanly|correctly)\b",
    # Figures that reconciled: "the counts matched", "the checksums all matched". The present
    # tense is as often the check still to run ("verify the row counts match").
    r"\b(?:counts?|totals?|numbers|checksums?|hashes|sums|balances) (?:all )?matched\b",
    r"\b(?:fits|fit) (?:nicely|in memory|in \d)",
    r"\b\w+ed (?:fine|cleanly|successfully)\b",
    r"\b(?:looks?|is|are|feels?) (?:\w+ )?(?:right|fine|good|correct) now\b",
    r"\bnow points?\b",
    r"\b(?:runs|shows)\.?$",
)

# ----- pending ---------------------------------------------------------------------------------
# Deferral: the work is named and explicitly put off or left undone. Stronger than a choice verb.
DEFERRAL = _lexicon(
    r"\bcan wait\b",
    r"\bhold off\b",
    r"\bholding off\b",
    r"\bput (?:it|that|this) off\b",
    r"\bpark (?:it|that|this|the|those|these|our|my)\b",
    # The word first, then what may not stand before it: a branch opening with a letter is cheap.
    r"\blater(?<!\d later)(?<!seconds later)(?<!minutes later)(?<!hours later)(?<!days later)"
    r"(?<!weeks later)$",
    r"\b(?:can|could|will) (?:come|happen|go in|be done) later\b",
    r"\blater (?:this|today|tonight|on)\b",
    r"\bfor later\b",
    r"\buntil later\b",
    r"\bnext (?:week|sprint|month|quarter|release|"
    r"time)\b",
    r"\b(?:is|are) next\b",
    r"\btomorrow(?:'s)?\b",
    r"\bnot today\b",
    r"\bisn't (?:built|done|written|started|deployed|ready|fixed|merged|live|shipped) yet\b",
    r"\bnot\b[^.,;]{0,60}\byet\b",
    r"(?:is|are|was|were|has|have|had|do|does|did|ca|wo|could|should|would)n't\b[^.,;]{0,60}\byet\b",
    r"\bnot started\b",
    r"\bneither is started\b",
    r"\bwaits? (?:until|for|on)\b",
    # Not "tickets that were waiting on engineering": a past state, not work waiting now.
    r"\bwaiting(?<!was waiting)(?<!were waiting)(?<!had been waiting) (?:on|for|to hear)\b",
    r"\bblocked on\b",
    r"\bfollow[- ]?up\b",
    r"\buntil (?:after|next|monday|tuesday|wednesday|thursday|friday|"
    r"the)\b",
    r"\b(?:not happening|isn't happening|not) before (?:august|september|october|november|"
    r"december|january|february|"
    r"march|april|may|june|july)\b",
    r"\b(?:on|by|before) (?:monday|tuesday|wednesday|thursday|"
    r"friday)\b",
    r"\b(?:by|before) (?:the )?end of (?:the )?(?:day|week|month|sprint|quarter)\b",
    r"\bstill needs?\b",
    r"\bstill have to\b",
    r"\b(?:postpone[sd]?|postponing|deferr?(?:ed|ing)?|parked|de-?prioriti[sz]ed|"
    r"punt(?:ed|ing)?)\b",
    # Not a caller's wait: "calls drop after about 30 seconds on hold".
    r"\bon hold\b(?<!seconds on hold)(?<!minutes on hold)(?<!while on hold)"
    r"(?<!while you're on hold)",
    r"\bstill has to\b",
    r"\bstill (?:haven't|hasn't|have not|has not)\b",
    r"\b(?:is|are) due (?:on|by|in|next|this|before)\b",
    r"\bneeds writing\b",
    r"\bthis afternoon\b",
    r"\bin discovery\b",
    r"\bopen question\b",
    # Not "still open between Retrofit and Ktor": a choice left open, not work.
    r"\bstill (?:to do|todo|open(?! between\b))\b",
    r"\b(?:is|are) (?:also )?the next (?:big )?(?:step|thing|job|item|task)\b",
    r"\bnext on (?:my|our|the) (?:list|plate|agenda)\b",
    r"\bon (?:my|our|the) (?:to-?do|todo) list\b",
    r"\bblocked (?:until|till|pending)\b",
    r"\b(?:is|are) (?:planned|scheduled) for\b",
    r"\b(?:is|are) for after\b",
    r"\bat some point\b",
    r"\bsome ?day\b",
    r"\b(?:revisit|circle back to|come back to)\b",
    r"\b(?:is|are) still with\b",  # "the letter is still with their director": in their hands
    # A visit booked: "the engineer comes Wednesday", "the auditor arrives on Monday".
    r"\b(?:comes|arrives|visits|is coming|are coming) (?:in |on |next )?(?:monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)\b",
)

# Plans and work not yet done, weaker than a choice verb in the same clause.
PENDING = _lexicon(
    # "I'm working on the export", "still working on it"; not "got the VPN working on the Macs".
    r"(?:^|\b(?:i'm|we're|i am|we are|he's|she's|they're|is|are|am|still|currently|been|now|"
    r"and|but|so) )working on\b",
    r"\bnext up\b",
    r"^(?:don't|do not) forget\b",
    r"^remind (?:me|us)\b",
    # Work set after an event: "once the schema lands we should backfill the table".
    r"^(?:once|after|as soon as) [^,]{3,60}?,? (?:we|i) (?:should|need to|have to|must|can|will|"
    r"'ll)\b",
    # Work a thing is waiting for: "the old bucket can be deleted", "the README needs a section".
    r"\bcan (?:then )?be (?:deleted|removed|dropped|archived|decommissioned|retired|shut down|"
    r"turned off|cleaned up|merged|released|published)\b",
    r"\bneeds (?:a|an|another|more|some) (?:new )?(?:section|test|tests|note|docs|fix|update|review|"
    r"refactor|cleanup|migration|index|rewrite|comment|diagram|screenshot|example|paragraph|"
    r"chapter|owner)\b",
    r"\bgotta\b",
    r"\bnext steps? (?:is|are)\b",
    r"\bthen (?:i'll|we'll)\b",
    r"\b(?:we|i) (?:still )?owe\b(?! it to\b)",
    # Left undone: "we never got around to the export button", "the pricing page is what's left",
    # "the mobile build is the last piece missing", "the old cron box can go once the jobs move".
    r"\b(?:never|haven't|have not|didn't) (?:got|gotten|get) (?:a)?round to\b",
    r"\b(?:is|are) (?:all )?what's left\b|\bwhat's left is\b",
    r"\blast (?:piece|bit|thing|item|step)s? (?:missing|left|remaining|to do)\b",
    r"\bcan go (?:once|when|after|as soon as)\b",
    # Work partly done is still open: "the migration script is half done".
    r"\b(?:is|are|'s|'re|was|were) (?:only |about )?(?:half|partly|partially) (?:done|finished|"
    r"written|built|migrated)\b",
    r"\b(?:is|are|'s|'re|'m|am) (?:only |about )?halfway (?:done|through)\b",
    # "Let me look into the flaky test after lunch": the speaker's own work, for later.
    r"^let me (?!know\b|see\b|think\b|guess\b|explain\b|say\b)\w.*\b(?:later|after lunch|tomorrow|tonight|this (?:afternoon|evening|week)|"
    r"next week|on monday|first thing)\b",
    r"\bin progress\b",
    r"\bplan(?:ning)? to\b",
    r"\b(?:i|we) want to\b",
    r"\bgoing to (?!be\b)",
    # Not "we'll see how it goes": waiting to observe, not work.
    r"\b(?:i|we)(?:'ll| will) (?!be\b|see\b)",
    r"\bwill (?:add|do|write|fix|look|check|handle|start|pick|raise|send|move)\b",
    r"\b(?:goes|go|ships?|launch(?:es)?|lands?|is due|due|happens) (?:out |live )?(?:on |by |in )?"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d",
    r"\bpick (?:it|this|that) up\b",
    # A user's own plan, the subject dropped: "will flip it to enforcing on Monday".
    r"^will (?!be\b|see\b|probably\b|likely\b|never\b|not\b|have\b|need\b|want\b)[a-z]+",
    # Work delegated: "I've already asked Bilal to cut an exercise", "told the vendor to resend it".
    r"\b(?:asked|told|got) (?!(?:you|me|us|it|them|for|about|around|whether|if|why|how|what)\b)"
    r"(?:the )?[\w-]+(?: [\w-]+)? to (?!be\b|know\b|see\b|say\b)[a-z]+",
    # Work promised by someone else: "she'll send it Thursday", "they'll review the draft".
    r"\b(?:he|she|they)(?:'ll| will) (?:also )?(?:send|write|review|check|look|finish|share|draft|"
    r"update|fix|call|email|ping|bring|sort|handle|book|order|schedule|prepare|test|deploy|merge|"
    r"sign|approve|confirm|reply|get back|set up|follow up|add|do|make|run|build|create|install|"
    r"upload|print|post|ask|contact|collect|type up|measure|replace|move|cover|pick up)\b",
    # Work handed out: "the missing pages are assigned to the owning teams".
    r"\b(?:is|are|was|were|got|been) (?:now |already )?(?:assigned|handed|delegated) to\b",
    # A decision still to be taken by someone: "the head of school decides on the budget in January".
    r"\b(?:decides|will decide|is deciding|are deciding|gets to decide) (?:on|about|whether|if)\b",
    r"\bstill (?:investigating|analy[sz]ing|looking|working|monitoring|waiting|reviewing|"
    r"debugging|testing|evaluating)\b",
    r"\bremains? (?:open|to be)\b",
    r"\b(?:is|'s) on (?:me|him|her|them|us)\b",
    r"\bis (?:adding|writing|building|fixing|doing|looking)\b",
    r"\b(?:is|are) (?:already )?migrating\b",
    # "the allergen matrix needs updating": work to do, in the gerund.
    r"\bneeds? (?!nothing\b|something\b|anything\b|everything\b)[a-z]{3,}ing\b",
    r"\b(?:someone|somebody|one of us) (?:has|needs|will have|'ll have) to\b",
    r"\b(?:someone|somebody|one of us) (?:should|must|ought to)\b",
    # The subject dropped, as notes are written: "Need to order more boxes", "Have to redo X".
    r"^(?:still )?(?:need|have|got) to (?!be\b|say\b|admit\b|agree\b|wonder\b)[a-z]+",
    r"^remember to\b",
    # The speaker's own obligation, with its subject: "I have to send a formal request", "we
    # still need to renew the certificate"; not "I have to admit", "we need to decide".
    r"\b(?:i|we) (?:still |also |really |first )?(?:need|have|got) to (?!be\b|say\b|admit\b|"
    r"agree\b|wonder\b|decide\b|choose\b|pick\b|figure\b|think\b|know\b|understand\b|"
    r"keep\b|stay\b|use\b|support\b|make sure\b|check whether\b)[a-z]+",
    # Work offered by the speaker: "I can add the consent slip to Friday's newsletter".
    r"\bi can (?:add|do|send|write|fix|take|handle|ask|call|email|book|update|set up|prepare|make|"
    r"bring|print|order|draft)\b",
    # Work set for a later day: "switching the TSV to raw counts is for tomorrow".
    r"\b(?:is|are) for (?:tomorrow|later|next week|monday|tuesday|wednesday|thursday|friday|"
    r"the weekend)\b",
    r"\b(?:haven't|have not|hasn't|has not) (?:gotten|got) to it\b",
    r"\b(?:still|is|are) outstanding\b",
    # Someone else's part, on a named day: "designer sends it Wednesday".
    r"\b(?:sends|brings|delivers|renews|reviews|signs|returns|installs|measures|collects) "
    r"(?:it|them|the \w+) (?:on |by |next )?(?:monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday|tomorrow|week)\b",
    # Not done yet, in the passive: "the allergen labels haven't been updated for the new recipe".
    r"\b(?:haven't|hasn't|have not|has not) (?:yet )?been (?:[a-z]+ed|done|written|redone|rewritten|"
    r"set up)\b",
    # "the old endpoints need to be removed", "the contract has to be signed": work, in the passive.
    r"\b(?:needs?|has|have) to be (?!able\b|careful\b|aware\b|sure\b|used\b|based\b)[a-z]+(?:ed|en)\b",
    r"\bneeds to (?!be\b|handle|support|work|run|"
    r"stay|have|talk|show|scale|fit|survive|know|understand|match)",
    # Waiting on someone, or on a list: "the vendor still owes us the API keys", "renewing the
    # cert is on my list for Friday".
    r"\bstill owes? (?:us|me|them)\b",
    r"\b(?:is|are|'s) on (?:my|our|the) (?:list|todo list|to-do list|plate)\b",
)

_PRONOUN = r"(?:He|She|It|We|You|They|This|That|There|Here|What|Who|Which|Everyone|Nobody)\b"
# Work handed to a named person: "that's on Tom".
PENDING_CASED = Guarded(
    re.compile(
        r"\b(?:is|'s) on [A-Z][a-z]+\.?$|"
        # "Priya is on the SSO piece this week": a piece of work in someone's hands.
        r"^[A-Z][a-z]+(?: is|'s) on (?:the )?[\w -]{2,30} (?:this|next) (?:week|sprint|month)\b|"
        # "Mei is scheduling it", "Grace in my team is handling the recovery", "Elif, our
        # counsel, is reviewing the DPA", "the labelling vendor is re-checking the images".
        r"^(?:(?!"
        + _PRONOUN
        + r")[A-Z][a-z]+|[Tt]he [a-z]+ (?:vendor|team|agency|contractor|consultant|designer)|"
        # "my brother is bringing a switch": a person named by who they are to the speaker.
        r"(?:[Mm]y|[Oo]ur) (?:brother|sister|colleague|teammate|manager|boss|lead|partner|friend|"
        r"designer|developer|admin|accountant|lawyer|counsel|contractor|intern))"
        r"(?: (?:in|from|on) (?:my|our|the) \w+|, [^,]{3,40},)?(?: is|'s) (?:also |still )?"
        r"(?!going\b|seeing\b|getting\b|having\b|saying\b|asking\b)[a-z][a-z-]+ing\b|"
        # A named person taking work on: "Marta from customer success will tag the reasons".
        # Not a plural opening the sentence ("Dashboards will query with FINAL").
        r"^(?:(?!"
        + _PRONOUN
        + r")[A-Z][a-z]+(?<![b-df-hj-np-tv-z]s)|[A-Z]{2,5}|(?:[Mm]y|[Oo]ur) (?:brother|sister|"
        r"daughter|son|wife|husband|colleague|manager|boss|lead|partner|friend|designer|developer|"
        r"admin|accountant|lawyer|contractor))(?: (?:from|in|on) (?:the |our |my )?[\w -]{2,30}?|"
        r", [^,]{3,40},)? will "
        r"(?!be\b|have\b|probably\b|likely\b|never\b|not\b|want\b|need\b|like\b|love\b|hate\b)[a-z]+|"
        # "he's handling its updates", "she's writing the FAQ".
        r"^(?:he|she)(?:'s| is) (?!going\b|seeing\b|getting\b|having\b|saying\b|asking\b|"
        r"complaining\b|wondering\b|using\b|expecting\b|hoping\b|waiting\b|right\b|"
        r"thinking\b|talking\b|coming\b)[a-z]+ing\b"
    ),
    ("s on ", " is ", "he's", "'s ", " will "),  # "she's" holds "he's"
)

IN_PROGRESS = Twin(
    re.compile(
        r"\b(?:working on|in progress|half done|halfway|partly done|partially done|"
        r"currently (?:\w+ing)|in the middle of|still (?:investigating|"
        r"analy[sz]ing|monitoring|working|debugging|testing|evaluating|looking))\b",
        re.IGNORECASE,
    )
)

# ----- errors ----------------------------------------------------------------------------------
# An error status answered by design: "both endpoints now return 404 for unknown ids".
BY_DESIGN_STATUS = (
    r"(?! (?:for|on|when|if|to) (?:[\w-]+ ){0,3}?(?:unknown|missing|invalid|bad|nonexistent|non-existent|"
    r"expired|unauthori[sz]ed|unauthenticated|deleted|malformed|anonymous|wrong)\b)"
)
# Predicates of failure and wrong behaviour: a clause with one states a problem.
ERROR = _lexicon(
    r"fail(?:s|ed|ing)\b",
    r"crash(?:es|ed|ing)?\b",
    r"broke(?:n)?\b",
    r"breaks\b",
    r"break(?<!a break)(?<!the break)(?<!coffee break)(?<!lunch break) (?:when|whenever|if|on|after)\b",
    r"blows? up\b",
    r"blew up\b",
    r"fell (?:\w+ )?(?:over|behind)\b",
    r"(?:falls?|falling) (?:\w+ )?(?:over|behind)\b",
    r"hangs\b",
    r"hung\b",
    r"hanging\b",
    r"tim(?:es|ed|ing) out\b",
    r"stuck\b",
    r"flak(?:y|iness)\b",
    r"oom\b",
    r"out of memory\b",
    r"leak(?:s|ing|ed)\b",
    r"regressed\b",
    # Not the statistical model: "a simple regression", "Cox regression".
    r"regression\b(?<!linear regression)(?<!logistic regression)(?<!simple regression)"
    r"(?<!multiple regression)(?<!cox regression)(?<!ridge regression)(?<!poisson regression)",
    r"doesn't work\b",
    r"(?:isn't|aren't|is not|are not|not) working\b",
    r"stopped working\b",
    r"keeps? (?:returning|failing|crashing|timing out|reporting|throwing|dropping|hanging|declining|"
    r"rejecting|refusing|bouncing|skipping|duplicating|losing|overwriting|resetting)\b",
    r"(?:keeps?|kept) (?:restarting|rebooting|disconnecting|freezing|erroring|stalling)\b",
    r"kept (?:returning|failing|crashing|timing out|throwing|dropping|hanging)\b",
    r"returns? (?:a )?[45]\d\d\b" + BY_DESIGN_STATUS,
    r"throws?\b",
    r"threw\b",
    r"rejects?\b",
    r"(?:is|are|was|were) (?:\w+ )?(?:wrong|incorrect|corrupt\w*|unreachable|unreliable|missing|"
    r"locked|empty|duplicated|unsafe|broken)\b",
    r"still (?:shows?|showing|accepted|accepts|returns|has the old|fails)\b",
    # "the letter has the wrong date", "drop-through works half the time".
    r"(?:has|have|had) (?:got )?the wrong\b",
    r"\bworks (?:\w+ )?(?:half|some) (?:of )?the time\b",
    r"\bthermal(?:ly)? throttl\w*",
    r"double-creat\w*",
    r"mak(?:es|ing) up\b",
    r"exceed(?:s|ed|ing)\b",
    r"show(?:s|ed)? (?:zero|nothing|results for an older)\b",
    r"wiped\b",
    r"(?:looks?|seems?|renders?|displays?|comes? out|came out) (?:\w+ )?(?:wrong|off|broken|"
    r"garbled|"
    r"blank|empty|sideways|cut off|un[a-z]{3,}ed)\b",
    r"overlap(?:s|ping)?\b",
    r"(?:vanish|disappear)(?:s|ed|ing)?\b",
    r"getting (?:a |an )?[45]\d\d\b",
    # An HTTP error status as the answer: "uploads come back with a 413", "it gives us a 502".
    r"(?:comes?|came|coming) back (?:with )?(?:a |an )?[45]\d\d\b",
    r"(?:gives?|gave|giving) (?:us |me |them )?(?:a |an )?[45]\d\d\b",
    # Symptoms: "thumbnails show up blank", "the page spins forever", "it never finishes".
    r"(?:shows?|showed|showing|turns?|turned) up (?:as )?(?:\w+ )?(?:blank|empty|broken|garbled|"
    r"wrong|twice|duplicated|missing|cut off)\b",
    r"(?:spins?|spinning|spun|hangs?|loads?|loading|churns?|sits?|spinner) (?:there )?forever\b",
    r"never (?:finishes|finished|loads|loaded|completes|completed|returns|returned|arrives|arrived|"
    r"shows up|showed up|gets through|responds)\b",
    r"\b(?:ci|build|builds|pipeline|tests|checks|main) (?:is|are|has been|have been|went|turned|"
    r"stays?|stayed|keeps going) (?:all )?red\b",
    r"(?:fires?|fired|firing|runs?|ran|sent|sends|charged|charges|triggers?|triggered|posts?|"
    r"posted|bills?|billed|emails?|emailed) (?:\w+ )?twice\b",
    r"double[- ](?:charg|post|send|sent|fir|bill|book|count)\w*",
    r"(?:gets?|got|getting|being) (?:oom[- ])?(?:evicted|oom-killed|killed by)\b",
    r"disconnects\b",
    r"(?:creat|produc|generat|insert|add|mak)(?:es|ed|ing|e) (?:\w+ )?duplicates?\b",
    r"\b(?:latency|p9\d|p50|response times?|load times?|memory|cpu|error rates?|bounce rate|"
    r"bills?|costs?) (?:\w+ )?(?:jumped|shot up|doubled|tripled|ballooned|went through the roof)\b",
    r"(?:lands?|landing|landed|goes|going|went|ends? up|ended up) in (?:the )?(?:spam|junk)\b",
    r"trip(?:s|ped|ping)? (?:the |a )?(?:\w+ ){0,2}(?:breaker|fuse|circuit|rcd|electrics)\b",
    r"\bbatter(?:y|ies) (?:\w+ )?drain|drains? (?:the |my )?batter",
    r"(?:looks?|renders?|displays?|prints?|comes? out|came out) (?:\w+ )?(?:tiny|blurry|pixelated|"
    r"stretched|squashed|upside down)\b",
    r"drops? (?:the |its |my |our )?(?:connection|signal|wi-?fi|call|session)s?\b",
    r"(?:isn't|aren't|is not|are not|wasn't|weren't|won't|'s not|'re not) (?:loading|saving|working|starting|"
    r"connecting|rendering|updating|syncing|showing|compiling|building|running|responding|firing|"
    r"hitting|matching|triggering|arriving|printing|pairing|scanning|refreshing|uploading|"
    r"downloading|booting|counting)\b",
    r"is not (?:a function|defined)\b",
    r"cannot read propert",
    r"segfault\w*",
    r"segmentation fault",
    r"stack overflow\b",
    r"null pointer",
    r"panicked\b",
    r"spurious\b",
    r"(?:tickets|complaints|errors|failures|latency|churn|costs?|bounces|timeouts|retries|"
    r"refunds|chargebacks) (?:are|is|went|have gone|has gone) (?:way )?up\b",
    r"blocked (?:on|by) (?!it\b|that\b|this\b|them\b)",
    r"(?:is|are|was|were) off by\b",
    r"(?:doesn't|does not|didn't|won't) (?!need|want|matter|bother|have to|care|mind|seem to "
    r"matter|hurt|help much|change)(?:\w+ )?(?:escape|handle|load|save|update|render|return|show|"
    r"respect|close|release|retry|validate|match|support|connect|start|stop|compile|build|parse|"
    r"detect|find|open|sync|refresh|redirect|work|fire|trigger|persist|apply|wake|boot|turn on|"
    r"power on|print|charge|log in|sign in|unlock|upload|install|import|add up|reconcile|seal|"
    r"drain|flush|lock|latch|heat up|warm up|cool down)\b",
    # Figures that disagree: "row counts don't match", "the totals do not add up".
    r"(?:don't|do not) (?:\w+ )?(?:match|add up|line up|reconcile|balance|tie out)\b",
    r"(?:over|under)fit\w*",
    r"diverg(?:es|ed|ing)\b",
    r"reinstat\w*",
    r"resurrect\w*",
    r"(?:los(?:e|es|ing)|lost) (?:\w+ )?(?:data|rows|writes|updates|events|messages|state)\b",
    # Plural subjects fail too: "uploads over 10 MB fail with a 413", "tests fail in CI".
    r"\b(?:tests|builds|jobs|uploads|downloads|requests|deploys|runs|calls|payments|imports|"
    r"exports|queries|logins|emails|messages|pipelines|migrations|checks|syncs|backups|"
    r"webhooks|renewals|charges|transfers) (?:\w+ ){0,4}?(?:still |now |randomly |sometimes |"
    r"often |all |both |just )?fail\b",
    r"fail (?:with|on|in|when|whenever|after|randomly|intermittently|silently|again)\b",
    # Symptoms in plain words: "the button does nothing", "signups never reach the CRM", "users
    # get logged out", "the import chokes on semicolons", "the printer jams", "a redirect loop".
    r"(?:does|did) nothing\b(?! (?:to|about|for|else|but)\b)",
    r"nothing (?:happens|happened|happen)\b",
    r"never (?:reach|reaches|reached|arrive|came|come|comes|make it|made it|went off|"
    r"goes off|go off|fire|fires|fired|get sent|got sent|sync|syncs|synced|load|start|starts|"
    r"started|save|saves|saved)\b",
    r"(?:gets?|got|getting|keep getting) (?:\w+ )?(?:logged|kicked|signed) out\b",
    r"chok(?:es|ed|ing) on\b",
    r"\bjam(?:s|med|ming)\b",
    r"(?:in an? (?:endless |infinite )?(?:redirect )?loop|redirect loop)\b",
    r"(?:retries|retrying|loops|looping|runs|running|waits|waiting|polls|polling) forever\b",
    r"(?:restarts|reboots) every\b",
    r"(?:drops?|dropped|jumps?|jumped|falls?|fell|resets?|goes|went) (?:back )?to (?:0|zero)\b",
    r"oom[- ]?kill\w*",
    r"cuts? off (?:the|part|half|halfway|midway|some|everything|anything)\b",
    r"\b\d+ (?:(?:test )?failures|failing (?:tests|specs|checks)|failed (?:tests|specs|checks|jobs))\b",
    r"(?:comes?|came|coming) (?:through|back|in|out) (?:with |as )?(?:nulls?|empty|blank|zeros?|"
    r"nan)\b",
    # Put in the wrong place: "shows up on the wrong day", "charged in the wrong currency".
    r"(?:shows?|showed|turns?|turned) up (?:on|in|at|under) (?:the |a )?wrong\b",
    r"(?:charged|billed|sent|delivered|posted|shipped|routed|booked|filed) (?:\w+ )?(?:on|in|at|to|"
    r"into|with|from|for|under) (?:the |a )?wrong\b",
    r"stopped (?:responding|syncing|sending|loading|updating|firing|running|saving|printing|"
    r"charging|connecting|receiving|showing|logging|importing|exporting|uploading|processing|"
    r"posting|renewing|tracking|recording|publishing|indexing|taking|accepting|counting|playing)\b",
    # Money or goods short: "the supplier shorted us", "overcharged every customer".
    r"(?:shorted|short-?changed|short-?shipped) (?:us|me|them|the)\b",
    r"(?:over|under|double)charg(?:es|ed|ing)\b",
    r"duplicat(?:es|ed|ing) (?:every|all|each|some|the|our) (?:\w+ )?(?:rows?|records?|entries|"
    r"events|orders|transactions|invoices|lines|payments|emails|messages)\b",
    r"(?:is|are|was|were|got|gets?|keeps? getting) (?:\w+ )?(?:rejected|declined|bounced)\b",
    r"(?:came|comes?|coming) (?:back|through) (?:with|as|on) (?:the |a )?wrong\b",
    r"inflat(?:es|ed|ing) (?:the |our |all )?(?:\w+ )?(?:totals?|numbers|counts|revenue|metrics|"
    r"figures|sums)\b",
    # Output that is no value: "reads the barcodes as gibberish", "renders the name as 'undefined'".
    r"\b(?:reads?|renders?|shows?|displays?|prints?|appears?|comes? out|came out) (?:\S+ ){0,4}?as "
    r"(?:an? )?['\"]?(?:undefined|null|nan|gibberish|garbage|nonsense|question marks?|boxes|"
    r"squares)\b",
    r"\b(?:nobody|no one|no-one) can (?:log in|sign in|access|open|reach|connect|pay|check out)\b",
    r"\bflagged (?:a|an|the|another) (?:\w+ )?(?:conflict|issue|problem|error|discrepancy|"
    r"mismatch|bug|inconsistency)\b",
    r"(?:don't|do not) (?:\w+ )?(?:load|render|connect|fire|arrive|open)\b",
    r"leav(?:es|ing) (?:\w+ ){0,3}behind\b",
    r"(?:goes|went|going|gone) negative\b",
    r"\bstale (?:cache|data|build|value|values|read|reads|config|token|session|copy|version|"
    r"results|index|prices)\b",
    r"\bsideways\b",
    r"(?:gets?|got|getting|being) (?:\w+ )?(?:preempted|throttled|rate[- ]limited|banned|"
    r"suspended|locked out)\b",
    r"\b(?:site|server|service|app|api|database|db|cluster|prod|production|website|network|"
    r"wi-?fi|email|portal|checkout|login|vpn|dns|backend|frontend|shop) (?:\w+ )?(?:(?:went|goes) "
    r"down\b(?! (?:to|by|from|the|a)\b)|(?:is|was|were|are) down\b(?= (?:again|for|since|now|"
    r"today|this|last|all)\b|\s*[.,;!]|\s*$))",
    r"(?:arrives?|arrived|arriving|go out|goes out|went out|runs?|ran|fires?|fired|shows? up|showed up) "
    r"(?:\w+ ){0,2}late\b",
    r"(?:is|are|was|were) (?:\w+ )?out of date\b",
    r"overwr(?:it\w*|ote) (?:\w+ )?(?:changes|data|rows|writes|updates|edits|work|files?)\b",
    r"\b(?:ran|run|runs|running) out of (?:disk|space|memory|quota|credits|connections|file "
    r"descriptors|inodes|storage)\b",
    r"(?:is|are|was|were) (?:\w+ )?garbled\b",
    r"\b(?:box|server|host|node|site|link|battery|disk|drive|machine|instance|vm|pod|worker|"
    r"printer|phone|laptop|router) (?:is|are|was|were|'s|just|went) (?:\w+ )?dead\b",
    # A status used as a verb: "all the old links 404 now", "the callback 500s".
    r"\b(?:links?|urls?|pages?|routes?|requests?|endpoints?|calls?|callbacks?|it|they) "
    r"(?:(?:all|now|still|just) )?[45]\d\d(?:s|'s|ed)?\b(?! (?:page|error page|handler|template|"
    r"status)\b)",
    r"silently\b",
    r"discards?\b",
    r"deletes?\b.*\b(?:everyone|all)\b",
    r"contradicts?\b",
    r"not (?:statistically )?significant\b",
    r"permission denied\b",
    r"denied\b",
    r"not (?:found|authorized|allowed|supported)\b",
    r"cannot\b",
    r"could not\b",
    r"couldn't\b",
    r"unable to\b",
    r"dropp(?:ing|ed) (?:by|about|from|\d)",
    r"too (?:small|few|large|big|slow|noisy|many) to\b",
    r"flicker(?:s|ing)?\b",
    # The verb reports a spike; "a sudden spike" is mostly the load a design is planned for.
    r"spik(?:ed|es|ing)\b",
    r"slipped\b",
    r"screaming\b",
    r"no (?:\w+ )?timeout\b",
    r"(?:there's|there is|we have|we've got|got|hit|hitting|seeing|found|noticed|getting) "
    r"(?:a |an |"
    r"the |some |two |\w+ )?(?:\w+ )?(?:bug|error|race|collision|deadlock|leak|crash|outage|"
    r"incident|regression|vulnerabilit\w+|cves?|oom)\b",
    r"flags? (?:\w+ )?cves?\b",
    r"(?:bug|race condition|collision|deadlock|outage|incident|idor|corrupt(?:ed|ion)?|"
    r"memory leak)\b(?!-)"
    r"(?! (?:is|was) (?:fixed|gone))",
    r"error rate\b",
    r"(?:doesn't|does not|don't|won't|isn't|aren't|can't) \w+ anymore\b",
    r"killing\b",
    r"garbage\b",
    r"hardfaults?\b",
    r"misses the\b",
    r"dropping (?:\w+ )?(?:submissions|requests|events|messages|rows|packets|frames|connections|"
    r"records)\b",
    r"shows? #\w",
    r"dies\b",
    r"shows? (?:the |a )?wrong\b",
    # Something happening twice that should happen once; not "twice a week", "beat them twice".
    r"(?:twice|two times)\b(?! (?:as|a|an|per|this|that|every|each|daily|weekly|without|in a row)\b)",
    r"4\d\ds\b",
    r"5\d\ds\b",
    r"expired\b",
    r"freez(?:es|ing)\b",
    r"froze\b",
    r"never (?:runs|fires|starts|arrives|finishes|loads|syncs|gets)\b",
    r"(?:couldn't|can't|cannot) keep up\b",
    r"(?:unreadable|unusable|out of date)\b",
    # Duplicated data: "partner_sales has duplicate rows", "the job created duplicate invoices".
    r"(?:has|have|had|got|getting|creat(?:es|ed|ing)|produc(?:es|ed|ing)|writ(?:es|ing)|wrote) "
    r"(?:\w+ )?duplicate (?:rows|records|entries|events|emails|charges|orders|invoices|payments|"
    r"messages|tickets|jobs|users|accounts)\b",
    # Getting worse: "the scheduler loop got noticeably slower", "latency is getting worse".
    r"(?:got|gets|getting|became|has become) (?:\w+ )?(?:slower|worse)\b",
    # Waiting forever: "unrelated DAGs just sit in queued", "builds sitting in pending".
    r"(?:sit|sits|sitting|sat) (?:in|at) (?:the )?(?:queued?|pending|scheduled)\b",
    # Collapse: "the return falls off a cliff", "it still collapsed, just later".
    r"(?:fall|falls|fell|falling) off a cliff\b",
    r"collaps(?:es|ed|ing)\b(?! (?:the|into|them|it|all|both|those|these|a|an|every|each)\b)",
    # Motion that is off: "the player jitters when the camera follows", "scrolling stutters".
    r"(?:jitter|stutter)(?:s|ing|y)\b",
    r"oom ?kill\w*",
    # Nothing where something was expected: "searching for C# returns nothing at all".
    r"returns? (?:nothing|no results|an empty (?:list|page|array|response))\b",
    # Figures that are wrong: "the counts are off", "the totals were way off".
    r"(?:counts?|numbers?|totals?|figures?|sums?|amounts?|metrics|stats|balances?) "
    r"(?:are|is|were|was) (?:\w+ )?off\b",
    # A duty nobody did, as incidents are told: "nobody copied the renewed certs".
    r"nobody (?:had |has )?(?:copied|updated|renewed|checked|reviewed|tested|rotated|"
    r"migrated|monitored|applied|restarted|caught|told)\b",
    # The system judged as it is now ("the current is terrible"), not a past one recounted.
    r"(?:is|are|feels?|looks?|sounds?) (?:\w+ )?(?:terrible|awful|horrible|abysmal)\b",
    # Casual reports: "it's giving me error", "gave us this error".
    r"(?:gives?|giving|gave) (?:me |us )?(?:an? |this |that |the same |some )?(?:\w+ )?errors?\b",
    # "the dashboards in Metabase time out", not "take a time out" or "set it to time out".
    r"time out\b(?<!\ba time out)(?<!\bthe time out)(?<!\btake time out)(?<!\btook time out)"
    r"(?<!\bto time out)",
    r"(?:gets|getting|got|becomes|became) (?:\w+ )?(?:slow|sluggish|unresponsive|laggy)\b",
    r"(?:isn't|aren't|wasn't|weren't|not|never) (?:\w+ )?green\b",  # CI
    r"(?:passwords?|secrets?|tokens?|keys?|credentials) (?:\w+ ){0,3}in plain ?text\b",
    r"show(?:s|ed|ing)? (?:the )?(?:old|stale|outdated|previous) \w+",
    r"(?:didn't|did not|doesn't|does not|won't|never) (?:\w+ )?(?:go off|arrive)\b",
    # The people served, upset: "customers are furious", "players keep complaining".
    r"(?:customers|users|clients|people|players|students|members|buyers|readers|staff|guests|"
    r"patients|employers|subscribers) (?:are |were |keep |have been |started |already )?"
    r"(?:furious|angry|upset|frustrated|complaining|complain(?:ed)?)\b",
    # Abnormal ends: "the github action died on it", "Aborted with 2 warnings".
    r"died\b",
    r"abort(?:s|ed)\b(?! (?:the|it|a|an|my|our|this|that)\b)",
    r"(?:is|are|was|were) (?:still )?undefined\b",
    # Refused to the user: "the portal won't let me save", "it doesn't let us log in".
    r"(?:won't|doesn't|does not|will not|wouldn't|didn't) let (?:me|us|them|users?|people|anyone)\b",
    # Out of reach: "412 jobs just aren't searchable today", "the button isn't clickable".
    r"(?:isn't|aren't|wasn't|weren't) (?:just |even |really |actually )?(?:searchable|clickable|"
    r"visible|reachable|accessible|findable|editable|selectable)\b",
    # State lost on its own: "their cart empties", "the form goes blank", "it logs me out".
    r"(?:empties|emptied)\b(?! (?:the|it|a|an|my|our|this|that)\b)",
    r"(?:goes|went|going) blank\b",
    r"(?:logs?|logged|kicks?|kicked|signs?|signed) (?:me|us|them|users|people|everyone) out\b",
    # A figure judged impossible: "March shows 140%, which is impossible".
    r"(?:is|are|was|were|looks?|seems?) (?:\w+ )?(?:impossible|nonsense|nonsensical|absurd|"
    r"implausible)\b",
    # Duplicated data: "a third of the attempts had a duplicate".
    r"(?:has|have|had|got|getting) (?:a |some |\d+ )?duplicates?\b",
    # Done to the data behind everyone's back: "60 tickets got auto-closed", "got wiped".
    r"got (?:auto-?[a-z]+|accidentally [a-z]+|wiped|overwritten|double-[a-z]+)\b",
    # Behaviour nobody can explain: "for some reason the export skips Mondays".
    r"for some reason\b",
    # Figures that do not reconcile: "the totals don't add up", "the two ledgers never tally".
    r"(?:don't|doesn't|do not|does not|didn't|won't|never) (?:add up|reconcile|tally)\b",
    # A change nobody owns up to: "someone changed it from 168 to 96 hours".
    r"(?:someone|somebody) (?:had |has )?(?:changed|deleted|removed|disabled|turned off|"
    r"switched off|edited|overwrote|reverted|dropped)\b",
    # Less than was ordered or asked: "delivered 6 kg instead of 12", "got 40 rows instead of 50".
    r"(?:got|gets|getting|delivered|delivers|returned|returns|sent|received|charged|"
    r"billed|came back with) (?:\S+ ){0,3}?[£$€]?\d[\d.,]*\S* (?:\S+ ){0,3}?instead of "
    r"(?:the )?[£$€]?\d",
    r"never (?:got|received|showed up|came)\b",
    # A check narrower than it should be: "the duplicate check only compares the invoice number".
    r"only (?:compares|checks|validates|catches|detects|counts|looks at)\b",
    r"complain(?:s|ed|ing)? (?:that|about)\b",
    # Overload: "the app hammers the endpoint every 2 seconds", "the job floods the logs".
    r"(?:hammer|flood|spam)(?:s|ing|ed|med|ming)\b",
    r"(?:not possible|impossible) to\b",
    # One thing twice: "we end up processing duplicate events", "a second session for the same
    # visit", "two guests getting the same room".
    r"end(?:s|ed)? up (?:\w+ing |with )(?:\w+ )?duplicates?\b",
    r"(?:a second|an extra|a duplicate) \w+(?: \w+)? for the same\b",
    # Plain-words failures outside software: "the scanner refuses to read the new labels", "the
    # projector cuts out", "the audio drifts out of sync", "tax got applied by mistake".
    r"(?:refuses|refused|refusing) to\b",
    r"(?:cuts?|cutting|drops?|dropping) out\b(?! of\b)",
    r"out of sync\b",
    r"by (?:mistake|accident)\b",
    r"still (?:can't|cannot|won't|doesn't) (?!decide|agree|choose|pick|tell|say|figure|"
    r"make up|wait|believe)",
    r"(?:nobody|no one|no-one) (?:received|got|gets|saw|sees|heard)\b",
    r"(?:we|i|they) lost (?:\S+ ){0,4}?(?:records|files|photos|emails|orders|entries|changes|work|"
    r"progress|history|weeks|days|hours|bookings|contacts|data)\b",
    r"(?:grinding|clicking|rattling|squealing|buzzing|whining|knocking) (?:noise|sound)s?\b",
    r"(?:didn't|did not|failed to) pass\b"
    r"(?! (?:it|that|this|them|the (?:cost|savings?|message)) on\b)",
    # Heard, seen or found wrong: "the PA crackles", "the alert flaps at 3am", "the spine text is
    # off-centre", "the edging boards are rotten", "the clamp was on backwards".
    r"\b(?:crackles|crackling|hisses|squeals|rattles|flaps|flapping)\b",
    r"\boff[- ]cent(?:re|er)\b|\bmisaligned\b|\bon backwards\b|\bupside down\b|"
    r"\bthe wrong way round\b",
    r"(?:is|are|was|were|'s|'re) (?:\w+ )?(?:rotten|rotted|rusted|mouldy|moldy|cracked|warped|"
    r"seized|clogged|bent|snapped|chipped|scratched|dented|soaked|flooded|lifting|peeling|"
    r"bulging|flaking)\b",
    r"(?:went|goes|go) out short\b",
    r"(?:didn't|did not|doesn't|does not) reach\b",
    r"(?:two|both|multiple|several) \w+ (?:getting|booking|receiving|claiming|taking|assigned) "
    r"the same\b",
)


# Rarer symptoms, in a lexicon of their own: ``ERROR`` is scanned at every word of nearly every
# clause, this one only where ``ERROR`` finds nothing.
_RARE = _lexicon(
    # An error status met: "when I call it I get a 500", "we hit a 429 on every retry".
    r"\b(?:get|gets|got|see|seeing|saw|hit|hitting) (?:a |an )?(?:http )?[45]\d\d\b"
    + BY_DESIGN_STATUS,
    # What a system will not do: "the portal will not accept my parcel number", "the cron job
    # didn't run last night".
    r"\b(?:will not|won't|wouldn't|would not|doesn't|does not|didn't|did not|can't|cannot) "
    r"(?:accept|arrive|go through|sync|pick up|recogni[sz]e|register|trigger|calculate|deliver|"
    r"pair|authenticate|resolve|mount|let me|allow me)\b",
    r"\b(?:job|cron|script|task|backup|build|tests?|pipeline|workflow|service|timer|hook|report|"
    r"sync|import|export)s? (?:\w+ )?(?:didn't|did not|doesn't|does not|won't|never) run"
    r"(?= (?:last|this|yesterday|today|on|at|overnight|again|since)\b|\s*[.!,;]|\s*$)",
    # Kept out or let in: "half our users can't upload photos", "logged into someone else's
    # account", "customers are seeing each other's carts", "Safari users see a blank page".
    r"\b(?:can't|cannot|couldn't) (?:upload|log in|login|sign in|save|open|connect|print|access|"
    r"pay|check out|download|reach)\b",
    r"\b(?:into|in|to|see|sees|seeing) (?:someone|somebody) else's\b|\bsee(?:s|ing)? (?:each "
    r"other's|other (?:users|people|customers|tenants|patients)'?s?)\b",
    r"\b(?:see|sees|seeing|get|gets|getting) (?:a |an )?(?:blank|white|empty|black) "
    r"(?:page|screen)\b",
    # A record given the wrong standing, or the wrong one: "the portal lists the application as
    # incomplete", "the chart shows last month's data instead of this month's", "returns results
    # from deleted projects", "two customers were charged for a cancelled subscription".
    r"\b(?:lists?|listed|marks?|marked|shows?|showed|flags?|flagged) (?:\S+ ){1,4}?as "
    r"(?:incomplete|invalid|rejected|failed|expired|unpaid|missing|duplicates?|spam|offline|down|"
    r"overdue|cancell?ed|inactive|unverified)\b",
    r"\b(?:shows?|showed|displays?|displayed|returns?|returned|prints?|printed|renders?|rendered|"
    r"sends?|sent|charges?|charged) (?:\S+ ){1,6}?instead of\b(?! (?:the )?[£$€]?\d)",
    r"\b(?:returns?|returning|shows?|showing|includes?|including|lists?|listing) (?:\w+ ){0,2}"
    r"(?:from|for|of) (?:deleted|archived|cancell?ed|expired|disabled)\b",
    r"\b(?:charged|billed|emailed|notified|invoiced) (?:\w+ ){0,3}(?:for|after|despite) (?:a |an "
    r"|the |their )?(?:cancell?ed|refunded|deleted|closed|expired)\b",
    # Gone, lost, sent twice: "all my source notes are gone", "lost a paragraph", "two
    # confirmation emails each".
    r"\b(?:notes|files|data|records|photos|emails|messages|entries|rows|changes|settings|"
    r"contacts|images|documents|comments|posts|orders|invoices|uploads|backups|logs|bookmarks|"
    r"events) (?:\w+ )?(?:are|were|is|was|went|have gone|has gone) (?:all )?(?:gone|missing)\b",
    r"\b(?:los(?:e|es|ing)|lost) (?:a |the |my |our |all (?:my |our |the )?)?(?:paragraph|work|"
    r"changes|progress|edits|draft|notes)\b",
    r"\b(?:two|three|2|3) (?:\w+ )?(?:emails|messages|notifications|invoices|charges|copies|"
    r"texts) each\b",
    # Out of place or out of order: "moved by an hour", "show up a day early", "loops back to
    # the login page", "a warning in the console", "the translations are mixed up".
    r"\b(?:moved|shifted|jumped) by (?:an?|one|two|\d+) (?:hours?|days?)\b",
    r"\b(?:shows?|showed|turns?|turned) up (?:a day|an hour|\d+ \w+) (?:early|late)\b",
    r"\bloops? back (?:to|into)\b",
    r"\b(?:warning|error)s? (?:\w+ )?in the (?:console|logs?|browser|terminal)\b",
    r"\b(?:are|is|got|get|gets) (?:all )?mixed up\b",
    r"\bjust spins\b|\bgoes (?:crazy|haywire|nuts|berserk)\b|\b(?:prints?|printed|printing) "
    r"(?:\w+ )?(?:blank|garbled|wrong)\b|\b(?:flickers?|flickering|flashes)\b|\bdeadlock\w*",
    # Out of time or place: "an hour behind", "off by one", "nothing shows up", "the tap drips".
    r"\b(?:an?|one|two|\d+) (?:hours?|minutes?|days?) (?:behind|ahead)\b",
    r"\boff[- ]by[- ]one\b",
    r"\bnothing (?:shows|showed|loads|loaded) up\b|\bnothing loads\b",
    r"\b(?:drips|dripping|keeps dropping)\b",
    # Twice, or a little off: "customers get duplicate emails", "the invoices come out a cent off".
    r"\b(?:get|gets|got|getting|receive|receives|received|see|sees|seeing) (?:duplicate|double) "
    r"\w+",
    r"\b(?:a|one|two|a few|\d+) cents? off\b|\boff by (?:a|one|\d+) cents?\b",
    # Turned away or not started: "the bank rejected the transfer", "half the RSVPs bounced",
    # "the heating didn't come on", "we're 200 pounds short".
    r"\b(?:declined|rejected|refused) (?:the |my |our |his |her |their |\w+ )?(?:payments?|cards?|"
    r"transfers?|transactions?|uploads?|orders?|bookings?)\b|\b(?:payment|card|transfer|"
    r"transaction|booking)s? (?:was |were |got |gets |is |are )?(?:declined|rejected|refused)\b",
    r"\b(?:bounced|bounces|bouncing)\b(?! (?:ideas?|back|around|off)\b)",
    r"\b(?:didn't|did not|won't|doesn't|does not) (?:come|turn|switch) on\b",
    r"\b(?:\d+|a few|some) (?:pounds|dollars|euros|quid|bucks) short\b",
    r"(?<!\bhe )(?<!\bshe )\bkeeps (?:logging|kicking|signing|locking) (?:me|us|people|users) out\b",
)


def names_symptom(low: str) -> re.Match[str] | None:
    """Where a lower-cased text states a failure: the ``ERROR`` lexicon, then the rarer symptoms."""
    return ERROR.search(low) or _RARE.search(low)


# Exception and error identifiers: "UnicodeDecodeError", "java.lang.IllegalStateException".
EXCEPTION_NAME = re.compile(r"\b(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Fault|Panic)\b")
_EXCEPTION_SUFFIXES = ("Error", "Exception", "Fault", "Panic")


def names_exception(text: str) -> bool:
    """Whether ``text`` names an exception type; a substring test first keeps this cheap."""
    return holds_any(text, _EXCEPTION_SUFFIXES) and bool(EXCEPTION_NAME.search(text))


# Words that make a statement about a problem rather than the problem itself (meta talk).
ERROR_META = _lexicon(
    r"(?:error (?:handling|message|messages|budget|bars?|code 2\d\d|screen)|no errors?|"
    r"(?:0|zero|no) (?:errors?|duplicates?|failures?|crash\w*)|hang on|doesn't bother|"
    r"not (?:really )?(?:a|an) (?:\w+ )?(?:problem|issue|concern)|isn't a problem|no problem|"
    r"(?:isn't|is not|aren't) (?:the|a) (?:main |big |real )?(?:risk|problem|issue|concern)|"
    r"returns? [45]\d\d\b.*\b(?:now|again|instead)\b|no longer|not anymore|"
    r"(?:don't|do not|didn't) want to|in case|to avoid|to prevent|without (?:it|this|that)|"
    r"(?:incident|issue|bug|problem|outage) is (?:now )?(?:closed|resolved|fixed|gone|over)|"
    r"without (?:errors?|fail\w*|collaps\w*|crash\w*)|zero errors?|nobody (?:dies|died|will die)|(?:doesn't|does not|don't|won't|isn't|aren't|didn't) (?:\w+ )?(?:hang|crash|throw|fail|freez|break|leak|error|flicker|jitter|stall|die|time out|stutter|lag|slow)\w* (?:\w+ )?anymore|errors? (?:are|is) (?:now )?(?:handled|caught|"
    r"logged)|if (?:it|this|that|they|the \w+) (?:\w+ )?(?:fails|hangs|crashes|breaks|stuck|dies|"
    r"times out)|"
    # A test stating the behaviour it expects: "a new test confirms that bad input is rejected".
    r"(?:tests?|specs?|checks?) (?:now )?(?:confirms?|verif(?:y|ies)|asserts?|ensures?|proves?) "
    r"(?:that )?|"
    # Wanting something to fail is a requirement: "they want to see a reused token failing".
    r"wants? (?:[\w']+ ){0,3}to (?:see|disappear|vanish)|"
    r"without (?:anyone|anybody|any|a single) (?:\w+ )?(?:fail\w*|crash\w*|error\w*)|"
    # A gate doing its job: "the check fails the build when a page is missing".
    r"fails (?:the |a |any )?(?:build|pr|pull request|pipeline|ci|merge|commit|release|deploy)s? "
    r"(?:when|whenever|if|unless|before|on any))\b",
)

# ----- hedges ----------------------------------------------------------------------------------
# Modality and conditionals: suggestions, options, hypotheticals are not facts of the session.
HEDGE = _lexicon(
    r"(?:would|could|might|may|should|shouldn't|consider|considering|worth|options?|usually|"
    r"typically|often|generally|recommend|suggest|if|unless|either|maybe|perhaps|"
    r"probably|likely|possible|possibly|ideally|you can|you'd|you'll|you need|you want|"
    r"tends? to|the usual|the standard|the simplest|common approach|alternatively|wonder|i'd|"
    r"we'd|let's)\b",
)

# Reported speech: what someone else says or thinks is not the session's own fact.
_REPORTING_VERBS = "says say said tells told mentioned claims claimed thinks reckons asked".split()
REPORTED = Guarded(
    _lexicon(
        r"(?:" + "|".join(_REPORTING_VERBS) + r")\b(?! (?:it|that) (?:is|was) (?:done|fixed))"
    ),
    _REPORTING_VERBS,
)

# A message saying a choice is still open, between people or at all ("we haven't decided", "the
# team splits", "not sure which", "open question"): the positions it reports contest each other.
UNSETTLED = Folded(
    r"\b(?:"
    + _factored(
        branches(
            r"disagree\w*|(?:don'?t|do\s+not|can'?t|cannot)\s+agree|not\s+(?:yet\s+)?(?:settled|decided|agreed)"
            r"|(?:haven'?t|hasn'?t|have\s+not|has\s+not)\s+(?:yet\s+)?(?:settled|decided|agreed)|undecided|no\s+consensus"
            r"|(?:team|we)\s+(?:splits?|are\s+split)|argue\s+it\s+out|backed\s+down|torn\s+between"
            r"|not\s+sure\s+which|unclear\s+which|(?:still\s+)?(?:need|have)\s+to\s+decide"
            r"|(?:still\s+)?open\s+again|up\s+in\s+the\s+air|open\s+question"
            r"|nothing(?:'s|\s+is)\s+final|not\s+final\s+yet"
            # The speaker's own choice left open: "haven't made up my mind", "I'll sleep on it", "we did
            # not finish this discussion", "she has a point", "I said I'd think about it".
            r"|(?:haven'?t|have\s+not|not|never)\s+(?:yet\s+)?made\s+up\s+(?:my|our|his|her|their)\s+minds?"
            r"|(?:did\s+not|didn'?t)\s+(?:yet\s+)?(?:decide|finish\s+(?:this|the)\s+discussion)"
            r"|(?:i'?ll|i\s+will|let\s+me|i'?d)\s+(?:sleep\s+on\s+it|think\s+about\s+it)"
            r"|(?:she|he|they)\s+(?:has|have)\s+a\s+point|on\s+the\s+fence"
            r"|not\s+sure\s+(?:that'?s\s+right|about\s+(?:that|this|it))|i'?m\s+not\s+sure(?=[,.!])"
        )
    )
    + r")\b"
)

# Questions people type without a question mark ("what else is slow", "any idea what changed").
INTERROGATIVE = Folded(
    r"^(?:what|what's|how|why|where|which|who|when|does|do|did|is|are|can|could|should|would|"
    r"will|any|anything|has|have|isn't|aren't|shall)\b"
)

# A user's own hedges: uncertainty and conditionals that open the clause.
USER_HEDGE = _lexicon(
    r"(?:would|could|might|maybe|perhaps|probably|not sure|i wonder|wondering|should (?:i|we))\b",
    r"^(?:if|unless|whether)\b",  # a letter opens the text: the lexicon's word boundary holds
)

# A user stating a preference with a modal still decides ("I'd rather ...", "I'd lean toward").
USER_PREFERENCE = re.compile(
    r"\b(?:i|we)'d (?:rather|lean|prefer|go with|keep|stick)|\bi (?:would|'d) rather\b|"
    # Someone else's position in the same words: "Tom would rather do Porto".
    r"^(?!(?:it|this|that|you|they)\b)[a-z][\w-]* (?:would|'d) rather\b",
    re.IGNORECASE,
)

# Goal statements: what the session sets out to build or reach.
GOAL = re.compile(
    r"^(?:(?:ok|so|hey|hi|morning)[,!]?\s+)?(?:let's (?:build|create|make|write|set up|plan|add)|"
    r"(?:i'm|we're|i am|we are) (?:building|starting|creating|setting up|making|writing|"
    r"working on|adding|moving|migrating|planning)|working on\b|"
    r"picking (?:up|\S+ (?:\S+ )?back up)|(?:i|we) (?:need|want) to (?:build|create|"
    r"make|add|migrate|set up|plan|move|retire|get)|need to (?:build|create|add|migrate|make)|"
    r"building|starting|setting up|new\b|the goal\b|our goal\b|goal:|the (?:research )?question "
    r"is|we need a plan|we need to)",
    re.IGNORECASE,
)

# Technologies named in a goal with "with X and Y" are stack choices; "a tracker in Flutter 3.19",
# "on the Team plan in October" say what is there already, or when.
GOAL_STACK = re.compile(
    r"\b(?:with|using)\s+((?:[A-Z][\w.+#-]*)(?:(?:,\s*|\s+and\s+)[A-Z][\w.+#-]*)*)"
)

# Environment facts: runtimes with versions, operating systems, hardware.
_ENVIRONMENT_FACT = (
    r"(?:Python|Go|Golang|Node(?:\.js)?|Ruby|Java|JDK|Rust|PHP|Kotlin|Swift|Dart|Flutter|"
    r"Django|Rails|React Native|React|Postgres(?:QL)?|MySQL|Redis|Ubuntu|Debian|Alpine|CUDA|"
    r"Terraform|Kubernetes|k8s|k3s|iOS|Android|macOS|Windows|Xcode|npm|pnpm|yarn|TypeScript)"
    r"\s+v?\d+(?:\.\d+){0,2}\b|"
    r"\b(?:A100|H100|A10G|V100|T4|L4|RTX ?\d{4}|4090|3090|M[123](?: Pro| Max)?)\b"
    r"(?: with \d+ ?GB)?"
)
# Every branch opens with a letter or digit: grouped by it, the first match is the same.
ENVIRONMENT = Twin(
    re.compile(r"\b(?=[A-Z0-9kmnipy])(?:" + _factored(branches(_ENVIRONMENT_FACT)) + ")")
)
