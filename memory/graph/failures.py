"""Recognising errors: failure lines in program output and problem statements in prose."""

from __future__ import annotations

import re
from functools import lru_cache

from memory.graph import phrases
from memory.graph.labels import MAX_LABEL_WORDS
from memory.graph.prefilter import Guarded, Twin, holds_any

MAX_ERROR_WORDS = 20

# Output noise before the message of a log line: timestamps, levels, logger and tool prefixes.
_LOG_PREFIX = re.compile(
    r"^(?:#\d+\s+(?:\d+\.\d+\s+)?|[\d/:\-.TZ+,]{6,}\s+|\[[^\]]{0,40}\]\s+|\$\s+|>\s+|e:\s+|\[!\]\s+|"
    # A time zone after the time; a tree's branches; a bullet ("* 1st argument: ...").
    r"(?:UTC|GMT)\s+|[│├└─┬╰]+\s*|\*\s+|"
    r"\d+#\d+:\s+(?:\*\d+\s+)?|"  # nginx: "31#31: *5 connect() failed"
    # pytest's failure lines: "E       KeyError: 'currency'", "E   assert 3 == 4".
    r"E\s+(?=(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Warning)\b|assert\b)|"
    r"(?:INFO|WARN|WARNING|DEBUG|TRACE)\b\s*)+"
)
_NOISE_TAIL = re.compile(r"\s*(?:<[^>]*>|\(TID[^)]*\)|at 0x[0-9a-f]+.*)$")
_STRONG = Twin(
    re.compile(
        r"(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b|\bfatal error:|\bpanic:|\berror(?:\[\w+\])?:|"
        r"\bERROR\b|\bError\b|\berror\b|\bFATAL\b|\bFailed\b|\bfailed\b|\bCannot\b|\bcannot\b|"
        r"\bcould not\b|"
        r"\bmust be\b|\bnot yet\b|"
        r"\bnot found\b|\bdenied\b|\bFAILED\b|\bkilled\b|\bException\b|\bmismatch\b"
    )
)
# Lines that only summarise a run ("1 failed, 4 passed", "ERROR=0") are not the error itself.
_SUMMARY_LINE = Twin(
    re.compile(
        # "3 failed, 40 passed", not "Bind for 0.0.0.0:3000 failed": a count, not a port.
        r"\b(?:ERROR|FAIL|WARN)=\d|(?<![\d:])\d+ (?:failed|passed|errors?)\b|^\s*#(?!\d)|^\s*//|"
        r"^\s*FAIL\s*$|^\s*(?:FAIL|ok)\s+\S+\s+[\d.]+s\s*$"  # a test runner's per-package tally
    )
)
_SOURCE_LINE = Twin(
    re.compile(
        r"^\s*(?:except|catch|raise|throw|if|elif|else|try|return|def|func|fn|class|import|from|"
        r"case|guard|print|log|console|@|\}|\)|\.)\b|^\s*[\w.\[\]\"']+\s*[+\-*/|]?=[^=]|"
        r"\b(?:print|console\.log|logger\.\w+)\("
    )
)
# A problem noun heading its phrase ("the port collision", "bug in daily partitions"), not one
# modifying another noun ("the error window").
_PROBLEM_NOUN = Twin(
    re.compile(
        r"\b(?:error|bug|crash|race|collision|leak|timeout|oom|exception|failure|regression|deadlock|"
        r"flak\w*|[45]\d\d|hang\w*|corrupt\w*|broken|missing|wrong|not \w+ing|stuck|duplicate\w*|"
        r"idor|xss|csrf|vulnerabilit\w*)\b(?=\s*$|\s+(?:in|on|at|for|with|when|where|from|during|"
        r"after|under|of|by|—|–|-)\b|\s*[,.;:)—–])|[A-Z]\w*(?:Error|Exception)\b|"
        # "no more 500s" says a problem is gone.
        r"\b(?:not \w+ing|missing|broken|wrong|stuck|no (?!more\b|longer\b)\w+|lack of|stale|"
        r"unhandled)\b",
        re.IGNORECASE,
    )
)


# A scanner's or linter's finding, one per line: "WARN-NEW: Cookie Without Secure Flag [10011] x 3",
# "serious: Form elements must have labels (label) - 6 nodes".
_FINDING_LINE = re.compile(
    r"^\s*(?:WARN-NEW|FAIL-NEW|WARN-INPROG|critical|serious|moderate)\s*:\s+([A-Z][^\[\n]{5,}?)"
    r"\s*(?:\[[\w-]+\]|\([\w-]+\))?(?:\s+(?:x|-)\s+\d+.*)?$"
)
# A checker's report row, one failed check per line: "FAIL  iam_root_mfa  Root account has no MFA".
_FAILED_CHECK = re.compile(r"^\s*\[?FAIL\]?\s+[\w.:/-]+\s+([A-Z][^\n]{5,}?)\s*$")
# The keywords of those two line shapes ("FAIL" covers "FAIL-NEW").
_FINDING_WORDS = ("WARN-NEW", "FAIL", "WARN-INPROG", "critical", "serious", "moderate")
MAX_FINDINGS = 10

# The line patterns of ``_line_score``, ``error_line_label`` and ``is_error_message``.
# A class from an exceptions module is one whatever its name: "airflow.exceptions.SensorTimeout:".
_EXCEPTION_HEAD = re.compile(
    r"(?:Caused by:\s*)?(?:[a-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception)\b|(?:exceptions?|errors?|exc)\.[A-Z]\w*:)"
)
# An HTTP error response: "400 Bad Request: The CSRF token is missing."
_HTTP_ERROR = re.compile(
    r"^(?:HTTP/[\d.]+ )?[45]\d\d (?:Bad Request|Unauthorized|Forbidden|Not Found|Conflict|Gone|"
    r"Unprocessable (?:Entity|Content)|Too Many Requests|Internal Server Error|Bad Gateway|"
    r"Service Unavailable|Gateway Timeout)\b"
)
_ERROR_HEAD = re.compile(
    r"(?:fatal error|panic|error(?:\[\w+\])?|Error|ERROR|FATAL|fatal(?=:))\b:?"
)
_ERROR_TAG = re.compile(r"\bfatal error:|\bpanic:|\berror(?:\[\w+\])?:|\bERROR\b|\bException:")
_FAIL_SUITE = re.compile(r"(?:--- )?FAIL:?\s+\S")  # "FAIL src/x.test.ts", "--- FAIL: TestX"
_FAILED = re.compile(r"\b(?:FAILED|Failed|failed)\b")
_FAILED_ASSERTION = re.compile(r"Failed asserting that\b|Assertion failed\b|assertion failed\b")
_WHY_FAILED = re.compile(
    r"\b(?:cannot|could not|not found|denied|killed|because|refused|reset|timed out|unreachable)\b",
    re.IGNORECASE,
)
_ERROR_ERROR = re.compile(r"^(?:Error:\s+)+(?=Error\b)")  # "Error: Error acquiring ..."
_BRACKETED_ERROR = re.compile(r"^\[?Error:\s*(.*?)\]?$")
_CAUSED_BY = re.compile(r"^Caused by:\s*")
_SENTENCE_STOP = re.compile(r"(?<=[a-z0-9)'\"])\.\s+(?=[A-Z0-9])")
_ERROR_WORD = re.compile(r"\b(?:error|failed|denied):?\s", re.I)
# A message field of a structured log line: '{"changed": false, "msg": "Failed to connect ..."}'.
_MESSAGE_FIELD = re.compile(r"""(["'])(?:msg|message|error|reason)\1\s*:\s*(["'])(.{8,}?)\2""")
# The error field of a logfmt line, which says why where its msg says only what failed.
_LOGFMT_ERROR = re.compile(r'\b(?:err|error|reason)="((?:[^"\\]|\\.){8,}?)"')
_LOGFMT_LEVEL = re.compile(r"\blevel=(?:warn|warning|error|err|fatal|crit|critical)\b")
# A compiler's or linter's diagnostic: "proto/v1/quote.proto:21:3: Enum value name ...".
_DIAGNOSTIC = re.compile(
    r"^\s*[\w./\\-]+\.\w{1,5}:\d+:\d+:\s*(?:error:\s*)?([A-Z][^\n]{5,}?)\.?\s*$"
)
# Where a diagnostic was found ("x.proto:21:3"), the test before either diagnostic pattern.
_DIAGNOSTIC_POSITION = re.compile(r"\.\w{1,8}:\d+:\d+")
# One diagnostic, the colon after its column optional ("[vite-plugin-svelte] src/lib/x.svelte:14:2
# `$:` is not allowed in runes mode"); not a warning.
_LOOSE_DIAGNOSTIC = re.compile(
    r"^\s*(?:e:\s+)?(?:\[[\w-]+\]\s+)?(?:file://)?[\w./\\-]+\.\w{1,8}:\d+:\d+:?\s+(?:error:\s*)?"
    r"(?!warning\b|note\b|info\b)([`'\"A-Z][^\n]{5,}?)\.?\s*$"
)
# Lines that are no message of their own: stack frames, source excerpts, "key: value" context.
_NOT_MESSAGE = re.compile(
    r"^(?:at\s|File\s|\(|\.\.\.|-->|\||\d+\s*\||"
    # Not a tagged message: "Binder Error: No function matches the given name".
    r"(?![A-Z]\w* (?:Error|Exception)\s*:)[A-Za-z][\w-]*(?: [A-Za-z][\w-]*)?\s*:\s)"
)


def from_code(block: list[str]) -> list[tuple[str, str]]:
    """The failures a block of program output reports: a scanner's or checker's findings, one
    per line, or else its strongest error line (or the line after it saying why), if any."""
    # A line holds a keyword when the block does (none spans lines): one test for all lines.
    text = "\n".join(block)
    if holds_any(text, _FINDING_WORDS):
        findings = [
            (m.group(1).strip(), line.strip())
            for line in block
            if (m := _FINDING_LINE.match(line) or _FAILED_CHECK.match(line))
        ]
        if findings:
            return findings[:MAX_FINDINGS]
    placed = _DIAGNOSTIC_POSITION.search(text)
    if placed:
        diagnostics = [
            (m.group(1), line.strip()) for line in block if (m := _DIAGNOSTIC.match(line))
        ]
        if len(diagnostics) > 1:  # a linter's report: each line is a finding
            return diagnostics[:MAX_FINDINGS]
    if not placed and not holds_any(text, _HINTS):
        return []  # no line can score
    return _strongest(block)


def _strongest(block: list[str]) -> list[tuple[str, str]]:
    """The block's strongest failure line, or the detail line saying why it failed, or both."""
    scores = [_line_score(line) for line in block]
    score = max(scores, default=0)
    if not score:
        return []
    i = scores.index(score)  # the first strongest line: later ones elaborate on it
    if block[i].rstrip().endswith(":") and not any(line.strip() for line in block[i + 1 :]):
        # "error during build:" closing the output heads nothing: a line before it says what.
        before = max(scores[:i], default=0)
        if before:
            j = scores.index(before)
            label = error_line_label(block[j])
            if label:
                return [(label, block[j].strip())]
    last = _last_cause(block, scores, i)
    if last:
        return [
            (label, block[i].strip()) for label in (error_line_label(block[i]),) if label
        ] + last
    detail = _detail_after(block, i)
    if detail and score > 1 and _says_only_that(block[i]):
        lines = [detail]  # "Validate failed: ..." then "Migration checksum mismatch ...": the why
    elif score == 1 and not detail:
        return []  # "Task :app:bundle FAILED" alone says what failed, too little to keep
    elif detail and (
        score == 1 or block[i].rstrip().endswith(":") or _FAIL_SUITE.match(block[i].strip())
    ):
        # "MissingOutputException in rule x:", "--- FAIL: TestQuote": what failed, then why.
        lines = [block[i], detail]
    else:
        lines = [block[i]]
    return [(label, line.strip()) for line in lines if (label := error_line_label(line))]


_EXIT_CODE = re.compile(r"\bexit(?:ed with)? (?:code|status) \d+", re.IGNORECASE)


def _last_cause(block: list[str], scores: list[int], first: int) -> list[tuple[str, str]]:
    """The last failure line as strong as the first (``scores`` are the lines' ``_line_score``),
    when the output goes on past the first to another: the wrapped cause ("Caused by: ...", the
    deepest exception) that people name."""
    for j in range(len(block) - 1, first, -1):
        if scores[j] >= max(scores[first], 3) and not _EXIT_CODE.search(block[j]):
            label = error_line_label(block[j])
            return [(label, block[j].strip())] if label else []
    return []


def _says_only_that(line: str) -> bool:
    """ "Task failed with exception", "Validate failed: Migrations have failed validation": a
    line saying that something failed but not why; a bare "Error" heading what follows."""
    if line.strip(" :").lower() in _BARE_TAGS:
        return True
    return bool(_FAILED.search(line)) and not _WHY_FAILED.search(line)


_BARE_TAGS = frozenset(("error", "fatal error", "fatal", "exception", "failure", "failed"))


def _detail_after(block: list[str], i: int) -> str:
    """The line after line ``i`` when it is a message of its own (the detail of a failure
    line), not a stack frame, a "key: value" line or a summary."""
    following = next((line for line in block[i + 1 :] if line.strip()), "")
    if _MESSAGE_FIELD.search(following):
        return following  # "{'error': {'reason': 'Limit of total fields exceeded'}}"
    text = _LOG_PREFIX.sub("", following.strip())
    if len(text.split()) < 4 or not (text[0].isalnum() or text[0] in "'\"`"):
        return ""  # "'dbt_utils' is undefined" opens with its quoted name
    if _NOT_MESSAGE.match(text):
        return ""
    if _SUMMARY_LINE.search(text) or _SOURCE_LINE.search(text):
        return ""
    return following


# Substrings one of which every failure line holds: a cheap test before the regexes.
_HINTS = (
    "rror",
    "ail",
    "xception",
    "annot",
    "could not",
    "not found",
    "enied",
    "atal",
    "panic",
    "killed",
    "ERROR",
    "FAIL",
    "must be",
    "not yet",
    "mismatch",
    # HTTP error responses: "400 Bad Request", "403 Forbidden", ...
    "Bad Request",
    "Unauthorized",
    "Forbidden",
    "Not Found",
    "Conflict",
    "Unprocessable",
    "Too Many Requests",
    "Bad Gateway",
    "Unavailable",
    "Gateway Timeout",
    "ERR!",
    "BackOff",
    "OOMKilled",
    "ErrImagePull",
    "UNREACHABLE",
)
# A pod's failing status in a ``kubectl get pods`` table.
_POD_STATUS = re.compile(
    r"^(\S+)\s+\d+/\d+\s+(CrashLoopBackOff|ImagePullBackOff|ErrImagePull|OOMKilled|Error|"
    r"CreateContainerConfigError|CreateContainerError|Evicted)\b"
)
# npm's own lines: "npm ERR! code ERESOLVE" names a code, the line after it says what went wrong.
_NPM_ERR = re.compile(r"^npm ERR!\s+")
_NPM_CODE = re.compile(r"^npm ERR!\s+(?:code|errno|syscall|path|A complete log)\b")


def _loose_diagnostic(text: str) -> re.Match[str] | None:
    """``text`` as one loose diagnostic, its message in group 1; the position searched first."""
    return _LOOSE_DIAGNOSTIC.match(text) if _DIAGNOSTIC_POSITION.search(text) else None


def _line_score(line: str) -> int:
    """How surely a line is the failure message (0: not one). The first strongest line wins."""
    text = line.strip()
    if _loose_diagnostic(text):
        return 3  # "e: file:///x/Db.kt:3:8 Module was compiled with an incompatible version"
    if not holds_any(text, _HINTS):
        return 0
    if "level=" in text and _LOGFMT_LEVEL.search(text) and _LOGFMT_ERROR.search(text):
        return 3  # a logfmt line at warn or error level with an error field
    if not text or len(text) > 400 or _SUMMARY_LINE.search(text) or _SOURCE_LINE.search(text):
        return 0
    if _NPM_ERR.match(text):
        return 0 if _NPM_CODE.match(text) else 3
    if _POD_STATUS.match(text):
        return 3
    if _EXIT_CODE.search(text) and not _WHY_FAILED.search(text):
        return 2  # "Error: Process completed with exit code 1": that it failed, not why
    head = _LOG_PREFIX.sub("", text)
    if _EXCEPTION_HEAD.match(head) or _ERROR_HEAD.match(head):
        return 4
    if _HTTP_ERROR.match(head):
        return 3
    if ":" in text and phrases.names_exception(text):
        return 3
    if _ERROR_TAG.search(text):
        return 3
    if _FAILED_ASSERTION.match(text):
        return 3  # "Failed asserting that 119.0 matches expected 120.0": what the test found
    if _FAIL_SUITE.match(text):
        return 2  # a test runner's "FAIL src/x.test.ts": which suite failed
    if _FAILED.search(text) and not _WHY_FAILED.search(text):
        return 1  # "Task :app:build FAILED" says that, not why
    if _STRONG.search(text):
        return 2
    return 0


def error_line_label(line: str) -> str:
    """A label for an output line: log prefixes and object reprs removed, bounded in words."""
    text = _NPM_ERR.sub("", " ".join(line.split()))
    pod = _POD_STATUS.match(text)
    if pod:
        return f"{pod.group(1)} {pod.group(2)}"  # "api-7d9f8b6c5-x2k4p CrashLoopBackOff"
    diagnostic = _loose_diagnostic(text)
    if diagnostic:
        text = diagnostic.group(1)  # the message, without the place it was found
    field = _MESSAGE_FIELD.search(text) if '"' in text or "'" in text else None
    logfmt = _LOGFMT_ERROR.search(text) if "=" in text else None
    if logfmt:
        text = logfmt.group(1)  # 'msg="Push failed" err="... rate limit exceeded"': the cause
    else:
        text = _LOG_PREFIX.sub("", field.group(3) if field else text)
    text = _ERROR_ERROR.sub("", text)  # "Error: Error acquiring ..."
    text = _BRACKETED_ERROR.sub(r"\1", text) if text.startswith("[Error") else text
    text = _CAUSED_BY.sub("", text)
    text = _NOISE_TAIL.sub("", text)
    pieces = _SENTENCE_STOP.split(text)
    first = _unwrapped(next((p for p in pieces if _STRONG.search(p)), pieces[0]))
    words = first.split()
    if len(words) > MAX_ERROR_WORDS:
        first = " ".join(words[:MAX_ERROR_WORDS])
    return first.strip(" .,:;")


# The head of a wrapped error: a tag ("CoreData: ...") or a context naming the failure ("error
# when evicting pod x: ...", "failed to solve: ...").
_WRAPPING_HEAD = re.compile(
    r"^\S+$|\b(?:error|failed|fatal)\b|(?:Error|Exception)\b", re.IGNORECASE
)


def _unwrapped(message: str) -> str:
    """A wrapped error too long for a label ("error when evicting pod x (will retry): Cannot
    evict pod ..."), without the heads that would push its cause past the cut, or else from the
    "but" that says what went wrong."""
    while len(message.split()) > MAX_LABEL_WORDS:
        head, colon, cause = message.partition(": ")
        if not colon or len(cause.split()) < 3 or not _WRAPPING_HEAD.search(head):
            break
        message = cause
    _, but, expectation = message.rpartition(", but ")
    if len(message.split()) > MAX_LABEL_WORDS and but and len(expectation.split()) >= 3:
        # "Doc file x contains a link y, but the target z is not found": what went wrong.
        message = expectation
    return message


def is_error_message(text: str) -> bool:
    """Whether a quoted snippet is an error message ("SSL error: certificate verify failed")."""
    return _line_score(text) >= 3 or bool(
        _ERROR_WORD.search(text) and len(text.split()) >= 3 and not _SOURCE_LINE.search(text)
    )


# A timeout with its length is a setting ("an 800 ms timeout with a fallback"), not a failure.
_TIMEOUT_SETTING = re.compile(
    r"\b\d+(?:\.\d+)?\s?(?:ms|s|secs?|seconds?|mins?|minutes?|h|hours?)\s+timeouts?\b",
    re.IGNORECASE,
)


def names_problem(text: str, loose: bool = False) -> bool:
    """Whether a phrase names a problem ("422 error", "the port collision", "missing X")."""
    if "timeout" in text:
        text = _TIMEOUT_SETTING.sub("", text)
    if _PROBLEM_NOUN.search(text):
        return True
    return loose and bool(phrases.names_symptom(text.lower()))


@lru_cache(maxsize=8192)
def _talks_about_problems(low: str) -> bool:
    """Whether a lower-cased clause is meta talk about problems (cached: both problem tests ask)."""
    return bool(phrases.ERROR_META.search(low))


# A test runner's tally ("==== 1 failed, 43 passed in 8.15s ===="): that a test failed, not what
# went wrong, which the output states elsewhere.
_TALLY = re.compile(
    r"^[\W_]*\d+ (?:failed|passed|errors?|skipped|warnings?|xfailed|deselected)\b"
    r"(?:,? \d+ \w+)*(?: in [\d.]+s)?(?: \([\d:]+\))?[\W_]*$"
)


@lru_cache(maxsize=8192)
def is_problem(clause: str, role: str, agent: bool = False) -> bool:
    """Whether a prose clause states a failure or wrong behaviour of the system being worked on."""
    if len(clause.split()) < 3 or _TALLY.match(clause):
        return False
    low = clause.lower()
    exception = phrases.names_exception(clause) and not _HANDLED.search(clause)
    # A clause naming neither an exception nor an error states no problem, meta talk or not: the
    # error lexicon first spares most clauses the meta-talk one.
    if not exception and not phrases.names_symptom(low):
        return False
    if _talks_about_problems(low):
        return False
    if exception:
        return True
    # An assistant explaining causes uses the same words; only a strong failure verb counts there.
    if role != "user" and not agent:
        return bool(_STRONG_PROSE.search(low))
    return not _HANDLED.search(clause)


_STRONG_PROSE = re.compile(
    r"\b(?:fails|failed|failing|crash\w*|hangs|hung|broke|broken|unreachable|unreliable|"
    r"returns? [45]\d\d|timing out|times out|deletes|discards|wiped|leak\w*|race\b|"
    r"out of memory|oom|error rate (?:is|of|at|jumped|spiked)|unsafe|is locked|corrupt\w*|"
    r"permanently|resurrect\w*|reinstat\w*|wrong)\b",
)


# An exception named as what code handles, not as what happened: "catches only ImportError".
_HANDLED = Guarded(
    re.compile(
        r"\b(?:catch(?:es|ing)?|except|handles?|handling|raises? (?:a|an)?)\s+(?:\w+\s+)?"
        r"(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b"
    ),
    ("Error", "Exception"),
)


@lru_cache(maxsize=8192)
def is_strong_problem(clause: str) -> bool:
    """A failure stated so plainly that no other reading of the clause competes with it."""
    low = clause.lower()
    # The plain statement first: most clauses hold none, and then need no other test.
    if not (phrases.names_exception(clause) or _UNAMBIGUOUS.search(low)):
        return False
    return not (_talks_about_problems(low) or _HANDLED.search(clause))


_UNAMBIGUOUS = Guarded(
    re.compile(
        r"\bkeeps? (?:returning|failing|crashing|timing out|throwing)\b|"
        r"(?<=\w )keeps? (?:hitting|running into)\b|"
        r"\breturns? (?:a )?[45]\d\d\b" + phrases.BY_DESIGN_STATUS + r"|"
        r"\b(?:backs|backed|backing) up every\b|"
        r"\b(?:crash(?:es|ed)|hangs|blows up|blew up|fell over|falls over|is timing out|times out|"
        r"slipped|slips|slipping|dropped (?:by|from) \d|(?:isn't|aren't|is not|are not|stopped) working|"
        r"oom[- ]?kill)|"
        r"\b(?:came|comes?) back (?:with|as) (?:the |a )?wrong\b|"
        r"\b(?:nobody|no one|no-one) can (?:log in|sign in|access|open|reach|connect|pay|check out)\b|"
        # Something that should have come and did not: "web-07 never got the deploy key".
        r"\bnever (?:got|received) (?:the|a|an|any|their|its|his|her|our|my)\b(?! (?:\w+ )?round)|"
        r"\b(?:two|three|2|3) (?:\w+ )?(?:emails|messages|notifications|invoices|charges|copies|"
        r"texts) each\b|"
        r"\bdrops? every \w+ (?:message|request|packet|event|row|frame|call)\b|"
        r"\bwent out with (?:the )?(?:wrong|old|last year's|outdated|an old|a wrong)\b|"
        r"\bby (?:mistake|accident)\b|\b(?:went|goes) out short\b",
    ),
    # A word of each branch, in order (lower-case, like the text the pattern reads).
    (
        "keep|return|crash|hangs|blows up|blew up|fell over|falls over|timing out|times out|slip|"
        "dropped|working|oom|backs up|backed up|backing up|came back|comes back|come back|"
        "nobody can|no one can|no-one can|never got|never received| each|drop|went out|by mistake|"
        "by accident|"
        "out short"
    ).split("|"),
)


# A clause announcing a problem that the clause after its colon states: "One problem: X",
# "something went wrong yesterday: X", "We had an incident last week: X".
_ANNOUNCES_PROBLEM = Guarded(
    re.compile(
        r"^(?:(?:so|and|but|oh|also|separately|then|ok|okay|however)\b,?\s+)*"
        r"(?:(?:(?:the|one|another|a|new|next|second|other|big|bigger|main|real|last)\s+)?"
        r"(?:problem|issue|bug|snag|gotcha|incident)(?:\s+(?:is|was)\s+(?:\S+\s+){0,3}\S+|"
        r"\s+(?:though|here|now|today|left|remaining))?|"
        r"(?:something|stuff|things)\s+(?:went|is|was|has gone|have gone|goes)\s+wrong(?:\s+\S+){0,2}|"
        # "Weird one though: X", "Other weirdness: X".
        r"(?:(?:one|another|a|other|more|the|new|last)\s+)?(?:weird|strange|odd)(?:ness|\s+one|"
        r"\s+thing)(?:\s+(?:though|here|now|too))?|"
        # "Slight drama this morning: X", "The main findings: X".
        r"(?:slight|bit\s+of\s+a|some|more)\s+drama"
        r"(?:\s+(?:this\s+morning|today|last\s+night))?|(?:the\s+)?(?:main\s+)?findings|"
        r"(?:we|i)\s+(?:had|have|got|hit)\s+(?:an?\s+|another\s+|one\s+)?"
        r"(?:incident|outage|problem|issue|bug)(?:\s+\S+){0,3})$",
        re.IGNORECASE,
    ),
    ("problem", "issue", "bug", "snag", "gotcha", "incident", "wrong", "outage", "weird", "strange")
    + ("odd", "drama", "findings"),
    lower=True,
)


def announces_problem(clause: str) -> bool:
    """Whether a clause only announces the problem the next clause states ("One problem: X")."""
    return bool(_ANNOUNCES_PROBLEM.search(clause.strip()))


# Where a long clause's parts meet: "X renamed the column and two consumers wrote nulls".
_PIECE_BREAK = re.compile(r"[,:;]\s+|\s+(?:and|but)\s+(?=\w)")
_POINTS_BACK = re.compile(r"^(?:(?:so|and|but|then)\s+)?(?:it|this|that|they)\b", re.IGNORECASE)


def problem_label(clause: str) -> str:
    """The clause itself, minus program-output noise: the problem as stated. In a long clause,
    the part holding the failure predicate, from the comma, colon or "and" that opens it."""
    clause = _NOISE_TAIL.sub("", clause)
    if len(clause.split()) <= 12:
        return clause
    starts = [0] + [m.end() for m in _PIECE_BREAK.finditer(clause)]
    pieces = [clause[a:b] for a, b in zip(starts, [*starts[1:], len(clause)], strict=True)]
    for i, piece in enumerate(pieces):
        if phrases.names_symptom(piece.lower()) or phrases.names_exception(piece):
            if i and _POINTS_BACK.match(piece):
                i -= 1  # "..., so it vanished": the piece before names what "it" is
            return clause[starts[i] :]
    return clause


def message_said(text: str, role: str) -> str:
    """The message a failure shows, quoted after the word that reports it: "the form rejected the
    card with 'Transaction declined: AVS mismatch'", "the QR code opens a page that says 'This form
    is no longer accepting responses'". The message is the error, with the short clause that
    reports it when there is one ("Gusto rejects it: ..."); the rest of the sentence only says
    where it appeared. "" when the sentence quotes no such message."""
    # A quote that opens after a reporting word opens after a space: most apostrophes do not.
    if not holds_any(text, _OPENING_QUOTES):
        return ""
    for m in _QUOTED_MESSAGE.finditer(text):
        message = next(g for g in m.groups() if g)
        before = text[: m.start()]
        if (
            len(message.split()) >= 3
            and _REPORTED_BY.search(before[-_REPORTING_CHARS:])
            and (is_error_message(message) or is_problem(before, role))
        ):
            message = error_line_label(message)
            context = _REPORT_BREAK.split(before)[-1].strip(" :").removesuffix(" with")
            words = len(context.split())
            if 2 <= words <= 5 and words + len(message.split()) <= MAX_LABEL_WORDS:
                return f"{context}: {message}"  # "Gusto rejects it: Pay date history ..."
            # With no room for both in a label, the message: a label would cut it short.
            return message
    return ""


_REPORT_BREAK = re.compile(r"[,;:]\s+|\s+(?:and|but|so)\s+")


_OPENING_QUOTES = (" '", ' "', "\u2018", "\u201c")
_REPORTING_CHARS = 40  # the longest ending of ``_REPORTED_BY``, with room to spare
_QUOTED_MESSAGE = re.compile(
    r"(?<!\w)'([^'\n]{4,200})'(?!\w)|\"([^\"\n]{4,200})\"|\u2018([^\u2019\n]{4,200})\u2019|"
    r"\u201c([^\u201d\n]{4,200})\u201d"
)
# The words that introduce what a screen, a log or a program said.
_REPORTED_BY = re.compile(
    r"\b(?:with|says?|said|saying|gets?|got|getting|gives?|gave|giving|shows?|showed|showing|"
    r"reads?|throws?|threw|throwing|returns?|returned|returning|errors?|message|complains?|"
    r"complained|complaining)(?:\s+(?:me|us|back|an?\s+error|an?\s+message|the\s+error))?"
    r"\s*:?\s*$",
    re.IGNORECASE,
)
